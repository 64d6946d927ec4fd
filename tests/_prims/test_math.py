"""Elementwise primitives (kiln/_prims/math.py) where the backend's own rule differs from MindSpore's: the
derivative of abs at 0, the sign of NaN."""

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


NAN_ROW = np.array([-1.0, 0.0, np.inf, 4.0, np.nan, -np.inf], np.float32)


@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.float64])
def test_sign_of_nan_is_zero_in_every_face_but_numpy(dtype):
    # MindSpore 2.10 (ops.sign, Tensor.sign, Sign, mint.sign) and PyTorch give 0 for NaN; NumPy (and MindSpore's
    # numpy.sign) keep NaN
    x = NAN_ROW.astype(dtype)
    want = np.nan_to_num(np.sign(x), nan=0.0)
    faces = [ops.sign(Tensor(x)), Tensor(x).sign(), ops.Sign()(Tensor(x)), ms.mint.sign(Tensor(x)),
             ms.jit(ops.sign)(Tensor(x))]  # fmt: skip
    for out in faces:
        np.testing.assert_array_equal(out.asnumpy(), want)
    np.testing.assert_array_equal(ms.numpy.sign(Tensor(x)).asnumpy(), np.sign(x))
    np.testing.assert_array_equal(ops.sign(Tensor(np.array([3, -2, 0], np.int32))).asnumpy(), [1, -1, 0])
