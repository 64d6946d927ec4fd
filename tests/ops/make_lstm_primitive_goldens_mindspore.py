"""Write lstm_primitive_goldens_mindspore.npz: MindSpore 2.10's CPU P.LSTM on lstm_primitive_cases.py's cases (its
outputs, h_n, c_n and the gradients with respect to x, h0, c0 and the flat weight), PyNative and GRAPH_MODE (which
agree bit for bit; checked here).
Run: /work/msvenv/bin/python tests/ops/make_lstm_primitive_goldens_mindspore.py"""

import os
import sys

import mindspore as ms
import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
from lstm_primitive_cases import CASES, run  # noqa: E402

NAMES = ("output", "h_n", "c_n", "dx", "dh0", "dc0", "dw")


def main():
    out = {}
    for case in CASES:
        py, graph = run(ms, case, ms.PYNATIVE_MODE), run(ms, case, ms.GRAPH_MODE)
        for name, a, b in zip(NAMES, py, graph, strict=True):
            assert a.dtype == np.float32 and np.array_equal(a, b), (case, name)
            out[f"{case}/{name}"] = a
    np.savez(os.path.join(os.path.dirname(__file__), "lstm_primitive_goldens_mindspore.npz"), **out)


if __name__ == "__main__":
    main()
