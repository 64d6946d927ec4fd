"""Write float16_elementwise_goldens_mindspore.json: what MindSpore 2.10's CPU kernels compute for float16 inputs of
the elementwise functions of test_low_precision_modes.py, and its std/std_mean (ReduceStd), as float16 bit patterns
(4 hex digits a value). Run: /work/msvenv/bin/python tests/_prims/make_float16_elementwise_goldens_mindspore.py"""

import json
import os

import mindspore as ms
import numpy as np
from mindspore import Tensor, ops

HERE = os.path.dirname(os.path.abspath(__file__))
UNARY = ["log", "sqrt", "reciprocal", "sin", "cos", "atan", "acosh", "atanh", "erfc", "sigmoid", "silu", "softsign",
         "softmax", "log_softmax", "exp", "tan", "asin", "acos", "sinh", "cosh", "tanh", "asinh", "erf", "elu",
         "softplus"]  # fmt: skip
BINARY = ["atan2", "xlogy"]
STD_SHAPE = (64, 37)


def bits(a: np.ndarray) -> str:
    return np.ascontiguousarray(a, np.float16).view(np.uint16).astype(">u2").tobytes().hex()


def main():
    rng = np.random.default_rng(21)
    every = np.arange(65536, dtype=np.uint16).view(np.float16)
    every = every[np.isfinite(every)]
    edges = np.array([0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 6e-8, -6e-8, 65504.0, -65504.0, 1e-4, 3.0], np.float16)
    x = np.concatenate([edges, rng.choice(every, 500)])
    y = np.concatenate([edges[::-1], rng.choice(every, 500)])
    std_x = (rng.standard_normal(STD_SHAPE) * 3 + 1).astype(np.float16)
    ms.set_context(mode=ms.PYNATIVE_MODE, device_target="CPU")
    out = {"version": ms.__version__, "x": bits(x), "y": bits(y), "std_x": bits(std_x), "std_shape": list(STD_SHAPE)}
    for name in UNARY:
        out[name] = bits(getattr(ops, name)(Tensor(x)).asnumpy())
    for name in BINARY:
        out[name] = bits(getattr(ops, name)(Tensor(x), Tensor(y)).asnumpy())
    for ddof in (0, 1):
        std, mean = ops.std_mean(Tensor(std_x), -1, ddof)
        out[f"std/{ddof}"] = bits(ops.std(Tensor(std_x), -1, ddof).asnumpy())
        out[f"std_mean/{ddof}"] = bits(std.asnumpy())
        out[f"std_mean_mean/{ddof}"] = bits(mean.asnumpy())
    with open(os.path.join(HERE, "float16_elementwise_goldens_mindspore.json"), "w") as f:
        json.dump(out, f, indent=0)
        f.write("\n")


if __name__ == "__main__":
    main()
