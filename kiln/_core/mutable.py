"""The types `mutable()` marks values with: graph variables rather than constants, and differentiable containers.

`kiln._compiler.api.mutable` makes them; the compile cache keys them by type, not value
(`_compiler/cache/memory.py`), and the gradient transforms differentiate a marked tuple, list or dict of
Tensors as one argument (`_pynative/autograd.py`). They live here, below both, as plain value types.
"""

from __future__ import annotations

__all__ = ["MutableDict", "MutableFloat", "MutableInt", "MutableList", "MutableTuple", "MutableValue", "is_mutable"]


class MutableValue:
    """Marker base: values wrapped by `mutable()` are graph variables, not constants."""

    __slots__ = ()


class MutableInt(int, MutableValue):
    __slots__ = ()


class MutableFloat(float, MutableValue):
    __slots__ = ()


class MutableTuple(tuple, MutableValue):
    __slots__ = ()


class MutableList(list, MutableValue):
    pass


class MutableDict(dict, MutableValue):
    pass


def is_mutable(value) -> bool:
    """Whether `value` was marked by `mutable()`.

    Args:
        value: any value.

    Returns:
        True for a value of one of the Mutable* types.
    """
    return isinstance(value, MutableValue)
