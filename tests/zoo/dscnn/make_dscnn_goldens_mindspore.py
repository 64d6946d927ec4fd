"""Write dscnn_goldens_mindspore.json: what MindSpore 2.10 prints for `train_dscnn.py` (step losses, parameter and
Momentum accumulator sums) in both modes, at amp_level O0 and O3.
Run: /work/msvenv/bin/python tests/zoo/dscnn/make_dscnn_goldens_mindspore.py"""

import json
import os
import sys

import mindspore as ms

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(HERE))))  # the repository root

from tests.zoo.printed_values import run_script  # noqa: E402

RUNS = ("PYNATIVE_MODE:O0", "GRAPH_MODE:O0", "PYNATIVE_MODE:O3", "GRAPH_MODE:O3")

if __name__ == "__main__":
    # one process per run, as write_goldens runs them (MindSpore's mode is best set once per process)
    printed = {}
    for run in RUNS:
        printed.update(run_script(os.path.join(HERE, "train_dscnn.py"), run, python=sys.executable))
    with open(os.path.join(HERE, "dscnn_goldens_mindspore.json"), "w") as f:
        json.dump({"mindspore": ms.__version__, "printed": printed}, f, indent=1)
