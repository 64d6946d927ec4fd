"""Write ssd_goldens_mindspore.json: what MindSpore 2.10 prints for `train_ssd.py` (step losses, parameter,
momentum and moving-statistics sums) in both modes. Run: /work/msvenv/bin/python tests/zoo/ssd/make_ssd_goldens_mindspore.py
"""

import json
import os
import sys

import mindspore as ms

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(HERE))))  # the repository root

from tests.zoo.printed_values import run_script  # noqa: E402

MODES = ("PYNATIVE_MODE", "GRAPH_MODE")


def main():
    # one process per mode, as a MindSpore user runs it (MindSpore's mode is best set once per process)
    printed = {}
    for mode in MODES:
        printed.update(run_script(os.path.join(HERE, "train_ssd.py"), mode, python=sys.executable))
    with open(os.path.join(HERE, "ssd_goldens_mindspore.json"), "w") as f:
        json.dump({"mindspore": ms.__version__, "printed": printed}, f, indent=1)


if __name__ == "__main__":
    main()
