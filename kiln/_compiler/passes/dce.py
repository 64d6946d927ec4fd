"""Dead-code elimination: drop pure equations none of whose outputs is used."""

from __future__ import annotations

from kiln._compiler.ir.graph import Graph, Var
from kiln._compiler.passes.util import is_pure


def dce(graph: Graph) -> int:
    live = {x for x in graph.outvars if type(x) is Var}
    kept = []
    for e in reversed(graph.eqns):
        if is_pure(e) and not any(o in live for o in e.outputs):
            continue
        kept.append(e)
        live.update(x for x in e.inputs if type(x) is Var)
    removed = len(graph.eqns) - len(kept)
    graph.eqns = kept[::-1]
    return removed
