"""Write res2net_goldens_mindspore.json: what MindSpore 2.10 prints for `train_res2net.py res2net O0 Momentum` (step
losses, parameter, momentum and BatchNorm moving-statistic sums) in both modes. MindSpore's CPU has no LARSUpdate
kernel, so the LARS run has no golden (test_res2net.py holds Kiln's two modes to each other there).
Run: /work/msvenv/bin/python tests/zoo/res2net/make_res2net_goldens_mindspore.py"""

import os
import sys

import mindspore as ms

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(HERE))))  # the repository root

from tests.zoo.printed_values import write_goldens  # noqa: E402

if __name__ == "__main__":
    write_goldens(
        os.path.join(HERE, "train_res2net.py"),
        os.path.join(HERE, "res2net_goldens_mindspore.json"),
        "res2net",
        "O0",
        "Momentum",
        version=ms.__version__,
    )
