"""Write optim_goldens_mindspore.json: the parameters after each case of optim_cases.py, run by MindSpore 2.10's
`mindspore.experimental.optim`. Run with MindSpore's venv: /tmp/msvenv/bin/python tests/experimental/make_...py"""

import json
import os
import sys

import mindspore as ms
from mindspore import Parameter, Tensor
from mindspore.experimental import optim

sys.path.insert(0, os.path.dirname(__file__))
from optim_cases import CASES, grads, params  # noqa: E402


def main():
    out = {}
    for name, cls, kwargs, steps in CASES:
        ps = [Parameter(Tensor(v), name=n) for n, v in params().items()]
        opt = getattr(optim, cls)(ps, **kwargs)
        for t in range(steps):
            opt(tuple(Tensor(g) for g in grads(t)))
        out[name] = [p.asnumpy().tolist() for p in ps]
    path = os.path.join(os.path.dirname(__file__), "optim_goldens_mindspore.json")
    with open(path, "w") as f:
        json.dump({"mindspore": ms.__version__, "cases": out}, f)


if __name__ == "__main__":
    main()
