"""Write fused_momentum_goldens_mindspore.json for test_fused_optimizers.py.

MindSpore 2.10 builds ops.FusedWeightScaleApplyMomentum on CPU but refuses its kernel there (GPU only), so this
records what its CPU build computes for the GPU kernel's formula written with ops it runs on CPU:
grad' = (variable * weight_decay + gradient) * loss_scale, then ApplyMomentum(variable, accumulation, lr, grad',
momentum), two steps, in PyNative and GRAPH_MODE (checked equal bit for bit here).
Run: /work/msvenv/bin/python tests/ops/make_fused_momentum_goldens_mindspore.py"""

import base64
import json
import os

import mindspore as ms
import numpy as np
from mindspore import Parameter, Tensor, nn, ops

N = 64
WEIGHT_DECAY, LOSS_SCALE, LR, MOMENTUM = 0.0001, 0.125, 0.1, 0.9


def inputs():
    """The shared inputs: variable, accumulation and two gradients (float32)."""
    rng = np.random.default_rng(30)
    var = rng.standard_normal(N).astype(np.float32)
    acc = rng.standard_normal(N).astype(np.float32)
    grads = rng.standard_normal((2, N)).astype(np.float32) * np.float32(8.0)
    return var, acc, grads


class Composed(nn.Cell):
    def __init__(self, var, acc):
        super().__init__()
        self.var, self.acc = Parameter(Tensor(var), name="var"), Parameter(Tensor(acc), name="acc")
        self.op = ops.ApplyMomentum()

    def construct(self, wd, scale, lr, grad, mom):
        g = (self.var * wd + grad) * scale
        return self.op(self.var, self.acc, lr, g, mom)


def run(mode):
    ms.set_context(mode=mode)
    var, acc, grads = inputs()
    net = Composed(var, acc)
    f = lambda x: Tensor(np.float32(x))  # noqa: E731
    for g in grads:
        net(f(WEIGHT_DECAY), f(LOSS_SCALE), f(LR), Tensor(g), f(MOMENTUM))
    return net.var.asnumpy(), net.acc.asnumpy()


def main():
    py, graph = run(ms.PYNATIVE_MODE), run(ms.GRAPH_MODE)
    for a, b in zip(py, graph):
        assert np.array_equal(a.view(np.int32), b.view(np.int32))
    enc = lambda a: base64.b64encode(a.tobytes()).decode()  # noqa: E731
    out = {"mindspore": ms.__version__, "variable": enc(py[0]), "accumulation": enc(py[1])}
    with open(os.path.join(os.path.dirname(__file__), "fused_momentum_goldens_mindspore.json"), "w") as f:
        json.dump(out, f, indent=0)


if __name__ == "__main__":
    main()
