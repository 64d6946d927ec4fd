"""Cases of the zoo's fused Adam Primitives (AdamNoUpdateParam, FusedCastAdamWeightDecay, FusedSparseAdam) run by
MindSpore 2.10's CPU build and by Kiln: `run(ms, name, mode)` makes the same inputs for either, runs two steps of the
op inside a Cell and returns the op's outputs and the Parameters after each step. Shared by
make_fused_adam_goldens_mindspore.py and test_fused_optimizers.py."""

import numpy as np

N = 64
BETA1, BETA2, EPS, LR, DECAY = 0.9, 0.999, 1e-6, 0.01, 0.01


def _draw(seed):
    rng = np.random.default_rng(seed)
    var = rng.standard_normal(N).astype(np.float32)
    m = rng.standard_normal(N).astype(np.float32) * np.float32(0.1)
    v = np.abs(rng.standard_normal(N)).astype(np.float32) * np.float32(0.01)
    grads = rng.standard_normal((2, N)).astype(np.float32)
    return var, m, v, grads


def _copy(t):
    # MindSpore's asnumpy of a Parameter shares its memory: the next step would change an array already taken
    return np.array(t.asnumpy(), copy=True)


def _cell(ms, build, params):
    class Step(ms.nn.Cell):
        def __init__(self):
            super().__init__()
            self.op = build()
            self.names = list(params)
            for name, value in params.items():
                setattr(self, name, ms.Parameter(ms.Tensor(value), name=name))

    return Step


def adam_no_update_param(ms, mode, nesterov=False):
    """AdamNoUpdateParam: the parameter's delta, m and v updated in place (the zoo's SPADE AdamOffload)."""
    var, m, v, grads = _draw(1)
    f = lambda x: ms.Tensor(np.float32(x))  # noqa: E731
    base = _cell(ms, lambda: ms.ops.operations.AdamNoUpdateParam(False, nesterov), {"m": m, "v": v})

    class Step(base):
        def construct(self, b1p, b2p, g):
            return self.op(self.m, self.v, b1p, b2p, f(LR), f(BETA1), f(BETA2), f(EPS), g)

    ms.set_context(mode=mode)
    net, out = Step(), []
    for t, g in enumerate(grads, 1):
        delta = net(f(BETA1**t), f(BETA2**t), ms.Tensor(g))
        out += [_copy(delta), _copy(net.m), _copy(net.v)]
    return out


def fused_cast_adam_weight_decay(ms, mode, var_dtype, grad_dtype, global_norm):
    """FusedCastAdamWeightDecay (the zoo's Pangu_alpha AdamWeightDecayOp): var (float32 or float16), m and v
    (float32) updated in place from a gradient divided by the global norm; the Parameters after each step (its
    outputs are not recorded: MindSpore's CPU kernel leaves them unwritten, zeros or stale memory)."""
    var, m, v, grads = _draw(2)
    f = lambda x: ms.Tensor(np.float32(x))  # noqa: E731
    base = _cell(ms, ms.ops.operations.FusedCastAdamWeightDecay, {"var": var.astype(var_dtype), "m": m, "v": v})

    class Step(base):
        def construct(self, g, norm):
            return self.op(self.var, self.m, self.v, f(LR), f(BETA1), f(BETA2), f(EPS), f(DECAY), g, norm)

    ms.set_context(mode=mode)
    net, out = Step(), []
    for g in grads:
        net(ms.Tensor(g.astype(grad_dtype)), f(global_norm))
        out += [_copy(t) for t in (net.var, net.m, net.v)]
    return out


def fused_sparse_adam(ms, mode, indices, nesterov=False):
    """FusedSparseAdam (the zoo's SPADE Adam for a sparse gradient): var, m, v (8, 8) updated in place from rows of
    a gradient at `indices` (a repeated index sums its rows); the Parameters after each step (its outputs are not
    recorded, as FusedCastAdamWeightDecay's)."""
    var, m, v, _ = _draw(3)
    rows = np.random.default_rng(4).standard_normal((2, len(indices), 8)).astype(np.float32)
    f = lambda x: ms.Tensor(np.float32(x))  # noqa: E731
    params = {"var": var.reshape(8, 8), "m": m.reshape(8, 8), "v": v.reshape(8, 8)}
    base = _cell(ms, lambda: ms.ops.operations.FusedSparseAdam(False, nesterov), params)

    class Step(base):
        def construct(self, b1p, b2p, g, i):
            return self.op(self.var, self.m, self.v, b1p, b2p, f(LR), f(BETA1), f(BETA2), f(EPS), g, i)

    ms.set_context(mode=mode)
    net, out, idx = Step(), [], ms.Tensor(np.asarray(indices, np.int32))
    for t, g in enumerate(rows, 1):
        net(f(BETA1**t), f(BETA2**t), ms.Tensor(g), idx)
        out += [_copy(p) for p in (net.var, net.m, net.v)]
    return out


CASES = {
    "adam_no_update_param": adam_no_update_param,
    "adam_no_update_param_nesterov": lambda ms, mode: adam_no_update_param(ms, mode, True),
    # the zoo's use: a float32 parameter, its gradient float16
    "fused_cast_adam_f32_f16": lambda ms, mode: fused_cast_adam_weight_decay(ms, mode, np.float32, np.float16, 1.5),
    "fused_cast_adam_f16_f16": lambda ms, mode: fused_cast_adam_weight_decay(ms, mode, np.float16, np.float16, 1.5),
    "fused_cast_adam_f32_f32": lambda ms, mode: fused_cast_adam_weight_decay(ms, mode, np.float32, np.float32, 1.5),
    # rows 0 and 5 twice; the rows not named only decay their moments
    "fused_sparse_adam": lambda ms, mode: fused_sparse_adam(ms, mode, [5, 0, 3, 0, 5, 7]),
    # indices out of [0, 8): MindSpore's CPU kernel drops them (measured, 2.10)
    "fused_sparse_adam_out_of_range": lambda ms, mode: fused_sparse_adam(ms, mode, [1, 9, -1, 3]),
    # Nesterov: every row named (MindSpore's kernel reads memory it never wrote for the others)
    "fused_sparse_adam_nesterov": lambda ms, mode: fused_sparse_adam(ms, mode, [4, 2, 0, 1, 3, 2, 5, 6, 7], True),
    # a global norm under 1e-10 counts as 1
    "fused_cast_adam_tiny_norm": lambda ms, mode: fused_cast_adam_weight_decay(ms, mode, np.float32, np.float16, 1e-12),
}


def run(ms, name, mode):
    """The case's arrays (float32 or float16), in order."""
    return CASES[name](ms, mode)
