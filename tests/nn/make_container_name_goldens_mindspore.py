"""Regenerate container_name_goldens_mindspore.json: run container_name_cases.py on MindSpore 2.10.

/work/msvenv/bin/python tests/nn/make_container_name_goldens_mindspore.py
"""

import json
import os
import sys

import mindspore

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import container_name_cases  # noqa: E402

goldens = {"mindspore_version": mindspore.__version__, "cases": container_name_cases.run(mindspore)}
with open(os.path.join(HERE, "container_name_goldens_mindspore.json"), "w") as f:
    json.dump(goldens, f, indent=1)
print("wrote container_name_goldens_mindspore.json")
