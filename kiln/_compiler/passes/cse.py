"""Common-subexpression elimination of pure operations within a graph."""

from __future__ import annotations

from kiln._compiler.ir import ops as O
from kiln._compiler.ir.node import Const, FuncGraph
from kiln._compiler.passes.util import op_of, replace_uses

# Fresh mutable containers and closures must stay distinct objects.
_NEVER = {O.MAKE_LIST, O.MAKE_DICT, O.MAKE_CLOSURE, O.SETITEM, O.GETITEM, O.UNPACK, O.ITER_INIT}


def _key_of(x):
    if isinstance(x, Const):
        try:
            hash(x.value)
        except TypeError:
            return ("n", x.id)
        return ("c", type(x.value), x.value)
    return ("n", x.id)


def cse(graphs: list[FuncGraph]) -> int:
    """Share identical pure applies (same op, same inputs) in each graph; returns how many were removed."""
    removed = 0
    for g in graphs:
        seen: dict = {}
        keep = []
        for a in g.nodes:
            op = op_of(a)
            if op is None or not op.pure or op in _NEVER:
                keep.append(a)
                continue
            key = (op.name, a.kw, tuple(_key_of(x) for x in a.inputs[1:]))
            first = seen.get(key)
            if first is None:
                seen[key] = a
                keep.append(a)
            else:
                replace_uses(graphs, {a.id: first})
                removed += 1
        g.nodes = keep
    return removed
