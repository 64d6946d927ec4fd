"""The Primitive instances a library layer holds under MindSpore's attribute names (`dense.matmul`, `conv.conv2d`).

Zoo code reaches into them: `self.dense.matmul.shard(((1, 8), (1, 8)))` sets a strategy, `cell.matmul = P.MatMul()`
swaps one. A layer whose usual computation is one fused Kiln primitive (Dense's product and bias in one op, a
convolution with its bias) keeps running that while its held primitives are the very ones it made, unsharded; once
one is sharded or replaced, the layer runs its held primitives as MindSpore's layer does, so the strategy or the
replacement takes effect. Layers whose computation is the held primitive itself always call it.
"""

from __future__ import annotations

import warnings

from kiln.nn.cell import Cell
from kiln.ops.primitive import Primitive

__all__ = ["hold", "hold_idle", "untouched"]


def hold(cell: Cell, **primitives: Primitive) -> None:
    """Set each primitive as an attribute of `cell` and remember it (and its class) as the one the cell made."""
    made = cell.__dict__.setdefault("_made_primitives", {})
    for name, prim in primitives.items():
        setattr(cell, name, prim)
        made[name] = (prim, type(prim))


def untouched(cell: Cell, names: tuple[str, ...]) -> bool:
    """Whether each of `names` still holds the primitive `cell` made, with no strategy set on it.

    `Primitive.shard` gives the instance a class of its own (kiln/_parallel/shard.py), so the class check sees a
    strategy; the identity check sees a swap."""
    d = cell.__dict__
    made = d["_made_primitives"]
    for name in names:
        prim, cls = made[name]
        if d.get(name) is not prim or prim.__class__ is not cls:
            return False
    return True


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
