"""Write sgd_stat_goldens_mindspore.json for test_state.py: MindSpore 2.10's SGD on a `stat` of mixed signs.

Its kernel starts the momentum buffer at the gradient and clears `stat` only where `stat > 0` and the momentum is
positive; a `stat` of 0 or below, or a momentum of 0 or below, leaves `stat` as it was (a model's checkpoint keeps it).
Two steps of the primitive (ops.SGD) and of nn.SGD, for momenta 0.3, 0 and -0.3, plain and Nesterov, in PyNative.
Run: /work/msvenv/bin/python tests/ops/make_sgd_stat_goldens_mindspore.py"""

import json
import os
import sys

import mindspore as ms

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from sgd_stat_cases import CASES, run  # noqa: E402


if __name__ == "__main__":
    ms.set_context(mode=ms.PYNATIVE_MODE)
    out = {name: run(ms, *case) for name, case in CASES.items()}
    with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "sgd_stat_goldens_mindspore.json"), "w") as f:
        json.dump({"mindspore": ms.__version__, "cases": out}, f, indent=1)
