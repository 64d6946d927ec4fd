"""Dropout: a random keep mask (input 0 is the raw PRNG key) and the scaled kept values."""

from __future__ import annotations

from kiln._backend import jnp
from kiln._backend import random as jrandom
from kiln._core.primitive import op_error
from kiln._prims.nn._common import declare, require_float


def _check_dropout(key, x, *, keep_prob):
    if not 0.0 <= keep_prob <= 1.0:
        raise op_error("Dropout", f"'keep_prob' must be in [0, 1], but got {keep_prob}.")
    require_float("Dropout", "x", x)


def _dropout(key, x, *, keep_prob):
    """(x * mask / keep_prob, mask): mask entries are 1 with probability keep_prob."""
    mask = jrandom.bernoulli(jrandom.wrap_key_data(key), keep_prob, x.shape)
    out = jnp.where(mask, x / keep_prob, 0) if keep_prob > 0 else jnp.zeros_like(x)
    return out.astype(x.dtype), mask.astype(x.dtype)


Dropout = declare("Dropout", _dropout, _check_dropout, attrs={"keep_prob": 0.5}, random=True, multiple_results=True)
