"""Tensor and Parameter methods installed by kiln/ops/tensor_methods.py."""

from __future__ import annotations

import numpy as np

import kiln
from kiln import Parameter, Tensor, ops
from kiln.ops import tensor_methods


def test_every_listed_method_is_the_functional_op():
    x = Tensor(np.array([[1.0, 2.0], [3.0, 4.0]], np.float32))
    for name in tensor_methods.FROM_OPS:
        assert callable(getattr(Tensor, name)), name
    np.testing.assert_allclose(x.inverse().asnumpy(), ops.inverse(x).asnumpy())
    np.testing.assert_allclose(x.mm(x).asnumpy(), x.asnumpy() @ x.asnumpy())
    assert float(x.trace().asnumpy()) == 5.0


def test_small_methods():
    x = Tensor(np.arange(6, dtype=np.float32).reshape(2, 3))
    assert x.t().shape == (3, 2) and x.swapdims(0, 1).shape == (3, 2) and x.movedim(0, 1).shape == (3, 2)
    assert x.new_full((2,), 7).dtype == kiln.float32 and x.expand((4, 2, 3)).shape == (4, 2, 3)
    assert x.type_as(Tensor(np.int32(1))).dtype == kiln.int32
    assert x.is_floating_point() and not x.is_complex() and x.is_signed()
    np.testing.assert_allclose(x.deg2rad().rad2deg().asnumpy(), x.asnumpy(), rtol=1e-6)


def test_parameter_set_dtype():
    p = Parameter(Tensor(np.array([1.5, 2.5], np.float32)), name="w")
    assert p.set_dtype(kiln.float16) is p
    assert p.dtype == kiln.float16 and p.name == "w"
    np.testing.assert_allclose(p.asnumpy(), [1.5, 2.5])
