"""The Primitive instances a library layer holds under MindSpore's attribute names (`dense.matmul`, `conv.conv2d`).

Zoo code reaches into them: `self.dense.matmul.shard(((1, 8), (1, 8)))` sets a strategy, `cell.matmul = P.MatMul()`
swaps one. A layer whose usual computation is one fused Kiln primitive (Dense's product and bias in one op, a
convolution with its bias) keeps running that while its held primitives are untouched; once one is sharded or
replaced (`Cell._held_touched` turns True: the held instance's `shard` says so, and `Cell.__setattr__` on a held
name), the layer runs its held primitives as MindSpore's layer does, so the strategy or the replacement takes effect.
The flag is one attribute read on the layer's hot path.
"""

from __future__ import annotations

import warnings
import weakref

from kiln.nn.cell import Cell
from kiln.ops.primitive import Primitive

__all__ = ["hold", "hold_idle"]

_HELD_CLASSES: dict[type, type] = {}  # a Primitive class -> its subclass whose `shard` tells the holding cell


def _held_class(cls: type) -> type:
    held = _HELD_CLASSES.get(cls)
    if held is None:

        def shard(self, in_strategy=None, out_strategy=None, **kwargs):
            owner = self.__dict__["_held_by"]()
            if owner is not None:
                owner.__dict__["_held_touched"] = True
            return cls.shard(self, in_strategy, out_strategy, **kwargs)

        held = _HELD_CLASSES[cls] = type(cls.__name__, (cls,), {"shard": shard, "__module__": cls.__module__})
    return held


def hold(cell: Cell, **primitives: Primitive) -> None:
    """Set each primitive as an attribute of `cell`, its `shard` telling the cell (see the module's docstring)."""
    made = cell.__dict__.setdefault("_made_primitives", set())
    for name, prim in primitives.items():
        prim.__class__ = _held_class(type(prim))
        prim.__dict__["_held_by"] = weakref.ref(cell)
        made.discard(name)  # (re)made by the layer itself: not a replacement
        setattr(cell, name, prim)
        made.add(name)


_IDLE_CLASSES: dict[type, type] = {}  # a Primitive class -> its subclass whose `shard` warns
_WARNED: set[str] = set()


def _idle_class(cls: type) -> type:
    idle = _IDLE_CLASSES.get(cls)
    if idle is None:

        def shard(self, in_strategy=None, out_strategy=None, **kwargs):
            reason = self.__dict__["_idle_reason"]
            if reason not in _WARNED:
                _WARNED.add(reason)
                warnings.warn(f"{reason}: the strategy set on it is not used.", stacklevel=2)
            return cls.shard(self, in_strategy, out_strategy, **kwargs)

        idle = _IDLE_CLASSES[cls] = type(cls.__name__, (cls,), {"shard": shard, "__module__": cls.__module__})
    return idle


def hold_idle(cell: Cell, why: str, **primitives: Primitive) -> None:
    """Hold primitives that MindSpore's layer runs but Kiln's computes inside one fused op (`why` says which):
    reading them works, and a strategy set on one warns once that it is not used."""
    for name, prim in primitives.items():
        prim.__class__ = _idle_class(type(prim))
        prim.__dict__["_idle_reason"] = f"{type(cell).__name__}.{name} is not run ({why})"
        setattr(cell, name, prim)
