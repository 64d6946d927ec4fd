"""General transforms (`mindspore.dataset.transforms`).

Tensor ops (Concatenate, Duplicate, Fill, Mask, OneHot, PadEnd, Slice, TypeCast, Unique) and the ways to combine
transforms (Compose, RandomApply, RandomChoice, RandomOrder). Errors found in the data are RuntimeErrors, as in a
MindSpore pipeline; errors in the arguments are TypeError/ValueError when the op is built.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Sequence

import numpy as np

from kiln._core import dtype as mstype
from kiln.dataset import _rng

__all__ = [
    "Compose",
    "Concatenate",
    "Duplicate",
    "Fill",
    "Mask",
    "OneHot",
    "PadEnd",
    "Plugin",
    "RandomApply",
    "RandomChoice",
    "RandomOrder",
    "Relational",
    "Slice",
    "TypeCast",
    "Unique",
    "not_random",
]


class TypeCast:
    """Cast a column to another dtype.

    Args:
        data_type: a kiln dtype (e.g. `kiln.int32`), a NumPy dtype or a dtype name.

    Returns:
        A callable returning the cast NumPy array.
    """

    def __init__(self, data_type) -> None:
        self.data_type = data_type
        self._np = mstype.to_dtype(data_type).np

    def __call__(self, data) -> np.ndarray:
        return np.asarray(data).astype(self._np)

    batch_call = __call__  # elementwise: a stacked column is cast alike

    def __repr__(self) -> str:
        return f"TypeCast({self.data_type!r})"


class Compose:
    """Apply transforms in order; a tuple result is passed on as several arguments.

    Args:
        transforms: a non-empty list of callables.
    """

    def __init__(self, transforms: Sequence[Callable]) -> None:
        transforms = list(transforms)
        if not transforms:
            raise ValueError("Compose: transforms must not be empty.")
        for i, t in enumerate(transforms):
            if not callable(t):
                raise TypeError(f"Compose: transform {i} is not callable (got {type(t).__name__}).")
        self.transforms = transforms

    def __call__(self, *args):
        return _run_chain(self.transforms, args)

    def __repr__(self) -> str:
        return f"Compose({self.transforms!r})"


class OneHot:
    """One-hot encode integer labels: shape (...) -> (..., num_classes).

    Args:
        num_classes: number of classes; labels must lie in [0, num_classes).
        smoothing_rate: label smoothing; the result is float64 when it is non-zero,
            else it keeps the label dtype (as MindSpore does).
    """

    def __init__(self, num_classes: int, smoothing_rate: float = 0.0) -> None:
        if isinstance(num_classes, bool) or not isinstance(num_classes, int) or num_classes < 1:
            raise ValueError(f"OneHot: num_classes must be a positive int, but got {num_classes!r}.")
        if not 0.0 <= smoothing_rate <= 1.0:
            raise ValueError(f"OneHot: smoothing_rate must be in [0, 1], but got {smoothing_rate}.")
        self.num_classes = num_classes
        self.smoothing_rate = float(smoothing_rate)

    def __call__(self, label) -> np.ndarray:
        label = np.asarray(label)
        if label.ndim > 1:
            raise RuntimeError(f"OneHot: labels must be a scalar or 1-D, but got shape {label.shape}.")
        if label.dtype.kind not in "iu":
            raise RuntimeError(f"OneHot: labels must be integers, but got dtype {label.dtype}.")
        if label.size and (label.min() < 0 or label.max() >= self.num_classes):
            raise RuntimeError(
                f"OneHot: labels must be in [0, {self.num_classes}), but got values in [{label.min()}, {label.max()}]."
            )
        hot = label[..., None] == np.arange(self.num_classes)
        if self.smoothing_rate:
            s = self.smoothing_rate
            return hot * (1.0 - s) + s / self.num_classes  # float64, as MindSpore
        return hot.astype(label.dtype)

    def __repr__(self) -> str:
        return f"OneHot(num_classes={self.num_classes}, smoothing_rate={self.smoothing_rate})"


def not_random(function):
    """Mark a transform (class or function) as deterministic, so pipelines may cache its results.

    Args:
        function: the transform.

    Returns:
        The same object, with `random = False`.
    """
    function.random = False
    return function


def _is_text(arr: np.ndarray) -> bool:
    return arr.dtype.kind in "USO"


def _kind(arr: np.ndarray) -> str:
    return "string" if _is_text(arr) else str(arr.dtype)


def _check_transforms(transforms, what: str) -> list:
    if not isinstance(transforms, list | tuple):
        raise TypeError(f"{what}: transforms must be a list of callables, but got {type(transforms).__name__}.")
    transforms = list(transforms)
    if not transforms:
        raise ValueError(f"{what}: the transforms list must not be empty.")
    for i, t in enumerate(transforms):
        if not callable(t):
            raise TypeError(f"{what}: transforms[{i}] is not callable (got {type(t).__name__}).")
    return transforms


def _run_chain(ops, args: tuple):
    for op in ops:
        out = op(*args)
        args = out if isinstance(out, tuple) else (out,)
    return args if len(args) > 1 else args[0]


class Concatenate:
    """Join 1-D tensors: `prepend`, then every input column in order, then `append`.

    Args:
        axis: the axis to join along; only 0 (or -1) exists for 1-D tensors.
        prepend: a 1-D array put before the input, or None.
        append: a 1-D array put after the input, or None.

    Raises:
        RuntimeError: (when applied) an input that is not 1-D, or whose dtype differs from the others (numbers must
            have the same dtype; strings join strings).
    """

    def __init__(self, axis: int = 0, prepend=None, append=None) -> None:
        if isinstance(axis, bool) or not isinstance(axis, int):
            raise TypeError(f"Concatenate: axis must be an int, but got {type(axis).__name__}.")
        if axis not in (0, -1):
            raise ValueError(f"Concatenate: axis {axis} is invalid: only 1D concatenation supported.")
        self.axis = axis
        self.prepend = self._side(prepend, "prepend")
        self.append = self._side(append, "append")

    @staticmethod
    def _side(value, which: str):
        if value is None:
            return None
        if not isinstance(value, np.ndarray):
            raise TypeError(f"Concatenate: {which} must be a numpy.ndarray, but got {type(value).__name__}.")
        if value.ndim != 1:
            raise ValueError(f"Concatenate: {which} must be a 1-D array, but its shape is {value.shape}.")
        return value

    def __call__(self, *inputs) -> np.ndarray:
        if not inputs:
            raise RuntimeError("Concatenate: needs at least one input column.")
        arrays = [np.asarray(x) for x in inputs]
        first = arrays[0]
        for k, a in enumerate(arrays):
            if a.ndim != 1:
                raise RuntimeError(f"Concatenate: every input must be 1-D, but input {k} has shape {a.shape}.")
            if _kind(a) != _kind(first):
                raise RuntimeError(
                    f"Concatenate: inputs 0 and {k} are of different kinds ({_kind(first)} and {_kind(a)}); "
                    "concatenate numbers with numbers and strings with strings."
                )
        for which, side in (("prepend", self.prepend), ("append", self.append)):
            if side is not None and _kind(side) != _kind(first):
                raise RuntimeError(
                    f"Concatenate: {which} is {_kind(side)} but the inputs are {_kind(first)}; both must be of "
                    "one kind."
                )
        parts = ([self.prepend] if self.prepend is not None else []) + arrays
        parts += [self.append] if self.append is not None else []
        return np.concatenate(parts)

    def __repr__(self) -> str:
        return f"Concatenate(axis={self.axis})"


class Duplicate:
    """Return the input column and a copy of it (two output columns)."""

    def __call__(self, *inputs) -> tuple[np.ndarray, np.ndarray]:
        if len(inputs) != 1:
            raise RuntimeError(
                f"Duplicate: transforms exactly one column, but got {len(inputs)}; check input_columns of map."
            )
        x = np.asarray(inputs[0])
        return x, x.copy()

    def __repr__(self) -> str:
        return "Duplicate()"


def _check_scalar(value, what: str):
    """`value` when it is a number, bool, str or bytes (a Fill value or a Mask constant), else TypeError."""
    if not isinstance(value, int | float | bool | str | bytes):
        raise TypeError(f"{what} must be a number, bool, str or bytes, but got {type(value).__name__}.")
    return value


def _scalar_is_text(value, arr: np.ndarray, what: str) -> bool:
    """Whether the scalar `value` is a string; RuntimeError when it is not of the same kind as the input `arr`."""
    value_is_text = isinstance(value, str | bytes)
    if value_is_text != _is_text(arr):
        raise RuntimeError(
            f"{what} ({type(value).__name__}) and the input ({_kind(arr)}) must both be strings or both be numbers."
        )
    return value_is_text


class Fill:
    """Replace every element of the input by `fill_value`, keeping the input's shape and dtype.

    Args:
        fill_value: a number, bool, str or bytes; numbers are cast to the input's dtype, strings fill string
            tensors only.
    """

    def __init__(self, fill_value) -> None:
        self.fill_value = _check_scalar(fill_value, "Fill: fill_value")

    def __call__(self, data) -> np.ndarray:
        arr = np.asarray(data)
        if _scalar_is_text(self.fill_value, arr, "Fill: fill_value"):
            return np.full(arr.shape, self.fill_value)
        return np.full(arr.shape, np.asarray(self.fill_value).astype(arr.dtype), dtype=arr.dtype)

    def __repr__(self) -> str:
        return f"Fill({self.fill_value!r})"


class Relational(enum.IntEnum):
    """Comparison used by `Mask`: EQ ==, NE !=, GT >, GE >=, LT <, LE <=."""

    EQ = 0
    NE = 1
    GT = 2
    GE = 3
    LT = 4
    LE = 5


_COMPARE = {
    Relational.EQ: np.equal,
    Relational.NE: np.not_equal,
    Relational.GT: np.greater,
    Relational.GE: np.greater_equal,
    Relational.LT: np.less,
    Relational.LE: np.less_equal,
}


class Mask:
    """Compare every element with `constant` and return the truth values cast to `dtype`.

    Args:
        operator: a `Relational`.
        constant: a number (cast to the input's dtype first, as MindSpore does) or a str for string inputs.
        dtype: the output dtype (default bool).
    """

    def __init__(self, operator, constant, dtype=mstype.bool_) -> None:
        if not isinstance(operator, Relational):
            raise TypeError(f"Mask: operator must be a Relational, but got {type(operator).__name__}.")
        self.operator = operator
        self.constant = _check_scalar(constant, "Mask: constant")
        self.dtype = dtype
        self._np = mstype.to_dtype(dtype).np

    def __call__(self, data) -> np.ndarray:
        arr = np.asarray(data)
        if _scalar_is_text(self.constant, arr, "Mask: constant"):
            const = self.constant
            if arr.dtype.kind == "S" and isinstance(const, str):
                const = const.encode()
            elif arr.dtype.kind == "U" and isinstance(const, bytes):
                const = const.decode()
        else:
            const = np.asarray(self.constant).astype(arr.dtype)
        return _COMPARE[self.operator](arr, const).astype(self._np)

    def __repr__(self) -> str:
        return f"Mask({self.operator!r}, {self.constant!r})"


class PadEnd:
    """Pad (or cut) every dimension at its end to `pad_shape`.

    Args:
        pad_shape: the output shape, one entry per input dimension; None keeps that dimension as it is.
        pad_value: the value of the new elements (default 0, or "" for strings).
    """

    def __init__(self, pad_shape, pad_value=None) -> None:
        if not isinstance(pad_shape, list):
            raise TypeError(f"PadEnd: pad_shape must be a list, but got {type(pad_shape).__name__}.")
        for d in pad_shape:
            if d is not None and (isinstance(d, bool) or not isinstance(d, int) or d < 0):
                raise ValueError(f"PadEnd: pad_shape entries must be non-negative ints or None, but got {pad_shape}.")
        if pad_value is not None and not isinstance(pad_value, int | float | bool | str | bytes):
            raise TypeError(f"PadEnd: pad_value must be a number or a string, but got {type(pad_value).__name__}.")
        self.pad_shape = pad_shape
        self.pad_value = pad_value

    def __call__(self, data) -> np.ndarray:
        arr = np.asarray(data)
        if len(self.pad_shape) != arr.ndim:
            raise RuntimeError(
                f"PadEnd: pad_shape {self.pad_shape} has {len(self.pad_shape)} dimension(s) but the input has rank "
                f"{arr.ndim}."
            )
        shape = tuple(n if d is None else d for n, d in zip(arr.shape, self.pad_shape))
        value = self.pad_value
        if value is None:
            value = "" if _is_text(arr) else 0
        if isinstance(value, str | bytes) != _is_text(arr):
            raise RuntimeError(f"PadEnd: pad_value {value!r} does not suit an input of type {_kind(arr)}.")
        if _is_text(arr):
            width = max(arr.dtype.itemsize // (4 if arr.dtype.kind == "U" else 1), len(value), 1)
            out = np.full(shape, value, dtype=f"{arr.dtype.kind}{width}")
        else:
            out = np.full(shape, np.asarray(value).astype(arr.dtype), dtype=arr.dtype)
        keep = tuple(slice(0, min(n, d)) for n, d in zip(arr.shape, shape))
        out[keep] = arr[keep]
        return out

    def __repr__(self) -> str:
        return f"PadEnd({self.pad_shape}, {self.pad_value!r})"


def _check_slice_arg(s, k: int):
    if s is None or s is Ellipsis or isinstance(s, slice):
        return s
    if isinstance(s, bool):
        raise TypeError(f"Slice: slices[{k}] must be an int, a list of int, a slice, None or Ellipsis, got bool.")
    if isinstance(s, int):
        return s
    if isinstance(s, list) and all(isinstance(i, int) and not isinstance(i, bool) for i in s):
        return list(s)
    raise TypeError(f"Slice: slices[{k}] must be an int, a list of int, a slice, None or Ellipsis, but got {s!r}.")


class Slice:
    """Select elements, one selector per leading dimension; dimensions are always kept.

    Args:
        *slices: per dimension, an int (one index; the dimension stays, of size 1), a list of ints, a Python
            `slice`, None (all) or Ellipsis (all the dimensions it stands for). Missing trailing selectors mean all.
    """

    def __init__(self, *slices) -> None:
        self.slices = [_check_slice_arg(s, k) for k, s in enumerate(slices)]
        if sum(s is Ellipsis for s in self.slices) > 1:
            raise ValueError("Slice: at most one Ellipsis may be given.")

    def __call__(self, data) -> np.ndarray:
        arr = np.asarray(data)
        sels = list(self.slices)
        if Ellipsis in sels:
            k = sels.index(Ellipsis)
            fill = arr.ndim - (len(sels) - 1)
            sels = sels[:k] + [None] * max(fill, 0) + sels[k + 1 :]
        if len(sels) > arr.ndim:
            raise RuntimeError(f"Slice: {len(sels)} selectors were given for an input of rank {arr.ndim}.")
        out = arr
        for axis, s in enumerate(sels):
            n = arr.shape[axis]
            if s is None:
                continue
            if isinstance(s, slice):
                idx = np.arange(n)[s]
            else:
                idx = np.atleast_1d(np.asarray(s, dtype=np.int64))
                bad = (idx >= n) | (idx < -n)
                if bad.any():
                    raise RuntimeError(
                        f"Slice: index {int(idx[bad][0])} is out of bounds for dimension {axis} of size {n}."
                    )
                idx = np.where(idx < 0, idx + n, idx)
            out = np.take(out, idx, axis=axis)
        return out

    def __repr__(self) -> str:
        return f"Slice(*{self.slices!r})"


class Unique:
    """The distinct elements of a numeric tensor (flattened) in order of first appearance.

    Returns three columns: the unique values, for every input element the index of its value in the first
    output (int32), and how often each unique value occurs (int32).
    """

    def __call__(self, data) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        arr = np.asarray(data)
        if _is_text(arr):
            raise RuntimeError(f"Unique: the input must be numeric, but got {_kind(arr)}.")
        if arr.ndim == 0:
            raise RuntimeError("Unique: the input must have at least one dimension, but got a scalar.")
        flat = arr.reshape(-1)
        values, first, inverse, counts = np.unique(flat, return_index=True, return_inverse=True, return_counts=True)
        order = np.argsort(first, kind="stable")  # sorted-unique position -> first-appearance rank
        rank = np.empty_like(order)
        rank[order] = np.arange(order.size)
        return values[order], rank[inverse.reshape(-1)].astype(np.int32), counts[order].astype(np.int32)

    def __repr__(self) -> str:
        return "Unique()"


class RandomApply:
    """Apply all `transforms` in order with probability `prob`, else return the input unchanged.

    Args:
        transforms: a non-empty list of callables.
        prob: the probability, in [0, 1].
    """

    def __init__(self, transforms, prob: float = 0.5) -> None:
        self.transforms = _check_transforms(transforms, "RandomApply")
        if isinstance(prob, bool) or not isinstance(prob, int | float):
            raise TypeError(f"RandomApply: prob must be a float, but got {type(prob).__name__}.")
        if not 0.0 <= prob <= 1.0:
            raise ValueError(f"RandomApply: prob must be within [0, 1], but got {prob}.")
        self.prob = float(prob)

    def __call__(self, *args):
        if _rng.generator().random() < self.prob:
            return _run_chain(self.transforms, args)
        return args if len(args) > 1 else args[0]

    def __repr__(self) -> str:
        return f"RandomApply({self.transforms!r}, prob={self.prob})"


class _RandomSelection:
    """Apply a random selection of `transforms`, drawn per call by the subclass's `_draw`."""

    def __init__(self, transforms) -> None:
        self.transforms = _check_transforms(transforms, type(self).__name__)

    def _draw(self, rng: np.random.Generator) -> list:
        raise NotImplementedError

    def __call__(self, *args):
        return _run_chain(self._draw(_rng.generator()), args)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.transforms!r})"


class RandomChoice(_RandomSelection):
    """Apply one transform drawn uniformly from `transforms`.

    Args:
        transforms: a non-empty list of callables.
    """

    def _draw(self, rng: np.random.Generator) -> list:
        return [self.transforms[int(rng.integers(len(self.transforms)))]]


class RandomOrder(_RandomSelection):
    """Apply every transform of `transforms` once, in a random order.

    Args:
        transforms: a non-empty list of callables.
    """

    def _draw(self, rng: np.random.Generator) -> list:
        return [self.transforms[int(i)] for i in rng.permutation(len(self.transforms))]


class Plugin:
    """MindSpore's C++ plugin op (a function loaded from a shared library built against MindSpore's runtime).

    Kiln's pipeline runs in Python and has no such plugin interface: building one raises NotImplementedError.
    Wrap the library with ctypes in a Python callable and pass that to `map` instead.
    """

    def __init__(self, lib_path: str, func_name: str, user_args=None) -> None:
        raise NotImplementedError(
            f"Plugin({lib_path!r}, {func_name!r}): Kiln cannot load MindSpore dataset plugins (they are C++ ops "
            "linked against MindSpore's data engine). Call the library through ctypes in a Python function and "
            "map that function instead."
        )
