"""mindspore.numpy's results (MindSpore 2.10, recorded by `make_goldens.py` into `goldens_numpy.npz`) replayed on
`kiln.numpy`: values, shapes, dtypes and the kinds of Python results, for the cases of `golden_cases.py`.

Cases MindSpore refused (its kernels lack some dtypes that Kiln handles) are not compared.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import kiln.numpy as knp
from kiln import Tensor
from tests.numpy.golden_cases import BOOL, CASES, FLT, INT

_GOLDENS = np.load(Path(__file__).with_name("goldens_numpy.npz"))
_ENV = {"n": knp, "x": knp.asarray(INT.tolist()), "f": knp.asarray(FLT.tolist()), "b": knp.asarray(BOOL.tolist())}
_COMPUTED = [i for i in range(len(CASES)) if f"{i}/error" not in _GOLDENS.files]


def test_goldens_match_cases():
    recorded = [str(_GOLDENS[f"{i}/expr"]) for i in range(len(CASES))]
    assert recorded == CASES, "golden_cases.py changed: run tests/numpy/make_goldens.py with MindSpore"
    assert len(_COMPUTED) >= len(CASES) - 3


@pytest.mark.parametrize("i", _COMPUTED, ids=[CASES[i] for i in _COMPUTED])
def test_golden(i):
    res = eval(CASES[i], dict(_ENV))  # noqa: S307  (the expressions are this repository's own cases)
    count = int(_GOLDENS[f"{i}/n"])
    items = list(res) if count >= 0 else [res]
    if count >= 0:
        assert isinstance(res, (tuple, list)) and len(items) == count
    for k, item in enumerate(items):
        want, kind = _GOLDENS[f"{i}/{k}"], str(_GOLDENS[f"{i}/{k}/dtype"])
        if kind == "dtype":
            assert str(item) == str(want)
            continue
        if isinstance(item, Tensor):
            assert str(item.dtype) == kind, f"output {k}: dtype {item.dtype}, MindSpore {kind}"
            got = item.asnumpy()
        else:
            assert type(item).__name__ == kind, f"output {k}: {type(item).__name__}, MindSpore {kind}"
            got = np.asarray(item)
        assert got.shape == want.shape, f"output {k}: shape {got.shape}, MindSpore {want.shape}"
        if got.dtype.kind in "biu":
            np.testing.assert_array_equal(got, want)
        else:
            np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
