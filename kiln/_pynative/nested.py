"""Recording a function call as a nested graph of the graph being recorded.

Transformations that hold a function (a gradient, a custom derivative, a
recomputed Cell) record it once as its own graph: chosen arguments become the
nested graph's explicit inputs, other outer values it reads become captured
inputs, and the Parameters (or random key) it writes become extra outputs that
the caller writes back into the enclosing graph.
"""

from __future__ import annotations

from collections.abc import Callable

from kiln._compiler.ir import graph as G
from kiln._core.tensor import Tensor
from kiln._core.tree import flatten, unflatten
from kiln._prims.control import RaisedInGraph


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
    sub.outer_inputs = inputs
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
    # A Parameter given in `state` and written by `fn` is written back too (its write is the function's effect;
    # its gradient is taken at the value it had on entry).
    written = sub.written()
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


__all__ = ["Nested", "call_with_graph_semantics", "record"]
