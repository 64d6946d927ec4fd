"""MindSpore's random Primitive classes (`ops.operations.random_ops`): samplers over Kiln's random state."""

from __future__ import annotations

import numbers
from math import erfc, sqrt

import numpy as np

from kiln._compiler.ir import graph as G
from kiln._core import dtype as mstype
from kiln._core.tensor import Tensor
from kiln._prims import random as prims_random
from kiln.ops import array, math, random
from kiln.ops import nn as nn_ops
from kiln.ops import random as _random
from kiln.ops._helpers import apply, op_error
from kiln.ops.operations._build import as_int, as_ints, attr_class
from kiln.ops.random import _RandomPrimitive

__all__ = [
    "StandardLaplace",
    "RandomCategorical",
    "Randperm",
    "RandpermV2",
    "LogNormalReverse",
    "MultinomialWithReplacement",
    "ParameterizedTruncatedNormal",
    "TruncatedNormal",
    "Gamma",
    "RandomGamma",
    "Poisson",
    "RandomPoisson",
    "UniformCandidateSampler",
    "LogUniformCandidateSampler",
    "choice_with_mask",
    "RandomChoiceWithMask",
]


def _laplace(shape):
    u = _random.uniform(shape, Tensor(-0.5, mstype.float32), Tensor(0.5, mstype.float32))
    return math.neg(math.sign(u) * math.log1p(-2 * math.abs(u)))


def _random_categorical(logits, num, dtype):
    probs = nn_ops.softmax(logits, -1)
    return math.cast(_random.multinomial(probs, num, True), dtype)


def _randperm_padded(s, n):
    k = as_int(n)
    perm = _random.randperm(k, dtype=s.dtype)
    if s.max_length > k:
        perm = array.concat((perm, array.full((s.max_length - k,), s.pad, dtype=s.dtype)), 0)
    return perm


StandardLaplace = attr_class("StandardLaplace", {"seed": 0, "seed2": 0}, lambda s, shape: _laplace(as_ints(shape)))
RandomCategorical = attr_class(
    "RandomCategorical",
    {"dtype": mstype.int64},
    lambda s, logits, num, seed=0: _random_categorical(logits, as_int(num), s.dtype),
)
Randperm = attr_class(
    "Randperm", {"max_length": 1, "pad": -1, "dtype": mstype.int32}, lambda s, n: _randperm_padded(s, n)
)
RandpermV2 = attr_class(
    "RandpermV2",
    {"seed": 0, "offset": 0, "dtype": mstype.int64},
    lambda s, n, seed=0, offset=0: _random.randperm(as_int(n), dtype=s.dtype),
)
LogNormalReverse = attr_class(
    "LogNormalReverse",
    {"mean": 1.0, "std": 2.0},
    lambda s, x: math.cast(math.exp(_random.standard_normal(x.shape) * s.std + s.mean), x.dtype),
)
MultinomialWithReplacement = attr_class(
    "MultinomialWithReplacement",
    {"numsamples": 1, "replacement": False},
    lambda s, x, seed, offset: random.multinomial_with_replacement(x, seed, offset, s.numsamples, s.replacement),
)
UniformCandidateSampler = attr_class(
    "UniformCandidateSampler",
    {"num_true": 1, "num_sampled": 1, "unique": True, "range_max": 1, "seed": 0, "remove_accidental_hits": False},
    lambda s, true_classes: random.uniform_candidate_sampler(
        true_classes, s.num_true, s.num_sampled, s.unique, s.range_max, s.seed, s.remove_accidental_hits
    ),
)
LogUniformCandidateSampler = attr_class(
    "LogUniformCandidateSampler",
    {"num_true": 1, "num_sampled": 5, "unique": True, "range_max": 5, "seed": 0},
    lambda s, true_classes: random.log_uniform_candidate_sampler(
        true_classes, s.num_true, s.num_sampled, s.unique, s.range_max, s.seed
    ),
)


def choice_with_mask(input_x, count: int = 256, seed=None, seed2=None):
    """`count` random positions (int32, (count, rank)) of the True entries of bool `input_x`, and a mask
    telling which rows are real (when there are fewer than `count` True entries the rest are zeros/False)."""
    return RandomChoiceWithMask(count, seed or 0, seed2 or 0)(input_x)


class RandomChoiceWithMask(_RandomPrimitive):
    """`RandomChoiceWithMask(count=256, seed=0, seed2=0)(input_x)`: see `ops.choice_with_mask`."""

    def __init__(self, count: int = 256, seed: int = 0, seed2: int = 0) -> None:
        super().__init__(seed, seed2)
        if not isinstance(count, numbers.Integral) or isinstance(count, bool) or count <= 0:
            raise op_error(self.name, f"'count' must be a positive int, but got {count!r}.")
        self.add_prim_attr("count", int(count))

    def __call__(self, input_x):
        if not isinstance(input_x, Tensor):
            raise op_error(self.name, f"'input_x' must be a Tensor, but got {type(input_x).__name__}.", TypeError)
        return apply(prims_random.RandomChoiceWithMask, (self._key(), input_x), (self.count,))


_TRUNCATED_DTYPES = (mstype.float16, mstype.float32, mstype.float64)


class ParameterizedTruncatedNormal(_RandomPrimitive):
    """`ParameterizedTruncatedNormal(seed=0, seed2=0)(shape, mean, stdevs, min, max)`: samples of shape `shape`
    (1-D int32/int64, its first size the batch) from the normal distribution N(mean, stdevs) truncated to
    [min, max], with the parameters of batch entry b for every sample of `output[b]`; each parameter is a float
    Tensor of one dtype (the result's) holding one value or one per batch entry.

    Drawn by inverting the normal CDF in float64 on a uniform draw between the CDF values of the bounds (from the
    lower tail, so that bounds far in either tail keep their precision). MindSpore 2.10's CPU kernel applies the
    first batch entry's parameters to every entry (probed); Kiln applies each entry's own, as documented.
    """

    def __call__(self, shape, mean, stdevs, min, max):  # noqa: A002  (MindSpore's argument names)
        params = {"mean": mean, "stdevs": stdevs, "min": min, "max": max}
        _random._require_tensor(self.name, shape=shape, **params)
        if shape.dtype not in (mstype.int32, mstype.int64) or shape.ndim != 1:
            raise op_error(
                self.name, f"'shape' must be a 1-D int32 or int64 Tensor, but got {shape.dtype}{list(shape.shape)}.",
                TypeError if shape.ndim == 1 else ValueError,
            )  # fmt: skip
        dims = _random._shape(self.name, shape)
        if not dims:
            raise op_error(self.name, "'shape' must hold at least the batch size, but it is empty.")
        batch = dims[0]
        dtype = mean.dtype
        for name, v in params.items():
            if v.dtype not in _TRUNCATED_DTYPES:
                raise op_error(self.name, f"'{name}' must be a float16, float32 or float64 Tensor, but got {v.dtype}.",
                               TypeError)  # fmt: skip
            if v.dtype != dtype:
                raise op_error(self.name, f"'{name}' ({v.dtype}) must have the dtype of 'mean' ({dtype}).", TypeError)
            if v.ndim > 1 or (v.ndim == 1 and v.shape[0] not in (1, batch)):
                raise op_error(
                    self.name, f"'{name}' must hold one value or one per batch entry ({batch}), but has shape "
                    f"{list(v.shape)}.",
                )  # fmt: skip
        column = (batch,) + (1,) * (len(dims) - 1)
        mu, sigma, lo, hi = (
            array.broadcast_to(array.reshape(math.cast(v, mstype.float64), (-1,) + (1,) * (len(dims) - 1)), column)
            for v in params.values()
        )
        if not any(G.is_symbolic(v._data) for v in (sigma, lo, hi)):  # the values are known: check them now
            if (sigma.asnumpy() <= 0).any():
                raise op_error(self.name, "'stdevs' must be positive in every batch entry.")
            if (hi.asnumpy() <= lo.asnumpy()).any():
                raise op_error(self.name, "'max' must be greater than 'min' in every batch entry.")
        a, b = (lo - mu) / sigma, (hi - mu) / sigma
        # a range in the upper tail is drawn as its mirror image in the lower tail, where the CDF is precise
        upper = math.greater(a, 0.0)
        a2, b2 = array.select(upper, math.neg(b), a), array.select(upper, math.neg(a), b)
        cdf_a, cdf_b = (0.5 * math.erfc(math.neg(t) / np.sqrt(2.0)) for t in (a2, b2))
        u = _random._uniform01(dims, mstype.float64, self._key())
        z = np.sqrt(2.0) * math.erfinv(2.0 * (cdf_a + u * (cdf_b - cdf_a)) - 1.0)
        z = math.clamp(array.select(upper, math.neg(z), z), a, b)
        return math.cast(mu + sigma * z, dtype)


_TRUNCATED_MAX_ELEMENTS = 1_000_000  # MindSpore's documented bound on TruncatedNormal's output
_CDF_BELOW_MINUS_2 = 0.5 * erfc(2.0 / sqrt(2.0))  # the standard normal's mass below -2


class TruncatedNormal(_RandomPrimitive):
    """`TruncatedNormal(dtype=float32, seed=0, seed2=0)(shape)`: N(0, 1) samples truncated to [-2, 2], of the
    shape held by the 1-D int32/int64 Tensor `shape` (positive sizes, at most 1000000 elements in all), as `dtype`
    (float16/32/64). Drawn by inverting the normal CDF between the CDF values of -2 and 2."""

    def __init__(self, dtype=mstype.float32, seed: int = 0, seed2: int = 0) -> None:
        super().__init__(seed, seed2)
        dt = mstype.to_dtype(dtype)
        if dt not in _TRUNCATED_DTYPES:
            raise op_error(self.name, f"'dtype' must be float16, float32 or float64, but got {dt}.", TypeError)
        self.add_prim_attr("dtype", dt)

    def __call__(self, shape) -> Tensor:
        sizes = _random._shape_tensor(self.name, shape)
        if any(s <= 0 for s in sizes):
            raise op_error(self.name, f"'shape' must hold positive sizes, but got {list(sizes)}.")
        if int(np.prod(sizes)) > _TRUNCATED_MAX_ELEMENTS:
            raise op_error(self.name, f"the output may hold at most {_TRUNCATED_MAX_ELEMENTS} elements, but 'shape' "
                           f"{list(sizes)} asks for {int(np.prod(sizes))}.")  # fmt: skip
        work = mstype.float64 if self.dtype == mstype.float64 else mstype.float32
        u = _random._uniform01(sizes, work, self._key())
        z = np.sqrt(2.0) * math.erfinv(2.0 * (_CDF_BELOW_MINUS_2 + u * (1.0 - 2.0 * _CDF_BELOW_MINUS_2)) - 1.0)
        return math.cast(math.clamp(z, -2.0, 2.0), self.dtype)


class RandomGamma(_RandomPrimitive):
    """`RandomGamma(seed=0, seed2=0)(shape, alpha)`: see `ops.random_gamma`."""

    def __call__(self, shape, alpha) -> Tensor:
        return _random._random_gamma(self.name, shape, alpha, self._key())


class Gamma(_RandomPrimitive):
    """`Gamma(seed=0, seed2=0)(shape, alpha, beta)`: see `ops.gamma` (beta is the scale)."""

    def __call__(self, shape, alpha, beta) -> Tensor:
        return _random._gamma(self.name, shape, alpha, beta, self._key())


class Poisson(_RandomPrimitive):
    """`Poisson(seed=0, seed2=0)(shape, mean)`: see `ops.poisson` (int32 counts)."""

    def __call__(self, shape, mean) -> Tensor:
        return _random._poisson(self.name, shape, mean, self._key())


class RandomPoisson(_RandomPrimitive):
    """`RandomPoisson(seed=0, seed2=0, dtype=int64)(shape, rate)`: see `ops.random_poisson` (its default dtype here
    is int64)."""

    def __init__(self, seed: int = 0, seed2: int = 0, dtype=mstype.int64) -> None:
        super().__init__(seed, seed2)
        dt = mstype.to_dtype(dtype)
        if dt not in _random._POISSON_DTYPES:
            raise op_error(self.name, f"'dtype' must be float16, float32, float64, int32 or int64, but got {dt}.",
                           TypeError)  # fmt: skip
        self.add_prim_attr("dtype", dt)

    def __call__(self, shape, rate) -> Tensor:
        return _random._random_poisson(self.name, shape, rate, self.dtype, key=self._key())
