"""Algebraic simplification: identities that leave a value unchanged are removed.

Rules: x*1, 1*x, x/1, x+0, 0+x, x-0 (when the result has x's shape and dtype), a cast to the dtype a
value already has, a reshape to its own shape, reshape of a reshape, transpose of a transpose
(composed, or removed when the composition is the identity), and -(-x).
"""

from __future__ import annotations

import numpy as np

from kiln._compiler.ir.graph import Eqn, Graph, Var
from kiln._compiler.passes.util import const_value, substitute


def _same_type(x, out) -> bool:
    return type(x) is Var and x.shape == out.shape and x.dtype == out.dtype


def _is(value, target) -> bool:
    v = const_value(value)
    return v is not None and v.size > 0 and bool(np.all(v == target))


def _identity_operand(e: Eqn):
    """The input that `e` returns unchanged, or None."""
    name, ins, out = e.name, e.inputs, e.outputs[0]
    if name in ("Mul", "Add") and len(ins) == 2:
        unit = 1 if name == "Mul" else 0
        for x, other in ((ins[0], ins[1]), (ins[1], ins[0])):
            if _same_type(x, out) and _is(other, unit):
                return x
    if name in ("Div", "RealDiv", "Sub") and len(ins) == 2:
        if _same_type(ins[0], out) and _is(ins[1], 1 if name != "Sub" else 0):
            return ins[0]
    if name in ("Cast", "Reshape") and _same_type(ins[0], out):
        return ins[0]
    return None


def simplify(graph: Graph) -> int:
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
        if src is not None and src.name == e.name and e.name in ("Reshape", "Transpose", "Neg"):
            if e.name == "Neg":
                mapping[e.outputs[0]] = src.inputs[0]
                changed += 1
                continue
            if e.name == "Reshape":
                e.inputs = [src.inputs[0], *e.inputs[1:]]
                changed += 1
            elif e.name == "Transpose" and e.attrs and src.attrs:
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
