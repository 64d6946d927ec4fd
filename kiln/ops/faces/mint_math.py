"""mint's faces of the elementwise math ops, the reductions, sorting and top-k: PyTorch's argument names,
defaults and return forms over the functional ops."""

from __future__ import annotations

from kiln._core import dtype as mstype
from kiln._core.tensor import Tensor
from kiln.ops.faces.mint_args import _arg_extreme, _cast, _dims, _extreme, _int64, _int_accumulator, _norm_dim
from kiln.ops.faces.row import _named, ops

__all__ = [
    "_mint_addcdiv",
    "_mint_addcmul",
    "_mint_all",
    "_mint_amax",
    "_mint_amin",
    "_mint_any",
    "_mint_argmax",
    "_mint_argmin",
    "_mint_argsort",
    "_mint_clamp",
    "_mint_count_nonzero",
    "_mint_cummax",
    "_mint_cummin",
    "_mint_cumprod",
    "_mint_cumsum",
    "_mint_div",
    "_mint_equal",
    "_mint_kthvalue",
    "_mint_logsumexp",
    "_mint_max",
    "_mint_mean",
    "_mint_median",
    "_mint_min",
    "_mint_nansum",
    "_mint_norm",
    "_mint_pow",
    "_mint_prod",
    "_mint_round",
    "_mint_sort",
    "_mint_std",
    "_mint_std_mean",
    "_mint_sum",
    "_mint_topk",
    "_mint_var",
    "_mint_var_mean",
]


@_named("div")
def _mint_div(input, other, *, rounding_mode=None) -> Tensor:
    """input / other, rounded as `rounding_mode` says (None, 'floor' or 'trunc')."""
    return ops.div(input, other, rounding_mode=rounding_mode)


@_named("pow")
def _mint_pow(input, exponent) -> Tensor:  # noqa: A001
    """input ** exponent (either may be a number)."""
    return ops.pow(input, exponent)


@_named("clamp")
def _mint_clamp(input, min=None, max=None) -> Tensor:  # noqa: A002
    """Clip `input` into [min, max] (bounds are numbers or tensors; either may be None)."""
    return ops.clamp(input, min, max)


@_named("round")
def _mint_round(input, *, decimals: int = 0) -> Tensor:  # noqa: A001
    """Round half to even, at `decimals` decimal places.

    Args:
        input (Tensor): the input.
        decimals (int): number of decimal places. Default: 0.

    Returns:
        Tensor of the input's dtype.
    """
    if decimals == 0:
        return ops.round(input)
    scale = 10.0**decimals
    return ops.div(ops.round(ops.mul(input, scale)), scale)


@_named("addcdiv")
def _mint_addcdiv(input, tensor1, tensor2, *, value=1) -> Tensor:
    """input + value * tensor1 / tensor2."""
    return ops.add(input, ops.mul(ops.div(tensor1, tensor2), value))


@_named("addcmul")
def _mint_addcmul(input, tensor1, tensor2, *, value=1) -> Tensor:
    """input + value * tensor1 * tensor2."""
    return ops.add(input, ops.mul(ops.mul(tensor1, tensor2), value))


@_named("equal")
def _mint_equal(input, other) -> bool:
    """True when `input` and `other` have the same shape and the same values."""
    if tuple(input.shape) != tuple(other.shape):
        return False
    return bool(ops.all(ops.equal(input, other)))


@_named("sum")
def _mint_sum(input, dim=None, keepdim: bool = False, *, dtype=None) -> Tensor:  # noqa: A001
    """Sum over `dim` (None: every dimension); bool and integer inputs sum as int64.

    Args:
        input (Tensor): the input.
        dim (int | tuple[int] | None): dimensions to reduce.
        keepdim (bool): keep the reduced dimensions with size 1.
        dtype: the result's dtype.

    Returns:
        Tensor.
    """
    if dtype is None and (input.dtype == mstype.bool_ or input.dtype.is_integer):
        dtype = mstype.int64
    return ops.sum(_cast(input, dtype), _dims(dim), keepdim)


@_named("nansum")
def _mint_nansum(input, dim=None, keepdim: bool = False, *, dtype=None) -> Tensor:
    """Sum over `dim`, NaN counted as zero."""
    return ops.nansum(_cast(input, dtype), _dims(dim), keepdim)


@_named("mean")
def _mint_mean(input, dim=None, keepdim: bool = False, *, dtype=None) -> Tensor:
    """Mean over `dim` (None: every dimension)."""
    return ops.mean(_cast(input, dtype), _dims(dim), keepdim)


@_named("prod")
def _mint_prod(input, dim=None, keepdim: bool = False, *, dtype=None) -> Tensor:
    """Product over `dim` (None: every dimension); integer inputs multiply as int64."""
    if dtype is None and (input.dtype == mstype.bool_ or input.dtype.is_integer):
        dtype = mstype.int64
    return ops.prod(_cast(input, dtype), _dims(dim), keepdim)


@_named("all")
def _mint_all(input, dim=None, keepdim: bool = False) -> Tensor:  # noqa: A001
    """True where every element over `dim` is non-zero."""
    return ops.all(input, _dims(dim), keepdim)


@_named("any")
def _mint_any(input, dim=None, keepdim: bool = False) -> Tensor:  # noqa: A001
    """True where some element over `dim` is non-zero."""
    return ops.any(input, _dims(dim), keepdim)


@_named("amax")
def _mint_amax(input, dim=(), keepdim: bool = False) -> Tensor:
    """Maximum over `dim` (() or None: every dimension)."""
    return ops.amax(input, _dims(dim), keepdim)


@_named("amin")
def _mint_amin(input, dim=(), keepdim: bool = False) -> Tensor:
    """Minimum over `dim` (() or None: every dimension)."""
    return ops.amin(input, _dims(dim), keepdim)


@_named("max")
def _mint_max(input, dim=None, keepdim: bool = False):  # noqa: A001
    """`max(input)`: the largest element; `max(input, dim, keepdim=False)`: (values, indices) along `dim`;
    `max(input, other)`: elementwise maximum.

    Args:
        input (Tensor): the input.
        dim (int | Tensor | None): the dimension, or the other tensor.
        keepdim (bool): keep `dim` with size 1.

    Returns:
        Tensor, or a tuple (values, int64 indices).
    """
    return _extreme(ops.amax, lambda x, d, k: ops.max(x, d, k), ops.maximum, input, dim, keepdim, "max")


@_named("min")
def _mint_min(input, dim=None, keepdim: bool = False):  # noqa: A001
    """`min(input)`, `min(input, dim, keepdim=False)` -> (values, indices), or `min(input, other)`."""
    return _extreme(ops.amin, lambda x, d, k: ops.min(x, d, k), ops.minimum, input, dim, keepdim, "min")


@_named("argmax")
def _mint_argmax(input, dim=None, keepdim: bool = False) -> Tensor:
    """Index (int64) of the largest element along `dim` (None: of the flattened input)."""
    return _arg_extreme(ops.argmax, input, dim, keepdim)


@_named("argmin")
def _mint_argmin(input, dim=None, keepdim: bool = False) -> Tensor:
    """Index (int64) of the smallest element along `dim` (None: of the flattened input)."""
    return _arg_extreme(ops.argmin, input, dim, keepdim)


@_named("logsumexp")
def _mint_logsumexp(input, dim, keepdim: bool = False) -> Tensor:
    """log(_mint_sum(exp(input))) over `dim`, computed stably."""
    return ops.logsumexp(input, _dims(dim), keepdim)


@_named("median")
def _mint_median(input, dim=None, keepdim: bool = False):
    """`median(input)`: the lower median of all elements; with `dim`: (values, indices) along it."""
    if dim is None:
        values, _ = ops.median(ops.reshape(input, (-1,)), 0)
        return values
    values, indices = ops.median(input, dim, keepdim)
    return values, _int64(indices)


@_named("std")
def _mint_std(input, dim=None, *, correction: int = 1, keepdim: bool = False) -> Tensor:
    """Standard deviation over `dim`, with `correction` (Bessel's: 1) subtracted from the count."""
    return ops.std(input, _dims(dim), ddof=int(correction), keepdims=keepdim)


@_named("var")
def _mint_var(input, dim=None, *, correction: int = 1, keepdim: bool = False) -> Tensor:
    """Variance over `dim`, with `correction` subtracted from the count."""
    return ops.var(input, _dims(dim), ddof=int(correction), keepdims=keepdim)


@_named("std_mean")
def _mint_std_mean(input, dim=None, *, correction: int = 1, keepdim: bool = False):
    """(std, mean) over `dim`."""
    return ops.std_mean(input, _dims(dim), ddof=int(correction), keepdims=keepdim)


@_named("var_mean")
def _mint_var_mean(input, dim=None, *, correction: int = 1, keepdim: bool = False):
    """(var, mean) over `dim`."""
    return ops.var_mean(input, _dims(dim), ddof=int(correction), keepdims=keepdim)


@_named("count_nonzero")
def _mint_count_nonzero(input, dim=None) -> Tensor:
    """Number of non-zero elements over `dim` (None: all), as int64."""
    axis = () if dim is None else dim
    return ops.count_nonzero(input, axis, False, mstype.int64)


@_named("norm")
def _mint_norm(input, p="fro", dim=None, keepdim: bool = False, *, dtype=None) -> Tensor:
    """Vector or matrix norm: p a number (vector p-norm over `dim`, all elements when None), 'fro' or 'nuc'.

    Args:
        input (Tensor): the input.
        p (float | str): the order. Default: 'fro'.
        dim (int | tuple[int] | None): dimensions of the norm.
        keepdim (bool): keep the reduced dimensions.
        dtype: compute in this dtype.

    Returns:
        Tensor.
    """
    x = _cast(input, dtype)
    if p == "fro":
        if isinstance(dim, (tuple, list)) and len(dim) > 2:
            raise ValueError(f"norm(): 'fro' takes at most 2 dimensions, but got dim={dim}.")
        return ops.vector_norm(x, 2, _dims(dim), keepdim)
    if p == "nuc":
        return ops.matrix_norm(x, "nuc", (-2, -1) if dim is None else tuple(dim), keepdim)
    return ops.vector_norm(x, float(p), _dims(dim), keepdim)


@_named("cumsum")
def _mint_cumsum(input, dim: int, dtype=None) -> Tensor:
    """Cumulative sum along `dim` (integer and bool inputs sum as int64 unless `dtype`)."""
    return ops.cumsum(input, dim, _int_accumulator(input, dtype))


@_named("cumprod")
def _mint_cumprod(input, dim: int, dtype=None) -> Tensor:
    """Cumulative product along `dim` (integer and bool inputs multiply as int64 unless `dtype`)."""
    return ops.cumprod(input, dim, _int_accumulator(input, dtype))


@_named("cummax")
def _mint_cummax(input, dim: int):
    """(values, int64 indices) of the running maximum along `dim`."""
    values, indices = ops.cummax(input, dim)
    return values, _int64(indices)


@_named("cummin")
def _mint_cummin(input, dim: int):
    """(values, int64 indices) of the running minimum along `dim`."""
    values, indices = ops.cummin(input, dim)
    return values, _int64(indices)


@_named("sort")
def _mint_sort(input, *, dim: int = -1, descending: bool = False, stable: bool = False):
    """(sorted values, int64 indices) along `dim` (ties keep their order)."""
    values, indices = ops.sort(input, dim, descending)
    return values, _int64(indices)


@_named("argsort")
def _mint_argsort(input, dim: int = -1, descending: bool = False, stable: bool = False) -> Tensor:
    """Indices that sort `input` along `dim`."""
    return _int64(ops.argsort(input, dim, descending))


@_named("topk")
def _mint_topk(input, k: int, dim: int = -1, largest: bool = True, sorted: bool = True):  # noqa: A002
    """(values, indices) of the k largest (or smallest) elements along `dim`."""
    values, indices = ops.topk(input, k, dim, largest, sorted)
    return values, _int64(indices)


@_named("kthvalue")
def _mint_kthvalue(input, k: int, dim: int = -1, keepdim: bool = False):
    """(values, int64 indices) of the k-th smallest element along `dim` (k counts from 1).

    Args:
        input (Tensor): the input.
        k (int): which order statistic, 1 <= k <= size of `dim`.
        dim (int): the dimension. keepdim (bool): keep `dim` with size 1.

    Returns:
        tuple (values, indices).
    """
    d = _norm_dim(dim, input.ndim)
    n = input.shape[d] if input.ndim else 1
    if not 1 <= k <= n:
        raise ValueError(f"kthvalue(): 'k' must be in [1, {n}], but got {k}.")
    values, indices = ops.sort(input, d)
    values, indices = ops.narrow(values, d, k - 1, 1), ops.narrow(indices, d, k - 1, 1)
    if not keepdim:
        values, indices = ops.squeeze(values, d), ops.squeeze(indices, d)
    return values, ops.cast(indices, mstype.int64)
