"""Conversions shared by `kiln.numpy`: array-likes to Tensors, axes, result dtypes.

Everything here runs on shapes and Python values only (never on a Tensor's data), so the functions built on it
record into graphs as well as they run eagerly.
"""

from __future__ import annotations

import builtins

import numpy as np

from kiln._core import dtype as mstype
from kiln._core.tensor import Tensor
from kiln.ops import array as A
from kiln.ops import math as M

# Python and NumPy values become these dtypes (mindspore.numpy's defaults: 32-bit ints and floats).
_NARROW = {np.dtype(np.float64): np.float32, np.dtype(np.int64): np.int32}


def to_tensor(x, dtype=None) -> Tensor:
    """`x` (Tensor, Python number, nested list/tuple, NumPy array or scalar) as a Tensor.

    Python numbers and lists give int32, float32 or bool (mindspore.numpy's defaults); a NumPy array keeps its
    dtype; a Tensor is returned as it is. `dtype` casts the result.
    """
    if isinstance(x, Tensor):
        out = x
    elif isinstance(x, (list, tuple)) and _holds_tensor(x):
        out = A.stack([to_tensor(v) for v in x], 0)
    elif isinstance(x, np.ndarray):
        out = Tensor(x)
    elif isinstance(x, (np.generic, bool, int, float, complex, list, tuple)):
        a = np.asarray(x)
        if not isinstance(x, np.generic):
            a = a.astype(_NARROW.get(a.dtype, a.dtype))
        out = Tensor(a)
    else:
        raise TypeError(
            f"kiln.numpy: expected a Tensor, number, list, tuple or NumPy array, but got {type(x).__name__}."
        )
    return out if dtype is None else cast(out, dtype)


def _holds_tensor(x) -> bool:
    return builtins.any(isinstance(v, Tensor) or (isinstance(v, (list, tuple)) and _holds_tensor(v)) for v in x)


def cast(x: Tensor, dtype) -> Tensor:
    """`x` in `dtype` (itself when it already has it)."""
    dt = mstype.to_dtype(dtype)
    return x if x.dtype == dt else M.cast(x, dt)


def to_tensors(*xs) -> list[Tensor]:
    """Each argument as a Tensor (see `to_tensor`)."""
    return [to_tensor(x) for x in xs]


def is_float(x: Tensor) -> bool:
    """Whether `x` has a floating-point dtype."""
    return np.issubdtype(x.dtype.np, np.floating)


def is_int(x: Tensor) -> bool:
    """Whether `x` has an integer dtype (bool excluded)."""
    return np.issubdtype(x.dtype.np, np.integer)


def as_float(x: Tensor) -> Tensor:
    """`x` as float32 unless it is already floating-point (or complex)."""
    return x if is_float(x) or np.issubdtype(x.dtype.np, np.complexfloating) else M.cast(x, mstype.float32)


def axis_of(axis: int, ndim: int) -> int:
    """`axis` in [0, ndim), checked."""
    if not isinstance(axis, (int, np.integer)) or isinstance(axis, bool):
        raise TypeError(f"kiln.numpy: an axis must be an int, but got {type(axis).__name__}.")
    if not -ndim <= axis < builtins.max(ndim, 1):
        raise ValueError(f"kiln.numpy: axis {axis} is out of bounds for an array of dimension {ndim}.")
    return int(axis) % builtins.max(ndim, 1)


def axes_of(axis, ndim: int) -> tuple[int, ...]:
    """`axis` (None = all, an int, or a tuple/list of ints) as a sorted tuple of non-negative axes."""
    if axis is None:
        return tuple(range(ndim))
    if isinstance(axis, (list, tuple)):
        axes = tuple(axis_of(a, ndim) for a in axis)
        if len(set(axes)) != len(axes):
            raise ValueError(f"kiln.numpy: repeated axis in {tuple(axis)}.")
        return tuple(sorted(axes))
    return (axis_of(axis, ndim),)


def finish(x: Tensor, dtype=None) -> Tensor:
    """`x` cast to `dtype` when one is given."""
    return x if dtype is None else cast(x, dtype)


def shape_of(shape) -> tuple[int, ...]:
    """An int or a sequence of ints as a shape tuple."""
    if isinstance(shape, (int, np.integer)):
        return (int(shape),)
    return tuple(int(s) for s in shape)
