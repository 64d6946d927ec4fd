"""Elementwise primitives (kiln/_prims/math.py) where the backend's own rule differs from MindSpore's: the
derivative of abs at 0, the sign of NaN, the derivatives of clipping and piecewise activations at their kinks."""

import json
import os

import numpy as np
import pytest

import kiln
import kiln as ms
from kiln import Tensor, ops
from tests._prims import kink_derivative_cases

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


def test_kink_derivatives_match_mindspore():
    # Clamp/clip, ReLU6, HSwish and LeakyReLU with inputs exactly on their kinks, PyNative and GRAPH_MODE, against
    # MindSpore 2.10 (goldens: make_kink_derivative_goldens_mindspore.py, cases: kink_derivative_cases.py). Kiln
    # shared a clamp bound's tie (0.5) where MindSpore gives x the whole gradient, gave ReLU6 0 at 6 (MindSpore 1),
    # HSwish 0 and 1 at -3 and 3 (MindSpore -0.5 and 1.5), LeakyReLU 1 at 0 (MindSpore (1 + alpha) / 2), and L1Loss
    # at its target and the 1-norm at a zero 1 (MindSpore 0, the sign).
    with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "kink_derivative_goldens_mindspore.json")) as f:
        want = json.load(f)["cases"]
    got = kink_derivative_cases.run(kiln)
    assert sorted(got) == sorted(want)
    for case, grads in want.items():
        assert len(got[case]) == len(grads), case
        for g, w in zip(got[case], grads, strict=True):
            np.testing.assert_allclose(np.array(g), np.array(w), rtol=1e-6, atol=0, err_msg=case)
