"""Reductions and statistics of `kiln.numpy`: sums, means, extrema, variances, their NaN-skipping forms,
cumulative sums and products."""

from __future__ import annotations

import builtins

import numpy as np

from kiln import ops
from kiln._core import dtype as mstype
from kiln._core.tensor import Tensor
from kiln.numpy._utils import as_float, axes_of, axis_of, cast, finish, is_float, to_tensor

__all__ = [
    "sum", "mean", "amax", "amin", "max", "min", "var", "std", "average", "ptp", "count_nonzero", "argmax",
    "argmin", "cumsum", "cumprod", "nancumsum", "nansum", "nanmean", "nanvar", "nanstd", "nanmax", "nanmin",
    "sometrue", "size", "prod", "all", "any", "alltrue",
]  # fmt: skip


def _axes(a: Tensor, axis):
    """mindspore.numpy reduces over every axis for None and for ()."""
    if axis is None or (isinstance(axis, (tuple, list)) and not axis):
        return None
    return axes_of(axis, a.ndim)


def sum(a, axis=None, dtype=None, keepdims: bool = False, initial=None) -> Tensor:  # noqa: A001
    """Sum over `axis` (None: every axis).

    Args:
        a (Tensor | number | list): the input.
        axis (int | tuple | None): the axes to reduce.
        dtype: the result's dtype (bool and small ints sum in int64 by default, as MindSpore).
        keepdims (bool): keep reduced axes with size 1.
        initial (number): a value added to the sum.

    Returns:
        Tensor.
    """
    a = to_tensor(a)
    out = ops.sum(a, _axes(a, axis), keepdims, dtype=dtype)
    if initial is not None:
        out = ops.add(out, initial)
    return out


def prod(a, axis=None, dtype=None, keepdims: bool = False, initial=None) -> Tensor:
    """Product over `axis` (None: every axis); see `sum` for the arguments."""
    a = to_tensor(a)
    out = ops.prod(a, _axes(a, axis), keepdims)
    if initial is not None:
        out = ops.mul(out, initial)
    return finish(out, dtype)


def mean(a, axis=None, keepdims: bool = False, dtype=None) -> Tensor:
    """Arithmetic mean over `axis` (integer input averages in its own dtype, as MindSpore).

    Args:
        a (Tensor | number | list): the input.
        axis (int | tuple | None): the axes to reduce.
        keepdims (bool): keep reduced axes with size 1.
        dtype: the result's dtype.

    Returns:
        Tensor.
    """
    a = to_tensor(a)
    return finish(ops.mean(a, _axes(a, axis), keepdims), dtype)


def _extremum(a, axis, keepdims, initial, where, largest: bool) -> Tensor:
    a = to_tensor(a)
    reduce = ops.amax if largest else ops.amin
    if where is not True and where is not None:
        if initial is None:
            raise ValueError("kiln.numpy: reducing with 'where' needs an 'initial' value.")
        mask = ops.broadcast_to(to_tensor(where, mstype.bool_), tuple(a.shape))
        a = ops.select(mask, a, ops.full_like(a, initial))
    out = reduce(a, _axes(a, axis), keepdims)
    if initial is not None:
        if not isinstance(initial, (bool, int, float, np.generic)):
            raise TypeError(f"kiln.numpy: 'initial' must be a scalar, but got {type(initial).__name__}.")
        bound = ops.cast(to_tensor(initial), out.dtype)
        out = ops.maximum(out, bound) if largest else ops.minimum(out, bound)
    return out


def amax(a, axis=None, keepdims: bool = False, initial=None, where=True) -> Tensor:
    """Largest value over `axis`.

    Args:
        a (Tensor | number | list): the input.
        axis (int | tuple | None): the axes to reduce.
        keepdims (bool): keep reduced axes with size 1.
        initial (number): a lower bound of the result (needed with `where`).
        where (Tensor | bool): the elements to compare.

    Returns:
        Tensor.
    """
    return _extremum(a, axis, keepdims, initial, where, True)


def amin(a, axis=None, keepdims: bool = False, initial=None, where=True) -> Tensor:
    """Smallest value over `axis`; see `amax` for the arguments."""
    return _extremum(a, axis, keepdims, initial, where, False)


max = amax  # noqa: A001
min = amin  # noqa: A001


def var(x, axis=None, ddof: int = 0, keepdims: bool = False) -> Tensor:
    """Variance over `axis`, divided by N - ddof (float32 for integer input).

    Args:
        x (Tensor | number | list): the input.
        axis (int | tuple | None): the axes to reduce.
        ddof (int): delta degrees of freedom.
        keepdims (bool): keep reduced axes with size 1.

    Returns:
        Tensor.
    """
    # Integer input: the exact variance in float32 (mindspore.numpy 2.10 centres it on an integer mean instead).
    x = as_float(to_tensor(x))
    return ops.var(x, _axes(x, axis), ddof, keepdims)


def std(x, axis=None, ddof: int = 0, keepdims: bool = False) -> Tensor:
    """Standard deviation over `axis`; see `var` for the arguments."""
    return ops.sqrt(var(x, axis, ddof, keepdims))


def average(x, axis=None, weights=None, returned: bool = False):
    """Weighted mean over `axis`.

    Args:
        x (Tensor | number | list): the input.
        axis (int | tuple | None): the axes to reduce.
        weights (Tensor | list | None): weights of the shape of `x`, or 1-D along a single `axis`.
        returned (bool): also return the sum of the weights.

    Returns:
        Tensor, or (average, sum of weights).
    """
    x = to_tensor(x)
    axes = _axes(x, axis)
    if weights is None:
        avg = ops.mean(as_float(x), axes)
        if not is_float(x):  # mindspore.numpy: integer input averages to its dtype, rounded
            avg = cast(ops.round(avg), x.dtype)
        count = x.size if axes is None else int(_prod_of(x.shape[i] for i in axes))
        wsum = ops.full_like(avg, count)
    else:
        w = to_tensor(weights)
        if tuple(w.shape) != tuple(x.shape):
            if axes is None or len(axes) != 1 or w.ndim != 1 or w.shape[0] != x.shape[axes[0]]:
                raise ValueError("kiln.numpy.average: 'weights' must have the shape of 'x', or be 1-D along 'axis'.")
            shape = [1] * x.ndim
            shape[axes[0]] = w.shape[0]
            w = ops.reshape(w, tuple(shape))
        xf, wf = as_float(x), as_float(w)
        wsum = ops.sum(ops.broadcast_to(wf, tuple(x.shape)), axes)
        avg = ops.div(ops.sum(ops.mul(xf, wf), axes), wsum)
    return (avg, wsum) if returned else avg


def _prod_of(values) -> int:
    out = 1
    for v in values:
        out *= int(v)
    return out


def ptp(x, axis=None, keepdims: bool = False) -> Tensor:
    """Range (max - min) over `axis`.

    Args:
        x (Tensor | number | list): the input.
        axis (int | tuple | None): the axes to reduce.
        keepdims (bool): keep reduced axes with size 1.

    Returns:
        Tensor.
    """
    x = to_tensor(x)
    axes = _axes(x, axis)
    return ops.sub(ops.amax(x, axes, keepdims), ops.amin(x, axes, keepdims))


def count_nonzero(x, axis=None, keepdims: bool = False) -> Tensor:
    """Number of non-zero values over `axis`, as int32.

    Args:
        x (Tensor | number | list): the input.
        axis (int | tuple | None): the axes to reduce.
        keepdims (bool): keep reduced axes with size 1.

    Returns:
        Tensor of int32.
    """
    x = to_tensor(x)
    return cast(ops.sum(ops.cast(ops.not_equal(x, 0), mstype.int32), _axes(x, axis), keepdims), mstype.int32)


def argmax(a, axis=None) -> Tensor:
    """Index of the largest value along `axis` (None: of the flattened input).

    Args:
        a (Tensor | list): the input.
        axis (int | None): the axis.

    Returns:
        Tensor of int64 (as MindSpore).
    """
    a = to_tensor(a)
    return ops.argmax(a, None if axis is None else axis_of(axis, a.ndim))


def argmin(a, axis=None) -> Tensor:
    """Index of the smallest value along `axis` (None: of the flattened input), as int32 (as MindSpore)."""
    a = to_tensor(a)
    return ops.argmin(a, None if axis is None else axis_of(axis, a.ndim))


def _cumulative(a, axis, dtype, fn) -> Tensor:
    a = to_tensor(a)
    if axis is None:
        a, axis = ops.reshape(a, (-1,)), 0
    if dtype is None and a.dtype == mstype.bool_:
        dtype = mstype.int32
    if dtype is not None and mstype.to_dtype(dtype) == mstype.bool_:  # a running OR (NumPy's bool accumulation)
        return ops.not_equal(fn(cast(ops.not_equal(a, 0), mstype.int32), axis_of(axis, a.ndim)), 0)
    if dtype is not None:
        a = cast(a, dtype)
    return fn(a, axis_of(axis, a.ndim))


def cumsum(a, axis=None, dtype=None) -> Tensor:
    """Cumulative sum along `axis` (None: of the flattened input).

    Args:
        a (Tensor | list): the input.
        axis (int | None): the axis.
        dtype: the result's dtype (bool input sums in int32).

    Returns:
        Tensor.
    """
    return _cumulative(a, axis, dtype, ops.cumsum)


def cumprod(a, axis=None, dtype=None) -> Tensor:
    """Cumulative product along `axis` (None: of the flattened input); see `cumsum`."""
    return _cumulative(a, axis, dtype, ops.cumprod)


def _nan_filled(a, value) -> tuple[Tensor, Tensor | None]:
    a = to_tensor(a)
    if not is_float(a):
        return a, None
    nan = ops.isnan(a)
    return ops.select(nan, ops.full_like(a, value), a), nan


def nancumsum(a, axis=None, dtype=None) -> Tensor:
    """Cumulative sum along `axis`, NaNs counted as zero; see `cumsum`."""
    return cumsum(_nan_filled(a, 0)[0], axis, dtype)


def nansum(a, axis=None, dtype=None, keepdims: bool = False) -> Tensor:
    """Sum over `axis`, NaNs counted as zero.

    Args:
        a (Tensor | list): the input.
        axis (int | tuple | None): the axes to reduce.
        dtype: the result's dtype.
        keepdims (bool): keep reduced axes with size 1.

    Returns:
        Tensor (integer input keeps its dtype).
    """
    filled = _nan_filled(a, 0)[0]
    out = ops.sum(filled, _axes(filled, axis), keepdims, dtype=filled.dtype)
    return finish(out, dtype)


def _nan_count(a: Tensor, nan, axis, keepdims) -> Tensor:
    valid = ops.cast(ops.logical_not(nan), a.dtype)
    return ops.sum(valid, _axes(a, axis), keepdims)


def nanmean(a, axis=None, dtype=None, keepdims: bool = False) -> Tensor:
    """Mean over `axis` of the values that are not NaN; see `nansum`."""
    a = as_float(to_tensor(a))
    filled, nan = _nan_filled(a, 0)
    total = ops.sum(filled, _axes(a, axis), keepdims)
    return finish(ops.div(total, _nan_count(a, nan, axis, keepdims)), dtype)


def nanvar(a, axis=None, dtype=None, ddof: int = 0, keepdims: bool = False) -> Tensor:
    """Variance over `axis` of the values that are not NaN, divided by N - ddof; see `nansum`."""
    a = as_float(to_tensor(a))
    filled, nan = _nan_filled(a, 0)
    count = _nan_count(a, nan, axis, True)
    centre = ops.div(ops.sum(filled, _axes(a, axis), True), count)
    dev = ops.select(nan, ops.zeros_like(a), ops.square(ops.sub(a, centre)))
    out = ops.div(ops.sum(dev, _axes(a, axis), keepdims), ops.sub(_nan_count(a, nan, axis, keepdims), ddof))
    return finish(out, dtype)


def nanstd(a, axis=None, dtype=None, ddof: int = 0, keepdims: bool = False) -> Tensor:
    """Standard deviation over `axis` of the values that are not NaN; see `nanvar`."""
    return finish(ops.sqrt(nanvar(a, axis, None, ddof, keepdims)), dtype)


def _nan_extremum(a, axis, dtype, keepdims, largest: bool) -> Tensor:
    a = to_tensor(a)
    filled, nan = _nan_filled(a, float("-inf") if largest else float("inf"))
    reduce = ops.amax if largest else ops.amin
    out = reduce(filled, _axes(a, axis), keepdims)
    if nan is not None:  # an all-NaN slice gives NaN
        all_nan = ops.all(nan, _axes(a, axis), keepdims)
        out = ops.select(all_nan, ops.full_like(out, float("nan")), out)
    return finish(out, dtype)


def nanmax(a, axis=None, dtype=None, keepdims: bool = False) -> Tensor:
    """Largest value over `axis`, NaNs ignored; see `nansum`."""
    return _nan_extremum(a, axis, dtype, keepdims, True)


def nanmin(a, axis=None, dtype=None, keepdims: bool = False) -> Tensor:
    """Smallest value over `axis`, NaNs ignored; see `nansum`."""
    return _nan_extremum(a, axis, dtype, keepdims, False)


def any(a, axis=None, keepdims: bool = False) -> Tensor:  # noqa: A001
    """Whether any value over `axis` is true (non-zero).

    Args:
        a (Tensor | list): the input.
        axis (int | tuple | None): the axes to reduce.
        keepdims (bool): keep reduced axes with size 1.

    Returns:
        Tensor of bool.
    """
    a = to_tensor(a)
    return ops.any(ops.cast(a, mstype.bool_), _axes(a, axis), keepdims)


def all(a, axis=None, keepdims: bool = False) -> Tensor:  # noqa: A001
    """Whether every value over `axis` is true (non-zero); see `any`."""
    a = to_tensor(a)
    return ops.all(ops.cast(a, mstype.bool_), _axes(a, axis), keepdims)


sometrue = any
alltrue = all


def size(a, axis=None) -> int:
    """Number of elements of `a`, or its length along `axis`.

    Args:
        a (Tensor | list): the input.
        axis (int | None): an axis.

    Returns:
        int.
    """
    a = to_tensor(a)
    if axis is None:
        return builtins.int(a.size)
    return builtins.int(a.shape[axis_of(axis, a.ndim)])
