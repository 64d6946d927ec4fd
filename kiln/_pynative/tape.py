"""The PyNative autograd tape.

While a gradient is being taken, each primitive applied to a watched tensor
records a `Node` that keeps its inputs. Nodes are kept per grad *level*, so
nested `grad` calls each see their own graph. The backward pass
(`autograd.backward`) dispatches each primitive's derived backward primitive
through the same eager path, which records it on any outer level: that is
what makes higher-order gradients work without re-tracing the user's function.
"""

from __future__ import annotations

import itertools
import linecache
import os
from collections.abc import Callable

from kiln._compiler.errors import line_of, no_derivative, user_frame
from kiln._core.primitive import PrimitiveDef
from kiln._core.tensor import Tensor

recording = False  # read on every dispatch: true while any level is active
# The backward pass runs as one compiled program where it can (kiln/_pynative/backward_program.py)
FUSED_BACKWARD = os.environ.get("KILN_FUSED_BACKWARD", "1").strip().lower() not in ("0", "off", "false", "no")
_active: list[int] = []
_paused = 0
_next_level = 0
_created = itertools.count()  # Node.seq: the order in which the forward recorded its operations


class Node:
    """One recorded operation at one grad level."""

    __slots__ = ("prim", "attrs", "inputs", "links", "out_avals", "rule", "hooks", "anchor", "seq")

    def __init__(self, prim, attrs, inputs, links, out_avals, rule=None, anchor=False) -> None:
        self.prim = prim  # None for leaves
        self.attrs = attrs
        self.inputs = inputs
        self.links = links  # per input: (Node, output index) at this level, or None
        self.out_avals = out_avals  # per output: (shape, np dtype)
        self.rule = rule  # custom backward: rule(cotangents) -> input cotangents
        # Tensor.register_hook: per output index, the hook dicts (shared with the tensors) run on its gradient
        self.hooks = None
        # A node whose rule must run whenever the backward reaches it, needed by a requested leaf or not
        # (a Cell's backward hook); its rule sees None for outputs that got no gradient.
        self.anchor = anchor
        self.seq = next(_created)

    def add_hooks(self, index: int, hooks: dict) -> None:
        """Run the hooks in `hooks` (a tensor's, shared) on the gradient of output `index`."""
        if self.hooks is None:
            self.hooks = {}
        lists = self.hooks.setdefault(index, [])
        if not any(h is hooks for h in lists):
            lists.append(hooks)


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
    leaf = Node(None, (), (), (), ((t.shape, t._buf.dtype),))
    target = t if in_place else Tensor._wrap(t._buf)
    hooks = getattr(t, "_hooks", None)
    if hooks is not None:  # Tensor.register_hook before the gradient was asked for
        leaf.add_hooks(0, hooks)
        target._hooks = hooks
    nodes = dict(t._nodes) if t._nodes else {}
    nodes[level] = (leaf, 0)
    target._nodes = nodes
    return target


def record(prim: PrimitiveDef, attrs: tuple, args: tuple, out) -> None:
    """Called by dispatch after each op while recording."""
    levels = None
    if len(_active) == 1:  # one gradient taken (no higher order): is any input watched at its level?
        only = _active[0]
        for a in args:
            if isinstance(a, Tensor) and a._nodes and only in a._nodes:
                levels = _active
                break
    else:
        for a in args:
            if isinstance(a, Tensor) and a._nodes:
                for lv in a._nodes:
                    if lv in _active and (levels is None or lv not in levels):
                        levels = (levels or []) + [lv]
    if levels is None:
        return
    outs = out if prim.multiple_results else (out,)
    avals = []
    differentiable = []  # per output
    for o in outs:
        d = o._buf
        dtype = d.dtype
        avals.append((tuple(d.shape), dtype))
        diff = _differentiable.get(dtype)
        if diff is None:
            diff = _differentiable[dtype] = o.dtype.kind in "fc"  # (the Tensor's dtype: NumPy gives bfloat16 kind "V")
        differentiable.append(diff)
    avals = tuple(avals)
    nondiff = prim.nondiff
    for lv in levels:
        links = tuple([a._nodes.get(lv) if isinstance(a, Tensor) and a._nodes else None for a in args])
        if nondiff:  # no cotangent flows to these inputs: no link, so the backward never reaches them
            for i, link in enumerate(links):
                if link is not None and i in nondiff:  # (an integer index has no link: mostly none is found)
                    node = _without_nondiff(prim, attrs, args, links, avals)
                    break
            else:
                node = Node(prim, attrs, args, links, avals)
            if node is None:
                continue
        else:
            node = Node(prim, attrs, args, links, avals)
        for i, o in enumerate(outs):
            if differentiable[i]:
                if o._nodes is None:
                    o._nodes = {lv: (node, i)}
                else:
                    o._nodes[lv] = (node, i)


_differentiable: dict = {}  # backend dtype -> whether a gradient flows through values of it


def _without_nondiff(prim: PrimitiveDef, attrs: tuple, args: tuple, links: tuple, avals: tuple) -> Node | None:
    """The node of an op with nondiff inputs: their links dropped (None when no link is left). An op with no
    derivative keeps its links in a node whose rule raises, so only a gradient that reaches it fails."""
    kept = tuple([None if i in prim.nondiff else link for i, link in enumerate(links)])
    if not prim.differentiable and any(link is not None for link in links):
        return Node(None, (), args, links, avals, _no_derivative(prim, user_site()))
    if all(link is None for link in kept):
        return None
    return Node(prim, attrs, args, kept, avals)


def user_site() -> str:
    """'file:line: source' of the user's expression running the current op (the innermost frame outside Kiln)."""
    frame, _ = user_frame()
    if frame is None:
        return "an unknown line"
    line = line_of(frame.f_code, frame.f_lasti) or frame.f_lineno
    source = linecache.getline(frame.f_code.co_filename, line).strip()
    return f'File "{frame.f_code.co_filename}", line {line}, in {frame.f_code.co_name}' + (
        f"\n    {source}" if source else ""
    )


def _no_derivative(prim: PrimitiveDef, site: str) -> Callable:
    def rule(cotangents):
        raise RuntimeError(no_derivative(prim.name, "  " + site))

    return rule


def record_custom(inputs: tuple, outs: tuple, rule: Callable, *, anchor: bool = False) -> None:
    """Record an opaque op whose backward is `rule(cotangents) -> input cotangents`.

    An `anchor` is recorded on every active level, even where no input is watched, and its rule always runs.
    """
    if anchor:
        levels = list(_active) if recording else []
    else:
        levels = sorted({lv for a in inputs if isinstance(a, Tensor) and a._nodes for lv in a._nodes if lv in _active})
    avals = tuple((o.shape, o._buf.dtype) for o in outs)
    for lv in levels:
        links = tuple(a._nodes.get(lv) if isinstance(a, Tensor) and a._nodes else None for a in inputs)
        node = Node(None, (), inputs, links, avals, rule, anchor)
        for i, o in enumerate(outs):
            o._nodes = dict(o._nodes or {})
            o._nodes[lv] = (node, i)
