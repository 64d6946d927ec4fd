"""nn.Dense: forward against NumPy, gradients against finite differences, init bounds, errors."""

import math

import numpy as np
import pytest

import kiln as ms
from kiln import Tensor, nn, ops


def _rand(*shape, seed=0):
    return np.random.default_rng(seed).normal(size=shape).astype(np.float32)


def _set(dense, w, b=None):
    dense.weight.set_data(Tensor(w))
    if b is not None:
        dense.bias.set_data(Tensor(b))


@pytest.mark.parametrize("shape", [(5, 3), (2, 4, 3), (2, 2, 2, 3), (3,)])
def test_forward_matches_numpy(shape):
    d = nn.Dense(3, 4)
    w, b, x = _rand(4, 3), _rand(4, seed=1), _rand(*shape, seed=2)
    _set(d, w, b)
    out = d(Tensor(x))
    assert out.shape == (*shape[:-1], 4)
    np.testing.assert_allclose(out.asnumpy(), x @ w.T + b, rtol=1e-5, atol=1e-5)


def test_no_bias_and_activation():
    d = nn.Dense(3, 2, has_bias=False, activation="relu")
    assert d.bias is None and [p.name for p in d.trainable_params()] == ["weight"]
    w, x = _rand(2, 3), _rand(6, 3, seed=3)
    _set(d, w)
    np.testing.assert_allclose(d(Tensor(x)).asnumpy(), np.maximum(x @ w.T, 0), rtol=1e-5, atol=1e-6)
    t = nn.Dense(3, 2, activation=nn.Dense(2, 2, has_bias=False, weight_init="ones"))  # any Cell works
    assert t(Tensor(x)).shape == (6, 2)


def test_default_init_bounds_follow_mindspore():
    d = nn.Dense(50, 200)
    bound = 1 / math.sqrt(50)  # HeUniform(sqrt(5)) on (200, 50) and Uniform(1/sqrt(in))
    w, b = d.weight.asnumpy(), d.bias.asnumpy()
    assert w.shape == (200, 50) and b.shape == (200,)
    assert np.abs(w).max() <= bound and np.abs(w).max() > 0.9 * bound
    assert np.abs(b).max() <= bound
    assert d.weight.dtype == ms.float32


def test_explicit_inits_and_dtype():
    d = nn.Dense(2, 3, weight_init="zeros", bias_init="ones", dtype=ms.float16)
    assert d.weight.dtype == ms.float16
    np.testing.assert_array_equal(d.weight.asnumpy(), np.zeros((3, 2)))
    np.testing.assert_array_equal(d.bias.asnumpy(), np.ones(3))
    w = Tensor(_rand(3, 2))
    np.testing.assert_array_equal(nn.Dense(2, 3, weight_init=w).weight.asnumpy(), w.asnumpy())


def test_parameter_names_in_a_network():
    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.fc1 = nn.Dense(3, 4)
            self.fc2 = nn.Dense(4, 2)

        def construct(self, x):
            return self.fc2(self.fc1(x))

    assert [p.name for p in Net().trainable_params()] == ["fc1.weight", "fc1.bias", "fc2.weight", "fc2.bias"]


def test_repr():
    assert "in_channels=3, out_channels=4, has_bias=True" in repr(nn.Dense(3, 4))
    assert "activation" in nn.Dense(3, 4, activation="tanh").extend_repr()


def test_gradients_match_finite_differences():
    d = nn.Dense(3, 2, activation="tanh")
    w, b, x = _rand(2, 3), _rand(2, seed=1), _rand(4, 3, seed=2)
    _set(d, w, b)

    def loss(inp):
        return (d(inp) ** 2).sum()

    grad_fn = ms.value_and_grad(loss, grad_position=0, weights=d.trainable_params())
    _, (gx, (gw, gb)) = grad_fn(Tensor(x))

    def f(w_, b_, x_):
        return float((np.tanh(x_.astype(np.float64) @ w_.T + b_) ** 2).sum())

    eps = 1e-3
    for arr, got, idx in ((w, gw, 0), (b, gb, 1), (x, gx, 2)):
        num = np.zeros(arr.shape)
        for i in np.ndindex(arr.shape):
            args = [w.astype(np.float64), b.astype(np.float64), x.astype(np.float64)]
            plus, minus = args[idx].copy(), args[idx].copy()
            plus[i] += eps
            minus[i] -= eps
            args_p, args_m = list(args), list(args)
            args_p[idx], args_m[idx] = plus, minus
            num[i] = (f(*args_p) - f(*args_m)) / (2 * eps)
        np.testing.assert_allclose(got.asnumpy(), num, rtol=1e-3, atol=1e-3)


def test_errors():
    with pytest.raises(ValueError, match="in_channels"):
        nn.Dense(0, 2)
    with pytest.raises(ValueError, match="weight_init"):
        nn.Dense(2, 3, weight_init=Tensor(np.zeros((2, 3), np.float32)))
    with pytest.raises(ValueError, match="bias_init"):
        nn.Dense(2, 3, bias_init=Tensor(np.zeros((2,), np.float32)))
    with pytest.raises(TypeError, match="activation"):
        nn.Dense(2, 3, activation=5)
    with pytest.raises(ValueError, match=r"in_channels=3.*\[2, 5\]"):
        nn.Dense(3, 2)(Tensor(np.zeros((2, 5), np.float32)))
    with pytest.raises(TypeError, match="has_bias"):
        nn.Dense(2, 3, has_bias=1)


def test_works_with_ops_in_a_pipeline():
    d = nn.Dense(4, 3)
    x = ops.ones((2, 4), ms.float32)
    assert d(x).dtype == ms.float32
