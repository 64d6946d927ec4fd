"""Write yolov5_goldens_mindspore.json: what MindSpore 2.10 prints for `train_yolov5.py` in both modes: step losses,
parameter, momentum and BatchNorm moving-statistic sums after the first and the last step, and the eval network's
decoded boxes.
Run: /work/msvenv/bin/python tests/zoo/yolov5/make_yolov5_goldens_mindspore.py"""

import os
import sys

import mindspore as ms

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(HERE))))  # the repository root

from tests.zoo.printed_values import write_goldens  # noqa: E402

if __name__ == "__main__":
    write_goldens(os.path.join(HERE, "train_yolov5.py"), os.path.join(HERE, "yolov5_goldens_mindspore.json"),
                  version=ms.__version__)  # fmt: skip
