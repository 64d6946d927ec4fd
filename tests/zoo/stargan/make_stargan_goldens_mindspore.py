"""Write stargan_goldens_mindspore.json: what MindSpore 2.10 prints for `train_stargan.py` (step losses and parameter
sums) in both modes.
Run: /work/msvenv/bin/python tests/zoo/stargan/make_stargan_goldens_mindspore.py"""

import os
import sys

import mindspore as ms

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(HERE))))  # the repository root

from tests.zoo.printed_values import write_goldens  # noqa: E402

if __name__ == "__main__":
    write_goldens(
        os.path.join(HERE, "train_stargan.py"),
        os.path.join(HERE, "stargan_goldens_mindspore.json"),
        version=ms.__version__,
    )
