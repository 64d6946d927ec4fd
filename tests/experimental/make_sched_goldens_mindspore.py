"""Write sched_goldens_mindspore.json: MindSpore 2.10's rates for sched_cases.py, in graph and PyNative mode.
Run: /tmp/msvenv/bin/python tests/experimental/make_sched_goldens_mindspore.py"""

import json
import os
import sys

import mindspore as ms
from mindspore import nn
from mindspore.experimental import optim

sys.path.insert(0, os.path.dirname(__file__))
from sched_cases import run  # noqa: E402


def main():
    out = {}
    for mode, name in ((ms.GRAPH_MODE, "graph"), (ms.PYNATIVE_MODE, "pynative")):
        ms.set_context(mode=mode)
        out[name] = run(ms, nn, optim)
    with open(os.path.join(os.path.dirname(__file__), "sched_goldens_mindspore.json"), "w") as f:
        json.dump({"mindspore": ms.__version__, "cases": out}, f)


if __name__ == "__main__":
    main()
