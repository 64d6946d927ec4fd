"""Argument checks shared by nn's Cells and functions (their messages name the Cell or function and the argument)."""

from __future__ import annotations

import math
import numbers


def positive_int(op: str, name: str, value) -> int:
    """`value` as an int, which must be > 0 and not a bool.

    Raises:
        ValueError: `value` is not a positive int.
    """
    if not isinstance(value, numbers.Integral) or isinstance(value, bool) or value <= 0:
        raise ValueError(f"For '{op}', '{name}' must be a positive int, but got {value!r}.")
    return int(value)


def float_arg(op: str, name: str, value) -> float:
    """`value`, which must be a Python float.

    Raises:
        TypeError: `value` is not a float.
    """
    if not isinstance(value, float):
        raise TypeError(f"For '{op}', '{name}' must be a float, but got {type(value).__name__}.")
    return value


def finite_float(op: str, name: str, value, *, positive: bool) -> None:
    """`value` must be a finite Python float, > 0 when `positive`, else >= 0.

    Raises:
        TypeError: `value` is not a float.
        ValueError: it is nan, infinite or out of that range.
    """
    if not isinstance(value, float):
        raise TypeError(f"For '{op}', '{name}' must be a float, but got {type(value).__name__}.")
    if not math.isfinite(value):  # MindSpore refuses nan and inf too; nan would pass every comparison below
        raise ValueError(f"For '{op}', '{name}' must be a finite float, but got {value}.")
    if value < 0 or (positive and value == 0):
        raise ValueError(f"For '{op}', '{name}' must be {'positive' if positive else 'non-negative'}, but got {value}.")
