"""Eager dispatch: a primitive call is recorded in the lazy window, or runs one cached, jitted backend function.

An op that can be deferred goes into the lazy window (kiln/_pynative/lazy.py), which runs the recorded ops as
one compiled program when a value is needed. Any other op runs at once: its kernel's cache key is (primitive,
attribute values); the backend caches again on input shapes and dtypes, so a repeated call costs one lookup and
one launch.
"""

from __future__ import annotations

import hashlib
import math
import os
import sys
import threading

from kiln import _backend as B
from kiln._backend import distributed as BD
from kiln._compiler.errors import outside_frames
from kiln._compiler.ir import graph as G
from kiln._core import dtype as mstype
from kiln._core import known_values
from kiln._core.primitive import REGISTRY, PrimitiveDef, checks_enabled, forward_mode_error, op_error
from kiln._core.tensor import Pending, Tensor
from kiln._pynative import lazy, tape

_compiled: dict[tuple, object] = {}
# (primitive, attributes) kernels kept; the oldest goes first (its executables with it: the backend bounds those
# too). Attributes may hold shapes, so a process meeting ever new shapes would otherwise keep one per shape.
MAX_KERNELS = 4096


def _compile(prim: PrimitiveDef, attrs: tuple):
    """The backend function running `prim` with `attrs`: jitted, and kept on disk between processes when the
    primitive and its attributes have a name that means the same program in every process (`_disk_key`).

    The primitive's `check` runs on the first call of each input signature, before the backend sees the inputs
    (a shape that broadcasts, an axis that wraps, a dtype JAX promotes would otherwise run); later calls with that
    signature find the executable and pay nothing for it."""
    kw = prim.attrs_dict(attrs)
    impl = prim.impl
    fun = (lambda *xs: impl(*xs, **kw)) if kw else impl
    key = _disk_key(prim, attrs)
    first = (lambda *xs: prim.validate(xs, kw)) if _checked_ahead(prim) else None
    label = lazy.LABELS.get(prim) or f"the PyNative kernel of {prim.name}"
    fn = B.cache.persistent_jit(fun, key, label=label, first_call=first)
    if len(_compiled) >= MAX_KERNELS:
        del _compiled[next(iter(_compiled))]
    _compiled[(prim, attrs)] = fn
    return fn


def _checked_ahead(prim: PrimitiveDef) -> bool:
    """Whether `prim`'s check runs before the op on each new input signature: every declared check, but a run-time
    program's (`PROGRAM_NAMES`: a backward plan replayed op by op), which only explains a failure."""
    return prim.check is not None and prim not in PROGRAM_NAMES


def _disk_key(prim: PrimitiveDef, attrs: tuple) -> str | None:
    """`prim`'s name and attribute values as text that names the same computation in any process running
    the same Kiln sources (the cache adds versions, settings and a fingerprint of those sources), or None.

    Only Kiln's own primitives (declared in the `kiln` package with an implementation from Kiln or JAX, and
    the backward primitives derived from them) qualify, and only with attribute values whose text is exact
    (None, bool, int, float, complex, str, NumPy dtypes and scalars, Kiln dtypes, slices and tuples of
    these): anything else — a callable, an array, an object whose repr may hide its content — keeps the
    kernel in memory only.
    """
    root = REGISTRY.get(prim.name.split("Grad[", 1)[0])
    if root is None or (prim is not root and not prim.name.startswith(root.name + "Grad[")):
        return None
    for f in (root.impl, root.custom_vjp):
        if f is not None and not (getattr(f, "__module__", None) or "").startswith(_OWN_MODULES):
            return None
    try:
        text = ",".join(_attr_text(v) for v in attrs)
    except TypeError:
        return None
    return f"{prim.name}({text})"


_OWN_MODULES = ("kiln.", "jax.", "jax._src.")  # code the cache key pins: Kiln's sources, JAX's version
_EXACT = (bool, int, float, complex, str, bytes, type(None))


def _attr_text(v) -> str:
    t = type(v)
    if t in _EXACT:
        return f"{t.__name__}:{v!r}"
    if t is tuple or t is list:
        return f"{t.__name__}[{','.join(_attr_text(x) for x in v)}]"
    if t is slice:
        return f"slice[{_attr_text(v.start)},{_attr_text(v.stop)},{_attr_text(v.step)}]"
    if v is Ellipsis:
        return "..."
    if isinstance(v, B.np.dtype):
        return f"dtype:{v.str}:{v.name}"
    if isinstance(v, B.np.generic):
        return f"{t.__name__}:{v.item()!r}"
    if isinstance(v, mstype.DType):
        return f"mstype:{v.name}"
    raise TypeError(t)


def _bounds_checked(prim: PrimitiveDef, attrs: tuple, arrays: list) -> None:
    """Raise the op's own error when an index or label among `arrays` is out of range.

    The check runs on the host with NumPy on the (small) index inputs only (`Bounds.host_check`):
    it never waits for the op or for earlier device work, which keeps PyNative's pipelining.
    """
    if checks_enabled() and not _idle_check(prim, attrs):
        reads = prim.bounds.reads
        seen = _passed_key(arrays, reads)
        last = _passed.get((prim, attrs))
        if seen is not None and last is not None and last[0] == seen:
            return  # the same (immutable) index arrays passed just before: a training step's labels, step after step
        kw = prim.attrs_dict(attrs)
        ok, detail = prim.bounds.host_check(arrays, kw)
        if not ok:
            raise prim.bounds.error(prim.name, detail, kw)
        if seen is not None:
            if len(_passed) >= 256:
                _passed.clear()
            # the arrays read are kept alive, so that no other array takes their ids
            _passed[(prim, attrs)] = (seen, [a for i, a in enumerate(arrays) if reads is None or i in reads])


# (prim, attrs) -> (`_passed_key` of the inputs that last passed its bounds check, the arrays it read)
_passed: dict[tuple, tuple] = {}
_idle: dict[tuple, bool] = {}  # (prim, attrs) -> whether its bounds check reads no input value (`Bounds.idle`)


def _idle_check(prim: PrimitiveDef, attrs: tuple) -> bool:
    """Whether `prim`'s bounds check has nothing to read with `attrs` (an index of ints and slices: the ints were
    checked before dispatch, and as inputs they change at every trip of a loop, which no passed-check key covers)."""
    key = (prim, attrs)
    idle = _idle.get(key)
    if idle is None:
        test = prim.bounds.idle
        idle = test is not None and bool(test(**prim.attrs_dict(attrs)))
        if len(_idle) >= MAX_KERNELS:
            del _idle[next(iter(_idle))]
        _idle[key] = idle
    return idle


def _passed_key(arrays, reads) -> tuple | None:
    """The inputs of a bounds check as a key: an array the check does not read (`reads`: positions, None for all)
    by shape and dtype (all the check sees of it), one it reads by identity (a backend array never changes), a
    scalar by type and value; None when an input is none of these (a NumPy array may be written in place)."""
    key = []
    for i, a in enumerate(arrays):
        if a is None or type(a) in _EXACT:
            key.append((type(a), a))
        elif reads is not None and i not in reads and type(a) is not B.np.ndarray and hasattr(a, "dtype"):
            key.append((tuple(a.shape), a.dtype))  # a pending or concrete array the check does not read
        elif B.is_array(a) and not B.is_tracer(a):
            key.append(id(a))
        else:
            return None
    return tuple(key)


def apply(prim: PrimitiveDef, args: tuple, attrs: tuple = (), amp_listed: bool = True):
    """Run `prim` on `args` (Tensors, Python scalars, None) and wrap the result.

    While a graph is recorded and an input is symbolic, the op is appended to the graph instead. Otherwise an
    op that can wait is recorded in the lazy window (its outputs' shapes and dtypes are known at once).
    Inside a Cell run in low precision (`running_in`), the floating-point inputs are cast to its dtype first.
    `amp_listed` False: the calling face is, in MindSpore, another Primitive class than the one amp level O1
    lists (ops.matmul is its MatMulExt, not MatMul), so O1 leaves the call as given.

    An op that fails here, in PyNative, fails without the dispatch's frames in its traceback: the user's line and
    the op they called are the last frames shown (`KILN_DEBUG=1` keeps them all).
    """
    try:
        if PRECISION_USED:
            if prim.amp_cast and RUN.dtype is not None:
                args = _in_run_dtype(args, prim.amp_kept(attrs))
            elif RUN.auto is not None and RUN.dtype is None:
                strategy = RUN.auto
                if type(strategy) is Listed:
                    if amp_listed and prim.name in strategy.names:
                        return _run_listed(prim, args, attrs, strategy.dtype)
                elif prim.amp_auto is not None:
                    args = _in_auto_dtype(args, prim.amp_auto, prim.amp_kept(attrs))
        if G._TRACES and G._TRACES[-1] is not None:
            trace = G._TRACES[-1]
            arrays = [a._data if isinstance(a, Tensor) else a for a in args]
            if any(type(x) is G.Var for x in arrays):
                return _record(trace, prim, args, arrays, attrs)
        elif LAZY and prim not in _eager_only and lazy.on_main_thread() and not BD.is_initialized():
            if prim in _deferrable or _can_defer(prim):
                out = _defer(prim, args, attrs)
                if out is not None:
                    return out
        return run_now(prim, args, attrs)
    except Exception as err:
        if not (G._TRACES and G._TRACES[-1] is not None) and os.environ.get("KILN_DEBUG", "") in ("", "0"):
            # a bare raise adds no frame of this function: the traceback ends at the call of the op
            err.with_traceback(outside_frames(err.__traceback__))
        raise


def run_now(prim: PrimitiveDef, args: tuple, attrs: tuple = ()):
    """Run `prim` on `args` through its own kernel at once (recording it on the tape), and wrap the result."""
    fn = _compiled.get((prim, attrs))
    if fn is None:
        fn = _compile(prim, attrs)
    arrays = [a._data if isinstance(a, Tensor) else a for a in args]
    try:
        result = fn(*arrays)  # (its first call with these input types runs the op's check: `_compile`)
        if prim.effect == "host":  # the user's function raises at its line, not at a later read (on a GPU)
            B.callbacks.settle(result)
    except Exception as err:  # the backend's message is rewritten in the op's terms
        raise diagnose(prim, args, attrs, err) from None
    BD.settle(result)  # across processes: this program done on every local device before the next
    if prim.bounds is not None:
        _bounds_checked(prim, attrs, arrays)
    if prim.increments:  # an optimizer step's new global step: its value known on the host (`known_values`)
        known_values.follow(prim.increments, arrays, result if prim.multiple_results else (result,))
    if prim.multiple_results:
        out = tuple(Tensor._wrap(r) for r in result)
    else:
        out = Tensor._wrap(result)
    if prim.effect == "write0":
        target = args[0]
        target._data = result
    if tape.recording:
        if prim.name == "Cast" and _casts_float_to_integer(args[0], out):
            _record_cast_to_integer(args[0], out)
        else:
            tape.record(prim, attrs, args, out)
        if COMPILE_BACKWARD_AHEAD and not tape.FUSED_BACKWARD:
            _backward_ahead(prim, attrs, args, arrays, result)
    return out


class Listed:
    """Amp level O1's strategy (also `custom_mixed_precision`'s white list of Primitive classes): each call of a
    primitive named in `names` runs on its floating-point inputs cast to `dtype` and returns float32 outputs, as
    MindSpore 2.10's O1 rewrites a call of a listed Primitive into casts around it. Equal lists compare equal (a
    compiled graph's guard reads it); names, not declarations, so that the on-disk graph cache can key on it."""

    __slots__ = ("dtype", "names")

    def __init__(self, dtype: mstype.DType, names: frozenset[str]) -> None:
        self.dtype = dtype
        self.names = names

    def __eq__(self, other) -> bool:
        return type(other) is Listed and other.dtype == self.dtype and other.names == self.names

    def __hash__(self) -> int:
        return hash((self.dtype, self.names))


def _run_listed(prim: PrimitiveDef, args: tuple, attrs: tuple, dtype: mstype.DType):
    """`prim` as amp level O1 runs a listed op: its floating-point inputs (but the state it updates) cast to
    `dtype`, its floating-point outputs cast to float32."""
    keep, cast = prim.amp_kept(attrs), REGISTRY["Cast"]
    args = tuple(
        apply(cast, (a,), (dtype.np,)) if isinstance(a, Tensor) and i not in keep and a.dtype.is_floating else a
        for i, a in enumerate(args)
    )
    with auto_precision(None):
        out = apply(prim, args, attrs)

    def back(t):
        return apply(cast, (t,), (mstype.float32.np,)) if isinstance(t, Tensor) and t.dtype.is_floating else t

    return tuple(back(t) for t in out) if prim.multiple_results else back(out)


class _RunState(threading.local):
    """Per thread (a data-loading thread's ops are not the network's): `dtype`, that of the innermost `to_float`
    Cell running now, None outside any. MindSpore's PyNative casts every op's floating-point inputs inside such
    a Cell."""

    dtype: mstype.DType | None = None
    # the strategy of the innermost network run at amp level 'auto' (its low-precision dtype) or O1 (a `Listed`),
    # None outside one (`auto_precision`)
    auto: mstype.DType | Listed | None = None


RUN = _RunState()
# Set once a `to_float` Cell has run in this process: until then `apply` tests this global only (a thread-local
# attribute costs 25 ns more, 1% of a recorded op)
PRECISION_USED = False


class running_in:  # noqa: N801  (a context manager, used as a function)
    """`with running_in(dtype):` the ops this thread dispatches inside cast their floating-point inputs to `dtype`
    (None: no cast, as in a gradient's backward); the dtype outside is restored on exit."""

    __slots__ = ("dtype", "outer")

    def __init__(self, dtype: mstype.DType | None) -> None:
        self.dtype = dtype

    def __enter__(self) -> None:
        global PRECISION_USED
        self.outer = RUN.dtype
        RUN.dtype = self.dtype
        if self.dtype is not None:
            PRECISION_USED = True

    def __exit__(self, *exc) -> None:
        RUN.dtype = self.outer


class auto_precision:  # noqa: N801  (a context manager, used as a function)
    """`with auto_precision(dtype):` the ops this thread dispatches inside follow amp level 'auto' with low-precision
    `dtype` (None: not), as MindSpore's op-level strategy does inside a network given that level
    (`PrimitiveDef.amp_auto`), or level O1's casts when `dtype` is a `Listed`; a `to_float` Cell inside keeps its own
    rule. The outer strategy is restored on exit."""

    __slots__ = ("dtype", "outer")

    def __init__(self, dtype: mstype.DType | None) -> None:
        self.dtype = dtype

    def __enter__(self) -> None:
        global PRECISION_USED
        self.outer = RUN.auto
        RUN.auto = self.dtype
        if self.dtype is not None:
            PRECISION_USED = True

    def __exit__(self, *exc) -> None:
        RUN.auto = self.outer


def auto_dtype() -> mstype.DType | None:
    """The low-precision dtype when amp level 'auto' casts the ops dispatched now, else None (outside such a
    network, at level O1, or inside a `to_float` Cell, whose own rule wins)."""
    strategy = RUN.auto
    return strategy if RUN.dtype is None and type(strategy) is not Listed else None


def _in_auto_dtype(args: tuple, kind: str, keep: frozenset) -> tuple:
    """`args` cast as amp level 'auto' casts an op of `kind` ("low", "full" or "promote"; PrimitiveDef.amp_auto),
    but at the positions `keep`."""
    if kind == "low":
        dt = RUN.auto
    elif kind == "full":
        dt = mstype.float32
    else:
        tensors = [a for i, a in enumerate(args) if isinstance(a, Tensor) and i not in keep]
        floats = [a.dtype for a in tensors if a.dtype.is_floating]
        if not floats:
            return args
        dt = max(floats, key=lambda d: (d.np.itemsize, d != mstype.bfloat16))
    cast = REGISTRY["Cast"]
    out = list(args)
    for i, a in enumerate(args):
        if isinstance(a, Tensor) and i not in keep:
            have = a.dtype
            # "full" lifts only the half-precision dtypes: a float64 input stays float64
            if have != dt and have.is_floating and (kind != "full" or have.np.itemsize == 2):
                out[i] = apply(cast, (a,), (dt.np,))
    return tuple(out)


def _in_run_dtype(args: tuple, keep: frozenset) -> tuple:
    """`args` with each floating-point Tensor cast to `RUN.dtype`, but at the positions `keep` (the state the op
    updates: `PrimitiveDef.amp_keep`)."""
    dt, cast = RUN.dtype, REGISTRY["Cast"]
    out = list(args)
    for i, a in enumerate(args):
        if isinstance(a, Tensor) and i not in keep:
            have = a.dtype
            if have != dt and have.is_floating:
                out[i] = apply(cast, (a,), (dt.np,))
    return tuple(out)


# Off in a job of several processes (each program waits for the one before: `BD.settle`)
LAZY = lazy.ENABLED
_deferrable: set[PrimitiveDef] = set()
_eager_only: set[PrimitiveDef] = set()


def _can_defer(prim: PrimitiveDef) -> bool:
    """Whether `prim` may wait in the lazy window: not when it writes an input in place (a state update must be
    visible at once) or has another effect (a user's function run on the host runs at its line, once: a window runs
    an op whose output is dropped never, and a failed window's ops twice). Remembered per primitive. (An op with
    value bounds checks computed inputs before it waits, pending ones once the window has run: `_defer`.)"""
    ok = prim.effect is None
    (_deferrable if ok else _eager_only).add(prim)
    return ok


def _run_recorded(prim: PrimitiveDef, attrs: tuple, args: tuple):
    """Run one op of a failed window at once, without recording it on the tape again."""
    with tape.pause():
        return run_now(prim, args, attrs)


# Primitives made at run time for a whole compiled program (a backward plan): their names across processes
PROGRAM_NAMES: dict[PrimitiveDef, str | None] = {}


def _kernel_name(prim: PrimitiveDef, attrs: tuple) -> str | None:
    return PROGRAM_NAMES[prim] if prim in PROGRAM_NAMES else _disk_key(prim, attrs)


def forget_program(prim: PrimitiveDef) -> None:
    """Drop what dispatch keeps for a run-time primitive that is no longer used."""
    PROGRAM_NAMES.pop(prim, None)
    lazy.forget(prim)
    _deferrable.discard(prim)
    for key in [k for k in _avals if k[0] is prim]:
        del _avals[key]
    for key in [k for k in _compiled if k[0] is prim]:
        del _compiled[key]


def deferring() -> bool:
    """Whether an op dispatched now may go into the lazy window."""
    return LAZY and lazy.on_main_thread() and not BD.is_initialized() and not (G._TRACES and G._TRACES[-1] is not None)


def defer(prim: PrimitiveDef, args: tuple, attrs: tuple = (), avals: tuple | None = None):
    """Record `prim` in the lazy window (see `deferring`): its output Tensor(s), or None when it runs at once.
    `avals`: the outputs' ShapeDtypeStructs when the caller knows them (no abstract evaluation then)."""
    return _defer(prim, args, attrs, avals) if (prim in _deferrable or _can_defer(prim)) else None


WINDOW = lazy.Window(_run_recorded, _kernel_name)
lazy.register(WINDOW)
_avals: dict[tuple, tuple] = {}  # (prim, attrs, input types) -> output abstract values, or _AT_ONCE
_AT_ONCE = ()  # cached for an op whose outputs are too big to wait (`_too_big`); an op has at least one output


def _defer(prim: PrimitiveDef, args: tuple, attrs: tuple, known: tuple | None = None):
    """Record `prim` in the lazy window and return its output Tensor(s), or None when an input cannot wait."""
    window = WINDOW
    with window.lock:
        heavy = lazy.WEIGHTS.get(prim)
        if heavy is not None and window.ops and window.weight + heavy > lazy.MAX_OPS:
            window.flush()  # before the inputs are referenced: they may be this window's outputs
        n_args, n_ops = len(window.args), len(window.ops)
        ref = window.ref
        sig = []  # the inputs' types: with (prim, attrs), the key of the op's output types (unless `known`)
        try:
            if known is None:
                refs = []
                for a in args:
                    refs.append(ref(a))
                    if isinstance(a, Tensor):
                        d = a._buf
                        if type(d) is not Pending:
                            d = d.aval  # (`ref` took it: a concrete backend array) plain attributes, no properties
                        sig.append((d.shape, d.dtype, d.weak_type))
                    else:
                        sig.append(type(a) if a is not None else None)
            else:
                refs = [ref(a) for a in args]
        except (TypeError, AttributeError):
            _forget_args(window, n_args, n_ops)
            return None
        except BaseException:  # an input whose op failed in an earlier window raises that op's error
            _forget_args(window, n_args, n_ops)
            raise
        key = (prim, attrs, tuple(sig))
        avals = _avals.get(key) if known is None else known
        if avals is None:  # a new input signature: the op's check first (a cached one passed it)
            try:
                if _checked_ahead(prim):
                    prim.validate(args, prim.attrs_dict(attrs))
                avals = _abstract_outputs(prim, attrs, args)
            except Exception as err:  # the op's own check, or the backend's shape rule in the op's terms
                _forget_args(window, n_args, n_ops)
                raise diagnose(prim, args, attrs, err) from None
            if _too_big(avals):
                avals = _AT_ONCE
            if len(_avals) >= MAX_KERNELS:  # the oldest signature goes: a full cache must not stop caching
                del _avals[next(iter(_avals))]
            _avals[key] = avals
        elif known is not None and _too_big(avals):
            avals = _AT_ONCE
        if avals is _AT_ONCE:
            _forget_args(window, n_args, n_ops)
            return None
        try:
            later = None if prim.bounds is None else _bounds_checked_ahead(prim, attrs, args, window)
        except BaseException:
            _forget_args(window, n_args, n_ops)
            raise
        pending = window.record(prim, attrs, tuple(refs), avals, later)
        if prim.increments:  # an optimizer step's new global step: its value known before the window runs
            known_values.follow(prim.increments, [a._buf if isinstance(a, Tensor) else a for a in args], pending, True)
        if prim.multiple_results:
            out = tuple(Tensor._wrap(p) for p in pending)
        else:
            out = Tensor._wrap(pending[0])
        if tape.recording:
            if prim.name == "Cast" and _casts_float_to_integer(args[0], out):
                _record_cast_to_integer(args[0], out)
            else:
                tape.record(prim, attrs, args, out)
        weight = window.weight
        if weight >= window.bound or weight >= lazy.MAX_OPS:
            window.full()
    return out


def _forget_args(window: lazy.Window, n_args: int, n_ops: int) -> None:
    """Drop the arguments an op that is not recorded after all appended to `window`; kept when ops were recorded
    since (an op's abstract evaluation that ran Kiln ops on an attribute holding a Tensor): those ops read them."""
    if len(window.ops) == n_ops:
        del window.args[n_args:]


def _too_big(avals: tuple) -> bool:
    """Whether outputs `avals` hold more than `lazy.MAX_DEFERRED_BYTES` (the op then runs at once). Checked when the
    output types are evaluated, so a cached op pays nothing for it."""
    return sum(math.prod(a.shape) * a.dtype.itemsize for a in avals) > lazy.MAX_DEFERRED_BYTES


def _bounds_checked_ahead(prim: PrimitiveDef, attrs: tuple, args: tuple, window: lazy.Window) -> tuple | None:
    """Run `prim`'s value bounds check before the op is recorded (raising the op's own error) and return None; or,
    when an integer input the check reads is still pending in `window`, the check to run once the window has run,
    as `(check, value indices)`: `check(values)`, given those values' arrays, says whether the inputs are in range.
    The window then keeps the op (a check that ended it would cut a step into one program per indexing op), and a
    failed check makes it run op by op, which raises the op's own error at the user's line before any value is read."""
    if not checks_enabled() or _idle_check(prim, attrs):
        return None
    reads = prim.bounds.reads
    arrays, later = [], []
    for i, a in enumerate(args):
        d = a._buf if isinstance(a, Tensor) else a
        if type(d) is Pending and d.array is None and (reads is None or i in reads) and d.dtype.kind in "iu":
            if d.window is not window:  # a value whose op failed: reading it raises that op's error
                arrays.append(d.resolve())
                continue
            later.append((i, d.index))
            arrays.append(None)
            continue
        arrays.append(d.resolve() if type(d) is Pending and d.array is not None else d)
    if not later:
        _bounds_checked(prim, attrs, arrays)
        return None
    kw = prim.attrs_dict(attrs)
    for i, a in enumerate(arrays):  # what the check does not read is a shape and dtype (no pending value kept alive)
        if type(a) is Pending:
            arrays[i] = B.ShapeDtypeStruct(a.shape, a.dtype)

    def check(values) -> bool:
        full = list(arrays)
        for (i, _), v in zip(later, values, strict=True):
            full[i] = v
        return bool(prim.bounds.host_check(full, kw)[0])

    return check, tuple(index for _, index in later)


def _abstract_outputs(prim: PrimitiveDef, attrs: tuple, args: tuple) -> tuple:
    """The output ShapeDtypeStructs of `prim` on `args`, as a tuple: read from the cache folder when an earlier
    process evaluated the same op on the same input types (a warm first step traces nothing), else evaluated
    (and stored for the next process)."""
    specs = []
    for a in args:
        if isinstance(a, Tensor):
            d = a._buf
            weak = d.weak_type if type(d) is Pending else getattr(d, "weak_type", False)
            specs.append(B.ShapeDtypeStruct(tuple(d.shape), d.dtype, weak_type=weak))
        else:
            specs.append(a)
    entry = _avals_entry(prim, attrs, specs)
    if entry is not None:
        stored = B.cache.read(entry)
        if stored is not None:
            try:
                return _avals_from_text(stored.decode())
            except (ValueError, TypeError, UnicodeDecodeError):
                B.cache.discard(entry)
    with B.gc_pause.paused():  # (a trace: see kiln/_backend/gc_pause.py)
        out = B.eval_shape(lazy.traceable(prim, attrs), *specs)  # (the window's program reuses this trace)
    out = tuple(out) if prim.multiple_results else (out,)
    if entry is not None:
        B.cache.write_later(entry, lambda: _avals_text(out).encode())
    return out


def _avals_entry(prim: PrimitiveDef, attrs: tuple, specs: list) -> str | None:
    """The cache folder's entry name for `prim`'s output types on inputs `specs`, or None (no name across
    processes: `_disk_key`)."""
    name = _disk_key(prim, attrs)
    if name is None:
        return None
    parts = []
    for s in specs:
        if type(s) is B.ShapeDtypeStruct:
            parts.append(f"{s.dtype.str}{list(s.shape)}{'w' if s.weak_type else ''}")
        elif s is None or type(s) in (bool, int, float, complex):
            parts.append(type(s).__name__)
        else:
            return None
    text = f"{name}|{','.join(parts)}|{B.cache.env_key()}"
    return "kiln-aval-" + hashlib.sha256(text.encode()).hexdigest()


def _avals_text(avals: tuple) -> str:
    return ";".join(f"{a.dtype.name}:{','.join(map(str, a.shape))}:{int(bool(a.weak_type))}" for a in avals)


def _avals_from_text(text: str) -> tuple:
    out = []
    for part in text.split(";"):
        dtype, shape, weak = part.split(":")
        dims = tuple(int(d) for d in shape.split(",")) if shape else ()
        out.append(
            B.ShapeDtypeStruct(
                dims, B.np.dtype(dtype) if dtype != "bfloat16" else B.jnp.bfloat16, weak_type=weak == "1"
            )
        )
    return tuple(out)


def _casts_float_to_integer(x, out) -> bool:
    return isinstance(x, Tensor) and x.dtype.kind in "fc" and out.dtype.kind not in "fc"


def _record_cast_to_integer(x: Tensor, out: Tensor) -> None:
    """A float cast to an integer type passes its gradient through, cast back (as MindSpore)."""
    dtype = x._buf.dtype

    def rule(cots):
        return (apply(REGISTRY["Cast"], (cots[0],), (dtype,)),)

    tape.record_custom((x,), (out,), rule)


COMPILE_BACKWARD_AHEAD = os.environ.get("KILN_COMPILE_AHEAD", "1").strip().lower() not in ("0", "off", "false", "no")


def _backward_ahead(prim: PrimitiveDef, attrs: tuple, args: tuple, arrays: list, result) -> None:
    """While the forward pass runs, get the backward kernel of the op just recorded ready on a worker thread.

    The tape will dispatch `prim.backward(wanted)` on (*inputs, *output cotangents); the cotangents have the
    outputs' shapes and dtypes, so the outputs stand for them here. `wanted` is predicted as "the inputs
    that have a node at the (single) active level"; a wrong guess only costs an unused compile. (Off while
    the backward runs as one program, `tape.FUSED_BACKWARD`: these kernels would then go unused.)
    """
    levels = tape._active
    if len(levels) != 1:
        return
    lv = levels[0]
    wanted = tuple(isinstance(a, Tensor) and a._nodes is not None and lv in a._nodes for a in args)
    if not any(wanted):
        return
    outs = result if prim.multiple_results else (result,)
    for o in outs:
        if getattr(o, "dtype", None) is None or o.dtype.kind not in "fc":
            return  # integer outputs get float cotangents made at backward time: no stand-in here
    bwd = prim.backward(wanted)
    fn = _compiled.get((bwd, attrs))
    if fn is None:
        fn = _compile(bwd, attrs)
    ahead = getattr(fn, "compile_ahead", None)
    if ahead is not None:
        ahead(*arrays, *outs)


def _record(trace, prim: PrimitiveDef, args: tuple, arrays: list, attrs: tuple):
    try:
        result = trace.bind(prim, attrs, arrays)
    except Exception as err:  # the op's own check, or the backend's shape rule in the op's terms
        raise diagnose(prim, args, attrs, err) from None
    out = tuple(Tensor._wrap(r) for r in result) if prim.multiple_results else Tensor._wrap(result)
    if prim.effect == "write0":
        args[0]._data = result
    return out


def _abstract(x):
    return x._data if isinstance(x, Tensor) else x


def _args_text(args, tensor_text) -> list[str]:
    """Each argument as text: `tensor_text(t)` for a Tensor, repr for anything else."""
    return [tensor_text(a) if isinstance(a, Tensor) else repr(a) for a in args]


def describe(args) -> str:
    """The arguments of an op as an error message shows them (`Tensor[Float32][2, 3], 1.0`)."""
    return ", ".join(_args_text(args, lambda t: f"Tensor[{t.dtype}]{list(t.shape)}"))


def diagnose(prim: PrimitiveDef, args: tuple, attrs: tuple, err: Exception) -> Exception:
    """Turn a backend failure into an error that says what happened, in Kiln's words.

    - out of memory -> MemoryError naming the size asked for (when the backend says it);
    - RecursionError stays a RecursionError;
    - the inputs are at fault (the primitive's `check` rejects them, or, for a primitive without
      a check, their shapes and dtypes do not even trace) -> that TypeError / ValueError;
    - a user's function the op ran on the host (a pyfunc) raised -> that exception, as the user raised it;
    - forward-mode differentiation through an op with a reverse-mode derivative only -> NotImplementedError;
    - anything else is Kiln's own failure -> RuntimeError "internal error" with a one-line repro.

    The backend's text never reaches the message (it stays on `__context__`, and `KILN_DEBUG=1`
    appends its first line).
    """
    user = B.callbacks.user_error(err)
    if user is not None:  # the user's own function, run by the op on the host, raised it
        return user
    text = str(err)
    inputs = describe(args)
    if isinstance(err, RecursionError):
        return RecursionError(
            f"For '{prim.name}', the maximum recursion depth ({sys.getrecursionlimit()}) was exceeded while "
            f"running the op on ({inputs}): a recursive function went too deep or does not stop."
        )
    if B.late_errors.is_out_of_memory(err):
        asked = B.late_errors.bytes_asked(text)
        size = f" while allocating {B.late_errors.show_bytes(asked)}" if asked else ""
        return MemoryError(
            f"For '{prim.name}', the device ran out of memory{size} running the op on ({inputs})"
            f"{_attrs_text(prim.attrs_dict(attrs))}. "
            "Use smaller inputs (a smaller batch) or keep fewer large tensors alive." + _debug_suffix(err)
        )
    kw = prim.attrs_dict(attrs)
    abstract = tuple(_abstract(a) for a in args)
    if prim.check is not None:
        try:
            if prim in PROGRAM_NAMES:  # a run-time program's check replays it op by op on the arrays themselves
                prim.check(*abstract, **kw)
            else:
                prim.validate(args, kw)
        except (TypeError, ValueError, IndexError) as checked:
            return checked
    # an input of no kind an op takes (a str, an object) is the caller's error, whether or not the op has a check
    for i, a in enumerate(args):
        if not (a is None or isinstance(a, (Tensor, bool, int, float, complex, tuple, list)) or B.is_array(a)):
            return op_error(
                prim.name, f"input {i} must be a Tensor or a number, but got {type(a).__name__}.", TypeError
            )
    if prim.check is None:
        try:
            B.eval_shape(lambda *xs: prim.impl(*xs, **kw), *(_spec(a) for a in abstract))
        except Exception as static:  # noqa: BLE001  (any failure here means the shapes or dtypes do not fit)
            kind = TypeError if isinstance(static, TypeError) else ValueError
            return op_error(
                prim.name,
                f"the inputs ({inputs}) do not fit this op{_attrs_text(kw)}: their shapes or dtypes are not "
                "supported together." + _debug_suffix(err),
                kind,
            )
    if B.forward_mode_refused(err):
        return forward_mode_error(prim.name)
    return RuntimeError(
        f"For '{prim.name}', Kiln failed internally running the op on ({inputs}){_attrs_text(kw)}. "
        "This is a bug in Kiln, not in your program; please report it with this repro: "
        f"{_repro(prim, args, attrs)}" + _debug_suffix(err)
    )


def _spec(a):
    shape = getattr(a, "shape", None)
    if shape is not None and hasattr(a, "dtype"):
        return B.ShapeDtypeStruct(tuple(shape), a.dtype)
    return a


def _attrs_text(kw: dict) -> str:
    show = lambda v: str(v) if isinstance(v, B.np.dtype) else repr(v)  # noqa: E731
    return f" with {', '.join(f'{k}={show(v)}' for k, v in kw.items())}" if kw else ""


def _repro(prim: PrimitiveDef, args: tuple, attrs: tuple) -> str:
    parts = _args_text(args, lambda t: f"ms.Tensor(np.zeros({list(t.shape)}), ms.{t.dtype.name})")
    call = f"apply(REGISTRY[{prim.name!r}], ({', '.join(parts)},), {attrs!r})"
    return (
        'python -c "import numpy as np, kiln as ms; from kiln._core.primitive import REGISTRY; '
        f'from kiln._pynative.dispatch import apply; {call}"'
    )


def _debug_suffix(err: Exception) -> str:
    if not os.environ.get("KILN_DEBUG"):
        return ""
    first = str(err).strip().splitlines()[0] if str(err).strip() else ""
    return f" [backend: {type(err).__name__}: {first}]"
