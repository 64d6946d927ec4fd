"""Regenerate kink_derivative_goldens_mindspore.json: run kink_derivative_cases.py on MindSpore 2.10.

/work/msvenv/bin/python tests/_prims/make_kink_derivative_goldens_mindspore.py
"""

import json
import os
import sys

import mindspore

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import kink_derivative_cases  # noqa: E402

goldens = {"mindspore_version": mindspore.__version__, "cases": kink_derivative_cases.run(mindspore)}
with open(os.path.join(HERE, "kink_derivative_goldens_mindspore.json"), "w") as f:
    json.dump(goldens, f, indent=1)
print("wrote kink_derivative_goldens_mindspore.json")
