"""Regenerate view_goldens_mindspore.json: run view_cases.py on MindSpore 2.10 (CPU, PyNative).

/work/msvenv/bin/python tests/core/make_view_goldens_mindspore.py
"""

import json
import os
import sys

import mindspore

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import view_cases  # noqa: E402

goldens = {"mindspore_version": mindspore.__version__, "cases": view_cases.run(mindspore)}
with open(os.path.join(HERE, "view_goldens_mindspore.json"), "w") as f:
    json.dump(goldens, f, indent=1)
print("wrote view_goldens_mindspore.json")
