"""Argument names and input checks of array ops' faces (kiln/ops/array.py) as MindSpore 2.10 has them."""

from __future__ import annotations

import numpy as np
import pytest

import kiln as ms
from kiln import Tensor, ops

X = np.arange(6, dtype=np.float32).reshape(2, 3)


@pytest.mark.parametrize("dim", [0, 1, -1])
def test_unsqueeze_takes_dim_in_every_face(dim):
    # ops.unsqueeze(input, dim) and Tensor.unsqueeze(dim) name the axis `dim`; ops.expand_dims names it `axis`
    want = np.expand_dims(X, dim)
    t = Tensor(X)
    compiled = ms.jit(lambda a: ops.unsqueeze(a, dim=dim))
    outs = [ops.unsqueeze(t, dim=dim), ops.unsqueeze(t, dim), t.unsqueeze(dim=dim), ms.mint.unsqueeze(t, dim=dim),
            ops.expand_dims(t, axis=dim), t.expand_dims(axis=dim), compiled(t)]  # fmt: skip
    for out in outs:
        np.testing.assert_array_equal(out.asnumpy(), want)


@pytest.mark.parametrize("face", [ops.shape, ops.rank, ops.Shape(), ops.Rank()], ids=["shape", "rank", "Shape", "Rank"])
@pytest.mark.parametrize("value", [[Tensor(X), Tensor(X)], 3, X], ids=["list", "int", "ndarray"])
def test_shape_and_rank_refuse_what_is_not_a_tensor(face, value):
    with pytest.raises(TypeError):
        face(value)


def test_shape_and_rank_of_a_tensor():
    t = Tensor(X)
    assert ops.shape(t) == ops.Shape()(t) == X.shape
    assert ops.rank(t) == ops.Rank()(t) == X.ndim


@pytest.mark.parametrize("face", [ops.ones, ops.zeros], ids=["ones", "zeros"])
def test_a_size_tensor_is_a_scalar_or_a_list_of_ints(face):
    # MindSpore 2.10 refuses a 2-D or float size Tensor (TypeError); flattening or truncating it gave another shape
    for size in (np.array(3, np.int64), np.array([2, 3], np.int32)):
        assert face(Tensor(size), ms.int32).shape == tuple(np.atleast_1d(size))
    for size in (np.array([[2, 3], [4, 5]], np.int64), np.array([2.0, 3.0])):
        with pytest.raises(TypeError):
            face(Tensor(size), ms.int32)


@pytest.mark.parametrize("shape", [(-1, 3), (4, -1, 3), (1, -1, -1)])
def test_broadcast_to_minus_one_keeps_the_aligned_size(shape):
    want = np.broadcast_to(X, tuple(X.shape[i - len(shape) + X.ndim] if d == -1 else d for i, d in enumerate(shape)))
    for out in (ops.broadcast_to(Tensor(X), shape), ops.BroadcastTo(shape)(Tensor(X))):
        np.testing.assert_array_equal(out.asnumpy(), want)


@pytest.mark.parametrize("shape", [(2, -1, 2, 3), (-1, 1, -1, -1)])
def test_broadcast_to_refuses_minus_one_on_a_new_axis(shape):
    # MindSpore 2.10 raises ValueError; Kiln read a size from the wrong end of the input's shape
    with pytest.raises(ValueError):
        ops.BroadcastTo(shape)(Tensor(X))
