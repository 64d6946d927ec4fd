"""Write float16_goldens_mindspore.json: what MindSpore 2.10 (CPU) computes for the small float16 programs of
tests/_backend/test_low_precision_rounding.py, in PyNative and GRAPH_MODE, as float16 bit patterns.
Run: /work/msvenv/bin/python tests/_backend/make_float16_goldens_mindspore.py"""

import json
import os

import mindspore as ms
import numpy as np
from mindspore import Tensor, nn, ops

HERE = os.path.dirname(os.path.abspath(__file__))
SHAPE = (8, 32)


class Chain(nn.Cell):
    """One of the float16 chains; each operation is one MindSpore primitive, rounded to float16 once."""

    def __init__(self, kind):
        super().__init__()
        self.kind = kind
        self.mean = ops.ReduceMean(keep_dims=True)
        self.sqrt = ops.Sqrt()
        self.tanh = ops.Tanh()

    def construct(self, x, y, z, w):
        if self.kind == "polynomial":
            return ((x * y + z) * w + x) * y - z * w
        if self.kind == "layernorm":
            d = x - self.mean(x, -1)
            return d / self.sqrt(self.mean(d * d, -1) + 1e-5) * y + z
        return 0.5 * x * (1 + self.tanh(0.7978846 * (x + 0.044715 * x * x * x)))  # GELU (tanh) written out


def main():
    rng = np.random.default_rng(0)
    inputs = [rng.standard_normal(SHAPE).astype(np.float16) for _ in range(4)]
    out = {
        "version": ms.__version__,
        "inputs": [a.view(np.uint16).ravel().tolist() for a in inputs],
        "shape": list(SHAPE),
    }
    for mode, name in ((ms.PYNATIVE_MODE, "pynative"), (ms.GRAPH_MODE, "graph")):
        ms.set_context(mode=mode)
        for kind in ("polynomial", "layernorm", "gelu_tanh"):
            got = Chain(kind)(*[Tensor(a) for a in inputs]).asnumpy()
            assert got.dtype == np.float16
            out.setdefault(kind, {})[name] = got.view(np.uint16).ravel().tolist()
    with open(os.path.join(HERE, "float16_goldens_mindspore.json"), "w") as f:
        json.dump(out, f, separators=(",", ":"))


if __name__ == "__main__":
    main()
