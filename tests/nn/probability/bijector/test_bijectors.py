"""kiln.nn.probability.bijector: forward/inverse round trips, log-Jacobians against finite differences of the
forward map (float64 NumPy), Invert, TransformedDistribution against scipy, graph mode, and error types."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

import kiln as ms
import kiln.nn.probability.bijector as msb
import kiln.nn.probability.distribution as msd
from kiln import Tensor, nn


def T(x, dtype=ms.float32):
    return Tensor(np.asarray(x, np.float32), dtype)


CASES = [
    (msb.Exp(), np.exp, [-1.0, 0.0, 1.5]),
    (msb.PowerTransform(0.5), lambda x: (1 + 0.5 * x) ** 2.0, [-1.0, 0.0, 1.5]),
    (msb.PowerTransform(0.0), np.exp, [-1.0, 0.5]),
    (msb.ScalarAffine(-2.0, 1.0), lambda x: -2.0 * x + 1.0, [-1.0, 0.0, 1.5]),
    (msb.Softplus(2.0), lambda x: np.log1p(np.exp(2.0 * x)) / 2.0, [-2.0, 0.0, 1.5]),
    (msb.GumbelCDF(1.0, 2.0), lambda x: np.exp(-np.exp(-(x - 1.0) / 2.0)), [-1.0, 1.0, 3.0]),
]


@pytest.mark.parametrize("b,fwd,xs", CASES, ids=[c[0].name + str(i) for i, c in enumerate(CASES)])
def test_bijector_against_numpy(b, fwd, xs):
    x = np.array(xs, np.float64)
    y = b.forward(T(xs)).asnumpy()
    np.testing.assert_allclose(y, fwd(x), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(b.inverse(T(y)).asnumpy(), x, rtol=1e-4, atol=1e-5)
    h = 1e-6
    dydx = (fwd(x + h) - fwd(x - h)) / (2 * h)
    np.testing.assert_allclose(b.forward_log_jacobian(T(xs)).asnumpy(), np.log(np.abs(dydx)), rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(b.inverse_log_jacobian(T(y)).asnumpy(), -np.log(np.abs(dydx)), rtol=1e-3, atol=1e-4)


def test_invert():
    b = msb.Invert(msb.ScalarAffine(2.0, 1.0))
    assert b.name == "InvertScalarAffine"
    x = T([2.0, 3.0])
    np.testing.assert_allclose(b.forward(x).asnumpy(), [0.5, 1.0])
    np.testing.assert_allclose(b.inverse(x).asnumpy(), [5.0, 7.0])
    np.testing.assert_allclose(b.forward_log_jacobian(x).asnumpy(), [-math.log(2)] * 2, rtol=1e-6)
    np.testing.assert_allclose(b("inverse_log_jacobian", x).asnumpy(), [math.log(2)] * 2, rtol=1e-6)


def test_transformed_distribution_against_scipy():
    d = msd.TransformedDistribution(msb.Exp(), msd.Normal(0.3, 0.8))
    xs = [0.2, 1.0, 2.5]
    ref = stats.lognorm(0.8, scale=math.exp(0.3))
    np.testing.assert_allclose(d.log_prob(T(xs)).asnumpy(), ref.logpdf(xs), rtol=1e-5)
    np.testing.assert_allclose(d.cdf(T(xs)).asnumpy(), ref.cdf(xs), rtol=1e-5)
    s = d.sample((4, 2))
    assert s.shape == (4, 2) and np.all(s.asnumpy() > 0)
    a = msd.TransformedDistribution(msb.ScalarAffine(2.0, 1.0), msd.Normal(0.5, 1.0))
    np.testing.assert_allclose(a.mean().asnumpy(), 2.0)
    np.testing.assert_allclose(a.prob(T([1.0])).asnumpy(), stats.norm(2.0, 2.0).pdf([1.0]), rtol=1e-5)


class _Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.inv = msb.Invert(msb.Exp())
        self.sa = msb.ScalarAffine(2.0, 1.0)
        self.sp = msb.Softplus()

    def construct(self, x):
        out = self.inv.inverse(x) + self.inv.forward_log_jacobian(x) + self.sa("forward", x)
        return out + self.sp.inverse_log_jacobian(x) + self.sp.forward(x)


def test_graph_mode_matches_pynative():
    x = T([2.0, 3.0, 4.0])
    eager = _Net()(x).asnumpy()
    ms.set_context(mode=ms.GRAPH_MODE)
    np.testing.assert_allclose(_Net()(x).asnumpy(), eager, rtol=1e-6)


def test_gradients():
    def f(x):
        return msb.Softplus(1.5).forward(x).sum()

    x = np.array([-1.0, 0.5], np.float32)
    np.testing.assert_allclose(ms.grad(f)(T(x)).asnumpy(), 1 / (1 + np.exp(-1.5 * x)), rtol=1e-5)


@pytest.mark.parametrize(
    "make,err",
    [
        (lambda: msb.Exp(name=0.1), TypeError),
        (lambda: msb.PowerTransform(power="p"), TypeError),
        (lambda: msb.PowerTransform(power=1), TypeError),
        (lambda: msb.PowerTransform(power=-1.0), ValueError),
        (lambda: msb.ScalarAffine(scale="s"), TypeError),
        (lambda: msb.GumbelCDF(scale=0.0), ValueError),
        (lambda: msb.Invert(0.1), TypeError),
        (lambda: msb.Exp().forward(1.0), TypeError),
        (lambda: msb.Exp().forward(Tensor(np.array([1], np.int32))), TypeError),
    ],
)
def test_bad_arguments(make, err):
    with pytest.raises(err):
        make()


class _LogNormalNet(nn.Cell):
    def __init__(self):
        super().__init__()
        self.d = msb.Exp()(msd.Normal(0.3, 0.8))  # calling a bijector on a distribution transforms it

    def construct(self, x, mean, sd):
        return self.d.log_prob(x) + self.d("cdf", x, mean, sd)


def test_transformed_distribution_in_graph_mode():
    assert isinstance(msb.Exp()(msd.Normal(0.0, 1.0)), msd.TransformedDistribution)
    args = (T([0.2, 1.0, 2.5]), T([0.0]), T([1.0]))
    eager = _LogNormalNet()(*args).asnumpy()
    ref = stats.lognorm(0.8, scale=math.exp(0.3)).logpdf(args[0].asnumpy()) + stats.lognorm(1.0).cdf([0.2, 1.0, 2.5])
    np.testing.assert_allclose(eager, ref, rtol=1e-5)
    ms.set_context(mode=ms.GRAPH_MODE)
    np.testing.assert_allclose(_LogNormalNet()(*args).asnumpy(), eager, rtol=1e-6)
