"""Write optim_goldens_mindspore.json: parameters after MindSpore 2.10's ProximalAdagrad, FTRL and LazyAdam
steps on the cases of test_optim_goldens.py. Run: /tmp/msvenv/bin/python tests/nn/make_optim_goldens_mindspore.py"""

import json
import os
import sys

import mindspore as ms
import numpy as np
from mindspore import Parameter, Tensor, nn

sys.path.insert(0, os.path.dirname(__file__))
from optim_cases import CASES, grads, params  # noqa: E402


def main():
    out = {}
    for name, (cls, kwargs) in CASES.items():
        ps = [Parameter(Tensor(v), name=n) for n, v in params().items()]
        opt = getattr(nn, cls)(ps, **kwargs)
        for t in range(4):
            opt(tuple(Tensor(g) for g in grads(t)))
        out[name] = [p.asnumpy().tolist() for p in ps]
    with open(os.path.join(os.path.dirname(__file__), "optim_goldens_mindspore.json"), "w") as f:
        json.dump({"mindspore": ms.__version__, "cases": out}, f)


if __name__ == "__main__":
    main()
