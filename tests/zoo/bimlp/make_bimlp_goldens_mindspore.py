"""Write bimlp_goldens_mindspore.json: what MindSpore 2.10 prints for `train_bimlp.py` in both modes: one forward
pass in training mode (`MODE:forward`: its loss, then every parameter's and moving statistic's sum). MindSpore
cannot train BiMLP on the CPU (Rint has no gradient there, in both modes), so there are no step goldens.
Run: /work/msvenv/bin/python tests/zoo/bimlp/make_bimlp_goldens_mindspore.py"""

import json
import os
import sys

import mindspore as ms

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(HERE))))  # the repository root

from tests.zoo.printed_values import run_script  # noqa: E402

MODES = ("PYNATIVE_MODE:forward", "GRAPH_MODE:forward")

if __name__ == "__main__":
    # one process per mode, as write_goldens runs them (MindSpore's mode is best set once per process)
    printed = {}
    for mode in MODES:
        printed.update(run_script(os.path.join(HERE, "train_bimlp.py"), mode, python=sys.executable))
    with open(os.path.join(HERE, "bimlp_goldens_mindspore.json"), "w") as f:
        json.dump({"mindspore": ms.__version__, "printed": printed}, f, indent=1)
