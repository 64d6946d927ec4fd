"""Write sgd_stat_goldens_mindspore.json for test_state.py: MindSpore 2.10's SGD on a `stat` of mixed signs.

Its kernel starts the momentum buffer at the gradient and clears `stat` only where `stat > 0` and the momentum is
positive; a `stat` of 0 or below, or a momentum of 0 or below, leaves `stat` as it was (a model's checkpoint keeps it).
Two steps of the primitive (ops.SGD) and of nn.SGD, for momenta 0.3, 0 and -0.3, plain and Nesterov, in PyNative.
Run: /work/msvenv/bin/python tests/ops/make_sgd_stat_goldens_mindspore.py"""

import json
import os
import sys

import mindspore as ms
import numpy as np
from mindspore import Parameter, Tensor, nn, ops

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from sgd_stat_cases import CASES, inputs  # noqa: E402


def run(momentum: float, nesterov: bool, through: str) -> dict:
    """Parameter, accum and stat after two steps from `inputs()`."""
    var, accum, stat, grads = inputs()
    p, a, s = Parameter(Tensor(var), name="p"), Parameter(Tensor(accum), name="a"), Parameter(Tensor(stat), name="s")
    if through == "primitive":
        sgd = ops.SGD(dampening=0.0, weight_decay=0.0, nesterov=nesterov)
        for g in grads:
            sgd(p, Tensor(g), Tensor(np.float32(0.1)), a, Tensor(np.float32(momentum)), s)
    else:
        opt = nn.SGD([p], learning_rate=0.1, momentum=0.5, nesterov=nesterov)  # then set: it refuses <= 0
        opt.momentum.set_data(Tensor(np.float32(momentum)))
        opt.accum[0].set_data(Tensor(accum))
        opt.stat[0].set_data(Tensor(stat))
        for g in grads:
            opt((Tensor(g),))
        a, s = opt.accum[0], opt.stat[0]
    return {"param": p.asnumpy().tolist(), "accum": a.asnumpy().tolist(), "stat": s.asnumpy().tolist()}


if __name__ == "__main__":
    ms.set_context(mode=ms.PYNATIVE_MODE)
    out = {name: run(*case) for name, case in CASES.items()}
    with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "sgd_stat_goldens_mindspore.json"), "w") as f:
        json.dump({"mindspore": ms.__version__, "cases": out}, f, indent=1)
