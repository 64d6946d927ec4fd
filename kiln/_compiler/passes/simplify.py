"""Algebraic simplification: identities that leave a value unchanged are removed.

The rules are data keyed on the primitives' declarations (`PrimitiveDef`s, not their names): x*1, 1*x,
x/1, x+0, 0+x, x-0 (when the result has x's shape and dtype), a cast to the dtype a value already has, a
reshape to its own shape, reshape of a reshape, transpose of a transpose (composed, or removed when the
composition is the identity), and -(-x).
"""

from __future__ import annotations

import numpy as np

import kiln._prims  # noqa: F401  (fills REGISTRY with every declaration)
from kiln._compiler.ir.graph import Eqn, Graph, Var
from kiln._compiler.passes.util import const_value, substitute
from kiln._core.primitive import REGISTRY

_MUL, _ADD, _SUB, _DIV = REGISTRY["Mul"], REGISTRY["Add"], REGISTRY["Sub"], REGISTRY["Div"]
_CAST, _RESHAPE, _TRANSPOSE, _NEG = REGISTRY["Cast"], REGISTRY["Reshape"], REGISTRY["Transpose"], REGISTRY["Neg"]

# `x op unit` is x, and (commutative ops) `unit op x` too.
RIGHT_UNIT = {_MUL: 1, _ADD: 0, _DIV: 1, _SUB: 0}
LEFT_UNIT = {_MUL: 1, _ADD: 0}
# A result of its input's shape and dtype is the input.
SAME_TYPE_IDENTITY = frozenset({_CAST, _RESHAPE})
# f(f(x)) is x.
INVOLUTIONS = frozenset({_NEG})
# f(f(x)) is one f: a reshape of a reshape reads the inner input; transposes compose their permutations.
COMPOSABLE = frozenset({_RESHAPE, _TRANSPOSE})


def _same_type(x, out) -> bool:
    return type(x) is Var and x.shape == out.shape and x.dtype == out.dtype


def _is(value, target) -> bool:
    v = const_value(value)
    return v is not None and v.size > 0 and bool(np.all(v == target))


def _identity_operand(e: Eqn):
    """The input that `e` returns unchanged, or None."""
    prim, ins, out = e.prim, e.inputs, e.outputs[0]
    if len(ins) == 2:
        if prim in RIGHT_UNIT and _same_type(ins[0], out) and _is(ins[1], RIGHT_UNIT[prim]):
            return ins[0]
        if prim in LEFT_UNIT and _same_type(ins[1], out) and _is(ins[0], LEFT_UNIT[prim]):
            return ins[1]
    if prim in SAME_TYPE_IDENTITY and _same_type(ins[0], out):
        return ins[0]
    return None


def simplify(graph: Graph) -> int:
    """Remove or shorten the identities above in `graph` (not its nested graphs); returns how many changed."""
    producer: dict = {}
    mapping: dict = {}
    changed = 0
    kept = []
    for e in graph.eqns:
        if mapping:
            e.inputs = [mapping.get(x, x) if type(x) is Var else x for x in e.inputs]
        if isinstance(e.prim, str) or len(e.outputs) != 1:
            kept.append(e)
            continue
        same = _identity_operand(e)
        if same is not None:
            mapping[e.outputs[0]] = same
            changed += 1
            continue
        src = producer.get(e.inputs[0]) if e.inputs and type(e.inputs[0]) is Var else None
        if src is not None and src.prim is e.prim and e.prim in INVOLUTIONS:
            mapping[e.outputs[0]] = src.inputs[0]
            changed += 1
            continue
        if src is not None and src.prim is e.prim and e.prim in COMPOSABLE:
            if e.prim is _RESHAPE:
                e.inputs = [src.inputs[0], *e.inputs[1:]]
                changed += 1
            elif e.attrs and src.attrs:  # Transpose
                inner, outer = tuple(src.attrs[0]), tuple(e.attrs[0])
                composed = tuple(inner[i] for i in outer)
                if composed == tuple(range(len(composed))):
                    mapping[e.outputs[0]] = src.inputs[0]
                    changed += 1
                    continue
                e.inputs = [src.inputs[0], *e.inputs[1:]]
                e.attrs = (composed, *e.attrs[1:])
                changed += 1
        producer[e.outputs[0]] = e
        kept.append(e)
    graph.eqns = kept
    substitute(graph, mapping)
    return changed
