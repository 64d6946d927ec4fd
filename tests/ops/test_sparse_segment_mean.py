"""ops.sparse_segment_mean against a NumPy loop over segments: values (PyNative and graph), gradient, errors."""

from __future__ import annotations

import numpy as np
import pytest

import kiln
from kiln import Tensor, nn, ops

RNG = np.random.default_rng(11)


def _reference(x, indices, segment_ids):
    n = int(segment_ids[-1]) + 1 if segment_ids.size else 0
    out = np.zeros((n, *x.shape[1:]), x.dtype)
    for s in range(n):
        rows = indices[segment_ids == s]
        if rows.size:
            out[s] = x[rows].mean(axis=0)
    return out


class _Net(nn.Cell):
    def construct(self, x, indices, segment_ids):
        return ops.sparse_segment_mean(x, indices, segment_ids)


CASES = [
    # (x shape, indices, segment ids, float dtype, index dtype): repeated rows, empty segments, a leading gap
    ((4, 5, 6), [3, 0, 0, 2, 1], [0, 0, 3, 3, 6], np.float32, np.int32),
    ((6, 3), [5, 1, 2], [2, 2, 4], np.float64, np.int64),
    ((3,), [0, 2, 2, 1], [0, 1, 1, 1], np.float32, np.int64),
]


@pytest.mark.parametrize("mode", [kiln.PYNATIVE_MODE, kiln.GRAPH_MODE])
@pytest.mark.parametrize(("shape", "indices", "ids", "fdt", "idt"), CASES)
def test_values(mode, shape, indices, ids, fdt, idt):
    kiln.set_context(mode=mode)
    try:
        x = RNG.standard_normal(shape).astype(fdt)
        indices, ids = np.array(indices, idt), np.array(ids, idt)
        got = _Net()(Tensor(x), Tensor(indices), Tensor(ids))
        want = _reference(x, indices, ids)
        assert got.dtype == (kiln.dtype.float32 if fdt == np.float32 else kiln.dtype.float64)
        assert got.shape == want.shape
        np.testing.assert_allclose(got.asnumpy(), want, rtol=1e-6, atol=1e-6)
    finally:
        kiln.set_context(mode=kiln.PYNATIVE_MODE)


def test_gradient():
    # d/dx of sum(w * mean) gives row r the sum over its uses of w[segment] / (rows in that segment)
    x = RNG.standard_normal((4, 3)).astype(np.float32)
    indices, ids = np.array([0, 2, 2, 3], np.int32), np.array([0, 0, 2, 2], np.int32)
    w = RNG.standard_normal((3, 3)).astype(np.float32)
    got = ops.grad(lambda t: (ops.sparse_segment_mean(t, Tensor(indices), Tensor(ids)) * Tensor(w)).sum())(Tensor(x))
    want = np.zeros_like(x)
    counts = np.bincount(ids)
    for r, s in zip(indices, ids, strict=True):
        want[r] += w[s] / counts[s]
    np.testing.assert_allclose(got.asnumpy(), want, rtol=1e-6)


@pytest.mark.parametrize(
    ("x", "indices", "ids", "error"),
    [
        (np.ones((4, 3), np.int32), [0, 1], [0, 0], TypeError),  # integer data
        (np.ones((4, 3), np.float32), [0.0, 1.0], [0, 0], TypeError),  # float indices
        (np.ones((4, 3), np.float32), np.array([0, 1], np.int32), np.array([0, 0], np.int64), TypeError),
        (np.ones((4, 3), np.float32), [[0, 1]], [[0, 0]], ValueError),  # 2-D indices
        (np.ones((4, 3), np.float32), [0, 1, 2], [0, 0], ValueError),  # sizes differ
        (np.ones((4, 3), np.float32), [0, 1, 2], [0, 2, 1], ValueError),  # unsorted ids
        (np.ones((4, 3), np.float32), [0, 1], [-1, 0], ValueError),  # negative id
        (np.ones((4, 3), np.float32), [0, 4], [0, 1], IndexError),  # row outside x
    ],
)
def test_errors(x, indices, ids, error):
    idt = np.int32
    indices = indices if isinstance(indices, np.ndarray) else np.array(indices)
    ids = ids if isinstance(ids, np.ndarray) else np.array(ids)
    if indices.dtype == np.int64 and ids.dtype == np.int64:
        indices, ids = indices.astype(idt), ids.astype(idt)
    with pytest.raises(error, match="SparseSegmentMean"):
        ops.sparse_segment_mean(Tensor(x), Tensor(indices), Tensor(ids))
