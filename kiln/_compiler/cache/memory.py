"""The in-memory compile cache: input signature + guards -> executable.

The key is the input signature: shape and dtype of each Tensor, the value of
each Python scalar, string, tuple (MindSpore's constants), the type only of
`mutable()` values. Each entry also carries guards: the globals, closure
cells and attributes read while compiling must still hold the same objects
(and small lists/dicts the same contents), otherwise the entry is stale and
the function compiles again. A hit costs one key build, one dict lookup, a
short guard loop and the executable launch.
"""

from __future__ import annotations

import operator
import os
import time
import warnings
import weakref

from kiln import _backend as B
from kiln._backend.launch import Launch, array_type, launch_of
from kiln._compiler.cache import persistent
from kiln._compiler.errors import HostShapeChanged, user_stacklevel
from kiln._compiler.frontend.ast.values import FIRST_UNROLL, UNROLL, RecursionCut, is_cell
from kiln._compiler.guards import (
    assume_host_shapes,
    check_guards,
    compile_guards,
    holds_but_host_shapes,
    host_shapes_hold,
)
from kiln._compiler.ir import graph as G
from kiln._compiler.specialise import BranchGuardFailed, describe, refused, respecialised
from kiln._core import tree
from kiln._core.mutable import MutableBool, MutableDict, MutableFloat, MutableInt, MutableValue
from kiln._core.primitive import _checks as _CHECKS
from kiln._core.tensor import Parameter, Pending, Tensor
from kiln.context import _context

_LOG = "compiles" in os.environ.get("KILN_LOG", "")
STATS = {"compiles": 0}  # every compile of every cache (tests count recompiles with it)


def log_enabled() -> bool:
    return _LOG or "compiles" in os.environ.get("KILN_LOG", "")


_SCALARS = (int, float, bool, str, type(None), complex)


def flatten(x, leaves: list, sig: list, params: list, cells: list, refs: list, mut: bool = False):
    """Append `x`'s signature to `sig` and its dynamic arrays to `leaves`; return its `tree` template.

    Tensors and `mutable()` scalars are leaves; Parameters are constants of the template (state, passed
    through `params`); containers are walked.
    """
    t = type(x)
    if t is Tensor:
        d = x._data
        leaves.append(d)
        sig.append((d.shape, d.dtype))
        return tree.LEAF
    if t is Parameter or isinstance(x, Parameter):
        params.append(x)
        sig.append(("P", id(x)))
        refs.append(x)
        return ("c", x)
    if isinstance(x, Tensor):
        d = x._data
        leaves.append(d)
        sig.append((d.shape, d.dtype))
        return tree.LEAF
    if t in _MUTABLE_SCALARS or (mut and t in (bool, int, float)):
        base = bool if t is bool or t is MutableBool else float if isinstance(x, float) else int
        arr = B.jnp.asarray(base(x), dtype=_MUTABLE_DTYPES[base])
        leaves.append(arr)
        sig.append(("M", base))
        return ("t", base)  # a leaf that is a Python number of `base` in the graph (a HostScalar)
    if t in _SCALARS:
        sig.append((t, x))
        return ("c", x)
    if isinstance(x, (tuple, list)):
        m = mut or isinstance(x, MutableValue)
        sig.append((t, len(x)))
        if isinstance(x, tuple) and hasattr(x, "_fields"):  # a namedtuple keeps its type and field names
            return ("n", t, tuple(flatten(v, leaves, sig, params, cells, refs, m) for v in x))
        # a mutable() container keeps its type inside the graph: the gradient transforms differentiate it
        kind = t if isinstance(x, MutableValue) else tuple if isinstance(x, tuple) else list
        return ("s", kind, tuple(flatten(v, leaves, sig, params, cells, refs, m) for v in x))
    if isinstance(x, dict):
        marked = isinstance(x, MutableValue)
        keys = tuple(x)
        sig.append(("mutable dict" if marked else "dict", keys))
        children = tuple(flatten(v, leaves, sig, params, cells, refs, mut or marked) for v in x.values())
        return ("d", keys, children, MutableDict) if marked else ("d", keys, children)
    if is_cell(x):
        cells.append(x)
    refs.append(x)
    try:
        hash(x)
        sig.append(("o", type(x), x) if isinstance(x, type) or _hashable_value(x) else ("o", id(x)))
    except TypeError:
        sig.append(("o", id(x)))
    return ("c", x)


_MUTABLE_SCALARS = (MutableBool, MutableInt, MutableFloat)
_MUTABLE_DTYPES = {bool: "bool", int: "int64", float: "float32"}


def _hashable_value(x) -> bool:
    # dtypes, enums and similar small immutable values are keyed by value, other objects by identity.
    return type(x).__hash__ is not object.__hash__ and not callable(x)


def rebuild(template, it, wrap=Tensor._wrap):
    """(args, kwargs) from a template and an iterator over symbolic input arrays (`wrap` makes each a Tensor)."""
    args_t, kw_t = template
    args = [tree.unflatten(t, it, wrap) for t in args_t]
    kwargs = {k: tree.unflatten(t, it, wrap) for k, t in kw_t}
    return args, kwargs


def leaf_tensors(args: tuple, kwargs: dict) -> list:
    """The caller's Tensor behind each leaf `flatten` takes from (args, kwargs), in the same order (None for a
    `mutable()` scalar): where a program's writes to its input Tensors are written back."""
    out: list = []

    def walk(x, mut: bool) -> None:
        t = type(x)
        if t is Tensor or (isinstance(x, Tensor) and not isinstance(x, Parameter)):
            out.append(x)
        elif t in _MUTABLE_SCALARS or (mut and t in (bool, int, float)):
            out.append(None)
        elif isinstance(x, (tuple, list)):
            for v in x:
                walk(v, mut or isinstance(x, MutableValue))
        elif isinstance(x, dict):
            for v in x.values():
                walk(v, mut or isinstance(x, MutableValue))

    for a in args:
        walk(a, False)
    for v in kwargs.values():
        walk(v, False)
    return out


def run_executable(ex, leaves: list, args: tuple, kwargs: dict):
    """`ex(leaves)`, with the caller's Tensors when the program writes some of its inputs back to them."""
    if ex.input_writes:
        return ex(leaves, leaf_tensors(args, kwargs))
    return ex(leaves)


_STATIC = object()  # "use the per-shape programs" (JitCache._call_dynamic)
_NO_LEAD = object()  # JitCache.fast: the call has no Cell or object before its Tensors
MISS = object()  # JitCache.hit: no executable could be called without building the key
_NOARG = object()  # a caller's hit (CallerEntry): the default of a positional argument the call did not pass
_new = object.__new__


class InputsDiffer(Exception):
    """Raised while tracing an executable's program for inputs of other shapes or dtypes than it was built
    for (JitCache.fast called it without building the key): the call builds its key and compiles."""


def _hit_function(
    cache: JitCache, lead, n: int, ex, direct, guards, launch: Launch | bool | None = None,
    caller: CallerEntry | None = None,
):  # fmt: skip
    """One generated function for `JitCache.fast`: `args` -> outputs, or MISS when the call needs its key built.

    It is written for this entry's argument count, lead object, guards and output so that a hit runs no loop,
    builds no list and calls no other Python function (a hit costs about as much as the backend's launch).

    Args:
        cache: the cache holding `ex` (a run assuming the other branch of a Tensor if is noted on it).
        lead: the Cell or object every call passes first, or _NO_LEAD.
        n: the number of plain Tensors after it.
        ex: the executable.
        direct: its backend function when the call is `Tensor(direct(*arrays)[0])`, else None.
        guards: its guards' compiled check, or None.
        launch: a `Launch` of `direct` (its executable run without jax.jit's dispatch, once the arrays' avals
            are checked here), or None / False (`direct` is called).
        caller: None for `hit(args)`; else the function is `hit(*args, **kwargs)`, the call of the cache's owner
            (see CallerEntry), which goes to `caller.slow(caller.owner, *args, **kwargs)` where `hit` returns MISS.

    Returns:
        The generated function.
    """
    names = [f"a{i}" for i in range(n)]
    ns = {"MISS": MISS, "T": Tensor, "CHECKS": _CHECKS, "LEAD": lead, "EX": ex, "DIRECT": direct, "GUARDS": guards,
          "CACHE": cache, "NEW": _new, "BRANCH": BranchGuardFailed, "PENDING": Pending, "TRACES": G._TRACES,
          "REDO": (InputsDiffer, RecursionCut, persistent.StaleExecutable, HostShapeChanged)}  # fmt: skip
    unpacked = (["lead_arg"] if lead is not _NO_LEAD else []) + names
    if caller is None:
        miss = "MISS"
        lines = ["def hit(args):", f"    if len(args) != {len(unpacked)} or not CHECKS['on']:", "        return MISS"]
        if unpacked:
            lines.append(f"    {', '.join(unpacked)}, = args")
    else:
        # The arguments arrive as positional-only parameters (no tuple of them is built); NOARG marks one not
        # passed. Keyword arguments, another count, a call from a graph being compiled or a recorded gradient
        # take the general path, with the arguments as the caller passed them.
        ns.update(SLOW=caller.slow, OWNER=caller.owner, COMPILING=caller.compiling, TAPE=caller.tape, NOARG=_NOARG)
        miss = f"SLOW(OWNER, {''.join(a + ', ' for a in unpacked)})"
        given = f"*[a for a in ({''.join(a + ', ' for a in unpacked)}) if a is not NOARG], " if unpacked else ""
        params = "".join(f"{a}=NOARG, " for a in unpacked) + ("/, " if unpacked else "")
        short = [f"{unpacked[-1]} is NOARG"] if unpacked else []
        gate = " or ".join(["more", "kwargs", *short, "not CHECKS['on']", "COMPILING", "TAPE.recording"])
        lines = [f"def hit({params}*more, **kwargs):", f"    if {gate}:",
                 f"        return SLOW(OWNER, {given}*more, **kwargs)"]  # fmt: skip
    tests = (["lead_arg is not LEAD"] if lead is not _NO_LEAD else []) + [f"type({a}) is not T" for a in names]
    if guards is not None:
        tests.append("not GUARDS()")
    # a Tensor's array read from its slot (`Tensor._data` without the property): recorded ops of the lazy window
    # run first; while a graph is recorded the call builds its key (a nested graph may have written a Tensor)
    tests.append("TRACES")
    lines += [f"    if {' or '.join(tests)}:", f"        return {miss}"]
    for a in names:
        lines += [f"    d{a} = {a}._buf", f"    if type(d{a}) is PENDING:", f"        d{a} = {a}._data"]
    arrays = ", ".join(f"d{a}" for a in names)
    if direct is not None and isinstance(launch, Launch):
        # jax.jit's own signature check, made here: a concrete array of the aval compiled for (shape, dtype, weak
        # type; avals are interned, so `is` decides unless an equal one was made apart)
        ns.update(ARRAY=array_type(), EXECUTE=launch.execute, HANDLERS=launch.handlers)
        fits = []
        for i, a in enumerate(names):
            ns[f"A{i}"] = launch.avals[i]
            fits.append(f"type(d{a}) is not ARRAY or (d{a}.aval is not A{i} and d{a}.aval != A{i})")
        if fits:
            lines += [f"    if {' or '.join(fits)}:", f"        return {miss}"]
    lines.append("    try:")
    if direct is not None and isinstance(launch, Launch):
        lines.append(f"        out = EXECUTE([{arrays}]).consume_with_handlers(HANDLERS)[0]")
    elif type(direct) is persistent.DirectExecutable:
        # its C++ entry point (`fast`, made by its first call) called without the wrapper's Python frame; inputs the
        # executable refuses go to the wrapper, whose fallback takes them
        lines += ["        fast = DIRECT.fast", "        try:",
                  f"            out = (DIRECT if fast is None else fast)({arrays})[0]",
                  "        except (TypeError, ValueError):", "            if fast is None:", "                raise",
                  f"            out = DIRECT({arrays})[0]"]  # fmt: skip
    elif direct is not None:
        lines.append(f"        out = DIRECT({arrays})[0]")
    if direct is not None:  # Tensor._wrap inlined
        lines += ["    except REDO:", f"        return {miss}",
                  "    t = NEW(T)", "    t._buf = out", "    t._nodes = None", "    t._view_of = None",
                  "    return t"]  # fmt: skip
    else:
        inputs = f", [{', '.join(names)}]" if ex.input_writes else ""  # written back to the caller's Tensors
        lines += [f"        return EX([{arrays}]{inputs})",
                  "    except BRANCH as failed:  # nothing was applied: `call` runs the program for the branch taken",
                  "        CACHE.pending = (EX, failed)", f"        return {miss}",
                  "    except REDO:", f"        return {miss}"]  # fmt: skip
    if caller is not None:  # errors reach the user as from the owner's general call
        ns["FOR_USER"] = caller.for_user
        lines = [lines[0], "    try:", *("    " + line for line in lines[1:]),
                 "    except Exception as err:", "        shown = FOR_USER(err)",
                 "        if shown is err:", "            raise", "        raise shown from None"]  # fmt: skip
    exec(compile("\n".join(lines), "<kiln cache hit>", "exec"), ns)  # noqa: S102  (generated from the entry above)
    return ns["hit"]


class CallerEntry:
    """How a cache's owner (a `jit` function) is called without a Python frame of its own on a hit: the cache
    generates its hit as `hit(*args, **kwargs)` for this owner and hands it to `install`, which makes it what a
    call of the owner runs (`install(None)` when the next call must build its key).

    Args:
        owner: the `jit` function whose calls the hit runs.
        slow: `slow(owner, *args, **kwargs)`, the owner's general call.
        compiling: a list that is not empty while a graph is compiled (such a call is inlined, not run).
        tape: the module whose `recording` is true while a PyNative gradient is recorded (the call is recorded).
        install: `install(hit)`, or `install(None)`.
        for_user: `for_user(err)`, the error as the owner's general call raises it.
    """

    __slots__ = ("owner", "slow", "compiling", "tape", "install", "for_user")

    def __init__(self, owner, slow, compiling: list, tape, install, for_user) -> None:
        self.owner, self.slow, self.compiling, self.tape = owner, slow, compiling, tape
        self.install, self.for_user = install, for_user


_SYMBOLS: list = []


def _symbol(axis: int):
    """The symbolic size of a dynamic dimension at `axis` (shared by the arguments of one call; one scope)."""
    if not _SYMBOLS:
        _SYMBOLS.extend(B.jax.export.symbolic_shape(", ".join(f"d{i}" for i in range(16))))
    return _SYMBOLS[axis]


# Bounds on executables kept in memory (each holds a compiled XLA program): per function and in all.
LIMITS = {
    "per_function": B.cache.env_count("KILN_MAX_EXECUTABLES_PER_FUNCTION", 64),
    "total": B.cache.env_count("KILN_MAX_EXECUTABLES", 1024),
    "warn_after": B.cache.env_count("KILN_RECOMPILE_WARNING", 16),  # compiles of one function before a warning
    # programs of one input signature kept for host step result shapes other than the latest (a masked_select's
    # counts): one comes back into use without a compile when its count does (least recently used dropped)
    "host_variants": B.cache.env_count("KILN_HOST_SHAPE_VARIANTS", 16),
}
_LIVE: weakref.WeakSet = weakref.WeakSet()  # every JitCache holding executables


def forget_all() -> None:
    """Drop every compiled graph of every function: the next call of each compiles again (a backend setting that
    changes programs, not their inputs, was switched: TF32 on a GPU)."""
    for cache in list(_LIVE):
        cache._set_fast(None)
        cache.entries.clear()
        cache.size = 0


B.precision.on_change(forget_all)


def set_limits(per_function: int | None = None, total: int | None = None, warn_after: int | None = None) -> None:
    """Change the in-memory executable bounds (also `KILN_MAX_EXECUTABLES_PER_FUNCTION`, `KILN_MAX_EXECUTABLES`,
    and `KILN_RECOMPILE_WARNING` in the environment). The least recently used executables go first."""
    for key, value in (("per_function", per_function), ("total", total), ("warn_after", warn_after)):
        if value is not None:
            if not isinstance(value, int) or value < 1:
                raise ValueError(f"set_limits: {key} must be a positive int, but got {value!r}.")
            LIMITS[key] = value


class JitCache:
    """Executables of one function (or one Cell), by input signature, least recently used first."""

    __slots__ = ("name", "entries", "compiles", "last_reason", "extra_key", "compile_once", "size", "warned",
                 "dynamic", "dynamic_off", "fast", "written_for", "caller", "pending", "__weakref__")  # fmt: skip

    def __init__(self, name: str) -> None:
        self.name = name
        self.entries: dict = {}
        self.compiles = 0
        self.last_reason = ""
        self.extra_key = ()  # jit(hash_args=...): their hashes join every key
        self.compile_once = False  # jit(compile_once=True): guards on globals/closures are not checked
        self.size = 0  # executables held
        self.warned = False
        self.dynamic = None  # per positional Tensor argument: (shape with None for any size, dtype), from set_inputs
        self.dynamic_off = ""  # why the dynamic-shape program could not be built (then: one per shape)
        # A generated function (`_hit_function`) while the cache holds one executable whose key is "`lead` (a
        # Cell or object keyed by identity, or _NO_LEAD) then plain Tensors": such a call skips the key build and
        # lets the executable check the Tensors' shapes and dtypes itself (it raises InputsDiffer on others).
        self.fast = None
        self.written_for = None  # the `_fast_entry` `fast` was written for
        self.caller = None  # a CallerEntry when the owner's `__call__` is the hit itself
        self.pending = None  # (executable, BranchGuardFailed) when `hit` ran a program assuming the other branch

    def call(self, args: tuple, kwargs: dict, compile_fn, run: bool = True):
        """Run the cached executable for these inputs, compiling it first when needed.

        With `run` False the executable is only compiled (or found) and None is returned (MindSpore's
        MS_DEV_PRECOMPILE_ONLY): nothing runs and no Parameter is written.
        """
        if not kwargs and run:
            out = self.hit(args)
            if out is not MISS:
                return out
        pending, self.pending = self.pending, None  # (executable, BranchGuardFailed) of a run just redone
        if not kwargs and not self.extra_key and _CHECKS["on"] and pending is None and run:
            # Tensors only, several executables: the key built from shapes and dtypes alone (as below).
            arrays = [a._data for a in args if type(a) is Tensor]
            if len(arrays) == len(args):
                key = tuple((d.shape, d.dtype) for d in arrays)
                bucket = self.entries.get(key)
                if bucket and (self.compile_once or check_guards(bucket[0].guards) is None):
                    if len(self.entries) > 1:
                        self.entries[key] = self.entries.pop(key)
                    try:
                        return bucket[0](arrays, args)
                    except (RecursionCut, persistent.StaleExecutable):
                        pass  # compiled again (deeper; or traced) below
                    except HostShapeChanged as changed:  # below: the program kept for its new shapes, or a compile
                        self._host_variant(key, bucket[0], changed.site)
                    except BranchGuardFailed as failed:  # run again below, with the branch taken
                        pending = (bucket[0], failed)
        leaves: list = []
        sig: list = []
        params: list = []
        cells: list = []
        refs: list = []
        args_t = tuple(flatten(a, leaves, sig, params, cells, refs) for a in args)
        kw_t = tuple((k, flatten(v, leaves, sig, params, cells, refs)) for k, v in kwargs.items()) if kwargs else ()
        key = (tuple(sig), tuple(kwargs)) if kwargs else tuple(sig)
        if self.extra_key:
            key = (key, self.extra_key)
        if not _CHECKS["on"]:  # graphs compiled with value checks are not reused without them
            key = (key, "unchecked")
        if self.dynamic is not None and not self.dynamic_off and not kwargs and run:
            dynamic = self._dynamic_shapes(args, leaves, sig)
            if dynamic is not None:
                out = self._call_dynamic(dynamic, (args_t, kw_t), leaves, params, cells, refs, compile_fn, args)
                if out is not _STATIC:
                    return out
        bucket = self.entries.get(key)
        reason = "first call" if not self.entries else "new input signature"
        ex = None
        if bucket is not None:
            for cached in bucket:
                failed = None if self.compile_once else check_guards(cached.guards)
                if failed is None:
                    if len(self.entries) > 1:  # most recently used last: eviction takes the first
                        self.entries[key] = self.entries.pop(key)
                    ex = cached
                    break
                reason = failed
        if ex is None:
            ex = self._compile(key, (args_t, kw_t), leaves, params, cells, refs, compile_fn, reason)
        if not run:
            self._set_fast(None)
            return None
        self._set_fast(self._fast_entry(args, kwargs, sig, ex))
        failure = pending[1] if pending is not None and pending[0] is ex else None
        tried: set = set()  # the plans this call ran whose branch guards failed
        reshaped = 0  # retraces of this call for host steps' new result shapes
        while True:
            try:
                if failure is not None:
                    raise failure
                out = run_executable(ex, leaves, args, kwargs)
                self._find_launch(ex, leaves)
                return out
            except BranchGuardFailed as failed:  # nothing was applied: run the program for the branch taken
                failure = None
                ex = self._respecialise(key, ex, failed, tried, (args_t, kw_t), leaves, params, cells, refs, compile_fn)
                self._set_fast(self._fast_entry(args, kwargs, sig, ex))
                continue
            except RecursionCut as cut:  # nothing was written back: compile the recursion deeper, run again
                self._deepen(cut)
                reason = "a recursion on Tensor values went deeper than compiled"
                self.entries[key].remove(ex)
            except persistent.StaleExecutable:  # loaded from disk for other inputs: trace and compile this call
                reason = "the executable loaded from disk does not fit these inputs"
                self.entries[key].remove(ex)
            except HostShapeChanged as changed:  # nothing was applied: run the program for the shapes it gave
                reshaped += 1
                if reshaped > changed.MAX_RETRACES:
                    raise changed.refused() from None
                other = self._host_variant(key, ex, changed.site)
                if other is not None:  # compiled for these shapes before: no compile
                    ex = other
                    self._set_fast(self._fast_entry(args, kwargs, sig, ex))
                    continue
                reason = str(changed)  # the program of the old shapes stays: it serves when they come back
            with persistent.loading_suspended():  # traced again (an executable on disk would be the same one)
                ex = self._compile(key, (args_t, kw_t), leaves, params, cells, refs, compile_fn, reason, ex.plan)
            self._set_fast(self._fast_entry(args, kwargs, sig, ex))

    def _host_variant(self, key, ran, site):
        """The executable of `key` compiled for the result shapes host step `site` just gave in `ran`'s run (a count
        seen before), moved first; None when there is none (the call compiles one).

        The steps after `site` did not run: their latest shapes are the old run's, so a program whose guards hold
        except on those serves too (a padded batch's masks select the same count at each step), and its shapes for
        them are taken as the latest. If one of them gives other shapes, that run stops there in turn and the call
        looks again (up to MAX_RETRACES)."""
        bucket = self.entries.get(key, [])
        fits = [
            e for e in bucket if e is not ran and holds_but_host_shapes(e.guards) and host_shapes_hold(e.guards, site)
        ]
        if not fits:
            return None
        other = next((e for e in fits if check_guards(e.guards) is None), fits[0])
        assume_host_shapes(other.guards)
        bucket.remove(other)
        bucket.insert(0, other)
        return other

    def _respecialise(self, key, ex, failed: BranchGuardFailed, tried: set, template, leaves, params, cells, refs,
                      compile_fn):  # fmt: skip
        """The executable for the branch this call takes at `failed.site`, where `ex` assumed the other one:
        one held for that plan (moved first: the one last taken is tried first), else compiled."""
        tried.add(ex.plan)
        plan = respecialised(ex.plan, failed.site)
        n = len(plan)
        bucket = self.entries[key]
        for other in bucket:
            if other.plan[:n] == plan and other.plan not in tried:
                if self.compile_once or check_guards(other.guards) is None:
                    bucket.remove(other)
                    bucket.insert(0, other)
                    self._set_fast(None)
                    return other
        if any(p[:n] == plan for p in tried):
            raise refused([failed.site], "one call failed the assumption of each branch (a condition that differs "
                          "between the examples of a vmap takes both)")  # fmt: skip
        reason = f"the Tensor if at {describe(failed.site)} took the branch this program did not assume"
        return self._compile(key, template, leaves, params, cells, refs, compile_fn, reason, plan)

    def hit(self, args: tuple):
        """The outputs of the cache's one executable called on `args` without building their key (see `fast`).

        Args:
            args: the positional arguments (no keyword arguments).

        Returns:
            The outputs, or MISS when the call needs its key built (`call`).
        """
        fast = self.fast
        return MISS if fast is None else fast(args)

    def _fast_entry(self, args: tuple, kwargs: dict, sig: list, ex):
        """The `fast` entry for a call that ran `ex` as `_hit_function`'s (lead, n, ex, direct, guards), or None
        when the next call must build its key."""
        if kwargs or self.extra_key or self.dynamic is not None or not _CHECKS["on"]:
            return None
        if len(self.entries) != 1 or self.size != 1:
            return None
        if not getattr(ex, "checks_inputs", False):
            return None
        lead = _NO_LEAD
        if args and type(args[0]) is not Tensor:
            # keyed by identity (sig "o"): the same object is the same key; a value (a list) could change
            if sig[0][0] != "o" or len(sig) != len(args):
                return None
            lead = args[0]
        n = len(args) - (lead is not _NO_LEAD)
        if any(type(a) is not Tensor for a in args[len(args) - n :]):
            return None
        guards = None if self.compile_once or not ex.guards else compile_guards(ex.guards)
        return lead, n, ex, ex.direct(), guards, None

    def _set_fast(self, entry) -> None:
        """Write `fast` (and the caller's `__call__`, see CallerEntry) for `_fast_entry`'s `entry`, or drop them
        for None. The same entry as the last one keeps the functions written for it."""
        if entry is None:
            if self.fast is not None:
                self.fast = self.written_for = None
                if self.caller is not None:
                    self.caller.install(None)
            return
        last = self.written_for
        if self.fast is not None and last is not None and all(map(operator.is_, entry[:3], last[:3])):
            if entry[5] is None or entry[5] is last[5]:  # the functions written for it stay (a launch found too)
                return
        self.fast, self.written_for = _hit_function(self, *entry), entry
        if self.caller is not None:
            self.caller.install(_hit_function(self, *entry, self.caller))

    def _find_launch(self, ex, leaves: list) -> None:
        """Write the hit functions again with a `Launch` of the fast entry's direct function, once per entry, after
        a call ran `ex` on `leaves` (a jax.jit has then compiled its executable for them)."""
        entry = self.written_for
        if self.fast is None or entry is None or entry[2] is not ex or entry[3] is None or entry[5] is not None:
            return
        direct = entry[3]
        program = direct.compiled if type(direct) is persistent.DirectExecutable else direct
        launch = launch_of(program, leaves) if len(leaves) == entry[1] else None
        self._set_fast((*entry[:5], False if launch is None else launch))

    def _call_dynamic(self, dynamic, template, leaves, params, cells, refs, compile_fn, args):
        shapes, key = dynamic
        bucket = self.entries.get(key)
        ex = bucket[0] if bucket and (self.compile_once or check_guards(bucket[0].guards) is None) else None
        if ex is None:
            try:
                t0 = time.perf_counter()
                ex = compile_fn(template, leaves, params, cells, shapes=shapes)
            except Exception as err:  # noqa: BLE001  (the program needs concrete sizes: one program per shape)
                self.dynamic_off = f"{type(err).__name__}: {str(err).splitlines()[0] if str(err) else ''}"
                if log_enabled():
                    B.compile_log.write(f"[kiln] '{self.name}': set_inputs with None sizes falls back to one program "
                                     f"per shape ({self.dynamic_off})\n")  # fmt: skip
                return _STATIC
            ex.refs = refs
            ex.shapes_seen = set()
            self.compiles += 1
            STATS["compiles"] += 1
            self.last_reason = "dynamic input signature"
            self._hold(key, [ex])
            if log_enabled():
                B.compile_log.write(
                    f"[kiln] recorded '{self.name}' once for input shapes {[list(map(str, s)) for s in shapes]} "
                    f"in {1000 * (time.perf_counter() - t0):.1f} ms\n"
                )
        concrete = tuple(tuple(x.shape) for x in leaves)
        if concrete not in ex.shapes_seen:
            ex.shapes_seen.add(concrete)
            if log_enabled():
                B.compile_log.write(f"[kiln] '{self.name}': XLA compiles the recorded program for shapes {concrete}\n")
        try:
            return run_executable(ex, leaves, args, {})
        except persistent.StaleExecutable:  # a Parameter read has another shape (set_data): recorded again
            self._set_fast(None)
            del self.entries[key]
            self.size = sum(len(b) for b in self.entries.values())
            return self._call_dynamic(dynamic, template, leaves, params, cells, refs, compile_fn, args)

    def set_dynamic(self, signature) -> None:
        """Declared input shapes (`Cell.set_inputs`, `jit(input_signature=...)`): with None sizes, one
        program serves every size (recorded once, compiled by XLA per concrete shape)."""
        sig = signature if isinstance(signature, (tuple, list)) else (signature,)
        specs = tuple((tuple(s.shape), s.dtype) if hasattr(s, "shape") and hasattr(s, "dtype") else None for s in sig)
        if any(spec is not None and any(d in (None, -1) for d in spec[0]) for spec in specs):
            self.dynamic = specs
        else:
            self.dynamic = None

    def _dynamic_shapes(self, args: tuple, leaves: list, sig: list):
        """(symbolic input shapes, key) when these arguments fit the declared dynamic signature, else None.

        A dimension declared None gets the symbol `d<axis>`: the same symbol at the same axis of every
        argument (a shared batch size); a call where those sizes differ uses the per-shape programs."""
        tensors = [a for a in args if isinstance(a, Tensor) and not isinstance(a, Parameter)]
        if len(tensors) != len(leaves) or len(tensors) != len(self.dynamic):
            return None
        shapes, key, sizes = [], [], {}
        for t, spec in zip(tensors, self.dynamic, strict=True):
            if spec is None or len(spec[0]) != t.ndim or spec[1] != t.dtype:
                return None
            shape = []
            for axis, (want, got) in enumerate(zip(spec[0], t.shape, strict=True)):
                if want in (None, -1):
                    if sizes.setdefault(axis, got) != got:
                        return None
                    shape.append(_symbol(axis))
                else:
                    shape.append(got)
            shapes.append(tuple(shape))
            key.append((spec[0], t._data.dtype))
        other = tuple(e for e in sig if not (type(e) is tuple and len(e) == 2 and type(e[0]) is tuple))
        return shapes, ("dynamic", tuple(key), other)

    @staticmethod
    def _deepen(cut: RecursionCut) -> None:
        limit = int(_context.get("max_call_depth") or 1000)
        depth = 2 * UNROLL.get(cut.graph, FIRST_UNROLL)
        if depth > limit:
            raise RecursionError(
                f"{cut}, and compiling {depth} calls deep would pass max_call_depth={limit}: raise it with "
                f"set_context(max_call_depth=...) if the recursion does end, or write it as a while loop."
            ) from None
        UNROLL[cut.graph] = depth

    def _compile(self, key, template, leaves, params, cells, refs, compile_fn, reason, plan: tuple = ()):
        t0 = time.perf_counter()
        ex = compile_fn(template, leaves, params, cells, plan=dict(plan))  # Tensor ifs may be specialised
        ex.refs = refs  # keeps objects keyed by identity alive
        self.compiles += 1
        STATS["compiles"] += 1
        self.last_reason = reason
        bucket = self.entries.pop(key, [])
        if reason not in ("first call", "new input signature"):
            # A failed guard means the old entry can never be valid again for this key, except one on a host
            # step's result shapes: that program serves again when its count comes back (the latest few are kept).
            bucket[:] = [e for e in bucket if holds_but_host_shapes(e.guards)]
            stale = [e for e in bucket if check_guards(e.guards) is not None]
            for e in stale[LIMITS["host_variants"] :]:
                bucket.remove(e)
        bucket.insert(0, ex)
        self._hold(key, bucket)
        if log_enabled():
            B.compile_log.write(
                f"[kiln] compiled '{self.name}' ({reason}) in {1000 * (time.perf_counter() - t0):.1f} ms\n"
            )
        if self.compiles > LIMITS["warn_after"] and not self.warned:
            self.warned = True
            warnings.warn(
                f"'{self.name}' has been compiled {self.compiles} times (last reason: {reason}). Each new input shape, "
                f"Python scalar value or changed global compiles again: pass changing scalars as Tensors or "
                f"mutable(...), keep shapes fixed (pad batches), or see KILN_LOG=compiles for every reason.",
                stacklevel=user_stacklevel(),
            )
        return ex

    def _hold(self, key, bucket: list) -> None:
        """Keep `bucket` (newest executable first) under `key`, within the limits."""
        self._set_fast(None)
        self.entries[key] = bucket
        self.size = sum(len(b) for b in self.entries.values())
        _LIVE.add(self)
        self._bound()

    def _bound(self) -> None:
        """Drop least recently used executables beyond the per-function and total bounds."""
        while self.size > LIMITS["per_function"] and len(self.entries) > 1:
            self._evict_oldest()
        total = sum(c.size for c in _LIVE)
        while total > LIMITS["total"]:
            largest = max(_LIVE, key=lambda c: c.size)
            if largest.size <= 1:
                break
            largest._evict_oldest()
            total -= 1

    def _evict_oldest(self) -> None:
        self._set_fast(None)
        key = next(iter(self.entries))
        bucket = self.entries[key]
        bucket.pop()
        if not bucket:
            del self.entries[key]
        self.size -= 1
