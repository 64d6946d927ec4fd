"""Constant folding: a primitive whose inputs are all constants is computed at compile time.

The value comes from the primitive's own implementation (its declaration), on the constant inputs.
Results larger than `MAX_ELEMENTS` stay in the graph (a large constant would only bloat the program).
"""

from __future__ import annotations

import numpy as np

from kiln._compiler.ir.graph import Graph, Var
from kiln._compiler.passes.util import is_const, substitute

MAX_ELEMENTS = 1 << 16


def fold(graph: Graph) -> int:
    """Replace each foldable equation of `graph` by its value; returns how many were removed."""
    mapping: dict = {}
    kept = []
    for e in graph.eqns:
        if mapping:
            e.inputs = [mapping.get(x, x) if type(x) is Var else x for x in e.inputs]
        foldable = (
            not isinstance(e.prim, str)
            and not e.prim.random
            and e.prim.bounds is None  # a value check (or a compiled raise) must still run
            and all(is_const(x) for x in e.inputs)
            and all(int(np.prod(o.shape)) <= MAX_ELEMENTS for o in e.outputs)
        )
        if not foldable:
            kept.append(e)
            continue
        out = e.prim.impl(*e.inputs, **(e.prim.attrs_dict(e.attrs) if e.attrs else {}))
        values = out if e.prim.multiple_results else (out,)
        for o, v in zip(e.outputs, values, strict=True):
            mapping[o] = v
    removed = len(graph.eqns) - len(kept)
    graph.eqns = kept
    substitute(graph, mapping)
    return removed
