"""Discrete distributions: Bernoulli, Geometric, Poisson, Categorical (values are counts or category indices;
samples have the distribution's `dtype`, int32 unless given)."""

from __future__ import annotations

from kiln import ops
from kiln._core import dtype as mstype
from kiln.nn.probability.distribution._utils.utils import (
    check_distribution_name,
    check_greater_zero,
    check_prob,
    check_rank,
    check_sum_equal_one,
    read_only,
)
from kiln.nn.probability.distribution.distribution import NUMBER_TYPES, Distribution, check_dtype
from kiln.ops import prob_ops

_INF = float("inf")


def _xlogx(p):
    return p * ops.log(p)


class _OneParam(Distribution):
    _pname = ""

    def __init__(self, value, seed, dtype, name, param):
        """`param` is the subclass constructor's `dict(locals())`; its `param_dict` holds `value` as `_pname`."""
        param["param_dict"] = {self._pname: value}
        check_dtype(dtype, NUMBER_TYPES, type(self).__name__)
        super().__init__(seed, dtype, name, param)
        self._p = self._add_parameter(value, self._pname)

    def _get_dist_type(self):
        return type(self).__name__

    def _get_dist_args(self, *args, **kwargs):
        return self._dist_args(args, kwargs)

    def _param(self, p=None):
        return self._check_param_type(p)

    def _uniform(self, shape, like):
        u = ops.uniform(shape, ops.zeros((), mstype.float32), ops.ones((), mstype.float32), seed=self.seed or None)
        return ops.cast(u, like.dtype)


class Bernoulli(_OneParam):
    """Bernoulli distribution: 1 with probability `probs`, else 0."""

    _pname = "probs"

    def __init__(self, probs=None, seed=None, dtype=mstype.int32, name="Bernoulli"):
        super().__init__(probs, seed, dtype, name, dict(locals()))
        if self._p is not None:
            check_prob(self._p)

    probs = read_only("_p")

    def _log_prob(self, value, probs=None):
        p = self._param(probs)
        x = self._float_value(value)
        out = ops.select(x == 1.0, ops.log(p) + ops.zeros_like(x), ops.log1p(-p) + ops.zeros_like(x))
        ok = ops.logical_or(x == 0.0, x == 1.0)
        return ops.select(ok, out, ops.full_like(out, -_INF))

    def _cdf(self, value, probs=None):
        p = self._param(probs)
        x = self._float_value(value)
        mid = 1.0 - p + ops.zeros_like(x)
        out = ops.select(x < 0.0, ops.zeros_like(mid), mid)
        return ops.select(x >= 1.0, ops.ones_like(out), out)

    def _mean(self, probs=None):
        return self._param(probs)

    def _var(self, probs=None):
        p = self._param(probs)
        return p * (1.0 - p)

    def _mode(self, probs=None):
        p = self._param(probs)
        return ops.cast(p > 0.5, self.dtype)

    def _entropy(self, probs=None):
        p = self._param(probs)
        return -_xlogx(p) - _xlogx(1.0 - p)

    def _kl_loss(self, dist, probs_b, probs=None):
        check_distribution_name(dist, "Bernoulli")
        pb = self._float_value(probs_b, "probs_b")
        pa = self._param(probs)
        return pa * (ops.log(pa) - ops.log(pb)) + (1.0 - pa) * (ops.log1p(-pa) - ops.log1p(-pb))

    def _sample(self, shape=(), probs=None):
        p = self._param(probs)
        shape = self._check_shape(shape) + tuple(p.shape)
        return ops.cast(self._uniform(shape, p) < p, self.dtype)


class Geometric(_OneParam):
    """Geometric distribution: the number of failures before the first success (success probability `probs`)."""

    _pname = "probs"

    def __init__(self, probs=None, seed=None, dtype=mstype.int32, name="Geometric"):
        super().__init__(probs, seed, dtype, name, dict(locals()))
        if self._p is not None:
            check_prob(self._p)

    probs = Bernoulli.probs

    def _log_prob(self, value, probs=None):
        p = self._param(probs)
        k = ops.floor(self._float_value(value))
        out = ops.log(p) + k * ops.log1p(-p)
        return ops.select(k >= 0.0, out, ops.full_like(out, -_INF))

    def _cdf(self, value, probs=None):
        p = self._param(probs)
        k = ops.floor(self._float_value(value))
        out = -ops.expm1((k + 1.0) * ops.log1p(-p))
        return ops.select(k >= 0.0, out, ops.zeros_like(out))

    def _mean(self, probs=None):
        p = self._param(probs)
        return (1.0 - p) / p

    def _var(self, probs=None):
        p = self._param(probs)
        return (1.0 - p) / (p * p)

    def _mode(self, probs=None):
        return ops.zeros_like(self._param(probs))

    def _entropy(self, probs=None):
        p = self._param(probs)
        return (-_xlogx(p) - _xlogx(1.0 - p)) / p

    def _kl_loss(self, dist, probs_b, probs=None):
        check_distribution_name(dist, "Geometric")
        pb = self._float_value(probs_b, "probs_b")
        pa = self._param(probs)
        return ops.log(pa) - ops.log(pb) + (1.0 - pa) / pa * (ops.log1p(-pa) - ops.log1p(-pb))

    def _sample(self, shape=(), probs=None):
        p = self._param(probs)
        shape = self._check_shape(shape) + tuple(p.shape)
        u = 1.0 - self._uniform(shape, p)  # in (0, 1]
        return ops.cast(ops.floor(ops.log(u) / ops.log1p(-p)), self.dtype)


class Poisson(_OneParam):
    """Poisson distribution with mean `rate`."""

    _pname = "rate"

    def __init__(self, rate=None, seed=None, dtype=mstype.float32, name="Poisson"):
        if isinstance(rate, (int, float)) and not isinstance(rate, bool):
            raise TypeError("For 'Poisson', 'rate' cannot be a Python scalar: give a list, array or Tensor.")
        super().__init__(rate, seed, dtype, name, dict(locals()))
        if self._p is not None:
            check_greater_zero(self._p, "rate")

    rate = read_only("_p")

    def _log_prob(self, value, rate=None):
        lam = self._param(rate)
        x = self._float_value(value)
        ok = ops.logical_and(x >= 0.0, x == ops.floor(x))
        k = ops.select(ok, x, ops.zeros_like(x))
        out = k * ops.log(lam) - lam - ops.lgamma(k + 1.0)
        return ops.select(ok, out, ops.full_like(out, -_INF))

    def _cdf(self, value, rate=None):
        lam = self._param(rate)
        k = ops.floor(self._float_value(value))
        ok = k >= 0.0
        k = ops.select(ok, k, ops.zeros_like(k))
        lam = lam + ops.zeros_like(k)
        out = ops.igammac(k + 1.0, lam)
        return ops.select(ok, out, ops.zeros_like(out))

    def _mean(self, rate=None):
        return self._param(rate)

    _var = _mean

    def _mode(self, rate=None):
        return ops.floor(self._param(rate))

    def _sample(self, shape=(), rate=None):
        lam = self._param(rate)
        shape = self._check_shape(shape) + tuple(lam.shape)
        return prob_ops.sample_poisson(shape, lam, self.seed, self.dtype)


class Categorical(_OneParam):
    """Categorical distribution over {0, ..., K-1} with probabilities `probs` (last axis: the K categories).

    The batch shape is `probs.shape[:-1]`.
    """

    _pname = "probs"

    def __init__(self, probs=None, seed=None, dtype=mstype.int32, name="Categorical"):
        super().__init__(probs, seed, dtype, name, dict(locals()))
        if self._p is not None:
            check_rank(self._p)
            check_prob(self._p)
            check_sum_equal_one(self._p)
            self._batch_shape = self._broadcast_shape = tuple(self._p.shape[:-1])

    probs = Bernoulli.probs

    def _logp(self, probs=None):
        p = self._check_param_type(probs)
        if len(p.shape) == 0:
            raise ValueError("the probabilities of a Categorical distribution must have rank >= 1.")
        return p, ops.log(p)

    def _log_prob(self, value, probs=None):
        p, logp = self._logp(probs)
        k = p.shape[-1]
        idx = ops.cast(self._check_value(value, "value"), mstype.int32)
        ok = ops.logical_and(idx >= 0, idx < k)
        onehot = ops.one_hot(ops.select(ok, idx, ops.zeros_like(idx)), k, ops.ones((), p.dtype), ops.zeros((), p.dtype))
        out = ops.sum(onehot * logp, -1)
        return ops.select(ops.broadcast_to(ok, out.shape), out, ops.full_like(out, -_INF))

    def _prob(self, value, probs=None):
        return ops.exp(self._log_prob(value, probs))

    def _cdf(self, value, probs=None):
        p, _ = self._logp(probs)
        k = p.shape[-1]
        idx = ops.floor(ops.cast(self._check_value(value, "value"), p.dtype))
        cum = ops.cumsum(p, -1)
        clipped = ops.cast(ops.clamp(idx, 0.0, float(k - 1)), mstype.int32)
        onehot = ops.one_hot(clipped, k, ops.ones((), p.dtype), ops.zeros((), p.dtype))
        out = ops.sum(onehot * cum, -1)
        idx = ops.broadcast_to(idx, out.shape)
        out = ops.select(idx < 0.0, ops.zeros_like(out), out)
        return ops.select(idx >= float(k - 1), ops.ones_like(out), out)

    def _mean(self, probs=None):
        p, _ = self._logp(probs)
        ks = ops.cast(ops.arange(p.shape[-1]), p.dtype)
        return ops.sum(p * ks, -1)

    def _var(self, probs=None):
        p, _ = self._logp(probs)
        ks = ops.cast(ops.arange(p.shape[-1]), p.dtype)
        m = ops.sum(p * ks, -1)
        return ops.sum(p * ks * ks, -1) - m * m

    def _mode(self, probs=None):
        p, _ = self._logp(probs)
        return ops.cast(ops.argmax(p, -1), self.dtype)

    def _entropy(self, probs=None):
        p, logp = self._logp(probs)
        return -ops.sum(p * logp, -1)

    def _kl_loss(self, dist, probs_b, probs=None):
        check_distribution_name(dist, "Categorical")
        pb = self._float_value(probs_b, "probs_b")
        p, logp = self._logp(probs)
        return ops.sum(p * (logp - ops.log(pb)), -1)

    def _sample(self, shape=(), probs=None):
        p, logp = self._logp(probs)
        shape = self._check_shape(shape) + tuple(p.shape[:-1])
        return prob_ops.sample_categorical(shape, logp, self.seed, self.dtype)
