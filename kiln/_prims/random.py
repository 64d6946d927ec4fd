"""Random primitives (samplers, gamma/Poisson/categorical, choice with mask).

Input 0 is always a raw PRNG key from `kiln._core.random_state`.

Shapes and dtypes are attributes (static); distribution parameters are inputs.
"""

from __future__ import annotations

import numpy as np

from kiln._backend import jax, jnp
from kiln._backend import random as jrandom
from kiln._core.primitive import PrimitiveDef, op_error
from kiln._prims._checks import broadcast_shapes, shape_of


def _key(raw):
    return jrandom.wrap_key_data(raw)


def _check_shape(op: str, shape) -> None:
    if not isinstance(shape, tuple) or any(not isinstance(s, int) or isinstance(s, bool) or s < 0 for s in shape):
        raise op_error(op, f"'shape' must be a tuple of non-negative ints, but got {shape!r}.")


def _check_float_dtype(op: str, dtype) -> None:
    if not jnp.issubdtype(dtype, jnp.floating):
        raise op_error(op, f"'dtype' must be a floating-point type, but got {np.dtype(dtype).name}.", TypeError)


def _check_sampler(op: str):
    def check(key, shape, dtype):
        _check_shape(op, shape)
        _check_float_dtype(op, dtype)

    return check


def _float_sampler(name: str, draw) -> PrimitiveDef:
    """The random primitive `name`: `draw(key, shape, dtype)` of a float `dtype` (float32 by default)."""
    return PrimitiveDef(
        name,
        lambda key, shape, dtype: draw(_key(key), shape, dtype),
        attrs={"shape": (), "dtype": np.dtype(np.float32)},
        check=_check_sampler(name),
        random=True,
    )


StandardNormal = _float_sampler("StandardNormal", jrandom.normal)
UniformReal = _float_sampler("UniformReal", jrandom.uniform)


def _uniform_int(key, minval, maxval, shape, dtype):
    return jrandom.randint(_key(key), shape, jnp.asarray(minval), jnp.asarray(maxval), dtype)


def _check_uniform_int(key, minval, maxval, shape, dtype):
    _check_shape("UniformInt", shape)
    if not jnp.issubdtype(dtype, jnp.integer):
        raise op_error("UniformInt", f"'dtype' must be an integer type, but got {np.dtype(dtype).name}.", TypeError)
    for name, v in (("minval", minval), ("maxval", maxval)):
        dt = getattr(v, "dtype", None)
        if dt is not None and not jnp.issubdtype(getattr(dt, "np", dt), jnp.integer):
            raise op_error("UniformInt", f"'{name}' must be an integer tensor, but got {dt}.", TypeError)
        broadcast_shapes("UniformInt", shape, shape_of(v))


UniformInt = PrimitiveDef(
    "UniformInt",
    _uniform_int,
    attrs={"shape": (), "dtype": np.dtype(np.int64)},
    check=_check_uniform_int,
    nondiff=(1, 2),
    random=True,
)


def _check_rank1(op: str):
    def check(key, x, **_):
        if len(shape_of(x)) < 1:
            raise op_error(op, f"the input must have at least 1 dimension, but got shape {list(shape_of(x))}.")

    return check


RandomShuffle = PrimitiveDef(
    "RandomShuffle",
    lambda key, x: jrandom.permutation(_key(key), x, axis=0, independent=False),
    check=_check_rank1("RandomShuffle"),
    nondiff=(1,),
    random=True,
)


def _check_randperm(key, n, dtype):
    if not isinstance(n, int) or n < 0:
        raise op_error("Randperm", f"'n' must be a non-negative int, but got {n!r}.")
    if not jnp.issubdtype(dtype, jnp.number):
        raise op_error("Randperm", f"'dtype' must be a numeric type, but got {np.dtype(dtype).name}.", TypeError)


Randperm = PrimitiveDef(
    "Randperm",
    lambda key, n, dtype: jrandom.permutation(_key(key), n).astype(dtype),
    attrs={"n": 1, "dtype": np.dtype(np.int64)},
    check=_check_randperm,
    random=True,
)


def _bernoulli(key, x, p):
    p = jnp.asarray(p)
    draws = jrandom.uniform(_key(key), jnp.shape(x), jnp.promote_types(p.dtype, jnp.float32))
    return (draws < p).astype(x.dtype)


def _check_bernoulli(key, x, p):
    out = broadcast_shapes("Bernoulli", shape_of(x), shape_of(p))
    if out != tuple(shape_of(x)):
        raise op_error(
            "Bernoulli", f"'p' with shape {list(shape_of(p))} must broadcast to the input's {list(shape_of(x))}."
        )


Bernoulli = PrimitiveDef("Bernoulli", _bernoulli, check=_check_bernoulli, nondiff=(1, 2), random=True)


def _multinomial(key, probs, num_samples, replacement):
    logits = jnp.log(jnp.asarray(probs, jnp.promote_types(probs.dtype, jnp.float32)))
    batch = probs.shape[:-1]
    if replacement:
        out = jrandom.categorical(_key(key), logits[..., None, :], axis=-1, shape=(*batch, num_samples))
    else:
        # Gumbel top-k: the k largest perturbed log-probabilities are a draw without replacement.
        gumbel = jrandom.gumbel(_key(key), logits.shape, logits.dtype)
        out = jax.lax.top_k(logits + gumbel, num_samples)[1]
    return out.astype(jnp.int64)


def _check_multinomial(key, probs, num_samples, replacement):
    shape = shape_of(probs)
    if len(shape) not in (1, 2):
        raise op_error("Multinomial", f"the input must be 1-D or 2-D, but got shape {list(shape)}.")
    if not isinstance(num_samples, int) or num_samples <= 0:
        raise op_error("Multinomial", f"'num_samples' must be a positive int, but got {num_samples!r}.")
    if not replacement and num_samples > shape[-1]:
        raise op_error(
            "Multinomial",
            f"without replacement 'num_samples' ({num_samples}) cannot exceed the number of categories ({shape[-1]}).",
        )


Multinomial = PrimitiveDef(
    "Multinomial",
    _multinomial,
    attrs={"num_samples": 1, "replacement": True},
    check=_check_multinomial,
    nondiff=(1,),
    random=True,
)


def _choice_with_mask(key, x, count):
    """`count` positions of True entries of `x` in random order (int32 (count, rank)), and which are real."""
    flat = x.reshape(-1)
    n = flat.shape[0]
    perm = jrandom.permutation(jrandom.wrap_key_data(key), n)
    chosen = flat[perm]
    order = jnp.argsort(~chosen, stable=True)  # the True ones first, in the random order
    picked = perm[order]
    valid = chosen[order]
    if count > n:
        picked = jnp.concatenate([picked, jnp.zeros(count - n, picked.dtype)])
        valid = jnp.concatenate([valid, jnp.zeros(count - n, bool)])
    picked, valid = picked[:count], valid[:count]
    coords = jnp.stack(jnp.unravel_index(picked, x.shape), axis=-1).astype(jnp.int32)
    coords = jnp.where(valid[:, None], coords, 0)
    return coords, valid


def _check_choice(key, x, count):
    if getattr(x, "dtype", None) is not None and x.dtype.kind != "b":
        raise op_error("RandomChoiceWithMask", f"'input_x' must be a bool Tensor, but got {x.dtype}.", TypeError)
    if not 1 <= len(x.shape) <= 5:
        raise op_error("RandomChoiceWithMask", f"the rank of 'input_x' must be in [1, 5], but got {len(x.shape)}.")
    if count <= 0:
        raise op_error("RandomChoiceWithMask", f"'count' must be positive, but got {count}.")


RandomChoiceWithMask = PrimitiveDef(
    "RandomChoiceWithMask",
    _choice_with_mask,
    attrs={"count": 256},
    check=_check_choice,
    multiple_results=True,
    nondiff=(1,),
    random=True,
)


def _gamma(key, alpha, shape, dtype):
    return jrandom.gamma(jrandom.wrap_key_data(key), jnp.broadcast_to(alpha, shape).astype(dtype), shape, dtype)


def _poisson(key, rate, shape, dtype):
    lam = jnp.broadcast_to(rate, shape).astype(jnp.float32)
    return jrandom.poisson(jrandom.wrap_key_data(key), lam, shape).astype(dtype)


def _categorical(key, logits, shape, dtype):
    return jrandom.categorical(jrandom.wrap_key_data(key), logits, axis=-1, shape=shape).astype(dtype)


RandomGammaStd = PrimitiveDef("RandomGammaStd", _gamma, attrs={"shape": (), "dtype": np.dtype(np.float32)}, random=True)
RandomPoissonRate = PrimitiveDef(
    "RandomPoissonRate", _poisson, attrs={"shape": (), "dtype": np.dtype(np.float32)}, nondiff=(1,), random=True
)
RandomCategoricalLogits = PrimitiveDef(
    "RandomCategoricalLogits", _categorical, attrs={"shape": (), "dtype": np.dtype(np.int32)}, nondiff=(1,), random=True
)
