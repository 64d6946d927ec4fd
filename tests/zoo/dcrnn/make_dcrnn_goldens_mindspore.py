"""Write dcrnn_goldens_mindspore.json: what MindSpore 2.10 prints for `train_dcrnn.py` (step losses, parameter and
weight sums, Adam moment sums) in PyNative, float32 (O0) and train.py's float16 (O3). MindSpore 2.10's GRAPH_MODE
refuses this network ("its name 'weight_(330, 128)' already exists": the zoo keeps its weights in a dict, unnamed by
the Cell, so all four DCGRUCells' Parameters share one name).
Run: /work/msvenv/bin/python tests/zoo/dcrnn/make_dcrnn_goldens_mindspore.py"""

import json
import os
import sys

import mindspore as ms

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(HERE))))  # the repository root

from tests.zoo.printed_values import run_script  # noqa: E402

if __name__ == "__main__":
    script = os.path.join(HERE, "train_dcrnn.py")
    printed = run_script(script, "O0", "PYNATIVE_MODE", python=sys.executable)
    printed.update(run_script(script, "O3", "PYNATIVE_MODE", python=sys.executable))
    with open(os.path.join(HERE, "dcrnn_goldens_mindspore.json"), "w") as f:
        json.dump({"mindspore": ms.__version__, "printed": printed}, f, indent=1)
