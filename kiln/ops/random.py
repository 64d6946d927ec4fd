"""Random ops: `ops.uniform`, `ops.standard_normal`, `ops.randint`, `ops.shuffle`, Laplace/exponential/Bernoulli
draws, categorical sampling, candidate samplers, ... and their Primitive classes.

Without a `seed`, each call takes a fresh key from Kiln's one generator, so
`kiln.set_seed(s)` replays every draw. With a `seed` (or a Primitive built
with non-zero seeds), the op owns a reproducible stream of its own: every
call advances it, and the same seeds give the same stream in every run.
"""

from __future__ import annotations

import numbers
import zlib

import numpy as np

from kiln._core import dtype as mstype
from kiln._core import random_state
from kiln._core.tensor import Tensor
from kiln._core.unsupported import GLOBAL_STREAM, ignore_argument
from kiln._prims import random as R
from kiln._prims.nn import activation as prims_activation
from kiln.ops import array, math
from kiln.ops._helpers import apply, op_error
from kiln.ops.primitive import Primitive

__all__ = [
    "laplace",
    "standard_laplace",
    "uniform_",
    "exponential_",
    "bernoulli_",
    "random_categorical",
    "random_poisson",
    "random_gamma",
    "gamma",
    "poisson",
    "multinomial_with_replacement",
    "uniform_candidate_sampler",
    "log_uniform_candidate_sampler",
    "Bernoulli",
    "Multinomial",
    "RandomShuffle",
    "StandardNormal",
    "UniformInt",
    "UniformReal",
    "bernoulli",
    "multinomial",
    "normal",
    "rand",
    "rand_like",
    "randint",
    "randint_like",
    "randn",
    "randn_like",
    "randperm",
    "shuffle",
    "standard_normal",
    "uniform",
]


def _unit_uniform(shape, dtype=mstype.float32, seed=None):
    return uniform(tuple(shape), Tensor(0.0, dtype), Tensor(1.0, dtype), seed)


def standard_laplace(shape, seed=None) -> Tensor:
    """Samples of the Laplace distribution with location 0 and scale 1.

    Args:
        shape (tuple[int]): the output shape.
        seed (int, optional): a fixed seed.

    Returns:
        float32 Tensor.
    """
    u = _unit_uniform(shape, seed=seed) - 0.5
    return math.neg(math.sign(u) * math.log1p(-2 * math.abs(u)))


def laplace(shape, mean, lambda_param, seed=None) -> Tensor:
    """Samples of the Laplace distribution with location `mean` and scale `lambda_param` (broadcast to `shape`)."""
    return standard_laplace(shape, seed) * lambda_param + mean


def _fill_draws(op: str, input, generator, dtype=mstype.float32) -> Tensor:
    """U[0, 1) draws of `input`'s shape for the in-place fill `op` (its `generator` is not used)."""
    ignore_argument(op, "generator", generator, reason=GLOBAL_STREAM)
    return _unit_uniform(input.shape, dtype)


def uniform_(input, from_=0, to=1, *, generator=None) -> Tensor:
    """Fill `input` in place with samples of U[from_, to)."""
    u = _fill_draws("ops.uniform_", input, generator, input.dtype if input.dtype.is_floating else mstype.float32)
    return input.assign_value(math.cast(u * (to - from_) + from_, input.dtype))


def exponential_(input, lambd=1, *, generator=None) -> Tensor:
    """Fill `input` in place with samples of the exponential distribution of rate `lambd`."""
    u = _fill_draws("ops.exponential_", input, generator, input.dtype)
    return input.assign_value(math.neg(math.log1p(-u)) / lambd)


def bernoulli_(input, p=0.5, *, generator=None) -> Tensor:
    """Fill `input` in place with 0/1 samples that are 1 with probability `p`."""
    u = _fill_draws("ops.bernoulli_", input, generator)
    prob = math.cast(p, mstype.float32) if isinstance(p, Tensor) else p
    return input.assign_value(math.cast(math.less(u, prob), input.dtype))


def random_categorical(logits, num_sample, seed=0, dtype=mstype.int64) -> Tensor:
    """`num_sample` category indices per row of unnormalised log-probabilities `logits` (N, C)."""
    # the Softmax primitive itself (as `ops.softmax` applies it): this module sits below the nn ops
    probs = apply(prims_activation.Softmax, (math.cast(logits, mstype.float32),), ((-1,),))
    return math.cast(multinomial(probs, int(num_sample), True, seed or None), dtype)


def multinomial_with_replacement(x, seed, offset, numsamples, replacement=False) -> Tensor:
    """`numsamples` category indices per row of the (unnormalised) probabilities `x`, int64."""
    ignore_argument(
        "ops.multinomial_with_replacement",
        "offset",
        int(offset.asnumpy()) if isinstance(offset, Tensor) else offset,
        0,
        reason="the draws follow `seed` alone: Kiln's streams have no offset",
    )
    s = int(seed.asnumpy()) if isinstance(seed, Tensor) else seed
    return math.cast(multinomial(x, int(numsamples), bool(replacement), s or None), mstype.int64)


def _candidate_counts(true_classes, sampled, num_sampled, unique, prob):
    """Expected counts of classes in a sample of `num_sampled` draws with per-draw probability `prob(class)`."""

    def count(c):
        p = prob(math.cast(c, mstype.float32))
        if unique:
            return math.neg(math.expm1(num_sampled * math.log1p(math.neg(p))))
        return p * num_sampled

    return count(true_classes), count(sampled)


def _draw(num_sampled, range_max, unique, seed, log_uniform, exclude=None):
    seed = seed or None
    if unique:
        keys = uniform((range_max,), Tensor(0.0), Tensor(1.0), seed)
        if exclude is not None:
            keys = _without_classes(keys, exclude, num_sampled, range_max)
        if log_uniform:  # Gumbel-top-k: sampling without replacement with weights P(k)
            k = Tensor(np.arange(range_max, dtype=np.float32))
            logp = math.log(math.log((k + 2) / (k + 1)))
            keys = logp - math.log(math.neg(math.log(keys + 1e-20)) + 1e-20)
        return math.topk(keys, num_sampled)[1]
    u = uniform((num_sampled,), Tensor(0.0), Tensor(1.0), seed)
    if log_uniform:
        k = math.floor(math.exp(u * float(np.log(range_max + 1)))) - 1
        return math.cast(math.clamp(k, 0, range_max - 1), mstype.int64)
    return math.cast(math.clamp(math.floor(u * range_max), 0, range_max - 1), mstype.int64)


def _without_classes(keys, true_classes, num_sampled: int, range_max: int):
    """The top-k keys of a draw without replacement with every class of `true_classes` below all others (never
    drawn), unless the remaining classes are fewer than `num_sampled` + the distinct true classes would need (as
    MindSpore's sampler, which then keeps them). Computed in the graph: no host read of the classes."""
    classes = Tensor(np.arange(range_max, dtype=np.int64))
    flat = array.reshape(math.cast(true_classes, mstype.int64), (1, -1))
    is_true = math.reduce_any(math.equal(array.reshape(classes, (-1, 1)), flat), 1)
    distinct = math.reduce_sum(math.cast(is_true, mstype.int32))
    remove = math.logical_and(is_true, math.less_equal(distinct + num_sampled, range_max))
    return array.select(remove, array.full_like(keys, -1.0), keys)


def _check_num_true(op: str, true_classes, num_true) -> None:
    """`num_true` must be the number of true classes per row, the last size of `true_classes`."""
    if true_classes.ndim != 2 or true_classes.shape[1] != num_true:
        raise ValueError(
            f"{op}: 'true_classes' must be (batch, num_true) = (batch, {num_true}), got {tuple(true_classes.shape)}."
        )


def uniform_candidate_sampler(true_classes, num_true, num_sampled, unique, range_max, seed=0,
                              remove_accidental_hits=False):  # fmt: skip
    """Sample `num_sampled` classes uniformly from [0, range_max) (without repeats when `unique`).

    Args:
        true_classes (Tensor): (batch, num_true) int the target classes.
        num_true, num_sampled, range_max (int): as named.
        unique (bool): sample without replacement.
        seed (int): a fixed seed (0: drawn from the global generator).
        remove_accidental_hits (bool): with `unique`, no class of `true_classes` is sampled, unless `num_sampled`
            plus the number of distinct true classes exceeds `range_max` (then they may be, as in MindSpore).
            Without `unique` it changes nothing, as in MindSpore 2.10 (Kiln warns once).

    Returns:
        tuple (sampled_candidates (num_sampled,), true_expected_count (batch, num_true),
        sampled_expected_count (num_sampled,)); the counts are float32.
    """
    _check_num_true("uniform_candidate_sampler", true_classes, num_true)
    if remove_accidental_hits and not unique:
        ignore_argument(
            "ops.uniform_candidate_sampler",
            "remove_accidental_hits",
            remove_accidental_hits,
            False,
            reason="it removes true classes from a sample without repeats (unique=True) only, as in MindSpore",
        )
    if unique and num_sampled > range_max:
        raise op_error("UniformCandidateSampler", f"'num_sampled' ({num_sampled}) must not exceed 'range_max' "
                                                  f"({range_max}) when 'unique' is True.")  # fmt: skip
    exclude = true_classes if remove_accidental_hits and unique else None
    sampled = math.cast(_draw(num_sampled, range_max, unique, seed, False, exclude), true_classes.dtype)
    p = float(1.0 / range_max)
    true_c, sampled_c = _candidate_counts(true_classes, sampled, num_sampled, unique,
                                          lambda c: array.full_like(c, p))  # fmt: skip
    if unique:
        true_c = array.full_like(true_c, num_sampled / range_max)
        sampled_c = array.full_like(sampled_c, num_sampled / range_max)
    return sampled, true_c, sampled_c


def log_uniform_candidate_sampler(true_classes, num_true=1, num_sampled=5, unique=True, range_max=5, seed=0):
    """Sample `num_sampled` classes from [0, range_max) with the log-uniform (Zipfian) distribution
    P(k) = log((k + 2) / (k + 1)) / log(range_max + 1).

    Returns:
        tuple (sampled_candidates (num_sampled,) int64, true_expected_count, sampled_expected_count) (float32).
    """
    _check_num_true("log_uniform_candidate_sampler", true_classes, num_true)
    sampled = _draw(num_sampled, range_max, unique, seed, True)
    norm = float(np.log(range_max + 1))
    return (sampled, *_candidate_counts(true_classes, sampled, num_sampled, unique,
                                        lambda c: math.log((c + 2) / (c + 1)) / norm))  # fmt: skip


_streams = random_state.SEEDED_STREAMS


def _key_size() -> int:
    """Words in a raw key (read from its shape: inside a graph the current key is symbolic)."""
    return int(np.prod(random_state.current_key().shape))


def _stream_key(*material: int):
    """The next raw key of the private stream named by `material` (op seeds); graph state like a Parameter."""
    stream = _streams.get(material)
    if stream is None:
        stream = _streams[material] = _seeded_stream([m & 0xFFFFFFFF for m in material])
    return random_state.stream_next_key(stream)


def _seeded_stream(entropy: list) -> random_state.KeyStream:
    """A private generator whose first key comes from the op seeds `entropy`."""
    raw = np.random.SeedSequence(entropy).generate_state(_key_size(), np.uint32)
    return random_state.KeyStream(raw)


def _key(op: str, seed) -> object:
    if seed is None:
        return random_state.next_key()
    if not isinstance(seed, numbers.Integral) or isinstance(seed, bool):
        raise op_error(op, f"'seed' must be an int or None, but got {type(seed).__name__}.", TypeError)
    # crc32: stable across runs, unlike hash(); the global seed too, as MindSpore combines it with the op's
    return _stream_key(zlib.crc32(op.encode()), int(seed), random_state.get_seed() or 0)


_POISSON_DTYPES = (mstype.float16, mstype.float32, mstype.float64, mstype.int32, mstype.int64)


def random_poisson(shape: Tensor, rate: Tensor, seed: int | None = None, dtype=mstype.float32) -> Tensor:
    """Poisson(rate) counts of shape `shape + rate.shape`: for each index of `shape`, one draw per entry of `rate`.

    Args:
        shape (Tensor): a 1-D int32/int64 Tensor of non-negative sizes.
        rate (Tensor): the means (float16/32/64, int32 or int64).
        seed (int, optional): a non-negative int naming a private stream; None draws from the global one.
        dtype: the result's dtype (float16/32/64, int32 or int64; default float32).

    Returns:
        Tensor of shape `(*shape, *rate.shape)` and dtype `dtype`.
    """
    return _random_poisson("random_poisson", shape, rate, dtype, seed=seed)


def _random_poisson(op: str, shape, rate, dtype, *, seed=None, key=None) -> Tensor:
    """random_poisson's draw, checked in the words of `op`, from `key` or else the stream of `seed`."""
    sizes = _shape_tensor(op, shape)
    if not isinstance(rate, Tensor):
        raise op_error(op, f"'rate' must be a Tensor, but got {type(rate).__name__}.", TypeError)
    for name, dt in (("rate", rate.dtype), ("dtype", mstype.to_dtype(dtype))):
        if dt not in _POISSON_DTYPES:
            raise op_error(op, f"'{name}' must be float16, float32, float64, int32 or int64, but got {dt}.", TypeError)
    if seed is not None and (not isinstance(seed, numbers.Integral) or isinstance(seed, bool) or seed < 0):
        raise op_error(op, f"'seed' must be a non-negative int or None, but got {seed!r}.", TypeError)
    out_shape = sizes + tuple(rate.shape)
    key = key if key is not None else _key(op, seed or None)
    return apply(R.RandomPoissonRate, (key, rate), (out_shape, mstype.to_dtype(dtype).np))


def _shape_tensor(op: str, shape) -> tuple[int, ...]:
    """The sizes held by `shape`, a 1-D int32/int64 Tensor of non-negative sizes."""
    if not isinstance(shape, Tensor):
        raise op_error(op, f"'shape' must be a Tensor, but got {type(shape).__name__}.", TypeError)
    if shape.dtype not in (mstype.int32, mstype.int64):
        raise op_error(op, f"'shape' must hold int32 or int64, but got {shape.dtype}.", TypeError)
    if shape.ndim != 1:
        raise op_error(op, f"'shape' must be 1-D, but got {shape.ndim}-D.")
    sizes = tuple(int(s) for s in shape.asnumpy())
    if any(s < 0 for s in sizes):
        raise op_error(op, f"'shape' must hold non-negative sizes, but got {list(sizes)}.")
    return sizes


def _shape_tuple(op: str, shape) -> tuple[int, ...]:
    """`shape`, a tuple of positive ints known when the op is built (not a Tensor)."""
    if isinstance(shape, Tensor):
        raise op_error(op, "'shape' must be a tuple of positive ints known up front, not a Tensor.")
    if not isinstance(shape, tuple) or any(
        not isinstance(s, numbers.Integral) or isinstance(s, bool) or s <= 0 for s in shape
    ):
        raise op_error(op, f"'shape' must be a tuple of positive ints, but got {shape!r}.", TypeError)
    return tuple(int(s) for s in shape)


def _float_tensor(op: str, name: str, v, allowed) -> None:
    if not isinstance(v, Tensor):
        raise op_error(op, f"'{name}' must be a Tensor, but got {type(v).__name__}.", TypeError)
    if v.dtype not in allowed:
        raise op_error(op, f"'{name}' must be {' or '.join(map(str, allowed))}, but got {v.dtype}.", TypeError)


def _broadcast_checked(op: str, **shapes) -> tuple[int, ...]:
    try:
        return _broadcast(*shapes.values())
    except ValueError:
        listed = ", ".join(f"{k} {list(v)}" for k, v in shapes.items())
        raise op_error(op, f"the shapes do not broadcast together: {listed}.") from None


def _random_gamma(op: str, shape, alpha, key) -> Tensor:
    sizes = _shape_tensor(op, shape)
    _float_tensor(op, "alpha", alpha, (mstype.float16, mstype.float32, mstype.float64))
    out_shape = sizes + tuple(alpha.shape)
    return apply(R.RandomGammaStd, (key, alpha), (out_shape, alpha.dtype.np))


def random_gamma(shape, alpha, seed: int | None = None) -> Tensor:
    """Gamma(alpha, 1) draws: for each index of `shape`, one draw per entry of `alpha`.

    Args:
        shape (Tensor): a 1-D int32/int64 Tensor of non-negative sizes.
        alpha (Tensor): the shape parameters (> 0), float16/32/64.
        seed (int, optional): a private stream's seed; None draws from the global generator.

    Returns:
        Tensor of shape `(*shape, *alpha.shape)` and alpha's dtype.
    """
    return _random_gamma("RandomGamma", shape, alpha, _key("random_gamma", seed))


def _gamma(op: str, shape, alpha, beta, key) -> Tensor:
    sizes = _shape_tuple(op, shape)
    for name, v in (("alpha", alpha), ("beta", beta)):
        _float_tensor(op, name, v, (mstype.float32,))
    out_shape = _broadcast_checked(op, alpha=tuple(alpha.shape), beta=tuple(beta.shape), shape=sizes)
    draws = apply(R.RandomGammaStd, (key, alpha), (out_shape, np.dtype(np.float32)))
    return math.mul(draws, beta)


def gamma(shape, alpha, beta, seed: int | None = None) -> Tensor:
    """Gamma draws of shape parameter `alpha` and scale `beta` (density exp(-x/beta) x^(alpha-1) /
    (beta^alpha Gamma(alpha)), mean alpha * beta, as MindSpore's formula and examples have it).

    Args:
        shape (tuple[int]): positive sizes, broadcast with the shapes of `alpha` and `beta`.
        alpha (Tensor): float32 shape parameters (> 0).
        beta (Tensor): float32 scales (> 0).
        seed (int, optional): a private stream's seed; None draws from the global generator.

    Returns:
        float32 Tensor of the broadcast shape.
    """
    return _gamma("Gamma", shape, alpha, beta, _key("gamma", seed))


def _poisson(op: str, shape, mean, key) -> Tensor:
    sizes = _shape_tuple(op, shape)
    _float_tensor(op, "mean", mean, (mstype.float32,))
    out_shape = _broadcast_checked(op, mean=tuple(mean.shape), shape=sizes)
    return apply(R.RandomPoissonRate, (key, mean), (out_shape, np.dtype(np.int32)))


def poisson(shape, mean, seed: int | None = None) -> Tensor:
    """Poisson(mean) counts (MindSpore's deprecated `ops.poisson`; `random_poisson` is its successor).

    Args:
        shape (tuple[int]): positive sizes, broadcast with the shape of `mean`.
        mean (Tensor): float32 means (> 0).
        seed (int, optional): a private stream's seed; None draws from the global generator.

    Returns:
        int32 Tensor of the broadcast shape.
    """
    return _poisson("Poisson", shape, mean, _key("poisson", seed))


def _shape(op: str, shape) -> tuple[int, ...]:
    if isinstance(shape, Tensor):
        shape = tuple(int(s) for s in shape.asnumpy().reshape(-1))
    if isinstance(shape, numbers.Integral) and not isinstance(shape, bool):
        shape = (shape,)
    if not isinstance(shape, (tuple, list)) or any(
        not isinstance(s, numbers.Integral) or isinstance(s, bool) or s < 0 for s in shape
    ):
        raise op_error(op, f"'shape' must be a tuple of non-negative ints, but got {shape!r}.", TypeError)
    return tuple(int(s) for s in shape)


def _dtype(op: str, dtype, default, kind: str):
    dt = mstype.to_dtype(dtype) if dtype is not None else default
    ok = dt.is_floating if kind == "float" else dt.is_integer
    if not ok:
        raise op_error(op, f"'dtype' must be a{'' if kind == 'int' else ' floating'} {kind} type, but got {dt}.")
    return dt


def _size(op: str, size) -> tuple[int, ...]:
    if len(size) == 1 and isinstance(size[0], (tuple, list, Tensor)):
        size = size[0]
    return _shape(op, tuple(size))


def _broadcast(*shapes: tuple) -> tuple[int, ...]:
    return tuple(np.broadcast_shapes(*shapes))


def _tensor_shape(x) -> tuple[int, ...]:
    return tuple(x.shape) if isinstance(x, Tensor) else ()


def _require_tensor(op: str, **values) -> None:
    for name, v in values.items():
        if not isinstance(v, Tensor):
            raise op_error(op, f"'{name}' must be a Tensor, but got {type(v).__name__}.", TypeError)


def _standard_normal(shape, dtype, key) -> Tensor:
    return apply(R.StandardNormal, (key,), (shape, dtype.np))


def _uniform01(shape, dtype, key) -> Tensor:
    return apply(R.UniformReal, (key,), (shape, dtype.np))


def _uniform_int(shape, low, high, dtype, key) -> Tensor:
    return apply(R.UniformInt, (key, low, high), (shape, dtype.np))


def uniform(shape, minval, maxval, seed: int | None = None, dtype=mstype.float32) -> Tensor:
    """Samples from U[minval, maxval) (integers: [minval, maxval)).

    Args:
        shape (tuple[int]): the base shape; broadcast with the shapes of `minval` and `maxval`.
        minval (Tensor): lower bound.
        maxval (Tensor): upper bound (exclusive).
        seed (int, optional): a private stream's seed; None uses the global generator.
        dtype (mindspore.dtype): float16/32/64 or an int type. Default: float32.

    Returns:
        Tensor of the broadcast shape and `dtype`.
    """
    _require_tensor("uniform", minval=minval, maxval=maxval)
    shape = _shape("uniform", shape)
    dt = mstype.to_dtype(dtype)
    out_shape = _broadcast(shape, _tensor_shape(minval), _tensor_shape(maxval))
    key = _key("uniform", seed)
    if dt.is_integer:
        return _uniform_int(out_shape, minval, maxval, dt, key)
    if not dt.is_floating:
        raise op_error("uniform", f"'dtype' must be a float or int type, but got {dt}.", TypeError)
    u = _uniform01(out_shape, dt, key)
    lo, hi = math.cast(minval, dt), math.cast(maxval, dt)
    return math.add(math.mul(u, math.sub(hi, lo)), lo)


def standard_normal(shape, seed: int | None = None) -> Tensor:
    """Samples from N(0, 1).

    Args:
        shape (tuple[int]): output shape.
        seed (int, optional): a private stream's seed; None uses the global generator.

    Returns:
        float32 Tensor of `shape`.
    """
    return _standard_normal(_shape("standard_normal", shape), mstype.float32, _key("standard_normal", seed))


def normal(shape, mean, stddev, seed: int | None = None) -> Tensor:
    """Samples from N(mean, stddev^2); differentiable in `mean` and `stddev`.

    Args:
        shape (tuple[int]): base shape, broadcast with the shapes of `mean` and `stddev`.
        mean (Union[Tensor, float]): mean.
        stddev (Union[Tensor, float]): standard deviation.
        seed (int, optional): a private stream's seed.

    Returns:
        float32 Tensor of the broadcast shape.
    """
    shape = _shape("normal", shape)
    out_shape = _broadcast(shape, _tensor_shape(mean), _tensor_shape(stddev))
    z = _standard_normal(out_shape, mstype.float32, _key("normal", seed))
    return math.add(math.mul(z, stddev), mean)


def randint(low: int, high: int, size, seed: int | None = None, *, dtype=None) -> Tensor:
    """Integers drawn uniformly from [low, high).

    Args:
        low (int): inclusive lower bound.
        high (int): exclusive upper bound (> low).
        size (tuple[int]): output shape.
        seed (int, optional): a private stream's seed.
        dtype (mindspore.dtype, optional): an int type. Default: int64.

    Returns:
        Tensor of `size`.
    """
    for name, v in (("low", low), ("high", high)):
        if not isinstance(v, numbers.Integral) or isinstance(v, bool):
            raise op_error("randint", f"'{name}' must be an int, but got {type(v).__name__}.", TypeError)
    if low >= high:
        raise op_error("randint", f"'low' must be less than 'high', but got low={low}, high={high}.")
    dt = _dtype("randint", dtype, mstype.int64, "int")
    size = _shape("randint", size)
    return _uniform_int(size, int(low), int(high), dt, _key("randint", seed))


def rand(*size, dtype=None, seed: int | None = None) -> Tensor:
    """Samples from U[0, 1).

    Args:
        *size (int | tuple[int]): the output shape, as ints or one tuple.
        dtype (mindspore.dtype, optional): a float type. Default: float32.
        seed (int, optional): a private stream's seed.

    Returns:
        Tensor of `size`.
    """
    dt = _dtype("rand", dtype, mstype.float32, "float")
    return _uniform01(_size("rand", size), dt, _key("rand", seed))


def randn(*size, dtype=None, seed: int | None = None) -> Tensor:
    """Samples from N(0, 1); arguments and result as in `rand`."""
    dt = _dtype("randn", dtype, mstype.float32, "float")
    return _standard_normal(_size("randn", size), dt, _key("randn", seed))


def rand_like(input: Tensor, seed: int | None = None, *, dtype=None) -> Tensor:
    """U[0, 1) samples with the shape (and by default the dtype) of `input`."""
    _require_tensor("rand_like", input=input)
    dt = _dtype("rand_like", dtype, input.dtype, "float")
    return _uniform01(input.shape, dt, _key("rand_like", seed))


def randn_like(input: Tensor, seed: int | None = None, *, dtype=None) -> Tensor:
    """N(0, 1) samples with the shape (and by default the dtype) of `input`."""
    _require_tensor("randn_like", input=input)
    dt = _dtype("randn_like", dtype, input.dtype, "float")
    return _standard_normal(input.shape, dt, _key("randn_like", seed))


def randint_like(input: Tensor, low: int, high: int, seed: int | None = None, *, dtype=None) -> Tensor:
    """Integers from [low, high) with the shape (and by default the dtype, which must be an int type) of `input`."""
    _require_tensor("randint_like", input=input)
    if low >= high:
        raise op_error("randint_like", f"'low' must be less than 'high', but got low={low}, high={high}.")
    dt = _dtype("randint_like", dtype, input.dtype, "int")
    return _uniform_int(input.shape, int(low), int(high), dt, _key("randint_like", seed))


def shuffle(x: Tensor, seed: int | None = None) -> Tensor:
    """A random permutation of `x` along axis 0.

    Args:
        x (Tensor): input with at least 1 dimension.
        seed (int, optional): a private stream's seed.

    Returns:
        Tensor of the same shape and dtype.
    """
    _require_tensor("shuffle", x=x)
    if x.ndim < 1:
        raise op_error("RandomShuffle", f"the input must have at least 1 dimension, but got shape {list(x.shape)}.")
    return apply(R.RandomShuffle, (_key("RandomShuffle", seed), x))


def randperm(n: int, seed: int = 0, offset: int = 0, dtype=mstype.int64) -> Tensor:
    """A random permutation of 0 .. n-1.

    As in MindSpore, a non-negative `seed` (with `offset`) fixes the result; `seed=-1` draws
    from the global generator.

    Args:
        n (int): the number of elements.
        seed (int): the seed, or -1. Default: 0.
        offset (int): offset of the seeded stream. Default: 0.
        dtype (mindspore.dtype): output type. Default: int64.

    Returns:
        1-D Tensor of length `n`.
    """
    if isinstance(n, Tensor):
        n = int(n.item())
    if not isinstance(n, numbers.Integral) or isinstance(n, bool) or n < 0:
        raise op_error("Randperm", f"'n' must be a non-negative int, but got {n!r}.")
    dt = mstype.to_dtype(dtype)
    if seed is None or seed < 0:
        key = random_state.next_key()
    else:
        size = _key_size()
        key = np.random.SeedSequence([int(seed), int(offset)]).generate_state(size, np.uint32)
    return apply(R.Randperm, (key,), (int(n), dt.np))


def bernoulli(input: Tensor, p=0.5, seed: int | None = None) -> Tensor:
    """Elementwise Bernoulli draws: 1 with probability `p`, in the dtype and shape of `input`.

    Args:
        input (Tensor): gives the shape and dtype of the result.
        p (Union[float, Tensor]): success probability, broadcast to `input`'s shape. Default: 0.5.
        seed (int, optional): a private stream's seed.

    Returns:
        Tensor of 0s and 1s.
    """
    _require_tensor("bernoulli", input=input)
    if isinstance(p, numbers.Real) and not 0.0 <= p <= 1.0:
        raise op_error("bernoulli", f"'p' must be in [0, 1], but got {p}.")
    return apply(R.Bernoulli, (_key("bernoulli", seed), input, p))


def multinomial(input: Tensor, num_samples: int, replacement: bool = True, seed: int | None = None) -> Tensor:
    """Category indices drawn with probabilities proportional to the rows of `input`.

    Args:
        input (Tensor): non-negative weights, 1-D or 2-D (one distribution per row).
        num_samples (int): draws per distribution.
        replacement (bool): draw with replacement. Default: True.
        seed (int, optional): a private stream's seed.

    Returns:
        int32 Tensor of shape (num_samples,) or (rows, num_samples).
    """
    _require_tensor("multinomial", input=input)
    out = apply(R.Multinomial, (_key("multinomial", seed), input), (int(num_samples), bool(replacement)))
    return math.cast(out, mstype.int32)


class _RandomPrimitive(Primitive):
    """A random Primitive with MindSpore's (seed, seed2): both 0 means the global generator."""

    def __init__(self, seed: int = 0, seed2: int = 0) -> None:
        super().__init__()
        for name, v in (("seed", seed), ("seed2", seed2)):
            if not isinstance(v, numbers.Integral) or isinstance(v, bool) or v < 0:
                raise op_error(self.name, f"'{name}' must be a non-negative int, but got {v!r}.", TypeError)
        self.add_prim_attr("seed", seed)
        self.add_prim_attr("seed2", seed2)
        self._stream = None

    def _key(self):
        if self.seed == 0 and self.seed2 == 0:
            return random_state.next_key()
        if self._stream is None:  # this Primitive's own generator, advanced by every draw, in graphs too
            self._stream = _seeded_stream([self.seed, self.seed2])
        return random_state.stream_next_key(self._stream)


class StandardNormal(_RandomPrimitive):
    """`StandardNormal(seed, seed2)(shape)`: float32 samples from N(0, 1)."""

    def __call__(self, shape) -> Tensor:
        return _standard_normal(_shape(self.name, shape), mstype.float32, self._key())


class UniformReal(_RandomPrimitive):
    """`UniformReal(seed, seed2)(shape)`: float32 samples from U[0, 1)."""

    def __call__(self, shape) -> Tensor:
        return _uniform01(_shape(self.name, shape), mstype.float32, self._key())


class UniformInt(_RandomPrimitive):
    """`UniformInt(seed, seed2)(shape, minval, maxval)`: int32 samples from [minval, maxval)."""

    def __call__(self, shape, minval, maxval) -> Tensor:
        _require_tensor(self.name, minval=minval, maxval=maxval)
        for name, v in (("minval", minval), ("maxval", maxval)):
            if not v.dtype.is_integer or v.ndim != 0:
                raise op_error(self.name, f"'{name}' must be an int scalar Tensor, but got {v.dtype}{list(v.shape)}.")
        return _uniform_int(_shape(self.name, shape), minval, maxval, mstype.int32, self._key())


class RandomShuffle(_RandomPrimitive):
    """`RandomShuffle(seed, seed2)(x)`: a random permutation of `x` along axis 0."""

    def __call__(self, x) -> Tensor:
        _require_tensor(self.name, x=x)
        if x.ndim < 1:
            raise op_error(self.name, f"the input must have at least 1 dimension, but got shape {list(x.shape)}.")
        return apply(R.RandomShuffle, (self._key(), x))


class Multinomial(_RandomPrimitive):
    """`Multinomial(seed, seed2, dtype=int32)(x, num_samples)`: draws with replacement."""

    def __init__(self, seed: int = 0, seed2: int = 0, dtype=mstype.int32) -> None:
        super().__init__(seed, seed2)
        self.add_prim_attr("dtype", mstype.to_dtype(dtype))

    def __call__(self, x, num_samples) -> Tensor:
        out = apply(R.Multinomial, (self._key(), x), (int(num_samples), True))
        return math.cast(out, self.dtype)


class Bernoulli(Primitive):
    """`Bernoulli(seed=-1, offset=0)(x, p)`: 1 with probability p, shaped and typed like x."""

    def __init__(self, seed: int = -1, offset: int = 0) -> None:
        super().__init__()
        self.add_prim_attr("seed", seed)
        self.add_prim_attr("offset", offset)

    def __call__(self, x, p=0.5) -> Tensor:
        return bernoulli(x, p, None if self.seed < 0 else self.seed)
