"""Common-subexpression elimination: a primitive applied twice to the same inputs is computed once.

Not shared: an equation that narrows a float input (a Cast of float32 to float16, say). Differentiated, the uses of
one shared result sum their gradients in the narrow type, where each of the program's own casts sends its gradient
back to the wide input to be summed there (as MindSpore sums them): five float16 casts of a weight gave its gradient
5004 where 5005 is right. XLA still shares the forward work after differentiation, so nothing is computed twice.
"""

from __future__ import annotations

import numpy as np

from kiln._compiler.ir.graph import Graph, Var
from kiln._compiler.passes.util import is_host_effect, substitute


def eqn_key(prim, attrs, inputs) -> tuple:
    """What makes two applications of a primitive equal: the primitive, its attributes and its inputs (Vars by
    identity, constant arrays by object, Python values by value). TypeError when an input is unhashable."""
    parts = []
    for x in inputs:
        if type(x) is Var:
            parts.append(("v", x.id))
        elif hasattr(x, "shape"):
            parts.append(_constant_key(x))
        else:
            hash(x)  # Python values: by value (TypeError when unhashable)
            parts.append(("p", type(x), x))
    return (prim, attrs, tuple(parts))


VALUE_KEY_MAX_ENTRIES = 4096  # constant arrays up to this size are equal by value (a recurrent layer's zero state)


def _constant_key(x) -> tuple:
    """A constant array's part of a key: its value when small (two traces of one layer make equal constants as
    different objects), otherwise the array object itself."""
    shape = tuple(x.shape)
    # an array split across processes cannot be read here: it stays keyed by object
    if int(np.prod(shape, dtype=np.int64)) <= VALUE_KEY_MAX_ENTRIES and getattr(x, "is_fully_addressable", True):
        value = np.asarray(x)
        return ("c", shape, value.dtype.str, value.tobytes())
    return ("a", id(x))


def _float_size(dtype) -> int:
    """The byte size of a floating dtype (bfloat16 included, which NumPy counts as kind 'V'); 0 for the others."""
    return dtype.itemsize if dtype.kind == "f" or dtype.name == "bfloat16" else 0


def shareable(e) -> bool:
    """Whether one equation's outputs may stand for another's equal one: a primitive (not a structural equation),
    with no host effect, not narrowing a float (see the module docstring)."""
    return not isinstance(e.prim, str) and not is_host_effect(e) and not _narrows(e)


def share_key(e, inputs: list):
    """`e`'s key over `inputs` when one equal equation may stand for another (`shareable`, every input hashable),
    else None."""
    if not shareable(e):
        return None
    try:
        key = eqn_key(e.prim, e.attrs, inputs)
        hash(key)
    except TypeError:
        return None
    return key


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
        key = share_key(e, e.inputs)
        if key is None:
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
