"""Write jasper_goldens_mindspore.json: what MindSpore 2.10 prints for `train_jasper.py` (step losses, parameter,
moving-statistic and Adam moment sums): float32 in both modes, and train.py's float16 network in PyNative (MindSpore
2.10's GRAPH_MODE refuses it: "The shape of sense must not be dynamic shape").
Run: /work/msvenv/bin/python tests/zoo/jasper/make_jasper_goldens_mindspore.py"""

import json
import os
import sys

import mindspore as ms

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(HERE))))  # the repository root

from tests.zoo.printed_values import run_script  # noqa: E402

if __name__ == "__main__":
    script = os.path.join(HERE, "train_jasper.py")
    printed = run_script(script, "fp32", "fp16", "PYNATIVE_MODE", python=sys.executable)
    printed.update(run_script(script, "fp32", "GRAPH_MODE", python=sys.executable))
    with open(os.path.join(HERE, "jasper_goldens_mindspore.json"), "w") as f:
        json.dump({"mindspore": ms.__version__, "printed": printed}, f, indent=1)
