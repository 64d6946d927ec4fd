"""Argument checks shared by the layer Cells' constructors (their messages name the Cell and the argument)."""

from __future__ import annotations

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
