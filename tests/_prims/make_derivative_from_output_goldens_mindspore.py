"""Write derivative_from_output_goldens_mindspore.json: the input gradients MindSpore 2.10's CPU backward rules give
for the elementwise functions whose rules read the forward output (tanh, sigmoid, sqrt, rsqrt, reciprocal, exp, div,
...) and their neighbours (erf, both forms of gelu, pow, softmax and softmin along several axes, log_softmax), in
float16, float32 and bfloat16 (where its CPU kernels take the dtype), PyNative and GRAPH_MODE, on random inputs with
the domain edges (0, saturation, division by 0). Values are stored as bit patterns (hex, 4 digits a 16-bit value, 8 a
float32 one).
Run from the repository root: PYTHONPATH=$PWD /work/msvenv/bin/python
tests/_prims/make_derivative_from_output_goldens_mindspore.py"""

import json
import os

import mindspore as ms
import numpy as np
from mindspore import Tensor, nn, ops

from tests._prims.derivative_from_output_cases import AXES, CASES, DTYPES, bits, case_inputs


class _Apply(nn.Cell):
    def __init__(self, fn):
        super().__init__()
        self.fn = fn

    def construct(self, *xs):
        return self.fn(*xs)


def _gelu_tanh(x):
    return ops.gelu(x, approximate="tanh")


FUNCTIONS = {
    "tanh": ops.tanh, "sigmoid": ops.sigmoid, "exp": ops.exp, "sqrt": ops.sqrt, "rsqrt": ops.rsqrt,
    "reciprocal": ops.reciprocal, "log": ops.log, "erf": ops.erf, "gelu": ops.gelu, "gelu_tanh": _gelu_tanh,
    "div": ops.div, "pow": ops.pow,
}  # fmt: skip


def _along(name):
    # a function of its own per case (GRAPH_MODE differentiates a functools.partial of ops.softmax wrongly: every
    # gradient element differed from PyNative's)
    axis = AXES[name]
    if name.startswith("log_"):
        return lambda x: ops.log_softmax(x, axis)
    if name == "softmin":
        return lambda x: ops.softmin(x, axis)
    return lambda x: ops.softmax(x, axis)


for _name in AXES:
    FUNCTIONS[_name] = _along(_name)


def _f32(t):
    return t.astype(ms.float32).asnumpy() if t.dtype == ms.bfloat16 else t.asnumpy()


def main():
    ms_dtypes = {"float16": ms.float16, "float32": ms.float32, "bfloat16": ms.bfloat16}
    out = {"version": ms.__version__}
    for mode_name, mode in (("pynative", ms.PYNATIVE_MODE), ("graph", ms.GRAPH_MODE)):
        ms.set_context(mode=mode, device_target="CPU")
        for name in CASES:
            net = _Apply(FUNCTIONS[name])
            grad = ops.GradOperation(get_all=True, sens_param=True)(net)
            for dt in DTYPES:
                xs, dout = case_inputs(name, dt)
                args = [Tensor(a.astype(np.float32)).astype(ms_dtypes[dt]) for a in (*xs, dout)]
                # the inputs as MindSpore rounded them (Kiln's test reads these bits)
                out[f"inputs/{name}/{dt}"] = [bits(_f32(a), dt) for a in args]
                out[f"shape/{name}"] = list(dout.shape)
                try:
                    grads = grad(*args)
                    fwd = net(*args[:-1])
                except (RuntimeError, TypeError, ValueError) as e:
                    out[f"{mode_name}/{name}/{dt}"] = f"unsupported: {type(e).__name__}"
                    continue
                out[f"{mode_name}/{name}/{dt}"] = [bits(_f32(g), dt) for g in grads]
                # the forward output: where it differs from Kiln's, so may the gradient read from it
                out[f"{mode_name}/{name}/{dt}/out"] = bits(_f32(fwd), dt)
    with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "derivative_from_output_goldens_mindspore.json"),
              "w") as f:
        json.dump(out, f, indent=0)
        f.write("\n")


if __name__ == "__main__":
    main()
