"""The types `mutable()` marks values with: graph variables rather than constants, and differentiable containers.

`kiln._compiler.api.mutable` makes them; the compile cache keys them by type, not value
(`_compiler/cache/memory.py`), and the gradient transforms differentiate a marked tuple, list or dict of
Tensors as one argument (`_pynative/autograd.py`). They live here, below both, as plain value types.
"""

from __future__ import annotations

__all__ = [
    "DynamicLengthList",
    "DynamicLengthTuple",
    "MutableBool",
    "MutableDict",
    "MutableFloat",
    "MutableInt",
    "MutableList",
    "MutableTuple",
    "MutableValue",
    "dynamic_length_copy",
    "has_dynamic_length",
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


class _DeclaredLength:
    """What keeps a sequence's declared-variable length through `+` and slices (`_kind`: its plain base type)."""

    __slots__ = ()
    _kind: type = tuple

    def __add__(self, other):
        joined = super().__add__(other)
        return joined if joined is NotImplemented else type(self)(joined)

    def __radd__(self, other):
        return type(self)(self._kind(other) + self._kind(self)) if isinstance(other, self._kind) else NotImplemented

    def __getitem__(self, index):
        item = super().__getitem__(index)
        return type(self)(item) if isinstance(index, slice) else item


class DynamicLengthTuple(_DeclaredLength, MutableTuple):
    """`mutable(tuple, dynamic_len=True)`: a tuple whose length the program declares variable. Kiln still compiles
    a graph per length; the mark is what `is_sequence_shape_unknown` reads inside a graph, and `tuple()`/`list()`,
    `+` and slices of such a sequence keep it."""

    __slots__ = ()
    _kind = tuple


class DynamicLengthList(_DeclaredLength, MutableList):
    """`mutable(list, dynamic_len=True)`: a list whose length the program declares variable (see
    `DynamicLengthTuple`)."""

    _kind = list


def dynamic_length_copy(fn, args, kwargs):
    """The result of `tuple(seq)` or `list(seq)` for a sequence declared variable-length (the copy keeps the
    mark, as MindSpore's graphs do); None for any other call.

    Args:
        fn: the callable being called.
        args: its positional arguments.
        kwargs: its keyword arguments (None or a dict).

    Returns:
        A `DynamicLengthTuple` or `DynamicLengthList`, or None.
    """
    if (fn is tuple or fn is list) and len(args) == 1 and not kwargs and has_dynamic_length(args[0]):
        return DynamicLengthTuple(args[0]) if fn is tuple else DynamicLengthList(args[0])
    return None


def has_dynamic_length(value) -> bool:
    """Whether `value` is a tuple or list whose length the program declared variable (`dynamic_len=True`).

    Args:
        value: any value.

    Returns:
        True for a `DynamicLengthTuple` or `DynamicLengthList`.
    """
    return isinstance(value, (DynamicLengthTuple, DynamicLengthList))


def is_mutable(value) -> bool:
    """Whether `value` was marked by `mutable()`.

    Args:
        value: any value.

    Returns:
        True for a value of one of the Mutable* types.
    """
    return isinstance(value, MutableValue)
