"""What each built-in IR operation means, on constants and on Tensors."""

from __future__ import annotations

import builtins
import types

import numpy as np

from kiln._compiler.errors import GraphCompileError, RaisesWithRunTimeMessage, UnassignedVariable
from kiln._compiler.frontend.ast import attributes, calls, control, effects, precision
from kiln._compiler.frontend.ast import ops as O
from kiln._compiler.frontend.ast import values as V
from kiln._compiler.frontend.ast.parser import UNDEF
from kiln._compiler.frontend.ast.values import (
    MISSING,
    Closure,
    IterState,
    RangeLoop,
    TensorRange,
    is_cell,
    is_symbolic,
)
from kiln._compiler.ir import graph as G
from kiln._core.tensor import Parameter, Tensor
from kiln._prims.control import RaisedInGraph, raise_p
from kiln._prims.control import register as register_raise

IMPL: dict = {}


def _impl(op):
    def deco(fn):
        IMPL[op] = fn
        return fn

    return deco


def _check_defined(node, args) -> None:
    for a in args:
        if a is UNDEF:
            raise UnassignedVariable(  # a NameError, as Python raises for a local read before assignment
                "a variable is used here that is not assigned on every path before this point "
                "(assigned in only one branch of an if, or only inside a loop)."
            )


def _arith(op):
    fold = op.fold

    def impl(ctx, frame, node, args):
        for a in args:
            if a is UNDEF:
                _check_defined(node, args)
        if ctx.amp_dtype is not None:  # MindSpore's GRAPH_MODE casts a Parameter an operator takes
            args = precision.parameters_cast(ctx.amp_dtype, args)
        return fold(*args)

    return impl


for _name in (*O.BINARY, *O.COMPARE, "USub", "UAdd", "Invert"):
    IMPL[O.OPS[_name]] = _arith(O.OPS[_name])


def _contains(item, seq):
    """`item in seq`: Python's rule (identity, then equality); with Tensors whose values are only known
    when the graph runs, a boolean Tensor: any element equal to `item` in every position. `item in tensor`
    with a Tensor known only at run time: a boolean computed by the graph, leaving it as a Python bool."""
    if isinstance(seq, Tensor) and (is_symbolic(seq) or is_symbolic(item)):
        return effects.HostScalar.of((seq == item).any()._data, bool)
    if not isinstance(seq, (tuple, list)) or not any(is_symbolic(x) for x in (item, *seq)):
        return item in seq
    found = None
    for e in seq:
        if e is item:
            return True
        if not (isinstance(e, Tensor) or isinstance(item, Tensor)):
            if e == item:
                return True
            continue
        eq = e == item
        eq = eq.all() if isinstance(eq, Tensor) else eq
        found = eq if found is None else found | eq
    return False if found is None else found


@_impl(O.OPS["In"])
def _in(ctx, frame, node, args):
    _check_defined(node, args)
    return _contains(*args)


@_impl(O.OPS["NotIn"])
def _not_in(ctx, frame, node, args):
    _check_defined(node, args)
    found = _contains(*args)
    return _negated(found) if isinstance(found, Tensor) else not found


@_impl(O.OPS["Not"])
def _not(ctx, frame, node, args):
    (x,) = args
    if isinstance(x, Tensor) and (is_symbolic(x) or x.size != 1):
        return _negated(x)
    return not x


def _negated(x: Tensor) -> Tensor:
    """`not x` of a run-time Tensor; of a Python number known only at run time (`not bool(t)`), a Python bool."""
    out = x.logical_not() if x.dtype.kind == "b" else x == 0
    return effects.HostScalar.of(out._data, bool) if isinstance(x, effects.HostScalar) else out


@_impl(O.RESOLVE)
def _resolve(ctx, frame, node, args):
    name = args[0]
    ns = frame.ns
    cell = ns.cells.get(name)
    if cell is not None:
        try:
            v = cell.cell_contents
        except ValueError:
            raise NameError(f"free variable '{name}' is referenced before assignment.") from None
        ctx.guard_cell(cell, v)
        return _seen(ctx, v)
    g = ns.globals
    v = g.get(name, MISSING)
    if v is not MISSING:
        if not isinstance(v, types.ModuleType):
            ctx.guard(g, name, v)
        return precision.constant_cast(ctx.amp_dtype, _seen(ctx, v))
    v = getattr(builtins, name, MISSING)
    if v is MISSING:
        raise NameError(f"name '{name}' is not defined.")
    ctx.guard(g, name, MISSING)  # a global defined later would shadow the builtin
    return v


def _seen(ctx, v):
    if is_cell(v):
        ctx.see_cell(v)
    return v


@_impl(O.GETATTR)
def _getattr(ctx, frame, node, args):
    obj, name = args
    if obj is UNDEF:
        _check_defined(node, args)
    if not isinstance(obj, (Tensor, types.ModuleType, type)):
        written = attributes.read_attribute(ctx, obj, name)
        if written is not MISSING:
            return written
    if type(obj) is dict and name == "has_key":  # MindSpore's graph syntax documents dict.has_key(key)
        return obj.__contains__
    if node.meta and node.meta.get("context_manager") and not hasattr(type(obj), name):
        raise TypeError(f"a 'with' statement needs a context manager, but '{type(obj).__name__}' has no {name}()")
    v = getattr(obj, name)
    if isinstance(obj, (Tensor, types.ModuleType, type)):
        return v
    if is_cell(obj):
        d = obj.__dict__
        if name in d:
            ctx.guard(d, name, v)
            return precision.constant_cast(ctx.amp_dtype, _seen(ctx, v))
        if name in d["_params"]:
            ctx.guard(d["_params"], name, v)
        elif name in d["_cells"]:
            ctx.guard(d["_cells"], name, v)
        return _seen(ctx, v)
    d = getattr(obj, "__dict__", None)
    if isinstance(d, dict):
        if name in d:
            ctx.guard(d, name, v)
        elif not isinstance(obj, types.FunctionType):
            # Found on the class: valid while the instance does not shadow it and the class keeps it.
            ctx.guard(d, name, MISSING)
            cls_dict = getattr(type(obj), "__dict__", None)
            if cls_dict is not None and name in cls_dict:
                ctx.guard(cls_dict, name, cls_dict[name])
    return _seen(ctx, v)


@_impl(O.SETATTR)
def _setattr(ctx, frame, node, args):
    obj, name, value = args
    if is_cell(obj) and name in obj.__dict__["_params"]:
        setattr(obj, name, value)
        return None
    attributes.set_attribute(ctx, obj, name, value)
    return None


@_impl(O.GETITEM)
def _getitem(ctx, frame, node, args):
    obj, idx = args
    if obj is UNDEF:
        _check_defined(node, args)
    if isinstance(idx, Tensor) and (isinstance(obj, (tuple, list)) or _is_cell_sequence(obj)):
        if is_symbolic(idx):  # the item is chosen when the graph runs (switch_layer)
            return control.select_item(ctx, obj, _index_in_range(ctx, node, obj, idx), node)
        idx = int(idx)
    if isinstance(obj, dict) and is_symbolic(idx):  # a Tensor hashes by identity: the lookup could never hit
        raise TypeError(
            f"a dict cannot be indexed by a Tensor whose value is known only when the graph runs (shape "
            f"{list(idx.shape)}, {idx.dtype}); its keys are {_keys(obj)}: index it with a Python key, or put the "
            f"values in a tuple or list and index that with the Tensor."
        )
    v = obj[idx]
    return _seen(ctx, v) if isinstance(v, Parameter) or is_cell(v) else v


def _keys(d: dict) -> str:
    keys = [repr(k) for k in list(d)[:6]]
    return "[" + ", ".join(keys) + (", ...]" if len(d) > 6 else "]")


def _index_in_range(ctx, node, obj, idx: Tensor) -> Tensor:
    """The run-time index `idx` into `obj`, negative ones counted from the end; an index outside [-n, n)
    raises IndexError when the graph runs, as `obj[int(idx)]` does in PyNative."""
    n = len(obj)
    inside, wrapped = control.index_inside(idx, n)
    kind = type(obj).__name__
    exc = IndexError(f"{kind} index out of range: the {kind} has {n} items, so a Tensor index must be in [{-n}, {n}).")
    control.select_both(ctx, node, inside, lambda: None, lambda: bind_raise(G.current(), exc))
    return wrapped


def _is_cell_sequence(obj) -> bool:
    """A CellList / SequentialCell (a Cell that holds its Cells in order and can be iterated)."""
    return is_cell(obj) and hasattr(type(obj), "__iter__") and hasattr(type(obj), "__len__")


@_impl(O.SETITEM)
def _setitem(ctx, frame, node, args):
    obj, idx, value = args
    if isinstance(obj, Tensor):
        new = Tensor._wrap(obj._data)
        new._nodes = obj._nodes
        new[idx] = value
        # Inside a Tensor branch or loop body a Tensor holding an outer value records an in-place write as the
        # nested graph's state (joined at its end): the updated value is that state, read while still inside.
        out = Tensor._wrap(new._data)
        out._nodes = new._nodes
        return out
    if isinstance(obj, list):
        new = list(obj)
        new[idx] = value
        return new
    if isinstance(obj, dict):
        new = dict(obj)
        new[idx] = value
        return new
    raise TypeError(f"'{type(obj).__name__}' object does not support item assignment.")


@_impl(O.MAKE_TUPLE)
def _make_tuple(ctx, frame, node, args):
    if ctx.amp_dtype is not None:  # MindSpore's MakeTuple is an operator of the flagged graph: it casts them too
        args = precision.parameters_cast(ctx.amp_dtype, args)
    return tuple(args)


@_impl(O.MAKE_LIST)
def _make_list(ctx, frame, node, args):
    if ctx.amp_dtype is not None:
        args = precision.parameters_cast(ctx.amp_dtype, args)
    return control.fresh_list(ctx, list(args))


@_impl(O.MAKE_DICT)
def _make_dict(ctx, frame, node, args):
    n = len(args) // 2
    return dict(zip(args[:n], args[n:], strict=True))


@_impl(O.MAKE_SLICE)
def _make_slice(ctx, frame, node, args):
    return slice(*args)


@_impl(O.UNPACK)
def _unpack(ctx, frame, node, args):
    x, n = args
    if x is UNDEF:
        _check_defined(node, args)
    if isinstance(n, tuple):  # a starred target: (items before it, items after it); it takes a list
        before, after = n
        if isinstance(x, Tensor) and x.ndim == 0:
            raise ValueError("cannot unpack a 0-d Tensor.")
        items = tuple(x[i] for i in range(x.shape[0])) if isinstance(x, Tensor) else tuple(x)
        if len(items) < before + after:
            raise ValueError(f"expected at least {before + after} values to unpack, but got {len(items)}.")
        end = len(items) - after
        return (*items[:before], list(items[before:end]), *items[end:])
    if isinstance(x, Tensor):
        if x.ndim == 0 or x.shape[0] != n:
            raise ValueError(f"cannot unpack a Tensor of shape {list(x.shape)} into {n} values.")
        return tuple(x[i] for i in range(n))
    items = tuple(x)
    if len(items) != n:
        raise ValueError(f"expected {n} values to unpack, but got {len(items)}.")
    return items


@_impl(O.MAKE_CLOSURE)
def _make_closure(ctx, frame, node, args):
    g = args[0].graph if isinstance(args[0], Closure) else args[0]
    parent = args[0].frame if isinstance(args[0], Closure) else ctx.frame_for(frame, g.parent)
    names = node.meta.get("kw_defaults", ()) if node.meta else ()
    rest = args[1:]
    n_kw = len(names)
    defaults = tuple(rest[: len(rest) - n_kw])
    kwdefaults = dict(zip(names, rest[len(rest) - n_kw :], strict=True))
    return Closure(g, parent, defaults, kwdefaults)


@_impl(O.CALL_STAR)
def _call_star(ctx, frame, node, args):
    fn, layout, *vals = args
    pos, kw = [], {}
    for entry, v in zip(layout, vals, strict=True):
        kind = entry[0]
        if kind == "p":
            pos.append(v)
        elif kind == "s":
            pos.extend(iterate(v))
        elif kind == "k":
            kw[entry[1]] = v
        else:
            kw.update(v)
    return calls.call(ctx, fn, pos, kw or None, node)


@_impl(O.SUPER)
def _super(ctx, frame, node, args):
    cls, obj = args
    return super(cls, obj)


def iterate(x) -> tuple:
    """The items of a sequence whose length is known at compile time."""
    if isinstance(x, Tensor):
        if x.ndim == 0:
            raise TypeError("cannot iterate over a 0-d Tensor.")
        return tuple(x[i] for i in range(x.shape[0]))
    if isinstance(x, dict):
        return tuple(x)
    if is_cell(x):
        return tuple(iter(x))
    return tuple(x)


@_impl(O.ITER_INIT)
def _iter_init(ctx, frame, node, args):
    (x,) = args
    if isinstance(x, TensorRange):
        return x
    if type(x) is range and ctx.tracing and len(x) >= control.RANGE_LOOP_MIN:
        return RangeLoop(x)  # tried as one compiled loop at the loop's header (control.range_loop)
    return IterState(iterate(x), 0)


@_impl(O.ITER_HAS)
def _iter_has(ctx, frame, node, args):
    (s,) = args
    if type(s) is RangeLoop:  # its first entry, where it is tried as a compiled loop (it is not empty)
        return True
    if isinstance(s, TensorRange):
        return (s.index < s.stop) if _positive(s.step) else (s.index > s.stop)
    return s.index < len(s.items)


def _positive(step) -> bool:
    if isinstance(step, Tensor):
        if is_symbolic(step):
            raise GraphCompileError("the step of a range() with Tensor bounds must be known at compile time.")
        return int(step) > 0
    return step > 0


@_impl(O.ITER_GET)
def _iter_get(ctx, frame, node, args):
    (s,) = args
    if isinstance(s, TensorRange):
        return s.index
    v = s.items[s.index]
    return _seen(ctx, v) if is_cell(v) else v


@_impl(O.ITER_NEXT)
def _iter_next(ctx, frame, node, args):
    (s,) = args
    if isinstance(s, TensorRange):
        return TensorRange(s.index + s.step, s.stop, s.step)
    return IterState(s.items, s.index + 1)


def _thunk(ctx, clo, *args):
    return ctx.call_closure(clo, args, None)


def _check_single(a, op: str) -> None:
    if isinstance(a, Tensor) and a.size != 1:  # as bool(a) in Python: ValueError
        raise ValueError(
            f"the truth value of a Tensor with shape {list(a.shape)} is ambiguous, so '{op}' cannot use it; "
            f"use .any() or .all()."
        )


@_impl(O.AND)
def _and(ctx, frame, node, args):
    """`a and b` as Python: `b` when `a` is true, else `a` itself (a Tensor of many elements has no truth value);
    with `a` known only at run time, `b if a else a`, `b` evaluated only on that branch."""
    a, rest = args
    _check_single(a, "and")
    static = control.static_bool(a)
    if static is not None:
        return _thunk(ctx, rest) if static else a
    return control.select_both(ctx, node, a, lambda: _thunk(ctx, rest), lambda: a)


@_impl(O.OR)
def _or(ctx, frame, node, args):
    """`a or b` as Python: `a` when it is true, else `b` (`a if a else b` with `a` known only at run time)."""
    a, rest = args
    _check_single(a, "or")
    static = control.static_bool(a)
    if static is not None:
        return a if static else _thunk(ctx, rest)
    return control.select_both(ctx, node, a, lambda: a, lambda: _thunk(ctx, rest))


@_impl(O.IFEXP)
def _ifexp(ctx, frame, node, args):
    cond, ta, tb = args
    static = control.static_bool(cond)
    if static is not None:
        return _thunk(ctx, ta if static else tb)
    return control.select_both(ctx, node, cond, lambda: _thunk(ctx, ta), lambda: _thunk(ctx, tb))


@_impl(O.COMPREHENSION)
def _comprehension(ctx, frame, node, args):
    kind, iterable, elt, cond = args
    kind, nested = kind.rstrip("*"), kind.endswith("*")  # nested: each item gives a list of items (more 'for's)
    out = []
    for item in iterate(iterable):
        if cond is not None:
            keep = control.static_bool(_thunk(ctx, cond, item))
            if keep is None:
                raise GraphCompileError("a comprehension's 'if' must be known at compile time, not a Tensor.")
            if not keep:
                continue
        if nested:
            out.extend(_thunk(ctx, elt, item))
        else:
            out.append(_thunk(ctx, elt, item))
    if kind == "list":
        return control.fresh_list(ctx, out)
    if kind == "dict":
        return dict(out)
    return tuple(out)


@_impl(O.FORMAT)
def _format(ctx, frame, node, args):
    v, conv, spec = args
    if is_symbolic(v):
        if not ctx.lax:
            raise GraphCompileError(
                "an f-string of a Tensor whose value is only known at run time is not supported; use print(x)."
            )
        return effects.RunTimeString.formatted(v, conv, spec)
    return effects.format_value(v, conv, spec)


@_impl(O.JOIN_STR)
def _join_str(ctx, frame, node, args):
    if any(isinstance(a, effects.RunTimeString) for a in args):
        return effects.RunTimeString.join(args)
    return "".join(str(a) for a in args)


def bind_raise(trace: G.Trace, exc: BaseException) -> None:
    """A Raise equation for the user's `raise exc` (or failed assert) under a Tensor condition. The Parameters
    and the random key written before it keep their values at this point when it fails, as in PyNative: the
    equation takes those values as inputs, and the call leaves them in the Parameters before raising."""
    kept = trace.written_so_far()
    site = register_raise(exc, tuple(k for k, _ in kept))
    trace.bind(raise_p, (site,), [np.int32(0), *(v for _, v in kept)])


@_impl(O.ASSERT)
def _assert(ctx, frame, node, args):
    test, msg = args
    static = control.static_bool(test)
    exc = AssertionError(msg) if msg is not None else AssertionError()
    if static is False:
        raise exc
    if static is None:  # a Tensor condition: checked when the graph runs, as a raise under `if not test`
        control.select_both(ctx, node, test, lambda: None, lambda: bind_raise(G.current(), exc))
    return None


@_impl(O.RAISE)
def _raise(ctx, frame, node, args):
    (exc,) = args
    if exc is None:
        raise RuntimeError("re-raise outside an except block")
    if isinstance(exc, type) and issubclass(exc, BaseException):
        exc = exc()
    if ctx.region_depth > 0:  # whether it happens is known at run time: the branch compiles to a Raise
        bind_raise(G.current(), exc)
        raise RaisedInGraph(exc, node.loc)
    if ctx.tracing and any(isinstance(a, effects.RunTimeString) or is_symbolic(a) for a in exc.args):
        raise RaisesWithRunTimeMessage(exc)  # the caller runs the call eagerly for the message's values
    raise exc


__all__ = ["IMPL", "V", "iterate"]
