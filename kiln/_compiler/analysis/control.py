"""Control flow: constant conditions pick a branch; Tensor conditions become compiled control flow.

A Tensor-valued `if` runs both branches on the symbolic tensors and joins
their results (and any Parameter writes) with `Select`, which the tape can
differentiate. A Tensor-valued loop becomes `lax.while_loop` over the
loop-carried variables (not differentiable in reverse mode: asking for a
gradient through one is an error).
"""

from __future__ import annotations

import numpy as np

from kiln import _backend as B
from kiln._compiler.analysis import values as V
from kiln._compiler.analysis.values import Frame, Goto, Return, TensorRange
from kiln._compiler.errors import GraphCompileError
from kiln._compiler.frontend.parser import UNDEF
from kiln._core import dtype as mstype
from kiln._core import random_state
from kiln._core.primitive import REGISTRY
from kiln._core.tensor import Tensor
from kiln._pynative import tape
from kiln._pynative.dispatch import apply


def static_bool(cond):
    """The truth of `cond` when known at compile time, else None."""
    if isinstance(cond, Tensor):
        if B.is_tracer(cond._data):
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
    from kiln._compiler.analysis.interp import _find  # noqa: PLC0415

    cond = _value(frame, node.inputs[1])
    tg, fg = node.inputs[2].value, node.inputs[3].value
    static = static_bool(cond)
    if static is not None:
        target = tg if static else fg
        return Frame(target, _find(frame, target.parent), frame.ns)
    pred = as_predicate(cond)
    meta = node.meta or {}
    if meta.get("loop"):
        return tensor_loop(ctx, frame, node, pred)
    return tensor_if(ctx, frame, node, pred)


def _value(frame, node):
    from kiln._compiler.analysis.interp import value_of  # noqa: PLC0415

    return value_of(frame, node)


# -- state snapshots (Parameters and the random key) ---------------------------------------------


def _snapshot(ctx):
    return [(p._data, p._nodes) for p in ctx.params], random_state.current_key()


def _restore(ctx, snap) -> None:
    for p, (d, n) in zip(ctx.params, snap[0], strict=True):
        p._data, p._nodes = d, n
    random_state.swap_key(snap[1])


def _merge_state(ctx, pred: Tensor, s1, s2) -> None:
    for p, (d1, n1), (d2, n2) in zip(ctx.params, s1[0], s2[0], strict=True):
        if d1 is d2:
            p._data, p._nodes = d1, n1
            continue
        a, b = Tensor._wrap(d1), Tensor._wrap(d2)
        a._nodes, b._nodes = n1, n2
        out = apply(REGISTRY["Select"], (pred, a, b))
        p._data, p._nodes = out._data, out._nodes
    k1, k2 = s1[1], s2[1]
    random_state.swap_key(k1 if k1 is k2 else B.jnp.where(pred._data, k1, k2))


# -- if -----------------------------------------------------------------------------------------


def _run_branch(ctx, graph, frame, pred):
    from kiln._compiler.analysis.interp import run  # noqa: PLC0415

    ctx.preds.append(pred)
    ctx.region_depth += 1
    try:
        return run(ctx, Frame(graph, frame, frame.ns), region=graph)
    finally:
        ctx.region_depth -= 1
        ctx.preds.pop()


def tensor_if(ctx, frame: Frame, node, pred: Tensor):
    tg, fg = node.inputs[2].value, node.inputs[3].value
    start = _snapshot(ctx)
    o1 = _run_branch(ctx, tg, frame, pred)
    s1 = _snapshot(ctx)
    _restore(ctx, start)
    not_pred = pred.logical_not()
    o2 = _run_branch(ctx, fg, frame, not_pred)
    s2 = _snapshot(ctx)
    where = (node, tg, fg)
    if isinstance(o1, Goto) and isinstance(o2, Goto) and o1.target is o2.target:
        _merge_state(ctx, pred, s1, s2)
        args = [join(ctx, pred, a, b, where) for a, b in zip(o1.args, o2.args, strict=True)]
        return Goto(o1.target, o1.parent, args)
    if isinstance(o1, Return) and isinstance(o2, Return):
        _merge_state(ctx, pred, s1, s2)
        return Return(join(ctx, pred, o1.value, o2.value, where))
    # The branches leave differently (return vs. fall through, break vs. continue): run each path to the end.
    if ctx.region_depth > 0:
        raise GraphCompileError(
            "this if/else, whose condition is a Tensor, leaves one branch by return/break/continue and the other "
            "differently, inside another Tensor-conditioned if or loop: assign to a variable and return once instead."
        )
    _restore(ctx, s1)
    r1 = _finish(ctx, o1, pred)
    f1 = _snapshot(ctx)
    _restore(ctx, s2)
    r2 = _finish(ctx, o2, not_pred)
    f2 = _snapshot(ctx)
    _merge_state(ctx, pred, f1, f2)
    return Return(join(ctx, pred, r1, r2, where))


def _finish(ctx, outcome, pred):
    from kiln._compiler.analysis.interp import enter, run  # noqa: PLC0415

    if isinstance(outcome, Return):
        return outcome.value
    ctx.preds.append(pred)
    try:
        return run(ctx, enter(outcome.target, outcome.parent, outcome.args, outcome.parent.ns))
    finally:
        ctx.preds.pop()


def select_both(ctx, node, cond, then_fn, else_fn):
    """`a if cond else b` with a Tensor condition: both sides, joined by Select."""
    pred = as_predicate(cond)
    start = _snapshot(ctx)
    ctx.preds.append(pred)
    try:
        a = then_fn()
    finally:
        ctx.preds.pop()
    s1 = _snapshot(ctx)
    _restore(ctx, start)
    not_pred = pred.logical_not()
    ctx.preds.append(not_pred)
    try:
        b = else_fn()
    finally:
        ctx.preds.pop()
    s2 = _snapshot(ctx)
    _merge_state(ctx, pred, s1, s2)
    return join(ctx, pred, a, b, (node, None, None))


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


def join(ctx, pred: Tensor, a, b, where):
    """The value that is `a` where `pred` holds and `b` elsewhere (same structure required)."""
    if a is b:
        return a
    if a is UNDEF or b is UNDEF:
        return UNDEF
    ta, tb = isinstance(a, Tensor), isinstance(b, Tensor)
    if ta or tb:
        if not ta:
            if not isinstance(a, (int, float, bool)):
                raise _type_join_error(a, b, where)
            a = Tensor(a, b.dtype)
        if not tb:
            if not isinstance(b, (int, float, bool)):
                raise _type_join_error(a, b, where)
            b = Tensor(b, a.dtype)
        if a.shape != b.shape or a.dtype != b.dtype:
            raise _type_join_error(a, b, where)
        return apply(REGISTRY["Select"], (pred, a, b))
    if isinstance(a, (bool, int, float)) and isinstance(b, (bool, int, float)):
        if type(a) is type(b) and a == b:
            return a
        if isinstance(a, bool) and isinstance(b, bool):
            dt = mstype.bool_
        elif isinstance(a, float) or isinstance(b, float):
            dt = mstype.float32
        else:
            dt = mstype.int64
        return apply(REGISTRY["Select"], (pred, Tensor(a, dt), Tensor(b, dt)))
    if isinstance(a, (tuple, list)) and type(a) is type(b):
        if len(a) != len(b):
            raise _type_join_error(a, b, where)
        return type(a)(join(ctx, pred, x, y, where) for x, y in zip(a, b, strict=True))
    if isinstance(a, dict) and isinstance(b, dict):
        if a.keys() != b.keys():
            raise _type_join_error(a, b, where)
        return {k: join(ctx, pred, a[k], b[k], where) for k in a}
    if type(a) is type(b):
        try:
            if a == b:
                return a
        except Exception:  # noqa: BLE001
            pass
    raise _type_join_error(a, b, where)


# -- loops --------------------------------------------------------------------------------------


class _Retry(Exception):
    """The loop must be traced again with more loop-carried state."""

    def __init__(self, indices=(), params=()) -> None:
        super().__init__("retry")
        self.indices, self.params = set(indices), list(params)


def tensor_loop(ctx, hframe: Frame, node, pred: Tensor):
    """A loop whose condition is a Tensor: `lax.while_loop` over the loop-carried variables."""
    if tape.recording:
        raise GraphCompileError(
            "a gradient is taken through a while/for loop whose condition is a Tensor: compiled loops are not "
            "differentiable in reverse mode. Use a loop with Python bounds (it is unrolled) instead."
        )
    if not ctx.tracing:
        raise GraphCompileError("internal: a symbolic loop condition outside a compile")
    header = hframe.graph
    carried = [hframe.values[p] for p in header.params]
    dynamic = {i for i, v in enumerate(carried) if _has_tensor(v)}
    written: list = []
    for _ in range(len(carried) + len(ctx.params) + 2):
        try:
            final, params_out, key = _while(ctx, hframe, node, carried, dynamic, written)
            break
        except _Retry as r:
            dynamic |= r.indices
            written += [p for p in r.params if all(p is not q for q in written)]
    else:  # pragma: no cover - bounded by the state size
        raise GraphCompileError("the loop-carried state of this loop does not settle.")
    for p, d in zip(written, params_out, strict=True):
        p._data, p._nodes = d, None
    random_state.swap_key(key)
    from kiln._compiler.analysis.interp import enter  # noqa: PLC0415

    new_h = enter(header, hframe.parent, final, hframe.ns)
    exit_g = node.inputs[3].value
    return Frame(exit_g, new_h, hframe.ns)


def _has_tensor(v) -> bool:
    if isinstance(v, (Tensor, TensorRange)):
        return True
    if isinstance(v, (tuple, list)):
        return any(_has_tensor(x) for x in v)
    return False


def _to_leaves(v, out: list):
    """Flatten a carried value into backend arrays; returns a rebuild description."""
    if isinstance(v, Tensor):
        out.append(v._data)
        return ("t",)
    if isinstance(v, TensorRange):
        # A Python step stays static: the loop's direction must be known when it is compiled.
        step = ("c", v.step) if not isinstance(v.step, Tensor) else _to_leaves(v.step, out)
        return ("r", _to_leaves(v.index, out), _to_leaves(v.stop, out), step)
    if isinstance(v, (tuple, list)):
        return ("s", type(v), tuple(_to_leaves(x, out) for x in v))
    if isinstance(v, bool):
        out.append(B.jnp.asarray(v))
        return ("t",)
    if isinstance(v, int):
        out.append(B.jnp.asarray(v, dtype=np.int64))
        return ("t",)
    if isinstance(v, float):
        out.append(B.jnp.asarray(v, dtype=np.float32))
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


def _while(ctx, hframe: Frame, node, carried: list, dynamic: set, written: list):
    from kiln._compiler.analysis.interp import enter, eval_apply, run, value_of  # noqa: PLC0415

    header = hframe.graph
    body_g = node.inputs[2].value
    leaves: list = []
    descs = {i: _to_leaves(carried[i], leaves) for i in sorted(dynamic)}
    n_vars = len(leaves)
    init = [*leaves, *(p._data for p in written), random_state.current_key()]
    outer = [(p._data, p._nodes) for p in ctx.params]
    outer_key = random_state.current_key()

    def unpack(arrays):
        it = iter(arrays[:n_vars])
        vals = [(_from_leaves(descs[i], it) if i in dynamic else carried[i]) for i in range(len(carried))]
        for p, d in zip(written, arrays[n_vars : n_vars + len(written)], strict=True):
            p._data, p._nodes = d, None
        random_state.swap_key(arrays[-1])
        frame = enter(header, hframe.parent, vals, hframe.ns)
        for a in header.nodes:
            frame.values[a] = eval_apply(ctx, frame, a)
        return frame

    def restore():
        for p, (d, n) in zip(ctx.params, outer, strict=True):
            p._data, p._nodes = d, n
        random_state.swap_key(outer_key)

    def cond_fun(arrays):
        try:
            frame = unpack(arrays)
            c = value_of(frame, node.inputs[1])
            c = as_predicate(c) if isinstance(c, Tensor) else Tensor(bool(c))
            return c._data
        finally:
            restore()

    def body_fun(arrays):
        try:
            frame = unpack(arrays)
            before = [(p, p._data) for p in ctx.params]
            ctx.region_depth += 1
            try:
                outcome = run(ctx, Frame(body_g, frame, frame.ns), region=body_g)
            finally:
                ctx.region_depth -= 1
            if not (isinstance(outcome, Goto) and outcome.target is header):
                raise GraphCompileError(
                    "'break' or 'return' inside a loop whose condition is a Tensor is not supported; "
                    "fold the exit condition into the loop condition."
                )
            new = outcome.args
            retry = {i for i in range(len(carried)) if i not in dynamic and not _same_static(new[i], carried[i])}
            new_written = [p for p, d in before if p._data is not d and all(p is not q for q in written)]
            if retry or new_written:
                raise _Retry(retry, new_written)
            out: list = []
            for i in sorted(dynamic):
                _to_leaves(new[i], out)
            for p in written:
                out.append(p._data)
            out.append(random_state.current_key())
            return [o.astype(i.dtype) if o.dtype != i.dtype else o for o, i in zip(out, init, strict=True)]
        finally:
            restore()

    result = B.lax.while_loop(cond_fun, body_fun, init)
    it = iter(result[:n_vars])
    final = [(_from_leaves(descs[i], it) if i in dynamic else carried[i]) for i in range(len(carried))]
    return final, list(result[n_vars : n_vars + len(written)]), result[-1]
