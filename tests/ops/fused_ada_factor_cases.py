"""ops.FusedAdaFactor / FusedAdaFactorWithGlobalNorm cases run by both MindSpore (make_fused_ada_factor_goldens_
mindspore.py) and Kiln (test_fused_optimizers.py): three steps of one Cell, the second moments' decay of step t
1 - t ** -0.8 (as nn.AdaFactor passes it), on a factored (2, 3, 4) and an unfactored (5,) parameter."""

import numpy as np

# name -> (parameter shape, (scale_parameter, first_moment, weight_decay) flags, global norm or None)
CASES = {
    "plain_3d": ((2, 3, 4), (False, False, False), None),
    "all_3d": ((2, 3, 4), (True, True, True), None),
    "scale_1d": ((5,), (True, False, False), None),
    "all_1d": ((5,), (True, True, True), None),
    "norm_3d": ((2, 3, 4), (False, True, False), 10.0),
    "tiny_norm_1d": ((5,), (True, True, False), 1e-31),
}


def run(ms, name, mode):
    """The parameter and its four states after three steps of case `name`, under framework `ms` in `mode`."""
    shape, flags, norm = CASES[name]
    rng = np.random.default_rng(sum(map(ord, name)))
    row_shape, col_shape = (shape[:-1], shape[:-2] + shape[-1:]) if len(shape) > 1 else ((1,), (1,))

    def param(value, label):
        return ms.Parameter(ms.Tensor(np.asarray(value, np.float32)), name=label)

    class Step(ms.nn.Cell):
        def __init__(self):
            super().__init__()
            cls = ms.ops.FusedAdaFactor if norm is None else ms.ops.FusedAdaFactorWithGlobalNorm
            self.opt = cls(*flags)
            self.param = param(rng.uniform(-1, 1, shape), "param")
            self.exp_avg = param(rng.uniform(-0.1, 0.1, shape), "exp_avg")
            self.row = param(np.zeros(row_shape), "row")
            self.col = param(np.zeros(col_shape), "col")
            self.sq = param(np.zeros(shape if len(shape) == 1 else (1,)), "sq")

        def construct(self, grad, beta2t, lr):
            args = ((1e-30, 1e-3), 1.0, 0.9, beta2t, 1e-2, lr, grad, self.param, self.exp_avg, self.row, self.col,
                    self.sq)  # fmt: skip
            return self.opt(*args) if norm is None else self.opt(*args, norm)

    ms.set_context(mode=mode)
    try:
        net = Step()
        for t in (1, 2, 3):
            grad = ms.Tensor(rng.standard_normal(shape).astype(np.float32))
            net(grad, float(1 - t**-0.8), 0.03 * t)
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    return [p.asnumpy() for p in (net.param, net.exp_avg, net.row, net.col, net.sq)]
