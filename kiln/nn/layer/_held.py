"""The Primitive instances a library layer holds under MindSpore's attribute names (`dense.matmul`, `conv.conv2d`).

Zoo code reaches into them: `self.dense.matmul.shard(((1, 8), (1, 8)))` sets a strategy, `cell.matmul = P.MatMul()`
swaps one. A layer whose usual computation is one fused Kiln primitive (Dense's product and bias in one op, a
convolution with its bias) keeps running that while its held primitives are untouched; once one is sharded or
replaced, the layer runs its held primitives as MindSpore's layer does, so the strategy or the replacement takes
effect. `touched` is the layer's check: `Cell.__setattr__` flags a replaced held name at once; a strategy set on any
primitive, or an attribute that changes what a held one computes (`held.matmul.transpose_b = False`,
`add_prim_attr`), bumps `PRIMITIVE_EDITS["generation"]`, after which the layer looks at its held instances again
(once).
"""

from __future__ import annotations

from kiln._core.primitive import PRIMITIVE_EDITS, watch_edits
from kiln.nn.cell import Cell
from kiln.ops.primitive import Primitive

__all__ = ["hold", "hold_idle", "touched"]


def hold(cell: Cell, **primitives: Primitive) -> None:
    """Set each primitive as an attribute of `cell`, remembered (with its class) as the one the cell made."""
    made = cell.__dict__.setdefault("_made_primitives", {})
    # looked at now: `touched` then writes nothing into the cell while a graph is traced (a write during a trace keeps
    # the program off the disk cache) unless a strategy was set since
    cell.__dict__["_held_epoch"] = PRIMITIVE_EDITS["generation"]
    for name, prim in primitives.items():
        made.pop(name, None)  # (re)made by the layer itself: not a replacement
        setattr(cell, name, prim)
        made[name] = (prim, type(prim))
        watch_edits(prim)


def touched(cell: Cell) -> bool:
    """Whether a primitive `cell` holds was sharded (`Primitive.shard` gives it a class of its own), replaced, or had
    an attribute changed (`Primitive._edited`)."""
    if cell._held_epoch != PRIMITIVE_EDITS["generation"]:
        d = cell.__dict__
        d["_held_epoch"] = PRIMITIVE_EDITS["generation"]
        for name, (prim, cls) in d.get("_made_primitives", {}).items():
            if d.get(name) is not prim or type(prim) is not cls or "_attrs_edited" in prim.__dict__:
                d["_held_touched"] = True
    return cell._held_touched


def hold_idle(cell: Cell, why: str, **primitives: Primitive) -> None:
    """Hold primitives that MindSpore's layer runs but Kiln's computes inside one fused op (`why` says which):
    reading them works, and a strategy or an attribute set on one warns once that it is not used (`Primitive.shard`,
    `Primitive._edited`)."""
    for name, prim in primitives.items():
        prim.__dict__["_unused_reason"] = f"{type(cell).__name__}.{name} is not run ({why})"
        cell.__dict__.pop(name, None)  # (re)made by the layer itself: not a replacement to warn about
        setattr(cell, name, prim)
        watch_edits(prim)  # an attribute set on it warns that it is not used
