"""Ops for `kiln.nn.probability`: log of the normal CDF, and gamma, Poisson and categorical samplers.

Each is one random primitive (input 0: the raw PRNG key) declared here with its backend function; the gamma
sampler is differentiable in its shape parameter (the backend's implicit reparameterisation gradient).
`sample_*` take the generator's next key, or a private stream when `seed` is a non-zero int.
"""

from __future__ import annotations

from kiln._core import dtype as mstype
from kiln._prims import random as prims_random
from kiln._prims import special as prims_special
from kiln.ops import random as _random
from kiln.ops._helpers import apply

__all__ = ["log_ndtr", "sample_categorical", "sample_gamma", "sample_poisson"]


def log_ndtr(x):
    """log(Phi(x)) of the standard normal CDF, accurate far into both tails."""
    return apply(prims_special.LogNdtr, (x,))


def _key(op: str, seed):
    return _random._key(op, None if not seed else seed)


def sample_gamma(shape, alpha, seed=None):
    """Gamma(alpha, 1) draws of `shape` (alpha broadcast to it), in alpha's float dtype."""
    dt = alpha.dtype if alpha.dtype.is_floating else mstype.float32
    return apply(prims_random.RandomGammaStd, (_key("gamma", seed), alpha), (tuple(shape), dt.np))


def sample_poisson(shape, rate, seed=None, dtype=mstype.float32):
    """Poisson(rate) counts of `shape` (rate broadcast to it), as `dtype`."""
    return apply(
        prims_random.RandomPoissonRate, (_key("poisson", seed), rate), (tuple(shape), mstype.to_dtype(dtype).np)
    )


def sample_categorical(shape, logits, seed=None, dtype=mstype.int32):
    """Category indices of `shape` (which ends with logits' batch shape) drawn from unnormalised `logits`."""
    key = _key("categorical", seed)
    return apply(prims_random.RandomCategoricalLogits, (key, logits), (tuple(shape), mstype.to_dtype(dtype).np))
