"""MindSpore 2.10 goldens of tests/dataset/op_cases.py, for tests/dataset/test_ops.py.

Run with MindSpore's environment from the repository root:
    /tmp/msvenv/bin/python tests/dataset/make_goldens_ops.py
It writes tests/dataset/goldens/ops.npz (outputs) and tests/dataset/goldens/ops_errors.json (exception types).
"""

import json
import os
import sys
import types

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import mindspore as ms  # noqa: E402
import mindspore.dataset.audio as audio  # noqa: E402
import mindspore.dataset.text as text  # noqa: E402
import mindspore.dataset.transforms as T  # noqa: E402
import op_cases  # noqa: E402

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "goldens")


def main() -> None:
    m = types.SimpleNamespace(T=T, text=text, audio=audio, ms=ms)
    arrays, errors = {}, {}
    for group, cases in op_cases.ALL.items():
        for name, (build, inputs) in cases.items():
            for key, value in op_cases.run_case(build, inputs, m).items():
                if isinstance(value, str):
                    errors[f"{group}/{name}{key}"] = value[1:]
                else:
                    arrays[f"{group}/{name}{key}"] = value
    for group, cases in op_cases.ALL_BUILD_ERRORS.items():
        for name, build in cases.items():
            errors[f"{group}/build/{name}"] = op_cases.build_error(build, m)
    np.savez_compressed(os.path.join(HERE, "ops.npz"), **arrays)
    with open(os.path.join(HERE, "ops_errors.json"), "w") as f:
        json.dump(errors, f, indent=1, sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    main()
