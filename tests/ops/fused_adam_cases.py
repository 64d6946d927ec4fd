"""Cases of the zoo's fused Adam Primitives (AdamNoUpdateParam) run by
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


CASES = {
    "adam_no_update_param": adam_no_update_param,
    "adam_no_update_param_nesterov": lambda ms, mode: adam_no_update_param(ms, mode, True),
}


def run(ms, name, mode):
    """The case's arrays (float32 or float16), in order."""
    return CASES[name](ms, mode)
