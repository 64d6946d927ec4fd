"""Cases of the Parameter-write gradient test (test_parameter_writes.py) and its goldens script
(make_parameter_write_goldens_mindspore.py), written once for either framework (`ms` is `kiln` or `mindspore`).

A Parameter written inside a network's construct (Assign, AssignAdd, `self.p[i] = v`, `self.p = v`,
`Tensor.assign_value`) stays a leaf that holds its new value: whatever reads it after the write (the op's result, a
later read) sends its gradient to the Parameter and none to the value written. Each case trains two steps of
`value_and_grad` over the input and the weights.
"""

from __future__ import annotations

import numpy as np

CASES = ("assign_result", "assign_add_then_read", "assign_own_product", "setitem_then_read", "setattr_then_read",
         "assign_value_ema")  # fmt: skip
GRAPH_CASES = CASES[:5]  # (MindSpore's GRAPH_MODE refuses Tensor.assign_value in construct)


def _net(ms, case: str):
    ops = ms.ops

    class Net(ms.nn.Cell):
        def __init__(self):
            super().__init__()
            self.p = ms.Parameter(ms.Tensor(np.array([1.0, 2.0, 3.0], np.float32)), name="p")
            self.ema = ms.Parameter(ms.Tensor(np.zeros(3, np.float32)), name="ema", requires_grad=False)

        def construct(self, x):
            if case == "assign_result":
                y = ops.assign(self.p, x * 2)
                return (y * x).sum()
            if case == "assign_add_then_read":
                ops.assign_add(self.p, x * 2)
                return (self.p * x).sum()
            if case == "assign_own_product":
                ops.assign(self.p, self.p * x)
                return (self.p * self.p).sum()
            if case == "setitem_then_read":
                self.p[0] = x[1] * 2
                return (self.p * x).sum()
            if case == "setattr_then_read":
                self.p = x * 2
                return (self.p * x).sum()
            self.ema.assign_value(self.ema * 0.9 + x * 0.1)
            return (self.p * x).sum() + (self.ema * self.p * x).sum()

    return Net()


def run(ms, case: str) -> list:
    """[loss, input gradient, weight gradient, p, ema] of each of two steps, as lists."""
    net = _net(ms, case)
    step = ms.value_and_grad(net, grad_position=0, weights=net.trainable_params())
    out = []
    for i in range(2):
        x = ms.Tensor(np.array([1.0, 2.0, 3.0], np.float32) * (i + 1))
        loss, (gx, gw) = step(x)
        out.append([float(loss.asnumpy()), gx.asnumpy().tolist(), gw[0].asnumpy().tolist(),
                    net.p.asnumpy().tolist(), net.ema.asnumpy().tolist()])  # fmt: skip
    return out
