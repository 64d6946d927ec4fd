"""The two ways a Frame runs: a symbolic capture (records a graph) and a concrete Python step.

The capture never leaves a real object changed: a write to a list, dict, attribute, global or closure cell
that existed before is applied (so later reads in the capture see it), logged as a side effect with its
values, and undone when the capture ends; the log is replayed with the graph's concrete outputs on every
call, in program order. `print` is logged the same way.
"""

from __future__ import annotations

import inspect
import types

from kiln._compiler.frontend.ast import calls as ast_calls
from kiln._compiler.frontend.ast.interp import active
from kiln._compiler.frontend.ast.values import MISSING, is_cell
from kiln._compiler.frontend.bytecode import calls as C
from kiln._compiler.frontend.bytecode.instructions import NULL, Frame, GraphBreak, SeqIter
from kiln._compiler.guards import cell_reads
from kiln._core.mutable import dynamic_length_copy
from kiln._core.primitive import edit_guard, watch_edits
from kiln._core.tensor import Tensor

MAX_DEPTH = 24
_EDITS = "primitives changed in place (an attribute they compute with, add_prim_attr, shard)"
_SEQ = (list, tuple, range, str, dict, set, frozenset, type({}.keys()), type({}.values()), type({}.items()))


class Stop(Exception):  # noqa: N818
    """The frame reached the end of its segment (a break point, or the start of capturable work)."""

    def __init__(self, frame) -> None:
        self.frame = frame


def _signature(fn):
    sig = getattr(fn, "__kiln_sig__", None)
    if sig is None:
        sig = inspect.signature(fn, follow_wrapped=False)
        try:
            fn.__kiln_sig__ = sig
        except AttributeError:
            pass
    return sig


def bind(fn, args, kwargs) -> dict:
    """Locals of `fn` for a call (TypeError as Python raises it)."""
    code = fn.__code__
    if code.co_argcount == 1 and code.co_varnames[0] == ".0" and len(args) == 1 and not kwargs:
        return {".0": args[0]}  # a comprehension's function (3.11): its iterator argument
    sig = _signature(fn)
    ba = sig.bind(*args, **(kwargs or {}))
    ba.apply_defaults()
    return dict(ba.arguments)


def var_names(fn) -> list:
    """Names of the *args and **kwargs parameters (their tuple and dict are made by the call)."""
    return [p.name for p in _signature(fn).parameters.values() if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD)]


def closure_cells(fn) -> dict:
    return dict(zip(fn.__code__.co_freevars, fn.__closure__ or (), strict=True))


class Run:
    """What both kinds of run share."""

    symbolic = False
    Stop = Stop

    def __init__(self, fn) -> None:
        self.fn = fn
        self.top = None
        self.passthrough = (Stop,)

    # values, plain Python by default
    def read_global(self, g, name):
        return g[name]

    def write_global(self, g, name, v):
        g[name] = v

    def read_cell(self, frame, cell):
        return cell.cell_contents

    def write_cell(self, frame, cell, v):
        cell.cell_contents = v

    def read_attr(self, obj, name):
        return getattr(obj, name)

    def write_attr(self, obj, name, v):
        if v is MISSING:
            delattr(obj, name)
        else:
            setattr(obj, name, v)

    def is_local(self, obj) -> bool:
        return True

    def mutate(self, obj, name, args, kwargs=None):
        return getattr(obj, name)(*args, **(kwargs or {}))

    def operate(self, op, *args):
        return op(*args)

    def subscript(self, obj, key):
        return obj[key]

    def truth(self, v) -> bool:
        return bool(v)

    def read_container(self, obj) -> None:
        pass

    def iterate(self, v):
        if type(v) in (list, tuple, range):
            return SeqIter(tuple(v))
        return iter(v)

    def unpackable(self, v):
        return tuple(v)

    def fresh_obj(self, x):
        return x

    def format(self, v, spec):
        return format(v, spec)

    def with_methods(self, mgr):
        t = type(mgr)
        for name in ("__enter__", "__exit__"):
            if not hasattr(t, name):  # Python's own error is a TypeError
                raise TypeError(f"a 'with' statement needs a context manager, but '{t.__name__}' has no {name}()")
        return t.__enter__.__get__(mgr), t.__exit__.__get__(mgr)


class ConcreteRun(Run):
    """A Python step: real values, real calls; user functions go back through bytecode capture."""

    def __init__(self, fn, runner, stop: bool = True) -> None:
        super().__init__(fn)
        self.runner = runner  # runner(fn, args, kwargs): a user function call, captured on its own
        self.stops = stop

    def should_stop(self, frame, ins, first: bool) -> bool:
        if first or not self.stops or frame is not self.top:
            return False
        return capturable_next(frame, ins)

    def call(self, frame, fn, args, kwargs):
        kind, detail = C.classify(fn, args, kwargs)
        if kind == "inline":
            f, a = detail
            return self.runner(f, a, kwargs)
        if kind == "cell" and not _has_hooks(fn):
            return self.runner(detail, [fn, *args], kwargs)
        return fn(*args, **kwargs)


def _has_hooks(cell) -> bool:
    d = cell.__dict__
    return bool(
        d.get("_forward_pre_hooks")
        or d.get("_forward_hooks")
        or getattr(type(cell), "bprop", None)
        or d.get("_recompute")
        or "_float_dtype" in d
        or "_amp_auto" in d
    )


_OPERAND_OPS = {
    "BINARY_OP": 2, "COMPARE_OP": 2, "BINARY_SUBSCR": 2, "CONTAINS_OP": 2, "UNARY_NEGATIVE": 1,
    "UNARY_INVERT": 1, "UNARY_POSITIVE": 1, "BINARY_SLICE": 3, "STORE_SUBSCR": 3,
}  # fmt: skip


def capturable_next(frame, ins) -> bool:
    """Would `ins` do Tensor work a graph should capture (so the Python step ends before it)?"""
    op = ins.opname
    s = frame.stack
    n = _OPERAND_OPS.get(op)
    if n is not None:
        return any(isinstance(v, Tensor) and not C.has_tensor(()) for v in s[-n:])
    if op in ("KW_NAMES", "PRECALL"):  # 3.11/3.12: decide before the names are set, on the CALL that follows
        instrs = frame.code.instrs
        j = frame.cur + 1
        while j < len(instrs) and instrs[j].opname in ("PRECALL", "CACHE"):
            j += 1
        if j >= len(instrs) or instrs[j].opname != "CALL":
            return False
        ins = instrs[j]
        op = "CALL"
    if op in ("CALL", "CALL_KW"):
        if frame.kw_names:
            return False
        argc = ins.arg + (1 if op == "CALL_KW" else 0)
        if len(s) < argc + 2:
            return False
        a, b = s[-argc - 2], s[-argc - 1]
        fn = b if a is NULL else a
        args = s[-argc:] if argc else []
        kind, _ = C.classify(fn, args, {})
        if kind in ("inline", "cell"):
            return True
        if kind == "direct":
            return C._kiln(getattr(fn, "__func__", fn)) or C.has_tensor(args)
    return False


class SymbolicRun(Run):
    """A capture: Tensors are symbolic; writes to pre-existing objects are logged and undone."""

    symbolic = True

    def __init__(self, fn, forced: set, guards, closure_owner=None) -> None:
        super().__init__(fn)
        self.forced = forced  # instruction indices of the top frame where the segment ends
        self.guards = guards
        # `closure_owner.closure` is the closure of the call being run: set where segments are shared by every
        # function made from one code object, whose free cells differ from call to call
        self.closure_owner = closure_owner
        self.effects: list = []  # (kind, ...) in program order, values as live objects
        self.undo: list = []
        self.snapshots: dict = {}  # id(container) -> copy before its first write
        self.external: dict = {}  # id(container from the entry state) -> ("entry", path)
        self.entry_tensors: dict = {}  # id(Tensor) -> (path, tensor, data at entry)
        self.fresh: set = set()
        self.keep: list = []  # keeps fresh and rebuilt objects alive (their ids stay unique)
        self.written: set = set()
        self.depth = 0
        self.break_pc = None

    def should_stop(self, frame, ins, first: bool) -> bool:
        return frame is self.top and frame.cur in self.forced

    # -- reads (with guards) ---------------------------------------------------------------------
    def read_global(self, g, name):
        v = g[name]
        if (id(g), name) not in self.written:
            self.guards.global_(g, name, v, g.get("__name__", "") if "__name__" in g else "builtins")
        return v

    def read_cell(self, frame, cell):
        v = cell.cell_contents
        if id(cell) not in self.fresh and (id(cell), None) not in self.written:
            name = next((k for k, c in frame.cells.items() if c is cell), "?")
            index = self.free_index(cell)
            if index is None:
                self.guards.cell(cell, v, name)
            else:
                self.guards.free_var(self.closure_owner, index, v, name)
        return v

    def free_index(self, cell) -> int | None:
        """The position of `cell` in the captured function's closure when its segments are shared (else None)."""
        if self.closure_owner is None:
            return None
        return next((i for i, c in enumerate(self.fn.__closure__ or ()) if c is cell), None)

    def read_attr(self, obj, name):
        v = getattr(obj, name)
        if isinstance(obj, Tensor) or id(obj) in self.fresh or (id(obj), name) in self.written:
            return v
        if isinstance(v, (types.MethodType, types.BuiltinMethodType)) and getattr(v, "__self__", None) is obj:
            return v  # a method of an object keyed by identity: its class decides it
        self.guards.attr(obj, name, v)
        return v

    def read_container(self, obj) -> None:
        if type(obj) not in (list, dict, set) or id(obj) in self.fresh or id(obj) in self.external:
            return
        snap = self.snapshots.get(id(obj))
        if snap is None:
            snap = obj.copy()
        self.guards.contents(obj, snap, f"{type(obj).__name__} {_short(obj)}")

    def is_local(self, obj) -> bool:
        return id(obj) in self.fresh

    def fresh_obj(self, x):
        self.fresh.add(id(x))
        self.keep.append(x)
        return x

    # -- writes (applied, logged, undone at the end) ----------------------------------------------
    def _snapshot(self, obj) -> None:
        if id(obj) in self.snapshots:
            return
        snap = obj.copy()
        self.snapshots[id(obj)] = snap
        self.keep.append(obj)

        def restore(obj=obj, snap=snap):
            if isinstance(obj, list):
                obj[:] = snap
            else:
                obj.clear()
                obj.update(snap)

        self.undo.append(restore)

    def _ref(self, obj):
        return self.external.get(id(obj)) or ("c", obj)

    def mutate(self, obj, name, args, kwargs=None):
        kwargs = kwargs or {}
        if isinstance(obj, Tensor) or id(obj) in self.fresh:
            return getattr(obj, name)(*args, **kwargs)
        if type(obj) not in (list, dict, set) and not hasattr(obj, "copy"):
            raise GraphBreak(f"{name} on a {type(obj).__name__} that existed before the call", "")
        if name not in ("append", "extend", "add", "update", "insert", "clear", "appendleft"):
            self.read_container(obj)
        if id(obj) not in self.external:
            self._snapshot(obj)
        out = getattr(obj, name)(*args, **kwargs)
        self.effects.append(("call", self._ref(obj), name, list(args), dict(kwargs)))
        return out

    def write_global(self, g, name, v):
        old = g.get(name, MISSING)
        self.undo.append(lambda: g.__setitem__(name, old) if old is not MISSING else g.pop(name, None))
        g[name] = v
        self.written.add((id(g), name))
        self.effects.append(("global", g, name, v))

    def write_cell(self, frame, cell, v):
        if id(cell) in self.fresh:
            cell.cell_contents = v
            return
        try:
            old = cell.cell_contents
        except ValueError:
            old = MISSING

        def restore():
            if old is MISSING:
                del cell.cell_contents
            else:
                cell.cell_contents = old

        self.undo.append(restore)
        cell.cell_contents = v
        self.written.add((id(cell), None))
        index = self.free_index(cell)
        if index is None:
            self.effects.append(("cell", cell, v))
        else:  # replayed into the cell of the call that runs the segment
            self.effects.append(("freevar", self.closure_owner, index, v))

    def write_attr(self, obj, name, v):
        if id(obj) in self.fresh:
            return super().write_attr(obj, name, v)
        if isinstance(obj, Tensor):
            raise GraphBreak(f"setting attribute '{name}' of a Tensor", "")
        old = obj.__dict__.get(name, MISSING) if hasattr(obj, "__dict__") else MISSING
        if old is MISSING and is_cell(obj):
            old = obj.__dict__.get("_params", {}).get(name, obj.__dict__.get("_cells", {}).get(name, MISSING))

        def restore():
            if old is MISSING:
                try:
                    delattr(obj, name)
                except AttributeError:
                    pass
            else:
                object.__setattr__(obj, name, old) if not is_cell(obj) else setattr(obj, name, old)

        self.undo.append(restore)
        super().write_attr(obj, name, v)
        self.written.add((id(obj), name))
        self.effects.append(("setattr", obj, name, v))

    def undo_all(self) -> None:
        for fn in reversed(self.undo):
            fn()
        self.undo.clear()

    # -- operations ---------------------------------------------------------------------------
    def operate(self, op, *args):
        for a in args:
            if type(a) in (list, dict, set):
                self.read_container(a)
        if isinstance(args[0], (str, bytes)) and len(args) == 2 and C.has_tensor([args[1]]):
            # "%s" % x: the text holds the Tensor's value, known only when the graph runs
            raise GraphBreak("formatting a Tensor as text reads its value", C.HOST_HINT)
        return op(*args)

    def subscript(self, obj, key):
        self.read_container(obj)
        return obj[key]

    def truth(self, v) -> bool:
        if isinstance(v, Tensor):
            raise GraphBreak("a Tensor decides a Python branch (bool(Tensor))", C.HOST_HINT)
        self.read_container(v)
        return bool(v)

    def iterate(self, v):
        if isinstance(v, Tensor):
            return self.fresh_obj(SeqIter(tuple(v)))
        if type(v) in _SEQ or type(v).__name__ in ("zip", "enumerate", "map", "filter", "reversed"):
            self.read_container(v)
            return self.fresh_obj(SeqIter(tuple(v)))
        if type(v) is SeqIter:
            return v
        raise GraphBreak(f"iteration over a {type(v).__name__}", "iterate over a list, tuple, range or dict")

    def unpackable(self, v):
        self.read_container(v)
        return tuple(v)

    def format(self, v, spec):
        if isinstance(v, Tensor):
            raise GraphBreak("formatting a Tensor as text reads its value", C.HOST_HINT)
        return format(v, spec)

    def with_methods(self, mgr):
        t = type(mgr)
        enter = getattr(t, "__enter__", None)
        if C.is_user_function(enter) or C._kiln(enter):
            return t.__enter__.__get__(mgr), t.__exit__.__get__(mgr)
        raise GraphBreak(f"with {t.__name__}(...)", "enter the context outside jit, or use a user-defined one")

    # -- calls ---------------------------------------------------------------------------------
    def call(self, frame, fn, args, kwargs):
        kind, detail = C.classify(fn, args, kwargs)
        if kind == "inline":
            f, a = detail
            return self.inline(frame, f, a, kwargs)
        if kind == "cell":
            if _has_hooks(fn):
                return ast_calls.call_cell(active(), fn, list(args), kwargs)
            return self.inline(frame, detail, [fn, *args], kwargs)
        if kind == "print":
            self.effects.append(("print", [_snap(a) for a in args], dict(kwargs)))
            return None
        if kind == "mutate":
            owner, name = detail
            return self.mutate(owner, name, args, kwargs)
        if kind == "break":
            raise GraphBreak(*detail)
        for a in (*args, *kwargs.values()):
            if type(a) in (list, dict, set):
                self.read_container(a)
        if isinstance(fn, type) and fn.__module__ != "builtins" and not C.has_tensor((*args, *kwargs.values())):
            # An object built inside the capture (a Cell: its Parameters are constants of this graph).
            return self.fresh_obj(ast_calls._construct(active(), fn, args, kwargs))
        if is_cell(fn) and id(fn) not in self.fresh:
            # A library Cell runs as Python: its branches on the training mode are baked into the graph.
            for _, c in fn.cells_and_names():
                self.guards.attr(c, "training", c.training)
                for container, key, value in cell_reads(c):
                    self.guards.add("dict", container, key, value, f"attribute '{key}' of {type(c).__name__}")
        if getattr(type(fn), "_counts_edits", False):  # a Primitive: its attributes are read as Python, not guarded
            watch_edits(fn)
            self.guards.add("dict", *edit_guard(fn), _EDITS)
        copy = dynamic_length_copy(fn, args, kwargs)
        if copy is not None:  # tuple()/list() of a sequence declared variable-length stays so
            return self.fresh_obj(copy)
        out = fn(*args, **kwargs)
        if type(out) in (list, dict, set) and (fn in C.FRESH_RESULT or C._kiln(fn)):
            self.fresh_obj(out)
        elif isinstance(fn, type) and fn.__module__ != "builtins" and not isinstance(out, Tensor):
            self.fresh_obj(out)
        return out

    def inline(self, frame, fn, args, kwargs):
        if self.depth >= MAX_DEPTH:
            raise GraphBreak(f"call depth over {MAX_DEPTH} while inlining '{fn.__qualname__}'", "")
        locals_ = bind(fn, args, kwargs)
        for name in var_names(fn):
            self.fresh_obj(locals_[name])
        child = Frame(self, fn, locals_, closure_cells(fn), [], 0, frame)
        self.depth += 1
        try:
            return child.run()
        finally:
            self.depth -= 1


def _snap(v):
    """A print argument as it is now (a Tensor's current value, a list's current items)."""
    if isinstance(v, Tensor):
        return Tensor._wrap(v._data) if type(v) is Tensor else v
    if type(v) in (list, tuple):
        return type(v)(_snap(x) for x in v)
    return v


def _short(obj) -> str:
    return f"(len {len(obj)})"
