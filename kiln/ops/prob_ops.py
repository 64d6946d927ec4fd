"""Ops for `kiln.nn.probability`: log of the normal CDF, and gamma, Poisson and categorical samplers.

Each is one random primitive (input 0: the raw PRNG key) declared here with its backend function; the gamma
sampler is differentiable in its shape parameter (the backend's implicit reparameterisation gradient).
`sample_*` take the generator's next key, or a private stream when `seed` is a non-zero int.
"""

from __future__ import annotations

import numpy as np

from kiln._backend import jax, jnp
from kiln._backend import random as jrandom
from kiln._core import dtype as mstype
from kiln._core.primitive import PrimitiveDef
from kiln.ops import random as _random
from kiln.ops._helpers import apply

__all__ = ["log_ndtr", "sample_categorical", "sample_gamma", "sample_poisson"]


def _gamma(key, alpha, shape, dtype):
    return jrandom.gamma(jrandom.wrap_key_data(key), jnp.broadcast_to(alpha, shape).astype(dtype), shape, dtype)


def _poisson(key, rate, shape, dtype):
    lam = jnp.broadcast_to(rate, shape).astype(jnp.float32)
    return jrandom.poisson(jrandom.wrap_key_data(key), lam, shape).astype(dtype)


def _categorical(key, logits, shape, dtype):
    return jrandom.categorical(jrandom.wrap_key_data(key), logits, axis=-1, shape=shape).astype(dtype)


def _log_ndtr(x):
    if x.dtype in (jnp.float16, jnp.bfloat16):  # the backend has float32/float64 kernels only
        return jax.scipy.special.log_ndtr(x.astype(jnp.float32)).astype(x.dtype)
    return jax.scipy.special.log_ndtr(x)


LogNdtr = PrimitiveDef("LogNdtr", _log_ndtr)


def log_ndtr(x):
    """log(Phi(x)) of the standard normal CDF, accurate far into both tails."""
    return apply(LogNdtr, (x,))


RandomGammaStd = PrimitiveDef("RandomGammaStd", _gamma, attrs={"shape": (), "dtype": np.dtype(np.float32)}, random=True)
RandomPoissonRate = PrimitiveDef(
    "RandomPoissonRate", _poisson, attrs={"shape": (), "dtype": np.dtype(np.float32)}, nondiff=(1,), random=True
)
RandomCategoricalLogits = PrimitiveDef(
    "RandomCategoricalLogits", _categorical, attrs={"shape": (), "dtype": np.dtype(np.int32)}, nondiff=(1,), random=True
)


def _key(op: str, seed):
    return _random._key(op, None if not seed else seed)


def sample_gamma(shape, alpha, seed=None):
    """Gamma(alpha, 1) draws of `shape` (alpha broadcast to it), in alpha's float dtype."""
    dt = alpha.dtype if alpha.dtype.is_floating else mstype.float32
    return apply(RandomGammaStd, (_key("gamma", seed), alpha), (tuple(shape), dt.np))


def sample_poisson(shape, rate, seed=None, dtype=mstype.float32):
    """Poisson(rate) counts of `shape` (rate broadcast to it), as `dtype`."""
    return apply(RandomPoissonRate, (_key("poisson", seed), rate), (tuple(shape), mstype.to_dtype(dtype).np))


def sample_categorical(shape, logits, seed=None, dtype=mstype.int32):
    """Category indices of `shape` (which ends with logits' batch shape) drawn from unnormalised `logits`."""
    key = _key("categorical", seed)
    return apply(RandomCategoricalLogits, (key, logits), (tuple(shape), mstype.to_dtype(dtype).np))
