"""Control flow: constant conditions pick a branch; Tensor conditions become nested graphs.

A Tensor-valued `if` records each branch as its own graph and emits one `cond`
equation: only the taken branch runs, in value and in gradient. The branches'
results and their Parameter/random-key writes are the cond's outputs (they must
agree in type and shape). A Tensor-valued loop records its condition and body
as graphs over the loop-carried values and emits one `while` equation, which
lowering makes reverse-differentiable.

Branches may leave differently (`return` in one, fall-through in the other;
`break`/`continue`/`return` in a loop body): they join into an exit index plus
every exit's payload (`Exits`), continued under a `cond` on the index. A `raise`
under a Tensor condition is recorded as a Raise equation in its branch, and the
branch stands in for the other one's result.
"""

from __future__ import annotations

import numpy as np

from kiln._compiler.errors import GraphCompileError, UnassignedVariable
from kiln._compiler.frontend.ast import values as V
from kiln._compiler.frontend.ast.effects import HostScalar, scalar_type
from kiln._compiler.frontend.ast.node import Const
from kiln._compiler.frontend.ast.parser import UNDEF
from kiln._compiler.frontend.ast.values import Exits, Frame, Goto, IterState, Raises, RangeLoop, Return, TensorRange
from kiln._compiler.ir import graph as G
from kiln._compiler.lower import while_buffer_len
from kiln._compiler.specialise import SHAPES, ShapeJoinError, guard_p, site_key
from kiln._compiler.specialise import register as register_guard
from kiln._core import dtype as mstype
from kiln._core import random_state
from kiln._core.primitive import REGISTRY
from kiln._core.tensor import Tensor
from kiln._core.tree import flatten, unflatten
from kiln._prims.control import RaisedInGraph


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
        raise UnassignedVariable("the condition uses a variable that is not assigned on every path.")
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
    meta = node.meta or {}
    if meta.get("loop"):
        slot = _range_loop_slot(frame)
        if slot is not None:
            compiled = range_loop(ctx, frame, node, slot)
            if compiled is not None:
                return compiled
            cond = ctx.value_of(frame, node.inputs[1])  # the loop is unrolled
    static = static_bool(cond)
    if static and meta.get("loop") and type(node.inputs[1]) is Const and _continued_under_tensor(ctx, frame, node):
        # `while True:` left by a break/return under a Tensor condition: its first iteration was unrolled,
        # the rest compiles to one Tensor loop (unrolling would never end).
        return tensor_loop(ctx, frame, node, Tensor(True))
    if static is not None:
        target = tg if static else fg
        return Frame(target, ctx.find(frame, target.parent), frame.ns)
    pred = as_predicate(cond)
    if meta.get("loop"):
        return tensor_loop(ctx, frame, node, pred)
    return tensor_if(ctx, frame, node, pred)


def _continued_under_tensor(ctx, frame: Frame, node) -> bool:
    """Is this loop header reached again from a continuation under a Tensor condition (deeper regions)?"""
    key = (node, id(frame.parent))
    first = ctx.loop_entries.setdefault(key, ctx.region_depth)
    return ctx.region_depth > first


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
    """Match two branch results: a template (the layout `tree.unflatten` rebuilds), with differing
    tensors/scalars appended as outputs."""
    if a is b or a is UNDEF or b is UNDEF:
        return ("c", a if a is b else UNDEF)
    if (a is None) != (b is None):  # `return x` on one path, `return None` on the other: specialised on the path
        raise _shape_join_error(a, b, where)
    ta, tb = isinstance(a, Tensor), isinstance(b, Tensor)
    if ta or tb:
        if not ta and not isinstance(a, (int, float, bool)) or not tb and not isinstance(b, (int, float, bool)):
            raise _type_join_error(a, b, where)
        da = a._data if ta else _as_array(a, b._data.dtype)
        db = b._data if tb else _as_array(b, a._data.dtype)
        if tuple(da.shape) != tuple(db.shape):
            raise _shape_join_error(a, b, where)
        if np.dtype(da.dtype) != np.dtype(db.dtype):
            raise _type_join_error(a, b, where)
        out1.append(da)
        out2.append(db)
        types = (scalar_type(a), scalar_type(b))
        return ("t", _joined_scalar_type(*types)) if None not in types else ("t",)
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
        return ("t", _joined_scalar_type(type(a), type(b)))
    if isinstance(a, TensorRange) and isinstance(b, TensorRange):
        fields = zip((a.index, a.stop, a.step), (b.index, b.stop, b.step), strict=True)
        return ("n", TensorRange, tuple(_pair(x, y, where, out1, out2) for x, y in fields))
    if isinstance(a, (tuple, list)) and type(a) is type(b):
        if len(a) != len(b):  # a program specialised on the branch taken gives each length (MindSpore: dynamic)
            raise _shape_join_error(a, b, where)
        kind = "n" if hasattr(a, "_fields") else "s"
        return (kind, type(a), tuple(_pair(x, y, where, out1, out2) for x, y in zip(a, b, strict=True)))
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
        else:  # two unequal constants of one type (dtypes, strings): the program specialised on the branch taken
            raise _shape_join_error(a, b, where)
    raise _type_join_error(a, b, where)


def _shape_join_error(a, b, where) -> ShapeJoinError:
    """The branches give Tensors of different shapes, or sequences of different lengths: the `if` may be
    specialised on the branch taken (`specialise`), else this is the user's TypeError."""
    loc = where[0].loc
    at = f"{loc.file}:{loc.line}" if loc is not None else "this if"
    return ShapeJoinError(str(_type_join_error(a, b, where)), (at, _describe(a), _describe(b)))


def _joined_scalar_type(a: type, b: type) -> type:
    """The Python type of a number that is an `a` on one path and a `b` on the other (bool, int, float)."""
    return a if a is b else float if float in (a, b) else int


def leaf_scalar_types(template) -> list:
    """The Python scalar type of each leaf of a template (None for a Tensor), in walking order: a join's or loop's,
    or a graph's inputs (`mutable()` scalars)."""
    found: list = []

    def walk(t):
        if t[0] == "t":
            found.append(t[1] if len(t) > 1 else None)
        elif t[0] in ("s", "n", "d"):
            for x in t[2]:
                walk(x)

    walk(template)
    return found


def _rebuild(template, results) -> object:
    """`unflatten` of a join's results, where a leaf typed as a Python scalar is a `HostScalar` (it leaves the
    graph as that Python number, as in PyNative: `n = 1 if x.sum() > 0 else 2` is an int)."""
    leaves = (
        r if t is None else HostScalar.of(r, t) for r, t in zip(results, leaf_scalar_types(template), strict=True)
    )
    return unflatten(template, iter(leaves), wrap=lambda v: v if isinstance(v, Tensor) else Tensor._wrap(v))


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
    return _rebuild(template, results[:n])


# -- if ---------------------------------------------------------------------------------------


def _branch(ctx, graph, frame):
    """Run one branch region until control leaves it: a Goto, Return or Exits outcome."""
    ctx.region_depth += 1
    try:
        return ctx.run(Frame(graph, frame, frame.ns), region=graph)
    except RaisedInGraph as r:
        return Raises(r.exc, r.loc)
    finally:
        ctx.region_depth -= 1


def tensor_if(ctx, frame: Frame, node, pred: Tensor):
    _no_branch_in_range_loop(ctx)
    tg, fg = node.inputs[2].value, node.inputs[3].value
    site = _site(ctx, node)
    if site is not None and site in ctx.branch_plan:
        target = tg if _assume(ctx, site, pred) else fg
        return Frame(target, ctx.find(frame, target.parent), frame.ns)
    try:
        return _joined_if(ctx, frame, node, pred, tg, fg)
    except ShapeJoinError as err:
        _claim(err, site)
        raise


# -- an if specialised on the branch taken (see kiln/_compiler/specialise.py) ------------------------


def _site(ctx, node):
    """The site key of this arrival at a Tensor `if` when the program may be specialised on it (outside every
    Tensor branch and loop, and the compile allows it), else None."""
    if ctx.region_depth > 0 or ctx.branch_plan is None:
        return None
    visits = ctx.if_visits.get(node, 0)
    ctx.if_visits[node] = visits + 1
    site = site_key(node.loc, visits)
    ctx.last_site[node] = site
    return site


def _assume(ctx, site, pred: Tensor) -> bool:
    """The branch the plan assumes at `site`, checked by a BranchGuard equation when the program runs."""
    assumed = ctx.branch_plan[site]
    G.current().bind(guard_p, (register_guard(site), assumed), [pred._data])
    ctx.guarded.append((site, assumed))
    return assumed


def _claim(err: ShapeJoinError, site) -> None:
    """Name `site` as the if to specialise for `err` (the outermost region around the failure decides: an
    enclosing Tensor branch or loop claims it after, None where it cannot be specialised)."""
    err.site = site
    if site is not None:
        SHAPES.setdefault(site, err.found)


def _joined_if(ctx, frame: Frame, node, pred: Tensor, tg, fg):
    """Both branches recorded and joined into a `cond` (the if's outcome in the current graph)."""
    outer_journal = ctx.list_journal
    ctx.list_journal = j1 = {}
    try:
        o1, s1 = _subtrace("then", lambda: _branch(ctx, tg, frame))
        after1 = _restore_lists(j1)
        ctx.list_journal = j2 = {}
        o2, s2 = _subtrace("else", lambda: _branch(ctx, fg, frame))
        after2 = _restore_lists(j2)
    finally:
        ctx.list_journal = outer_journal
    where = (node, tg, fg)
    # a list made inside a branch does not exist in the other one: nothing to join (Python leaves it unbound there)
    mutated = {k: e for k, e in {**j2, **j1}.items() if e[1] is not _FRESH}
    if not mutated:
        return join_outcomes(pred, s1, s2, o1, o2, where)
    if outer_journal is not None:  # an enclosing branch restores them too
        for k, entry in mutated.items():
            outer_journal.setdefault(k, entry)
    lists = list(mutated.values())
    items1 = [after1.get(k, before) for k, (_, before) in mutated.items()]
    items2 = [after2.get(k, before) for k, (_, before) in mutated.items()]
    joined = join_outcomes(pred, s1, s2, _with_lists(o1, items1, where), _with_lists(o2, items2, where), where)
    if isinstance(joined, Raises):
        return joined
    payload = _payload(joined)
    *rest, contents = payload if isinstance(joined, Goto) else payload
    for (lst, _), items in zip(lists, contents, strict=True):
        lst[:] = items
    return Goto(joined.target, joined.parent, rest) if isinstance(joined, Goto) else Return(rest[0])


_FRESH = object()  # journal mark of a list made inside the branch being recorded


def fresh_list(ctx, lst: list) -> list:
    """`lst`, just made by the program: inside a Tensor branch it is marked so that the branch join leaves it be."""
    if ctx.list_journal is not None:
        ctx.list_journal[id(lst)] = (lst, _FRESH)
    return lst


def _restore_lists(journal: dict) -> dict:
    """Put each list a branch mutated back as it was; returns id -> the items the branch left in it."""
    after = {}
    for k, (lst, before) in journal.items():
        if before is _FRESH:
            continue
        after[k] = list(lst)
        lst[:] = before
    return after


def _with_lists(outcome, items: list, where):
    """`outcome` carrying the items of the lists its branch mutated (joined with the other branch's)."""
    if isinstance(outcome, Raises):
        return outcome
    if isinstance(outcome, Goto):
        return Goto(outcome.target, outcome.parent, [*outcome.args, items])
    if isinstance(outcome, Return):
        return Return([outcome.value, items])
    loc = where[0].loc
    raise GraphCompileError(
        f"a list mutated under the Tensor condition of the if at {f'line {loc.line}' if loc else 'this if'} is "
        f"joined only where both branches continue or both return; here they leave differently (break, continue "
        f"or an early return in one of them)."
    )


# -- exits chosen at run time ---------------------------------------------------------------------
# Branches that leave differently (return in one, fall through in the other; break/continue in a loop)
# join into an `Exits`: an exit index plus every exit's payload. The interpreter then continues each
# exit that stays inside the enclosing region under a `cond` on the index (`resolve`), and a Tensor
# loop carries the index and payloads out of its `while` (`_while`).


def _exit_key(out):
    if isinstance(out, Goto):
        return (out.target, id(out.parent))
    return ("return",) if isinstance(out, Return) else ("raise", id(out))


def _exits(outcome) -> tuple:
    """(index Tensor or None, the exits) of an outcome."""
    if isinstance(outcome, Exits):
        return outcome.which, outcome.outs
    return None, [outcome]


def _payload(out):
    if isinstance(out, Goto):
        return list(out.args)
    return out.value if isinstance(out, Return) else None


def _with_payload(out, payload):
    if isinstance(out, Goto):
        return Goto(out.target, out.parent, list(payload))
    return Return(payload) if isinstance(out, Return) else out


def _zeros(shape, dtype) -> Tensor:
    zero = np.zeros((), dtype)
    return Tensor._wrap(G.current().bind(REGISTRY["BroadcastTo"], (tuple(shape),), [zero]))


def _placeholder(v):
    """A value of `v`'s type for an exit not taken: zeros for Tensors, other values as they are."""
    if isinstance(v, HostScalar):
        return HostScalar.of(_zeros((), np.dtype(v._data.dtype))._data, v.py_type)
    if isinstance(v, Tensor):
        return _zeros(v._data.shape, np.dtype(v._data.dtype))
    if isinstance(v, TensorRange):
        return TensorRange(_placeholder(v.index), _placeholder(v.stop), _placeholder(v.step))
    if isinstance(v, tuple) and hasattr(v, "_fields"):
        return type(v)(*map(_placeholder, v))
    if isinstance(v, (tuple, list)):
        return type(v)(map(_placeholder, v))
    if isinstance(v, dict):
        return {k: _placeholder(x) for k, x in v.items()}
    return v


def _index_map(which: Tensor | None, table: list) -> Tensor:
    """`table[which]` as an int32 Tensor of the current graph (`which` None: `table[0]`)."""
    result = np.int32(table[0])
    if which is not None:
        trace = G.current()
        for i, t in enumerate(table[1:], start=1):
            hit = trace.bind(REGISTRY["Equal"], (), [which._data, np.int32(i)])
            result = trace.bind(REGISTRY["Select"], (), [hit, np.int32(t), result])
    return Tensor._wrap(result) if type(result) is G.Var else Tensor(result)


def join_outcomes(pred: Tensor, s1: G.Trace, s2: G.Trace, o1, o2, where):
    """Join the outcomes of two recorded branches into one outcome of the current graph.

    A branch that raised (its Raise equation is recorded) stands in for the other's outcome with
    placeholders; when both raised, so does the whole `if`.
    """
    if isinstance(o1, Raises) and isinstance(o2, Raises):
        emit_cond(pred, s1, s2, None, None, where)
        return o1
    if isinstance(o1, Raises):
        o1 = _stand_in(s1, o2)
    elif isinstance(o2, Raises):
        o2 = _stand_in(s2, o1)
    if isinstance(o1, Goto) and isinstance(o2, Goto) and _exit_key(o1) == _exit_key(o2):
        return Goto(o1.target, o1.parent, emit_cond(pred, s1, s2, list(o1.args), list(o2.args), where))
    if isinstance(o1, Return) and isinstance(o2, Return):
        return Return(emit_cond(pred, s1, s2, o1.value, o2.value, where))
    (w1, outs1), (w2, outs2) = _exits(o1), _exits(o2)
    by1 = {_exit_key(o): o for o in outs1}
    by2 = {_exit_key(o): o for o in outs2}
    keys = list(dict.fromkeys([*by1, *by2]))

    def side(trace, which, outs, own, other):
        with G.recording(trace):
            index = _index_map(which, [keys.index(_exit_key(o)) for o in outs])
            payloads = [_payload(own[k]) if k in own else _placeholder(_payload(other[k])) for k in keys]
        return [index, payloads]

    v1 = side(s1, w1, outs1, by1, by2)
    v2 = side(s2, w2, outs2, by2, by1)
    which, payloads = emit_cond(pred, s1, s2, v1, v2, where)
    known = {**by2, **by1}
    return Exits(which, [_with_payload(known[k], p) for k, p in zip(keys, payloads, strict=True)], where)


def _stand_in(trace: G.Trace, outcome):
    """`outcome` with placeholder payloads, recorded in `trace` (a branch that raised)."""
    with G.recording(trace):
        if isinstance(outcome, Exits):
            outs = [_with_payload(o, _placeholder(_payload(o))) for o in outcome.outs]
            return Exits(Tensor(np.int32(0)), outs, outcome.where)
        return _with_payload(outcome, _placeholder(_payload(outcome)))


def _switch(which: Tensor, cases: list, where):
    """Run `cases[i]()` when `which == i` (a chain of `cond`s); returns the joined outcome."""
    (i, first), rest = cases[0], cases[1:]
    if not rest:
        return first()
    pred = Tensor._wrap(G.current().bind(REGISTRY["Equal"], (), [which._data, np.int32(i)]))
    o1, s1 = _subtrace("then", first)
    o2, s2 = _subtrace("else", lambda: _switch(which, rest, where))
    return join_outcomes(pred, s1, s2, o1, o2, where)


def select_item(ctx, items, index: Tensor, node):
    """`items[index]` with an index Tensor known only at run time: the item chosen when the graph runs;
    functions and Cells become a `SwitchedCallable`. `index` is in range (`index_inside`); the clamp only
    keeps the backend's switch in bounds."""
    _no_branch_in_range_loop(ctx)
    items = tuple(items)
    if not items:
        raise IndexError("cannot index an empty sequence with a Tensor.")
    which = _clamped_index(index, len(items))
    if all(callable(f) and not isinstance(f, Tensor) for f in items):
        return V.SwitchedCallable(items, which, node)
    cases = [(i, (lambda item=item: Return(item))) for i, item in enumerate(items)]
    return _switch_cases(ctx, which, cases, node).value


def call_switched(ctx, fn: V.SwitchedCallable, call):
    """Call the function a `SwitchedCallable` chose: `call(f)` for each candidate under its `cond`."""
    _no_branch_in_range_loop(ctx)
    cases = [(i, (lambda f=f: Return(call(f)))) for i, f in enumerate(fn.fns)]
    return _switch_cases(ctx, fn.index, cases, fn.node).value


def index_inside(index: Tensor, n: int) -> tuple[Tensor, Tensor]:
    """(inside, wrapped) for a run-time index into `n` items: whether it lies in [-n, n), as Python's, and the
    index with a negative one counted from the end. The caller raises when it is outside: clamping it would
    pick a wrong item without a word."""
    _check_index_type(index)
    bind = G.current().bind
    i32 = bind(REGISTRY["Cast"], (np.dtype(np.int32),), [index._data])
    negative = bind(REGISTRY["Less"], (), [i32, np.int32(0)])
    wrapped = bind(REGISTRY["Select"], (), [negative, bind(REGISTRY["Add"], (), [i32, np.int32(n)]), i32])
    above = bind(REGISTRY["GreaterEqual"], (), [wrapped, np.int32(0)])
    inside = bind(REGISTRY["LogicalAnd"], (), [above, bind(REGISTRY["Less"], (), [wrapped, np.int32(n)])])
    return Tensor._wrap(inside), Tensor._wrap(wrapped)


def _check_index_type(index: Tensor) -> None:
    if index.ndim != 0 or index.dtype.kind not in "iu":
        raise TypeError(f"a tuple or list index must be a 0-d integer Tensor, not {index.dtype} of shape "
                        f"{list(index.shape)}.")  # fmt: skip


def _clamped_index(index: Tensor, n: int) -> Tensor:
    _check_index_type(index)
    i32 = Tensor._wrap(G.current().bind(REGISTRY["Cast"], (np.dtype(np.int32),), [index._data]))
    lo = Tensor._wrap(G.current().bind(REGISTRY["Maximum"], (), [i32._data, np.int32(0)]))
    return Tensor._wrap(G.current().bind(REGISTRY["Minimum"], (), [lo._data, np.int32(n - 1)]))


def _switch_cases(ctx, which: Tensor, cases: list, node):
    """`_switch` over cases that each return a value; an outcome that raised stands for its case."""

    def in_region(case):
        def run():
            ctx.region_depth += 1
            try:
                return case()
            except RaisedInGraph as r:
                return Raises(r.exc, r.loc)
            finally:
                ctx.region_depth -= 1

        return run

    try:
        out = _switch(which, [(i, in_region(c)) for i, c in cases], (node, None, None))
    except ShapeJoinError as err:  # an item chosen by a Tensor index: not specialised
        _claim(err, None)
        raise
    if isinstance(out, Raises):
        raise RaisedInGraph(out.exc, out.loc)
    return out


def resolve(ctx, exits: Exits, region, ns):
    """Continue the exits that stay inside `region` (None: the function) until each leaves it."""
    _no_branch_in_range_loop(ctx)

    def stays(out) -> bool:
        if isinstance(out, Goto):
            return region is None or out.target.is_within(region)
        return region is None and isinstance(out, Raises)  # the function's end: join it with the others

    if not any(stays(o) for o in exits.outs):
        return exits

    def case(out):
        if not isinstance(out, Goto) or not stays(out):
            return lambda: out

        def go_on():
            ctx.region_depth += 1
            try:
                result = ctx.run(ctx.enter(out.target, out.parent, list(out.args), ns), region)
            except RaisedInGraph as r:
                return Raises(r.exc, r.loc)
            finally:
                ctx.region_depth -= 1
            return Return(result) if region is None else result

        return go_on

    try:
        return _switch(exits.which, [(i, case(o)) for i, o in enumerate(exits.outs)], exits.where)
    except ShapeJoinError as err:  # the continuations of an if's exits: specialise that if
        _claim(err, ctx.last_site.get(exits.where[0]) if ctx.region_depth == 0 else None)
        raise


def select_both(ctx, node, cond, then_fn, else_fn):
    """`a if cond else b` with a Tensor condition: a `cond` of the two expressions."""
    _no_branch_in_range_loop(ctx)
    pred = as_predicate(cond)
    site = _site(ctx, node)
    if site is not None and site in ctx.branch_plan:
        return then_fn() if _assume(ctx, site, pred) else else_fn()
    try:
        a, s1 = _subtrace("then", then_fn)
        b, s2 = _subtrace("else", else_fn)
        return emit_cond(pred, s1, s2, a, b, (node, None, None))
    except ShapeJoinError as err:
        _claim(err, site)
        raise


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

    def __init__(self, indices=(), params=(), exits=(), undefined=None, widened=None, changed_exits=()) -> None:
        super().__init__("retry")
        self.indices, self.params, self.exits = set(indices), list(params), list(exits)
        self.changed_exits = list(changed_exits)  # exits whose payload has a new structure
        self.undefined = undefined or {}  # index -> the body's value of a variable unassigned before the loop
        self.widened = widened or {}  # index -> the dtype the body gives a variable that enters as another


def _with_scalar_types(template, value):
    """`template` (of `value`) with each `HostScalar` leaf marked by its Python type, so that a number a loop
    leaves with by `break` or `return` is that Python number after the loop."""
    if template == ("t",):
        return ("t", value.py_type) if isinstance(value, HostScalar) else template
    if template[0] in ("s", "n"):
        return (template[0], template[1], tuple(map(_with_scalar_types, template[2], value)))
    if template[0] == "d":
        return ("d", template[1], tuple(map(_with_scalar_types, template[2], value.values())))
    return template


class _LoopExit:
    """An exit of a Tensor loop's body other than the next iteration: a `break` or a `return`."""

    __slots__ = ("key", "out", "template", "avals")

    def __init__(self, out) -> None:
        self.key, self.out = _exit_key(out), out
        leaves: list = []
        self.template = _with_scalar_types(flatten(_payload(out), leaves), _payload(out))
        self.avals = [(tuple(x.shape), np.dtype(x.dtype)) for x in leaves]


def tensor_loop(ctx, hframe: Frame, node, pred: Tensor):
    """A loop whose condition is a Tensor: one `while` equation over the loop-carried values and state.

    A body that can also leave by `break` or `return` carries an exit index and each exit's payload;
    the loop stops when the index is set, and the interpreter continues at the exit it names.
    """
    header = hframe.graph
    carried = [hframe.values[p] for p in header.params]
    dynamic = {i for i, v in enumerate(carried) if _has_tensor(v)}
    state: list = []  # (key, obj) of the Parameters / random key the body writes
    exits: list[_LoopExit] = []
    for _ in range(len(carried) + 64):
        try:
            final, which, payloads = _while(ctx, hframe, node, carried, dynamic, state, exits)
            break
        except ShapeJoinError as err:  # a body's trips may take either branch: not specialised
            _claim(err, None)
            raise
        except _Retry as r:
            dynamic |= r.indices
            state += [e for e in r.params if all(e[0] is not k for k, _ in state)]
            exits += r.exits
            for changed in r.changed_exits:
                exits[[e.key for e in exits].index(changed.key)] = changed
            for i, v in r.undefined.items():  # first assigned in the body: enters as zeros of its type
                carried[i] = _placeholder(v)
            for i, dt in r.widened.items():
                carried[i] = _widened(carried[i], dt)
    else:  # pragma: no cover - bounded by the state size
        raise GraphCompileError("the loop-carried state of this loop does not settle.")
    new_h = ctx.enter(header, hframe.parent, final, hframe.ns)
    exit_g = node.inputs[3].value
    if not exits:
        return Frame(exit_g, new_h, hframe.ns)
    # `while True:` never leaves through its condition: that exit is dead (a placeholder in joins)
    normal = Raises(None, None) if static_bool(pred) else Goto(exit_g, new_h, [])
    outs = [normal, *(_with_payload(e.out, p) for e, p in zip(exits, payloads, strict=True))]
    return Exits(which, outs, (node, None, None))


def _has_tensor(v) -> bool:
    if isinstance(v, (Tensor, TensorRange)):
        return True
    if isinstance(v, (tuple, list)):
        return any(_has_tensor(x) for x in v)
    if type(v) is dict:
        return any(_has_tensor(x) for x in v.values())
    return False


def _to_leaves(v, out: list):
    """Flatten a carried value into arrays (symbolic or constant); returns a rebuild description."""
    if isinstance(v, Tensor):
        out.append(v._data)
        return ("t", v.py_type) if isinstance(v, HostScalar) else ("t",)
    if isinstance(v, TensorRange):
        # A Python step stays static: the loop's direction must be known when it is compiled.
        step = ("c", v.step) if not isinstance(v.step, Tensor) else _to_leaves(v.step, out)
        return ("r", _to_leaves(v.index, out), _to_leaves(v.stop, out), step)
    if isinstance(v, (tuple, list)):
        return ("s", type(v), tuple(_to_leaves(x, out) for x in v))
    if type(v) is dict:  # its keys are part of the loop's type: each trip must leave the same keys
        return ("d", tuple(v), tuple(_to_leaves(x, out) for x in v.values()))
    if isinstance(v, (bool, int, float)):
        out.append(_as_array(v))
        return ("t", type(v))
    if v is UNDEF:
        raise UnassignedVariable(
            "a variable first assigned inside a loop whose condition is a Tensor is used after it; the loop may run "
            "zero times. Assign it before the loop."
        )
    raise GraphCompileError(f"a loop whose condition is a Tensor cannot carry a value of type {type(v).__name__}.")


def _widened(v, dt: np.dtype):
    """A loop variable's entry value as the dtype the body gives it (`z = 0` then `z = z + 0.7` in the body is a
    float from the first trip on, as in Python; carrying it as an int would truncate every trip)."""
    if isinstance(v, (bool, int, float)):
        as_python = float if dt.kind == "f" else int if dt.kind in "iu" else bool if dt.kind == "b" else None
        if as_python is not None and _as_array(as_python(v)).dtype == dt:
            return as_python(v)
        return Tensor(np.asarray(v, dt))
    if isinstance(v, Tensor):
        return (
            Tensor._wrap(G.current().bind(REGISTRY["Cast"], (dt,), [v._data]))
            if G.is_symbolic(v._data)
            else (Tensor(np.asarray(v.asnumpy(), dt)))
        )
    return v


def _same_scalar_types(entry, body):
    """A loop variable's description, where a leaf stays a Python scalar only if the body keeps it one of the
    same type (`n += 1` keeps an int; `n = n + x.sum()` makes it a Tensor)."""
    if entry == body or entry[0] != body[0]:
        return entry
    if entry[0] == "t":
        return ("t",)
    if entry[0] == "s" and len(entry[2]) == len(body[2]):
        return ("s", entry[1], tuple(_same_scalar_types(a, b) for a, b in zip(entry[2], body[2], strict=True)))
    if entry[0] == "r":
        return ("r", *(_same_scalar_types(a, b) for a, b in zip(entry[1:], body[1:], strict=True)))
    if entry[0] == "d" and entry[1] == body[1]:
        return ("d", entry[1], tuple(_same_scalar_types(a, b) for a, b in zip(entry[2], body[2], strict=True)))
    return entry


def _from_leaves(desc, it):
    kind = desc[0]
    if kind == "t":
        return Tensor._wrap(next(it)) if len(desc) == 1 else HostScalar.of(next(it), desc[1])
    if kind == "c":
        return desc[1]
    if kind == "r":
        return TensorRange(_from_leaves(desc[1], it), _from_leaves(desc[2], it), _from_leaves(desc[3], it))
    if kind == "d":
        return {k: _from_leaves(d, it) for k, d in zip(desc[1], desc[2], strict=True)}
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


def _while(ctx, hframe: Frame, node, carried: list, dynamic: set, state: list, exits: list):
    header = hframe.graph
    body_g = node.inputs[2].value
    header_key = (header, id(hframe.parent))
    parent = G.current()
    leaves: list = []
    descs = {i: _to_leaves(carried[i], leaves) for i in sorted(dynamic)}
    n_vars = len(leaves)
    init = [*leaves, *(_state_value(k, obj) for k, obj in state)]
    n_state = len(init)
    if exits:  # the exit index (0: next iteration), then each exit's payload
        init += [np.int32(0), *(_zeros(*a)._data for e in exits for a in e.avals)]
    avals = [(tuple(x.shape), np.dtype(x.dtype)) for x in init]

    def enter_header(trace: G.Trace):
        carry = [trace.new_input(s, d) for s, d in avals]
        _seed_state(trace, state, carry[n_vars:n_state])
        it = iter(carry[:n_vars])
        vals = [(_from_leaves(descs[i], it) if i in dynamic else carried[i]) for i in range(len(carried))]
        frame = ctx.enter(header, hframe.parent, vals, hframe.ns)
        for a in header.nodes:
            frame.values[a] = ctx.eval_apply(frame, a)
        return frame, vals, carry

    def cond_fn(trace):
        frame, _, carry = enter_header(trace)
        c = ctx.value_of(frame, node.inputs[1])
        go = as_predicate(c if isinstance(c, Tensor) else Tensor(bool(c)))._data
        if exits:
            running = trace.bind(REGISTRY["Equal"], (), [carry[n_state], np.int32(0)])
            go = trace.bind(REGISTRY["LogicalAnd"], (), [go, running])
        return go

    def body_fn(trace):
        frame, vals, carry = enter_header(trace)
        ctx.region_depth += 1
        try:
            outcome = ctx.run(Frame(body_g, frame, frame.ns), region=body_g)
        except RaisedInGraph as r:
            outcome = Raises(r.exc, r.loc)
        finally:
            ctx.region_depth -= 1
        which, outs = _exits(outcome)
        by_key = {_exit_key(o): o for o in outs}
        known = {e.key for e in exits}
        new_exits = [_LoopExit(o) for k, o in by_key.items() if k != header_key and k not in known]
        nxt = by_key.get(header_key)
        new = nxt.args if nxt is not None else vals
        retry = {i for i in range(len(carried)) if i not in dynamic and not _same_static(new[i], carried[i])}
        known_state = {k for k, _ in state}
        new_state = [(k, trace.state_objs[k]) for k in trace.written() if k not in known_state]
        if retry or new_state or new_exits:
            undefined = {i: new[i] for i in retry if carried[i] is UNDEF and _has_tensor(new[i])}
            raise _Retry(retry, new_state, new_exits, undefined)
        out: list = []
        widened = {}
        for i in sorted(dynamic):
            start = len(out)
            desc = _to_leaves(new[i], out)
            if descs[i][0] == "d" and desc[1] != descs[i][1]:
                raise GraphCompileError(
                    f"a dict carried through a loop whose condition is a Tensor must keep its keys; a trip changes "
                    f"them from {list(descs[i][1])} to {list(desc[1])}."
                )
            descs[i] = _same_scalar_types(descs[i], desc)
            if descs[i][0] == "t" and len(out) == start + 1 and np.dtype(out[start].dtype) != avals[start][1]:
                widened[i] = np.dtype(out[start].dtype)
        if widened:
            raise _Retry(widened=widened)
        out += [trace.state[k] for k, _ in state]
        if exits:
            table = [0 if k == header_key else 1 + [e.key for e in exits].index(k) for k in by_key]
            out.append(_index_map(which, table)._data)
            it = iter(carry[n_state + 1 :])
            for e in exits:
                if e.key in by_key:
                    got: list = []
                    flatten(_payload(by_key[e.key]), got)
                    if len(got) != len(e.avals):
                        # a value that was a constant the first time is now carried (a Python number): again
                        raise _Retry(changed_exits=[_LoopExit(by_key[e.key])])
                    out += got
                    for _ in e.avals:
                        next(it)
                else:  # not reachable this time: keep the carried placeholder
                    out += [next(it) for _ in e.avals]
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
    for (k, obj), r in zip(state, results[n_vars:n_state], strict=True):
        parent.write_state(k, obj, r)
    it = iter(results[:n_vars])
    final = [(_from_leaves(descs[i], it) if i in dynamic else carried[i]) for i in range(len(carried))]
    if not exits:
        return final, None, []
    rest = iter(results[n_state + 1 :])
    payloads = [_rebuild(e.template, [next(rest) for _ in e.avals]) for e in exits]
    return final, Tensor._wrap(results[n_state]), payloads


# -- loops over long Python ranges ------------------------------------------------------------------
# `for i in range(N)` with N a Python int is unrolled (N bodies, as MindSpore's graph compiler does). From
# RANGE_LOOP_MIN trips on, the body is first tried once as a `while` with `i` a scalar int64 Tensor; a body that
# needs `i` as a Python int, or does anything a compiled loop would not repeat the same way, is unrolled instead.

RANGE_LOOP_MIN = 16  # trips from which a loop over a Python range is tried as one compiled loop
# ... and the equations the unrolled loop would hold (trips x the body's) from which the compiled loop is kept: below
# it the unrolled program compiles about as fast and runs faster (a 6-equation body: 16 trips 77 vs 177 us a step, first
# call 142 vs 262 ms; 64 trips 290 vs 353 us, first call 628 vs 257 ms; session 23)
RANGE_LOOP_MIN_WORK = 1000


class _Unroll(Exception):
    """The body of a loop over a Python range cannot run as one compiled loop: unroll it."""


def _no_branch_in_range_loop(ctx) -> None:
    """A Tensor condition inside a body tried as one compiled loop: in the unrolled loop the condition may be a
    Python value of `i` (a plain `if`, a list index), so the loop is unrolled rather than changed into `cond`s."""
    if ctx.range_loop_attempts:
        raise _Unroll()


def _range_loop_slot(frame: Frame):
    """The header parameter holding a `RangeLoop` on its first entry, else None."""
    for p in frame.graph.params:
        if type(frame.values.get(p)) is RangeLoop:
            return p
    return None


class _TraceState:
    """What trying a loop may change in the graph being recorded, to put back when the loop is unrolled."""

    def __init__(self, trace: G.Trace, ctx) -> None:
        self.trace = trace
        self.n_eqns, self.n_invars = len(trace.eqns), len(trace.invars)
        self.dicts = [
            (d, dict(d))
            for d in (
                trace.captures, trace.state_in, trace.state, trace.state_objs, trace.host_values, trace.tensor_keys,
                trace.input_tensors, trace.forwards, ctx.attr_slots, ctx.host_visits, ctx.loop_entries,
            )
        ]  # fmt: skip
        self.unrolled_calls = ctx.unrolled_calls

    def restore(self, ctx) -> None:
        del self.trace.eqns[self.n_eqns :]
        del self.trace.invars[self.n_invars :]
        for d, before in self.dicts:
            d.clear()
            d.update(before)
        ctx.unrolled_calls = self.unrolled_calls


def range_loop(ctx, hframe: Frame, node, slot):
    """`for i in range(N)` (N >= RANGE_LOOP_MIN) as one `while` equation, or None when its body must be
    unrolled: then the header's iterator is the unrolled one and the caller goes on as for any static loop.

    The compiled loop is kept when the body ran with `i` as a Tensor, without a Tensor condition, `break` or
    `return`, and changed only Tensors (loop variables keeping their shape and dtype, Parameters, random state):
    Python values it would change trip by trip, mutated lists, attribute writes and host calls unroll it.
    """
    rl = hframe.values[slot]
    header = hframe.graph
    entry = [hframe.values[p] for p in header.params]
    parent = G.current()
    saved = _TraceState(parent, ctx)
    host_visits = sum(ctx.host_visits.values())
    outer_journal, ctx.list_journal = ctx.list_journal, {}
    journal = ctx.list_journal
    ctx.range_loop_attempts += 1
    try:
        out = tensor_loop(ctx, hframe, node, Tensor(True))
        kept = isinstance(out, Frame) and _only_tensors_changed(entry, out.parent, header, parent, saved)
        kept = kept and sum(ctx.host_visits.values()) == host_visits
        kept = kept and all(before is _FRESH for _, before in journal.values())
        kept = kept and len(rl.py) <= _gradient_linear_trips(parent.eqns[saved.n_eqns :])
        kept = kept and len(rl.py) * _body_size(parent.eqns[saved.n_eqns :]) >= RANGE_LOOP_MIN_WORK
    except Exception:  # noqa: BLE001 - any failure of the Tensor-index trace: unrolling gives the real outcome
        out, kept = None, False
    finally:
        ctx.range_loop_attempts -= 1
        ctx.list_journal = outer_journal
    if kept:
        return out
    _restore_lists(journal)
    saved.restore(ctx)
    hframe.values[slot] = IterState(tuple(rl.py), 0)
    for a in header.nodes:
        hframe.values[a] = ctx.eval_apply(hframe, a)
    return None


def _body_size(eqns: list) -> int:
    """Equations in one trip of the loop just recorded (nested graphs included)."""
    loop = next(e for e in reversed(eqns) if e.name == "while")
    return loop.params["body"].count()


def _gradient_linear_trips(eqns: list) -> int:
    """The trips up to which a gradient of the loop just recorded records every trip's state (its cost stays
    linear in the trips; the unrolled loop's always does)."""
    loop = next(e for e in reversed(eqns) if e.name == "while")
    if not any(np.dtype(v.dtype).kind in "fc" for v in loop.outputs):
        return 1 << 62  # nothing to differentiate through
    return while_buffer_len(sum(int(np.prod(v.shape)) * np.dtype(v.dtype).itemsize for v in loop.outputs))


def _only_tensors_changed(entry: list, after: Frame, header, parent: G.Trace, saved: _TraceState) -> bool:
    """The loop left every Python value it found as it was (a Python number changed per trip would be a Tensor
    after a compiled loop), and wrote no attribute."""
    for p, before in zip(header.params, entry, strict=True):
        now = after.values[p]
        if now is not before and before is not UNDEF and not _has_tensor(before) and not isinstance(before, RangeLoop):
            return False
    state_before = saved.dicts[2][1]
    return not any(
        isinstance(k, tuple) and k[:1] == ("attribute",) and parent.state.get(k) is not state_before.get(k)
        for k in parent.state
    )
