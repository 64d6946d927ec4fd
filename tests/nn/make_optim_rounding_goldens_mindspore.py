"""Write optim_rounding_goldens_mindspore.json: MindSpore 2.10's float32 parameter after each case of
optim_rounding_cases.py, run in PyNative and GRAPH_MODE (which agree bit for bit on every case; checked here).
Run: /work/msvenv/bin/python tests/nn/make_optim_rounding_goldens_mindspore.py"""

import base64
import json
import os
import sys

import mindspore as ms
import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
from optim_rounding_cases import NN_CASES, OP_CASES, run  # noqa: E402


def main():
    out = {}
    for name in [*NN_CASES, *OP_CASES]:
        py, graph = run(ms, name, "pynative"), run(ms, name, "graph")
        assert py.dtype == np.float32 and np.array_equal(py.view(np.int32), graph.view(np.int32)), name
        out[name] = base64.b64encode(py.tobytes()).decode()
    with open(os.path.join(os.path.dirname(__file__), "optim_rounding_goldens_mindspore.json"), "w") as f:
        json.dump({"mindspore": ms.__version__, "cases": out}, f, indent=0)


if __name__ == "__main__":
    main()
