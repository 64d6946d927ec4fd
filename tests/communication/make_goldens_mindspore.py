"""Regenerate dp_goldens_mindspore.json: run dp_script.py on MindSpore 2.10 (2 workers under msrun, and --single).

    PATH=/tmp/msvenv/bin:$PATH python tests/communication/make_goldens_mindspore.py

msrun starts `python` from PATH, so MindSpore's environment must come first on it.
"""

import json
import os
import subprocess
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPT = os.path.join(HERE, "dp_script.py")


def load(path):
    with np.load(path) as f:
        return {k: f[k].tolist() for k in f.files}


with tempfile.TemporaryDirectory() as tmp:
    subprocess.run(
        ["msrun", "--worker_num=2", "--local_worker_num=2", "--master_port=8129", f"--log_dir={tmp}/logs",
         "--join=True", "--cluster_time_out=120", SCRIPT, "--out", f"{tmp}/dist"],
        check=True, cwd=tmp,
    )
    subprocess.run([sys.executable, SCRIPT, "--single", "--out", f"{tmp}/single"], check=True, cwd=tmp)
    import mindspore

    goldens = {
        "mindspore_version": mindspore.__version__,
        "dist": [load(f"{tmp}/dist/rank{r}.npz") for r in range(2)],
        "single": load(f"{tmp}/single/rank0.npz"),
    }
with open(os.path.join(HERE, "dp_goldens_mindspore.json"), "w") as f:
    json.dump(goldens, f, indent=1)
print("wrote dp_goldens_mindspore.json")
