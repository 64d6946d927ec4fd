"""Helpers shared by the tensor-IR passes."""

from __future__ import annotations

import numpy as np

from kiln._compiler.ir.graph import Eqn, Graph, Var

# Equations with an effect outside their outputs: never removed, merged or reordered.
EFFECTFUL = frozenset({"callback", "host_call"})


def is_pure(e: Eqn) -> bool:
    """True when the equation's only effect is its outputs (nested graphs included)."""
    if isinstance(e.prim, str):
        return e.prim not in EFFECTFUL and all(all(is_pure(x) for x in g.eqns) for g in e.subgraphs())
    return e.prim.effect not in _EFFECTS


# A failing check's effect is its raise; a host op runs the user's Python, once per call at its place (as PyNative).
_EFFECTS = frozenset({"raise", "host"})


def is_host_effect(e: Eqn) -> bool:
    """True for an equation that runs the user's Python on the host: never merged with another call."""
    return e.prim in EFFECTFUL if isinstance(e.prim, str) else e.prim.effect == "host"


def is_const(x) -> bool:
    """A compile-time constant input (a concrete array or a Python value)."""
    return type(x) is not Var


def const_value(x, max_size: int = 64):
    """The value of a small constant as a NumPy array, or None."""
    if type(x) is Var:
        return None
    if isinstance(x, (bool, int, float)):
        return np.asarray(x)
    shape = getattr(x, "shape", None)
    if shape is None or int(np.prod(shape)) > max_size:
        return None
    try:
        return np.asarray(x)
    except Exception:  # noqa: BLE001  (an opaque object)
        return None


def substitute(graph: Graph, mapping: dict) -> None:
    """Replace uses of Vars (keys of `mapping`, by Var) in `graph`'s equations and outputs."""
    if not mapping:
        return

    def sub(x):
        while type(x) is Var and x in mapping:
            x = mapping[x]
        return x

    for e in graph.eqns:
        e.inputs = [sub(x) for x in e.inputs]
    graph.outvars = [sub(x) for x in graph.outvars]
