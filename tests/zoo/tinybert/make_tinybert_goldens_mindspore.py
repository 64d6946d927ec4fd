"""Write tinybert_goldens_mindspore.json: what MindSpore 2.10 prints for `train_tinybert.py` (phase 1's and phase 2's
step losses and parameter and AdamWeightDecay moment sums, the evaluation callback's counts and checkpoint sums, the
standalone evaluation's log-probabilities and counts) in both modes.
Run: /work/msvenv/bin/python tests/zoo/tinybert/make_tinybert_goldens_mindspore.py"""

import os
import sys

import mindspore as ms

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(HERE))))  # the repository root

from tests.zoo.printed_values import write_goldens  # noqa: E402

if __name__ == "__main__":
    write_goldens(
        os.path.join(HERE, "train_tinybert.py"),
        os.path.join(HERE, "tinybert_goldens_mindspore.json"),
        version=ms.__version__,
    )
