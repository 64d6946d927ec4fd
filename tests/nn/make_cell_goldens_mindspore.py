"""Regenerate cell_goldens_mindspore.json: run cell_cases.py on MindSpore 2.10.

/tmp/msvenv/bin/python tests/nn/make_cell_goldens_mindspore.py
"""

import json
import os
import sys

import mindspore

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import cell_cases  # noqa: E402

goldens = {"mindspore_version": mindspore.__version__, "cases": cell_cases.run(mindspore)}
with open(os.path.join(HERE, "cell_goldens_mindspore.json"), "w") as f:
    json.dump(goldens, f, indent=1)
print("wrote cell_goldens_mindspore.json")
