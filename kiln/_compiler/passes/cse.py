"""Common-subexpression elimination: a primitive applied twice to the same inputs is computed once.

Not shared: an equation that narrows a float input (a Cast of float32 to float16, say). Differentiated, the uses of
one shared result sum their gradients in the narrow type, where each of the program's own casts sends its gradient
back to the wide input to be summed there (as MindSpore sums them): five float16 casts of a weight gave its gradient
5004 where 5005 is right. XLA still shares the forward work after differentiation, so nothing is computed twice.
"""

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


def _float_size(dtype) -> int:
    """The byte size of a floating dtype (bfloat16 included, which NumPy counts as kind 'V'); 0 for the others."""
    return dtype.itemsize if dtype.kind == "f" or dtype.name == "bfloat16" else 0


def _narrows(e) -> bool:
    """True when `e` gives a float output narrower than one of its float inputs."""
    widest = max((_float_size(x.dtype) for x in e.inputs if type(x) is Var), default=0)
    return any(0 < _float_size(o.dtype) < widest for o in e.outputs)


def cse(graph: Graph) -> int:
    seen: dict = {}
    mapping: dict = {}
    kept = []
    for e in graph.eqns:
        if mapping:
            e.inputs = [mapping.get(x, x) if type(x) is Var else x for x in e.inputs]
        if isinstance(e.prim, str) or is_host_effect(e) or _narrows(e):
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
