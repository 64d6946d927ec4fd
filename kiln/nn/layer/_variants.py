"""Public layer classes made from a table: several classes that differ from one base Cell only in the functional
op their `construct` calls (the base's `_fn`)."""

from __future__ import annotations

from collections.abc import Callable


def op_variants(base: type, *rows: tuple[str, Callable, str]) -> tuple[type, ...]:
    """One subclass of `base` per row `(name, op, docstring)`, with `_fn = staticmethod(op)`.

    Each is an ordinary class defined in `base`'s module (so it pickles and prints by its public name), with
    `base`'s constructor signature.

    Args:
        base: the Cell whose `construct` calls `type(self)._fn`.
        *rows: the public class name, the functional op and the class docstring.

    Returns:
        The classes, in the order of `rows`.
    """
    made = []
    for name, op, doc in rows:
        namespace = {"__module__": base.__module__, "__qualname__": name, "__doc__": doc, "_fn": staticmethod(op)}
        made.append(type(name, (base,), namespace))
    return tuple(made)
