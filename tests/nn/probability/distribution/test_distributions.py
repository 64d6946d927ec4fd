"""kiln.nn.probability.distribution against scipy.stats: densities, CDFs, moments, entropies, KL divergences,
sampling (fixed seeds, tolerances from the standard error), gradients of log_prob, graph mode vs PyNative, and
MindSpore 2.10's error types for bad parameters."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import integrate, special, stats

import kiln as ms
import kiln.nn.probability.distribution as msd
from kiln import Tensor, nn

F32 = dict(rtol=2e-5, atol=2e-6)


def T(x, dtype=ms.float32):
    return Tensor(np.asarray(x, np.float32 if dtype == ms.float32 else np.int32), dtype)


# (kiln distribution, scipy frozen distribution, test points)
CONT = [
    (lambda: msd.Normal(1.5, 2.0), stats.norm(1.5, 2.0), [-3.0, 0.0, 1.5, 4.0]),
    (lambda: msd.LogNormal(0.3, 0.8), stats.lognorm(0.8, scale=math.exp(0.3)), [0.2, 1.0, 2.5]),
    (lambda: msd.Exponential([2.0]), stats.expon(scale=0.5), [0.0, 0.3, 2.0]),
    (lambda: msd.Uniform(-1.0, 3.0), stats.uniform(-1.0, 4.0), [-0.5, 0.0, 2.9]),
    (lambda: msd.Cauchy(0.5, 1.5), stats.cauchy(0.5, 1.5), [-4.0, 0.5, 3.0]),
    (lambda: msd.Logistic(1.0, 2.0), stats.logistic(1.0, 2.0), [-3.0, 0.5, 4.0]),
    (lambda: msd.Gumbel(1.0, 2.0), stats.gumbel_r(1.0, 2.0), [-2.0, 0.5, 6.0]),
    (lambda: msd.Gamma([2.5], [1.5]), stats.gamma(2.5, scale=1 / 1.5), [0.2, 1.0, 4.0]),
    (lambda: msd.Beta([2.0], [3.5]), stats.beta(2.0, 3.5), [0.1, 0.5, 0.9]),
    (lambda: msd.HalfNormal(0.0, 1.5), stats.halfnorm(0.0, 1.5), [0.1, 1.0, 3.0]),
    (lambda: msd.Laplace(0.5, 2.0), stats.laplace(0.5, 2.0), [-3.0, 0.5, 2.0]),
    (lambda: msd.StudentT([5.0], [1.0], [2.0]), stats.t(5.0, 1.0, 2.0), [-3.0, 1.0, 2.5]),
]
IDS = [type(c[0]()).__name__ for c in CONT]


@pytest.mark.parametrize("make,ref,xs", CONT, ids=IDS)
def test_continuous_against_scipy(make, ref, xs):
    d = make()
    x = T(xs)
    np.testing.assert_allclose(d.log_prob(x).asnumpy(), ref.logpdf(xs), rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(d.prob(x).asnumpy(), ref.pdf(xs), rtol=1e-4, atol=1e-6)
    if type(d).__name__ not in ("Beta", "StudentT"):
        np.testing.assert_allclose(d.cdf(x).asnumpy(), ref.cdf(xs), rtol=1e-4, atol=1e-6)
        np.testing.assert_allclose(d.survival_function(x).asnumpy(), ref.sf(xs), rtol=1e-4, atol=1e-6)
        np.testing.assert_allclose(d.log_cdf(x).asnumpy(), ref.logcdf(xs), rtol=1e-4, atol=1e-5)
        np.testing.assert_allclose(d.log_survival(x).asnumpy(), ref.logsf(xs), rtol=1e-4, atol=1e-5)
    if type(d).__name__ != "Cauchy":
        np.testing.assert_allclose(d.mean().asnumpy(), ref.mean(), rtol=1e-5)
        np.testing.assert_allclose(d.var().asnumpy(), ref.var(), rtol=1e-5)
        np.testing.assert_allclose(d.sd().asnumpy(), ref.std(), rtol=1e-5)
    if type(d).__name__ != "StudentT":
        np.testing.assert_allclose(d.entropy().asnumpy(), ref.entropy(), rtol=1e-5, atol=1e-6)


def test_out_of_support():
    np.testing.assert_array_equal(msd.Exponential([2.0]).prob(T([-1.0])).asnumpy(), [0.0])
    np.testing.assert_array_equal(msd.Exponential([2.0]).cdf(T([-1.0])).asnumpy(), [0.0])
    np.testing.assert_array_equal(msd.Uniform(0.0, 2.0).prob(T([-1.0, 3.0])).asnumpy(), [0.0, 0.0])
    np.testing.assert_array_equal(msd.Uniform(0.0, 2.0).cdf(T([-1.0, 3.0])).asnumpy(), [0.0, 1.0])
    assert msd.Gamma([2.0], [1.0]).log_prob(T([-1.0])).asnumpy()[0] == -np.inf
    assert msd.Beta([2.0], [2.0]).log_prob(T([1.5])).asnumpy()[0] == -np.inf
    assert msd.LogNormal(0.0, 1.0).prob(T([-1.0])).asnumpy()[0] == 0.0
    # far in the tail: log_cdf stays finite where cdf underflows
    np.testing.assert_allclose(msd.Normal(0.0, 1.0).log_cdf(T([-20.0])).asnumpy(), stats.norm.logcdf(-20.0), rtol=1e-5)


DISC = [
    (lambda: msd.Bernoulli(0.3), stats.bernoulli(0.3), [0, 1], [-1.0, 0.0, 0.5, 1.0, 2.0]),
    (lambda: msd.Geometric(0.3), stats.geom(0.3, loc=-1), [0, 1, 4], [-1.0, 0.0, 1.5, 4.0]),
    (lambda: msd.Poisson([2.5]), stats.poisson(2.5), [0, 1, 2, 7], [-1.0, 0.0, 1.5, 7.0]),
]


@pytest.mark.parametrize("make,ref,ks,xs", DISC, ids=["Bernoulli", "Geometric", "Poisson"])
def test_discrete_against_scipy(make, ref, ks, xs):
    d = make()
    np.testing.assert_allclose(d.prob(T(ks, ms.int32)).asnumpy(), ref.pmf(ks), rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(d.log_prob(T(ks)).asnumpy(), ref.logpmf(ks), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(d.cdf(T(xs)).asnumpy(), ref.cdf(xs), rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(d.mean().asnumpy(), ref.mean(), rtol=1e-5)
    np.testing.assert_allclose(d.var().asnumpy(), ref.var(), rtol=1e-5)
    if type(d).__name__ != "Poisson":
        np.testing.assert_allclose(d.entropy().asnumpy(), ref.entropy(), rtol=1e-5)


def test_categorical():
    p = np.array([[0.2, 0.3, 0.5], [0.6, 0.1, 0.3]], np.float32)
    d = msd.Categorical(p)
    assert d.batch_shape == (2,)
    k = np.array([2, 1])
    np.testing.assert_allclose(d.prob(T(k, ms.int32)).asnumpy(), p[[0, 1], k], rtol=1e-6)
    np.testing.assert_allclose(d.cdf(T([0, 1], ms.int32)).asnumpy(), [0.2, 0.7], rtol=1e-6)
    np.testing.assert_allclose(d.mean().asnumpy(), p @ np.arange(3), rtol=1e-6)
    np.testing.assert_allclose(d.entropy().asnumpy(), [stats.entropy(r) for r in p], rtol=1e-6)
    np.testing.assert_array_equal(d.mode().asnumpy(), [2, 0])
    q = np.array([0.4, 0.4, 0.2], np.float32)
    np.testing.assert_allclose(d.kl_loss("Categorical", T(q)).asnumpy(), [stats.entropy(r, q) for r in p], rtol=1e-5)
    s = msd.Categorical([0.2, 0.3, 0.5], seed=3).sample((20000,)).asnumpy()
    assert s.dtype == np.int32 and s.shape == (20000,)
    freq = np.bincount(s, minlength=3) / s.size
    assert np.all(np.abs(freq - [0.2, 0.3, 0.5]) < 5 * np.sqrt(0.25 / s.size))


def _kl_quad(p, q, lo, hi):
    return integrate.quad(lambda x: p.pdf(x) * (p.logpdf(x) - q.logpdf(x)), lo, hi, limit=200)[0]


_LN_B = stats.lognorm(2.0, scale=math.exp(0.5))
KL = [
    (msd.Normal(0.5, 1.5), ("Normal", [1.0], [2.0]), stats.norm(0.5, 1.5), stats.norm(1.0, 2.0), -30, 30),
    (msd.Exponential([2.0]), ("Exponential", [0.5]), stats.expon(scale=0.5), stats.expon(scale=2.0), 0, 60),
    (msd.Uniform(0.0, 1.0), ("Uniform", [-1.0], [3.0]), stats.uniform(0, 1), stats.uniform(-1, 4), 0, 1),
    (msd.Cauchy(0.0, 1.0), ("Cauchy", [1.0], [2.0]), stats.cauchy(0, 1), stats.cauchy(1, 2), -np.inf, np.inf),
    (msd.Gumbel(1.0, 2.0), ("Gumbel", [1.5], [3.0]), stats.gumbel_r(1, 2), stats.gumbel_r(1.5, 3), -20, 80),
    (msd.Gamma([2.0], [3.0]), ("Gamma", [1.5], [1.0]), stats.gamma(2, scale=1 / 3), stats.gamma(1.5), 0, 40),
    (msd.Beta([2.0], [3.0]), ("Beta", [1.5], [1.5]), stats.beta(2, 3), stats.beta(1.5, 1.5), 0, 1),
    (msd.LogNormal(0.0, 1.0), ("LogNormal", [0.5], [2.0]), stats.lognorm(1.0), _LN_B, 0, np.inf),
]


@pytest.mark.parametrize("d,args,p,q,lo,hi", KL, ids=[k[1][0] for k in KL])
def test_kl_and_cross_entropy_against_quadrature(d, args, p, q, lo, hi):
    name, *params = args
    kl = d.kl_loss(name, *[T(v) for v in params]).asnumpy()
    np.testing.assert_allclose(kl, _kl_quad(p, q, lo, hi), rtol=2e-4, atol=2e-6)
    ce = d.cross_entropy(name, *[T(v) for v in params]).asnumpy()
    np.testing.assert_allclose(ce, _kl_quad(p, q, lo, hi) + p.entropy(), rtol=2e-4, atol=2e-6)


def test_discrete_kl():
    pa, pb = 0.3, 0.6
    kl_b = pa * math.log(pa / pb) + (1 - pa) * math.log((1 - pa) / (1 - pb))
    np.testing.assert_allclose(msd.Bernoulli(pa).kl_loss("Bernoulli", T([pb])).asnumpy(), [kl_b], rtol=1e-5)
    ks = np.arange(200)
    ga, gb = stats.geom(pa, loc=-1), stats.geom(pb, loc=-1)
    kl_g = np.sum(ga.pmf(ks) * (ga.logpmf(ks) - gb.logpmf(ks)))
    np.testing.assert_allclose(msd.Geometric(pa).kl_loss("Geometric", T([pb])).asnumpy(), [kl_g], rtol=1e-5)


SAMPLES = [
    (msd.Normal(1.0, 2.0, seed=5), 1.0, 2.0),
    (msd.Exponential([2.0], seed=5), 0.5, 0.5),
    (msd.Uniform(-1.0, 3.0, seed=5), 1.0, 4 / math.sqrt(12)),
    (msd.Logistic(1.0, 0.5, seed=5), 1.0, 0.5 * math.pi / math.sqrt(3)),
    (msd.Gumbel(1.0, 2.0, seed=5), 1.0 + 2.0 * np.euler_gamma, 2.0 * math.pi / math.sqrt(6)),
    (msd.Gamma([0.7], [2.0], seed=5), 0.35, math.sqrt(0.7) / 2.0),
    (msd.Beta([2.0], [3.0], seed=5), 0.4, 0.2),
    (msd.LogNormal(0.0, 0.5, seed=5), math.exp(0.125), math.sqrt((math.exp(0.25) - 1) * math.exp(0.25))),
    (msd.Bernoulli(0.3, seed=5), 0.3, math.sqrt(0.21)),
    (msd.Geometric(0.4, seed=5), 1.5, math.sqrt(0.6) / 0.4),
    (msd.Poisson([3.0], seed=5), 3.0, math.sqrt(3.0)),
    (msd.Laplace(0.5, 1.0, seed=5), 0.5, math.sqrt(2.0)),
]


@pytest.mark.parametrize("d,mean,sd", SAMPLES, ids=[type(s[0]).__name__ for s in SAMPLES])
def test_sample_moments(d, mean, sd):
    n = 20000
    s = d.sample((n,)).asnumpy().astype(np.float64)
    assert s.shape[0] == n
    # the sample mean is within 5 standard errors; the sample sd within 10% (all these have finite 4th moments)
    assert abs(s.mean() - mean) < 5 * sd / math.sqrt(n)
    assert abs(s.std() - sd) < 0.1 * sd


def test_sample_shapes_and_dtypes():
    n = msd.Normal(np.zeros((2, 1), np.float32), np.ones(3, np.float32))
    assert n.batch_shape == (2, 3)
    assert n.sample().shape == (2, 3)
    assert n.sample((4, 5)).shape == (4, 5, 2, 3)
    assert msd.Normal().sample((2,), T([0.0, 1.0, 2.0]), T([1.0])).shape == (2, 3)
    assert msd.Bernoulli(0.5).sample((3,)).dtype == ms.int32
    assert msd.Bernoulli(0.5, dtype=ms.float32).sample((3,)).dtype == ms.float32
    assert msd.Poisson([1.0]).sample((3,)).dtype == ms.float32
    assert msd.Cauchy(0.0, 1.0).sample((3,)).shape == (3,)
    ms.set_seed(3)
    a = msd.Normal(0.0, 1.0).sample((5,)).asnumpy()
    ms.set_seed(3)
    np.testing.assert_array_equal(msd.Normal(0.0, 1.0).sample((5,)).asnumpy(), a)  # the global generator replays


def test_per_call_parameters_and_broadcasting():
    d = msd.Normal()
    x = T([0.5, 1.0])
    out = d.log_prob(x, T([[0.0], [1.0]]), T([1.0, 2.0]))
    ref = stats.norm(np.array([[0.0], [1.0]]), np.array([1.0, 2.0])).logpdf(np.array([0.5, 1.0]))
    np.testing.assert_allclose(out.asnumpy(), ref, rtol=1e-5)
    d2 = msd.Normal(3.0, 4.0)
    np.testing.assert_allclose(d2.prob(x, T([0.0])).asnumpy(), stats.norm(0.0, 4.0).pdf([0.5, 1.0]), rtol=1e-5)
    np.testing.assert_allclose(d2.prob(x, sd=T([1.0])).asnumpy(), stats.norm(3.0, 1.0).pdf([0.5, 1.0]), rtol=1e-5)
    assert d2("prob", x).shape == (2,)
    mean, sd = d2.get_dist_args()
    assert float(mean.asnumpy()) == 3.0 and float(sd.asnumpy()) == 4.0
    assert d2.get_dist_type() == "Normal"


def test_log_prob_gradients():
    x = T([0.5, -1.0, 2.0])

    def f(mean, sd):
        return msd.Normal().log_prob(x, mean, sd).sum()

    m, s = 0.3, 1.7
    gm, gs = ms.grad(f, grad_position=(0, 1))(T(m), T(s))
    xs = np.array([0.5, -1.0, 2.0])
    np.testing.assert_allclose(gm.asnumpy(), np.sum((xs - m) / s**2), rtol=1e-5)
    np.testing.assert_allclose(gs.asnumpy(), np.sum((xs - m) ** 2 / s**3 - 1 / s), rtol=1e-5)

    def g(a, b):
        return msd.Gamma().log_prob(x[2:], a, b).sum()

    ga, gb = ms.grad(g, grad_position=(0, 1))(T([2.5]), T([1.5]))
    np.testing.assert_allclose(ga.asnumpy(), [math.log(1.5) + math.log(2.0) - special.digamma(2.5)], rtol=1e-5)
    np.testing.assert_allclose(gb.asnumpy(), [2.5 / 1.5 - 2.0], rtol=1e-5)

    def h(p):
        return msd.Bernoulli().log_prob(T([1.0, 0.0, 1.0]), p).sum()

    np.testing.assert_allclose(ms.grad(h)(T([0.4])).asnumpy(), [2 / 0.4 - 1 / 0.6], rtol=1e-5)


def test_reparameterised_sample_gradient():
    def f(mean, sd):
        return msd.Normal(seed=1).sample((1000,), mean, sd).mean()

    gm, gs = ms.grad(f, grad_position=(0, 1))(T([0.0]), T([1.0]))
    np.testing.assert_allclose(gm.asnumpy(), [1.0], rtol=1e-5)
    assert abs(float(gs.asnumpy()[0])) < 0.2  # the mean of 1000 standard normals


class _Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.n = msd.Normal(3.0, 4.0)
        self.n1 = msd.Normal()
        self.g = msd.Gamma([2.0], [3.0])
        self.b = msd.Bernoulli(0.3)
        self.c = msd.Categorical([0.2, 0.8])

    def construct(self, x, mean, sd):
        out = self.n.prob(x) + self.n.log_cdf(x) + self.n1.log_survival(x, mean, sd) + self.n("prob", x, mean, sd)
        out = out + self.n.kl_loss("Normal", mean, sd) + self.n1.cross_entropy("Normal", mean, sd, mean, sd)
        out = out + self.n.mean() + self.n.entropy() + self.g.cdf(x) + self.g.entropy()
        out = out + self.b.prob(x) + self.b.entropy() + self.c.prob(ms.ops.cast(x, ms.int32))
        return out


def test_graph_mode_matches_pynative():
    args = (T([0.5, 1.0]), T([0.0]), T([1.0]))
    eager = _Net()(*args).asnumpy()
    ms.set_context(mode=ms.GRAPH_MODE)
    graph = _Net()(*args).asnumpy()
    np.testing.assert_allclose(graph, eager, rtol=1e-5)


class _Missing(nn.Cell):
    def __init__(self):
        super().__init__()
        self.n = msd.Normal()

    def construct(self, x):
        return self.n.prob(x)


@pytest.mark.parametrize("mode", [ms.PYNATIVE_MODE, ms.GRAPH_MODE])
def test_missing_parameter_is_type_error(mode):
    ms.set_context(mode=mode)
    with pytest.raises(TypeError):
        _Missing()(T([1.0]))


@pytest.mark.parametrize(
    "make,err",
    [
        (lambda: msd.Normal(0.0, 0.0), ValueError),
        (lambda: msd.Normal(0.0, 1.0, dtype=ms.int32), TypeError),
        (lambda: msd.Normal(0.0, 1.0, seed=-1), ValueError),
        (lambda: msd.Normal(0.0, 1.0, seed="s"), TypeError),
        (lambda: msd.Normal(0.0, 1.0, name=1), TypeError),
        (lambda: msd.Normal([[2.0], [1.0]], [[2.0], [3.0], [4.0]]), ValueError),
        (lambda: msd.Gamma(3.0, [4.0]), TypeError),
        (lambda: msd.Poisson(0.5), TypeError),
        (lambda: msd.Uniform(1.0, 0.0), ValueError),
        (lambda: msd.Bernoulli([1.0]), ValueError),
        (lambda: msd.Bernoulli([0.5], dtype=ms.bool_), TypeError),
        (lambda: msd.Categorical([0.5, 0.7]), ValueError),
        (lambda: msd.Categorical(0.5), ValueError),
        (lambda: msd.Normal(0.0, 1.0).prob(1.0), TypeError),
        (lambda: msd.Normal(0.0, 1.0).kl_loss("Gamma", T([1.0]), T([1.0])), ValueError),
        (lambda: msd.Cauchy(0.0, 1.0).mean(), ValueError),
    ],
)
def test_bad_parameters(make, err):
    with pytest.raises(err):
        make()


def test_set_param_type():
    from kiln.nn.probability.distribution._utils.utils import set_param_type

    f16, f32, f64 = (Tensor(np.float32(0.1), t) for t in (ms.float16, ms.float32, ms.float64))
    assert set_param_type({"a": f32, "b": 1.0}, ms.float16) == ms.float32
    assert set_param_type({"a": f16}, ms.float32) == ms.float16
    assert set_param_type({"a": f64}, ms.float32) == ms.float32
    assert set_param_type({"a": 1.0}, ms.float64) == ms.float64
    with pytest.raises(TypeError):
        set_param_type({"a": f32, "b": f64}, ms.float32)


class _Trainable(nn.Cell):
    def __init__(self):
        super().__init__()
        self.m = ms.Parameter(T([0.0]), name="m")
        self.d = msd.Normal(self.m, 1.0)

    def construct(self, x):
        return -self.d.log_prob(x).mean()


@pytest.mark.parametrize("mode", [ms.PYNATIVE_MODE, ms.GRAPH_MODE])
def test_parameter_as_default_is_trained(mode):
    ms.set_context(mode=mode)
    net = _Trainable()
    assert len(net.trainable_params()) == 1
    step = nn.TrainOneStepCell(net, nn.SGD(net.trainable_params(), 0.5))
    for _ in range(3):
        step(T([2.0, 4.0]))
    # d/dm of the mean NLL is (m - 3): SGD with lr 0.5 halves the distance to 3 each step
    np.testing.assert_allclose(net.m.asnumpy(), [2.625], rtol=1e-6)


class _MyExp(msd.Distribution):
    def __init__(self, rate=None, seed=None, dtype=ms.float32, name="MyExp"):
        param = dict(locals())
        param["param_dict"] = {"rate": rate}
        super().__init__(seed, dtype, name, param)
        self._rate = self._add_parameter(rate, "rate")

    def _log_prob(self, value, rate=None):
        value = self.checktensor(value, "value")
        rate = self._check_param_type(rate)
        return ms.ops.log(rate) - rate * value


class _MyNet(nn.Cell):
    def __init__(self):
        super().__init__()
        self.d = _MyExp([2.0])

    def construct(self, x):
        return self.d.prob(x)


@pytest.mark.parametrize("mode", [ms.PYNATIVE_MODE, ms.GRAPH_MODE])
def test_subclass_derived_methods(mode):
    ms.set_context(mode=mode)
    np.testing.assert_allclose(_MyNet()(T([0.5])).asnumpy(), stats.expon(scale=0.5).pdf([0.5]), rtol=1e-6)
    with pytest.raises(NotImplementedError):
        _MyExp([2.0]).cdf(T([0.5]))
    with pytest.raises(NotImplementedError):
        _MyExp([2.0]).sample()


class _ExpFromLogSurvival(_MyExp):
    """Exponential(rate) giving only log S(x) and the variance: the rest is derived by the base class."""

    def _log_survival(self, value, rate=None):
        return -self._check_param_type(rate) * self.checktensor(value, "value")

    def _var(self, rate=None):
        return 1.0 / ms.ops.square(self._check_param_type(rate))


class _ExpFromSurvival(_MyExp):
    """Exponential(rate) giving only S(x) and the variance."""

    def _survival_function(self, value, rate=None):
        return ms.ops.exp(-self._check_param_type(rate) * self.checktensor(value, "value"))

    _var = _ExpFromLogSurvival._var


class _ExpFromCdf(_MyExp):
    """Exponential(rate) giving only F(x) and the standard deviation."""

    def _cdf(self, value, rate=None):
        return 1.0 - ms.ops.exp(-self._check_param_type(rate) * self.checktensor(value, "value"))

    def _sd(self, rate=None):
        return 1.0 / self._check_param_type(rate)


class _ExpFromLogCdf(_MyExp):
    """Exponential(rate) giving only log F(x) and the standard deviation."""

    def _log_cdf(self, value, rate=None):
        return ms.ops.log1p(-ms.ops.exp(-self._check_param_type(rate) * self.checktensor(value, "value")))

    _sd = _ExpFromCdf._sd


class _DerivedNet(nn.Cell):
    def __init__(self, dist):
        super().__init__()
        self.d = dist

    def construct(self, x):
        d = self.d
        return d.cdf(x), d.log_cdf(x), d.survival_function(x), d.log_survival(x), d.sd(), d.var()


@pytest.mark.parametrize("mode", [ms.PYNATIVE_MODE, ms.GRAPH_MODE])
@pytest.mark.parametrize("cls", [_ExpFromSurvival, _ExpFromLogSurvival, _ExpFromCdf, _ExpFromLogCdf])
def test_subclass_derives_cdf_survival_and_moments(mode, cls):
    ms.set_context(mode=mode)
    x = np.array([0.25, 1.0, 2.5])
    ref = stats.expon(scale=0.5)
    got = [o.asnumpy() for o in _DerivedNet(cls([2.0]))(T(x))]
    want = [ref.cdf(x), ref.logcdf(x), ref.sf(x), ref.logsf(x), [ref.std()], [ref.var()]]
    for g, w in zip(got, want, strict=True):
        np.testing.assert_allclose(g, w, rtol=1e-5)


@pytest.mark.parametrize("dt", [ms.float16, ms.float64])
def test_dtypes(dt):
    n = msd.Normal(0.0, 1.0, dtype=dt)
    x = Tensor(np.array([0.5]), dt)
    for out in (n.prob(x), n.log_cdf(x), n.sample((2,)), n.entropy()):
        assert out.dtype == dt
    rtol = 1e-3 if dt == ms.float16 else 1e-12
    np.testing.assert_allclose(n.log_cdf(x).asnumpy(), stats.norm.logcdf([0.5]), rtol=rtol)


def test_gamma_and_beta_sample_gradients():
    # implicit reparameterisation: d/da E[Gamma(a, 1)] = 1, d/da E[Beta(a, b)] = b / (a + b)^2
    def f(a):
        return msd.Gamma(seed=2).sample((4000,), a, T([1.0])).mean()

    def g(a):
        return msd.Beta(seed=2).sample((4000,), a, T([2.0])).mean()

    np.testing.assert_allclose(ms.grad(f)(T([2.5])).asnumpy(), [1.0], atol=0.05)
    np.testing.assert_allclose(ms.grad(g)(T([2.0])).asnumpy(), [0.125], atol=0.01)


class _DistArgs(nn.Cell):
    def __init__(self):
        super().__init__()
        self.normal = msd.Normal()
        self.normal2 = msd.Normal(3.0, 4.0)

    def construct(self, x, mean, sd):
        given = self.normal2.prob(x, *self.normal.get_dist_args(mean, sd))
        missing = self.normal2.prob(x, *self.normal.get_dist_args())  # (None, None): normal2's own defaults
        return given, missing


@pytest.mark.parametrize("mode", [ms.PYNATIVE_MODE, ms.GRAPH_MODE])
def test_get_dist_args(mode):
    ms.set_context(mode=mode)
    assert msd.Normal().get_dist_args() == (None, None)
    given, missing = _DistArgs()(T([0.5, 1.0]), T(0.0), T(1.0))
    np.testing.assert_allclose(given.asnumpy(), stats.norm(0, 1).pdf([0.5, 1.0]), rtol=1e-5)
    np.testing.assert_allclose(missing.asnumpy(), stats.norm(3, 4).pdf([0.5, 1.0]), rtol=1e-5)
