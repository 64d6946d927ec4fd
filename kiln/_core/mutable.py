"""The types `mutable()` marks values with: graph variables rather than constants, and differentiable containers.

`kiln._compiler.api.mutable` makes them; the compile cache keys them by type, not value
(`_compiler/cache/memory.py`), and the gradient transforms differentiate a marked tuple, list or dict of
Tensors as one argument (`_pynative/autograd.py`). They live here, below both, as plain value types.
"""

from __future__ import annotations

__all__ = [
    "MutableBool",
    "MutableDict",
    "MutableFloat",
    "MutableInt",
    "MutableList",
    "MutableTuple",
    "MutableValue",
    "is_mutable",
]


class MutableValue:
    """Marker base: values wrapped by `mutable()` are graph variables, not constants."""

    __slots__ = ()


class MutableInt(int, MutableValue):
    __slots__ = ()


class MutableFloat(float, MutableValue):
    __slots__ = ()


class MutableBool(int, MutableValue):
    """`mutable(True)`: Python's bool cannot be subclassed, so an int 0/1 that reads and prints as a bool (in
    graphs it is a bool graph variable)."""

    __slots__ = ()

    def __repr__(self) -> str:
        return repr(bool(self))

    __str__ = __repr__


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
