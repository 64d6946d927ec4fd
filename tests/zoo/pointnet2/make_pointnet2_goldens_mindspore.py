"""Write pointnet2_goldens_mindspore.json: what MindSpore 2.10 prints for `train_pointnet2.py` in both modes: the
per-sample losses of each step, parameter, Adam moment and BatchNorm moving-statistic sums after the first and the
last step, and the NumPy draw that counts the farthest-point sampling's random starts.
Run: /work/msvenv/bin/python tests/zoo/pointnet2/make_pointnet2_goldens_mindspore.py"""

import os
import sys

import mindspore as ms

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(HERE))))  # the repository root

from tests.zoo.printed_values import write_goldens  # noqa: E402

if __name__ == "__main__":
    write_goldens(os.path.join(HERE, "train_pointnet2.py"), os.path.join(HERE, "pointnet2_goldens_mindspore.json"),
                  version=ms.__version__)  # fmt: skip
