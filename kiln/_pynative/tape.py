"""The PyNative autograd tape.

While a gradient is being taken, each primitive applied to a watched tensor
records a `Node` that keeps its inputs. Nodes are kept per grad *level*, so
nested `grad` calls each see their own graph; the backward pass dispatches
each primitive's derived backward primitive through the same eager path,
which records it on any outer level: that is what makes higher-order
gradients work without re-tracing the user's function.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from kiln import _backend as B
from kiln._core.primitive import PrimitiveDef
from kiln._core.tensor import Tensor

recording = False  # read on every dispatch: true while any level is active
_active: list[int] = []
_paused = 0
_next_level = 0


class Node:
    """One recorded operation at one grad level."""

    __slots__ = ("prim", "attrs", "inputs", "links", "out_avals", "rule")

    def __init__(self, prim, attrs, inputs, links, out_avals, rule=None) -> None:
        self.prim = prim  # None for leaves
        self.attrs = attrs
        self.inputs = inputs
        self.links = links  # per input: (Node, output index) at this level, or None
        self.out_avals = out_avals  # per output: (shape, np dtype)
        self.rule = rule  # custom backward: rule(cotangents) -> input cotangents


def _refresh() -> None:
    global recording
    recording = bool(_active) and _paused == 0


def push_level() -> int:
    global _next_level
    _next_level += 1
    _active.append(_next_level)
    _refresh()
    return _next_level


def pop_level(level: int) -> None:
    _active.remove(level)
    _refresh()


class pause:
    """Context manager: run ops without recording them (stop_gradient, custom bprop)."""

    def __enter__(self):
        global _paused
        _paused += 1
        _refresh()

    def __exit__(self, *exc):
        global _paused
        _paused -= 1
        _refresh()


def is_differentiable(t: Tensor) -> bool:
    return t.dtype.kind in "fc"


def watch(t: Tensor, level: int, *, in_place: bool = False) -> Tensor:
    """Mark `t` as a leaf of `level`; a new alias unless `in_place` (Parameters)."""
    leaf = Node(None, (), (), (), ((t.shape, t._data.dtype),))
    target = t if in_place else Tensor._wrap(t._data)
    nodes = dict(t._nodes) if t._nodes else {}
    nodes[level] = (leaf, 0)
    target._nodes = nodes
    return target


def record(prim: PrimitiveDef, attrs: tuple, args: tuple, out) -> None:
    """Called by dispatch after each op while recording."""
    levels = None
    for a in args:
        if isinstance(a, Tensor) and a._nodes:
            for lv in a._nodes:
                if lv in _active and (levels is None or lv not in levels):
                    levels = (levels or []) + [lv]
    if levels is None:
        return
    outs = out if prim.multiple_results else (out,)
    avals = tuple((o.shape, o._data.dtype) for o in outs)
    for lv in levels:
        links = tuple(a._nodes.get(lv) if isinstance(a, Tensor) and a._nodes else None for a in args)
        node = Node(prim, attrs, args, links, avals)
        for i, o in enumerate(outs):
            if o._data.dtype.kind in "fc":
                if o._nodes is None:
                    o._nodes = {}
                o._nodes[lv] = (node, i)


def record_custom(inputs: tuple, outs: tuple, rule: Callable) -> None:
    """Record an opaque op whose backward is `rule(cotangents) -> input cotangents`."""
    levels = sorted({lv for a in inputs if isinstance(a, Tensor) and a._nodes for lv in a._nodes if lv in _active})
    avals = tuple((o.shape, o._data.dtype) for o in outs)
    for lv in levels:
        links = tuple(a._nodes.get(lv) if isinstance(a, Tensor) and a._nodes else None for a in inputs)
        node = Node(None, (), inputs, links, avals, rule)
        for i, o in enumerate(outs):
            o._nodes = dict(o._nodes or {})
            o._nodes[lv] = (node, i)


def _toposort(roots: list[Node]) -> list[Node]:
    order, seen = [], set()
    for root in roots:
        if id(root) in seen:
            continue
        seen.add(id(root))
        stack = [(root, iter(root.links))]
        while stack:
            node, it = stack[-1]
            for link in it:
                if link is not None and id(link[0]) not in seen:
                    seen.add(id(link[0]))
                    stack.append((link[0], iter(link[0].links)))
                    break
            else:
                stack.pop()
                order.append(node)
    return order  # inputs before consumers


def backward(level: int, outputs: list[tuple[Tensor, Tensor]], targets: list[Tensor]) -> list[Tensor | None]:
    """Cotangents of `targets` (leaves of `level`) given (output, sensitivity) pairs."""
    from kiln._core.prims.elementwise import add_p  # noqa: PLC0415
    from kiln._pynative.dispatch import apply  # noqa: PLC0415  (dispatch imports this module)

    def accumulate(slot: list, i: int, value: Tensor) -> None:
        slot[i] = value if slot[i] is None else apply(add_p, (slot[i], value))

    roots, grads = [], {}
    for out, sens in outputs:
        entry = out._nodes.get(level) if out._nodes else None
        if entry is None:
            continue
        node, idx = entry
        slot = grads.setdefault(id(node), [None] * len(node.out_avals))
        accumulate(slot, idx, sens)
        roots.append(node)
    leaf_ids = {id(t._nodes[level][0]) for t in targets if t._nodes and level in t._nodes}
    order = _toposort(roots)
    # Only nodes with a path to a requested leaf need their backward run.
    useful = set(leaf_ids)
    for node in order:
        if any(link is not None and id(link[0]) in useful for link in node.links):
            useful.add(id(node))
    leaf_grads: dict[int, Tensor] = {}
    for node in reversed(order):
        nid = id(node)
        slot = grads.pop(nid, None)
        if slot is None or nid not in useful:
            continue
        if node.prim is None and node.rule is None:  # a leaf
            leaf_grads[nid] = slot[0]
            continue
        wanted = tuple(link is not None and id(link[0]) in useful for link in node.links)
        cots = [
            c if c is not None else Tensor._wrap(B.jnp.zeros(shape, dt if dt.kind in "fc" else np.float32))
            for c, (shape, dt) in zip(slot, node.out_avals, strict=True)
        ]
        if node.rule is not None:
            in_grads = node.rule(tuple(cots))
        else:
            bwd = node.prim.backward(wanted)
            partial = apply(bwd, (*node.inputs, *cots), node.attrs)
            it = iter(partial)
            in_grads = [next(it) if w else None for w in wanted]
        for link, g, w in zip(node.links, in_grads, wanted, strict=True):
            if not w or g is None:
                continue
            parent, idx = link
            pslot = grads.setdefault(id(parent), [None] * len(parent.out_avals))
            accumulate(pslot, idx, g)
    result = []
    for t in targets:
        entry = t._nodes.get(level) if t._nodes else None
        g = leaf_grads.get(id(entry[0])) if entry else None
        result.append(g)
    return result
