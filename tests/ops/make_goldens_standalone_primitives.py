"""MindSpore 2.10 goldens of tests/ops/standalone_primitives_cases.py, for tests/ops/test_standalone_primitives.py.

Run with MindSpore's environment from the repository root:
    /tmp/msvenv/bin/python tests/ops/make_goldens_standalone_primitives.py
It writes tests/ops/goldens/standalone_primitives.npz.
"""

import os
import sys
import types

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import mindspore as ms  # noqa: E402
import standalone_primitives_cases as cases  # noqa: E402

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "goldens")


def main() -> None:
    m = types.SimpleNamespace(ops=ms.ops, Tensor=ms.Tensor, int64=ms.int64, int32=ms.int32)
    arrays = {}
    for name, build in cases.CASES.items():
        for i, out in enumerate(cases.outputs(build(m))):
            arrays[f"{name}/{i}"] = out
    os.makedirs(HERE, exist_ok=True)
    np.savez_compressed(os.path.join(HERE, "standalone_primitives.npz"), **arrays)
    print(f"{len(arrays)} arrays from {len(cases.CASES)} cases")


if __name__ == "__main__":
    main()
