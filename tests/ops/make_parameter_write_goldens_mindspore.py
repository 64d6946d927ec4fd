"""Write parameter_write_goldens_mindspore.json for test_parameter_writes.py: MindSpore 2.10's losses, gradients and
Parameter values for every case of parameter_write_cases.py, in PyNative and (where it compiles) GRAPH_MODE, on CPU.
Run: /work/msvenv/bin/python tests/ops/make_parameter_write_goldens_mindspore.py"""

import json
import os
import sys

import mindspore as ms

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from parameter_write_cases import CASES, GRAPH_CASES, run  # noqa: E402

if __name__ == "__main__":
    out = {}
    for mode, cases in ((ms.PYNATIVE_MODE, CASES), (ms.GRAPH_MODE, GRAPH_CASES)):
        ms.set_context(mode=mode)
        out["graph" if mode == ms.GRAPH_MODE else "pynative"] = {case: run(ms, case) for case in cases}
    with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "parameter_write_goldens_mindspore.json"), "w") as f:
        json.dump({"mindspore": ms.__version__, "cases": out}, f, indent=1)
