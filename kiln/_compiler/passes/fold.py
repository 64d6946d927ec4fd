"""Constant folding: pure operations on Python constants are computed once, at parse time."""

from __future__ import annotations

from kiln._compiler.ir import ops as O
from kiln._compiler.ir.node import Const, FuncGraph
from kiln._compiler.passes.util import op_of, replace_uses

_FOLDABLE = {O.MAKE_TUPLE: tuple, O.MAKE_SLICE: lambda *a: slice(*a), O.JOIN_STR: lambda *a: "".join(map(str, a))}
_SAFE = (int, float, bool, str, type(None), tuple, slice)


def _is_const(n) -> bool:
    return isinstance(n, Const) and isinstance(n.value, _SAFE)


def fold_constants(graphs: list[FuncGraph]) -> int:
    """Replace foldable applies whose inputs are all constants; returns how many were folded."""
    mapping = {}
    for g in graphs:
        keep = []
        for a in g.nodes:
            op = op_of(a)
            args = a.inputs[1:]
            fn = _FOLDABLE.get(op) or (op.fold if op is not None and op.fold is not None else None)
            if fn is not None and all(_is_const(x) for x in args):
                try:
                    value = fn(*(x.value for x in args))
                except Exception:  # noqa: BLE001  (an error is reported when the program runs)
                    keep.append(a)
                    continue
                if isinstance(value, _SAFE):
                    mapping[a.id] = Const(value, a.loc)
                    replace_uses(graphs, {a.id: mapping[a.id]})
                    continue
            keep.append(a)
        g.nodes = keep
    return len(mapping)
