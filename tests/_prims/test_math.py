"""Derivatives of the elementwise primitives (kiln/_prims/math.py) where the backend's own rule differs from
MindSpore's: abs at 0."""

import numpy as np
import pytest

import kiln as ms
from kiln import Tensor, ops

X = np.array([-2.0, 0.0, 3.0], np.float32)


def _abs_sum(x):
    return ops.abs(x).sum()


@pytest.mark.parametrize(
    "grad_fn",
    [ms.grad(_abs_sum), ms.jit(ms.grad(_abs_sum)), ms.grad(ms.jit(_abs_sum))],
    ids=["grad", "jit(grad)", "grad(jit)"],
)
def test_abs_gradient_is_the_sign_and_zero_at_zero(grad_fn):
    # MindSpore 2.10 and PyTorch give 0 at 0 (the backend's rule gives 1); elsewhere it is the sign
    np.testing.assert_array_equal(grad_fn(Tensor(X)).asnumpy(), np.sign(X))


def test_abs_second_derivative_through_its_rule():
    # d/dx d/dy (|y| * y) at x = 2 * sign(x)
    second = ms.grad(lambda x: ms.grad(lambda y: (ops.abs(y) * y).sum())(x).sum())(Tensor(X))
    np.testing.assert_array_equal(second.asnumpy(), 2 * np.sign(X))


def test_abs_of_integers_and_complex_numbers_keeps_its_values():
    np.testing.assert_array_equal(ops.abs(Tensor(np.array([-2, 3], np.int32))).asnumpy(), [2, 3])
    np.testing.assert_allclose(ops.abs(Tensor(np.array([3 + 4j], np.complex64))).asnumpy(), [5.0])
