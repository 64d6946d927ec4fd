"""MindSpore 2.10's gamma, Poisson and truncated-normal samplers (ops.gamma / Gamma, ops.random_gamma / RandomGamma,
ops.poisson / Poisson, RandomPoisson, TruncatedNormal): shapes and dtypes as MindSpore's CPU run or shape inference
gives them (Gamma and Poisson have no CPU kernel: their shape inference and documented formula pin them), moments
within statistical tolerance, seeding, errors."""

from __future__ import annotations

import math

import numpy as np
import pytest

import kiln as ms
from kiln import Tensor, ops


def _moments(x: np.ndarray, mean, var, n: int) -> None:
    """Sample mean and variance within 6 standard errors of `mean` and `var` (a false failure is vanishingly rare;
    the variance's error uses the 4th moment bound 3 var^2 + var, loose enough for these laws)."""
    mean, var = np.asarray(mean, np.float64), np.asarray(var, np.float64)
    assert (np.abs(x.mean(0) - mean) < 6 * np.sqrt(var / n) + 1e-6).all(), (x.mean(0), mean)
    assert (np.abs(x.var(0) - var) < 6 * np.sqrt((3 * var**2 + var + 6 * var**1.5) / n) + 1e-6).all(), (x.var(0), var)


def _same_draws(got, want) -> None:
    """The same stream's draws: equal but for the last bits of a float (a PyNative op compiles with the ops recorded
    around it, so its float arithmetic can contract one way in one program and another way in the next); a different
    stream's draws differ in every element."""
    np.testing.assert_allclose(got, want, rtol=2e-6, atol=1e-7)


def _shape(*sizes: int, dtype=ms.int32) -> Tensor:
    return Tensor(np.array(sizes), dtype)


# the standard normal truncated to [-2, 2]: mean 0, variance 1 - 4 phi(2) / (Phi(2) - Phi(-2))
_TRUNC_VAR = 1 - 4 * math.exp(-2) / math.sqrt(2 * math.pi) / math.erf(2 / math.sqrt(2))


@pytest.mark.parametrize("dtype", [ms.float32, ms.float16, ms.float64])
def test_truncated_normal_shape_dtype_range_and_moments(dtype):
    ms.set_seed(3)
    out = ops.TruncatedNormal(dtype)(_shape(100, 200))
    assert out.shape == (100, 200) and out.dtype == dtype
    x = out.asnumpy().astype(np.float64).reshape(-1, 1)
    assert (np.abs(x) <= 2).all()
    _moments(x, [0.0], [_TRUNC_VAR], x.shape[0])


def test_truncated_normal_seeds_and_errors():
    a, b = ops.TruncatedNormal(seed=4, seed2=5), ops.TruncatedNormal(seed=4, seed2=5)
    first = a(_shape(3, 4)).asnumpy()
    _same_draws(b(_shape(3, 4)).asnumpy(), first)
    assert not np.array_equal(a(_shape(3, 4)).asnumpy(), first)  # each call advances the instance's stream
    with pytest.raises(TypeError, match="dtype"):
        ops.TruncatedNormal(ms.int32)
    with pytest.raises(TypeError, match="shape"):
        ops.TruncatedNormal()((3, 4))
    with pytest.raises(TypeError, match="shape"):
        ops.TruncatedNormal()(Tensor(np.array([3.0, 4.0])))
    for bad in (_shape(3, 0), _shape(1001, 1000)):
        with pytest.raises(ValueError):
            ops.TruncatedNormal()(bad)


@pytest.mark.parametrize("face", ["function", "class"])
def test_random_gamma_shape_dtype_and_moments(face):
    alpha = np.array([[0.5, 3.0]], np.float32)
    draw = ops.random_gamma if face == "function" else ops.RandomGamma(seed=2)
    out = draw(_shape(20000, dtype=ms.int64), Tensor(alpha))
    assert out.shape == (20000, 1, 2) and out.dtype == ms.float32
    x = out.asnumpy().astype(np.float64).reshape(-1, 2)
    assert (x > 0).all()
    _moments(x, alpha[0], alpha[0], x.shape[0])  # Gamma(alpha, 1): mean = variance = alpha
    assert draw(_shape(2), Tensor(alpha.astype(np.float64))).dtype == ms.float64


def test_random_gamma_errors():
    alpha = Tensor(np.array([1.0], np.float32))
    with pytest.raises(TypeError, match="shape"):
        ops.random_gamma((2, 3), alpha)  # MindSpore takes the shape as a Tensor only
    with pytest.raises(TypeError, match="alpha"):
        ops.random_gamma(_shape(2), Tensor(np.array([1], np.int32)))
    with pytest.raises(ValueError):
        ops.RandomGamma()(_shape(-2), alpha)


@pytest.mark.parametrize("face", ["function", "class"])
def test_gamma_broadcasts_and_beta_is_the_scale(face):
    # MindSpore's Gamma: output shape broadcast(shape, alpha, beta); density exp(-x/beta) x^(alpha-1) / (beta^alpha
    # Gamma(alpha)) (its docstring's formula and examples), so the mean is alpha * beta and the variance alpha beta^2
    alpha, beta = np.array([[2.0], [0.5]], np.float32), np.array([1.0, 3.0], np.float32)
    draw = (lambda *a: ops.gamma(*a, seed=1)) if face == "function" else ops.Gamma(seed=1)
    out = draw((20000, 1, 1), Tensor(alpha), Tensor(beta))
    assert out.shape == (20000, 2, 2) and out.dtype == ms.float32
    x = out.asnumpy().astype(np.float64).reshape(-1, 4)
    _moments(x, (alpha * beta).reshape(-1), (alpha * beta**2).reshape(-1), x.shape[0])


def test_gamma_errors():
    a, b = Tensor(np.array([[1.0], [2.0]], np.float32)), Tensor(np.array([1.0, 2.0, 3.0], np.float32))
    with pytest.raises(ValueError):
        ops.gamma((4,), a, b)  # (2, 3) does not broadcast with (4,)
    with pytest.raises(ValueError):
        ops.Gamma()(Tensor(np.array([2])), a, b)  # the shape must be known up front
    with pytest.raises(TypeError, match="alpha"):
        ops.gamma((2,), Tensor(np.array([1.0])), b)  # float64: MindSpore's Gamma takes float32 only
    with pytest.raises(TypeError, match="shape"):
        ops.gamma((2, 0), a, b)


@pytest.mark.parametrize("face", ["function", "class"])
def test_poisson_broadcasts_int32(face):
    mean = np.array([0.5, 7.0], np.float32)
    draw = (lambda *a: ops.poisson(*a, seed=3)) if face == "function" else ops.Poisson(seed=3)
    out = draw((20000, 1), Tensor(mean))
    assert out.shape == (20000, 2) and out.dtype == ms.int32  # MindSpore's Poisson infers int32
    x = out.asnumpy().astype(np.float64)
    assert (x >= 0).all()
    _moments(x, mean, mean, x.shape[0])
    with pytest.raises(ValueError):
        draw((3,), Tensor(mean))
    with pytest.raises(TypeError, match="mean"):
        draw((2,), Tensor(np.array([1, 2], np.int32)))


def test_random_poisson_class_defaults_to_int64():
    rate = np.array([2.0, 0.25], np.float32)
    out = ops.RandomPoisson(seed=1)(_shape(20000, 1), Tensor(rate))
    assert out.shape == (20000, 1, 2) and out.dtype == ms.int64
    x = out.asnumpy().astype(np.float64).reshape(-1, 2)
    _moments(x, rate, rate, x.shape[0])
    assert ops.RandomPoisson(dtype=ms.float32)(_shape(3), Tensor(rate)).dtype == ms.float32
    with pytest.raises(TypeError, match="dtype"):
        ops.RandomPoisson(dtype=ms.bool_)
    with pytest.raises(TypeError, match="shape"):
        ops.RandomPoisson()((3,), Tensor(rate))


def test_global_seed_replays_the_unseeded_faces():
    rate = Tensor(np.array([3.0], np.float32))

    def draws():
        return [
            ops.random_gamma(_shape(4), rate).asnumpy(), ops.gamma((4,), rate, rate).asnumpy(),
            ops.poisson((4,), rate).asnumpy(), ops.TruncatedNormal()(_shape(2, 2)).asnumpy(),
            ops.RandomPoisson()(_shape(4), rate).asnumpy(),
        ]  # fmt: skip

    ms.set_seed(21)
    first = draws()
    ms.set_seed(21)
    for a, b in zip(draws(), first, strict=True):
        _same_draws(a, b)


def test_seeded_sampler_in_graph_mode_draws_as_pynative():
    """A seeded Gamma / TruncatedNormal instance's stream is graph state: GRAPH_MODE draws PyNative's sequence."""

    class Draw(ms.nn.Cell):
        def __init__(self):
            super().__init__()
            self.gamma, self.normal = ops.Gamma(seed=5, seed2=6), ops.TruncatedNormal(seed=5, seed2=6)
            self.alpha = Tensor(np.array([2.0], np.float32))
            self.shape = Tensor(np.array([3, 2], np.int32))

        def construct(self):
            return self.gamma((3, 1), self.alpha, self.alpha) * 1, self.normal(self.shape) * 1

    eager = Draw()
    expected = [t.asnumpy() for _ in range(2) for t in eager()]
    assert not np.array_equal(expected[0], expected[2])  # each call advances the streams
    compiled = Draw()
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        got = [t.asnumpy() for _ in range(2) for t in compiled()]
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    for g, e in zip(got, expected, strict=True):
        _same_draws(g, e)
