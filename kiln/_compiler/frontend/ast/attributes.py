"""Attribute writes in a graph (`self.x = ...` for a value that is not a Parameter): later code of the same call
reads the new value, and the compiled program writes it onto the object after every call, as MindSpore does.

A Tensor written to an attribute is state of the program (like a Parameter, without being an input unless it is
read before it is written on some path): its final value is an output, set on the object after each call. A
Python value (int, flag, list, ...) is known when the program is compiled: it is set at once (later code and
guards see it) and set again after every later call of the same executable.
"""

from __future__ import annotations

import numpy as np

from kiln._compiler.errors import GraphCompileError
from kiln._compiler.frontend.ast.values import MISSING
from kiln._compiler.guards import settle_edit_counts
from kiln._compiler.ir import graph as G
from kiln._core.tensor import Tensor


class TensorAttribute:
    """State slot of a Tensor-valued attribute: `_data` reads and writes it through the trace being recorded,
    and sets the attribute when the compiled program writes its value back."""

    __slots__ = ("obj", "name", "key", "ctx", "__weakref__")

    def __init__(self, obj, name: str, ctx) -> None:
        self.obj, self.name, self.ctx = obj, name, ctx
        self.key = ("attribute", id(obj), name)

    @property
    def _data(self):
        trace = G.current()
        if trace is None:
            return getattr(self.obj, self.name)._data
        t = trace
        while t is not None:
            if self.key in t.state:
                return trace.read_state(self.key, self, None)
            t = t.parent
        # Not written yet on this path (a branch that leaves it alone): the value the object holds now.
        current = getattr(self.obj, self.name, MISSING)
        if not isinstance(current, Tensor):
            raise GraphCompileError(
                f"'{self.name}' is set to a Tensor on one path of a branch or loop whose condition is a Tensor, "
                f"but it holds {type(current).__name__ if current is not MISSING else 'nothing'} before: give it a "
                f"Tensor of the same shape and dtype before the branch."
            )
        if self.ctx is not None:
            self.ctx.guard(self.obj.__dict__, self.name, current)
        return current._data

    @_data.setter
    def _data(self, value) -> None:
        trace = G.current()
        if trace is None:
            _set(self.obj, self.name, Tensor._wrap(value))
        else:
            trace.write_state(self.key, self, value)


class PythonAttribute:
    """State slot of an attribute set to a Python value: writing it back sets that value again."""

    __slots__ = ("obj", "name", "value", "__weakref__")

    def __init__(self, obj, name: str, value) -> None:
        self.obj, self.name, self.value = obj, name, value

    @property
    def _data(self):
        return np.zeros((), np.bool_)

    @_data.setter
    def _data(self, _array) -> None:
        _set(self.obj, self.name, self.value)


def _set(obj, name: str, value) -> None:
    setattr(obj, name, value)


def set_attribute(ctx, obj, name: str, value) -> None:
    """`obj.name = value` inside a graph being compiled (or interpreted eagerly with graph semantics)."""
    trace = G.current()
    if not ctx.tracing or trace is None:
        _set(obj, name, value)
        return
    key = ("attribute", id(obj), name)
    if isinstance(value, Tensor):
        slot = ctx.attr_slots.get(key)
        if slot is None:
            slot = ctx.attr_slots[key] = TensorAttribute(obj, name, ctx)
        slot._data = value._data
        return
    if trace.parent is not None:
        raise GraphCompileError(
            f"'{name}' is set to a Python {type(value).__name__} inside a branch or loop whose condition is a "
            f"Tensor: which value it keeps is known only when the graph runs. Set it to a Tensor, or outside."
        )
    ctx.attr_slots.pop(key, None)
    ctx.attr_undo.append((obj, name, obj.__dict__.get(name, MISSING) if hasattr(obj, "__dict__") else MISSING))
    _set(obj, name, value)
    trace.write_state(key, PythonAttribute(obj, name, value), np.zeros((), np.bool_))


def read_attribute(ctx, obj, name: str):
    """The value of `obj.name` written earlier in this graph as a Tensor, else MISSING."""
    slot = ctx.attr_slots.get(("attribute", id(obj), name)) if ctx.attr_slots else None
    return MISSING if slot is None else Tensor._wrap(slot._data)


def finish(ctx, failed: bool) -> None:
    """After a compile: slots stop guarding through `ctx`; a failed compile undoes the Python values it set."""
    for slot in ctx.attr_slots.values():
        slot.ctx = None
    if not failed:
        settle_edit_counts(ctx.guards)
    if failed:
        for obj, name, old in reversed(ctx.attr_undo):
            if old is MISSING:
                obj.__dict__.pop(name, None)
            else:
                obj.__dict__[name] = old
    ctx.attr_undo.clear()
