"""Initializers: fans, bounds and moments against the textbook formulas; seeding."""

import math

import numpy as np
import pytest

import kiln as ms
from kiln.common import initializer as init
from kiln.common.initializer import (
    Constant,
    HeNormal,
    HeUniform,
    Initializer,
    Normal,
    One,
    Orthogonal,
    TruncatedNormal,
    Uniform,
    VarianceScaling,
    XavierNormal,
    XavierUniform,
    Zero,
    initializer,
)


def _np(t):
    return t.asnumpy().astype(np.float64)


@pytest.mark.parametrize(
    "shape, fans",
    [((3, 4), (4, 3)), ((6, 1, 5, 5), (25, 150)), ((8, 3, 2, 3, 3), (54, 144)), ((5, 7, 2), (14, 10))],
)
def test_fan_in_fan_out(shape, fans):
    # dense (out, in): fan_in = in; conv (out, in/group, *k): fan_in = in * prod(k)
    receptive = int(np.prod(shape[2:])) if len(shape) > 2 else 1
    assert fans == (shape[1] * receptive, shape[0] * receptive)
    assert init._fan_in_and_fan_out(shape) == fans


def test_fan_needs_two_dims():
    with pytest.raises(ValueError, match="at least 2 dimensions"):
        initializer("xavier_uniform", (5,))


def test_he_uniform_conv_weight_bound():
    # LeNet5's first conv: gain sqrt(2) (leaky_relu, slope 0), fan_in 25 -> bound sqrt(6)/5 (MindSpore ~0.488 max)
    w = _np(initializer("he_uniform", (6, 1, 5, 5)))
    bound = math.sqrt(3.0) * math.sqrt(2.0) / math.sqrt(25)
    assert w.shape == (6, 1, 5, 5)
    assert np.abs(w).max() <= bound
    assert np.abs(w).max() > 0.8 * bound


def test_he_uniform_dense_default_of_dense_layer():
    # nn.Dense in MindSpore 2.x: HeUniform(negative_slope=sqrt(5)) -> bound = 1/sqrt(fan_in)
    w = _np(initializer(HeUniform(negative_slope=math.sqrt(5)), (400, 120)))
    bound = 1 / math.sqrt(120)
    assert np.abs(w).max() <= bound + 1e-7
    np.testing.assert_allclose(w.std(), bound / math.sqrt(3), rtol=0.05)


def test_uniform_stats():
    w = _np(initializer(Uniform(0.5), (200, 100)))
    assert w.min() >= -0.5 and w.max() <= 0.5
    np.testing.assert_allclose(w.mean(), 0, atol=0.01)
    np.testing.assert_allclose(w.std(), 0.5 / math.sqrt(3), rtol=0.03)


def test_normal_stats():
    w = _np(initializer(Normal(sigma=2.0, mean=1.0), (200, 100)))
    np.testing.assert_allclose(w.mean(), 1.0, atol=0.06)
    np.testing.assert_allclose(w.std(), 2.0, rtol=0.03)
    w = _np(initializer("normal", (200, 100)))
    np.testing.assert_allclose(w.std(), 0.01, rtol=0.03)


def test_xavier_and_he_std():
    shape = (64, 32, 3, 3)
    fan_in, fan_out = 32 * 9, 64 * 9
    w = _np(initializer(XavierUniform(gain=2.0), shape))
    b = 2.0 * math.sqrt(6 / (fan_in + fan_out))
    assert np.abs(w).max() <= b
    np.testing.assert_allclose(w.std(), b / math.sqrt(3), rtol=0.03)
    w = _np(initializer(XavierNormal(), shape))
    np.testing.assert_allclose(w.std(), math.sqrt(2 / (fan_in + fan_out)), rtol=0.03)
    w = _np(initializer(HeNormal(mode="fan_out", nonlinearity="relu"), shape))
    np.testing.assert_allclose(w.std(), math.sqrt(2) / math.sqrt(fan_out), rtol=0.03)
    w = _np(initializer(HeNormal(nonlinearity="tanh"), shape))
    np.testing.assert_allclose(w.std(), (5 / 3) / math.sqrt(fan_in), rtol=0.03)


def test_truncated_normal_bounds_are_absolute():
    w = _np(initializer(TruncatedNormal(sigma=1.0, a=-0.5, b=0.5), (20000,)))
    assert w.min() >= -0.5 and w.max() <= 0.5
    # std of N(0,1) truncated to [-.5, .5]: 1 - 2 * 0.5 * phi(0.5) / (2 * Phi(0.5) - 1)
    phi = math.exp(-0.125) / math.sqrt(2 * math.pi)
    z = math.erf(0.5 / math.sqrt(2))
    np.testing.assert_allclose(w.std(), math.sqrt(1 - phi / z), rtol=0.03)
    w = _np(initializer(TruncatedNormal(0.02), (100, 100)))
    np.testing.assert_allclose(w.std(), 0.02, rtol=0.05)


def test_variance_scaling():
    w = _np(initializer(VarianceScaling(2.0, "fan_avg", "uniform"), (100, 300)))
    limit = math.sqrt(3 * 2.0 / 200)
    assert np.abs(w).max() <= limit
    w = _np(initializer(VarianceScaling(1.0, "fan_in", "truncated_normal"), (100, 400)))
    np.testing.assert_allclose(w.std(), math.sqrt(1 / 400), rtol=0.05)


def test_orthogonal():
    for shape, gain in (((3, 5), 1.0), ((6, 2, 2), 2.0)):
        w = _np(initializer(Orthogonal(gain), shape)).reshape(shape[0], -1)
        small = w @ w.T if w.shape[0] <= w.shape[1] else w.T @ w
        np.testing.assert_allclose(small, gain**2 * np.eye(small.shape[0]), atol=1e-5)


@pytest.mark.parametrize("name", ["zeros", "zero", "ones", "one", "normal", "uniform", "xavier_uniform",
                                  "XavierNormal", "he_uniform", "he_normal", "truncatedNormal", "orthogonal",
                                  "identity", "variancescaling"])  # fmt: skip
def test_names(name):
    t = initializer(name, (4, 4), ms.float32)
    assert t.shape == (4, 4) and t.dtype == ms.float32


def test_constants_and_dtypes():
    np.testing.assert_array_equal(initializer("zeros", (2, 3)).asnumpy(), np.zeros((2, 3), np.float32))
    np.testing.assert_array_equal(initializer(One(), [2]).asnumpy(), np.ones(2, np.float32))
    t = initializer(2.5, 3, ms.int32)
    assert t.dtype == ms.int32
    np.testing.assert_array_equal(t.asnumpy(), [2, 2, 2])
    t = initializer(Constant(np.arange(3.0)), (2, 3), ms.float64)
    assert t.dtype == ms.float64
    np.testing.assert_array_equal(t.asnumpy(), [[0, 1, 2], [0, 1, 2]])
    assert initializer("normal", (3,), ms.float16).dtype == ms.float16
    assert initializer("normal", (3,), ms.bfloat16).dtype == ms.bfloat16
    assert initializer(Zero(), ()).shape == ()


def test_data_inputs():
    a = np.arange(6.0).reshape(2, 3)
    np.testing.assert_array_equal(initializer(a, (2, 3)).asnumpy(), a)
    t = ms.Tensor(a)
    assert initializer(t) is t
    with pytest.raises(ValueError, match="shape"):
        initializer(t, (3, 2))


def test_tensor_and_parameter_init():
    t = ms.Tensor(shape=(2, 3), dtype=ms.float32, init="ones")
    np.testing.assert_array_equal(t.asnumpy(), np.ones((2, 3)))
    p = ms.Parameter(initializer("normal", [3, 4]), name="w")
    assert p.shape == (3, 4) and p.name == "w"


def test_bad_inputs():
    with pytest.raises(TypeError, match="initializer"):
        initializer(object(), (2,))
    with pytest.raises(ValueError, match="no initializer named"):
        initializer("nope", (2,))
    with pytest.raises(ValueError, match="shape"):
        initializer("normal", (2, -1))
    with pytest.raises(ValueError, match="shape"):
        initializer(Normal())
    with pytest.raises(ValueError, match="mode"):
        HeUniform(mode="fan_mid")
    with pytest.raises(ValueError, match="nonlinearity"):
        HeUniform(nonlinearity="swish")
    with pytest.raises(ValueError, match="sigma"):
        Normal(sigma=-1)


def test_seeding_reproducible_and_successive_differ():
    ms.set_seed(7)
    a = initializer("normal", (50,)).asnumpy()
    b = initializer("normal", (50,)).asnumpy()
    ms.set_seed(7)
    c = initializer("normal", (50,)).asnumpy()
    d = initializer("normal", (50,)).asnumpy()
    assert not np.array_equal(a, b)
    np.testing.assert_array_equal(a, c)
    np.testing.assert_array_equal(b, d)
    ms.set_seed(8)
    assert not np.array_equal(initializer("normal", (50,)).asnumpy(), a)


def test_initializer_fixed_seed_and_in_place_call():
    arr = np.zeros((3, 4), np.float32)
    u = Uniform(1.0)
    u.seed = 5
    out = u(arr)
    assert out is arr and np.abs(arr).max() > 0
    again = Uniform(1.0)
    again.seed = 5
    np.testing.assert_array_equal(again(np.zeros((3, 4), np.float32)), arr)


def test_custom_initializer_subclass():
    class Twos(Initializer):
        def _initialize(self, arr):
            arr.fill(2)

    np.testing.assert_array_equal(initializer(Twos(), (2,)).asnumpy(), [2.0, 2.0])
