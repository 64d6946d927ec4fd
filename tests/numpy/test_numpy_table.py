"""The `kiln.numpy` record table (tests/numpy/records.py) against NumPy: values, shapes and dtypes, and, for the
differentiable records, Kiln's gradient against central finite differences of the NumPy reference."""

from __future__ import annotations

import numpy as np
import pytest

import kiln
import kiln.numpy as knp
from kiln import Tensor
from tests.numpy.records import RECORDS, NpRecord

_NARROW = {np.dtype(np.float64): np.dtype(np.float32), np.dtype(np.int64): np.dtype(np.int32)}


def _kiln_args(record: NpRecord) -> list:
    return [Tensor(x) if isinstance(x, np.ndarray) else x for x in record.inputs]


def _reference(record: NpRecord, inputs) -> object:
    fn = record.ref or record.call
    return fn(np, *inputs)


def _flat(value) -> list:
    if isinstance(value, (list, tuple)):
        return [v for item in value for v in _flat(item)]
    return [value]


def _as_numpy(value) -> np.ndarray:
    return value.asnumpy() if isinstance(value, Tensor) else np.asarray(value)


def test_table_names_are_unique():
    names = [r.name for r in RECORDS]
    assert len(names) == len(set(names)), sorted({n for n in names if names.count(n) > 1})


@pytest.mark.parametrize("record", RECORDS, ids=lambda r: r.name)
def test_forward(record: NpRecord):
    got = _flat(record.call(knp, *_kiln_args(record)))
    want = _flat(_reference(record, [np.array(x) if isinstance(x, np.ndarray) else x for x in record.inputs]))
    assert len(got) == len(want), f"{len(got)} outputs, NumPy gives {len(want)}"
    for g, w in zip(got, want, strict=True):
        assert isinstance(g, Tensor), f"expected a Tensor, got {type(g).__name__}"
        gv, wv = _as_numpy(g), np.asarray(w)
        assert gv.shape == wv.shape, f"shape {gv.shape}, NumPy {wv.shape}"
        if record.check_dtype:
            assert gv.dtype == _NARROW.get(wv.dtype, wv.dtype), f"dtype {gv.dtype}, NumPy {wv.dtype}"
        if wv.dtype == np.bool_ or np.issubdtype(wv.dtype, np.integer):
            np.testing.assert_array_equal(gv, wv.astype(gv.dtype))
        else:
            np.testing.assert_allclose(gv, wv, rtol=record.rtol, atol=record.atol, equal_nan=True)


_GRAD = [r for r in RECORDS if r.grad]


def _float_positions(record: NpRecord) -> list[int]:
    return [i for i, x in enumerate(record.inputs) if isinstance(x, np.ndarray) and x.dtype == np.float32]


def _cotangents(record: NpRecord, rng) -> list[np.ndarray]:
    outs = _flat(_reference(record, [np.array(x) if isinstance(x, np.ndarray) else x for x in record.inputs]))
    return [rng.standard_normal(np.shape(o)) for o in outs]


@pytest.mark.parametrize("record", _GRAD, ids=lambda r: r.name)
def test_gradient(record: NpRecord):
    rng = np.random.default_rng(7)
    positions = _float_positions(record)
    assert positions, "a gradient record needs float inputs"
    cts = _cotangents(record, rng)

    def loss(*xs):
        outs = _flat(record.call(knp, *xs))
        total = None
        for o, c in zip(outs, cts, strict=True):
            term = (o * Tensor(c.astype(np.float32))).sum()
            total = term if total is None else total + term
        return total

    args = _kiln_args(record)
    grads = kiln.grad(loss, grad_position=tuple(positions))(*args)
    grads = grads if isinstance(grads, tuple) else (grads,)

    def numeric(xs) -> float:
        outs = _flat(_reference(record, xs))
        return float(sum(np.sum(np.asarray(o, np.float64) * c) for o, c in zip(outs, cts, strict=True)))

    base = [x.astype(np.float64) if isinstance(x, np.ndarray) and x.dtype == np.float32 else x for x in record.inputs]
    eps = 1e-6
    for pos, g in zip(positions, grads, strict=True):
        g = g.asnumpy()
        assert g.shape == record.inputs[pos].shape
        fd = np.zeros(record.inputs[pos].shape)
        for idx in np.ndindex(fd.shape):
            plus = [x.copy() if isinstance(x, np.ndarray) else x for x in base]
            minus = [x.copy() if isinstance(x, np.ndarray) else x for x in base]
            plus[pos][idx] += eps
            minus[pos][idx] -= eps
            fd[idx] = (numeric(plus) - numeric(minus)) / (2 * eps)
        np.testing.assert_allclose(g, fd, rtol=2e-3, atol=2e-3, err_msg=f"input {pos}")
