"""Write gat_goldens_mindspore.json: what MindSpore 2.10 prints for `train_gat.py` (step losses, parameter and
moment sums) in both modes, with the zoo's float16 flag and without it (`MODE:fp32`).
Run: /work/msvenv/bin/python tests/zoo/gat/make_gat_goldens_mindspore.py"""

import json
import os
import sys

import mindspore as ms

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(HERE))))  # the repository root

from tests.zoo.printed_values import run_script  # noqa: E402

MODES = ("PYNATIVE_MODE", "GRAPH_MODE", "PYNATIVE_MODE:fp32", "GRAPH_MODE:fp32")

if __name__ == "__main__":
    # one process per mode, as write_goldens runs them (MindSpore's mode is best set once per process)
    printed = {}
    for mode in MODES:
        printed.update(run_script(os.path.join(HERE, "train_gat.py"), mode, python=sys.executable))
    with open(os.path.join(HERE, "gat_goldens_mindspore.json"), "w") as f:
        json.dump({"mindspore": ms.__version__, "printed": printed}, f, indent=1)
