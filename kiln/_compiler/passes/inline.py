"""Inlining: a `cond` whose predicate is a constant becomes the equations of the branch it takes."""

from __future__ import annotations

from kiln._compiler.ir.graph import Graph, Var
from kiln._compiler.passes.util import const_value, substitute


def inline(graph: Graph) -> int:
    changed = 0
    eqns = []
    mapping: dict = {}
    for e in graph.eqns:
        if mapping:
            e.inputs = [mapping.get(x, x) if type(x) is Var else x for x in e.inputs]
        pred = const_value(e.inputs[0], 1) if e.prim == "cond" else None
        if pred is None:
            eqns.append(e)
            continue
        branch = e.params["then"] if bool(pred.reshape(())) else e.params["else"]
        renames = dict(zip(branch.invars, e.inputs[1:], strict=True))
        substitute(branch, renames)
        eqns.extend(branch.eqns)
        mapping.update(zip(e.outputs, branch.outvars, strict=True))
        changed += 1
    graph.eqns = eqns
    substitute(graph, mapping)
    return changed
