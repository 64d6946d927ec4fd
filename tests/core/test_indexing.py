"""Reading and writing by index (int, slice, None, Ellipsis, tensor index, boolean mask) vs NumPy."""

from __future__ import annotations

import numpy as np
import pytest

import kiln
from kiln import Tensor

A = np.arange(60, dtype=np.float32).reshape(3, 4, 5)
IDX = np.array([2, 0, 2], np.int64)
MASK_ROWS = np.array([True, False, True])
MASK_FULL = (A % 7) < 3

READS = [
    ("int", lambda x: x[1]),
    ("negative int", lambda x: x[-1]),
    ("two ints", lambda x: x[0, 1]),
    ("three ints", lambda x: x[2, 3, 4]),
    ("slice", lambda x: x[1:3]),
    ("slice step", lambda x: x[::2]),
    ("negative slice", lambda x: x[:, -3:-1]),
    ("reverse", lambda x: x[:, ::-1]),
    ("int and slice", lambda x: x[0, 1:3]),
    ("None", lambda x: x[None]),
    ("None middle", lambda x: x[:, None, 1]),
    ("Ellipsis", lambda x: x[..., 2]),
    ("Ellipsis None", lambda x: x[0, ..., None]),
    ("int list", lambda x: x[[0, 2]]),
    ("tensor index", lambda x: x[Tensor(IDX) if isinstance(x, Tensor) else IDX]),
    ("tensor index on axis 1", lambda x: x[:, Tensor(IDX) if isinstance(x, Tensor) else IDX]),
    ("two index arrays", lambda x: x[[0, 1], [2, 3]]),
    ("bool mask rows", lambda x: x[Tensor(MASK_ROWS) if isinstance(x, Tensor) else MASK_ROWS]),
    ("bool mask full", lambda x: x[Tensor(MASK_FULL) if isinstance(x, Tensor) else MASK_FULL]),
    ("numpy bool mask", lambda x: x[MASK_ROWS]),
    ("0-d int tensor", lambda x: x[Tensor(1) if isinstance(x, Tensor) else 1]),
    ("scalar True", lambda x: x[True]),
    ("scalar False", lambda x: x[False]),
    ("True next to an int", lambda x: x[..., True, 3, 0:2, None]),
    ("False after None", lambda x: x[None, False, 1]),
    ("0-d bool tensor", lambda x: x[Tensor(True) if isinstance(x, Tensor) else np.array(True), 0]),
]


@pytest.mark.parametrize(("name", "index"), READS, ids=[n for n, _ in READS])
def test_read(name, index):
    got = index(Tensor(A))
    want = index(A)
    assert got.shape == want.shape
    np.testing.assert_array_equal(got.asnumpy(), want)


def _write_cases():
    v_block = np.full((2,), -1.0, np.float32)
    return [
        ("int = scalar", (1,), 7.0),
        ("x[0, 1:3] = v", (0, slice(1, 3)), np.arange(10, dtype=np.float32).reshape(2, 5)),
        ("x[0, 1:3] = scalar", (0, slice(1, 3)), -2.0),
        ("slice = broadcast row", (slice(None), 0), np.arange(5, dtype=np.float32)),
        ("Ellipsis", (Ellipsis, 1), 0.5),
        ("int and slice on last axis", (2, 3, slice(0, 2)), v_block),
        ("step slice", (slice(None, None, 2),), 9.0),
        ("int list", ([0, 2],), 3.0),
        ("negative index", (-1, -1, -1), 100.0),
    ]


@pytest.mark.parametrize(("name", "index", "value"), _write_cases(), ids=[c[0] for c in _write_cases()])
@pytest.mark.parametrize("value_as_tensor", [False, True], ids=["python/numpy value", "tensor value"])
def test_write(name, index, value, value_as_tensor):
    t = Tensor(A)
    v = Tensor(np.asarray(value, np.float32)) if value_as_tensor else value
    t[index] = v
    want = A.copy()
    want[index] = value
    np.testing.assert_array_equal(t.asnumpy(), want)
    assert t.dtype is kiln.float32


def test_write_through_bool_mask():
    t = Tensor(A)
    t[Tensor(MASK_FULL)] = 0.0
    want = A.copy()
    want[MASK_FULL] = 0.0
    np.testing.assert_array_equal(t.asnumpy(), want)
    t2 = Tensor(A)
    t2[Tensor(MASK_ROWS)] = -1.0
    want2 = A.copy()
    want2[MASK_ROWS] = -1.0
    np.testing.assert_array_equal(t2.asnumpy(), want2)


def test_write_with_tensor_index():
    t = Tensor(A)
    t[Tensor(np.array([0, 2]))] = 5.0
    want = A.copy()
    want[[0, 2]] = 5.0
    np.testing.assert_array_equal(t.asnumpy(), want)


def test_write_keeps_dtype_of_target():
    t = Tensor(np.zeros((2, 3), np.int32))
    t[0] = 2.7
    assert t.dtype is kiln.int32
    np.testing.assert_array_equal(t.asnumpy(), [[2, 2, 2], [0, 0, 0]])


@pytest.mark.parametrize("index", [5, -4, (0, 4), (slice(None), 7)], ids=repr)
def test_int_index_out_of_range_is_an_index_error(index):
    # MindSpore (and NumPy) refuse it; a backend would silently clamp.
    with pytest.raises(IndexError):
        Tensor(A)[index]


def test_gradient_flows_through_getitem_and_setitem():
    x = Tensor(np.arange(6, dtype=np.float32).reshape(2, 3))

    def f(x):
        y = x * 1.0
        y[0, 1:3] = y[1, 0:2] * 3.0
        return (y * y).sum()

    g = kiln.grad(f)(x).asnumpy()
    # y = [[x00, 3*x10, 3*x11], [x10, x11, x12]]: d/dx of sum(y^2)
    a = np.arange(6, dtype=np.float64).reshape(2, 3)
    want = np.array([[2 * a[0, 0], 0, 0], [2 * a[1, 0] + 18 * a[1, 0], 2 * a[1, 1] + 18 * a[1, 1], 2 * a[1, 2]]])
    np.testing.assert_allclose(g, want, rtol=1e-6)


def test_scalar_bools_kiln_cannot_place_are_an_index_error():
    for index in ((True, True), (1, ..., False)):
        with pytest.raises(IndexError, match="scalar boolean"):
            Tensor(A)[index]
