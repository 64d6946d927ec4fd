"""Host interaction from inside a graph: run-time `print` and LAX host calls."""

from __future__ import annotations

import builtins
import operator
import string
import weakref

import numpy as np

from kiln._backend.callbacks import guarded
from kiln._compiler.errors import GraphCompileError, HostShapeChanged
from kiln._compiler.guards import HOST_SHAPES, host_shapes
from kiln._compiler.ir import graph as G
from kiln._compiler.lower import eval_graph
from kiln._core.tensor import Tensor
from kiln._core.tree import format_field
from kiln._pynative.autograd import run_with_grad


class _Struct:
    __slots__ = ("shape", "dtype")

    def __init__(self, shape, dtype) -> None:
        self.shape, self.dtype = tuple(shape), np.dtype(dtype)


class RunTimeString:
    """An f-string of Tensors whose values are known only when the graph runs: its pieces (text, or a Tensor
    with its conversion and format spec), formatted on the host where `print` shows it."""

    __slots__ = ("parts",)

    def __init__(self, parts: list) -> None:
        self.parts = parts

    @classmethod
    def formatted(cls, value: Tensor, conversion: int, spec: str) -> RunTimeString:
        """`f"{value!conversion:spec}"`."""
        return cls([(value, conversion, spec)])

    @classmethod
    def join(cls, pieces: list) -> RunTimeString:
        """The concatenation of strings and run-time strings."""
        parts: list = []
        for p in pieces:
            parts.extend(p.parts if isinstance(p, RunTimeString) else [str(p)])
        return cls(parts)

    @classmethod
    def str_format(cls, template: str, args: list, kwargs: dict) -> RunTimeString | None:
        """`template.format(*args, **kwargs)` with Tensors whose values are known only at run time; None when a
        field is more than an index or a name (`{0.attr}`, `{x[1]}`, a nested spec): the caller formats as usual.
        """
        parts: list = []
        auto = iter(range(len(args)))
        for literal, field, spec, conversion in _FORMATTER.parse(template):
            if literal:
                parts.append(literal)
            if field is None:
                continue
            if "{" in (spec or "") or any(c in field for c in ".["):
                return None
            key = next(auto, None) if field == "" else int(field) if field.isdigit() else field
            if key is None or (key not in kwargs if isinstance(key, str) else key >= len(args)):
                return None  # Python's own error, from the usual call
            value = kwargs[key] if isinstance(key, str) else args[key]
            code = _CONVERSIONS[conversion]
            if isinstance(value, Tensor) and type(value._data) is G.Var:
                parts.append((value, code, spec or ""))
            else:
                parts.append(format_value(value, code, spec or ""))
        return cls(parts)

    def __str__(self) -> str:  # what it reads as while compiling (e.g. in an error message)
        return "".join(p if isinstance(p, str) else str(p[0]) for p in self.parts)

    def __len__(self) -> int:
        # its length depends on the Tensors' values: under LAX the call becomes a host step (calls.run_library)
        raise RuntimeError("len() of an f-string of Tensors needs their values, symbolic inside a compiled graph.")


_FORMATTER = string.Formatter()
_CONVERSIONS = {None: -1, "s": 115, "r": 114, "a": 97}  # str.format's conversions as f-strings' codes


# One f-string field: `value` converted (`!s`, `!r`, `!a` by their code points; -1 for none), then formatted (the
# pytrees' ("f", pieces) templates format a graph's returned strs the same way)
format_value = format_field


def _split(values):
    """(static template, arrays): Tensors (also inside run-time f-strings) become holes filled at run time."""
    arrays, template = [], []
    for v in values:
        if isinstance(v, Tensor):
            template.append(("t", len(arrays), v.dtype))
            arrays.append(v._data)
        elif isinstance(v, RunTimeString):
            pieces = []
            for p in v.parts:
                if isinstance(p, str):
                    pieces.append(p)
                else:
                    pieces.append((len(arrays), p[1], p[2]))
                    arrays.append(p[0]._data)
            template.append(("f", pieces))
        else:
            template.append(("c", v))
    return template, arrays


def _tensor_of(array) -> Tensor:
    return Tensor(np.asarray(array))


def _fill(template, arrays, numpy_values: bool = False):
    out = []
    for entry in template:
        if entry[0] == "t":
            value = np.asarray(arrays[entry[1]])
            out.append(value if numpy_values else Tensor(value))
        elif entry[0] == "f":
            text = (p if isinstance(p, str) else format_value(_tensor_of(arrays[p[0]]), p[1], p[2]) for p in entry[1])
            out.append("".join(text))
        else:
            out.append(entry[1])
    return out


def print_(ctx, args, kwargs, numpy_values: bool = False):
    """`print` in a graph: a host callback equation, so it prints when the graph runs, in program order,
    and only when its branch is taken (once per trip in a loop). `numpy_values`: Tensors print as NumPy
    arrays (`ops.Print`)."""
    template, arrays = _split(args)
    trace = G.current()
    if not ctx.tracing or trace is None:
        builtins.print(*(a.asnumpy() if numpy_values and isinstance(a, Tensor) else a for a in args), **kwargs)
        return None

    def host(*values):
        builtins.print(*_fill(template, values, numpy_values), **kwargs)

    trace.emit("callback", arrays, [], {"fn": host})
    return None


def host_call(ctx, fn, args, kwargs):
    """LAX: `fn` needs Tensor values only known when the graph runs: it becomes a host callback.

    Its result type comes from running it once, at compile time, on the real inputs of the call being
    compiled (the recorded graph so far evaluated on that call's arguments); that result also serves
    that first run, so `fn` runs exactly once per call, in program order. Inside a branch or loop whose
    condition is a Tensor, whose inputs are known only at run time, that one typing run is on zeros of
    the inputs' shapes and dtypes, and every run when the graph runs calls `fn` again.

    The result's shape may depend on the values (masked_select): the program holds a guard on the shapes it was
    compiled for (`HOST_SHAPES`), and a run whose host step gives other shapes applies nothing, records them and
    raises HostShapeChanged, so that the call is traced and compiled again, as for an input of a new shape.
    """
    owner = getattr(fn, "__self__", None)
    if isinstance(owner, Tensor):  # a Tensor method (t.asnumpy()): the Tensor is an input too
        fn, args = fn.__func__, [owner, *args]
    flat_args = list(args) + list(kwargs.values())
    template, arrays = _split(flat_args)
    n_pos = len(args)
    keys = list(kwargs)
    trace = G.current()

    def call_host(*values):
        filled = _fill(template, values)
        return fn(*filled[:n_pos], **dict(zip(keys, filled[n_pos:], strict=True)))

    if _knowable(ctx, trace):
        inputs = _concrete(ctx, trace, arrays)
    else:
        # Inside a branch or loop whose condition is a Tensor the call's real inputs are not known while
        # compiling: its result type comes from one run on zeros of their shapes.
        if any(not isinstance(d, int) for a in arrays for d in np.shape(a)):
            name = getattr(fn, "__qualname__", None) or type(fn).__name__
            raise GraphCompileError(
                f"'{name}' needs the value of a Tensor whose shape is known only at run time (set_inputs with None "
                f"dimensions); graph mode cannot run it on the host. Use Tensor operations, or static shapes."
            )
        inputs = [np.zeros(a.shape, a.dtype) if G.is_symbolic(a) else np.asarray(a) for a in arrays]
    with G.recording(None):
        first = call_host(*inputs)
    out_template, out_structs = _result_spec(first)
    _, first_flat = _result_spec(first, concrete=True)
    name = getattr(fn, "__qualname__", None) or type(fn).__name__
    site = _host_site(ctx, trace, name)
    seen = HOST_SHAPES.get(site)
    if not _knowable(ctx, trace) and seen is not None and len(seen) == len(out_structs):
        # typed on zeros: the shapes its runs gave are the better guess (a new one compiles again)
        out_structs = [_Struct(shape, s.dtype) for shape, s in zip(seen, out_structs, strict=True)]
        first_flat = [np.zeros(s.shape, s.dtype) for s in out_structs]
    shapes = host_shapes(tuple(s.shape for s in out_structs))
    if seen is not shapes:
        HOST_SHAPES[site] = seen = shapes
    ctx.guard(HOST_SHAPES, site, seen)
    # the first run's result, already computed (never reused from a run on zeros); a new shape compiles again
    pending = [(inputs, first_flat)] if _knowable(ctx, trace) else []

    def shaped(flat):
        if any(np.shape(x) != s.shape for x, s in zip(flat, out_structs, strict=True)):
            HOST_SHAPES[site] = host_shapes(tuple(np.shape(x) for x in flat))
            raise HostShapeChanged(
                f"the host step '{name}' gave results of shapes {HOST_SHAPES[site]}, not {shapes}", site
            )
        # the shapes of this run (a kept program may have run after another's): the next call's guards pick it
        HOST_SHAPES[site] = shapes
        return tuple(np.asarray(x, dtype=s.dtype) for x, s in zip(flat, out_structs, strict=True))

    def host(*values):
        if pending:
            known, result = pending.pop()
            if all(np.array_equal(np.asarray(v), np.asarray(k)) for v, k in zip(values, known, strict=True)):
                return shaped(result)
        return shaped(_result_spec(call_host(*values), concrete=True)[1])

    vjp = _host_vjp(fn, template, n_pos, keys, [np.dtype(a.dtype) for a in arrays], out_structs)
    params = {"fn": guarded(host, f"the host step '{name}'", fn), "first": first_flat, "name": name, "vjp": vjp}
    outs = trace.emit("host_call", arrays, [(st.shape, st.dtype) for st in out_structs], params)
    return _rebuild(out_template, iter(outs))


def _host_site(ctx, trace: G.Trace, name: str) -> tuple:
    """The key of this host step: the user's line that called it, and how many times this compile reached it."""
    loc = trace.loc
    where_ = (loc.file, loc.line, loc.col) if loc is not None else ("?", 0, 0)
    key = (name, *where_)
    visits = ctx.host_visits.get(key, 0)
    ctx.host_visits[key] = visits + 1
    return (*key, visits)


def _inexact(dtype) -> bool:
    return np.issubdtype(dtype, np.inexact)


def _host_vjp(fn, template: list, n_pos: int, keys: list, in_dtypes: list, out_structs: list):
    """The host step's pullback, run on the host too: `fn` again on the step's inputs under a PyNative gradient,
    weighted by the cotangents of its float results. A data-dependent-shape op with a known pullback (masked_select,
    a boolean-mask or nonzero-indexed gather) differentiates this way: its result shape is known when it runs.

    The returned function takes the step's inputs, then the cotangents of its float results, and gives the
    gradients of its float inputs (integer and boolean inputs, e.g. a mask, have none)."""
    wanted = [i for i, d in enumerate(in_dtypes) if _inexact(d)]
    float_out = [s for s in out_structs if _inexact(s.dtype)]
    n_in = len(in_dtypes)

    def vjp(*values_and_cts):
        values, cts = values_and_cts[:n_in], values_and_cts[n_in:]
        tensors = tuple(Tensor(np.asarray(v)) for v in values)

        def forward(*ts):
            filled = _fill(template, values)
            for i, entry in enumerate(template):  # the watched Tensors themselves: the tape follows them through fn
                if entry[0] == "t":
                    filled[i] = ts[entry[1]]
            out = fn(*filled[:n_pos], **dict(zip(keys, filled[n_pos:], strict=True)))
            leaves: list = []
            _float_leaves(out, leaves)
            return tuple(leaves)

        sens = tuple(Tensor(np.asarray(c, dtype=s.dtype)) for c, s in zip(cts, float_out, strict=True))
        with G.recording(None):
            _, grads, _ = run_with_grad(forward, tensors, tuple(wanted), [], sens=sens)
        return tuple(np.asarray(g.asnumpy(), dtype=in_dtypes[i]) for g, i in zip(grads, wanted, strict=True))

    return vjp


def _float_leaves(value, found: list) -> None:
    """The float leaves of a host step's result as Tensors, in `_result_spec`'s flat order (a leaf that is not a
    Tensor is a constant: its gradient is zero)."""
    if isinstance(value, (tuple, list)):
        for v in value:
            _float_leaves(v, found)
    elif isinstance(value, Tensor):
        if value.dtype.kind in "fc":
            found.append(value)
    elif isinstance(value, float) or (isinstance(value, (np.ndarray, np.generic)) and _inexact(value.dtype)):
        found.append(Tensor(np.asarray(value, np.float32 if isinstance(value, float) else value.dtype)))


def _concrete(ctx, trace: G.Trace, arrays: list) -> list:
    """The values `arrays` have in the call being compiled: the graph so far, evaluated on its inputs."""
    wanted = [trace.lift(a) for a in arrays if G.is_symbolic(a)]
    values = iter(_values_of(ctx, trace, wanted))
    return [np.asarray(next(values)) if G.is_symbolic(a) else np.asarray(a) for a in arrays]


def _knowable(ctx, trace: G.Trace) -> bool:
    """True when the compile-time values of `trace`'s Vars are known: the outermost graph of a call's compile,
    or a call recorded in such a graph (a gradient's forward), not a Tensor branch or loop body."""
    if trace.parent is None:
        return ctx.example_leaves is not None
    return trace.outer_inputs is not None and _knowable(ctx, trace.parent)


def _values_of(ctx, trace: G.Trace, wanted: list) -> list:
    """The compile-time values of `wanted` (Vars of `trace`): its equations so far, run on its inputs' values."""
    if not wanted:
        return []
    if trace.parent is None:
        invars, ins = list(trace.invars), [*ctx.example_leaves, *(trace.host_values[k] for k in trace.state_in)]
    else:
        captured = list(trace.captures.values())
        outer = [trace.parent.lift(o) for o in [*trace.outer_inputs, *(o for o, _ in captured)]]
        got = iter(_values_of(ctx, trace.parent, [o for o in outer if G.is_symbolic(o)]))
        ins = [next(got) if G.is_symbolic(o) else o for o in outer]
        invars = [*trace.invars[: len(trace.outer_inputs)], *(inner for _, inner in captured)]
    prefix = G.Graph(invars, list(trace.eqns), wanted)
    with G.recording(None):
        return [np.asarray(v) for v in eval_graph(prefix, ins, replay=True)]


def _result_spec(value, concrete: bool = False):
    flat: list = []

    def walk(v):
        if isinstance(v, (tuple, list)):
            return (type(v), tuple(walk(x) for x in v))
        if isinstance(v, Tensor) or isinstance(v, (np.ndarray, np.generic)) or isinstance(v, (int, float, bool)):
            arr = np.asarray(v.asnumpy() if isinstance(v, Tensor) else v)
            if isinstance(v, float):
                arr = arr.astype(np.float32)
            flat.append(arr if concrete else _Struct(arr.shape, arr.dtype))
            return ("leaf", _python_type(v))
        if v is None:
            return ("none",)
        raise TypeError(f"a host call in graph mode may return Tensors, numbers or tuples, not {type(v).__name__}.")

    return walk(value), flat


def _python_type(v) -> type | None:
    """bool, int or float for a Python scalar result (it leaves the graph as one), else None."""
    for t in (bool, int, float):
        if isinstance(v, t):
            return t
    return None


class HostScalar(Tensor):
    """A Python number a host call returned (`float(x)` of a 0-d Tensor): a 0-d Tensor inside the graph, the
    Python number again where it leaves the graph, as in PyNative."""

    __slots__ = ("py_type",)

    @classmethod
    def of(cls, data: G.Var, py_type: type) -> HostScalar:
        """A 0-d Tensor holding `data` that leaves the graph as `py_type` (see `python_type_of`)."""
        t = object.__new__(cls)
        t._data, t._nodes, t._view_of, t.py_type = data, None, None, py_type
        _PYTHON_TYPES[data] = py_type
        return t


def scalar_type(v) -> type | None:
    """The Python scalar type `v` stands for in a graph (a number, or a `HostScalar`), else None."""
    if isinstance(v, HostScalar):
        return v.py_type
    return type(v) if type(v) in (bool, int, float) else None


def _scalar_arithmetic(name: str, py_op, reflected: bool = False):
    """`HostScalar.<name>`: the Tensor operation, whose result stays a Python number of Python's result type
    when the other operand is one too (`float(x) * 2` is a float, as in PyNative). Tensor's operators are
    installed by kiln.ops after this module loads, so they are looked up at the call."""

    def op(self, other):
        out = getattr(Tensor, name)(self, other)
        other_type = scalar_type(other)
        if other_type is None or not isinstance(out, Tensor):
            return out
        a, b = self.py_type(1), other if type(other) is other_type else other_type(1)
        try:
            py = type(py_op(b, a) if reflected else py_op(a, b))
        except (ZeroDivisionError, OverflowError):
            return out
        return HostScalar.of(out._data, py)

    op.__name__ = name
    return op


def _scalar_unary(name: str, py_op):
    def op(self):
        return HostScalar.of(getattr(Tensor, name)(self)._data, type(py_op(self.py_type(1))))

    op.__name__ = name
    return op


_BINARY = {"add": operator.add, "sub": operator.sub, "mul": operator.mul, "truediv": operator.truediv,
           "floordiv": operator.floordiv, "mod": operator.mod, "pow": operator.pow}  # fmt: skip
_COMPARE = {"lt": operator.lt, "le": operator.le, "gt": operator.gt, "ge": operator.ge, "eq": operator.eq,
            "ne": operator.ne}  # fmt: skip
for _n, _f in _BINARY.items():
    setattr(HostScalar, f"__{_n}__", _scalar_arithmetic(f"__{_n}__", _f))
    setattr(HostScalar, f"__r{_n}__", _scalar_arithmetic(f"__r{_n}__", _f, reflected=True))
for _n, _f in _COMPARE.items():
    setattr(HostScalar, f"__{_n}__", _scalar_arithmetic(f"__{_n}__", _f))
for _n, _f in {"neg": operator.neg, "pos": operator.pos, "abs": operator.abs}.items():
    setattr(HostScalar, f"__{_n}__", _scalar_unary(f"__{_n}__", _f))
HostScalar.__hash__ = Tensor.__hash__  # an __eq__ of its own must not make it unhashable

_PYTHON_TYPES: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()  # graph value -> its Python scalar type


def python_type_of(value) -> type | None:
    """The Python type a graph output leaves as when it is a `HostScalar`'s value, else None (a Tensor)."""
    return _PYTHON_TYPES.get(value) if type(value) is G.Var else None


def _rebuild(desc, it):
    if desc[0] == "leaf":
        if desc[1] is None:
            return Tensor._wrap(next(it))
        return HostScalar.of(next(it), desc[1])
    if desc[0] == "none":
        return None
    return desc[0](_rebuild(d, it) for d in desc[1])
