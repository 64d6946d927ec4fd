"""Write dbnet_goldens_mindspore.json: what MindSpore 2.10 prints for `train_dbnet.py resnet18` in both modes: step
losses, each step's overflow flag and loss scale, then parameter, momentum and BatchNorm moving-statistic sums after
the first and the last step.
Run: /work/msvenv/bin/python tests/zoo/dbnet/make_dbnet_goldens_mindspore.py"""

import os
import sys

import mindspore as ms

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(HERE))))  # the repository root

from tests.zoo.printed_values import write_goldens  # noqa: E402

if __name__ == "__main__":
    write_goldens(os.path.join(HERE, "train_dbnet.py"), os.path.join(HERE, "dbnet_goldens_mindspore.json"),
                  "resnet18", version=ms.__version__)  # fmt: skip
