"""HSigmoid and HSwish values and gradients bit for bit, written once for both frameworks: `run(ms)` takes the
`mindspore` module (for the goldens) or `kiln` and returns {"MODE op dtype value|grad": the outputs' bits}, float32
and float16 inputs spread over [-4, 4] with the kinks (-3, 3) among them, in PyNative and GRAPH_MODE; and the
integer outputs of an int32 input."""

import numpy as np

RNG = np.random.default_rng(26)
X = np.concatenate([RNG.uniform(-4, 4, 250), [-3.0, 3.0, -2.5, 0.0, 1.0, 2.0, -5.0, 5.0]]).astype(np.float32)
DY = RNG.standard_normal(X.size).astype(np.float32)
XI = np.arange(-6, 7).astype(np.int32)
_BITS = {np.dtype(np.float32): np.uint32, np.dtype(np.float16): np.uint16}


def _bits(a: np.ndarray) -> list:
    return a.view(_BITS[a.dtype]).tolist()


def run(ms) -> dict:
    """Each op's outputs and input gradients (sensitivity DY) in both modes, as bit patterns."""
    ops, nn, Tensor = ms.ops, ms.nn, ms.Tensor

    class Apply(nn.Cell):
        def __init__(self, op):
            super().__init__()
            self.op = op

        def construct(self, x):
            return self.op(x)

    out = {}
    try:
        for mode_name, mode in (("pynative", ms.PYNATIVE_MODE), ("graph", ms.GRAPH_MODE)):
            ms.set_context(mode=mode)
            for name in ("HSigmoid", "HSwish"):
                net = Apply(getattr(ops, name)())
                grad = ops.GradOperation(sens_param=True)(net)
                for dtype in (np.float32, np.float16):
                    x, dy = Tensor(X.astype(dtype)), Tensor(DY.astype(dtype))
                    key = f"{mode_name} {name} {np.dtype(dtype).name}"
                    out[f"{key} value"] = _bits(net(x).asnumpy())
                    out[f"{key} grad"] = _bits(grad(x, dy).asnumpy())
                y = net(Tensor(XI))
                out[f"{mode_name} {name} int32 value"] = [str(y.dtype), y.asnumpy().tolist()]
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    return out
