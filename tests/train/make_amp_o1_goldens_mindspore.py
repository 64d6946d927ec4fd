"""Regenerate amp_o1_goldens_mindspore.json: run amp_o1_cases.py on MindSpore 2.10, each mode in a process of its
own (MindSpore's mode is best set once per process).

/work/msvenv/bin/python tests/train/make_amp_o1_goldens_mindspore.py
"""

import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))

if len(sys.argv) == 2:  # one mode, printed as JSON for the parent below
    os.environ["AMP_CASES_FRAMEWORK"] = "mindspore"
    sys.path.insert(0, HERE)
    import amp_o1_cases

    print("CASES " + json.dumps(amp_o1_cases.run(sys.argv[1])))
    sys.exit(0)

import mindspore  # noqa: E402

goldens = {"mindspore_version": mindspore.__version__}
for mode in ("pynative", "graph"):
    proc = subprocess.run([sys.executable, __file__, mode], capture_output=True, text=True, check=True, cwd="/tmp")
    line = next(x for x in proc.stdout.splitlines() if x.startswith("CASES "))
    goldens[mode] = json.loads(line[len("CASES ") :])
with open(os.path.join(HERE, "amp_o1_goldens_mindspore.json"), "w") as f:
    json.dump(goldens, f, indent=1)
print("wrote amp_o1_goldens_mindspore.json")
