"""Write surface_goldens_mindspore.json for test_surface_goldens.py: MindSpore 2.10's outputs (dtype, shape,
values) or error classes for every case of surface_cases.py, in PyNative on CPU.
Run: /work/msvenv/bin/python tests/ops/make_surface_goldens_mindspore.py"""

import json
import os
import sys

import mindspore as ms

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from surface_cases import CASES, run  # noqa: E402

if __name__ == "__main__":
    ms.set_context(mode=ms.PYNATIVE_MODE)
    out = {name: run(ms, name) for name in CASES}
    with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "surface_goldens_mindspore.json"), "w") as f:
        json.dump({"mindspore": ms.__version__, "cases": out}, f, indent=1)
