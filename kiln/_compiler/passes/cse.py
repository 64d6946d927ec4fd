"""Common-subexpression elimination: a primitive applied twice to the same inputs is computed once."""

from __future__ import annotations

from kiln._compiler.ir.graph import Graph, Var
from kiln._compiler.passes.util import is_host_effect, substitute


def _key(e):
    parts = []
    for x in e.inputs:
        if type(x) is Var:
            parts.append(("v", x.id))
        elif hasattr(x, "shape"):
            parts.append(("a", id(x)))  # the same constant array object
        else:
            hash(x)  # Python values: by value (TypeError when unhashable)
            parts.append(("p", type(x), x))
    return (e.prim, e.attrs, tuple(parts))


def cse(graph: Graph) -> int:
    seen: dict = {}
    mapping: dict = {}
    kept = []
    for e in graph.eqns:
        if mapping:
            e.inputs = [mapping.get(x, x) if type(x) is Var else x for x in e.inputs]
        if isinstance(e.prim, str) or is_host_effect(e):
            kept.append(e)
            continue
        try:
            key = _key(e)
            hash(key)
        except TypeError:
            kept.append(e)
            continue
        first = seen.get(key)
        if first is None:
            seen[key] = e
            kept.append(e)
            continue
        for o, f in zip(e.outputs, first.outputs, strict=True):
            mapping[o] = f
    removed = len(graph.eqns) - len(kept)
    graph.eqns = kept
    substitute(graph, mapping)
    return removed
