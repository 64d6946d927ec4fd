"""Kiln's `mint` against MindSpore 2.10's outputs (`goldens_mint.npz`, written by `make_goldens.py`).

Every case of `cases.py` that MindSpore's CPU build could run is replayed on Kiln: the same number of outputs,
the same kind (tensor or Python value), shape, dtype and values (shape and dtype only for random cases). Cases
MindSpore's CPU build cannot run (most of mint's kernels are Ascend-only) are checked against NumPy references
in `test_mint_table.py` instead.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import kiln
from kiln import mint
from tests.mint.cases import CASES, make_inputs

_GOLDEN = np.load(Path(__file__).with_name("goldens_mint.npz"))
_RAN = [c for c in CASES if f"{c[0]}/error" not in _GOLDEN.files]
# The cases MindSpore's CPU build cannot run: the test below makes sure that list is what the file says.
MS_CPU_MISSING = sorted(c[0] for c in CASES if f"{c[0]}/error" in _GOLDEN.files)


def _flatten(value):
    if isinstance(value, (tuple, list)):
        return list(value), len(value)
    return [value], -1


def _run(name, call, specs):
    arrays = make_inputs(name, specs)
    return call(mint, *(kiln.Tensor(a) for a in arrays))


def test_golden_file_covers_cases():
    names = {c[0] for c in CASES}
    stored = {f.split("/")[0] for f in _GOLDEN.files}
    assert names == stored, f"regenerate goldens_mint.npz: {sorted(names ^ stored)}"
    assert len(_RAN) >= 150


@pytest.mark.parametrize(("name", "call", "specs"), _RAN, ids=[c[0] for c in _RAN])
def test_matches_mindspore(name, call, specs):
    values, n = _flatten(_run(name, call, specs))
    assert n == int(_GOLDEN[f"{name}/n"]), f"{name}: {n} outputs, MindSpore {int(_GOLDEN[f'{name}/n'])}"
    kinds = str(_GOLDEN[f"{name}/kind"]).split(",")
    for k, (got, kind) in enumerate(zip(values, kinds)):
        want = _GOLDEN[f"{name}/{k}"]
        if kind == "tensor":
            assert isinstance(got, kiln.Tensor), f"{name} output {k}: {type(got).__name__}, MindSpore gives a Tensor"
            got = got.asnumpy()
        else:
            assert not isinstance(got, kiln.Tensor), f"{name} output {k}: a Tensor, MindSpore gives {kind}"
            assert type(got).__name__ == kind, f"{name} output {k}: {type(got).__name__}, MindSpore gives {kind}"
            got = np.asarray(got)
        assert got.shape == want.shape, f"{name} output {k}: shape {got.shape}, MindSpore {want.shape}"
        assert got.dtype == want.dtype, f"{name} output {k}: dtype {got.dtype}, MindSpore {want.dtype}"
        if name.endswith("~"):
            continue
        if got.dtype.kind in "biu":
            np.testing.assert_array_equal(got, want, err_msg=f"{name} output {k}")
        else:
            np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5, equal_nan=True, err_msg=f"{name} output {k}")
