"""Graph mode's entry: `jit`, `JitConfig`, `mutable`, and `run_cell` for GRAPH_MODE Cells.

This is the one place that decides, for each call, between compiling and running eagerly:
`@jit` compiles a function, a method or a `construct` into one XLA executable
(in either context mode). Calls inside a compile are inlined; calls while a
PyNative gradient is being recorded run the same compiled semantics eagerly
so the tape sees every op; other calls go through the compile cache.
"""

from __future__ import annotations

import functools
import operator
import os
import sys
import types
import warnings
from collections.abc import Callable

from kiln._compiler.build import build
from kiln._compiler.cache import memory as C
from kiln._compiler.errors import RaisesWithRunTimeMessage, for_user
from kiln._compiler.frontend.ast import calls, interp
from kiln._compiler.frontend.bytecode import run_jit
from kiln._compiler.frontend.capture import frontend
from kiln._core.mutable import (
    DynamicLengthList,
    DynamicLengthTuple,
    MutableBool,
    MutableDict,
    MutableFloat,
    MutableInt,
    MutableList,
    MutableTuple,
)
from kiln._core.tensor import Tensor
from kiln._prims import recurrent
from kiln._pynative import dispatch, tape
from kiln.context import _context

__all__ = ["JitConfig", "compile_cell", "install_cell_runner", "jit", "mutable", "run_cell"]

# whether the level runs what graph mode cannot compile on the host: only LAX does (COMPATIBLE compiles more
# Python than STRICT, e.g. containers and scalars, but not host steps, as MindSpore documents the levels)
_SYNTAX = {"STRICT": False, "LAX": True, "COMPATIBLE": False}
# MindSpore's MS_DEV_JIT_SYNTAX_LEVEL numbers the levels
_SYNTAX_BY_NUMBER = {"0": "STRICT", "1": "COMPATIBLE", "2": "LAX"}
# read on every cache hit, bound once: the stack of compile contexts (a list never rebound) and the miss marker
_COMPILING = interp._ACTIVE
_MISS = C.MISS


class JitConfig:
    """Options of a graph compile (MindSpore's `JitConfig`).

    Args:
        jit_level: "O0" (default), "O1" or "O2": optimisation level (accepted; XLA always optimises).
        exc_mode: "auto" (default), "sink" or "no_sink".
        jit_syntax_level: "STRICT" (unsupported Python is an error) or "LAX" (it runs on the host).
        debug_level: "RELEASE" (default) or "DEBUG".
        **kwargs: further options, kept in `jit_config_dict`.
    """

    def __init__(
        self,
        jit_level: str = "O1",
        exc_mode: str = "auto",
        jit_syntax_level: str = "",
        debug_level: str = "RELEASE",
        infer_boost: str = "off",
        **kwargs,
    ) -> None:
        if jit_level not in ("", "O0", "O1", "O2"):
            raise ValueError(f"JitConfig: jit_level must be 'O0', 'O1' or 'O2', but got {jit_level!r}.")
        if exc_mode not in ("auto", "sink", "no_sink"):
            raise ValueError(f"JitConfig: exc_mode must be 'auto', 'sink' or 'no_sink', but got {exc_mode!r}.")
        if jit_syntax_level not in ("", "STRICT", "LAX", "COMPATIBLE"):
            raise ValueError(
                f"JitConfig: jit_syntax_level must be 'STRICT', 'COMPATIBLE' or 'LAX', but got {jit_syntax_level!r}."
            )
        if debug_level not in ("RELEASE", "DEBUG"):
            raise ValueError(f"JitConfig: debug_level must be 'RELEASE' or 'DEBUG', but got {debug_level!r}.")
        if infer_boost not in ("on", "off"):
            raise ValueError(f"JitConfig: infer_boost must be 'on' or 'off', but got {infer_boost!r}.")
        if exc_mode != "auto":
            _note_once(f"JitConfig(exc_mode={exc_mode!r})", "XLA decides how a graph is launched")
        if infer_boost == "on":
            _note_once("JitConfig(infer_boost='on')", "it is an Ascend inference option")
        for key in kwargs:
            _note_once(f"JitConfig({key}=...)", "Kiln does not know this option")
        self.jit_config_dict = {
            "jit_level": jit_level,
            "exc_mode": exc_mode,
            "jit_syntax_level": jit_syntax_level,
            "debug_level": debug_level,
            "infer_boost": infer_boost,
            **kwargs,
        }

    def __getattr__(self, name: str):
        d = self.__dict__.get("jit_config_dict", {})
        if name in d:
            return d[name]
        raise AttributeError(name)

    def __repr__(self) -> str:
        return f"JitConfig({self.jit_config_dict})"


_noted: set = set()


def _note_once(option: str, why: str) -> None:
    """Say once that an accepted option has no effect in Kiln, and why."""
    if option not in _noted:
        _noted.add(option)
        warnings.warn(f"{option} has no effect in Kiln: {why}.", stacklevel=3)


def mutable(input_data, dynamic_len: bool = False):
    """Mark a Python scalar, tuple, list or dict as a graph variable (a new value does not recompile).

    Args:
        input_data: bool, int, float, tuple/list/dict of them or of Tensors, or a Tensor (returned as is).
        dynamic_len: mark a tuple or list's length as variable: `is_sequence_shape_unknown` says so inside a
            graph (Kiln still compiles a graph per length it meets).

    Returns:
        The same value, marked.
    """
    if isinstance(input_data, Tensor):
        return input_data
    if isinstance(input_data, bool):
        return MutableBool(input_data)
    if isinstance(input_data, int):
        return MutableInt(input_data)
    if isinstance(input_data, float):
        return MutableFloat(input_data)
    if isinstance(input_data, tuple):
        kind = DynamicLengthTuple if dynamic_len else MutableTuple
        return kind(mutable(x) if isinstance(x, (int, float)) else x for x in input_data)
    if isinstance(input_data, list):
        kind = DynamicLengthList if dynamic_len else MutableList
        return kind(mutable(x) if isinstance(x, (int, float)) else x for x in input_data)
    if isinstance(input_data, dict):
        return MutableDict({k: mutable(v) if isinstance(v, (int, float)) else v for k, v in input_data.items()})
    raise TypeError(
        f"mutable() accepts bool, int, float, tuple, list, dict or Tensor, but got {type(input_data).__name__}."
    )


def _precompile_only() -> bool:
    """MindSpore's MS_DEV_PRECOMPILE_ONLY=1: graph calls compile and return None without running (read on every
    call that is not a fast cache hit; a fast hit is only set up by a call that ran)."""
    return os.environ.get("MS_DEV_PRECOMPILE_ONLY") == "1"


def _syntax_level(options: dict, jit_config, cell=None) -> bool:
    """True for LAX (the default, as in MindSpore). The environment's MS_DEV_JIT_SYNTAX_LEVEL (0, 1, 2 or a level's
    name), read at each compile, overrides every other setting, as MindSpore documents it."""
    env = os.environ.get("MS_DEV_JIT_SYNTAX_LEVEL", "").strip()
    for source in (
        _SYNTAX_BY_NUMBER.get(env, env),
        options.get("jit_syntax_level"),
        jit_config.jit_config_dict.get("jit_syntax_level") if jit_config is not None else None,
        cell.__dict__.get("_jit_config").jit_config_dict.get("jit_syntax_level")
        if cell is not None and getattr(cell.__dict__.get("_jit_config"), "jit_config_dict", None)
        else None,
        _context.get("jit_syntax_level"),
    ):
        if source:
            name = getattr(source, "name", source)
            if isinstance(name, str) and name.upper() in _SYNTAX:
                return _SYNTAX[name.upper()]
    return True


class JitFunction:
    """A function compiled to one graph per input signature (what `jit(fn)` returns)."""

    def __init__(self, fn: Callable, capture_mode: str, options: dict, jit_config, input_signature) -> None:
        self._kiln_fn = fn
        self._kiln_self = None
        self.capture_mode = capture_mode
        self.options = options
        self.jit_config = jit_config
        self.input_signature = input_signature
        for key in options:
            if key not in ("jit_syntax_level", "hash_args", "compile_once", "fullgraph"):
                _note_once(f"jit({key}=...)", "Kiln does not know this option")
        self._cache = self._new_cache(getattr(fn, "__qualname__", "fn"))
        # calls outside a compile or a recorded gradient go straight to the cache (no bytecode capture, no signature)
        self._direct = capture_mode != "bytecode" and input_signature is None
        self._bound: dict = {}
        functools.update_wrapper(self, fn)
        self._entry = types.MethodType(JitFunction._call, self)  # what a call runs (see __call__)
        if self._direct:
            self._cache.caller = C.CallerEntry(self, JitFunction._call, _COMPILING, tape, self._set_entry, for_user)

    def _compile_fn(self, template, leaves, params, cells, shapes=None, plan=None):
        fn, capture = self._kiln_fn, frontend(self.capture_mode)

        def body(*a, **k):
            return capture(interp.active(), fn, list(a), k)

        lax = _syntax_level(self.options, self.jit_config)
        return build(self._cache.name, body, template, leaves, params, cells, lax, fn, shapes, plan, write_inputs=True)

    def _new_cache(self, name: str) -> C.JitCache:
        cache = C.JitCache(name)
        hash_args = self.options.get("hash_args")
        if hash_args is not None:
            items = hash_args if isinstance(hash_args, (tuple, list)) else (hash_args,)
            cache.extra_key = tuple(hash(x) for x in items)
        cache.compile_once = bool(self.options.get("compile_once"))
        return cache

    @property
    def compile_count(self) -> int:
        return self._cache.compiles

    def __get__(self, obj, objtype=None):
        if obj is None:
            return self
        entry = self._bound.get(id(obj))
        if entry is None or entry[0] is not obj:
            bound = _BoundJit(self, obj)
            self._bound[id(obj)] = (obj, bound)
            return bound
        return entry[1]

    # `f(...)` runs `f._entry(...)`: while the cache holds one executable for Tensors only, its generated hit
    # (C.CallerEntry, a plain function written for `f`), else `_call` bound to `f`. Read by a property in C, so a
    # hit runs no Python frame before the hit itself.
    __call__ = property(operator.attrgetter("_entry"))

    def _call(self, *args, **kwargs):
        """The call that builds the key (or finds the executable from a compile in progress, or records a
        gradient): the general path of `__call__`."""
        try:
            return _invoke(self, self._cache, None, args, kwargs)
        except Exception as err:  # noqa: BLE001  (re-raised with the user's frames only)
            shown = for_user(err)
            if shown is err:
                raise  # bare: the traceback ends at the user's line, with no frame of this call
            raise shown from None

    def _set_entry(self, hit) -> None:
        """Make `hit(*args, **kwargs)` (written for this function) what a call runs, or `_call` for None
        (C.CallerEntry.install)."""
        self._entry = hit if hit is not None else types.MethodType(JitFunction._call, self)


class _BoundJit:
    """`@jit` on a method, bound to one instance (its own cache)."""

    def __init__(self, jf: JitFunction, obj) -> None:
        self._jf = jf
        self._kiln_fn = jf._kiln_fn
        self._kiln_self = obj
        self._cache = jf._new_cache(jf._cache.name)
        self.__wrapped__ = jf._kiln_fn

    @property
    def compile_count(self) -> int:
        return self._cache.compiles

    def __call__(self, *args, **kwargs):
        try:
            return _invoke(self._jf, self._cache, self._kiln_self, args, kwargs)
        except Exception as err:  # noqa: BLE001  (re-raised with the user's frames only)
            shown = for_user(err)
            if shown is err:
                raise  # bare: the traceback ends at the user's line, with no frame of this call
            raise shown from None


def _invoke(jf: JitFunction, cache: C.JitCache, obj, args, kwargs):
    # MindSpore compiles a jit function apart: called inside a `to_float` Cell, its ops are not cast (a jit
    # construct of such a Cell is, as the Cell's); its compiled graph holds the casts it was traced with
    own = None if obj is None else getattr(obj, "__dict__", {}).get("_float_dtype")
    if own is not dispatch.RUN.dtype:
        with dispatch.running_in(own):
            return _invoke(jf, cache, obj, args, kwargs)
    fn = jf._kiln_fn
    full = (obj, *args) if obj is not None else args
    if jf.capture_mode == "bytecode" and not interp._ACTIVE:
        if tape.recording:  # a PyNative gradient is being recorded: run as Python so the tape sees each op
            return fn(*full, **kwargs)
        if jf.input_signature is not None:
            _check_signature(jf.input_signature, args)
        return run_jit(jf, cache, obj, args, kwargs)
    if interp._ACTIVE:  # called from inside a graph: inline
        if jf.capture_mode == "trace" or not calls.is_user_function(fn):
            return fn(*full, **kwargs)
        return calls.call_user(interp._ACTIVE[-1], fn, list(full), kwargs)
    if tape.recording:
        # A gradient is being recorded around this call: run eagerly so the tape sees each op.
        if jf.capture_mode == "trace" or not calls.is_user_function(fn):
            return fn(*full, **kwargs)
        with interp.Context(lax=_syntax_level(jf.options, jf.jit_config), tracing=False) as ectx:
            return calls.call_user(ectx, fn, list(full), kwargs)
    if jf.input_signature is not None:
        _check_signature(jf.input_signature, args)
        cache.set_dynamic(jf.input_signature)
    try:
        return cache.call(full, kwargs, jf._compile_fn, run=not _precompile_only())
    except RaisesWithRunTimeMessage:  # every path raises with run-time values in the message: raise it eagerly
        if jf.capture_mode == "trace" or not calls.is_user_function(fn):
            return fn(*full, **kwargs)
        with interp.Context(lax=_syntax_level(jf.options, jf.jit_config), tracing=False) as ectx:
            return calls.call_user(ectx, fn, list(full), kwargs)


# -- GRAPH_MODE for Cells: `Cell.__call__` hands the call to `run_cell` ------------------------------


def install_cell_runner(cell_cls=None) -> None:
    """Make `Cell.__call__` compile `construct` in GRAPH_MODE (sets the `Cell._graph_runner` seam).

    Args:
        cell_cls: the Cell class; found in the already-imported `kiln.nn.cell` when omitted.
    """
    if cell_cls is None:
        mod = sys.modules.get("kiln.nn.cell")
        if mod is None:
            return
        cell_cls = mod.Cell
    cell_cls._graph_runner = staticmethod(run_cell)


def run_cell(cell, args: tuple, kwargs: dict):
    """Run `cell(*args, **kwargs)` as a compiled graph; NotImplemented lets Cell.__call__ run it as Python.

    Args:
        cell: the Cell called.
        args: its positional arguments.
        kwargs: its keyword arguments.

    Returns:
        The outputs of `construct`, or NotImplemented.
    """
    if interp._ACTIVE:  # inside a compile: inline user cells, run library cells on the symbolic tensors
        ctx = interp._ACTIVE[-1]
        if getattr(ctx, "trace_only", False) or not _user_construct(cell):
            return NotImplemented
        return calls.call_cell(ctx, cell, list(args), kwargs)
    d = cell.__dict__
    cache = d.get("_kiln_graph_cache")
    if cache is not None and not tape.recording and not kwargs and not d.get("_input_signature"):
        # the cache-hit path first (as `_call_cell_graph`'s, inlined: a GRAPH_MODE call's one Python frame here)
        fast = cache.fast
        if fast is not None and not _hooked(args):
            try:
                out = fast((cell, *args))
            except RaisesWithRunTimeMessage:  # the general call below raises it eagerly
                out = _MISS
            except Exception as err:  # noqa: BLE001  (re-raised with the user's frames only)
                shown = for_user(err)
                if shown is err:
                    raise  # bare: the traceback ends at the user's line, with no frame of this call
                raise shown from None
            if out is not _MISS:
                return out
    if tape.recording or _hooked(args) or recurrent.reverse_only_state() is False:
        # (or inside PyNative's ops.jvp / jacfwd: a compiled graph's declared derivatives have no forward mode)
        # A PyNative gradient is being recorded, or an argument has hooks (which a gradient taken inside construct
        # runs, and the compiled graph would not see): run with graph semantics, eagerly, so the tape sees every op.
        if not _user_construct(cell):
            return NotImplemented
        with interp.Context(lax=_syntax_level({}, None, cell), tracing=False) as ectx:
            return calls.call_cell(ectx, cell, list(args), kwargs)
    try:
        try:
            return _call_cell_graph(cell, args, kwargs, run=None)
        except RaisesWithRunTimeMessage:  # every path raises with run-time values in the message: raise it eagerly
            with interp.Context(lax=_syntax_level({}, None, cell), tracing=False) as ectx:
                return calls.call_cell(ectx, cell, list(args), kwargs)
    except Exception as err:  # noqa: BLE001  (re-raised with the user's frames only)
        shown = for_user(err)
        if shown is err:
            raise  # bare: the traceback ends at the user's line, with no frame of this call
        raise shown from None


def _call_cell_graph(cell, args: tuple, kwargs: dict | None, run: bool | None):
    """Call (run=None: unless MS_DEV_PRECOMPILE_ONLY) or only compile (run=False) `cell`'s graph for `args`."""
    d = cell.__dict__
    cache = d.get("_kiln_graph_cache")
    if cache is None:
        cache = C.JitCache(f"{type(cell).__name__}.construct")
        d["_kiln_graph_cache"] = cache
    signature = d.get("_input_signature")
    if signature:
        _check_signature(signature, args)
        cache.set_dynamic(signature)
    if run is None:
        # the cache-hit path first: only a call that ran set it up (see _precompile_only); without a signature
        # run_cell has tried it already
        fast = cache.fast
        if fast is not None and not kwargs and signature:
            out = fast((cell, *args))
            if out is not _MISS:
                return out
        run = not _precompile_only()
    return cache.call(
        (cell, *args), kwargs or {}, lambda *parts, **kw: _compile_cell(cache, cell, *parts, **kw), run=run
    )


def compile_cell(cell, args: tuple, kwargs: dict | None = None) -> None:
    """Compile `cell`'s construct for these arguments as GRAPH_MODE does, without running it (in any mode).

    Args:
        cell: the Cell.
        args, kwargs: its arguments.
    """
    try:
        _call_cell_graph(cell, tuple(args), kwargs, run=False)
    except RaisesWithRunTimeMessage as signal:  # every path raises: the compile says so, with what it knows
        raise signal.exc from None
    except Exception as err:  # noqa: BLE001  (re-raised with the user's frames only)
        shown = for_user(err)
        if shown is err:
            raise  # bare: the traceback ends at the user's line, with no frame of this call
        raise shown from None


def _user_construct(cell) -> bool:
    """Whether the Cell's `construct` is compiled from its source (a user's), not run on symbolic tensors."""
    return calls.is_user_function(calls.unwrap(type(cell).construct))


def _hooked(args: tuple) -> bool:
    """True when a Tensor argument has hooks registered (`Tensor.register_hook`)."""
    for a in args:  # a loop, not any(generator): it runs on every GRAPH_MODE call
        if isinstance(a, Tensor) and getattr(a, "_hooks", None):
            return True
    return False


def _compile_cell(cache, cell, template, leaves, params, cells, shapes=None, plan=None):
    def body(c, /, *a, **k):
        return calls.call_cell(interp.active(), c, list(a), k)

    lax = _syntax_level({}, None, cell)
    return build(cache.name, body, template, leaves, params, cells, lax, shapes=shapes, plan=plan, write_inputs=True)


def _check_signature(signature, args) -> None:
    sig = signature if isinstance(signature, (tuple, list)) else (signature,)
    for i, (s, a) in enumerate(zip(sig, args, strict=False)):
        if not hasattr(s, "shape") or not hasattr(s, "dtype") or not isinstance(a, Tensor):
            continue
        want = s.shape
        if tuple(want) == (-2,):  # dynamic rank: any shape
            want = (None,) * a.ndim
        if len(want) != a.ndim or any(w not in (None, -1) and w != g for w, g in zip(want, a.shape, strict=True)):
            raise ValueError(
                f"input {i} has shape {list(a.shape)}, but the declared input signature is {list(want)} "
                f"(None or -1 marks a dynamic dimension)."
            )
        if s.dtype != a.dtype:
            raise TypeError(f"input {i} has dtype {a.dtype}, but the declared input signature says {s.dtype}.")


def jit(
    function: Callable | None = None,
    *,
    capture_mode: str = "ast",
    jit_level: str = "O0",
    dynamic: int = 0,
    fullgraph: bool = False,
    backend: str = "",
    mode: str | None = None,
    input_signature=None,
    hash_args=None,
    jit_config: JitConfig | None = None,
    compile_once: bool = False,
    **options,
):
    """Compile `function` into a static graph (MindSpore's `jit`).

    Use as `@jit`, `@jit(...)` or `jit(fn)`, on functions, methods and `construct`; on a Cell class it compiles
    the class's `construct` and returns the class.

    Args:
        function: the function to compile.
        capture_mode: "ast" (parse the source, the default), "trace" (run once on symbolic tensors and record),
            or "bytecode" (PIJit: symbolic execution of the bytecode, guarded graphs, graph breaks run as Python).
        jit_level: "O0" or "O1" (accepted; XLA optimises either way).
        dynamic: 0, or 1 (accepted with a one-time note: each new input shape is compiled separately).
        fullgraph: with "ast", make unsupported syntax an error (STRICT) instead of a host fallback; with
            "bytecode", the first graph break raises `Unsupported` naming the file:line and the reason.
        backend: "", "ms_backend" or "GE" (all mean XLA; "GE" says so once in a warning).
        mode: older spelling: "PSJit" (= "ast") or "PIJit" (= "bytecode").
        input_signature: Tensors whose shapes (None = dynamic dimension) and dtypes the inputs must match.
        hash_args: extra objects whose hashes join the compile cache key (a new hash compiles again).
        compile_once: keep the first compiled graph even when globals or closure variables it read change.
        jit_config: a JitConfig.
        **options: e.g. jit_syntax_level="STRICT".

    Returns:
        The compiled function (or a decorator when `function` is None).
    """
    if mode is not None:
        if mode not in ("PSJit", "PIJit"):
            raise ValueError(f"jit: mode must be 'PSJit' or 'PIJit', but got {mode!r}.")
        capture_mode = "ast" if mode == "PSJit" else "bytecode"
    if capture_mode not in ("ast", "bytecode", "trace"):
        raise ValueError(f"jit: capture_mode must be 'ast', 'bytecode' or 'trace', but got {capture_mode!r}.")
    if jit_level not in ("O0", "O1", "O2"):
        raise ValueError(f"jit: jit_level must be 'O0', 'O1' or 'O2', but got {jit_level!r}.")
    if backend not in ("", "ms_backend", "GE"):
        raise ValueError(f"jit: backend must be '', 'ms_backend' or 'GE', but got {backend!r}.")
    if backend == "GE":  # Ascend's graph engine: programs written for it run unchanged
        _note_once("jit(backend='GE')", "XLA compiles every graph (GE is Ascend's graph engine)")
    if dynamic not in (0, 1):
        raise ValueError(f"jit: dynamic must be 0 or 1, but got {dynamic!r}.")
    if dynamic == 1:
        _note_once("jit(dynamic=1)", "each new input shape is compiled separately")
    if jit_level == "O2":
        _note_once("jit(jit_level='O2')", "XLA applies its full optimisation at every level")
    if hash_args is not None:
        options["hash_args"] = hash_args
    if compile_once:
        options["compile_once"] = True
    if fullgraph:
        options["fullgraph"] = True
    if fullgraph and "jit_syntax_level" not in options:
        options["jit_syntax_level"] = "STRICT"

    def wrap(fn):
        if isinstance(fn, JitFunction):
            return fn
        if isinstance(fn, type) and callable(getattr(fn, "construct", None)):  # @jit on a Cell class
            fn.construct = JitFunction(fn.construct, capture_mode, options, jit_config, input_signature)
            return fn
        if not callable(fn):
            raise TypeError(f"jit expects a function, but got {type(fn).__name__}.")
        if isinstance(fn, types.MethodType):  # jit(obj.method): compile the function, bound to obj
            return JitFunction(fn.__func__, capture_mode, options, jit_config, input_signature).__get__(fn.__self__)
        return JitFunction(fn, capture_mode, options, jit_config, input_signature)

    if function is None:
        return wrap
    return wrap(function)
