"""Continuous distributions: Normal, LogNormal, Exponential, Uniform, Cauchy, Logistic, Gumbel, Gamma, Beta,
HalfNormal, Laplace, StudentT. Formulas are the textbook ones (see scipy.stats), written on Kiln ops."""

from __future__ import annotations

import math

from kiln import ops
from kiln._core import dtype as mstype
from kiln.nn.probability.distribution._utils.utils import (
    check_distribution_name,
    check_greater,
    check_greater_zero,
)
from kiln.nn.probability.distribution.distribution import FLOAT_TYPES, Distribution, check_dtype
from kiln.ops import prob_ops

_HALF_LOG_2PI = 0.5 * math.log(2.0 * math.pi)
_EULER = 0.5772156649015329
_INF = float("inf")


def _no_python_scalars(name, cls, **values):
    for k, v in values.items():
        if isinstance(v, (int, float)) and not isinstance(v, bool):
            raise TypeError(f"For '{cls}', '{k}' cannot be a Python scalar: give a list, array or Tensor.")


def _lbeta(a, b):
    return ops.lgamma(a) + ops.lgamma(b) - ops.lgamma(a + b)


def _parameter(index: int) -> property:
    """The read-only property of a two-parameter distribution's parameter `index` (0: a, 1: b)."""
    return property(lambda self: self._b if index else self._a)


class _TwoParam(Distribution):
    """A distribution with two float parameters given at construction or per call."""

    _names = ("", "")  # the parameter table: names of (a, b), as the constructor and the methods take them
    _positive = ()  # the parameters that must be > 0
    _python_scalars = True  # whether a and b may be Python ints / floats

    def __init__(self, a, b, seed, dtype, name, param):
        """`param` is the subclass constructor's `dict(locals())`; its `param_dict` comes from the table."""
        if not self._python_scalars:
            _no_python_scalars(name, type(self).__name__, **dict(zip(self._names, (a, b))))
        param["param_dict"] = dict(zip(self._names, (a, b)))
        check_dtype(dtype, FLOAT_TYPES, type(self).__name__)
        super().__init__(seed, dtype, name, param)
        self._a = self._add_parameter(a, self._names[0])
        self._b = self._add_parameter(b, self._names[1])
        for pname, v in zip(self._names, (self._a, self._b)):
            if pname in self._positive and v is not None:
                check_greater_zero(v, pname)

    def _get_dist_type(self):
        return type(self).__name__

    def _get_dist_args(self, *args, **kwargs):
        return self._dist_args(args, kwargs)

    def _pair(self, a=None, b=None):
        return self._check_param_type(a, b)

    def _other(self, dist, a_b, b_b):
        check_distribution_name(dist, type(self).__name__)
        return self._float_value(a_b, self._names[0] + "_b"), self._float_value(b_b, self._names[1] + "_b")

    def _rand_shape(self, shape, p):
        return self._check_shape(shape) + tuple(p.shape)

    def _uniform(self, shape, like):
        """U[0, 1) draws of `shape` in `like`'s dtype."""
        u = ops.uniform(shape, ops.zeros((), mstype.float32), ops.ones((), mstype.float32), seed=self.seed or None)
        return ops.cast(u, like.dtype)

    def _normal(self, shape, like):
        return ops.cast(ops.standard_normal(shape, seed=self.seed or None), like.dtype)


class Normal(_TwoParam):
    """Normal distribution N(mean, sd^2)."""

    _names = ("mean", "sd")
    _positive = ("sd",)

    def __init__(self, mean=None, sd=None, seed=None, dtype=mstype.float32, name="Normal"):
        super().__init__(mean, sd, seed, dtype, name, dict(locals()))

    def _z(self, value, mean, sd):
        return (self._float_value(value) - mean) / sd

    def _log_prob(self, value, mean=None, sd=None):
        mean, sd = self._pair(mean, sd)
        z = self._z(value, mean, sd)
        return -0.5 * z * z - ops.log(sd) - _HALF_LOG_2PI

    def _cdf(self, value, mean=None, sd=None):
        mean, sd = self._pair(mean, sd)
        return 0.5 * ops.erfc(-self._z(value, mean, sd) / math.sqrt(2.0))

    def _log_cdf(self, value, mean=None, sd=None):
        mean, sd = self._pair(mean, sd)
        return prob_ops.log_ndtr(self._z(value, mean, sd))

    def _survival_function(self, value, mean=None, sd=None):
        mean, sd = self._pair(mean, sd)
        return 0.5 * ops.erfc(self._z(value, mean, sd) / math.sqrt(2.0))

    def _log_survival(self, value, mean=None, sd=None):
        mean, sd = self._pair(mean, sd)
        return prob_ops.log_ndtr(-self._z(value, mean, sd))

    def _mean(self, mean=None, sd=None):
        return self._pair(mean, sd)[0]

    def _mode(self, mean=None, sd=None):
        return self._pair(mean, sd)[0]

    def _sd(self, mean=None, sd=None):
        return self._pair(mean, sd)[1]

    def _entropy(self, mean=None, sd=None):
        sd = self._pair(mean, sd)[1]
        return ops.log(sd) + 0.5 + _HALF_LOG_2PI

    def _kl_loss(self, dist, mean_b, sd_b, mean=None, sd=None):
        mean_b, sd_b = self._other(dist, mean_b, sd_b)
        mean_a, sd_a = self._pair(mean, sd)
        ratio = sd_a / sd_b
        diff = (mean_a - mean_b) / sd_b
        return 0.5 * (ratio * ratio + diff * diff) - 0.5 - ops.log(ratio)

    def _sample(self, shape=(), mean=None, sd=None):
        mean, sd = self._pair(mean, sd)
        return mean + sd * self._normal(self._rand_shape(shape, mean), mean)


class LogNormal(Normal):
    """exp(X) for X ~ N(loc, scale^2)."""

    _names = ("loc", "scale")
    _positive = ("scale",)

    def __init__(self, loc=None, scale=None, seed=0, dtype=mstype.float32, name="LogNormal"):
        _TwoParam.__init__(self, loc, scale, seed, dtype, name, dict(locals()))

    loc = _parameter(0)
    scale = _parameter(1)

    def _log_value(self, value):
        x = self._float_value(value)
        pos = x > 0
        return pos, ops.log(ops.select(pos, x, ops.ones_like(x)))

    def _log_prob(self, value, loc=None, scale=None):
        pos, lx = self._log_value(value)
        out = Normal._log_prob(self, lx, loc, scale) - lx
        return ops.select(pos, out, ops.full_like(out, -_INF))

    def _cdf(self, value, loc=None, scale=None):
        pos, lx = self._log_value(value)
        out = Normal._cdf(self, lx, loc, scale)
        return ops.select(pos, out, ops.zeros_like(out))

    def _log_cdf(self, value, loc=None, scale=None):
        pos, lx = self._log_value(value)
        out = Normal._log_cdf(self, lx, loc, scale)
        return ops.select(pos, out, ops.full_like(out, -_INF))

    def _survival_function(self, value, loc=None, scale=None):
        pos, lx = self._log_value(value)
        out = Normal._survival_function(self, lx, loc, scale)
        return ops.select(pos, out, ops.ones_like(out))

    def _log_survival(self, value, loc=None, scale=None):
        pos, lx = self._log_value(value)
        out = Normal._log_survival(self, lx, loc, scale)
        return ops.select(pos, out, ops.zeros_like(out))

    def _mean(self, loc=None, scale=None):
        loc, scale = self._pair(loc, scale)
        return ops.exp(loc + 0.5 * scale * scale)

    def _mode(self, loc=None, scale=None):
        loc, scale = self._pair(loc, scale)
        return ops.exp(loc - scale * scale)

    def _var(self, loc=None, scale=None):
        loc, scale = self._pair(loc, scale)
        s2 = scale * scale
        return ops.expm1(s2) * ops.exp(2.0 * loc + s2)

    _sd = None

    def _entropy(self, loc=None, scale=None):
        loc, scale = self._pair(loc, scale)
        return loc + ops.log(scale) + 0.5 + _HALF_LOG_2PI

    def _sample(self, shape=(), loc=None, scale=None):
        return ops.exp(Normal._sample(self, shape, loc, scale))


class HalfNormal(Normal):
    """|X - mean| + mean for X ~ N(mean, sd^2): the normal folded at its mean."""

    def __init__(self, mean=None, sd=None, seed=None, dtype=mstype.float32, name="HalfNormal"):
        _TwoParam.__init__(self, mean, sd, seed, dtype, name, dict(locals()))

    def _log_prob(self, value, mean=None, sd=None):
        mean, sd = self._pair(mean, sd)
        z = self._z(value, mean, sd)
        out = -0.5 * z * z - ops.log(sd) - _HALF_LOG_2PI + math.log(2.0)
        return ops.select(z >= 0, out, ops.full_like(out, -_INF))

    def _cdf(self, value, mean=None, sd=None):
        mean, sd = self._pair(mean, sd)
        z = self._z(value, mean, sd)
        return ops.select(z >= 0, ops.erf(z / math.sqrt(2.0)), ops.zeros_like(z))

    _log_cdf = _survival_function = _log_survival = _kl_loss = _mode = _sd = None

    def _mean(self, mean=None, sd=None):
        mean, sd = self._pair(mean, sd)
        return mean + sd * math.sqrt(2.0 / math.pi)

    def _var(self, mean=None, sd=None):
        sd = self._pair(mean, sd)[1]
        return sd * sd * (1.0 - 2.0 / math.pi)

    def _entropy(self, mean=None, sd=None):
        sd = self._pair(mean, sd)[1]
        return ops.log(sd) + 0.5 * math.log(math.pi / 2.0) + 0.5

    def _sample(self, shape=(), mean=None, sd=None):
        mean, sd = self._pair(mean, sd)
        return mean + sd * ops.abs(self._normal(self._rand_shape(shape, mean), mean))


class Laplace(_TwoParam):
    """Laplace distribution with location `mean` and scale `sd`."""

    _names = ("mean", "sd")
    _positive = ("sd",)

    def __init__(self, mean=None, sd=None, seed=None, dtype=mstype.float32, name="Laplace"):
        super().__init__(mean, sd, seed, dtype, name, dict(locals()))

    def _log_prob(self, value, mean=None, sd=None):
        mean, sd = self._pair(mean, sd)
        return -ops.abs(self._float_value(value) - mean) / sd - ops.log(2.0 * sd)

    def _cdf(self, value, mean=None, sd=None):
        mean, sd = self._pair(mean, sd)
        z = (self._float_value(value) - mean) / sd
        return 0.5 + 0.5 * ops.sign(z) * (-ops.expm1(-ops.abs(z)))

    def _mean(self, mean=None, sd=None):
        return self._pair(mean, sd)[0]

    _mode = _mean

    def _var(self, mean=None, sd=None):
        sd = self._pair(mean, sd)[1]
        return 2.0 * sd * sd

    def _entropy(self, mean=None, sd=None):
        return ops.log(2.0 * self._pair(mean, sd)[1]) + 1.0

    def _sample(self, shape=(), mean=None, sd=None):
        mean, sd = self._pair(mean, sd)
        u = self._uniform(self._rand_shape(shape, mean), mean) - 0.5
        return mean - sd * ops.sign(u) * ops.log1p(-2.0 * ops.abs(u))


class Exponential(Distribution):
    """Exponential distribution with rate `rate` (mean 1 / rate)."""

    def __init__(self, rate=None, seed=None, dtype=mstype.float32, name="Exponential"):
        param = dict(locals())
        param["param_dict"] = {"rate": rate}
        check_dtype(dtype, FLOAT_TYPES, "Exponential")
        super().__init__(seed, dtype, name, param)
        self._rate = self._add_parameter(rate, "rate")
        if self._rate is not None:
            check_greater_zero(self._rate, "rate")

    @property
    def rate(self):
        return self._rate

    def _get_dist_type(self):
        return "Exponential"

    def _get_dist_args(self, *args, **kwargs):
        return self._dist_args(args, kwargs)

    def _xr(self, value, rate):
        rate = self._check_param_type(rate)
        x = self._float_value(value)
        return x, rate, ops.maximum(x, ops.zeros_like(x))

    def _log_prob(self, value, rate=None):
        x, rate, xp = self._xr(value, rate)
        out = ops.log(rate) - rate * xp
        return ops.select(x >= 0, out, ops.full_like(out, -_INF))

    def _cdf(self, value, rate=None):
        _, rate, xp = self._xr(value, rate)
        return -ops.expm1(-rate * xp)

    def _log_survival(self, value, rate=None):
        _, rate, xp = self._xr(value, rate)
        return -rate * xp

    def _mean(self, rate=None):
        return 1.0 / self._check_param_type(rate)

    _sd = _mean

    def _mode(self, rate=None):
        return ops.zeros_like(self._check_param_type(rate))

    def _entropy(self, rate=None):
        return 1.0 - ops.log(self._check_param_type(rate))

    def _kl_loss(self, dist, rate_b, rate=None):
        check_distribution_name(dist, "Exponential")
        rate_b = self._float_value(rate_b, "rate_b")
        rate_a = self._check_param_type(rate)
        return ops.log(rate_a) - ops.log(rate_b) + rate_b / rate_a - 1.0

    def _sample(self, shape=(), rate=None):
        rate = self._check_param_type(rate)
        shape = self._check_shape(shape) + tuple(rate.shape)
        u = ops.uniform(shape, ops.zeros((), mstype.float32), ops.ones((), mstype.float32), seed=self.seed or None)
        return -ops.log1p(-ops.cast(u, rate.dtype)) / rate


class Uniform(_TwoParam):
    """Uniform distribution on [low, high]."""

    _names = ("low", "high")

    def __init__(self, low=None, high=None, seed=None, dtype=mstype.float32, name="Uniform"):
        super().__init__(low, high, seed, dtype, name, dict(locals()))
        if self._a is not None and self._b is not None:
            check_greater(self._a, self._b, "low", "high")

    low = _parameter(0)
    high = _parameter(1)

    def _prob(self, value, low=None, high=None):
        low, high = self._pair(low, high)
        x = self._float_value(value)
        dens = 1.0 / (high - low) + ops.zeros_like(x)
        inside = ops.logical_and(x >= low, x <= high)
        return ops.select(inside, dens, ops.zeros_like(dens))

    def _cdf(self, value, low=None, high=None):
        low, high = self._pair(low, high)
        z = (self._float_value(value) - low) / (high - low)
        return ops.clamp(z, 0.0, 1.0)

    def _mean(self, low=None, high=None):
        low, high = self._pair(low, high)
        return 0.5 * (low + high)

    def _var(self, low=None, high=None):
        low, high = self._pair(low, high)
        return (high - low) * (high - low) / 12.0

    def _entropy(self, low=None, high=None):
        low, high = self._pair(low, high)
        return ops.log(high - low)

    def _kl_loss(self, dist, low_b, high_b, low=None, high=None):
        low_b, high_b = self._other(dist, low_b, high_b)
        low_a, high_a = self._pair(low, high)
        kl = ops.log(high_b - low_b) - ops.log(high_a - low_a)
        inside = ops.logical_and(low_b <= low_a, high_a <= high_b)
        return ops.select(inside, kl, ops.full_like(kl, _INF))

    def _sample(self, shape=(), low=None, high=None):
        low, high = self._pair(low, high)
        return low + (high - low) * self._uniform(self._rand_shape(shape, low), low)


class Cauchy(_TwoParam):
    """Cauchy distribution with location `loc` and scale `scale` (no mean or variance)."""

    _names = ("loc", "scale")
    _positive = ("scale",)

    def __init__(self, loc=None, scale=None, seed=None, dtype=mstype.float32, name="Cauchy"):
        super().__init__(loc, scale, seed, dtype, name, dict(locals()))

    loc = _parameter(0)
    scale = _parameter(1)

    def _z(self, value, loc, scale):
        return (self._float_value(value) - loc) / scale

    def _log_prob(self, value, loc=None, scale=None):
        loc, scale = self._pair(loc, scale)
        z = self._z(value, loc, scale)
        return -math.log(math.pi) - ops.log(scale) - ops.log1p(z * z)

    def _cdf(self, value, loc=None, scale=None):
        loc, scale = self._pair(loc, scale)
        return 0.5 + ops.atan(self._z(value, loc, scale)) / math.pi

    def _survival_function(self, value, loc=None, scale=None):
        loc, scale = self._pair(loc, scale)
        return 0.5 - ops.atan(self._z(value, loc, scale)) / math.pi

    def _mean(self, *args, **kwargs):
        raise ValueError("the mean of a Cauchy distribution is undefined.")

    def _var(self, *args, **kwargs):
        raise ValueError("the variance of a Cauchy distribution is undefined.")

    def _sd(self, *args, **kwargs):
        raise ValueError("the standard deviation of a Cauchy distribution is undefined.")

    def _mode(self, loc=None, scale=None):
        return self._pair(loc, scale)[0]

    def _entropy(self, loc=None, scale=None):
        return ops.log(4.0 * math.pi * self._pair(loc, scale)[1])

    def _kl_loss(self, dist, loc_b, scale_b, loc=None, scale=None):
        loc_b, scale_b = self._other(dist, loc_b, scale_b)
        loc_a, scale_a = self._pair(loc, scale)
        s = scale_a + scale_b
        d = loc_a - loc_b
        return ops.log(s * s + d * d) - ops.log(4.0 * scale_a * scale_b)

    def _sample(self, shape=(), loc=None, scale=None):
        loc, scale = self._pair(loc, scale)
        u = self._uniform(self._rand_shape(shape, loc), loc)
        return loc + scale * ops.tan(math.pi * (u - 0.5))


class Logistic(_TwoParam):
    """Logistic distribution with location `loc` and scale `scale`."""

    _names = ("loc", "scale")
    _positive = ("scale",)

    def __init__(self, loc=None, scale=None, seed=None, dtype=mstype.float32, name="Logistic"):
        super().__init__(loc, scale, seed, dtype, name, dict(locals()))

    loc = Cauchy.loc
    scale = Cauchy.scale
    _z = Cauchy._z

    def _log_prob(self, value, loc=None, scale=None):
        loc, scale = self._pair(loc, scale)
        z = self._z(value, loc, scale)
        return -z - 2.0 * ops.softplus(-z) - ops.log(scale)

    def _cdf(self, value, loc=None, scale=None):
        loc, scale = self._pair(loc, scale)
        return ops.sigmoid(self._z(value, loc, scale))

    def _log_cdf(self, value, loc=None, scale=None):
        loc, scale = self._pair(loc, scale)
        return -ops.softplus(-self._z(value, loc, scale))

    def _survival_function(self, value, loc=None, scale=None):
        loc, scale = self._pair(loc, scale)
        return ops.sigmoid(-self._z(value, loc, scale))

    def _log_survival(self, value, loc=None, scale=None):
        loc, scale = self._pair(loc, scale)
        return -ops.softplus(self._z(value, loc, scale))

    def _mean(self, loc=None, scale=None):
        return self._pair(loc, scale)[0]

    _mode = _mean

    def _sd(self, loc=None, scale=None):
        return self._pair(loc, scale)[1] * (math.pi / math.sqrt(3.0))

    def _entropy(self, loc=None, scale=None):
        return ops.log(self._pair(loc, scale)[1]) + 2.0

    def _sample(self, shape=(), loc=None, scale=None):
        loc, scale = self._pair(loc, scale)
        u = self._uniform(self._rand_shape(shape, loc), loc)
        return loc + scale * (ops.log(u) - ops.log1p(-u))


class Gumbel(_TwoParam):
    """Gumbel (type-I extreme value) distribution with location `loc` and scale `scale`."""

    _names = ("loc", "scale")
    _positive = ("scale",)

    def __init__(self, loc=None, scale=None, seed=0, dtype=mstype.float32, name="Gumbel"):
        super().__init__(loc, scale, seed, dtype, name, dict(locals()))

    loc = Cauchy.loc
    scale = Cauchy.scale
    _z = Cauchy._z

    def _log_prob(self, value, loc=None, scale=None):
        loc, scale = self._pair(loc, scale)
        z = self._z(value, loc, scale)
        return -(z + ops.exp(-z)) - ops.log(scale)

    def _log_cdf(self, value, loc=None, scale=None):
        loc, scale = self._pair(loc, scale)
        return -ops.exp(-self._z(value, loc, scale))

    def _cdf(self, value, loc=None, scale=None):
        return ops.exp(self._log_cdf(value, loc, scale))

    def _survival_function(self, value, loc=None, scale=None):
        return -ops.expm1(self._log_cdf(value, loc, scale))

    def _mean(self, loc=None, scale=None):
        loc, scale = self._pair(loc, scale)
        return loc + _EULER * scale

    def _mode(self, loc=None, scale=None):
        return self._pair(loc, scale)[0]

    def _sd(self, loc=None, scale=None):
        return self._pair(loc, scale)[1] * (math.pi / math.sqrt(6.0))

    def _entropy(self, loc=None, scale=None):
        return ops.log(self._pair(loc, scale)[1]) + (_EULER + 1.0)

    def _kl_loss(self, dist, loc_b, scale_b, loc=None, scale=None):
        loc_b, scale_b = self._other(dist, loc_b, scale_b)
        loc_a, scale_a = self._pair(loc, scale)
        r = scale_a / scale_b
        shift = (loc_b - loc_a) / scale_b
        return -ops.log(r) + _EULER * (r - 1.0) + ops.exp(shift + ops.lgamma(r + 1.0)) - 1.0 - shift

    def _sample(self, shape=(), loc=None, scale=None):
        loc, scale = self._pair(loc, scale)
        u = self._uniform(self._rand_shape(shape, loc), loc)
        tiny = 1e-7 if loc.dtype != mstype.float16 else 1e-3
        return loc - scale * ops.log(-ops.log(ops.clamp(u, tiny, 1.0 - tiny)))


class Gamma(_TwoParam):
    """Gamma distribution with shape `concentration` and inverse scale `rate`."""

    _names = ("concentration", "rate")
    _python_scalars = False
    _positive = ("concentration", "rate")

    def __init__(self, concentration=None, rate=None, seed=None, dtype=mstype.float32, name="Gamma"):
        super().__init__(concentration, rate, seed, dtype, name, dict(locals()))

    concentration = _parameter(0)
    rate = _parameter(1)

    def _pos(self, value):
        x = self._float_value(value)
        pos = x > 0
        return pos, ops.select(pos, x, ops.ones_like(x))

    def _log_prob(self, value, concentration=None, rate=None):
        a, b = self._pair(concentration, rate)
        pos, x = self._pos(value)
        out = a * ops.log(b) + (a - 1.0) * ops.log(x) - b * x - ops.lgamma(a)
        return ops.select(pos, out, ops.full_like(out, -_INF))

    def _cdf(self, value, concentration=None, rate=None):
        a, b = self._pair(concentration, rate)
        pos, x = self._pos(value)
        a = a + ops.zeros_like(x)
        out = ops.igamma(a, b * x)
        return ops.select(pos, out, ops.zeros_like(out))

    def _mean(self, concentration=None, rate=None):
        a, b = self._pair(concentration, rate)
        return a / b

    def _var(self, concentration=None, rate=None):
        a, b = self._pair(concentration, rate)
        return a / (b * b)

    def _mode(self, concentration=None, rate=None):
        a, b = self._pair(concentration, rate)
        return ops.select(a >= 1.0, (a - 1.0) / b, ops.full_like(a, float("nan")))

    def _entropy(self, concentration=None, rate=None):
        a, b = self._pair(concentration, rate)
        return a - ops.log(b) + ops.lgamma(a) + (1.0 - a) * ops.digamma(a)

    def _kl_loss(self, dist, concentration_b, rate_b, concentration=None, rate=None):
        a_b, b_b = self._other(dist, concentration_b, rate_b)
        a_a, b_a = self._pair(concentration, rate)
        return (
            (a_a - a_b) * ops.digamma(a_a)
            - ops.lgamma(a_a)
            + ops.lgamma(a_b)
            + a_b * (ops.log(b_a) - ops.log(b_b))
            + a_a * (b_b - b_a) / b_a
        )

    def _sample(self, shape=(), concentration=None, rate=None):
        a, b = self._pair(concentration, rate)
        return prob_ops.sample_gamma(self._rand_shape(shape, a), a, self.seed) / b


class Beta(_TwoParam):
    """Beta distribution with `concentration1` (alpha) and `concentration0` (beta) on (0, 1)."""

    _names = ("concentration1", "concentration0")
    _python_scalars = False
    _positive = ("concentration1", "concentration0")

    def __init__(self, concentration1=None, concentration0=None, seed=None, dtype=mstype.float32, name="Beta"):
        super().__init__(concentration1, concentration0, seed, dtype, name, dict(locals()))

    concentration1 = _parameter(0)
    concentration0 = _parameter(1)

    def _log_prob(self, value, concentration1=None, concentration0=None):
        a, b = self._pair(concentration1, concentration0)
        x = self._float_value(value)
        inside = ops.logical_and(x > 0, x < 1)
        x = ops.select(inside, x, ops.full_like(x, 0.5))
        out = (a - 1.0) * ops.log(x) + (b - 1.0) * ops.log1p(-x) - _lbeta(a, b)
        return ops.select(inside, out, ops.full_like(out, -_INF))

    def _mean(self, concentration1=None, concentration0=None):
        a, b = self._pair(concentration1, concentration0)
        return a / (a + b)

    def _var(self, concentration1=None, concentration0=None):
        a, b = self._pair(concentration1, concentration0)
        s = a + b
        return a * b / (s * s * (s + 1.0))

    def _mode(self, concentration1=None, concentration0=None):
        a, b = self._pair(concentration1, concentration0)
        ok = ops.logical_and(a > 1.0, b > 1.0)
        return ops.select(ok, (a - 1.0) / (a + b - 2.0), ops.full_like(a, float("nan")))

    def _entropy(self, concentration1=None, concentration0=None):
        a, b = self._pair(concentration1, concentration0)
        return (
            _lbeta(a, b) - (a - 1.0) * ops.digamma(a) - (b - 1.0) * ops.digamma(b) + (a + b - 2.0) * ops.digamma(a + b)
        )

    def _kl_loss(self, dist, concentration1_b, concentration0_b, concentration1=None, concentration0=None):
        a_b, b_b = self._other(dist, concentration1_b, concentration0_b)
        a_a, b_a = self._pair(concentration1, concentration0)
        return (
            _lbeta(a_b, b_b)
            - _lbeta(a_a, b_a)
            + (a_a - a_b) * ops.digamma(a_a)
            + (b_a - b_b) * ops.digamma(b_a)
            + (a_b - a_a + b_b - b_a) * ops.digamma(a_a + b_a)
        )

    def _sample(self, shape=(), concentration1=None, concentration0=None):
        a, b = self._pair(concentration1, concentration0)
        shape = self._rand_shape(shape, a)
        seed2 = self.seed + 1 if self.seed else None
        x = prob_ops.sample_gamma(shape, a, self.seed)
        y = prob_ops.sample_gamma(shape, b, seed2)
        return x / (x + y)


class StudentT(Distribution):
    """Student's t distribution with `df` degrees of freedom, location `mean` and scale `sd`."""

    def __init__(self, df=None, mean=None, sd=None, seed=None, dtype=mstype.float32, name="StudentT"):
        param = dict(locals())
        param["param_dict"] = {"df": df, "mean": mean, "sd": sd}
        check_dtype(dtype, FLOAT_TYPES, "StudentT")
        super().__init__(seed, dtype, name, param)
        self._df = self._add_parameter(df, "df")
        self._mean_v = self._add_parameter(mean, "mean")
        self._sd_v = self._add_parameter(sd, "sd")
        for n, v in (("df", self._df), ("sd", self._sd_v)):
            if v is not None:
                check_greater_zero(v, n)

    def _get_dist_type(self):
        return "StudentT"

    def _get_dist_args(self, *args, **kwargs):
        return self._dist_args(args, kwargs)

    def _log_prob(self, value, df=None, mean=None, sd=None):
        df, mean, sd = self._check_param_type(df, mean, sd)
        z = (self._float_value(value) - mean) / sd
        return (
            ops.lgamma(0.5 * (df + 1.0))
            - ops.lgamma(0.5 * df)
            - 0.5 * ops.log(df * math.pi)
            - ops.log(sd)
            - 0.5 * (df + 1.0) * ops.log1p(z * z / df)
        )

    def _mean(self, df=None, mean=None, sd=None):
        df, mean, sd = self._check_param_type(df, mean, sd)
        return ops.select(df > 1.0, mean, ops.full_like(mean, float("nan")))

    def _mode(self, df=None, mean=None, sd=None):
        return self._check_param_type(df, mean, sd)[1]

    def _var(self, df=None, mean=None, sd=None):
        df, mean, sd = self._check_param_type(df, mean, sd)
        v = sd * sd * df / (df - 2.0)
        v = ops.select(df > 2.0, v, ops.full_like(v, _INF))
        return ops.select(df > 1.0, v, ops.full_like(v, float("nan")))

    def _sample(self, shape=(), df=None, mean=None, sd=None):
        df, mean, sd = self._check_param_type(df, mean, sd)
        shape = self._check_shape(shape) + tuple(df.shape)
        z = ops.cast(ops.standard_normal(shape, seed=self.seed or None), df.dtype)
        g = prob_ops.sample_gamma(shape, 0.5 * df, self.seed + 1 if self.seed else None)
        return mean + sd * z * ops.sqrt(0.5 * df / g)
