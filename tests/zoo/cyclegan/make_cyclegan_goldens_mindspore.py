"""Write cyclegan_goldens_mindspore.json: what MindSpore 2.10 prints for `train_cyclegan.py` (step losses, parameter,
Adam moment and moving-statistic sums) in both modes.
Run: /work/msvenv/bin/python tests/zoo/cyclegan/make_cyclegan_goldens_mindspore.py"""

import os
import sys

import mindspore as ms

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(HERE))))  # the repository root

from tests.zoo.printed_values import write_goldens  # noqa: E402

if __name__ == "__main__":
    write_goldens(
        os.path.join(HERE, "train_cyclegan.py"),
        os.path.join(HERE, "cyclegan_goldens_mindspore.json"),
        version=ms.__version__,
    )
