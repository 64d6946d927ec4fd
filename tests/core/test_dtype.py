"""Dtype objects, inference of Tensor(...) from Python data, and type promotion of binary ops."""

from __future__ import annotations

import pickle

import numpy as np
import pytest

import kiln
from kiln import Tensor, ops

# ---- dtype objects -------------------------------------------------------------------------


def test_dtype_names_and_numpy_views():
    assert kiln.float32.np == np.float32
    assert kiln.int64.np == np.int64
    assert kiln.bool_.np == np.bool_
    assert kiln.mstype is kiln.dtype
    assert kiln.mstype.float16 is kiln.float16
    assert str(kiln.float32) == "Float32"
    assert str(kiln.bool_) == "Bool"
    assert str(kiln.bfloat16) == "BFloat16"


def test_unsigned_dtype_display_matches_mindspore():
    # MindSpore spells them UInt8 ... UInt64.
    assert [str(d) for d in (kiln.uint8, kiln.uint16, kiln.uint32, kiln.uint64)] == [
        "UInt8",
        "UInt16",
        "UInt32",
        "UInt64",
    ]


@pytest.mark.parametrize("dt", kiln.dtype.ALL, ids=str)
def test_dtype_round_trips(dt):
    assert kiln.dtype.to_dtype(dt.np) is dt
    assert kiln.dtype.from_np(dt.np) is dt
    assert pickle.loads(pickle.dumps(dt)) is dt


def test_to_dtype_accepts_python_types_and_names():
    assert kiln.dtype.to_dtype(float) is kiln.float32
    assert kiln.dtype.to_dtype(int) is kiln.int64
    assert kiln.dtype.to_dtype(bool) is kiln.bool_
    assert kiln.dtype.to_dtype("float16") is kiln.float16
    # MindSpore takes a name in any case (its display names: Int32, UInt8, Bool), as Tensor.astype does
    assert kiln.dtype.to_dtype("Int32") is kiln.int32
    assert kiln.dtype.to_dtype("UInt8") is kiln.uint8
    assert kiln.dtype.to_dtype("Bool") is kiln.bool_
    x = kiln.Tensor(np.array([1.5, -2.5], np.float32))
    assert x.astype("Int32").dtype is kiln.int32
    assert x.astype("FLOAT16").dtype is kiln.float16
    with pytest.raises(TypeError, match="not a Kiln dtype"):
        kiln.dtype.to_dtype("float7")


def test_dtype_kind_predicates():
    assert kiln.bfloat16.is_floating and kiln.float16.is_floating
    assert kiln.int8.is_integer and kiln.uint32.is_integer and not kiln.bool_.is_integer
    assert kiln.complex64.is_complex


# ---- inference of Tensor(...) --------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (1, kiln.int64),
        (-7, kiln.int64),
        (2**40, kiln.int64),
        (1.5, kiln.float32),
        (True, kiln.bool_),
        ([1, 2], kiln.int64),
        ([1, 2.5], kiln.float32),
        ((1, 2.0), kiln.float32),
        ([True, False], kiln.bool_),
        ([True, 1], kiln.int64),
        ([True, 1.5], kiln.float32),
        ([[1], [2]], kiln.int64),
        (np.float64(2), kiln.float64),
        (np.int32(2), kiln.int32),
        (np.array([1, 2], np.int16), kiln.int16),
        (np.array([1.0], np.float16), kiln.float16),
        (np.array([1, 2], np.uint8), kiln.uint8),
        (np.array(True), kiln.bool_),
    ],
    ids=repr,
)
def test_tensor_dtype_inference(value, expected):
    t = Tensor(value)
    assert t.dtype is expected
    np.testing.assert_array_equal(t.asnumpy(), np.asarray(value, dtype=expected.np))


def test_explicit_dtype_wins():
    assert Tensor(1, kiln.float32).dtype is kiln.float32
    assert Tensor([1.7, -2.2], dtype=kiln.int32).asnumpy().tolist() == [1, -2]
    assert Tensor(np.ones(2, np.float64), kiln.float16).dtype is kiln.float16


def test_tensor_from_tensor_keeps_or_casts():
    a = Tensor([1, 2])
    assert Tensor(a).dtype is kiln.int64
    assert Tensor(a, kiln.float32).dtype is kiln.float32


def test_list_of_tensors():
    t = Tensor([Tensor(1.0), Tensor(2.0)])
    assert t.shape == (2,)
    assert t.dtype is kiln.float32


def test_bad_data_is_a_type_error():
    with pytest.raises(TypeError, match="Tensor"):
        Tensor({"a": 1})


# ---- promotion -----------------------------------------------------------------------------
# Two tensors: the wider kind wins; within a kind the wider type; int8 with uint8 gives int16.
TENSOR_PAIRS = [
    (np.int32, np.float16, np.float16),
    (np.int8, np.uint8, np.int16),
    (np.int16, np.uint8, np.int16),
    (np.uint8, np.int32, np.int32),
    (np.bool_, np.int32, np.int32),
    (np.bool_, np.float32, np.float32),
    (np.int64, np.float32, np.float32),
    (np.int32, np.int64, np.int64),
    (np.float16, np.float32, np.float32),
    (np.float32, np.float64, np.float64),
    (np.float16, kiln.bfloat16.np, np.float32),
]


@pytest.mark.parametrize(("a", "b", "expected"), TENSOR_PAIRS, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("op", [ops.add, ops.mul, ops.sub, ops.maximum], ids=lambda f: f.__name__)
def test_binary_promotion(op, a, b, expected):
    x, y = Tensor(np.ones(2, a)), Tensor(np.full(2, 2, b))
    assert op(x, y).dtype.np == np.dtype(expected)
    assert op(y, x).dtype.np == np.dtype(expected)


@pytest.mark.parametrize(("a", "b", "expected"), TENSOR_PAIRS, ids=lambda d: np.dtype(d).name)
def test_true_division_of_integers_is_float32(a, b, expected):
    out = ops.div(Tensor(np.ones(2, a)), Tensor(np.full(2, 2, b)))
    want = np.dtype(expected) if np.dtype(expected).kind == "f" or expected == kiln.bfloat16.np else np.float32
    assert out.dtype.np == want
    np.testing.assert_allclose(out.asnumpy().astype(np.float64), 0.5)


@pytest.mark.parametrize(
    ("dtype", "scalar", "expected"),
    [
        (np.int32, 2, np.int32),
        (np.uint8, 2, np.uint8),
        (np.float16, 2, np.float16),
        (np.float16, 2.5, np.float16),
        (np.float32, 2.5, np.float32),
        (np.int32, True, np.int32),
        (np.bool_, True, np.bool_),
        (np.bool_, 2, np.int64),
        (np.int32, 2.5, np.float32),
        (np.int64, 2.5, np.float32),
        (np.uint8, 2.5, np.float32),
        (np.bool_, 2.5, np.float32),
    ],
    ids=repr,
)
def test_python_scalars_are_weakly_typed(dtype, scalar, expected):
    x = Tensor(np.ones(3, dtype))
    for out in (x + scalar, scalar + x, x * scalar, ops.add(x, scalar), ops.mul(scalar, x)):
        assert out.dtype.np == np.dtype(expected), f"{np.dtype(dtype)} with {scalar!r} gave {out.dtype}"


def test_scalar_value_is_exact():
    x = Tensor(np.arange(3, dtype=np.int32))
    np.testing.assert_array_equal((x * 3 + 1).asnumpy(), np.arange(3) * 3 + 1)
    np.testing.assert_allclose((x / 2).asnumpy(), np.arange(3) / 2)
