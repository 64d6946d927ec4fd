"""Write `goldens_mint.npz`: MindSpore 2.10's outputs for every case of `cases.py`.

Run with MindSpore's interpreter, from the repository root:

    /tmp/msvenv/bin/python tests/mint/make_goldens.py

For each case the file holds `<name>/<k>` (output k as an array), `<name>/n` (the number of outputs, -1 for a
single non-tuple output), `<name>/kind` ('tensor', 'bool', 'int', 'float' for a Python result) and, when
MindSpore raised, `<name>/error` (the exception's type name).
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

import mindspore as ms  # noqa: E402
from cases import CASES, make_inputs  # noqa: E402
from mindspore import mint  # noqa: E402


def _flatten(value):
    if isinstance(value, (tuple, list)):
        return list(value), len(value)
    return [value], -1


def _drain() -> None:
    """A failed kernel's error can surface again at the next synchronisation: let it, before the next case."""
    for _ in range(3):
        try:
            (ms.Tensor(np.ones(1, np.float32)) + 1).asnumpy()
            return
        except Exception:  # noqa: BLE001, S112
            continue


def main() -> None:
    out: dict[str, np.ndarray] = {}
    for name, call, specs in CASES:
        arrays = make_inputs(name, specs)
        try:
            result = call(mint, *(ms.Tensor(a) for a in arrays))
            values, n = _flatten(result)
            converted = [(("tensor", v.asnumpy()) if isinstance(v, ms.Tensor) else (type(v).__name__, np.array(v)))
                         for v in values]  # fmt: skip
        except Exception as err:  # noqa: BLE001  (MindSpore's CPU build lacks many mint kernels)
            out[f"{name}/error"] = np.array(type(err).__name__)
            print(f"{name}: {type(err).__name__}: {str(err).splitlines()[0] if str(err) else ''}")
            _drain()
            continue
        out[f"{name}/n"] = np.array(n)
        for k, (_, arr) in enumerate(converted):
            out[f"{name}/{k}"] = arr
        out[f"{name}/kind"] = np.array(",".join(kind for kind, _ in converted))
    np.savez_compressed(Path(__file__).resolve().parent / "goldens_mint.npz", **out)
    print(f"{len(CASES)} cases")


if __name__ == "__main__":
    main()
