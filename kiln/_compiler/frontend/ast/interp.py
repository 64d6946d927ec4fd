"""The AST frontend's interpreter: runs a parsed function's Python-level IR with graph semantics.

The interpreter walks graphs node by node. Python values (scalars, strings,
tuples, Cells, functions) are constants: operations on them are computed at
compile time (constant folding), and `if`/loops on them choose a branch or
unroll. Tensors are variables: inside a compile they hold symbolic `Var`s of the
tensor IR, so calling ops on them runs the same primitive declarations as
PyNative (shape/dtype inference and MindSpore-style checks) and appends their
equations to the current `Trace` instead of computing. Each node's abstract
value is kept for the IR dumps, and a failure is reported at the user's line
with the failing node marked.
"""

from __future__ import annotations

import numpy as np

from kiln._compiler.errors import GraphCompileError, UnassignedVariable, where
from kiln._compiler.frontend.ast import attributes, calls, control, diagnose, semantics
from kiln._compiler.frontend.ast import ops as O
from kiln._compiler.frontend.ast.node import Apply, Const, FuncGraph
from kiln._compiler.frontend.ast.parser import UNDEF
from kiln._compiler.frontend.ast.values import (
    FIRST_UNROLL,
    MISSING,
    UNROLL,
    Closure,
    Exits,
    Frame,
    Goto,
    Raises,
    RecursionCut,
    Return,
    abstract_of,
)
from kiln._compiler.guards import cell_guard, cell_reads, dict_guard
from kiln._compiler.ir import graph as G
from kiln._core.tensor import CELL_HOOKS
from kiln._prims.control import RaisedInGraph, raise_p
from kiln._prims.control import register as register_raise
from kiln.context import _context

_ACTIVE: list = []  # the stack of compile contexts (nested jit calls inline into the outermost)


def active():
    """The compile context in progress, or None."""
    return _ACTIVE[-1] if _ACTIVE else None


class Context:
    """State of one compile (or one eager interpretation).

    Args:
        lax: run what cannot be compiled on the host (MindSpore's LAX syntax level) instead of failing.
        tracing: tensors are symbolic (inside a compile) rather than concrete (eager interpretation).
    """

    def __init__(self, lax: bool = True, tracing: bool = True) -> None:
        self.lax = lax
        self.tracing = tracing
        self.const_params: set[int] = set()  # Parameters of Cells built inside the graph: constants
        self.guards: list = []
        self.guard_keys: set = set()
        self.region_depth = 0  # nesting of Tensor-conditioned branches and loops being recorded
        self.frames: list[Frame] = []
        self.parsed: list = []  # ParsedFunctions used (for IR dumps)
        self.seen_cells: set[int] = set()
        self.trace_only = False  # capture_mode='trace': nested Cells run as Python too
        self.trace = None  # the outermost graph being recorded
        self.example_leaves = None  # the input arrays of the call being compiled
        self.recomputing: set[int] = set()  # Cells being recorded as recomputed nested graphs
        self.call_depth = 0
        self.loop_entries: dict = {}  # (loop header node, frame id) -> region depth at its first entry
        self.active_calls: dict = {}  # FuncGraph -> its calls in progress (recursion depth)
        self.unrolled_calls = 0  # recursive calls unrolled under Tensor conditions
        self.max_call_depth = int(_context.get("max_call_depth") or 1000)
        self.attr_slots: dict = {}  # (kind, id(obj), name) -> TensorAttribute of an attribute set to a Tensor
        # the dtype of the `to_float` Cell whose construct runs now, None outside one (frontend/ast/precision.py)
        self.amp_dtype = None
        self.list_journal: dict | None = None  # id -> (list, items before) of lists a Tensor branch mutates
        self.attr_undo: list = []  # (obj, name, old value) of attributes set to Python values, undone on failure
        # Tensor ifs whose branches give different shapes (kiln/_compiler/specialise.py): site key -> the branch
        # this compile assumes (None: the compile may not specialise), arrivals per if node, the last site key of
        # each if node, and the (site, assumed branch) pairs guarded, in program order
        self.branch_plan: dict | None = None
        self.if_visits: dict = {}
        self.last_site: dict = {}
        self.guarded: list = []
        self.host_visits: dict = {}  # host step (name, file, line, col) -> arrivals so far (effects.host_call)
        self.range_loop_attempts = 0  # loops over long Python ranges being tried as one loop (control.range_loop)

    def __enter__(self):
        _ACTIVE.append(self)
        return self

    def __exit__(self, *exc):
        _ACTIVE.pop()
        attributes.finish(self, failed=exc[0] is not None)

    # -- what the graph depends on --------------------------------------------------------------
    def see_cell(self, cell) -> None:
        """Guard on a Cell's Parameters and training mode (its Parameters are read through the trace)."""
        if id(cell) in self.seen_cells:
            return
        self.seen_cells.add(id(cell))
        for _, c in cell.cells_and_names():
            self.seen_cells.add(id(c))
            for name, p in c._params.items():
                if p is not None:
                    self.guard(c._params, name, p)
            self.guard(c.__dict__, "training", c.__dict__.get("training"))
            # its ops are cast to its run dtype (`to_float`): setting another one compiles the graph again
            self.guard(c.__dict__, "_float_dtype", c.__dict__.get("_float_dtype", MISSING))
            self.guard(c.__dict__, "_amp_auto", c.__dict__.get("_amp_auto", MISSING))
            for container, key, value in cell_reads(c):
                self.guard(container, key, value)
        # Cell hooks are traced into the graph: registering or removing one compiles it again (a primitive changed in
        # place after the compile does too: `cell_reads` and each call of a primitive guard its count of edits)
        self.guard(CELL_HOOKS, "generation", CELL_HOOKS["generation"])

    # -- the interpreter, for the modules it calls (they reach it through the context, not by import) --
    def call(self, fn, args, kwargs=None):
        """Call `fn` with graph semantics (library code such as `grad` calls user functions through this)."""
        return calls.call(self, fn, list(args), kwargs or None, None)

    def run(self, frame, region=None):
        return run(self, frame, region)

    def enter(self, graph, parent, args, ns):
        return enter(graph, parent, args, ns)

    def value_of(self, frame, node):
        return value_of(frame, node)

    def find(self, frame, graph):
        return _find(frame, graph)

    def eval_apply(self, frame, node):
        return eval_apply(self, frame, node)

    def call_closure(self, clo, args, kwargs=None, ns=None):
        return call_closure(self, clo, args, kwargs, ns)

    def guard(self, container: dict, key, value) -> None:
        """The compiled graph is valid only while `container[key] is value`."""
        k = (id(container), key)
        if k in self.guard_keys:
            return
        self.guard_keys.add(k)
        self.guards.append(dict_guard(container, key, value))

    def guard_cell(self, cell, value) -> None:
        """The graph is valid only while the closure cell holds `value`."""
        k = (id(cell), "cell_contents")
        if k not in self.guard_keys:
            self.guard_keys.add(k)
            self.guards.append(cell_guard(cell, value))

    def frame_for(self, frame: Frame, graph: FuncGraph | None) -> Frame | None:
        f = frame
        while f is not None and f.graph is not graph:
            f = f.parent
        return f


# -- evaluation ---------------------------------------------------------------------------------


def value_of(frame: Frame, node):
    if type(node) is Const:
        v = node.value
        if type(v) is FuncGraph:
            return Closure(v, _find(frame, v.parent))
        return v
    f = frame
    g = node.graph
    while f.graph is not g:
        f = f.parent
    return f.values[node]


def _find(frame: Frame, graph):
    f = frame
    while f is not None and f.graph is not graph:
        f = f.parent
    return f


def eval_apply(ctx: Context, frame: Frame, a: Apply):
    inputs = a.inputs
    head = inputs[0]
    if type(head) is Const and type(head.value) is O.Op:
        args = [value_of(frame, x) for x in inputs[1:]]
        return semantics.IMPL[head.value](ctx, frame, a, args)
    fn = value_of(frame, head)
    args = [value_of(frame, x) for x in inputs[1:]]
    kwargs = None
    if a.kw:
        n = len(a.kw)
        kwargs = dict(zip(a.kw, args[-n:], strict=True))
        args = args[:-n]
    return calls.call(ctx, fn, args, kwargs, a)


def run(ctx: Context, frame: Frame, region: FuncGraph | None = None):
    """Evaluate `frame`'s graph and the graphs it jumps to (trampolined).

    Without `region`, returns the function's result. With it, stops when control
    leaves `region` and returns a `Goto` or `Return` outcome (tensor-valued branches).
    """
    ctx.frames.append(frame)
    try:
        while True:
            ctx.frames[-1] = frame
            graph = frame.graph
            values = frame.values
            trace = G.current()
            for a in graph.nodes:
                frame.current = a
                if trace is not None:
                    trace.loc = a.loc
                try:
                    v = eval_apply(ctx, frame, a)
                except BaseException as err:  # noqa: BLE001
                    raise diagnose.annotate(ctx, a, err) from None
                values[a] = v
                a.abstract = abstract_of(v)
            out = graph.output
            op = out.op if type(out) is Apply else None
            if op is O.JUMP or op is O.IF:
                frame.current = out
                if op is O.JUMP:
                    target = out.inputs[1].value
                    args = [value_of(frame, x) for x in out.inputs[2:]]
                    parent = _find(frame, target.parent)
                    if region is not None and not target.is_within(region):
                        return Goto(target, parent, args)
                    frame = enter(target, parent, args, frame.ns)
                    continue
                if op is O.IF:
                    try:
                        step = control.branch(ctx, frame, out)
                    except BaseException as err:  # noqa: BLE001
                        raise diagnose.annotate(ctx, out, err) from None
                    if isinstance(step, Frame):
                        if region is not None and not step.graph.is_within(region):
                            return Goto(step.graph, step.parent, [step.values[p] for p in step.graph.params])
                        frame = step
                        continue
                    if isinstance(step, Exits):
                        step = control.resolve(ctx, step, region, frame.ns)
                    if isinstance(step, Raises):  # every path raises (at run time)
                        if region is not None:
                            return step
                        if step.exc is None:  # a dead exit
                            return None
                        raise RaisedInGraph(step.exc, step.loc)
                    if isinstance(step, Goto):
                        if region is not None and not step.target.is_within(region):
                            return step
                        frame = enter(step.target, step.parent, step.args, frame.ns)
                        continue
                    return step if region is not None else step.value  # a Return, or Exits leaving the region
            result = value_of(frame, out)
            if _holds_undefined(result):
                at = out if getattr(out, "loc", None) is not None else _AtReturn(graph.return_loc)
                raise diagnose.annotate(ctx, at, UnassignedVariable(_UNBOUND)) from None
            return Return(result) if region is not None else result
    finally:
        ctx.frames.pop()


_UNBOUND = (
    "a local variable is used here that is not assigned on every path before this point (assigned in only one "
    "branch of an if, or only inside a loop that may run zero times)."
)


class _AtReturn:
    """Where an error about the returned value points: the `return` statement."""

    __slots__ = ("loc",)

    def __init__(self, loc) -> None:
        self.loc = loc


def _holds_undefined(value) -> bool:
    """A returned value is (or holds, in a tuple or list) a variable not assigned on every path."""
    if value is UNDEF:
        return True
    return isinstance(value, (tuple, list)) and any(_holds_undefined(v) for v in value)


def enter(graph: FuncGraph, parent: Frame | None, args: list, ns) -> Frame:
    """A new frame of `graph` with its (positional) parameters bound to `args`."""
    f = Frame(graph, parent, parent.ns if parent is not None else ns)
    values = f.values
    for p, v in zip(graph.params, args, strict=True):
        values[p] = v
        p.abstract = abstract_of(v)
    return f


def call_closure(ctx: Context, clo: Closure, args, kwargs, ns=None):
    """Call a graph value with Python calling conventions (at most `max_call_depth` calls deep)."""
    g = clo.graph
    f = Frame(g, clo.frame, clo.frame.ns if clo.frame is not None else ns)
    bind(g, f.values, args, kwargs or {}, clo.defaults, clo.kwdefaults)
    active = ctx.active_calls.get(g, 0)
    if active and ctx.region_depth > 0:
        _unroll_recursion(ctx, g, active)
    ctx.call_depth += 1
    ctx.active_calls[g] = active + 1
    try:
        if ctx.call_depth > ctx.max_call_depth:
            raise _too_deep(ctx, g, f"more than max_call_depth={ctx.max_call_depth} calls deep")
        return run(ctx, f)
    except RecursionError as err:
        if isinstance(err, RecursionCut):
            raise
        raise _too_deep(ctx, g, "deeper than Python's recursion limit") from None
    finally:
        ctx.call_depth -= 1
        ctx.active_calls[g] = active


UNROLL_BUDGET = 320  # recursive calls one compile unrolls under Tensor conditions


def _unroll_recursion(ctx: Context, g: FuncGraph, active: int) -> None:
    """A recursive call under a Tensor condition: unrolled while within the compiled depth, else cut off
    (compiled as a raise of RecursionCut, which makes the caller compile deeper)."""
    ctx.unrolled_calls += 1
    if ctx.unrolled_calls > UNROLL_BUDGET:
        raise _too_deep(ctx, g, f"through more than {UNROLL_BUDGET} unrolled calls (the recursion branches out)")
    if active < UNROLL.get(g, FIRST_UNROLL):
        return
    cut = RecursionCut(f"the recursion through '{g.name}' went deeper than the {active} calls graph mode compiled", g)
    G.current().bind(raise_p, (register_raise(cut),), [np.int32(0)])
    raise RaisedInGraph(cut, g.loc)


def _too_deep(ctx: Context, g: FuncGraph, how: str) -> GraphCompileError:
    err = GraphCompileError(
        f"graph mode unrolls calls at compile time, and the calls through '{g.name}' go {how}. A recursion whose "
        f"stop condition is a Tensor never stops unrolling: write it as a while loop (a Tensor-conditioned while "
        f"compiles to one loop), or, for deep but finite recursion, raise set_context(max_call_depth=...)."
        + (f"\n\nThe recursive function (graph mode):\n{where(g.loc)}" if g.loc is not None else "")
    )
    err._kiln_annotated = True  # one message, not one per unrolled level
    return err


def bind(g: FuncGraph, values: dict, args, kwargs: dict, defaults: tuple, kwdefaults: dict) -> None:
    """Python's argument binding for a graph's parameters."""
    params = g.params
    n = len(params)
    name = g.loc.func if g.loc is not None and g.loc.func else g.name  # Python's words: `Net.construct()`
    if len(args) > n and g.vararg is None:
        raise TypeError(f"{name}() takes {n} positional argument(s) but {len(args)} were given.")
    kwargs = dict(kwargs)
    first_default = n - len(defaults)
    for i, p in enumerate(params):
        if i < len(args):
            if p.name in kwargs:
                raise TypeError(f"{name}() got multiple values for argument '{p.name}'.")
            v = args[i]
        elif p.name in kwargs:
            v = kwargs.pop(p.name)
        elif i >= first_default:
            v = defaults[i - first_default]
        else:
            raise TypeError(f"{name}() missing required argument '{p.name}'.")
        values[p] = v
        p.abstract = abstract_of(v)
    if g.vararg is not None:
        values[g.vararg] = tuple(args[n:])
    for p in g.kwonly:
        if p.name in kwargs:
            values[p] = kwargs.pop(p.name)
        elif p.name in kwdefaults:
            values[p] = kwdefaults[p.name]
        else:
            raise TypeError(f"{name}() missing required keyword argument '{p.name}'.")
    if g.kwarg is not None:
        values[g.kwarg] = kwargs
    elif kwargs:
        raise TypeError(f"{name}() got unexpected keyword argument(s) {sorted(kwargs)}.")


__all__ = ["UNDEF", "Context", "Goto", "Return", "active", "bind", "call_closure", "enter", "run", "value_of"]
