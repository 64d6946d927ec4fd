"""Cases of test_sparse_updates.py and of its goldens script (make_sparse_update_goldens_mindspore.py): the sparse
optimizer primitives on rows with a repeated index and a row no index names, run under Kiln or MindSpore."""

import numpy as np

GRAD = np.array([[1.0, 2.0], [3.0, -4.0], [0.5, 1.5]], np.float32)
INDICES = np.array([0, 2, 0], np.int32)  # row 0 twice, row 1 untouched


def run(ms, op: str) -> list:
    """The state Parameters after one call of sparse primitive `op`, through framework `ms`."""
    ops, tensor = ms.ops, ms.Tensor

    def state(value, name):
        return ms.Parameter(tensor(np.full((3, 2), value, np.float32)), name=name)

    grad, indices = tensor(GRAD), tensor(INDICES)
    if op == "SparseApplyAdagrad":
        params = (state(1.0, "var"), state(0.5, "accum"))
        ops.SparseApplyAdagrad(lr=0.1)(*params, grad, indices)
    elif op == "SparseApplyFtrl":
        params = (state(1.0, "var"), state(0.5, "accum"), state(0.1, "linear"))
        ops.SparseApplyFtrl(lr=0.1, l1=0.01, l2=0.02, lr_power=-0.5)(*params, grad, indices)
    elif op == "FusedSparseFtrl":
        params = (state(1.0, "var"), state(0.5, "accum"), state(0.1, "linear"))
        ops.FusedSparseFtrl(lr=0.1, l1=0.01, l2=0.02, lr_power=-0.5)(*params, grad, indices)
    elif op == "FusedSparseProximalAdagrad":
        params = (state(1.0, "var"), state(0.5, "accum"))
        ops.FusedSparseProximalAdagrad()(*params, *_scalars(tensor, 0.1, 0.01, 0.02), grad, indices)
    elif op in ("FusedSparseLazyAdam", "FusedSparseAdam"):
        params = (state(1.0, "var"), state(0.1, "m"), state(0.2, "v"))
        hyper = _scalars(tensor, 0.9, 0.999, 0.01, 0.9, 0.999, 1e-8)
        # Nesterov on the lazy one: MindSpore's FusedSparseAdam leaves it unwritten on rows no index names
        getattr(ops, op)(use_nesterov=op == "FusedSparseLazyAdam")(*params, *hyper, grad, indices)
    elif op == "SparseApplyRMSProp":  # MindSpore 2.10 takes one gradient row per row of var (3 here)
        params = (state(1.0, "var"), state(0.5, "mean_square"), state(0.1, "moment"))
        ops.SparseApplyRMSProp(rho=0.9, momentum=0.5, epsilon=1e-6)(*params, tensor(np.float32(0.1)), grad, indices)
    elif op == "SparseApplyAdagradV2":
        params = (state(1.0, "var"), state(0.5, "accum"))
        ops.SparseApplyAdagradV2(lr=0.1, epsilon=1e-6)(*params, grad, indices)
    else:
        raise ValueError(op)
    return [p.asnumpy().tolist() for p in params]


def _scalars(tensor, *values):
    return [tensor(np.float32(v)) for v in values]
