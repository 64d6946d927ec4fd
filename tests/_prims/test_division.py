"""Division by a broadcast divisor (kiln/_prims/_division.py): in float16, Div, ReduceMean and Softmax give the
correctly rounded quotient, as MindSpore 2.10's CPU kernels do (checked there on 12,800 float32 and float16 quotients
each: all exact). XLA rewrites a division by a broadcast into a product by the rounded reciprocal: a third of the
quotients came out one ulp off. Found by tests/zoo/bgcf (its float16 attention's Softmax). float32 keeps XLA's
product (within one ulp; the exact division cost the transformer step ~10%). Against NumPy, in both modes."""

import numpy as np
import pytest

import kiln as ms
from kiln import Tensor, ops

RNG = np.random.default_rng(5)
X = RNG.uniform(0.01, 1, (400, 32))
Y = RNG.uniform(0.5, 8, (400, 1))
W = RNG.standard_normal((400, 32))
MODES = [ms.PYNATIVE_MODE, ms.GRAPH_MODE]
DTYPES = [np.float32, np.float16]


def _quotient(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """x / y in float64 rounded once to x's dtype: the correctly rounded quotient of float32 or float16 values."""
    return (x.astype(np.float64) / y.astype(np.float64)).astype(x.dtype)


CASES = {
    "ops.div by a column": (lambda x, y: ops.div(x, y), lambda x, y: _quotient(x, y)),
    "Div by a (1,) divisor": (lambda x, y: ops.Div()(x, y[:1, 0]), lambda x, y: _quotient(x, y[:1, 0])),
    "Tensor / Python float": (lambda x, y: x / 3.7, lambda x, y: _quotient(x, np.array(3.7, x.dtype))),
    "RealDiv of a row": (lambda x, y: ops.RealDiv()(y, x[:1]), lambda x, y: _quotient(y, x[:1])),
}


def _in_mode(mode, fn):
    ms.set_context(mode=mode)
    try:
        return fn()
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("case", list(CASES))
def test_division_by_a_broadcast_divisor_is_correctly_rounded(mode, dtype, case):
    op, want = CASES[case]
    x, y = X.astype(dtype), Y.astype(dtype)
    got = _in_mode(
        mode, lambda: ms.jit(op)(Tensor(x), Tensor(y)) if mode == ms.GRAPH_MODE else op(Tensor(x), Tensor(y))
    )
    if dtype == np.float16:
        np.testing.assert_array_equal(got.asnumpy(), want(x, y))
    else:
        np.testing.assert_array_max_ulp(got.asnumpy(), want(x, y), maxulp=1)


@pytest.mark.parametrize("mode", MODES)
def test_division_gradient_divides_by_the_broadcast_divisor(mode):
    x, y, w = X.astype(np.float32), Y.astype(np.float32), W.astype(np.float32)
    grad = ms.grad(lambda a: (ops.div(a, Tensor(y)) * Tensor(w)).sum())
    got = _in_mode(mode, lambda: grad(Tensor(x)))
    np.testing.assert_array_max_ulp(got.asnumpy(), _quotient(w, np.broadcast_to(y, w.shape)), maxulp=1)


@pytest.mark.parametrize("mode", MODES)
def test_reduce_mean_divides_the_sum_by_the_count(mode):
    # float16 multiples of 1/8 below 2**8: the float32 sum is exact, so the mean's roundings are the float32
    # division's and the cast to float16 (MindSpore's: a float32 mean, then the cast)
    x = (RNG.integers(-2000, 2000, (300, 7, 13)) / 8).astype(np.float16)
    got = _in_mode(mode, lambda: ops.ReduceMean()(Tensor(x), 1))
    assert got.dtype == ms.float16
    want = _quotient(x.astype(np.float64).sum(1).astype(np.float32), np.array(7.0, np.float32)).astype(np.float16)
    np.testing.assert_array_equal(got.asnumpy(), want)


def _float16_softmax(x: np.ndarray) -> np.ndarray:
    """MindSpore's float16 Softmax: exp(x - max) rounded to float16, the sum of those rounded once, the quotient
    rounded once (NumPy in float64, exact for these sums of 8 terms)."""
    shifted = (x.astype(np.float32) - x.astype(np.float32).max(-1, keepdims=True)).astype(np.float16)
    e = np.exp(shifted.astype(np.float64)).astype(np.float16)
    total = e.astype(np.float64).sum(-1, keepdims=True).astype(np.float16)
    return _quotient(e, total)


@pytest.mark.parametrize("mode", MODES)
def test_float16_softmax_divides_by_its_rounded_sum(mode):
    x = RNG.uniform(-3, 3, (500, 8)).astype(np.float16)
    got = _in_mode(mode, lambda: ops.Softmax()(Tensor(x)))
    assert got.dtype == ms.float16
    np.testing.assert_array_equal(got.asnumpy(), _float16_softmax(x))
    # the derivative keeps jax.nn.softmax's rule, y * (dy - sum(y * dy)), at these outputs
    dy = RNG.standard_normal((500, 8)).astype(np.float16)
    grad = _in_mode(
        mode, lambda: ms.grad(lambda a: (ops.Softmax()(a) * Tensor(dy)).astype(ms.float32).sum())(Tensor(x))
    )
    y = _float16_softmax(x).astype(np.float64)
    want = y * (dy - (y * dy).sum(-1, keepdims=True))
    np.testing.assert_allclose(grad.asnumpy().astype(np.float64), want, rtol=0, atol=4e-3)
