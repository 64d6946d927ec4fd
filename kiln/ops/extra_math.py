"""More functional math ops: clipping, distances, counting, searching, Kronecker products, variance with mean.

Each is a primitive declared once (`kiln/_prims/math.py`) or composed from existing ops.
"""

from __future__ import annotations

import builtins

import numpy as np

from kiln._core.tensor import Tensor
from kiln._prims import math as prims_math
from kiln.ops import array, math
from kiln.ops._helpers import apply, op_error
from kiln.ops.array import gather_elements, reshape

__all__: list[str] = [
    "bincount", "cdist", "clip_by_global_norm", "clip_by_norm", "clip_by_value", "kron", "searchsorted", "std_mean",
    "var_mean",
]  # fmt: skip


def _clip_one(x, clip_value_min, clip_value_max):
    out = x
    if clip_value_min is not None:
        out = math.maximum(out, clip_value_min)
    if clip_value_max is not None:
        out = math.minimum(out, clip_value_max)
    return math.cast(out, x.dtype)  # the input's dtype, whatever the bounds' (MindSpore 2.10)


def clip_by_value(x, clip_value_min=None, clip_value_max=None):
    """Clip `x` (a Tensor, or a tuple/list of Tensors) into [clip_value_min, clip_value_max].

    Args:
        x: Tensor, or tuple/list of Tensors (each is clipped; a tuple comes back).
        clip_value_min, clip_value_max: Tensors or numbers; either may be None, not both.
    """
    if clip_value_min is None and clip_value_max is None:
        raise op_error("clip_by_value", "at least one of 'clip_value_min' and 'clip_value_max' must be given.")
    if isinstance(x, (tuple, list)):
        return tuple(_clip_one(t, clip_value_min, clip_value_max) for t in x)
    if not isinstance(x, Tensor):
        raise op_error("clip_by_value", f"'x' must be a Tensor or a tuple/list of Tensors, not {type(x).__name__}.",
                       TypeError)  # fmt: skip
    return _clip_one(x, clip_value_min, clip_value_max)


def _global_norm(xs) -> Tensor:
    total = None
    for t in xs:
        sq = math.sum(math.square(t))
        total = sq if total is None else math.add(total, sq)
    return math.sqrt(total)


def clip_by_global_norm(x, clip_norm=1.0, use_norm=None):
    """Scale the tensors of `x` so that their global L2 norm is at most `clip_norm`.

    Args:
        x: tuple or list of Tensors.
        clip_norm: positive number or scalar Tensor.
        use_norm: must be None (MindSpore accepts no other value yet).

    Returns:
        A tuple of Tensors: `t * clip_norm / max(global_norm, clip_norm)`.
    """
    if not isinstance(x, (tuple, list)) or not x:
        raise op_error("clip_by_global_norm", "'x' must be a non-empty tuple or list of Tensors.", TypeError)
    if isinstance(clip_norm, (int, float)) and clip_norm <= 0:
        raise op_error("clip_by_global_norm", f"'clip_norm' must be positive, but got {clip_norm}.")
    if use_norm is not None:
        raise op_error("clip_by_global_norm", f"'use_norm' only supports None (as in MindSpore), but got {use_norm!r}.")
    norm = _global_norm(x)
    scale = math.div(clip_norm, math.maximum(norm, clip_norm))
    return tuple(math.cast(math.mul(t, scale), t.dtype) for t in x)


def clip_by_norm(x, max_norm, norm_type=2.0, error_if_nonfinite: bool = False):
    """Clip the tensor(s) `x` so that their joint `norm_type`-norm is at most `max_norm` (PyTorch's rule)."""
    xs = list(x) if isinstance(x, (tuple, list)) else [x]
    if norm_type == float("inf"):
        total = None
        for t in xs:
            m = math.amax(math.abs(t))
            total = m if total is None else math.maximum(total, m)
    else:
        total = None
        for t in xs:
            s = math.sum(math.pow(math.abs(math.cast(t, "float32")), norm_type))
            total = s if total is None else math.add(total, s)
        total = math.pow(total, 1.0 / norm_type)
    if error_if_nonfinite and not bool(math.isfinite(total).asnumpy()):
        raise RuntimeError(f"clip_by_norm: the total norm of order {norm_type} is not finite.")
    coef = math.clamp(math.div(max_norm, math.add(total, 1e-6)), None, 1.0)
    out = [math.cast(math.mul(t, coef), t.dtype) for t in xs]
    return type(x)(out) if isinstance(x, (tuple, list)) else out[0]


def cdist(x1, x2, p: float = 2.0) -> Tensor:
    """The p-norm distance between each row of `x1` (..., P, M) and each row of `x2` (..., R, M): (..., P, R)."""
    return apply(prims_math.Cdist, (x1, x2), (float(p),))


def bincount(input, weights=None, minlength: int = 0) -> Tensor:
    """Count (or sum `weights` over) each value of the non-negative 1-D integer tensor `input`.

    The result has `max(max(input) + 1, minlength)` entries (float32, as MindSpore 2.10 gives). The length depends
    on the values, so this op reads `input` on the host (PyNative only).
    """
    if not isinstance(input, Tensor):
        raise op_error("Bincount", f"'input' must be a Tensor, but got {type(input).__name__}.", TypeError)
    if not isinstance(minlength, int) or minlength < 0:
        raise op_error("Bincount", f"'minlength' must be a non-negative int, but got {minlength!r}.")
    values = np.asarray(input.asnumpy())
    if values.size and values.min() < 0:
        raise op_error("Bincount", f"'input' must be non-negative, but it holds {values.min()}.")
    length = builtins.max(int(values.max()) + 1 if values.size else 0, minlength)
    return apply(prims_math.Bincount, (input, weights), (length,))


def searchsorted(sorted_sequence, values, *, out_int32: bool = False, right: bool = False, side=None, sorter=None):
    """Indices where `values` would be inserted into the innermost dimension of `sorted_sequence` to keep it sorted.

    Args:
        sorted_sequence: Tensor sorted along its last dimension (1-D, or with the leading dimensions of `values`).
        values: Tensor or number of values to place.
        out_int32: int32 indices instead of int64.
        right / side: return the last suitable position (`right=True` or `side="right"`) instead of the first.
        sorter: indices that sort `sorted_sequence` along its last dimension, if it is not sorted itself.
    """
    if side is not None:
        if side not in ("left", "right"):
            raise op_error("SearchSorted", f"'side' must be 'left' or 'right', but got {side!r}.")
        if right and side == "left":
            raise op_error("SearchSorted", "'side' is 'left' while 'right' is True.")
        right = side == "right"
    if sorter is not None:
        sorted_sequence = gather_elements(sorted_sequence, -1, sorter)
    scalar = not isinstance(values, Tensor)
    if scalar:
        values = Tensor(np.asarray(values, dtype=np.dtype(sorted_sequence.dtype.np)).reshape(1))
    out = apply(prims_math.SearchSorted, (sorted_sequence, values), (bool(right), bool(out_int32)))
    return reshape(out, ()) if scalar else out


def kron(input, other) -> Tensor:
    """The Kronecker product of `input` and `other` (the lower-rank one gets leading axes of size 1)."""
    a, b = input, other
    nd = builtins.max(a.ndim, b.ndim)
    a = reshape(a, (1,) * (nd - a.ndim) + tuple(a.shape))
    b = reshape(b, (1,) * (nd - b.ndim) + tuple(b.shape))
    a_exp = reshape(a, tuple(s for d in a.shape for s in (d, 1)))
    b_exp = reshape(b, tuple(s for d in b.shape for s in (1, d)))
    out = math.mul(a_exp, b_exp)
    return reshape(out, tuple(x * y for x, y in zip(a.shape, b.shape, strict=True)))


def _ddof(ddof) -> int:
    if isinstance(ddof, bool):
        return int(ddof)
    if not isinstance(ddof, int):
        raise op_error("var_mean", f"'ddof' must be an int or a bool, but got {type(ddof).__name__}.", TypeError)
    return ddof


def var_mean(input, axis=None, ddof=0, keepdims: bool = False):
    """(variance, mean) of `input` over `axis`, with `ddof` degrees of freedom removed (True means 1)."""
    return math.var(input, axis, _ddof(ddof), keepdims), math.mean(input, axis, keepdims)


def std_mean(input, axis=None, ddof=0, keepdims: bool = False):
    """(standard deviation, mean) of `input` over `axis`, with `ddof` degrees of freedom removed."""
    return math.std(input, axis, _ddof(ddof), keepdims), math.mean(input, axis, keepdims)


def nextafter(input, other) -> Tensor:
    """The next representable floating-point value after `input` towards `other`, elementwise."""
    return apply(prims_math.NextAfter, (input, other))


def matrix_band_part(x, lower, upper) -> Tensor:
    """Keep the band of each matrix (last two axes): `lower` sub-diagonals and `upper` super-diagonals (a
    negative count keeps the whole triangle); zero elsewhere."""
    low, up = (int(v.asnumpy()) if isinstance(v, Tensor) else int(v) for v in (lower, upper))
    rows, cols = x.shape[-2], x.shape[-1]
    i, j = np.arange(rows)[:, None], np.arange(cols)[None, :]
    keep = ((low < 0) | (i - j <= low)) & ((up < 0) | (j - i <= up))
    return math.mul(x, math.cast(Tensor(keep), x.dtype))


def _reduction(fn):
    def reduce(x, axis=()):
        empty = isinstance(axis, (tuple, list)) and not axis  # `axis != ()` on a Tensor would compare values
        return fn(x, None if empty else axis, False)

    reduce.__doc__ = f"MindSpore's functional `{fn.__name__}` as a ReduceX primitive instance: over `axis`."
    return reduce


reduce_sum, reduce_mean = _reduction(math.sum), _reduction(math.mean)
reduce_max, reduce_min = _reduction(math.amax), _reduction(math.amin)
reduce_prod, reduce_all, reduce_any = _reduction(math.prod), _reduction(math.all), _reduction(math.any)
__all__ += ["matrix_band_part", "nextafter", "reduce_all", "reduce_any", "reduce_max", "reduce_mean", "reduce_min",
            "reduce_prod", "reduce_sum"]  # fmt: skip


def heaviside(input, values) -> Tensor:
    """0 where input < 0, `values` where input == 0, 1 where input > 0."""
    step = math.cast(math.greater(input, 0), input.dtype)
    return array.select(math.equal(input, 0), array.broadcast_to(math.cast(values, input.dtype), input.shape), step)


def isposinf(input) -> Tensor:
    """True where `input` is +inf."""
    return math.logical_and(math.isinf(input), math.greater(input, 0))


def isneginf(input) -> Tensor:
    """True where `input` is -inf."""
    return math.logical_and(math.isinf(input), math.less(input, 0))


def frac(x) -> Tensor:
    """The fractional part, with the sign of `x`: x - trunc(x)."""
    return math.sub(x, math.trunc(x))


def _window(name: str, fn, default_dtype=np.float32):
    def window(window_length, periodic=True, *args, dtype=None, **kwargs) -> Tensor:
        if isinstance(window_length, Tensor):
            window_length = int(window_length.asnumpy())
        if not isinstance(window_length, int) or isinstance(window_length, bool) or window_length < 0:
            raise op_error(name, f"'window_length' must be a non-negative int, but got {window_length!r}.")
        if window_length == 0:
            values = np.zeros(0)
        elif window_length == 1:
            values = np.ones(1)
        else:
            n = window_length + 1 if periodic else window_length
            values = fn(n, *args, **kwargs)[:window_length]
        out = Tensor(values.astype(default_dtype))
        return out if dtype is None else math.cast(out, dtype)

    window.__name__ = window.__qualname__ = name
    window.__doc__ = (
        f"The {name.replace('_', ' ')} of `window_length` points (periodic by default), "
        f"{np.dtype(default_dtype).name} unless `dtype` says otherwise (as MindSpore 2.10)."
    )
    return window


hamming_window = _window(
    "hamming_window", lambda n, alpha=0.54, beta=0.46: alpha - beta * np.cos(2 * np.pi * np.arange(n) / (n - 1))
)
hann_window = _window("hann_window", lambda n: 0.5 - 0.5 * np.cos(2 * np.pi * np.arange(n) / (n - 1)), np.float64)
bartlett_window = _window("bartlett_window", np.bartlett)
blackman_window = _window("blackman_window", np.blackman)
kaiser_window = _window("kaiser_window", lambda n, beta=12.0: np.kaiser(n, beta), np.float64)
__all__ += ["bartlett_window", "blackman_window", "frac", "hamming_window", "hann_window", "heaviside", "isneginf",
            "isposinf", "kaiser_window"]  # fmt: skip
