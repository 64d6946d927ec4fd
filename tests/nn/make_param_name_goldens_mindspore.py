"""Regenerate param_name_goldens_mindspore.json: run param_name_cases.py on MindSpore 2.10.

/work/msvenv/bin/python tests/nn/make_param_name_goldens_mindspore.py
"""

import json
import os
import sys

import mindspore

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import param_name_cases  # noqa: E402

goldens = {"mindspore_version": mindspore.__version__, "cases": param_name_cases.run(mindspore)}
with open(os.path.join(HERE, "param_name_goldens_mindspore.json"), "w") as f:
    json.dump(goldens, f, indent=1)
print("wrote param_name_goldens_mindspore.json")
