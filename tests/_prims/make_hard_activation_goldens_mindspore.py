"""Regenerate hard_activation_goldens_mindspore.json: run hard_activation_cases.py on MindSpore 2.10.

/work/msvenv/bin/python tests/_prims/make_hard_activation_goldens_mindspore.py
"""

import json
import os
import sys

import mindspore

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import hard_activation_cases  # noqa: E402

goldens = {"mindspore_version": mindspore.__version__, "cases": hard_activation_cases.run(mindspore)}
with open(os.path.join(HERE, "hard_activation_goldens_mindspore.json"), "w") as f:
    json.dump(goldens, f, indent=1)
print("wrote hard_activation_goldens_mindspore.json")
