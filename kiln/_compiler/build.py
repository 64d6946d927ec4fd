"""Compiling: record a Kiln graph, optimise it, lower it to one XLA executable.

`build` records the program as a Kiln graph (the frontend runs on symbolic
tensors, every op appends an equation), runs the passes, then `lower` turns the
graph into a backend function with one loop over its equations; nested graphs
become `cond`, `while_loop` and `vjp` of their own lowered functions. The whole
is compiled once with `jax.jit`, the buffers of written Parameters donated.
Parameters and the random key are inputs; their new values are outputs,
written back after each call. So is a Tensor argument the program writes in
place (`x.add_(y)`, `ops.assign(x, v)`): its new value is an output, written
back to the caller's Tensor after the call, as PyNative leaves it.
"""

from __future__ import annotations

import contextlib
import operator
import os
import time
from collections.abc import Iterator

import numpy as np

from kiln import _backend as B
from kiln._backend import distributed as _distributed
from kiln._backend.launch import array_type, launch_of
from kiln._compiler import dump, input_checks
from kiln._compiler import passes as tensor_passes
from kiln._compiler.cache import persistent
from kiln._compiler.cache.memory import InputsDiffer, rebuild
from kiln._compiler.errors import host_shape_changed
from kiln._compiler.frontend.ast.calls import prescan
from kiln._compiler.frontend.ast.control import leaf_scalar_types
from kiln._compiler.frontend.ast.effects import HostScalar, RunTimeString, python_type_of
from kiln._compiler.frontend.ast.interp import Context
from kiln._compiler.frontend.ast.values import Closure
from kiln._compiler.ir import graph as G
from kiln._compiler.lower import (
    CHECK_SITES,
    check_error,
    eval_graph,
    fold_checks,
    has_checks,
    kept_keys,
    kept_state,
    lifted_constants,
    lifted_inputs,
)
from kiln._compiler.specialise import SITES, BranchGuardFailed, ShapeJoinError, guard_p, refused
from kiln._core import known_values, random_state
from kiln._core.primitive import checks_enabled
from kiln._core.tensor import LAZY_WINDOWS, VIEW_WRITTEN, Parameter, Pending, Tensor
from kiln._core.tree import LEAF, flatten, unflatten
from kiln._prims.control import RaisedInGraph, raise_p
from kiln.context import GRAPH_MODE, _context


class Executable:
    """A compiled graph plus what a call needs: the state it reads and writes, and the output layout."""

    __slots__ = (
        "exe", "state_objs", "written", "donated", "owned", "n_out", "out_desc", "guards", "refs", "name",
        "front_s", "trace_s", "_graph", "checked", "shapes_seen", "code_shift", "loaded", "_retrace", "out_types",
        "checks_inputs", "plan", "restorable", "input_writes", "input_tests", "build_checked", "checked_program",
        "donated_out", "donated_in", "donated_new", "read_slots", "write_slots", "tester", "launch", "fresh_in",
        "predicts",
    )  # fmt: skip

    @property
    def graph(self):
        """The optimised Kiln graph (a loaded executable records it again on first access)."""
        if self._graph is None and self._retrace is not None:
            retrace, self._retrace = self._retrace, None
            self._graph = retrace()
        return self._graph

    @graph.setter
    def graph(self, value) -> None:
        self._graph = value

    def direct(self):
        """The backend function when a call is `Tensor(exe(*leaves)[0])` (no state, no checks, one Tensor out)."""
        if (
            self.state_objs
            or self.written
            or self.input_writes
            or self.checked
            or self.input_tests is not None
            or self.out_types is not None
            or self.out_desc is not _SINGLE
        ):
            return None
        return self.exe

    def __call__(self, leaves: list, inputs: list | None = None):
        """Run the program on the input arrays `leaves`; `inputs` (the caller's Tensor behind each leaf, None for
        a `mutable()` scalar) is needed when the program writes some of them (`input_writes`)."""
        tester = self.tester
        state = None
        if tester is not None:
            if tester.last_read >= len(leaves):  # a test reads the state (the global step): read once for both
                state = self._read_state()
            passed = tester(leaves, state)
            if not passed:
                if passed is None:  # an argument of another type: the call builds its key (see JitCache.fast)
                    raise InputsDiffer()
                return self._run_checked(leaves, inputs)
        if not self.state_objs and not self.written and not self.checked and not self.input_writes:  # pure
            outs = self.exe(*leaves)
            if self.out_types is not None:
                return _with_python_scalars(self.out_desc, outs, self.out_types)
            return Tensor._wrap(outs[0]) if self.out_desc is _SINGLE else unflatten(self.out_desc, iter(outs))
        if state is None:
            state = self._read_state()
        predicts = self.predicts
        if predicts:  # the host's values of the state the tests read, taken before the launch donates their arrays
            before = [known_values.value(state[i]) for _, i, _ in predicts]
        owned = self.owned
        launch = None
        if any(map(operator.is_not, self.donated_in(state), owned)):
            # The buffers are donated: make sure no other Tensor shares them (copies without an XLA compile).
            foreign = [i for k, i in enumerate(self.donated) if state[i] is not owned[k]]
            for i, copy in zip(foreign, _distributed.private_copies([state[i] for i in foreign]), strict=True):
                state[i] = copy
        else:
            # every donated input is this program's own output of its last call (its aval is the one compiled for):
            # the other inputs' avals are checked here, as jax.jit's call would
            launch = self.launch
            if launch is None and self.fresh_in is not None:  # it ran: jax.jit has compiled it for such inputs
                launch = self._find_launch([*leaves, *state], len(leaves))
        arrays = [*leaves, *state]
        if launch and all(type(arrays[i]) is at and arrays[i].aval == a for at, i, a in self.fresh_in):
            outs = launch.execute(arrays).consume_with_handlers(launch.handlers)
        else:
            outs = self.exe(*arrays)
            if self.fresh_in is None:
                self.fresh_in = ()  # the next call looks for a launch
        if self.checked:
            code = int(outs[-2])
            if code >= 0:
                prim, kw, _, _ = CHECK_SITES[code + self.code_shift]
                if prim is guard_p:  # the run assumed the other branch of an if: nothing of it is applied
                    self._restore(outs)
                    raise BranchGuardFailed(SITES[kw["site"]])
                self._write_back(outs, inputs)  # the graph returned the state unchanged (its buffers were donated)
                raise check_error(code + self.code_shift, outs[-1])
        if predicts:
            # the new arrays of state the program provably computes from its old values (the global step + 1): the
            # host knows their values, and the next call's tests read them without waiting for this launch
            n = self.n_out
            for (k, _, steps), v in zip(predicts, before, strict=True):
                if v is not None:
                    known_values.remember(outs[n + k], input_checks.predict(v, steps))
        return self._write_back(outs, inputs)

    def _find_launch(self, arrays: list, n_leaves: int):
        """The `Launch` of the optimised executable for inputs like `arrays` (the call's leaves, then its state), or
        False when its call does more than run it (see `launch_of`) or the program checks values; None while a quick
        tier runs the calls or an input is traced (looked for again at the next call). Sets `launch`, and `fresh_in`:
        (array type, position, aval) of each input that is not a donated buffer of the program's own making
        (checked before each launch)."""
        exe = self.exe
        program = exe.compiled if type(exe) is persistent.DirectExecutable else exe
        if isinstance(program, B.tiers.Tiered) or any(B.is_tracer(a) for a in arrays):
            return None
        launch = False if self.checked else launch_of(program, arrays)
        if launch is None:
            launch = False
        if launch:
            donated = {n_leaves + i for i in self.donated}
            at = array_type()
            self.fresh_in = tuple((at, i, a) for i, a in enumerate(launch.avals) if i not in donated)
        self.launch = launch
        return launch

    def _run_checked(self, leaves: list, inputs: list | None):
        """Run the program with every check compiled in (built on first need): a test of the inputs failed, and
        this program gives the error, and leaves the state, exactly as the checked program always did."""
        STATS["checked_runs"] += 1
        full = self.checked_program
        if full is None:
            STATS["checked_builds"] += 1
            full = self.checked_program = self.build_checked(leaves)
        return full(leaves, inputs)

    def _restore(self, outs) -> None:
        """Put back the state a failed run returned unchanged (the inputs' buffers were donated); state the
        program only wrote (an attribute set to a Python value) is left as it was."""
        n = self.n_out
        for k, obj in enumerate(self.written):
            if self.restorable[k]:
                if obj is G.RNG:
                    random_state.swap_key(outs[n + k])
                else:
                    obj._data = outs[n + k]
        for k, i in enumerate(self.donated):
            self.owned[k] = self.state_objs[i]._data

    def _read_state(self) -> list:
        """The arrays of the state the program reads, in input order.

        Outside a recorded graph, a plain Parameter's array is read from its slot (the `_data` property asks
        the active trace first, about 1-2 us each: 79 reads per transformer step); the lazy window runs first,
        and a pending value takes the property's path, as before.
        """
        if self.read_slots is not None and G.current() is None:
            if LAZY_WINDOWS and LAZY_WINDOWS[0].ops:
                LAZY_WINDOWS[0].flush()
            state = self.read_slots()
            if Pending not in map(type, state):
                return state
        return [random_state.current_key() if obj is G.RNG else obj._data for obj in self.state_objs]

    def _write_back(self, outs, inputs):
        n = self.n_out
        written = self.written
        if self.write_slots is not None and G.current() is None:
            # each plain Parameter's array set in its slot (what its `_data` setter does outside a recorded graph)
            self.write_slots(outs)
        else:
            for k, obj in enumerate(written):
                new = outs[n + k]
                if obj is G.RNG:
                    random_state.swap_key(new)
                else:
                    obj._data = new
        self.owned[:] = self.donated_new(outs)  # the buffers just written are the next call's donated inputs
        n += len(written)
        for k, i in enumerate(self.input_writes):
            if inputs[i] is not None:  # None: a `mutable()` scalar, which has no Tensor to write
                inputs[i]._data = outs[n + k]
        desc = self.out_desc
        if self.out_types is not None:
            return _with_python_scalars(desc, outs, self.out_types)
        if desc is _SINGLE:
            return Tensor._wrap(outs[0])
        return unflatten(desc, iter(outs))


_SINGLE = ("t",)
# Programs whose value checks are tested on the inputs before launch (input_checks): runs and builds of the
# program with the checks compiled in, after a failed test (tests count them).
STATS = {"checked_runs": 0, "checked_builds": 0}


def _describe_out(v, leaves: list):
    if isinstance(v, Closure) or (isinstance(v, (tuple, list)) and any(isinstance(x, Closure) for x in v)):
        raise TypeError("a graph cannot return a function defined inside it.")
    desc = flatten(_output_values(v), leaves)
    if _has_text(desc):
        desc = _texts_as_templates(desc, leaves)
    types = [python_type_of(x) for x in leaves]
    return desc if not any(types) else _mark_leaves(desc, iter(types))


def _has_text(desc) -> bool:
    kind = desc[0]
    if kind == "c":
        return isinstance(desc[1], RunTimeString)
    if kind in ("s", "n", "d"):
        return any(_has_text(d) for d in desc[2])
    return kind == "o" and any(_has_text(d) for d in desc[2].values())


def _texts_as_templates(desc, leaves: list):
    """`desc` with each str formatted from run-time Tensors (a `RunTimeString` constant) made an ("f", pieces)
    template, its Tensors taken out as leaves in walking order: it leaves the graph as the str PyNative gives."""
    given, out = iter(list(leaves)), []

    def walk(d):
        kind = d[0]
        if kind == "t":
            out.append(next(given))
            return d
        if kind == "c" and isinstance(d[1], RunTimeString):
            pieces = []
            for p in d[1].parts:
                if not isinstance(p, str):
                    out.append(p[0]._data)
                    p = (LEAF, p[1], p[2])
                pieces.append(p)
            return ("f", tuple(pieces))
        if kind in ("s", "n"):
            return (kind, d[1], tuple(walk(x) for x in d[2]))
        if kind == "d":
            return (kind, d[1], tuple(walk(x) for x in d[2]), *d[3:])
        if kind == "o":
            return (kind, d[1], {k: walk(x) for k, x in d[2].items()})
        return d

    new = walk(desc)
    leaves[:] = out
    return new


def _output_values(v):
    """`v` as it leaves the graph, walked once: each symbolic dimension (a shape under `set_inputs` None dims)
    computed by the graph, so it leaves as the int it is in that call, never as the backend's symbolic expression;
    each iterator (`map`, `zip`, `filter`, a generator) run to its end inside the graph, as a tuple, since an
    iterator leaving the graph would run its body later, in Python, after the graph is gone."""
    if B.is_symbolic_dim(v):
        (out,) = G.current().emit("dim_value", [], [((), np.dtype(np.int64))], {"dim": v})
        return HostScalar.of(out, int)
    if isinstance(v, Iterator):
        return tuple(_output_values(x) for x in v)
    if isinstance(v, (tuple, list)) and not hasattr(v, "_fields"):
        new = [_output_values(x) for x in v]
        return v if all(a is b for a, b in zip(new, v, strict=True)) else type(v)(new)
    if isinstance(v, dict):
        new = {k: _output_values(x) for k, x in v.items()}
        return v if all(new[k] is x for k, x in v.items()) else new
    return v


def _mark_leaves(desc, types):
    """`desc` with the Python type of each scalar leaf written into it: ("t", float); the template stays
    readable by `unflatten`, and a kept executable keeps the types."""
    kind = desc[0]
    if kind == "t":
        t = next(types)
        return desc if t is None else ("t", t)
    if kind in ("s", "n"):
        return (kind, desc[1], tuple(_mark_leaves(d, types) for d in desc[2]))
    if kind == "o":
        return (kind, desc[1], {k: _mark_leaves(d, types) for k, d in desc[2].items()})
    if kind == "d":
        return (kind, desc[1], tuple(_mark_leaves(d, types) for d in desc[2]), *desc[3:])
    if kind == "f":
        return (kind, tuple(p if isinstance(p, str) else (_mark_leaves(p[0], types), *p[1:]) for p in desc[1]))
    return desc


def _leaf_types(desc) -> list | None:
    """The Python type of each leaf marked by `_mark_leaves` (None for a Tensor), or None if there is none."""
    found: list = []

    def walk(d):
        kind = d[0]
        if kind == "t":
            found.append(d[1] if len(d) > 1 else None)
        elif kind in ("s", "n", "d"):
            for x in d[2]:
                walk(x)
        elif kind == "o":
            for x in d[2].values():
                walk(x)
        elif kind == "f":
            for p in d[1]:
                if not isinstance(p, str):
                    walk(p[0])

    walk(desc)
    return found if any(t is not None for t in found) else None


def _with_python_scalars(desc, outs, types: list):
    """The outputs, with each leaf marked as a Python scalar converted to that type (as PyNative returns it)."""

    def leave(pair):
        value, t = pair
        return Tensor._wrap(value) if t is None else t(value.item())

    return unflatten(desc, iter(zip(outs, types, strict=False)), leave)


@contextlib.contextmanager
def graph_mode():
    """While tracing, nested Cell calls go through the graph runner (also under a PyNative-mode @jit)."""
    old = _context["mode"]
    _context["mode"] = GRAPH_MODE
    try:
        yield
    finally:
        _context["mode"] = old


def trace_program(
    name: str,
    body,
    template,
    leaves: list,
    cells: list,
    lax: bool,
    fn=None,
    shapes=None,
    plan=None,
    write_inputs: bool = False,
):
    """Run the frontend on symbolic inputs; returns (graph, trace, ctx, output description).

    `shapes` (one per leaf) replaces the leaves' shapes, e.g. with symbolic dimensions (`Cell.set_inputs`).
    `plan` (site key -> branch) are the Tensor ifs to specialise (see `specialise`); None: none may be.
    `write_inputs`: the input Tensors the program writes in place are outputs after the written state (the output
    description's last item lists their leaf indices); else such writes stay inside the program.
    """
    ctx = Context(lax=lax, tracing=True)
    ctx.branch_plan = plan
    if fn is not None:
        cells = [*cells, *prescan(fn)[0]]
    for c in cells:
        ctx.see_cell(c)
    trace = G.Trace(name=name)
    trace.frontend = ctx
    trace.const_ids = ctx.const_params
    ctx.trace = trace
    ctx.example_leaves = leaves if shapes is None else None
    shapes = shapes or [x.shape for x in leaves]
    in_vars = [trace.new_input(shape, x.dtype) for x, shape in zip(leaves, shapes, strict=True)]
    made: list = []  # the input Tensors, one per leaf
    # a `mutable()` scalar is a Python number of its type in the graph, as in MindSpore (isinstance, results)
    types = iter([t for part in (*template[0], *(t for _, t in template[1])) for t in leaf_scalar_types(part)])

    def wrap(var):
        py_type = next(types)
        t = Tensor._wrap(var) if py_type is None else HostScalar.of(var, py_type)
        made.append(t)
        return t

    with G.recording(trace), ctx, graph_mode():
        args, kwargs = rebuild(template, iter(in_vars), wrap)
        if write_inputs:
            trace.input_tensors.update((id(t), (t, v)) for t, v in zip(made, in_vars, strict=True))
        try:
            out = body(*args, **kwargs)
        except RaisedInGraph:  # every path raises at run time: the graph's Raise equations say which
            out = None
        out_leaves: list = []
        desc = _describe_out(out, out_leaves)
    written = trace.written()
    input_writes = []
    if write_inputs:
        input_writes = [i for i, (t, v) in enumerate(zip(made, in_vars, strict=True)) if t._buf is not v]
    graph = trace.graph([*out_leaves, *(trace.state[k] for k in written), *(made[i]._buf for i in input_writes)])
    return graph, trace, ctx, (desc, len(out_leaves), written, tuple(input_writes), [id(made[i]) for i in input_writes])


def build(
    name: str,
    body,
    template,
    leaves: list,
    param_args: list,
    cells: list,
    lax: bool,
    fn=None,
    shapes=None,
    plan: dict | None = None,
    write_inputs: bool = False,
    test_inputs: bool = True,
):
    """Record `body` as a Kiln graph on symbolic inputs, optimise it and compile it.

    Args:
        name: display name (logs, dumps).
        body: `body(*args, **kwargs)` runs the program (through the frontend or as Python).
        template: rebuilds (args, kwargs) from the input leaves (see `cache.flatten`).
        leaves: example input arrays (their shapes and dtypes are the signature).
        param_args: Parameters passed as arguments (state: read and written through the trace).
        cells: Cells reachable from the arguments (guards on their parameters and training mode).
        lax: LAX syntax level.
        fn: the user's function (its globals are scanned for Cells to guard).
        shapes: input shapes with symbolic dimensions (`Cell.set_inputs` with None): the program is recorded
            once and exported shape-polymorphic; XLA compiles it for each concrete shape it is called with.
        plan: the branches assumed at Tensor ifs whose branches give different shapes (site key -> True for the
            true branch); ifs found while tracing are added, assuming the true branch. None: no if is specialised
            (such an if is a TypeError). See `specialise`.
        write_inputs: a Tensor argument the program writes in place is written back to the caller's Tensor after
            each call (the Executable's `input_writes`; a call passes the caller's Tensors). False: the caller
            keeps such writes itself (bytecode capture replays them).
        test_inputs: when every value check of the program reads only its arguments, compile it without them
            and test the arguments on the host before each launch (`input_checks`); False: compile the checks in
            (the program a failed test runs; never kept on disk).

    Returns:
        The Executable; its `plan` holds the (site, assumed branch) pairs it checks, in program order.
    """
    # no optimised compile of an earlier program starts on the tier-up thread while this one is built (B.tiers), and
    # no cyclic collection walks the heap while its trace fills the collector's generations (B.gc_pause)
    with B.tiers.foreground(), B.gc_pause.paused():
        return _build(name, body, template, leaves, param_args, cells, lax, fn, shapes, plan, write_inputs, test_inputs)


def _build(name, body, template, leaves, param_args, cells, lax, fn, shapes, plan, write_inputs, test_inputs):
    t0 = time.perf_counter()
    key = None
    if shapes is None and dump.level() == 0 and not plan and test_inputs:  # a specialised program is not kept (below)
        key = persistent.graph_key(name, body, template, leaves, lax)
        if key is not None:
            specs = [B.ShapeDtypeStruct(x.shape, x.dtype) for x in leaves]
            loaded = persistent.load(key)
            if loaded is not None:
                retrace = lambda: _retrace(name, body, template, specs, cells, lax, fn)  # noqa: E731
                build_checked = _checked_builder(name, body, template, param_args, cells, lax, fn, plan, write_inputs)
                return _loaded_executable(loaded, name, t0, retrace, build_checked)
            # what the trace must leave as it found it (a jit(...) made and kept on first use is a cache)
            probe = persistent.graph_key(name, body, template, leaves, lax, memo_none=True)
    if shapes is not None or any(B.is_tracer(x) for x in leaves):
        # one program for every size, or one run inside a backend transformation (a PyNative vmap of a jit):
        # its ifs cannot be specialised per call
        plan = None
    with persistent.watch_output() as watch:
        graph, trace, ctx, (desc, n_out, written, input_writes, input_keys) = _trace_specialised(
            name, body, template, leaves, cells, lax, fn, shapes, plan, write_inputs
        )
    if ctx.guarded:
        if has_host_effects(graph):
            raise refused([s for s, _ in ctx.guarded], "its prints or host calls would run in a run that is redone")
        key = None  # a specialised program is not kept on disk (its key does not say which branches it assumed)
    if key is not None:
        # A trace that changed what the key was computed from (a frontend collecting results on the side, a
        # Cell building state lazily) has effects a process loading the executable would miss: not kept.
        after = persistent.graph_key(name, body, template, leaves, lax, memo_none=True)
        if after is None or probe is None or after.name != probe.name:
            changed = "could not be fingerprinted again" if after is None or probe is None else "changed"
            persistent.not_kept(name, f"the objects the key was computed from {changed} while tracing")
            key = None
    if key is not None and input_writes:
        key = None  # the Tensors to write back are the caller's of each call, which a kept executable does not know
    if key is not None and watch.noisy:
        persistent.not_kept(name, "tracing printed or warned (a process loading the executable would not)")
        key = None
    elif key is not None and watch.drew:
        # a @constexpr drawing a constant: a process loading the executable would neither draw it anew nor advance
        # the generator, so its later draws would differ from a process that traced (MindSpore draws at each compile)
        persistent.not_kept(name, "tracing drew from Python's or NumPy's global random generator")
        key = None
    front_s = time.perf_counter() - t0
    stages = [("record", str(graph))] if dump.level() > 0 else []
    for pass_name, changes in _run_passes(graph):
        if stages and changes:
            stages.append((f"{pass_name}", str(graph)))
    if stages:  # the program handed to the backend (MindSpore's dump name for its last frontend stage)
        stages.append(("validate", str(graph)))
    n_leaves = len(leaves)
    state_keys = list(trace.state_in)
    state_objs = [trace.state_objs[k] for k in state_keys]
    # XLA still copies a donated Parameter its backward pass reads again (the transformer step's 22 weights and
    # LayerNorm gammas, ~15 us; a hand-written jax.jit step has the same): its copy insertion, not the order of the
    # updates (an optimization barrier putting every update after every gradient left all 22). Its option
    # xla_cpu_copy_insertion_use_region_analysis removes them, step time unchanged (session 14, load 6-9).
    donated = tuple(i for i, k in enumerate(state_keys) if k in written and k is not G.RNG)
    if has_host_calls(graph):
        donated = ()  # a run whose host step changes shape applies nothing: the state must outlive it

    # a user's raise and a branch guard always run
    checked = has_checks(graph) and (checks_enabled() or has_checks(graph, raise_p) or has_checks(graph, guard_p))
    spmd = _distributed.spmd_needed(graph)
    tests = None
    if checked and test_inputs and shapes is None and not spmd and not any(B.is_tracer(x) for x in leaves):
        # every check reads only the arguments: tested on the host before each launch, the program runs without
        # them (no error code to read back, no select over the state outputs)
        # a check may read a Parameter as the program reads it first (the global step indexing a rate per step)
        state_tested = tuple(
            n_leaves + j
            for j, k in enumerate(state_keys)
            if k is not G.RNG and n_leaves + j < len(graph.invars) and graph.invars[n_leaves + j] is trace.state_in[k]
        )
        tests = input_checks.find(graph, n_leaves, state_tested)
        checked = tests is None
    predicts = () if tests is None else _predictions(graph, tests, n_leaves, n_out, state_keys, written)
    # the position of each written value's input (None: the program only writes it); written inputs after state
    state_pos = [n_leaves + state_keys.index(k) if k in trace.state_in else None for k in written]
    state_pos += list(input_writes)
    all_written = [*written, *input_keys]
    # the written state a `raise` keeps when it fails (the writes before it), one slot each in the error
    kept = kept_keys(graph) if checked else set()
    kept_pos = [j for j, k in enumerate(all_written) if k in kept]
    kept_avals = [(graph.outvars[n_out + j].shape, graph.outvars[n_out + j].dtype) for j in kept_pos]
    # the recorded input types (none with symbolic shapes: that program serves every size)
    leaf_types = [(tuple(x.shape), np.dtype(x.dtype)) for x in leaves] if shapes is None else []
    state_types = [(tuple(trace.state_in[k].shape), np.dtype(trace.state_in[k].dtype)) for k in state_keys]

    def fun(*arrays):
        # Runs only while jax traces (a call it has no program for): inputs this graph was not recorded for
        # come from JitCache.fast, which lets the executable check shapes and dtypes instead of the key.
        for a, (shape, dtype) in zip(arrays, leaf_types, strict=False):
            if a.shape != shape or a.dtype != dtype:
                raise InputsDiffer()
        # A Parameter given another shape by set_data since the recording: the cache drops this program and
        # records the call again (the graph's shapes are the old ones)
        for a, (shape, dtype) in zip(arrays[n_leaves:], state_types, strict=False):
            if a.shape != shape or a.dtype != dtype:
                raise persistent.StaleExecutable()
        if not checked:
            return eval_graph(graph, arrays)
        checks: list = []
        with kept_state([all_written[j] for j in kept_pos], kept_avals):
            outs = eval_graph(graph, arrays, checks)
            code, detail, *kept_values = fold_checks(checks)
        # A failed check leaves every Parameter, the random key and each written input as they were before the
        # call, except what a failed `raise` keeps: the values written before it (as PyNative has them when it
        # raises).
        ok = code < 0
        flags = kept_values[len(kept_pos) :]
        for j, pos in enumerate(state_pos):
            i = n_out + j
            before = arrays[pos] if pos is not None else outs[i]
            if j in kept_pos:
                slot = kept_pos.index(j)
                before = B.jnp.where(flags[slot], kept_values[slot], before)
            outs[i] = B.jnp.where(ok, outs[i], before)
        return [*outs, code, detail]

    # constants split across the job's processes are read from the program's last inputs, after the state, as
    # Parameters are: JAX cannot hold them as constants (one spmd program or symbolic shapes: they stay constants)
    lifted = [] if spmd or shapes is not None else lifted_constants(graph)
    if lifted:
        fun = _reading_lifted(fun, lifted)
        state_objs = [*state_objs, *map(_LiftedConstant, lifted)]
    checks_inputs = shapes is None
    fun = B.compile_log.named(fun, f"the graph '{name}'")  # (what the compile log says XLA compiled)
    if spmd:
        # Collectives between ranks: one program over every rank's devices, per-rank inputs and outputs.
        donated, exe = (), _distributed.spmd_jit(fun)
        checks_inputs = False
    elif shapes is not None:
        specs = [B.ShapeDtypeStruct(v.shape, v.dtype) for v in graph.invars]
        exported = B.jax.export.export(B.jax.jit(fun))(*specs)

        def call_exported(*arrays):
            # (traced once per input shapes) state of another shape than recorded: compiled again, as `fun` says
            for a, (shape, dtype) in zip(arrays[n_leaves:], state_types, strict=False):
                if a.shape != shape or a.dtype != dtype:
                    raise persistent.StaleExecutable()
            return exported.call(*arrays)

        exe = B.jax.jit(
            B.compile_log.named(call_exported, f"the graph '{name}' (dynamic shapes)"),
            donate_argnums=tuple(n_leaves + i for i in donated),
        )
    else:
        # float16/bfloat16 programs round after each operation, as PyNative's kernels do (B.cache); a kept or tiered
        # program compiled through B.cache.compile_program gets the same options from its text
        exact = B.cache.exact_rounding_options(graph.dtypes())
        exe = B.jax.jit(fun, donate_argnums=tuple(n_leaves + i for i in donated), compiler_options=exact)
        named_tests = None if tests is None else input_checks.to_names(tests)
        kept = None
        if tests is not None and named_tests is None:
            persistent.not_kept(name, "a value check's primitive is not registered under its name")
        elif key is not None:
            fields = {"donated": donated, "n_out": n_out, "desc": desc, "checked": checked, "input_tests": named_tests,
                      "predicts": predicts}  # fmt: skip
            kept = persistent.keep(key, exe, leaves, state_objs, [trace.state_objs[k] for k in written], ctx.guards,
                                   fields)  # fmt: skip
        if kept is None:
            kept = _compiled_tiered(exe, leaves, state_objs)
        exe = kept if kept is not None else exe
    if has_host_effects(graph):
        exe = _host_steps_settled(exe)
    ex = Executable()
    ex.exe = exe
    ex.state_objs = state_objs
    ex.written = [trace.state_objs[k] for k in written]
    ex.donated = donated
    ex.owned = [None] * len(donated)
    ex.donated_out = _donated_out(state_objs, ex.written, donated)
    ex.n_out = n_out
    ex.out_desc = desc if desc != _SINGLE else _SINGLE
    ex.out_types = _leaf_types(desc)
    ex.guards = ctx.guards
    ex.refs = None
    ex.name = name
    ex.front_s = front_s
    ex.trace_s = time.perf_counter() - t0
    ex.graph = graph
    ex._retrace = None
    ex.checked = checked
    ex.code_shift = 0
    ex.loaded = False
    ex.checks_inputs = checks_inputs
    ex.plan = tuple(ctx.guarded)
    ex.restorable = [pos is not None for pos in state_pos[: len(written)]]
    ex.input_writes = input_writes
    ex.input_tests = tests
    ex.tester = None if tests is None else input_checks.tester(tests)
    ex.predicts = predicts
    ex.build_checked = (
        _checked_builder(name, body, template, param_args, cells, lax, fn, plan, write_inputs) if tests else None
    )
    ex.checked_program = None
    ex.launch = ex.fresh_in = None
    _plan_state_access(ex)
    if stages:
        avals = [B.ShapeDtypeStruct(v.shape, v.dtype) for v in graph.invars]
        avals += [B.ShapeDtypeStruct(x.shape, x.dtype) for x in lifted]
        dump.save(name, ctx, stages, str(B.jax.make_jaxpr(fun)(*avals)))
    return ex


def _predictions(graph, tests: tuple, n_leaves: int, n_out: int, state_keys: list, written: list) -> tuple:
    """(written position, state position, host steps) of each written state a test reads whose new value the host
    can compute from its old one (`input_checks.successors`), positions as `Executable` counts them."""
    tested = {spec[1] for _, _, specs in tests for spec in specs if spec[0] == "leaf" and spec[1] >= n_leaves}
    position = {key: n_leaves + j for j, key in enumerate(state_keys) if key is not G.RNG}
    wanted = [(n_out + k, position[key]) for k, key in enumerate(written) if position.get(key) in tested]
    return tuple((o - n_out, i - n_leaves, steps) for o, i, steps in input_checks.successors(graph, wanted))


class _LiftedConstant:
    """A constant of the graph read as an input of its program (`lower.lifted_constants`), as state is read."""

    __slots__ = ("_data",)

    def __init__(self, value) -> None:
        self._data = value


def _reading_lifted(fun, lifted: list):
    """`fun` taking `lifted`'s values as its last inputs (after the leaves and the state)."""
    n = len(lifted)

    def with_lifted(*arrays):
        with lifted_inputs(lifted, arrays[-n:]):
            return fun(*arrays[:-n])

    return with_lifted


def _compiled_tiered(jitted, leaves: list, state_objs: list):
    """A program not kept on disk, compiled now for this call with a quick tier first when it is large enough
    (`B.tiers`); None when tiering is off, an input is traced or the program is small (then `jitted` compiles
    it at its first call, as always). The optimised executable goes through JAX's own persistent cache."""
    if B.tiers.mode() == "off" or B.default_platform() != "cpu" or any(B.is_tracer(x) for x in leaves):
        return None
    state = [random_state.current_key() if obj is G.RNG else obj._data for obj in state_objs]
    try:
        lowered = jitted.lower(*leaves, *state)
        text = lowered.as_text()
        if not B.tiers.worth_tiering(text):
            return None  # jax.jit's first call reuses this trace and lowering
        direct = persistent.DirectExecutable(None, jitted)
        direct.compiled = B.cache.compile_program(lowered, text, on_swap=direct.swap, cached=True)
    except Exception:  # noqa: BLE001  (jax.jit raises the error in its own words at the call)
        return None
    return direct


def _donated_out(state_objs: list, written: list, donated: tuple) -> tuple:
    """For each donated state input, the position of its new value among the written outputs."""
    return tuple(next(j for j, obj in enumerate(written) if obj is state_objs[i]) for i in donated)


def _items(positions):
    """`seq -> tuple(seq[i] for i in positions)`, in C (`operator.itemgetter`) for two or more positions."""
    positions = tuple(positions)
    if len(positions) > 1:
        return operator.itemgetter(*positions)
    if positions:
        (i,) = positions
        return lambda seq: (seq[i],)
    return lambda seq: ()


def _plan_state_access(ex: Executable) -> None:
    """Set `ex`'s getters of its donated inputs and their new values, and, when its state is Parameters of the
    class itself and the random key, `read_slots()` (the state's arrays, in input order, read from the slots)
    and `write_slots(outs)` (the written Parameters' new arrays set in their slots, the random key swapped);
    else those are None (`_read_state`, `_write_back` take the `_data` property's path)."""
    n = ex.n_out
    ex.donated_in = _items(ex.donated)
    ex.donated_new = _items(n + j for j in ex.donated_out)
    ex.read_slots = ex.write_slots = None
    if all(obj is G.RNG or type(obj) is Parameter for obj in (*ex.state_objs, *ex.written)):
        ex.read_slots, ex.write_slots = _slot_access(ex.state_objs, ex.written, n)


def _slot_access(state_objs: list, written: list, n_out: int):
    """(read, write): two functions generated for this state, one line per Parameter, no loop.

    Reads and writes spelled out as `P3._buf` cost 5-8 ns each against 15 ns in a list comprehension and 45 ns in a
    `map` over the slot's setter (the LeNet5 step's 19 reads and 17 writes: 0.2 us of CPU instead of 1.1 us)."""
    ns: dict = {"KEY": random_state.current_key, "SWAP": random_state.swap_key, "VIEWS": VIEW_WRITTEN}
    names = {}
    for obj in (*state_objs, *written):
        if obj is not G.RNG and id(obj) not in names:
            names[id(obj)] = f"P{len(names)}"
            ns[names[id(obj)]] = obj
    read = ", ".join("KEY()" if obj is G.RNG else f"{names[id(obj)]}._buf" for obj in state_objs)
    lines = ["def read():", f"    return [{read}]", "def write(outs):"]
    for k, obj in enumerate(written):
        new = f"outs[{n_out + k}]"
        if obj is G.RNG:
            lines.append(f"    SWAP({new})")
        else:  # a Parameter with views (`row = p[0]` kept) has them read it again, as its `_data` setter does
            name = names[id(obj)]
            lines += [f"    {name}._buf = {new}", f"    if {name}._view_of is not None:", f"        VIEWS[0]({name})"]
    lines.append("    return None")
    exec(compile("\n".join(lines), "<kiln state access>", "exec"), ns)  # noqa: S102  (generated from the state above)
    return ns["read"], ns["write"]


def _checked_builder(name, body, template, param_args, cells, lax, fn, plan, write_inputs):
    """A function of a call's leaves that builds the program with its value checks compiled in."""
    return lambda leaves: build(
        name, body, template, leaves, param_args, cells, lax, fn, None, plan, write_inputs, test_inputs=False
    )


def _loaded_executable(loaded, name: str, t0: float, retrace, build_checked) -> Executable:
    """An Executable around one read back from disk (its graph is recorded again only when asked for)."""
    ex = Executable()
    ex.exe = loaded.exe
    ex.state_objs = loaded.state_objs
    ex.written = loaded.written
    ex.donated = loaded.donated
    ex.owned = [None] * len(loaded.donated)
    ex.donated_out = _donated_out(loaded.state_objs, loaded.written, ex.donated)
    ex.n_out = loaded.n_out
    ex.out_desc = _SINGLE if loaded.desc == _SINGLE else loaded.desc
    ex.out_types = _leaf_types(loaded.desc)
    ex.guards = loaded.guards
    ex.refs = None
    ex.name = name
    ex.front_s = ex.trace_s = time.perf_counter() - t0
    ex.graph = None
    ex._retrace = retrace
    ex.checked = loaded.checked
    ex.code_shift = loaded.code_shift
    ex.loaded = True
    ex.checks_inputs = True  # a compiled executable refuses inputs of other types (StaleExecutable)
    ex.plan = ()
    ex.restorable = [True] * len(loaded.written)
    ex.input_writes = ()
    ex.input_tests = input_checks.from_names(loaded.input_tests)
    ex.tester = None if ex.input_tests is None else input_checks.tester(ex.input_tests)
    ex.predicts = loaded.predicts if ex.input_tests is not None else ()
    ex.build_checked = build_checked if ex.input_tests is not None else None
    ex.checked_program = None
    ex.launch = ex.fresh_in = None
    _plan_state_access(ex)
    return ex


def _trace_specialised(name, body, template, leaves, cells, lax, fn, shapes, plan, write_inputs):
    """`trace_program`, traced again with each Tensor if whose branches cannot join specialised (`plan`)."""
    plan = None if plan is None else dict(plan)
    while True:
        try:
            return trace_program(name, body, template, leaves, cells, lax, fn, shapes, plan, write_inputs)
        except ShapeJoinError as err:
            if plan is None or err.site is None or err.site in plan or len(plan) >= MAX_SPECIALISED:
                plain = TypeError(str(err))  # the user's error: the type the message has always had
                plain._kiln_annotated = True
                raise plain from None
            plan[err.site] = True  # the true branch first; a call taking the other one compiles that one


def _host_steps_settled(exe):
    """`exe`, returning once its host steps ran (`callbacks.settle`: on a GPU they run after the launch returns), and
    raising HostShapeChanged itself when a host step's result changed shape (the backend reports it as its own
    runtime error): the compile cache then traces the call again."""

    def run(*arrays):
        try:
            out = exe(*arrays)
            B.callbacks.settle(out)
            return out
        except Exception as err:
            changed = host_shape_changed(err)
            if changed is not None:
                raise changed from None
            raise

    return run


MAX_SPECIALISED = 32  # Tensor ifs one program may be specialised on


def has_host_calls(graph) -> bool:
    """True when `graph` (nested graphs included) has a host step (whose result may change shape)."""
    return any(e.prim == "host_call" or any(map(has_host_calls, e.subgraphs())) for e in graph.eqns)


def has_host_effects(graph) -> bool:
    """True when `graph` (nested graphs included) prints or calls the host when it runs."""
    return any(e.prim in ("callback", "host_call") or any(map(has_host_effects, e.subgraphs())) for e in graph.eqns)


def _retrace(name, body, template, specs, cells, lax, fn):
    """Record the graph of a loaded executable again (only when asked for: dumps, tests)."""
    graph = trace_program(name, body, template, specs, cells, lax, fn)[0]
    _run_passes(graph)
    return graph


def _run_passes(graph):
    """The tensor passes, unless switched off (KILN_PASSES=off, or a comma list of passes to skip)."""
    setting = os.environ.get("KILN_PASSES", "")
    if setting.lower() == "off":
        return []
    return tensor_passes.run(graph, skip=tuple(s.strip() for s in setting.split(",") if s.strip()))
