"""Cases of the scatter reductions (test_scatter_reductions.py) and of their goldens script
(make_scatter_reduction_goldens_mindspore.py), run under Kiln or MindSpore: every face (functional, Primitive class,
Tensor method, in-place on a Parameter) of sub / mul / div / max / min with repeated indices, integer division, and
the gradients of the scatter product and quotient where indices repeat."""

import numpy as np

X = np.array([[1.0, -2.0], [3.0, 4.0], [5.0, 6.0]], np.float32)
UPDATES = np.array([[2.0, 3.0], [4.0, -5.0], [0.5, 2.0]], np.float32)
ROWS = np.array([0, 0, 2], np.int32)  # row 0 twice: each of its updates applies
COTANGENT = np.arange(1, 7, dtype=np.float32).reshape(3, 2)
KINDS = ("sub", "mul", "div", "max", "min")


def run(ms) -> dict:
    """Every case's result as nested lists, through framework `ms` (kiln or mindspore)."""
    ops, tensor = ms.ops, ms.Tensor
    x, updates, rows, nd = tensor(X), tensor(UPDATES), tensor(ROWS), tensor(ROWS.reshape(3, 1))
    out = {}

    def parameter():
        return ms.Parameter(tensor(X), name="p")

    for kind in KINDS:
        out[f"tensor_scatter_{kind}"] = getattr(ops, f"tensor_scatter_{kind}")(x, nd, updates)
        out[f"TensorScatter{kind.capitalize()}"] = getattr(ops, f"TensorScatter{kind.capitalize()}")()(x, nd, updates)
        out[f"Tensor.scatter_{kind}"] = getattr(tensor(X), f"scatter_{kind}")(nd, updates)
        for face in (f"scatter_nd_{kind}", f"ScatterNd{kind.capitalize()}"):
            p = parameter()
            call = getattr(ops, face) if face[0].islower() else getattr(ops, face)()
            returned = call(p, nd, updates)
            out[face] = [returned, p.value()]
        if kind != "sub":  # MindSpore's ops has no scatter_sub; ScatterSub is below
            for face in (f"scatter_{kind}", f"Scatter{kind.capitalize()}"):
                p = parameter()
                call = getattr(ops, face) if face[0].islower() else getattr(ops, face)()
                returned = call(p, rows, updates)
                out[face] = [returned, p.value()]
    p = parameter()
    out["ScatterSub"] = [ops.ScatterSub()(p, rows, updates), p.value()]
    ints = tensor(np.array([7, -8, 9], np.int32))
    out["tensor_scatter_div_int"] = ops.tensor_scatter_div(ints, tensor(np.array([[0], [1], [1]], np.int32)),
                                                           tensor(np.array([2, 3, 2], np.int32)))  # fmt: skip
    for kind in ("mul", "div"):
        scatter = getattr(ops, f"tensor_scatter_{kind}")
        grads = ms.grad(lambda a, b, s=scatter: (s(a, nd, b) * tensor(COTANGENT)).sum(), grad_position=(0, 1))
        out[f"grad_tensor_scatter_{kind}"] = list(grads(x, updates))
    return {k: _lists(v) for k, v in out.items()}


def _lists(value):
    if isinstance(value, (list, tuple)):
        return [_lists(v) for v in value]
    return value.asnumpy().tolist()
