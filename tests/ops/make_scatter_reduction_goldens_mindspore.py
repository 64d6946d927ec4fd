"""Write scatter_reduction_goldens_mindspore.json for test_scatter_reductions.py: MindSpore 2.10's results of the
cases in scatter_reduction_cases.py (PyNative, CPU).
Run: /work/msvenv/bin/python tests/ops/make_scatter_reduction_goldens_mindspore.py"""

import json
import os
import sys

import mindspore as ms

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from scatter_reduction_cases import run  # noqa: E402

if __name__ == "__main__":
    ms.set_context(mode=ms.PYNATIVE_MODE)
    here = os.path.dirname(os.path.abspath(__file__))
    rows = ",\n".join(f"  {json.dumps(name)}: {json.dumps(value)}" for name, value in run(ms).items())
    with open(os.path.join(here, "scatter_reduction_goldens_mindspore.json"), "w") as f:
        f.write(f'{{\n "mindspore": {json.dumps(ms.__version__)},\n "cases": {{\n{rows}\n }}\n}}\n')
