"""Argument normalisation shared by the functional nn ops, their Primitive classes, the faces table and the layers.

Attributes become the static tuples the primitives expect; values are
validated by the primitives' checks, and `check_*` helpers let layer
constructors reject bad arguments at construction time, as MindSpore does.
"""

from __future__ import annotations

import numbers

from kiln._core.primitive import op_error
from kiln._core.tensor import Tensor


def _is_int(v) -> bool:
    return type(v) is int or (isinstance(v, numbers.Integral) and not isinstance(v, bool))


def ntuple(op: str, name: str, value, n: int) -> tuple:
    """An int or a sequence as an n-tuple; MindSpore's 4-/5-element forms (1, 1, h, w) keep the spatial part."""
    if type(value) is int:  # the common cases first: this runs on every eager call
        return (value,) * n
    if type(value) is tuple and len(value) == n and all(type(v) is int for v in value):
        return value
    if isinstance(value, Tensor):
        value = tuple(int(v) for v in value.asnumpy().reshape(-1))
    if _is_int(value):
        return (int(value),) * n
    if isinstance(value, (tuple, list)):
        if len(value) == n:
            return tuple(int(v) if _is_int(v) else v for v in value)
        if len(value) == 1:
            return (value[0],) * n
        if len(value) == n + 2:
            return tuple(value[2:])
    raise op_error(op, f"'{name}' must be an int or a tuple of {n} ints, but got {value!r}.", TypeError)


def pad_pairs(op: str, padding, n: int) -> tuple:
    """Explicit padding as (lo0, hi0, lo1, hi1, ...): an int, n symmetric values, or 2n values."""
    if type(padding) is int:
        return (padding,) * (2 * n)
    if _is_int(padding):
        return (int(padding),) * (2 * n)
    if isinstance(padding, (tuple, list)):
        if len(padding) == 2 * n:
            return tuple(padding)
        if len(padding) == n:
            return tuple(p for p in padding for _ in range(2))
        if len(padding) == 1:
            return (padding[0],) * (2 * n)
    raise op_error(op, f"'padding' must be an int or a tuple of {n} or {2 * n} ints, but got {padding!r}.", TypeError)


def pad_mode_of(op: str, pad_mode: str) -> str:
    if pad_mode in ("same", "valid", "pad"):
        return pad_mode
    if not isinstance(pad_mode, str) or pad_mode.lower() not in ("same", "valid", "pad"):
        raise op_error(op, f"'pad_mode' must be one of 'same', 'valid', 'pad', but got {pad_mode!r}.")
    return pad_mode.lower()


def check_positive(op: str, name: str, values: tuple) -> None:
    for v in values:
        if not _is_int(v) or v <= 0:
            shown = values[0] if len(set(values)) == 1 else values
            raise op_error(op, f"'{name}' must be a positive int or a tuple of positive ints, but got {shown!r}.")


def check_non_negative(op: str, name: str, values: tuple) -> None:
    for v in values:
        if not _is_int(v) or v < 0:
            shown = values[0] if len(set(values)) == 1 else values
            raise op_error(op, f"'{name}' must be a non-negative int or a tuple of them, but got {shown!r}.")


def check_reduction(op: str, reduction: str, allowed: tuple = ("mean", "sum", "none")) -> str:
    if reduction not in allowed:
        raise op_error(op, f"'reduction' must be one of {', '.join(repr(a) for a in allowed)}, but got {reduction!r}.")
    return reduction


def check_probability(op: str, name: str, value, *, low_open: bool = False, high_open: bool = False) -> float:
    if not isinstance(value, numbers.Real) or isinstance(value, bool):
        raise op_error(op, f"'{name}' must be a float, but got {type(value).__name__}.", TypeError)
    lo_ok = value > 0 if low_open else value >= 0
    hi_ok = value < 1 if high_open else value <= 1
    if not (lo_ok and hi_ok):
        rng = f"{'(' if low_open else '['}0, 1{')' if high_open else ']'}"
        raise op_error(op, f"'{name}' must be in {rng}, but got {value}.")
    return float(value)


def conv_attrs(op: str, nd: int, stride, pad_mode, padding, dilation, groups, data_format) -> tuple:
    """The Conv primitive's attribute tuple from user arguments."""
    if isinstance(padding, str):  # conv2d(x, w, padding='same') as in MindSpore's newer API
        pad_mode, padding = padding, 0
    return (*window_attrs(op, nd, stride, pad_mode, padding, dilation), groups, data_format)


def window_attrs(op: str, nd: int, stride, pad_mode, padding, dilation) -> tuple:
    """A convolution window's checked (strides, pad mode, pad pairs, dilations), as the Conv primitives take them.

    Args:
        op: the op's name, for messages.
        nd: the number of spatial dims.
        stride, pad_mode, padding, dilation: the user's arguments.

    Returns:
        The four attributes.
    """
    return (
        ntuple(op, "stride", stride, nd),
        pad_mode_of(op, pad_mode),
        pad_pairs(op, padding, nd),
        ntuple(op, "dilation", dilation, nd),
    )


def split_padding(padding) -> tuple:
    """PyTorch-style `padding` (ints, 'same' or 'valid') as MindSpore's (pad_mode, pad)."""
    if isinstance(padding, str):
        if padding not in ("same", "valid"):
            raise ValueError(f"'padding' must be 'same', 'valid' or ints, but got {padding!r}.")
        return padding, 0
    return "pad", padding
