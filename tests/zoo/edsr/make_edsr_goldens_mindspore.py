"""Write edsr_goldens_mindspore.json: what MindSpore 2.10 prints for `train_edsr.py` in both modes: the step losses,
the parameter and Adam moment sums after the last step, and the evaluated image's sums and PSNR.
Run: /work/msvenv/bin/python tests/zoo/edsr/make_edsr_goldens_mindspore.py"""

import os
import sys

import mindspore as ms

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(HERE))))  # the repository root

from tests.zoo.printed_values import write_goldens  # noqa: E402

if __name__ == "__main__":
    write_goldens(os.path.join(HERE, "train_edsr.py"), os.path.join(HERE, "edsr_goldens_mindspore.json"),
                  version=ms.__version__)  # fmt: skip
