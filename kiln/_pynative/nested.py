"""Recording a function call as a nested graph of the graph being recorded.

Transformations that hold a function (a gradient, a custom derivative, a
recomputed Cell) record it once as its own graph: chosen arguments become the
nested graph's explicit inputs, other outer values it reads become captured
inputs, and the Parameters (or random key) it writes become extra outputs that
the caller writes back into the enclosing graph.
"""

from __future__ import annotations

import copy
from collections.abc import Callable

from kiln._core import graph as G
from kiln._core.tensor import Tensor
from kiln._prims.control import RaisedInGraph


def flatten(value, leaves: list):
    """A template of `value` with each Tensor's data appended to `leaves`.

    Tensors, tuples (named ones too), lists and dicts are walked; so is an object of a user class whose
    attributes hold Tensors (it comes back as a shallow copy with the new Tensors). Anything else is a
    constant of the template.
    """
    if isinstance(value, Tensor):
        leaves.append(value._data)
        return ("t",)
    if isinstance(value, (tuple, list)):
        kind = "n" if isinstance(value, tuple) and hasattr(value, "_fields") else "s"
        return (kind, type(value), tuple(flatten(v, leaves) for v in value))
    if isinstance(value, dict):
        return ("d", tuple(value), tuple(flatten(v, leaves) for v in value.values()))
    attrs = getattr(value, "__dict__", None)
    if type(attrs) is dict and not isinstance(value, type) and _holds_tensors(attrs):
        return ("o", value, {k: flatten(v, leaves) for k, v in attrs.items()})
    return ("c", value)


def _holds_tensors(attrs: dict) -> bool:
    return any(isinstance(v, (Tensor, tuple, list, dict)) and _leaves_in(v) for v in attrs.values())


def _leaves_in(v) -> bool:
    if isinstance(v, Tensor):
        return True
    if isinstance(v, (tuple, list)):
        return any(_leaves_in(x) for x in v)
    if isinstance(v, dict):
        return any(_leaves_in(x) for x in v.values())
    return False


def unflatten(template, it):
    """The value of `template` with Tensors wrapping the next items of `it`."""
    kind = template[0]
    if kind == "t":
        return Tensor._wrap(next(it))
    if kind == "c":
        return template[1]
    if kind == "s":
        return template[1](unflatten(t, it) for t in template[2])
    if kind == "n":
        return template[1](*(unflatten(t, it) for t in template[2]))
    if kind == "o":
        obj = copy.copy(template[1])
        obj.__dict__.update({k: unflatten(t, it) for k, t in template[2].items()})
        return obj
    return dict(zip(template[1], (unflatten(t, it) for t in template[2]), strict=True))


class Nested:
    """A recorded call: its graph (explicit inputs, then captured ones), output template and state writes.

    The graph's outputs are the Tensors of the result (in `template` order), then the written state.
    """

    __slots__ = ("graph", "template", "n_leaves", "inputs", "captured", "written", "objs", "result")

    def finish(self, trace: G.Trace, results: list):
        """Write the nested graph's state outputs into `trace`; returns the call's result rebuilt."""
        n = self.n_leaves
        for k, r in zip(self.written, results[n : n + len(self.written)], strict=True):
            trace.write_state(k, self.objs[k], r)
        return unflatten(self.template, iter(results[:n]))


def record(trace: G.Trace, name: str, fn: Callable, args: list, positions, state: tuple = ()) -> Nested:
    """Record `fn(*args)` as a nested graph of `trace`.

    Args:
        trace: the enclosing graph.
        name: the nested graph's name.
        fn: the function to call (with graph semantics: the caller wraps user code).
        args: its arguments.
        positions: which arguments (Tensors) become explicit inputs.
        state: Parameters whose values also become explicit inputs (after the arguments).

    Returns:
        The recording; `result` is the call's value inside the nested graph.
    """
    sub = G.Trace(trace, name)
    inputs = [args[p]._data for p in positions] + [p._data for p in state]
    xs = [sub.new_input(x.shape, x.dtype) for x in inputs]
    call_args = list(args)
    for p, x in zip(positions, xs, strict=False):
        call_args[p] = Tensor._wrap(x)
    for p, x in zip(state, xs[len(positions) :], strict=True):
        sub.state_in[id(p)] = sub.state[id(p)] = x
        sub.state_objs[id(p)] = p
    with G.recording(sub):
        try:
            result = fn(*call_args)
        except RaisedInGraph:
            raise RuntimeError(
                f"graph mode cannot record '{name}' of a function that raises on every path (under Tensor "
                f"conditions): give it a path that returns."
            ) from None
        leaves: list = []
        template = flatten(result, leaves)
    seeded = {id(p) for p in state}
    written = [k for k in sub.written() if k not in seeded]
    nested = Nested()
    nested.graph = sub.graph([*leaves, *(sub.state[k] for k in written)])
    nested.template = template
    nested.n_leaves = len(leaves)
    nested.inputs = inputs
    nested.captured = sub.captured()
    nested.written = written
    nested.objs = sub.state_objs
    nested.result = result
    return nested


def call_with_graph_semantics(trace: G.Trace, fn: Callable, args, kwargs=None):
    """Call a user function through the frontend that records `trace` (plain Python when there is none)."""
    if trace.frontend is not None:
        return trace.frontend.call(fn, args, kwargs)
    return fn(*args, **(kwargs or {}))


__all__ = ["Nested", "call_with_graph_semantics", "flatten", "record", "unflatten"]
