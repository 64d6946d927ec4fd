"""Regenerate wrap_attr_goldens_mindspore.json: run wrap_attr_cases.py on MindSpore 2.10.

/work/msvenv/bin/python tests/nn/wrap/make_wrap_attr_goldens_mindspore.py
"""

import json
import os
import subprocess
import sys

import mindspore

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import wrap_attr_cases  # noqa: E402

mindspore.set_context(mode=mindspore.PYNATIVE_MODE, device_target="CPU")
fresh = subprocess.run([sys.executable, "-c", wrap_attr_cases.FRESH_PROCESS_FIRST_NAME.format(ms="mindspore")],
                       capture_output=True, text=True, check=True).stdout.split()[-1]  # fmt: skip
goldens = {
    "mindspore_version": mindspore.__version__,
    "fresh process first unnamed Parameter": fresh,
    "cases": wrap_attr_cases.run(mindspore),
}
with open(os.path.join(HERE, "wrap_attr_goldens_mindspore.json"), "w") as f:
    json.dump(goldens, f, indent=1)
print("wrote wrap_attr_goldens_mindspore.json")
