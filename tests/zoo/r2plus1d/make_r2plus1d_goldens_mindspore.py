"""Write r2plus1d_goldens_mindspore.json (train.py's amp level 'auto') and r2plus1d_o0_goldens_mindspore.json (amp
O0): what MindSpore 2.10 prints for `train_r2plus1d.py` (step losses, parameter, momentum and moving-statistic sums)
in both modes. Run: /work/msvenv/bin/python tests/zoo/r2plus1d/make_r2plus1d_goldens_mindspore.py [auto|O0]"""

import os
import sys

import mindspore as ms

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(HERE))))  # the repository root

from tests.zoo.printed_values import write_goldens  # noqa: E402

GOLDENS = {"auto": "r2plus1d_goldens_mindspore.json", "O0": "r2plus1d_o0_goldens_mindspore.json"}

if __name__ == "__main__":
    for level in sys.argv[1:] or list(GOLDENS):
        write_goldens(
            os.path.join(HERE, "train_r2plus1d.py"),
            os.path.join(HERE, GOLDENS[level]),
            "--amp",
            level,
            version=ms.__version__,
        )
