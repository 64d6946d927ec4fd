"""Control flow: constant conditions pick a branch; Tensor conditions become nested graphs.

A Tensor-valued `if` records each branch as its own graph and emits one `cond`
equation: only the taken branch runs, in value and in gradient. The branches'
results and their Parameter/random-key writes are the cond's outputs (they must
agree in type and shape). A Tensor-valued loop records its condition and body
as graphs over the loop-carried values and emits one `while` equation, which
lowering makes reverse-differentiable.
"""

from __future__ import annotations

import numpy as np

from kiln._compiler.analysis import values as V
from kiln._compiler.analysis.values import Frame, Goto, Return, TensorRange
from kiln._compiler.errors import GraphCompileError
from kiln._compiler.frontend.parser import UNDEF
from kiln._core import dtype as mstype
from kiln._core import graph as G
from kiln._core import random_state
from kiln._core.primitive import REGISTRY
from kiln._core.tensor import Tensor
from kiln._pynative.nested import unflatten


def static_bool(cond):
    """The truth of `cond` when known at compile time, else None."""
    if isinstance(cond, Tensor):
        if G.is_symbolic(cond._data):
            return None
        if cond.size != 1:
            raise ValueError(
                f"the truth value of a Tensor with shape {list(cond.shape)} is ambiguous in a condition; "
                f"use .any() or .all()."
            )
        return bool(np.asarray(cond._data).reshape(()))
    if cond is UNDEF:
        raise NameError("the condition uses a variable that is not assigned on every path.")
    return bool(cond)


def as_predicate(cond: Tensor) -> Tensor:
    if cond.size != 1:
        raise ValueError(
            f"the condition of an if/while must be a single value, but it is a Tensor of shape {list(cond.shape)}; "
            f"use .any() or .all()."
        )
    c = cond.reshape(())
    return c if c.dtype is mstype.bool_ else c != 0


def branch(ctx, frame: Frame, node):
    """Evaluate a tail `if`: the next frame (constant condition or loop), or a Goto/Return outcome."""
    cond = ctx.value_of(frame, node.inputs[1])
    tg, fg = node.inputs[2].value, node.inputs[3].value
    static = static_bool(cond)
    if static is not None:
        target = tg if static else fg
        return Frame(target, ctx.find(frame, target.parent), frame.ns)
    pred = as_predicate(cond)
    meta = node.meta or {}
    if meta.get("loop"):
        return tensor_loop(ctx, frame, node, pred)
    return tensor_if(ctx, frame, node, pred)


# -- nested graphs -----------------------------------------------------------------------------


def _subtrace(name: str, fn):
    """Run `fn` while recording a nested graph of the current one; returns (result, trace)."""
    sub = G.Trace(G.current(), name)
    with G.recording(sub):
        return fn(), sub


def _state_value(key, obj):
    """The current value of a state entry in the current graph."""
    return random_state.current_key() if obj is G.RNG else obj._data


def _as_array(v, like_dtype=None):
    """A Python scalar as a constant array (bool, int64, float32, or `like_dtype`)."""
    if like_dtype is not None:
        return np.asarray(v, dtype=like_dtype)
    if isinstance(v, bool):
        return np.asarray(v, dtype=np.bool_)
    if isinstance(v, int):
        return np.asarray(v, dtype=np.int64)
    return np.asarray(v, dtype=np.float32)


def _pair(a, b, where, out1: list, out2: list):
    """Match two branch results: a template (the layout `nested.unflatten` rebuilds), with differing
    tensors/scalars appended as outputs."""
    if a is b or a is UNDEF or b is UNDEF:
        return ("c", a if a is b else UNDEF)
    ta, tb = isinstance(a, Tensor), isinstance(b, Tensor)
    if ta or tb:
        if not ta and not isinstance(a, (int, float, bool)) or not tb and not isinstance(b, (int, float, bool)):
            raise _type_join_error(a, b, where)
        da = a._data if ta else _as_array(a, b._data.dtype)
        db = b._data if tb else _as_array(b, a._data.dtype)
        if tuple(da.shape) != tuple(db.shape) or np.dtype(da.dtype) != np.dtype(db.dtype):
            raise _type_join_error(a, b, where)
        out1.append(da)
        out2.append(db)
        return ("t",)
    if isinstance(a, (bool, int, float)) and isinstance(b, (bool, int, float)):
        if type(a) is type(b) and a == b:
            return ("c", a)
        if isinstance(a, bool) and isinstance(b, bool):
            dt = np.bool_
        elif isinstance(a, float) or isinstance(b, float):
            dt = np.float32
        else:
            dt = np.int64
        out1.append(np.asarray(a, dt))
        out2.append(np.asarray(b, dt))
        return ("t",)
    if isinstance(a, (tuple, list)) and type(a) is type(b):
        if len(a) != len(b):
            raise _type_join_error(a, b, where)
        return ("s", type(a), tuple(_pair(x, y, where, out1, out2) for x, y in zip(a, b, strict=True)))
    if isinstance(a, dict) and isinstance(b, dict):
        if a.keys() != b.keys():
            raise _type_join_error(a, b, where)
        return ("d", tuple(a), tuple(_pair(a[k], b[k], where, out1, out2) for k in a))
    if type(a) is type(b):
        try:
            if a == b:
                return ("c", a)
        except Exception:  # noqa: BLE001
            pass
    raise _type_join_error(a, b, where)


def _shared_captures(*traces: G.Trace):
    """One operand list for sibling graphs: each outer value once, and per graph its matching inputs
    (a placeholder where that graph does not read the value)."""
    operands: dict = {}
    for t in traces:
        for outer, _ in t.captures.values():
            operands.setdefault(outer.id if type(outer) is G.Var else id(outer), outer)
    inputs = []
    for t in traces:
        by_outer = {(o.id if type(o) is G.Var else id(o)): inner for o, inner in t.captures.values()}
        inputs.append([by_outer[k] if k in by_outer else G.Var(o.shape, o.dtype, None) for k, o in operands.items()])
    return list(operands.values()), inputs


def emit_cond(pred: Tensor, s1: G.Trace, s2: G.Trace, v1, v2, where):
    """Join two recorded branches into one `cond` equation of the current graph; returns the joined value."""
    parent = G.current()
    outs1: list = []
    outs2: list = []
    template = _pair(v1, v2, where, outs1, outs2)
    keys = list(dict.fromkeys([*s1.written(), *s2.written()]))
    objs = {k: s1.state_objs[k] if k in s1.state_objs else s2.state_objs[k] for k in keys}
    for k in keys:
        outer = _state_value(k, objs[k])
        for s, outs in ((s1, outs1), (s2, outs2)):
            outs.append(s.state[k] if k in s.written() else outer)
    outs1 = [s1.lift(x) for x in outs1]
    outs2 = [s2.lift(x) for x in outs2]
    operands, (in1, in2) = _shared_captures(s1, s2)
    g1 = G.Graph(in1, s1.eqns, outs1, "then")
    g2 = G.Graph(in2, s2.eqns, outs2, "else")
    avals = [(tuple(o.shape), np.dtype(o.dtype)) for o in outs1]
    results = parent.emit("cond", [pred._data, *operands], avals, {"then": g1, "else": g2})
    n = len(results) - len(keys)
    for k, r in zip(keys, results[n:], strict=True):
        parent.write_state(k, objs[k], r)
    return unflatten(template, iter(results[:n]))


# -- if -----------------------------------------------------------------------------------------


def _branch(ctx, graph, frame, finish: bool):
    """Run one branch region; with `finish`, continue to the function's end (a Return)."""
    ctx.region_depth += 1
    try:
        outcome = ctx.run(Frame(graph, frame, frame.ns), region=graph)
    finally:
        ctx.region_depth -= 1
    if finish and isinstance(outcome, Goto):
        return Return(ctx.run(ctx.enter(outcome.target, outcome.parent, outcome.args, outcome.parent.ns)))
    return outcome


def tensor_if(ctx, frame: Frame, node, pred: Tensor):
    tg, fg = node.inputs[2].value, node.inputs[3].value
    where = (node, tg, fg)

    def both(finish: bool):
        o1, s1 = _subtrace("then", lambda: _branch(ctx, tg, frame, finish))
        o2, s2 = _subtrace("else", lambda: _branch(ctx, fg, frame, finish))
        return o1, s1, o2, s2

    o1, s1, o2, s2 = both(False)
    if isinstance(o1, Goto) and isinstance(o2, Goto) and o1.target is o2.target:
        args = emit_cond(pred, s1, s2, list(o1.args), list(o2.args), where)
        return Goto(o1.target, o1.parent, args)
    if not (isinstance(o1, Return) and isinstance(o2, Return)):
        # The branches leave differently (return vs. fall through): record each path to the function's end.
        if ctx.region_depth > 0:
            raise GraphCompileError(
                "this if/else, whose condition is a Tensor, leaves one branch by return/break/continue and the "
                "other differently, inside another Tensor-conditioned if or loop: assign to a variable and return "
                "once instead."
            )
        o1, s1, o2, s2 = both(True)
    return Return(emit_cond(pred, s1, s2, o1.value, o2.value, where))


def select_both(ctx, node, cond, then_fn, else_fn):
    """`a if cond else b` with a Tensor condition: a `cond` of the two expressions."""
    pred = as_predicate(cond)
    a, s1 = _subtrace("then", then_fn)
    b, s2 = _subtrace("else", else_fn)
    return emit_cond(pred, s1, s2, a, b, (node, None, None))


def _describe(v) -> str:
    return str(V.abstract_of(v))


def _type_join_error(v1, v2, where):
    node, tg, fg = where
    loc = node.loc
    head = f"line {loc.line}" if loc is not None else "this if"
    lines = [
        f"Cannot join the two branches of the if at {head}, whose condition is a Tensor: the branches give "
        f"values of different types.",
        f"  true branch gives:  {_describe(v1)}" + (f"   ({tg.loc.file}:{tg.loc.line})" if tg and tg.loc else ""),
        f"  false branch gives: {_describe(v2)}" + (f"   ({fg.loc.file}:{fg.loc.line})" if fg and fg.loc else ""),
        "Make both branches produce the same type and shape (or make the condition a Python constant).",
    ]
    return TypeError("\n".join(lines))


# -- loops --------------------------------------------------------------------------------------


class _Retry(Exception):
    """The loop must be traced again with more loop-carried state."""

    def __init__(self, indices=(), params=()) -> None:
        super().__init__("retry")
        self.indices, self.params = set(indices), list(params)


def tensor_loop(ctx, hframe: Frame, node, pred: Tensor):
    """A loop whose condition is a Tensor: one `while` equation over the loop-carried values and state."""
    header = hframe.graph
    carried = [hframe.values[p] for p in header.params]
    dynamic = {i for i, v in enumerate(carried) if _has_tensor(v)}
    state: list = []  # (key, obj) of the Parameters / random key the body writes
    for _ in range(len(carried) + 64):
        try:
            final = _while(ctx, hframe, node, carried, dynamic, state)
            break
        except _Retry as r:
            dynamic |= r.indices
            state += [e for e in r.params if all(e[0] is not k for k, _ in state)]
    else:  # pragma: no cover - bounded by the state size
        raise GraphCompileError("the loop-carried state of this loop does not settle.")
    new_h = ctx.enter(header, hframe.parent, final, hframe.ns)
    exit_g = node.inputs[3].value
    return Frame(exit_g, new_h, hframe.ns)


def _has_tensor(v) -> bool:
    if isinstance(v, (Tensor, TensorRange)):
        return True
    if isinstance(v, (tuple, list)):
        return any(_has_tensor(x) for x in v)
    return False


def _to_leaves(v, out: list):
    """Flatten a carried value into arrays (symbolic or constant); returns a rebuild description."""
    if isinstance(v, Tensor):
        out.append(v._data)
        return ("t",)
    if isinstance(v, TensorRange):
        # A Python step stays static: the loop's direction must be known when it is compiled.
        step = ("c", v.step) if not isinstance(v.step, Tensor) else _to_leaves(v.step, out)
        return ("r", _to_leaves(v.index, out), _to_leaves(v.stop, out), step)
    if isinstance(v, (tuple, list)):
        return ("s", type(v), tuple(_to_leaves(x, out) for x in v))
    if isinstance(v, (bool, int, float)):
        out.append(_as_array(v))
        return ("t",)
    raise GraphCompileError(f"a loop whose condition is a Tensor cannot carry a value of type {type(v).__name__}.")


def _from_leaves(desc, it):
    kind = desc[0]
    if kind == "t":
        return Tensor._wrap(next(it))
    if kind == "c":
        return desc[1]
    if kind == "r":
        return TensorRange(_from_leaves(desc[1], it), _from_leaves(desc[2], it), _from_leaves(desc[3], it))
    return desc[1](_from_leaves(d, it) for d in desc[2])


def _same_static(a, b) -> bool:
    if a is b:
        return True
    if isinstance(a, Tensor) or isinstance(b, Tensor):
        return False
    try:
        return type(a) is type(b) and bool(a == b)
    except Exception:  # noqa: BLE001
        return False


def _seed_state(trace: G.Trace, state: list, values: list) -> None:
    for (key, obj), v in zip(state, values, strict=True):
        trace.state_in[key] = v
        trace.state[key] = v
        trace.state_objs[key] = obj


def _while(ctx, hframe: Frame, node, carried: list, dynamic: set, state: list):
    header = hframe.graph
    body_g = node.inputs[2].value
    parent = G.current()
    leaves: list = []
    descs = {i: _to_leaves(carried[i], leaves) for i in sorted(dynamic)}
    n_vars = len(leaves)
    init = [*leaves, *(_state_value(k, obj) for k, obj in state)]
    avals = [(tuple(x.shape), np.dtype(x.dtype)) for x in init]

    def enter_header(trace: G.Trace):
        carry = [trace.new_input(s, d) for s, d in avals]
        _seed_state(trace, state, carry[n_vars:])
        it = iter(carry[:n_vars])
        vals = [(_from_leaves(descs[i], it) if i in dynamic else carried[i]) for i in range(len(carried))]
        frame = ctx.enter(header, hframe.parent, vals, hframe.ns)
        for a in header.nodes:
            frame.values[a] = ctx.eval_apply(frame, a)
        return frame

    def cond_fn(trace):
        frame = enter_header(trace)
        c = ctx.value_of(frame, node.inputs[1])
        return as_predicate(c if isinstance(c, Tensor) else Tensor(bool(c)))._data

    def body_fn(trace):
        frame = enter_header(trace)
        ctx.region_depth += 1
        try:
            outcome = ctx.run(Frame(body_g, frame, frame.ns), region=body_g)
        finally:
            ctx.region_depth -= 1
        if not (isinstance(outcome, Goto) and outcome.target is header):
            raise GraphCompileError(
                "'break' or 'return' inside a loop whose condition is a Tensor is not supported; "
                "fold the exit condition into the loop condition."
            )
        new = outcome.args
        retry = {i for i in range(len(carried)) if i not in dynamic and not _same_static(new[i], carried[i])}
        known = {k for k, _ in state}
        new_state = [(k, trace.state_objs[k]) for k in trace.written() if k not in known]
        if retry or new_state:
            raise _Retry(retry, new_state)
        out: list = []
        for i in sorted(dynamic):
            _to_leaves(new[i], out)
        out += [trace.state[k] for k, _ in state]
        fixed = []
        for o, (shape, dt) in zip(out, avals, strict=True):
            if tuple(o.shape) != shape:
                raise GraphCompileError(
                    f"a loop whose condition is a Tensor changes the shape of a loop variable from {list(shape)} "
                    f"to {list(o.shape)}; loop variables must keep their shape and dtype."
                )
            if np.dtype(o.dtype) != dt:
                o = trace.bind(REGISTRY["Cast"], (dt,), [o]) if type(o) is G.Var else np.asarray(o, dt)
            fixed.append(o)
        return fixed

    cs = G.Trace(parent, "while_cond")
    with G.recording(cs):
        cond_out = cond_fn(cs)
    bs = G.Trace(parent, "while_body")
    with G.recording(bs):
        body_out = body_fn(bs)
    cond_out = cs.lift(cond_out)
    body_out = [bs.lift(x) for x in body_out]
    consts, (c_in, b_in) = _shared_captures(cs, bs)
    n_carry = len(init)
    cond_graph = G.Graph([*c_in, *cs.invars[:n_carry]], cs.eqns, [cond_out], "cond")
    body_graph = G.Graph([*b_in, *bs.invars[:n_carry]], bs.eqns, body_out, "body")
    results = parent.emit(
        "while", [*consts, *init], avals, {"cond": cond_graph, "body": body_graph, "n_consts": len(consts)}
    )
    for (k, obj), r in zip(state, results[n_vars:], strict=True):
        parent.write_state(k, obj, r)
    it = iter(results[:n_vars])
    return [(_from_leaves(descs[i], it) if i in dynamic else carried[i]) for i in range(len(carried))]
