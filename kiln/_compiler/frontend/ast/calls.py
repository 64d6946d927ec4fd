"""Calls inside a graph: user functions and Cells are parsed and inlined, library code runs on Tensors.

Kiln's own functions (ops, Primitives, library Cells) are written for Tensors
and run as they are on the symbolic tensors of the compile: every op they
apply is recorded into the one computation. User functions, methods and
`construct`s are compiled from their source, so their `if`/loops follow graph
semantics. A user function handed to library code (a function given to
`value_and_grad`, a Cell inside a SequentialCell) is wrapped so that it, too,
runs through the compiler.
"""

from __future__ import annotations

import builtins
import sys
import types

import numpy as np

from kiln import _backend as B
from kiln._compiler.errors import GraphCompileError, GraphSyntaxError, SourceUnavailable, TensorMethodUnavailable
from kiln._compiler.frontend.ast import control, effects, precision
from kiln._compiler.frontend.ast.parser import Namespace, parse_function
from kiln._compiler.frontend.ast.rewrites import optimize
from kiln._compiler.frontend.ast.values import Closure, SwitchedCallable, TensorRange, is_cell, is_symbolic
from kiln._compiler.ir import graph as G
from kiln._core import dtype as mstype
from kiln._core.mutable import dynamic_length_copy
from kiln._core.primitive import REGISTRY, edit_guard, watch_edits
from kiln._core.tensor import Parameter, Tensor
from kiln._pynative.autograd import (
    call_with_backward_hooks,
    call_with_custom_bprop,
    constexpr_scope,
    logging_constexprs,
    note_forward,
)
from kiln._pynative.dispatch import RUN, apply, auto_precision, running_in
from kiln._pynative.nested import record

_user_code: dict = {}
_parsed: dict = {}


def is_user_function(fn) -> bool:
    """Functions compiled from source: any Python function whose module is outside Kiln and the standard
    library (a script, exec'd code, a pip-installed package); never decided by file path."""
    code = getattr(fn, "__code__", None)
    if code is None:
        return False
    known = _user_code.get(code)
    if known is None:
        module = getattr(fn, "__module__", None) or (getattr(fn, "__globals__", None) or {}).get("__name__") or ""
        top = module.partition(".")[0]
        known = top != "kiln" and top not in sys.stdlib_module_names
        _user_code[code] = known
    return known


def parsed(fn):
    """The IR of `fn` after the optimisation passes (cached per code object)."""
    code = fn.__code__
    pf = _parsed.get(code)
    if pf is None:
        pf = parse_function(fn)
        optimize(pf)
        _parsed[code] = pf
    return pf


def _namespace(fn):
    cells = dict(zip(fn.__code__.co_freevars, fn.__closure__, strict=True)) if fn.__closure__ else {}
    return Namespace(fn.__globals__, cells, fn.__qualname__)


def call_user(ctx, fn, args, kwargs):
    """Run a user function through the compiler (parse once, interpret per compile)."""
    try:
        pf = parsed(fn)
    except SourceUnavailable:
        return _without_source(ctx, fn, args, kwargs)
    except GraphSyntaxError:
        if ctx.lax and ctx.frames:
            return run_library(ctx, fn, args, kwargs)  # LAX: run it as Python on the Tensors
        raise
    if pf not in ctx.parsed:
        ctx.parsed.append(pf)
    clo = Closure(pf.graph, None, fn.__defaults__ or (), fn.__kwdefaults__ or {})
    return ctx.call_closure(clo, args, kwargs, _namespace(fn))


def _without_source(ctx, fn, args, kwargs):
    """A function whose source is unreadable runs as Python on the symbolic tensors (trace capture):
    its ops are recorded, but a Tensor condition in it cannot be compiled."""
    try:
        return fn(*args, **(kwargs or {}))
    except RuntimeError as err:
        if "symbolic inside a compiled graph" not in str(err):
            raise
        code = fn.__code__
        raise GraphCompileError(
            f"'{fn.__qualname__}' ({code.co_filename}:{code.co_firstlineno}) has no readable source (exec'd or "
            f"typed at a prompt), so graph mode runs it as Python, where a Tensor's value is unknown: define it in "
            f"a file (or register its source with linecache) to compile its control flow."
        ) from None


def prescan(fn, depth: int = 3):
    """Cells and Parameters a function can reach through its globals and closures (inputs known up front)."""
    cells, params, seen = [], [], set()

    def visit(v, d):
        if id(v) in seen or d < 0:
            return
        seen.add(id(v))
        if isinstance(v, Parameter):
            params.append(v)
        elif is_cell(v):
            cells.append(v)
        elif isinstance(v, (list, tuple)) and len(v) <= 64:
            for x in v:
                visit(x, d - 1)
        elif callable(v) and not isinstance(v, type):
            f = getattr(v, "__func__", v)
            f = getattr(f, "_kiln_fn", f)
            if getattr(v, "__self__", None) is not None:
                visit(v.__self__, d - 1)
            for c in getattr(f, "__closure__", None) or ():
                try:
                    visit(c.cell_contents, d - 1)
                except ValueError:
                    pass
            wrapped = getattr(f, "__wrapped__", None)
            if wrapped is not None:
                visit(wrapped, d - 1)
            code = getattr(f, "__code__", None)
            g = getattr(f, "__globals__", None)
            if code is not None and g is not None and is_user_function(f):
                for name in _names(code):
                    if name in g:
                        visit(g[name], d - 1)
        elif hasattr(v, "__dict__") and not isinstance(v, type) and type(v).__module__ != "builtins":
            for x in list(vars(v).values())[:64]:
                if is_cell(x) or isinstance(x, Parameter):
                    visit(x, d - 1)

    visit(fn, depth)
    return cells, params


def _names(code) -> set:
    names = set(code.co_names)
    for c in code.co_consts:
        if hasattr(c, "co_names"):
            names |= _names(c)
    return names


def unwrap(fn):
    """The user's function behind a `jit` wrapper."""
    inner = getattr(fn, "_kiln_fn", None)
    return inner if inner is not None else fn


def call_cell(ctx, cell, args, kwargs):
    """A Cell call inside a graph: hooks, custom bprop, and its construct compiled from source."""
    ctx.see_cell(cell)
    d = cell.__dict__
    if d.get("_recompute") and id(cell) not in ctx.recomputing and G.current() is not None:
        return _recomputed(ctx, cell, args, kwargs)
    construct = unwrap(type(cell).construct)
    if not is_user_function(construct):
        own = d.get("_float_dtype")
        # MindSpore's GRAPH_MODE casts a flagged library Cell's inputs at its call too (as run_construct below): an
        # nn.Dropout that returns its input returns it in the flag's dtype
        if own is not None:
            args, kwargs = precision.arguments_cast(own, args, kwargs)
        return cell(*args, **(kwargs or {}))  # Cell.__call__ -> library construct on symbolic tensors
    args, kwargs = cell._forward_pre(tuple(args), kwargs or {})
    # as MindSpore's GRAPH_MODE, a gradient of this Cell on these arguments reuses this forward, set_grad or not
    log = note_forward(cell, tuple(args))

    own = d.get("_float_dtype")
    auto = d.get("_amp_auto")

    def run_construct(*a, **k):
        k = k or kwargs
        if own is not None:  # MindSpore's GRAPH_MODE: a `to_float` Cell casts its floating-point inputs at its call
            a, k = precision.arguments_cast(own, a, k)
        if auto is None:
            return _in_precision(ctx, own, lambda: call_user(ctx, construct, (cell, *a), k))
        with auto_precision(auto):  # amp level 'auto': each op recorded inside casts as its op list says
            return _in_precision(ctx, own, lambda: call_user(ctx, construct, (cell, *a), k))

    bprop = getattr(type(cell), "bprop", None)
    if bprop is not None:
        user_bprop = GraphCallable(ctx, bprop, (cell,))

        def run(*a):
            return call_with_custom_bprop(cell, user_bprop, run_construct, a)
    else:
        run = run_construct
    with logging_constexprs(log), constexpr_scope(cell, tuple(args)):
        if d.get("_backward_hooks") or d.get("_backward_pre_hooks"):
            out = call_with_backward_hooks(cell, tuple(args), run)
        else:
            out = run(*args)
    return cell._forward_post(tuple(args), kwargs, out)


def _in_precision(ctx, dt, thunk):
    """`thunk()` with `ctx.amp_dtype` set to `dt` (a flagged construct's casts, precision.py) and no per-op cast
    (`running_in(None)`: that is PyNative's rule; a library Cell called inside sets its own, Cell._call)."""
    outer = ctx.amp_dtype
    ctx.amp_dtype = dt
    try:  # (a flagged construct's own casts win over amp level 'auto', as in MindSpore)
        with running_in(None), auto_precision(None if dt is not None else RUN.auto):
            return thunk()
    finally:
        ctx.amp_dtype = outer


def _uncast(ctx, run, fn, args, kwargs):
    """`run(ctx, fn, args, kwargs)` outside the flagged construct's casts."""
    return _in_precision(ctx, None, lambda: run(ctx, fn, args, kwargs))


def _recomputed(ctx, cell, args, kwargs):
    """`Cell.recompute()`: the call becomes a nested graph whose activations are recomputed in backward."""
    trace = G.current()
    positions = [i for i, a in enumerate(args) if isinstance(a, Tensor)]
    ctx.recomputing.add(id(cell))
    try:
        nested = record(trace, "recompute", lambda *a: call_cell(ctx, cell, list(a), kwargs), list(args), positions)
    finally:
        ctx.recomputing.discard(id(cell))
    avals = [(tuple(o.shape), o.dtype) for o in nested.graph.outvars]
    results = trace.emit("remat", [*nested.inputs, *nested.captured], avals, {"graph": nested.graph})
    return nested.finish(trace, results)


class GraphCallable:
    """A user function or closure handed to library code: calling it runs the compiler."""

    __slots__ = ("ctx", "fn", "bound", "__wrapped__")

    def __init__(self, ctx, fn, bound: tuple = ()) -> None:
        self.ctx, self.fn, self.bound = ctx, fn, bound
        self.__wrapped__ = fn

    def __call__(self, *args, **kwargs):
        return call(self.ctx, self.fn, [*self.bound, *args], kwargs or None, None)


def _wrap_callable(ctx, x):
    if isinstance(x, Closure):
        return GraphCallable(ctx, x)
    if isinstance(x, types.FunctionType) and is_user_function(x):
        return GraphCallable(ctx, x)
    if isinstance(x, types.MethodType) and is_user_function(x.__func__) and not is_cell(x.__self__):
        return GraphCallable(ctx, x.__func__, (x.__self__,))
    return x


_LIST_MUTATORS = frozenset(("append", "extend", "insert", "pop", "remove", "clear", "reverse", "sort", "__setitem__"))


def call(ctx, fn, args, kwargs, node):
    """Call `fn(*args, **kwargs)` with graph semantics."""
    t = type(fn)
    if t is types.BuiltinMethodType and ctx.list_journal is not None and isinstance(fn.__self__, list):
        if fn.__name__ in _LIST_MUTATORS:  # inside a Tensor branch: remember the list as it was before
            ctx.list_journal.setdefault(id(fn.__self__), (fn.__self__, list(fn.__self__)))
    if t is Closure:
        return ctx.call_closure(fn, args, kwargs)
    if ctx.amp_dtype is not None and precision.is_primitive(fn):  # MindSpore casts the Parameters it takes
        args = precision.primitive_arguments_cast(ctx.amp_dtype, fn, args)
        if kwargs:
            kwargs = dict(zip(kwargs, precision.parameters_cast(ctx.amp_dtype, kwargs.values()), strict=True))
    if t is SwitchedCallable:
        return control.call_switched(ctx, fn, lambda f: call(ctx, f, list(args), kwargs, node))
    if t is types.FunctionType:
        if is_user_function(fn):
            if ctx.amp_dtype is None:
                return call_user(ctx, fn, args, kwargs)
            return _uncast(ctx, call_user, fn, args, kwargs)  # MindSpore: a graph of its own, not flagged
    elif t is types.MethodType:
        f = unwrap(fn.__func__)
        if is_user_function(f):
            return call_user(ctx, f, [fn.__self__, *args], kwargs)
    elif is_cell(fn):
        return call_cell(ctx, fn, args, kwargs)
    elif fn is builtins.print:
        return effects.print_(ctx, args, kwargs or {})
    elif _is_print_primitive(fn):  # ops.Print(): prints when the graph runs, once per trip of a Tensor loop
        return effects.print_(ctx, args, {}, numpy_values=True)
    elif fn is builtins.range and any(is_symbolic(a) for a in args):
        return _tensor_range(args)
    elif fn in (builtins.any, builtins.all) and len(args) == 1 and not kwargs and _holds_symbolic(args[0]):
        return _any_all(fn is builtins.any, args[0])
    elif t is types.BuiltinMethodType and fn.__name__ == "count" and type(fn.__self__) in (list, tuple):
        if len(args) == 1 and not kwargs and _holds_symbolic([*fn.__self__, args[0]]):
            return _count(fn.__self__, args[0])
    elif getattr(fn, "_kiln_fn", None) is not None:  # a jit-wrapped function: inline it
        inner = fn._kiln_fn
        bound = getattr(fn, "_kiln_self", None)
        # compiled apart (as a PyNative call, `api._invoke`): without the calling `to_float` Cell's casts; a jit
        # method of a flagged Cell as the Cell's construct
        own = getattr(bound, "__dict__", {}).get("_float_dtype") if bound is not None else None
        full = [bound, *args] if bound is not None else args
        return _in_precision(ctx, own, lambda: call(ctx, inner, full, kwargs, node))
    elif isinstance(fn, type) and ctx.tracing and fn.__module__ != "builtins":
        return _construct(ctx, fn, args, kwargs)
    elif fn is len and len(args) == 1 and isinstance(args[0], effects.RunTimeString):
        return run_library(ctx, fn, args, kwargs)  # its length needs the Tensors' values: a host step under LAX
    elif fn is isinstance and len(args) == 2 and isinstance(args[0], effects.HostScalar):
        # a Python number computed in the graph (`float(x)`, a `mutable()` int) is an instance of its Python type
        return call_python(fn, [args[0].py_type(), args[1]], kwargs)
    elif (copy := dynamic_length_copy(fn, args, kwargs)) is not None:
        return copy  # tuple()/list() of a sequence declared variable-length stays so
    elif fn is isinstance or fn is len or fn is getattr or fn is hasattr:
        return call_python(fn, args, kwargs)
    return run_library(ctx, fn, args, kwargs)


def call_python(fn, args, kwargs):
    """`fn(*args, **kwargs)` for a callable the program calls as Python (a builtin, library code): an error
    raised in this frame (getattr's AttributeError, list.pop's IndexError) is the program's, not Kiln's
    (`diagnose` reads it so)."""
    return fn(*args, **(kwargs or {}))


def _holds_symbolic(items) -> bool:
    return isinstance(items, (tuple, list)) and any(is_symbolic(v) for v in items)


def _any_all(is_any: bool, items):
    """`any(...)` / `all(...)` of a list or tuple holding Tensors whose values are known only when the graph
    runs: the truth of each item (`bool()` of a one-element Tensor), or-ed / and-ed into a bool that leaves the
    graph as a Python bool (MindSpore's graph mode computes it too)."""
    result = None
    for v in items:
        if not isinstance(v, Tensor):
            if bool(v) is is_any:  # a constant decides it, as Python's short circuit does
                return is_any
            continue
        if v.size != 1:
            raise ValueError(
                f"the truth value of a Tensor with {v.size} elements is ambiguous in {'any' if is_any else 'all'}()."
            )
        truth = (v != 0).reshape(())
        result = truth if result is None else (result | truth if is_any else result & truth)
    if result is None:
        return not is_any
    return effects.HostScalar.of(result._data, bool)


def _count(items, value):
    """`seq.count(value)` where an item or `value` is a Tensor whose value is known only when the graph runs:
    Python's rule (an item that is `value` or equals it counts), each such comparison's truth added when the
    graph runs; the count leaves the graph as a Python int."""
    known, counted = 0, None
    for item in items:
        eq = True if item is value else item == value
        if not is_symbolic(eq):
            known += bool(eq)  # Python's truth (a multi-element Tensor's is ambiguous: ValueError)
            continue
        if eq.size != 1:
            raise ValueError(f"the truth value of a Tensor with {eq.size} elements is ambiguous in count().")
        hit = eq.reshape(()).astype(mstype.int64)
        counted = hit if counted is None else counted + hit
    return known if counted is None else effects.HostScalar.of((counted + known)._data, int)


def _is_print_primitive(fn) -> bool:
    """`ops.Print()` (or a subclass), known by its class: the compiler does not import `ops`."""
    return any(c.__name__ == "Print" and c.__module__.startswith("kiln.ops.") for c in type(fn).__mro__)


def _construct(ctx, cls, args, kwargs):
    """Instantiate a class at compile time (a Cell built inside a graph is a constant of it)."""
    if issubclass(cls, Tensor) and not issubclass(cls, Parameter):
        if G.current() is not None:
            # `Tensor(float(x))` is a Tensor, as in PyNative: a value of its own in the graph, not the Python number's
            args = [apply(REGISTRY["Identity"], (a,)) if isinstance(a, effects.HostScalar) else a for a in args]
        # `Tensor(x)` copies x's value in this graph: one written in place in an enclosing Tensor `if` branch or
        # `while` body is held by that graph's trace, which the eager constructor below does not see
        args = [Tensor._wrap(a._data) if isinstance(a, Tensor) else a for a in args]
        dtype = (kwargs or {}).get("dtype", args[1] if len(args) > 1 else None)
        if dtype is not None and args and is_symbolic(args[0]):
            # `Tensor(x, dtype)` of a run-time value: a cast in the graph (the constructor casts only arrays)
            args = [args[0].astype(dtype), *args[1:]]
    if getattr(cls, "_counts_edits", False) and G.current() is not None and _holds_host_scalar((args, kwargs)):
        # a Primitive given `mutable()` numbers, whose values its attributes need: built and run on the host
        return _PrimitiveOfRunTimeScalars(ctx, cls, args, kwargs or {})
    # Initialisers run eagerly and draw from the host generator, outside the graph being recorded.
    with G.recording(None):
        obj = cls(*args, **(kwargs or {}))
    if is_cell(obj):
        # A network built inside the graph: its weights are constants of this graph, not inputs.
        for _, c in obj.cells_and_names():
            ctx.seen_cells.add(id(c))
            for p in c._params.values():
                if p is not None:
                    ctx.const_params.add(id(p))
    return obj


def _needs_run_time_value(err: BaseException) -> bool:
    """Whether `err` is a read of a value known only when the graph runs (JAX's or a symbolic Tensor's)."""
    return not isinstance(err, RuntimeError) or "symbolic inside a compiled graph" in str(err)


def _holds_host_scalar(value) -> bool:
    if isinstance(value, effects.HostScalar):
        return True
    if isinstance(value, (tuple, list)):
        return any(_holds_host_scalar(v) for v in value)
    return isinstance(value, dict) and any(_holds_host_scalar(v) for v in value.values())


def _lift_scalars(value, scalars: list):
    """`value` with each HostScalar inside (tuples, lists, dicts) replaced by its index in `scalars`."""
    if isinstance(value, effects.HostScalar):
        scalars.append(value)
        return _ScalarSlot(len(scalars) - 1, value.py_type)
    return _map_items(value, lambda v: _lift_scalars(v, scalars))


def _map_items(value, fn):
    """A tuple, list (a named tuple too) or dict like `value` holding `fn` of each of its items; else `value`."""
    if isinstance(value, (tuple, list)):
        items = [fn(v) for v in value]
        return type(value)(*items) if hasattr(value, "_fields") else type(value)(items)
    if isinstance(value, dict):
        return {k: fn(v) for k, v in value.items()}
    return value


class _ScalarSlot(tuple):
    """Where `_lift_scalars` took a HostScalar out: (its index, its Python type)."""

    __slots__ = ()

    def __new__(cls, index: int, py_type: type):
        return tuple.__new__(cls, (index, py_type))


def _put_scalars(value, values: list):
    """`_lift_scalars`'s template with each slot filled with the Python number of its run-time value."""
    if isinstance(value, _ScalarSlot):
        index, py_type = value
        return py_type(np.asarray(values[index].asnumpy()).item())
    return _map_items(value, lambda v: _put_scalars(v, values))


class _PrimitiveOfRunTimeScalars:
    """A Primitive built in a graph from Python numbers known only when the graph runs (`ops.AvgPool(k)` of a
    `mutable()` k): it is built and called on the host, as one host step per call of it. Its attributes set its
    result's shape, a dynamic shape that MindSpore's graphs compile at every syntax level."""

    def __init__(self, ctx, cls: type, args, kwargs: dict) -> None:
        self._ctx, self._cls = ctx, cls
        self._scalars: list = []
        self._template = _lift_scalars((tuple(args), dict(kwargs)), self._scalars)

    def __call__(self, *inputs, **kwargs):
        cls, template, n = self._cls, self._template, len(self._scalars)

        def build_and_call(*values):
            init_args, init_kwargs = _put_scalars(template, list(values[:n]))
            return cls(*init_args, **init_kwargs)(*values[n:], **kwargs)

        build_and_call.__qualname__ = build_and_call.__name__ = cls.__name__
        return effects.host_call(self._ctx, build_and_call, [*self._scalars, *inputs], {})

    def __getattr__(self, name: str):
        if name.startswith("_"):
            raise AttributeError(name)
        raise GraphCompileError(
            f"'{self._cls.__name__}' was built in graph mode from numbers known only when the graph runs (mutable()), "
            f"so its attribute '{name}' cannot be read while compiling; pass constants to read its attributes."
        )


def _tensor_range(args):
    def as_t(v):
        return v if isinstance(v, Tensor) else Tensor(v, mstype.int64)

    for v in args:  # the checks PyNative's range() makes through Tensor.__index__, with the same error types
        if isinstance(v, Tensor) and not v.dtype.is_integer:
            raise TypeError(f"range() needs integer bounds, but got a Tensor of dtype {v.dtype}.")
        if isinstance(v, Tensor) and v.size != 1:
            raise ValueError(f"range() needs single-element Tensors as bounds, but got one of shape {list(v.shape)}.")

    if len(args) == 1:
        start, stop, step = 0, args[0], 1
    elif len(args) == 2:
        (start, stop), step = args, 1
    else:
        start, stop, step = args
    return TensorRange(as_t(start).astype(mstype.int64), as_t(stop), step)


_CONCRETE_ERRORS: tuple = ()


def concretization_errors() -> tuple:
    """The backend's errors that mean a symbolic value was used as a concrete one."""
    global _CONCRETE_ERRORS
    if not _CONCRETE_ERRORS:
        errs = B.jax.errors
        _CONCRETE_ERRORS = tuple(
            getattr(errs, n)
            for n in (
                "ConcretizationTypeError",
                "TracerBoolConversionError",
                "TracerIntegerConversionError",
                "TracerArrayConversionError",
            )
            if hasattr(errs, n)
        )
    return _CONCRETE_ERRORS


def _numpy_call(fn, args: list, kwargs: dict | None) -> bool:
    """A NumPy function called on a run-time Tensor (`np.mean(x.asnumpy())`: in a graph that value is a Tensor,
    whose methods NumPy would call with its own keywords, e.g. `x.mean(dtype=...)`)."""
    module = getattr(fn, "__module__", None)
    if not (isinstance(module, str) and (module == "numpy" or module.startswith("numpy."))):
        return False
    values = list(args) + list((kwargs or {}).values())
    return any(isinstance(v, Tensor) and is_symbolic(v) for v in values)


def _on_arrays(fn):
    """`fn` called with each Tensor argument as a NumPy array, as PyNative's `x.asnumpy()` gives it."""

    def on_arrays(*args, **kwargs):
        args = [a.asnumpy() if isinstance(a, Tensor) else a for a in args]
        kwargs = {k: v.asnumpy() if isinstance(v, Tensor) else v for k, v in kwargs.items()}
        return fn(*args, **kwargs)

    on_arrays.__qualname__ = on_arrays.__name__ = f"numpy.{getattr(fn, '__name__', 'function')}"
    return on_arrays


def _kiln_operation(fn) -> bool:
    """Whether `fn` is one of Kiln's own operations (an ops function, a Primitive or its class), not a Tensor
    method the program calls (`x.asnumpy()`) nor other Python. Such an operation reads a value on the host only
    where its result's shape or attributes depend on it (`ops.ones(size_tensor)`, a `mutable()` kernel size): that
    is a dynamic shape, which MindSpore's graphs compile at every syntax level, STRICT included, so it is a host
    step at every level too."""
    if isinstance(getattr(fn, "__self__", None), Tensor):
        return False
    # a Primitive instance (or another callable object) belongs to its class's module
    owner = fn if isinstance(fn, (types.FunctionType, types.MethodType, type)) else type(fn)
    module = getattr(owner, "__module__", None)
    return isinstance(module, str) and module.startswith("kiln.")


def run_library(ctx, fn, args: list, kwargs: dict | None):
    """Library code (ops, Primitives, builtins): run it on the Tensors as Python.

    Args:
        ctx: the compile's interpreter context.
        fn: the library callable.
        args, kwargs: its arguments (symbolic Tensors and Python values).

    Returns:
        fn's value; a call that needs a Tensor's run-time value becomes a host step under LAX.
    """
    if getattr(type(fn), "_counts_edits", False):  # a Primitive: its attributes are read as Python, not guarded
        watch_edits(fn)
        ctx.guard(*edit_guard(fn))
    args = [_wrap_callable(ctx, a) for a in args]
    if kwargs:
        kwargs = {k: _wrap_callable(ctx, v) for k, v in kwargs.items()}
    if ctx.lax and ctx.tracing and type(getattr(fn, "__self__", None)) is str and fn.__name__ == "format":
        # `"...".format(x)` of a run-time Tensor: formatted on the host, as an f-string of it is
        formatted = effects.RunTimeString.str_format(fn.__self__, args, kwargs or {})
        if formatted is not None and not all(isinstance(p, str) for p in formatted.parts):
            return formatted
    if _numpy_call(fn, args, kwargs):
        if ctx.lax and ctx.tracing:  # as MindSpore's graph mode runs `np.mean(x.asnumpy())`: on the host
            return effects.host_call(ctx, _on_arrays(fn), args, kwargs or {})
        raise GraphCompileError(
            f"NumPy's '{getattr(fn, '__name__', fn)}' needs the value of a Tensor, but in graph mode that value is "
            f"only known when the graph runs (jit_syntax_level STRICT or COMPATIBLE). Use Tensor operations, or "
            f"set jit_syntax_level LAX to run it on the host."
        )
    try:
        return call_python(fn, args, kwargs)
    except (*concretization_errors(), RuntimeError) as err:
        if not _needs_run_time_value(err):
            raise
        if ctx.tracing and (ctx.lax or _kiln_operation(fn)):
            return effects.host_call(ctx, fn, args, kwargs or {})
        name = getattr(fn, "__qualname__", None) or type(fn).__name__
        # a method of the Tensor itself (x.asnumpy()) is an attribute the graph's Tensors lack at this level
        error = TensorMethodUnavailable if isinstance(getattr(fn, "__self__", None), Tensor) else GraphCompileError
        raise error(
            f"'{name}' needs the value of a Tensor, but in graph mode that value is only known when the graph "
            f"runs (jit_syntax_level STRICT or COMPATIBLE). Use Tensor operations, or set jit_syntax_level LAX to "
            f"run it on the host. ({type(err).__name__})"
        ) from None


__all__ = ["GraphCallable", "call", "call_cell", "call_user", "is_user_function", "parsed", "run_library"]
