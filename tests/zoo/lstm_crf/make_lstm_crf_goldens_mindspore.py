"""Write lstm_crf_goldens_mindspore.json: what MindSpore 2.10 prints for `train_lstm_crf.py` (step losses, parameter and
AdamWeightDecay moment sums, the tags decoded after each epoch, by the exported decoder and through eval.py's path) in
both modes.
Run: /work/msvenv/bin/python tests/zoo/lstm_crf/make_lstm_crf_goldens_mindspore.py"""

import os
import sys

import mindspore as ms

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(HERE))))  # the repository root

from tests.zoo.printed_values import write_goldens  # noqa: E402

if __name__ == "__main__":
    write_goldens(
        os.path.join(HERE, "train_lstm_crf.py"),
        os.path.join(HERE, "lstm_crf_goldens_mindspore.json"),
        version=ms.__version__,
    )
