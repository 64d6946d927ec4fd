"""Write tacotron2_goldens_mindspore.json: what MindSpore 2.10 prints for `train_tacotron2.py` (step losses, parameter,
moving-statistic and Adam moment sums, the loss scale) in both modes. MindSpore's GRAPH_MODE fails on this network
(its analysis of MSELoss's axis tuple, in the train cell's forward: "The pointer[seq_abs] is null"), so the file
holds PyNative's.
Run: /work/msvenv/bin/python tests/zoo/tacotron2/make_tacotron2_goldens_mindspore.py"""

import json
import os
import sys

import mindspore as ms

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(HERE))))  # the repository root

from tests.zoo.printed_values import run_script  # noqa: E402

if __name__ == "__main__":
    printed = run_script(os.path.join(HERE, "train_tacotron2.py"), "PYNATIVE_MODE", python=sys.executable)
    with open(os.path.join(HERE, "tacotron2_goldens_mindspore.json"), "w") as f:
        json.dump({"mindspore": ms.__version__, "printed": printed}, f, indent=1)
