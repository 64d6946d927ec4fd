"""Sparse tensors (COOTensor, CSRTensor, RowTensor) and ops.coo_*/csr_*, checked against dense NumPy."""

from __future__ import annotations

import numpy as np
import pytest

import kiln
from kiln import COOTensor, CSRTensor, RowTensor, Tensor, ops

RNG = np.random.default_rng(7)


def _dense(shape=(4, 5), density=0.4):
    x = RNG.uniform(-2, 2, size=shape).astype(np.float32)
    x[RNG.random(shape) > density] = 0
    x[0, 0] = 1.5  # at least one entry
    return x


def _csr_of(x: np.ndarray) -> CSRTensor:
    rows, cols = np.nonzero(x)
    indptr = np.searchsorted(rows, np.arange(x.shape[0] + 1)).astype(np.int32)
    return CSRTensor(Tensor(indptr), Tensor(cols.astype(np.int32)), Tensor(x[rows, cols]), x.shape)


def _coo_of(x: np.ndarray) -> COOTensor:
    idx = np.argwhere(x != 0).astype(np.int64)
    return COOTensor(Tensor(idx), Tensor(x[x != 0]), x.shape)


def test_coo_properties_and_to_dense_with_duplicates():
    idx = np.array([[0, 1], [1, 2], [0, 1]], np.int64)
    val = np.array([1.0, 2.0, 3.0], np.float32)
    c = COOTensor(Tensor(idx), Tensor(val), (3, 4))
    assert c.shape == (3, 4) and c.ndim == 2 and c.size == 3 and c.itemsize == 4 and c.dtype == kiln.float32
    want = np.zeros((3, 4), np.float32)
    np.add.at(want, (idx[:, 0], idx[:, 1]), val)
    np.testing.assert_array_equal(c.to_dense().asnumpy(), want)
    merged = c.coalesce()
    np.testing.assert_array_equal(merged.indices.asnumpy(), [[0, 1], [1, 2]])
    np.testing.assert_array_equal(merged.values.asnumpy(), [4.0, 2.0])
    np.testing.assert_array_equal(merged.to_csr().to_dense().asnumpy(), want)
    i, v, s = c.to_tuple()
    assert s == (3, 4) and i is c.indices and v is c.values
    assert COOTensor(coo_tensor=c).shape == (3, 4)


def test_coo_arithmetic_matches_dense():
    a, b = _dense(), _dense()
    ca, cb = _coo_of(a), _coo_of(b)
    np.testing.assert_allclose((ca + cb).to_dense().asnumpy(), a + b, rtol=1e-6)
    np.testing.assert_allclose((ca - cb).to_dense().asnumpy(), a - b, rtol=1e-6)
    np.testing.assert_allclose((-ca).to_dense().asnumpy(), -a)
    np.testing.assert_allclose((ca + Tensor(b)).asnumpy(), a + b, rtol=1e-6)
    w = RNG.uniform(1, 2, size=(4, 5)).astype(np.float32)
    np.testing.assert_allclose((ca * Tensor(w)).to_dense().asnumpy(), a * w, rtol=1e-6)
    np.testing.assert_allclose((ca / Tensor(w)).to_dense().asnumpy(), a / w, rtol=1e-6)
    np.testing.assert_allclose(ca.abs().to_dense().asnumpy(), np.abs(a))
    assert ca.astype(kiln.float64).dtype == kiln.float64
    thresh = ops.coo_add(ca, cb, Tensor(np.float32(1.0)))
    kept = a + b
    kept[np.abs(kept) < 1.0] = 0
    np.testing.assert_allclose(thresh.to_dense().asnumpy(), kept, rtol=1e-6)


@pytest.mark.parametrize("name", ["sin", "exp", "relu", "square", "neg", "isnan", "softsign"])
def test_coo_csr_unary(name):
    x = _dense()
    ref = {"sin": np.sin, "exp": np.exp, "relu": lambda v: np.maximum(v, 0), "square": np.square,
           "neg": np.negative, "isnan": np.isnan, "softsign": lambda v: v / (1 + np.abs(v))}[name]  # fmt: skip
    mask = x != 0
    coo = getattr(ops, f"coo_{name}")(_coo_of(x))
    csr = getattr(ops, f"csr_{name}")(_csr_of(x))
    np.testing.assert_allclose(coo.values.asnumpy(), ref(x[mask]), rtol=1e-6)
    np.testing.assert_allclose(csr.values.asnumpy(), ref(x[mask]), rtol=1e-6)


def test_csr_properties_conversions():
    x = _dense()
    s = _csr_of(x)
    assert s.shape == (4, 5) and s.ndim == 2 and s.size == int((x != 0).sum())
    np.testing.assert_array_equal(s.to_dense().asnumpy(), x)
    np.testing.assert_array_equal(ops.csr_to_dense(s).asnumpy(), x)
    np.testing.assert_array_equal(ops.csr_to_coo(s).to_dense().asnumpy(), x)
    np.testing.assert_array_equal(s.to_coo().indices.asnumpy(), np.argwhere(x != 0))
    back = ops.dense_to_sparse_csr(Tensor(x))
    np.testing.assert_array_equal(back.indptr.asnumpy(), s.indptr.asnumpy())
    assert back.indptr.dtype == kiln.int32
    coo = ops.dense_to_sparse_coo(Tensor(x))
    assert coo.indices.dtype == kiln.int64
    np.testing.assert_array_equal(coo.to_dense().asnumpy(), x)
    rows = ops.csr2coo(s.indptr, s.size).asnumpy()
    np.testing.assert_array_equal(rows, np.nonzero(x)[0])
    np.testing.assert_array_equal(ops.coo2csr(Tensor(rows.astype(np.int32)), 4).asnumpy(), s.indptr.asnumpy())


def test_csr_products_and_reductions():
    x = _dense()
    s = _csr_of(x)
    d = RNG.uniform(-1, 1, size=(5, 3)).astype(np.float32)
    np.testing.assert_allclose(s.mm(Tensor(d)).asnumpy(), x @ d, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(ops.csr_mm(s, Tensor(d)).asnumpy(), x @ d, rtol=1e-5, atol=1e-6)
    v = RNG.uniform(-1, 1, size=(5, 1)).astype(np.float32)
    np.testing.assert_allclose(s.mv(Tensor(v)).asnumpy(), x @ v, rtol=1e-5, atol=1e-6)
    y = _dense((5, 3))
    np.testing.assert_allclose(ops.csr_mm(s, _csr_of(y)).to_dense().asnumpy(), x @ y, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(s.sum(1).asnumpy(), x.sum(1, keepdims=True), rtol=1e-6)
    np.testing.assert_allclose(ops.csr_reduce_sum(s, 0).asnumpy(), x.sum(0, keepdims=True), rtol=1e-6)
    w = RNG.uniform(1, 2, size=(4, 5)).astype(np.float32)
    np.testing.assert_allclose((s * Tensor(w)).to_dense().asnumpy(), x * w, rtol=1e-6)
    np.testing.assert_allclose(ops.csr_div(s, Tensor(w)).asnumpy(), (x / w)[x != 0], rtol=1e-6)
    np.testing.assert_allclose(ops.csr_gather(s.indptr, s.indices, Tensor(w), s.shape).asnumpy(), w[x != 0])
    b = _dense()
    total = ops.csr_add(s, _csr_of(b), Tensor(np.float32(2.0)), Tensor(np.float32(-1.0)))
    np.testing.assert_allclose(total.to_dense().asnumpy(), 2 * x - b, rtol=1e-6)
    np.testing.assert_allclose((s + _csr_of(b)).to_dense().asnumpy(), x + b, rtol=1e-6)


def test_csr_softmax_rows():
    x = _dense()
    out = ops.csr_softmax(_csr_of(x)).to_dense().asnumpy()
    for r in range(x.shape[0]):
        m = x[r] != 0
        if m.any():
            e = np.exp(x[r, m] - x[r, m].max())
            np.testing.assert_allclose(out[r, m], e / e.sum(), rtol=1e-5)


def test_gradients_flow_to_values():
    x = _dense()
    s = _csr_of(x)
    d = RNG.uniform(-1, 1, size=(5, 3)).astype(np.float32)

    def f(values):
        return CSRTensor(s.indptr, s.indices, values, s.shape).mm(Tensor(d)).sum()

    g = kiln.grad(f)(s.values).asnumpy()
    rows, cols = np.nonzero(x)
    np.testing.assert_allclose(g, d[cols].sum(1), rtol=1e-5)

    c = _coo_of(x)
    gc = kiln.grad(lambda v: (COOTensor(c.indices, v, c.shape).to_dense() * Tensor(x)).sum())(c.values).asnumpy()
    np.testing.assert_allclose(gc, x[x != 0], rtol=1e-6)


def test_coalesce_op_and_concat():
    idx = np.array([[0, 0, 1], [1, 1, 2]], np.int64)
    y_idx, y_val, y_shape = ops.coalesce(Tensor(idx), Tensor(np.array([1.0, 2.0, 3.0], np.float32)),
                                         Tensor(np.array([3, 3], np.int64)))  # fmt: skip
    np.testing.assert_array_equal(y_idx.asnumpy(), [[0, 1], [1, 2]])
    np.testing.assert_array_equal(y_val.asnumpy(), [3.0, 3.0])
    np.testing.assert_array_equal(y_shape.asnumpy(), [3, 3])
    a, b = _dense((2, 3)), _dense((3, 3))
    cat = ops.coo_concat((_coo_of(a), _coo_of(b)), 0)
    np.testing.assert_array_equal(cat.to_dense().asnumpy(), np.concatenate([a, b]))
    with pytest.raises(ValueError, match="Coalesce"):
        ops.coalesce(Tensor(np.array([[5], [0]], np.int64)), Tensor(np.ones(1, np.float32)), (3, 3))


def test_row_tensor():
    r = RowTensor(Tensor(np.array([0, 2, 0], np.int32)), Tensor(np.ones((3, 4), np.float32)), (3, 4))
    assert r.dense_shape == (3, 4) and r.dtype == kiln.float32
    np.testing.assert_array_equal(r.to_dense().asnumpy()[:, 0], [2.0, 0.0, 1.0])
    assert ops.row_tensor_get_dense_shape(r) == (3, 4)
    np.testing.assert_array_equal(ops.row_tensor_add(r, Tensor(np.float32(1.0))).values.asnumpy(), 2.0)


def test_constructor_errors():
    with pytest.raises(ValueError, match="COOTensor"):
        COOTensor(Tensor(np.zeros((2, 3), np.int64)), Tensor(np.ones(2, np.float32)), (3, 4))
    with pytest.raises(TypeError, match="COOTensor"):
        COOTensor(Tensor(np.zeros((2, 2), np.float32)), Tensor(np.ones(2, np.float32)), (3, 4))
    with pytest.raises(ValueError, match="CSRTensor"):
        CSRTensor(Tensor(np.array([0, 1], np.int32)), Tensor(np.array([1], np.int32)), Tensor(np.ones(1)), (3, 4))


def test_reflected_operators_and_common_module():
    from kiln.common.sparse_tensor import COOTensor as Coo  # noqa: PLC0415

    x = _dense()
    c = _coo_of(x)
    assert Coo is COOTensor
    w = RNG.uniform(1, 2, size=(4, 5)).astype(np.float32)
    np.testing.assert_allclose(c.__radd__(Tensor(w)).asnumpy(), x + w, rtol=1e-6)
    np.testing.assert_allclose(c.__rsub__(Tensor(w)).asnumpy(), w - x, rtol=1e-6)
    np.testing.assert_allclose(c.__rmul__(Tensor(w)).to_dense().asnumpy(), x * w, rtol=1e-6)
    with pytest.raises(TypeError):
        COOTensor(Tensor(np.zeros((2, 2), np.int64)), Tensor(np.ones(2, np.float32)), (2, 2, 2))


def test_construction_inside_graphs():
    x = _dense()
    s = _csr_of(x)
    d = Tensor(RNG.uniform(-1, 1, size=(5, 3)).astype(np.float32))

    @kiln.jit
    def f(indptr, indices, values, dense):
        return CSRTensor(indptr, indices, values, (4, 5)).mm(dense)

    np.testing.assert_allclose(f(s.indptr, s.indices, s.values, d).asnumpy(), x @ d.asnumpy(), rtol=1e-5, atol=1e-6)
    c = _coo_of(x)
    g = kiln.jit(lambda i, v: COOTensor(i, v, (4, 5)).to_dense() * 2)
    np.testing.assert_allclose(g(c.indices, c.values).asnumpy(), 2 * x, rtol=1e-6)
