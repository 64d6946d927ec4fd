"""Write fused_ada_factor_goldens_mindspore.npz: MindSpore 2.10's CPU results for fused_ada_factor_cases.py's cases,
PyNative and GRAPH_MODE (which agree bit for bit; checked here).
Run: /work/msvenv/bin/python tests/ops/make_fused_ada_factor_goldens_mindspore.py"""

import os
import sys

import mindspore as ms
import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
from fused_ada_factor_cases import CASES, run  # noqa: E402


def main():
    out = {}
    for case in CASES:
        py, graph = run(ms, case, ms.PYNATIVE_MODE), run(ms, case, ms.GRAPH_MODE)
        for k, (a, b) in enumerate(zip(py, graph, strict=True)):
            assert np.array_equal(a, b), (case, k)
            out[f"{case}/{k}"] = a
    np.savez(os.path.join(os.path.dirname(__file__), "fused_ada_factor_goldens_mindspore.npz"), **out)


if __name__ == "__main__":
    main()
