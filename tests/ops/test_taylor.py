"""ops.jet / ops.derivative (Taylor mode) against closed-form derivatives (NumPy)."""

from __future__ import annotations

import numpy as np
import pytest

import kiln
from kiln import Tensor, nn, ops

X = np.array([[1.0, 2.0], [3.0, 4.0]], np.float32)
Y = np.array([[0.5, 1.0], [1.5, 2.0]], np.float32)


class _ExpSin(nn.Cell):
    def construct(self, x):
        return ops.exp(ops.sin(x))


def _exp_sin_derivatives(x):
    s, c, e = np.sin(x), np.cos(x), np.exp(np.sin(x))
    return [c * e, (c**2 - s) * e, (c**3 - 3 * s * c - c) * e]


def test_jet_of_a_cell_matches_closed_form():
    series = Tensor(np.stack([np.ones_like(X), np.zeros_like(X), np.zeros_like(X)]))
    out, out_series = ops.jet(_ExpSin(), Tensor(X), series)
    np.testing.assert_allclose(out.asnumpy(), np.exp(np.sin(X)), rtol=1e-6)
    assert out_series.shape == (3, 2, 2)
    np.testing.assert_allclose(out_series.asnumpy(), np.stack(_exp_sin_derivatives(X)), rtol=1e-5, atol=1e-6)
    _, third = ops.derivative(_ExpSin(), Tensor(X), 3)
    np.testing.assert_allclose(third.asnumpy(), _exp_sin_derivatives(X)[2], rtol=1e-5, atol=1e-6)


def test_jet_of_two_inputs():
    def f(a, b):
        return a * ops.sin(b)

    ones = np.stack([np.ones_like(X), np.zeros_like(X), np.zeros_like(X)])
    _, series = ops.jet(f, (Tensor(X), Tensor(Y)), (Tensor(ones), Tensor(ones)))
    # along a(t) = X + t, b(t) = Y + t: f = (X + t) sin(Y + t)
    want = [np.sin(Y) + X * np.cos(Y), 2 * np.cos(Y) - X * np.sin(Y), -3 * np.sin(Y) - X * np.cos(Y)]
    np.testing.assert_allclose(series.asnumpy(), np.stack(want), rtol=1e-5, atol=1e-6)
    _, second = ops.derivative(f, (Tensor(X), Tensor(Y)), 2)
    np.testing.assert_allclose(second.asnumpy(), want[1], rtol=1e-5, atol=1e-6)


def test_errors():
    with pytest.raises(ValueError, match="order"):
        ops.derivative(_ExpSin(), Tensor(X), 0)
    with pytest.raises(ValueError, match="series"):
        ops.jet(_ExpSin(), Tensor(X), Tensor(np.ones((2, 3), np.float32)))


def _sin_cos(a, b):
    return ops.sin(a), ops.cos(b)


def test_a_function_of_several_outputs_gives_a_series_per_output():
    ones = np.stack([np.ones_like(X), np.zeros_like(X), np.zeros_like(X)])
    (sa, cb), (s_series, c_series) = ops.jet(_sin_cos, (Tensor(X), Tensor(Y)), (Tensor(ones), Tensor(ones)))
    np.testing.assert_allclose(sa.asnumpy(), np.sin(X), rtol=1e-6)
    np.testing.assert_allclose(cb.asnumpy(), np.cos(Y), rtol=1e-6)
    np.testing.assert_allclose(s_series.asnumpy(), np.stack([np.cos(X), -np.sin(X), -np.cos(X)]), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(c_series.asnumpy(), np.stack([-np.sin(Y), -np.cos(Y), np.sin(Y)]), rtol=1e-5, atol=1e-6)
    _, (s3, c3) = ops.derivative(_sin_cos, (Tensor(X), Tensor(Y)), 3)
    np.testing.assert_allclose(s3.asnumpy(), -np.cos(X), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(c3.asnumpy(), np.sin(Y), rtol=1e-5, atol=1e-6)


class _JetInConstruct(nn.Cell):
    def __init__(self, net, order=None):
        super().__init__()
        self.net = net
        self.order = order

    def construct(self, x, y):
        if self.order is None:
            return ops.jet(self.net, x, y)
        return ops.derivative(self.net, (x, y), self.order)


def _flat(value):
    if isinstance(value, tuple):
        return [leaf for v in value for leaf in _flat(v)]
    return [value.asnumpy()]


@pytest.mark.parametrize("how", ["graph_mode", "jit"])
def test_taylor_mode_in_graphs_matches_pynative(how):
    series = Tensor(np.stack([np.ones_like(X), np.zeros_like(X), np.zeros_like(X)]))
    cases = [(_JetInConstruct(_ExpSin()), (Tensor(X), series)), (_JetInConstruct(_sin_cos, 3), (Tensor(X), Tensor(Y)))]
    for net, args in cases:
        eager = _flat(net(*args))
        if how == "jit":
            got = _flat(kiln.jit(lambda *a, net=net: net(*a))(*args))
        else:
            kiln.set_context(mode=kiln.GRAPH_MODE)
            try:
                got = _flat(net(*args))
            finally:
                kiln.set_context(mode=kiln.PYNATIVE_MODE)
        assert len(got) == len(eager)
        for g, e in zip(got, eager, strict=True):
            np.testing.assert_allclose(g, e, rtol=1e-5, atol=1e-6)


def _tan_derivatives(x):
    t = np.tan(x)
    s = 1 + t**2  # tan' = sec^2 = 1 + tan^2
    return [s, 2 * t * s, 2 * s * (1 + 3 * t**2)]


def _atan_derivatives(x):
    d = 1 + x**2
    return [1 / d, -2 * x / d**2, (6 * x**2 - 2) / d**3]


def _asin_derivatives(x):
    r = 1 - x**2
    return [r**-0.5, x * r**-1.5, (1 + 2 * x**2) * r**-2.5]


_ELEMENTWISE = {
    "tan": (ops.tan, np.tan, _tan_derivatives),
    "atan": (ops.atan, np.arctan, _atan_derivatives),
    "asin": (ops.asin, np.arcsin, _asin_derivatives),
    "acos": (ops.acos, np.arccos, lambda x: [-d for d in _asin_derivatives(x)]),
    "exp2": (ops.exp2, np.exp2, lambda x: [np.log(2) ** k * np.exp2(x) for k in (1, 2, 3)]),
}


@pytest.mark.parametrize("mode", ["pynative", "graph"])
@pytest.mark.parametrize("name", list(_ELEMENTWISE))
def test_jet_of_tan_and_the_inverse_trigonometric_functions(name, mode):
    """The backend's Taylor mode has no rule of its own for these (MindSpore's test_jet_function_graph_mode on
    tan(exp(x)) was an internal error); their series are checked against closed forms."""
    op, value, derivatives = _ELEMENTWISE[name]
    x = np.array([0.3, -0.4, 0.1], np.float32)
    series = Tensor(np.stack([np.ones_like(x), np.zeros_like(x), np.zeros_like(x)]))
    if mode == "graph":
        kiln.set_context(mode=kiln.GRAPH_MODE)
    try:
        out, out_series = ops.jet(lambda t: op(t), Tensor(x), series)
    finally:
        kiln.set_context(mode=kiln.PYNATIVE_MODE)
    np.testing.assert_allclose(out.asnumpy(), value(x), rtol=1e-5)
    np.testing.assert_allclose(out_series.asnumpy(), np.stack(derivatives(x)), rtol=1e-4, atol=1e-5)


def test_jet_of_tan_of_exp_matches_mindspore():
    def fn(x):
        return ops.tan(ops.exp(x))

    series = Tensor([[1.0, 1.0], [0.0, 0.0], [0.0, 0.0]])
    out, out_series = ops.jet(fn, Tensor([1.0, 1.0]), series)
    np.testing.assert_allclose(out.asnumpy(), [-0.450549] * 2, atol=1e-4)
    np.testing.assert_allclose(out_series.asnumpy(), [[3.270079] * 2, [-4.739784] * 2, [56.995613] * 2], atol=1e-3)


def _gelu_tanh_second64(x, h=1e-5):
    """Central differences of the tanh GELU's float64 slope."""
    c = np.sqrt(2 / np.pi)

    def slope(z):
        t = np.tanh(c * (z + 0.044715 * z**3))
        return 0.5 * (1 + t) + 0.5 * z * (1 - t * t) * c * (1 + 3 * 0.044715 * z * z)

    return (slope(x + h) - slope(x - h)) / (2 * h)


@pytest.mark.parametrize("op", ["abs", "leaky_relu", "gelu", "softsign"])
def test_derivative_of_ops_with_a_custom_derivative_rule(op):
    # jet expands such an op's own function (JAX's JetTrace called it outside its trace: a leaked-tracer error)
    x = np.array([-3.0, -0.5, 0.25, 2.0], np.float32)
    x64 = x.astype(np.float64)
    fn, want = {
        "abs": (ops.abs, np.zeros_like(x64)),
        "leaky_relu": (lambda a: ops.leaky_relu(a, 0.2), np.zeros_like(x64)),
        "gelu": (lambda a: ops.gelu(a, approximate="tanh"), _gelu_tanh_second64(x64)),
        "softsign": (ops.softsign, -2 * np.sign(x64) / (1 + np.abs(x64)) ** 3),
    }[op]
    _, second = ops.derivative(fn, Tensor(x), 2)
    np.testing.assert_allclose(second.asnumpy(), want, rtol=1e-5, atol=1e-6)
