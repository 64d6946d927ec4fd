"""MindSpore 2.10 goldens of tests/dataset/sweep_cases.py, for tests/dataset/test_sweep_goldens.py.

Run with MindSpore's environment from the repository root:
    /work/msvenv/bin/python tests/dataset/make_sweep_goldens_mindspore.py
It writes tests/dataset/goldens/sweep.json (each case's result, or the type of the exception it raised).
"""

import json
import os
import sys
import types

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import mindspore as ms  # noqa: E402
import mindspore.dataset as ds  # noqa: E402
import mindspore.dataset.transforms as T  # noqa: E402
import mindspore.dataset.vision as v  # noqa: E402
import sweep_cases  # noqa: E402

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "goldens")


def main() -> None:
    m = types.SimpleNamespace(ds=ds, v=v, T=T, ms=ms)
    out = {name: sweep_cases.run(fn, m) for name, fn in sweep_cases.ALL.items()}
    with open(os.path.join(HERE, "sweep.json"), "w") as f:
        json.dump(out, f, sort_keys=True, separators=(",", ":"))
        f.write("\n")


if __name__ == "__main__":
    main()
