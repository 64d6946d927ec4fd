"""MindSpore 2.10 goldens of tests/ops/operations/mindspore_cases.py, for test_against_mindspore.py beside it.

Run with MindSpore's environment from the repository root:
    /tmp/msvenv/bin/python tests/ops/operations/make_goldens.py
It writes tests/ops/operations/goldens.npz.
"""

import os
import sys
import types

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import mindspore as ms  # noqa: E402
import mindspore_cases as cases  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))


def main() -> None:
    m = types.SimpleNamespace(ops=ms.ops, Tensor=ms.Tensor, int64=ms.int64, int32=ms.int32, Parameter=ms.Parameter)
    arrays = {}
    for name, build in cases.CASES.items():
        for i, out in enumerate(cases.outputs(build(m))):
            arrays[f"{name}/{i}"] = out
    np.savez_compressed(os.path.join(HERE, "goldens.npz"), **arrays)
    print(f"{len(arrays)} arrays from {len(cases.CASES)} cases")


if __name__ == "__main__":
    main()
