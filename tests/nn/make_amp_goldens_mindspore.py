"""Regenerate amp_goldens_mindspore.json: run amp_cases.py on MindSpore 2.10 (its cases, its optimizers stepped in a
float16 train cell, library Cells inside a float16 Cell, a BatchNorm2d inside one in training and in inference),
each mode in a process of its own (MindSpore's mode is best set once per process).

/work/msvenv/bin/python tests/nn/make_amp_goldens_mindspore.py
"""

import json
import os
import subprocess
import sys

import mindspore

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import amp_cases  # noqa: E402

if len(sys.argv) == 2:  # one mode, printed as JSON for the parent below
    print("CASES " + json.dumps(amp_cases.run(mindspore, sys.argv[1])))
    print("OPTIMIZERS " + json.dumps(amp_cases.run_optimizers(mindspore, sys.argv[1])))
    print("LIBRARY " + json.dumps(amp_cases.run_library(mindspore, sys.argv[1])))
    print("BATCHNORM " + json.dumps(amp_cases.run_batchnorm(mindspore, sys.argv[1])))
    sys.exit(0)
goldens = {"mindspore_version": mindspore.__version__, "optimizers": {}, "library": {}, "batchnorm": {}}
for mode in ("pynative", "graph"):
    proc = subprocess.run([sys.executable, __file__, mode], capture_output=True, text=True, check=True, cwd="/tmp")
    lines = proc.stdout.splitlines()
    for key, into in (
        ("CASES ", goldens),
        ("OPTIMIZERS ", goldens["optimizers"]),
        ("LIBRARY ", goldens["library"]),
        ("BATCHNORM ", goldens["batchnorm"]),
    ):
        into[mode] = json.loads(next(x for x in lines if x.startswith(key))[len(key) :])
with open(os.path.join(HERE, "amp_goldens_mindspore.json"), "w") as f:
    json.dump(goldens, f, indent=1)
print("wrote amp_goldens_mindspore.json")
