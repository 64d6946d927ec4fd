"""Write `goldens_numpy.npz`: mindspore.numpy's (MindSpore 2.10) results for every case of `golden_cases.py`.

Run with MindSpore's interpreter, from the repository root:

    /tmp/msvenv/bin/python tests/numpy/make_goldens.py

For case i the file holds `<i>/expr` (the expression), `<i>/n` (the number of outputs, -1 for one that is not a
tuple or list), `<i>/<k>` (output k as an array), `<i>/<k>/dtype` (its MindSpore dtype name, or the Python type of
a non-Tensor result) and, when MindSpore raised, `<i>/error` (the exception's type name).
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import mindspore.numpy as mnp  # noqa: E402
from golden_cases import BOOL, CASES, FLT, INT  # noqa: E402


def _value(v):
    if hasattr(v, "asnumpy"):
        return v.asnumpy(), str(v.dtype)
    if hasattr(v, "__module__") and "dtype" in type(v).__name__.lower() or type(v).__module__.startswith("mindspore"):
        return np.asarray(str(v)), "dtype"
    return np.asarray(v), type(v).__name__


def _drain() -> None:
    """A failed kernel's error can surface again at the next synchronisation: let it, before the next case."""
    for _ in range(3):
        try:
            (mnp.ones(1) + 1).asnumpy()
            return
        except Exception:  # noqa: BLE001, S112
            continue


def main() -> None:
    env = {"n": mnp, "x": mnp.asarray(INT.tolist()), "f": mnp.asarray(FLT.tolist()), "b": mnp.asarray(BOOL.tolist())}
    out: dict[str, np.ndarray] = {}
    for i, expr in enumerate(CASES):
        out[f"{i}/expr"] = np.asarray(expr)
        try:
            res = eval(expr, env)  # noqa: S307  (the expressions are this repository's own cases)
            items, count = (list(res), len(res)) if isinstance(res, (tuple, list)) else ([res], -1)
            values = [_value(item) for item in items]  # kernel errors surface here
        except Exception as e:  # noqa: BLE001
            out[f"{i}/error"] = np.asarray(type(e).__name__)
            _drain()
            continue
        out[f"{i}/n"] = np.asarray(count)
        for k, (value, dtype) in enumerate(values):
            out[f"{i}/{k}"] = value
            out[f"{i}/{k}/dtype"] = np.asarray(dtype)
    np.savez_compressed(HERE / "goldens_numpy.npz", **out)
    print(f"{len(CASES)} cases, {sum(1 for k in out if k.endswith('/error'))} raised on MindSpore")


if __name__ == "__main__":
    main()
