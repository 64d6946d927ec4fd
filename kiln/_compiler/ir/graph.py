"""Kiln's tensor-level IR and the trace object that records it.

A `Graph` is a list of equations (`Eqn`: primitive, attributes, inputs, outputs
with shape and dtype, the user's source location) between input and output
`Var`s; control flow and transformations are equations too, holding nested
graphs (`cond`, `while`, `grad`, `custom_vjp`, `callback`). While a `Trace` is
active, primitive dispatch appends equations to it instead of running them, and
Parameters and the random key are read and written through it: compiling never
changes a Parameter or the generator, both are explicit inputs and outputs.

Nothing here imports the backend or the rest of the compiler: shapes and dtypes come from each
primitive's abstract evaluation (`PrimitiveDef.abstract_eval`). `kiln._core.tensor` and
`kiln._pynative.dispatch` import this module (a Tensor may hold a `Var`; dispatch appends to the
current `Trace`), so it is the one part of the compiler below `_core`: it must stay a leaf.
"""

from __future__ import annotations

import contextlib
import itertools
from typing import Any

import numpy as np

_ids = itertools.count()


class Var:
    """A symbolic array: what a Tensor holds while a graph is being recorded."""

    __slots__ = ("id", "shape", "dtype", "trace", "__weakref__")

    def __init__(self, shape: tuple, dtype, trace: Trace | None) -> None:
        self.id = next(_ids)
        self.shape = tuple(shape)
        self.dtype = np.dtype(dtype)
        self.trace = trace

    @property
    def ndim(self) -> int:
        return len(self.shape)

    @property
    def size(self) -> int:
        return int(np.prod(self.shape, dtype=np.int64))

    def __repr__(self) -> str:
        return f"%{self.id}"


class Eqn:
    """One operation: `outputs = prim[attrs](*inputs)`.

    `prim` is a PrimitiveDef or the name of a structural operation (cond, while,
    grad, custom_vjp, callback) whose nested graphs and settings live in `params`.
    Inputs are Vars, concrete backend arrays (constants) or Python values.
    """

    __slots__ = ("prim", "attrs", "inputs", "outputs", "params", "loc")

    def __init__(self, prim, attrs: tuple, inputs: list, outputs: list, params: dict | None = None, loc=None):
        self.prim, self.attrs, self.inputs, self.outputs = prim, attrs, inputs, outputs
        self.params = params or {}
        self.loc = loc

    @property
    def name(self) -> str:
        return self.prim if isinstance(self.prim, str) else self.prim.name

    def subgraphs(self) -> list[Graph]:
        return [g for g in self.params.values() if isinstance(g, Graph)]


class Graph:
    """Inputs, equations in program order, outputs (Vars or constants)."""

    __slots__ = ("invars", "eqns", "outvars", "name")

    def __init__(self, invars: list, eqns: list, outvars: list, name: str = "graph") -> None:
        self.invars, self.eqns, self.outvars, self.name = invars, eqns, outvars, name

    def count(self) -> int:
        """Equations here and in nested graphs."""
        return sum(1 + sum(g.count() for g in e.subgraphs()) for e in self.eqns)

    def dtypes(self) -> set[np.dtype]:
        """The dtypes of the inputs and of every equation's outputs, here and in nested graphs."""
        found = {v.dtype for v in self.invars if isinstance(v, Var)}
        for e in self.eqns:
            found.update(v.dtype for v in e.outputs if isinstance(v, Var))
            for g in e.subgraphs():
                found |= g.dtypes()
        return found

    def __str__(self) -> str:
        return "\n".join(_print(self, "", self.name))


# -- the text form ------------------------------------------------------------------------------

_SHORT = {"float16": "f16", "float32": "f32", "float64": "f64", "bfloat16": "bf16", "bool": "bool"}


def _type(shape, dtype) -> str:
    name = np.dtype(dtype).name
    short = _SHORT.get(name) or name.replace("uint", "u").replace("int", "i")
    return f"{short}[{','.join(str(d) for d in shape)}]"


def _operand(x) -> str:
    if type(x) is Var:
        return repr(x)
    shape = getattr(x, "shape", None)
    if shape is not None and hasattr(x, "dtype"):
        if int(np.prod(shape)) == 1:
            return f"{np.asarray(x).reshape(()).item()!r}:{_type(shape, x.dtype)}"
        return f"const:{_type(shape, x.dtype)}"
    return repr(x)


def _print(g: Graph, indent: str, name: str) -> list[str]:
    ins = ", ".join(f"{v!r}: {_type(v.shape, v.dtype)}" for v in g.invars)
    lines = [f"{indent}{name}({ins}) {{"]
    for e in g.eqns:
        outs = ", ".join(f"{o!r}: {_type(o.shape, o.dtype)}" for o in e.outputs) or "()"
        attrs = ""
        if e.attrs and not isinstance(e.prim, str):
            attrs = "[" + ", ".join(f"{k}={v!r}" for k, v in zip(e.prim.attr_names, e.attrs, strict=True)) + "]"
        settings = {k: v for k, v in e.params.items() if not isinstance(v, Graph)}
        if settings:
            attrs += "{" + ", ".join(f"{k}={v!r}" for k, v in settings.items()) + "}"
        where = f"    # {e.loc.file.rsplit('/', 1)[-1]}:{e.loc.line}" if getattr(e.loc, "line", None) else ""
        lines.append(f"{indent}  {outs} = {e.name}{attrs}({', '.join(_operand(x) for x in e.inputs)}){where}")
        for key, sub in e.params.items():
            if isinstance(sub, Graph):
                lines.extend(_print(sub, indent + "    ", key))
    lines.append(f"{indent}  return ({', '.join(_operand(o) for o in g.outvars)})")
    lines.append(f"{indent}}}")
    return lines


# -- state: Parameters and the random key ------------------------------------------------------

RNG = "rng"  # the state key of the random generator (Parameters are keyed by themselves)


class Trace:
    """Records one graph. A nested trace (a branch, a loop body, a differentiated function)
    reads its parent's values as captured inputs.

    Args:
        parent: the enclosing trace, or None for the outermost graph.
        name: display name.
    """

    def __init__(self, parent: Trace | None = None, name: str = "graph") -> None:
        self.parent = parent
        self.name = name
        self.eqns: list[Eqn] = []
        self.invars: list[Var] = []
        # the enclosing graph's values its first inputs stand for, when it records a call on them (not a branch or
        # loop body, whose inputs are known only at run time): a host step inside reads their compile-time values
        self.outer_inputs: list | None = None
        self.captures: dict[int, tuple[Any, Var]] = {}  # id(outer var) -> (outer var, inner var)
        self.state_in: dict = {}  # state key -> Var read on entry (inner)
        self.state: dict = {}  # state key -> current value (Var or array)
        self.state_objs: dict = {}  # state key -> the Parameter (or RNG)
        self.loc = parent.loc if parent is not None else None
        self.frontend = parent.frontend if parent is not None else None
        self.host_values: dict = {}  # state key -> concrete value, outermost trace only
        self.const_ids: set = parent.const_ids if parent is not None else set()
        # key -> plain Tensor written in a nested graph (joined like state; a `raise` does not keep it); holding the
        # Tensor keeps its id from being reused while the graph is recorded
        self.tensor_keys: dict = parent.tensor_keys if parent is not None else {}
        # key -> (input Tensor, its input Var) of a program that writes its input Tensors back to the caller's
        self.input_tensors: dict = parent.input_tensors if parent is not None else {}
        # id(Cell) -> (Cell, record): the last forward call of each Cell in this graph, for a gradient of it on the
        # same arguments to replay (autograd.note_forward); kept here, it goes with the graph once recorded
        self.forwards: dict = {}
        # (Cell, its input signature, @constexpr function, n-th call in that construct, arguments) -> value: one
        # evaluation per call site of a construct per signature in the whole graph (autograd.constexpr_value)
        self.constexpr_sites: dict = parent.constexpr_sites if parent is not None else {}

    # -- values ------------------------------------------------------------------------------
    def new_input(self, shape, dtype) -> Var:
        v = Var(shape, dtype, self)
        self.invars.append(v)
        return v

    def lift(self, x):
        """`x` as a value of this trace: outer Vars become captured inputs."""
        if type(x) is not Var or x.trace is self:
            return x
        entry = self.captures.get(x.id)
        if entry is not None:
            return entry[1]
        if self.parent is None:
            raise RuntimeError(f"internal: value {x} does not belong to this graph")
        outer = self.parent.lift(x)
        inner = Var(x.shape, x.dtype, self)
        self.captures[x.id] = (outer, inner)
        return inner

    def bind(self, prim, attrs: tuple, inputs: list):
        """Append `prim(*inputs)`; returns output Var(s) with shapes and dtypes from its declaration."""
        ins = [self.lift(x) for x in inputs]
        out = abstract_eval(prim, attrs, ins)
        if prim.multiple_results:
            outs = [Var(a.shape, a.dtype.np, self) for a in out]
            self.eqns.append(Eqn(prim, attrs, ins, outs, loc=self.loc))
            return tuple(outs)
        o = Var(out.shape, out.dtype.np, self)
        self.eqns.append(Eqn(prim, attrs, ins, [o], loc=self.loc))
        return o

    def emit(self, name: str, inputs: list, out_avals: list, params: dict) -> list[Var]:
        """Append a structural equation (cond, while, grad, ...) with the given output types."""
        ins = [self.lift(x) for x in inputs]
        outs = [Var(s, d, self) for s, d in out_avals]
        self.eqns.append(Eqn(name, (), ins, outs, params, loc=self.loc))
        return outs

    # -- state ---------------------------------------------------------------------------------
    def read_state(self, key, obj, host_value):
        """The current value of a Parameter (or the key) in this graph."""
        v = self.state.get(key)
        if v is not None:
            return v
        if self.parent is None:
            # The outermost graph takes the state as an input on first use.
            v = Var(host_value.shape, host_value.dtype, self)
            self.invars.append(v)
            self.host_values[key] = host_value
        else:
            v = self.lift(self.parent.read_state(key, obj, host_value))
        self.state_in[key] = v
        self.state[key] = v
        self.state_objs[key] = obj
        return v

    def write_state(self, key, obj, value) -> None:
        """Set the current value of a state entry; a plain Tensor written in a nested graph holds its joined
        value itself once it reaches the outermost graph (only nested graphs keep such writes as state)."""
        if self.parent is None and self.tensor_keys.get(key) is obj:
            obj._buf = value  # the Tensor's own array (its `_data` setter would ask the current trace again)
            return
        self.state[key] = value
        self.state_objs[key] = obj

    def write_tensor(self, key, obj, value) -> None:
        """Record a write to the plain Tensor `obj` made in this nested graph as state, joined at its end."""
        self.tensor_keys[key] = obj
        self.write_state(key, obj, value)

    def written_tensor(self, key, obj):
        """The value this graph or an enclosing nested one wrote to the plain Tensor `obj`, as a value of this
        graph; None where none did (the Tensor's own array holds it)."""
        v = self.state.get(key)
        if v is not None or self.parent is None:
            return v
        v = self.parent.written_tensor(key, obj)
        if v is not None:
            v = self.lift(v)
            self.state_in[key] = v
            self.state[key] = v
            self.state_objs[key] = obj
        return v

    def written(self) -> list:
        """State keys whose value changed in this graph."""
        return [k for k, v in self.state.items() if self.state_in.get(k) is not v]

    def carried(self) -> list:
        """State keys this nested graph takes as its own inputs rather than reading them from its parent: a loop
        body's carried Parameters, which earlier trips may have written."""
        if self.parent is None:
            return []
        captured = {id(inner) for _, inner in self.captures.values()}
        return [k for k, v in self.state_in.items() if type(v) is Var and id(v) not in captured]

    def written_so_far(self) -> list:
        """(key, value in this graph) of the state this graph and the graphs enclosing it have written up to
        this point (in a loop body, in earlier trips too): what a `raise` here leaves in the Parameters and in
        the input Tensors written in place (the writes before it happened)."""
        objs: dict = {}
        trace = self
        while trace is not None:
            for k in [*trace.written(), *trace.carried()]:
                if k in trace.tensor_keys:
                    continue
                objs.setdefault(k, trace.state_objs[k])
            trace = trace.parent
        kept = [(k, self.read_state(k, obj, None)) for k, obj in objs.items()]
        for k, (obj, start) in self.input_tensors.items():
            v = self.written_tensor(k, obj) if self.parent is not None else None
            if v is None:
                v = obj._buf
            if v is not start:
                kept.append((k, v))
        return kept

    # -- finishing -----------------------------------------------------------------------------
    def graph(self, outputs: list, extra_inputs: list | None = None) -> Graph:
        """The recorded graph; inputs are the explicit inputs, then captured values (see `captured`)."""
        outs = [self.lift(o) for o in outputs]
        invars = [*self.invars, *(inner for _, inner in self.captures.values()), *(extra_inputs or [])]
        return Graph(invars, self.eqns, outs, self.name)

    def captured(self) -> list:
        """The outer values this graph read, in the order of its captured inputs."""
        return [outer for outer, _ in self.captures.values()]


_TRACES: list = []  # the stack of active traces; None entries suspend recording


def current() -> Trace | None:
    """The trace being recorded, or None (eager execution)."""
    return _TRACES[-1] if _TRACES else None


@contextlib.contextmanager
def recording(trace: Trace | None):
    """Make `trace` current (None: run eagerly, e.g. to build a Cell inside a graph)."""
    _TRACES.append(trace)
    try:
        yield trace
    finally:
        _TRACES.pop()


def is_symbolic(data) -> bool:
    return type(data) is Var


# -- abstract evaluation ------------------------------------------------------------------------

_AVAL_CACHE: dict = {}


def _spec(x):
    if type(x) is Var:
        return ("v", x.shape, x.dtype)
    shape = getattr(x, "shape", None)
    if shape is not None and hasattr(x, "dtype"):
        return ("v", tuple(shape), np.dtype(x.dtype))
    if type(x) in (bool, int, float, complex):
        return (type(x), x)  # 1 == 1.0 == True, but their result types differ
    return x


def abstract_eval(prim, attrs: tuple, inputs: list):
    """Output types of `prim` on these inputs (cached; runs the declaration's check)."""
    try:
        key = (prim, attrs, tuple(_spec(x) for x in inputs))
        hit = _AVAL_CACHE.get(key)
    except TypeError:  # an unhashable Python argument: no caching
        key, hit = None, None
    if hit is not None:
        return hit
    out = prim.abstract_eval(tuple(inputs), attrs)
    if key is not None and len(_AVAL_CACHE) < 50_000:
        _AVAL_CACHE[key] = out
    return out


__all__ = ["RNG", "Eqn", "Graph", "Trace", "Var", "abstract_eval", "current", "is_symbolic", "recording"]
