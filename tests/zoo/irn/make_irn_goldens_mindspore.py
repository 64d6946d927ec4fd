"""Write irn_goldens_mindspore.json: what MindSpore 2.10 prints for `train_irn.py` (step losses, parameter and Adam
moment sums) in PyNative mode; its GRAPH_MODE refuses the network (the unregistered Conv2dTranspose Parameters share
the name 'weight': see train_irn.py).
Run: /work/msvenv/bin/python tests/zoo/irn/make_irn_goldens_mindspore.py"""

import os
import sys

import mindspore as ms

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(HERE))))  # the repository root

from tests.zoo.printed_values import write_goldens  # noqa: E402

if __name__ == "__main__":
    write_goldens(
        os.path.join(HERE, "train_irn.py"),
        os.path.join(HERE, "irn_goldens_mindspore.json"),
        version=ms.__version__,
        modes=("PYNATIVE_MODE",),
    )
