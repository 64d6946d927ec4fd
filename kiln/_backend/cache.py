"""Kiln's on-disk cache of compiled executables: a second process reuses what the first one compiled.

Every executable the backend compiles — Graph mode's whole programs and PyNative's small per-primitive
ones alike — is written to a Kiln-owned folder and read back by later processes instead of compiling again.
JAX's persistent compilation cache provides the mechanism; Kiln sets its thresholds so that small
executables are kept too (JAX's defaults skip anything that compiled in under a second, i.e. all of
PyNative's), and stores the entries itself:

- **where**: `KILN_CACHE_DIR` (default `~/.cache/kiln/xla`); `off` (or an empty value) disables the cache.
- **bounded**: `KILN_CACHE_MAX_MB` (default 1024). When the folder grows past it, the least recently used
  entries (by modification time, refreshed on every hit) are deleted down to 90% of the bound. A usage
  record (in `<dir>/.lock`: the folder's bytes as of its last full scan, plus every write since) spares a
  process the full scan of a big folder on its first write; it is trusted for `USAGE_MAX_AGE` seconds after
  that scan, so bytes it misses (a writer killed between its write and its credit, an older Kiln sharing the
  folder, a writer that found the lock taken: at most 5% of the bound each) overshoot the bound only until
  the next scan.
- **safe with concurrent processes**: an entry is written to a private temporary file and renamed into
  place, so a reader sees either the whole entry or none; eviction runs under an exclusive `flock` on
  `<dir>/.lock` (a process that finds it taken skips its turn); a reader whose entry was just evicted
  compiles instead.

`enable()` is idempotent and runs when `kiln._backend` is imported. `info()` and `clear()` serve
`kiln cache info|clear`.

`persistent_jit(fun, key)` goes one step further for many small functions (PyNative's per-primitive
kernels): JAX's cache is looked up only after tracing and lowering, which is most of the cost of a warm
first call; `persistent_jit` keeps the serialized executable under (key, input signature) in the same
folder (`kiln-k3-*` entries), so a warm process deserializes it without tracing or lowering anything. Kernels
whose results cannot depend on LLVM's optimisation level are compiled quickly (-O0) first and optimised in
the background from their second call (`QUICK_FIRST_COMPILE`, `KILN_QUICK_COMPILE=0` turns it off).

Graph mode's whole programs are stored the same way by kiln/_compiler (`kiln-g1-*` entries, through
`write_later`/`read`/`load_executable`), under a key computed before tracing (kiln/_compiler/cache/persistent.py).
"""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import json
import os
import pickle
import re
import tempfile
import threading
import time
import weakref
import zlib
from collections.abc import Callable
from concurrent.futures import Future as _Future
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from functools import partial
from pathlib import Path

import jax
import jaxlib
import jaxlib.xla_client
import numpy
from jax._src import compiler as _jax_compiler  # compile options for a program compiled from its text
from jax._src import core as _jax_core  # whether a call is at top level (no public name for it)
from jax.experimental.serialize_executable import deserialize_and_load, serialize

from kiln._backend import compile_log, gc_pause, host_memory, precision, tiers

try:
    from jax._src import compilation_cache as _jax_compilation_cache  # the store is internal to JAX
except ImportError:  # another JAX: its own store
    _jax_compilation_cache = None

try:
    import fcntl
except ImportError:  # not POSIX: eviction runs without the inter-process lock
    fcntl = None

__all__ = [
    "MAX_EXECUTABLES",
    "CacheInfo",
    "DiskCache",
    "PersistentJit",
    "cache_dir",
    "clear",
    "compile_fresh",
    "compile_program",
    "compile_stored",
    "default_device",
    "device_text",
    "discard",
    "enable",
    "enabled_dir",
    "env_count",
    "env_key",
    "exact_rounding_options",
    "flush_writes",
    "info",
    "load_executable",
    "max_bytes",
    "persistent_jit",
    "read",
    "resident",
    "serialize_executable",
    "source_fingerprint",
    "wait_optimized",
    "write_later",
]

ENV_DIR = "KILN_CACHE_DIR"
ENV_MAX_MB = "KILN_CACHE_MAX_MB"
DEFAULT_MAX_MB = 1024
SUFFIX = "-cache"  # JAX's own file naming: `<key>-cache`
LOCK_NAME = ".lock"
USAGE_MAX_AGE = 600.0  # seconds a usage record is trusted after the scan it started from
TMP_PREFIX = ".tmp-"
LOW_WATER = 0.9  # eviction goes down to this share of the bound
STALE_TMP_SECONDS = 3600  # temporary files older than this were left by a killed writer


def cache_dir() -> Path | None:
    """The folder `KILN_CACHE_DIR` names (default `~/.cache/kiln/xla`), or None when it says `off`."""
    raw = os.environ.get(ENV_DIR)
    if raw is None:
        return Path.home() / ".cache" / "kiln" / "xla"
    if not raw.strip() or raw.strip().lower() in ("off", "0", "false", "none"):
        return None
    return Path(raw).expanduser()


def max_bytes() -> int:
    """The bound on the folder's size in bytes (`KILN_CACHE_MAX_MB`, default 1024 MiB)."""
    raw = os.environ.get(ENV_MAX_MB, "")
    try:
        mb = float(raw) if raw.strip() else DEFAULT_MAX_MB
    except ValueError:
        mb = DEFAULT_MAX_MB
    return max(0, int(mb * 2**20))


class DiskCache:
    """The store behind JAX's persistent compilation cache: atomic writes, LRU eviction by total size.

    Implements JAX's cache interface (`get`, `put`, `_path`). Entries are `<key>-cache` files; a hit refreshes
    the entry's modification time, which is the LRU order. Every write is credited to the folder's usage
    record (kept in the lock file, read and written under the lock); the folder is scanned (and evicted from
    when over the bound) only when the record is missing, stale or damaged, when the credit takes it over the
    bound, or, while the lock is taken by others, after 5% of the bound written without a credit.
    """

    def __init__(self, path: str | os.PathLike, max_size: int) -> None:
        self.path = self._path = Path(path)
        self.path.mkdir(parents=True, exist_ok=True)
        self.max_size = max_size
        self._lock = threading.Lock()
        self._uncredited = 0  # bytes this store wrote that no usage record or scan has counted yet

    def get(self, key: str) -> bytes | None:
        if not key:
            raise ValueError("key cannot be empty")
        if getattr(_fresh, "on", False) and not key.startswith("kiln-"):
            return None  # persistent_jit is compiling: it needs a fresh executable to serialize
        entry = self.path / f"{key}{SUFFIX}"
        try:
            data = entry.read_bytes()
        except (FileNotFoundError, IsADirectoryError):
            return None
        try:
            os.utime(entry)  # most recently used now
        except OSError:  # evicted meanwhile: the bytes read are whole, so still usable
            pass
        return data

    def put(self, key: str, value: bytes, replace: bool = False) -> None:
        """Store `value` under `key` (atomically); an existing entry is kept unless `replace`."""
        if not key:
            raise ValueError("key cannot be empty")
        if len(value) > self.max_size:
            return  # larger than the whole cache may be
        if getattr(_fresh, "on", False) and not key.startswith("kiln-"):
            return  # persistent_jit is compiling: it stores its own serialized copy
        entry = self.path / f"{key}{SUFFIX}"
        if not replace and entry.exists():
            return
        fd, tmp = tempfile.mkstemp(prefix=TMP_PREFIX, dir=self.path)
        try:
            with os.fdopen(fd, "wb") as f:
                f.write(value)
            os.replace(tmp, entry)
        except BaseException:
            _unlink(Path(tmp))
            raise
        with self._lock:
            self._uncredited += len(value)
        self._credit()

    def _credit(self) -> None:
        """Add what this store wrote to the usage record; scan and evict instead when the record is not
        trusted or the bytes take it over the bound."""
        flock = _Flock(self.path / LOCK_NAME, blocking=False)
        with flock as held:
            if held:
                with self._lock:
                    written, self._uncredited = self._uncredited, 0
                usage = _read_usage(flock.fd)
                if usage is not None and usage[0] + written <= self.max_size:
                    if _write_usage(flock.fd, usage[0] + written, usage[1]):
                        return
                self._evict_locked(None, flock.fd)
                return
        # Another process (or thread) holds the lock: credit later, but scan after 5% of the bound regardless.
        with self._lock:
            due = self._uncredited > self.max_size // 20
        if due:
            self.evict()

    def evict(self, target: int | None = None) -> int:
        """Delete least recently used entries until the folder is at most `target` bytes (default: 90% of
        the bound, only when over the bound). Returns the bytes freed; 0 when another process holds the lock.
        """
        flock = _Flock(self.path / LOCK_NAME, blocking=False)
        with flock as held:
            return self._evict_locked(target, flock.fd) if held else 0

    def _evict_locked(self, target: int | None, lock_fd: int | None) -> int:
        # The scan counts every entry on disk, this store's uncredited ones too.
        with self._lock:
            self._uncredited = 0
        scanned_at = time.time()
        entries, total = _scan(self.path)
        freed = 0
        if target is not None or total > self.max_size:
            target = int(self.max_size * LOW_WATER) if target is None else target
            for _mtime, size, p in sorted(entries):
                if total - freed <= target:
                    break
                if _unlink(p):
                    freed += size
        _write_usage(lock_fd, total - freed, scanned_at)
        return freed


@dataclass
class CacheInfo:
    """What `kiln cache info` shows."""

    path: Path | None
    enabled: bool
    entries: int
    bytes: int
    max_bytes: int
    files: int


_enabled_dir: Path | None = None
_enable_lock = threading.Lock()
_done = False


def enable() -> Path | None:
    """Point the backend's persistent compilation cache at Kiln's folder, with Kiln's thresholds and store.

    Idempotent (later calls return the first call's answer). Returns the folder, or None when the cache is
    off (`KILN_CACHE_DIR=off`) or the folder cannot be created; compiling works the same either way.
    """
    global _enabled_dir, _done
    with _enable_lock:
        if _done:
            return _enabled_dir
        _done = True
        path = cache_dir()
        if path is None:
            return None
        try:
            path.mkdir(parents=True, exist_ok=True)
            _install(path, max_bytes())
        except Exception:  # noqa: BLE001  (an unwritable home must not break compiling)
            return None
        _enabled_dir = path
        global _store
        _store = DiskCache(path, max_bytes())
        return path


def enabled_dir() -> Path | None:
    """The folder this process caches in (None before `enable()` or when the cache is off)."""
    return _enabled_dir


def _install(path: Path, limit: int) -> None:
    jax.config.update("jax_compilation_cache_dir", str(path))
    # Keep every executable: PyNative's per-primitive ones compile in milliseconds and are a few KiB.
    jax.config.update("jax_persistent_cache_min_compile_time_secs", 0.0)
    jax.config.update("jax_persistent_cache_min_entry_size_bytes", 0)
    jax.config.update("jax_compilation_cache_max_size", -1)  # the bound is Kiln's (JAX's needs filelock)
    cc = _jax_compilation_cache
    if cc is None:
        return  # another JAX: its own store, unbounded
    if not hasattr(cc, "get_file_cache") or not hasattr(cc, "reset_cache"):
        return

    def get_file_cache(p):
        store = DiskCache(p, limit)
        if getattr(jax.config, "jax_compilation_cache_check_contents", False):
            return cc.VerificationCache(store), p
        return store, p

    cc.get_file_cache = get_file_cache
    cc.reset_cache()  # a cache JAX opened earlier in this process is reopened through Kiln's store
    global _ours
    _ours = True


class PersistentJit:
    """`jax.jit(fun)` for positional arguments, whose executables are kept on disk under (key, signature).

    A call looks its input signature (the abstract value and placement of each array; the type of each
    Python scalar; None) up in memory, then in the cache folder (entry `kiln-<hash>-cache`), and only then
    traces, lowers and compiles; what it compiles is serialized into the folder (on a writer thread) for the
    next process. Any argument it cannot describe (a tracer, a NumPy array, a list...), arrays on several
    devices, and any failure to load or compile fall back to the plain `jax.jit(fun)`, which also raises the
    errors in JAX's words.

    The entry's name hashes `key`, the input signature, the device's platform and kind, and `_env_key()`
    (JAX and jaxlib versions, the x64 flag and the other JAX settings that change tracing, XLA_FLAGS, and a
    fingerprint of Kiln's own sources), so an entry is only ever read back by a process that would have
    compiled the same program.

    Args:
        fun: the function (its positional arguments are arrays, Python scalars or None).
        key: what identifies `fun` across processes (e.g. a primitive's name and attributes): two
            functions with the same key and signature must compute the same thing. None: kept in memory only.
        label: what `fun` computes, in words, for the compile log (`KILN_LOG=compiles`).
        first_call: called with the arguments before the first run of each signature (every call of one that
            has none: a tracer, a NumPy array); what it raises, the call raises.
    """

    __slots__ = (
        "_jitted", "_donate", "_key", "_mem", "_tiered", "_ref", "_label", "_first", "__wrapped__", "__weakref__"
    )  # fmt: skip

    def __init__(
        self,
        fun,
        key: str | None,
        donate_argnums: tuple[int, ...] = (),
        tiered: bool = False,
        label: str = "a kernel",
        first_call: Callable | None = None,
    ) -> None:
        # A function object of its own: JAX's in-memory caches (keyed by function and by program object)
        # then never hand back an executable that JAX read from its on-disk cache, which would not
        # serialize whole on CPU (its functions are missing when loaded again).
        donate_argnums = tuple(sorted(donate_argnums))
        self._label = label
        self._jitted = jax.jit(compile_log.named(fun, label), donate_argnums=donate_argnums)
        self._donate = donate_argnums
        self._key = f"{key}|donate{list(donate_argnums)}" if donate_argnums and key is not None else key
        self._first = first_call
        self._mem: dict = {}
        self._tiered = tiered
        self._ref = weakref.ref(self, _owner_gone)
        self.__wrapped__ = fun

    def __call__(self, *args):
        try:
            # JAX's settings in force here (x64, matmul precision...: what jax.jit keys its own cache on too)
            sig = _signature(args)
        except _Unknown:
            if self._first is not None:
                self._first(*args)
            return self._jitted(*args)
        ex = self._mem.get(sig)
        if ex is not None and type(ex) is not _Future:
            return ex(*args)
        if self._first is not None:
            self._first(*args)
        if ex is None:
            with gc_pause.paused():  # (a build's trace fills the collector's generations again and again)
                ex = self._load_or_compile(sig, args)
            if len(self._mem) >= MAX_SIGNATURES:  # bounded: the oldest signature's executable goes
                del self._mem[next(iter(self._mem))]
        else:  # started by compile_ahead: wait for it (None: it did not run, or under other settings)
            ex = _outcome(ex, None) or self._load_or_compile(sig, args)
        _admit(self, sig)
        out = ex(*args)
        # A compiled executable's C++ entry point (made by its first call) skips a Python frame per call.
        self._mem[sig] = getattr(ex, "_call", None) or ex
        return out

    def compile_ahead(self, *args) -> None:
        """Start loading or compiling, on a worker thread, the executable a later call with arguments of the
        same signature as `args` will need (a call that comes before it is ready waits for it)."""
        try:
            sig = _signature(args)
        except _Unknown:
            return
        if sig in self._mem or _store is None:
            return
        if len(self._mem) >= MAX_SIGNATURES:
            del self._mem[next(iter(self._mem))]
        self._mem[sig] = _ahead().submit(self._ahead_task, sig, args)
        _admit(self, sig)

    def _ahead_task(self, sig, args):
        # A setting the caller changed for its own thread only (a context manager) does not hold on the
        # worker: then the caller compiles for itself.
        return self._load_or_compile(sig, args) if _trace_context() == sig[0] else None

    def _load_or_compile(self, sig, args):
        store = _store
        placements = {d[3] for d in sig[1:] if type(d) is tuple}
        if not placements:
            # no array input (a Fill window: `zeros`, `ones`): the program runs on the default device, as jit's would
            placements = {jax.sharding.SingleDeviceSharding(default_device())}
        if len(placements) != 1:
            return self._jitted
        devices = next(iter(placements)).device_set
        if len(devices) != 1:
            return self._jitted
        device = next(iter(devices))
        if store is None or self._key is None:
            # Nothing is stored; a whole program (a lazy window) still gets its quick tier: without it, the cache
            # off (bench_zoo's cold first steps) or an op without a name across processes compiled every PyNative
            # window fully optimised (MobileNetV2's backward pieces: tens of seconds)
            if self._tiered and device.platform == "cpu" and tiers.mode() != "off":
                return self._unstored(args, device)
            return self._jitted
        # "k3": entries of programs without custom calls only, a (quick, executable) pair (older entries may
        # hold custom calls, or no tier: never read them)
        name = "kiln-k3-" + hashlib.sha256(_entry_text(self._key, sig[1:], device).encode()).hexdigest()
        data = store.get(name)
        if data is not None:
            try:
                quick, triple = pickle.loads(data)
                # a tiered program's quick tier gives other last bits: not where every call must run optimised
                if not (quick and self._tiered and tiers.mode() == "off"):
                    ex = deserialize_and_load(*triple, backend=device.client, execution_devices=[device])
                    if type(quick) is float:  # a tiered program's quick tier, with its compile's duration
                        return self._tiered_run(ex, sig, args, name, device, store, quick)
                    return _Quick(ex, self, sig, args, name, device) if quick else ex
            except Exception:  # noqa: BLE001  (damaged: drop it and compile again)
                _unlink(store.path / f"{name}{SUFFIX}")
        try:
            lowered = self.lower(*args)
            text = lowered.as_text()
            if "custom_call" in text:
                # A custom call (LAPACK on CPU, cuSOLVER...) does not survive serialization: the executable
                # loaded back crashes the process. Such programs go through jax.jit (and JAX's own cache).
                return self._jitted
            quick = device.platform == "cpu" and QUICK_FIRST_COMPILE and _tier_invariant(text)
            if not quick and self._tiered and device.platform == "cpu" and tiers.worth_tiering(text):
                return self._tiered_executable(lowered, sig, name, device, store, text)
            # An executable JAX read back from its own cache does not serialize whole on CPU (its
            # functions are missing when loaded again), so this compile neither reads nor writes that cache
            # (the entry written below is the only copy on disk).
            compiled = _compile_with_options(lowered, device.platform, quick, text)
        except Exception:  # noqa: BLE001  (jax.jit raises its own error, in its own words, at the call)
            return self._jitted
        _write_later(store, name, compiled, quick)
        return _Quick(compiled, self, sig, args, name, device) if quick else compiled

    def _unstored(self, args, device):
        """The executable of a tiered program that is kept in memory only: quick first when `tiers.worth_tiering`,
        else optimised, both compiled with Kiln's options as a stored program's are."""
        try:
            lowered = self.lower(*args)
            text = lowered.as_text()
            if not tiers.worth_tiering(text):
                return _compile_with_options(lowered, device.platform, text=text)
            started = time.perf_counter()
            quick = _compile_with_options(lowered, device.platform, quick=True, text=text)
        except Exception:  # noqa: BLE001  (jax.jit raises its own error, in its own words, at the call)
            return self._jitted
        compile_s = time.perf_counter() - started
        return tiers.Tiered(
            quick, lambda: _compile_with_options(lowered, device.platform, text=text), None, None, compile_s
        )

    def _tiered_executable(self, lowered, sig, name: str, device, store: DiskCache, text: str):
        """A quick executable now, the optimised one from the tier-up thread (only that one is stored)."""
        platform = device.platform
        started = time.perf_counter()
        quick = _compile_with_options(lowered, platform, quick=True, text=text)
        compile_s = time.perf_counter() - started
        # XLA's defaults for this optimised tier (as GRAPH_MODE's) ran the transformer's PyNative step in 0.85x the
        # CPU time and LeNet5's in 1.02-1.04x (session 14, load 8-9). Reverted unmeasured: once they (and the lazy
        # window's error sites) landed, the full suite's xdist workers were twice killed by the OOM killer at 17 GB.

        # Until an optimised executable replaces it, the quick one is what a later process loads, with the quick
        # compile's duration (a float where a quick kernel's entry says True): that process tiers up by the same rule.
        _write_later(store, name, quick, max(compile_s, 1e-6))
        return self._tiered_run(quick, sig, (), name, device, store, compile_s, lambda: lowered)

    def _tiered_run(self, quick, sig, args, name: str, device, store: DiskCache, compile_s: float, lowered=None):
        """The Tiered program over the quick executable `quick`; its optimised compile lowers again (from abstract
        values) when the program was loaded from disk."""
        platform = device.platform
        if lowered is None:
            abstract = tuple(_abstract(a) for a in args)

            def lowered():
                return self.lower(*abstract)

        def swap(better) -> None:  # the caller's thread: later calls find the optimised executable directly
            if self._mem.get(sig) is tiered:
                self._mem[sig] = better

        tiered = tiers.Tiered(
            quick,
            lambda: _compile_with_options(lowered(), platform),
            lambda better: _write(store, name, better, False, replace=True),
            swap,
            compile_s,
        )
        return tiered

    def lower(self, *args):
        """`jax.jit(fun).lower(*args)` through a jax.jit of its own: JAX keeps what it traced and lowered (about
        0.6 MB for a small kernel) in caches keyed weakly on the function, and `_jitted` lives as long as this
        object, so lowering through it would keep that for every signature ever compiled."""
        fun = compile_log.named(self.__wrapped__, self._label)
        return jax.jit(fun, donate_argnums=self._donate).lower(*args)


def persistent_jit(
    fun,
    key: str | None,
    donate_argnums: tuple[int, ...] = (),
    tiered: bool = False,
    label: str = "a kernel",
    first_call: Callable | None = None,
):
    """`PersistentJit(fun, key, donate_argnums, tiered)` when the cache is on (with Kiln's store behind JAX's) and
    `key` names the program, else `jax.jit(fun, donate_argnums=donate_argnums)` compiling with the same XLA
    options as PersistentJit (`_CPU_OPTIONS`: on CPU the classic emitters compile PyNative's kernels several
    times faster, to the same numbers); a PersistentJit that stores nothing when `first_call` or `tiered` is given
    without the cache.

    Args:
        fun: a function of positional arrays, Python scalars and None.
        key: text naming what `fun` computes, the same in every process that runs the same program (e.g. a
            primitive's name and attributes, or a hash of a whole graph's text with its constants); None for
            a program that has no such name (kept in memory only).
        donate_argnums: positions whose buffers the executable may reuse for its outputs.
        tiered: a program large enough (`tiers.worth_tiering`) runs a quickly compiled executable until the
            optimised one, compiled in the background, takes over (whole programs: the lazy window's).
        label: what `fun` computes, in words, for the compile log (`KILN_LOG=compiles`).
        first_call: called with the arguments of the first call of each input signature, before anything runs
            (a primitive's input check); what it raises, the call raises.

    Returns:
        A callable with jax.jit's behaviour (and its `lower`); called inside a program being traced, it stages `fun`
        without the XLA options, which JAX takes on a top-level jit only.
    """
    stored = key is not None and _store is not None and _ours
    if stored or first_call is not None or tiered:
        return PersistentJit(fun, key if stored else None, donate_argnums, tiered, label, first_call)
    # XLA's debug options are one set for every platform: a CPU option is ignored by a GPU compile
    options = _compiler_options("cpu") if jax.default_backend() == "cpu" else None
    named = compile_log.named(fun, label)
    jitted = jax.jit(named, donate_argnums=tuple(donate_argnums), compiler_options=options)
    return jitted if options is None else _TopLevelOptions(jitted, named, tuple(donate_argnums))


class _TopLevelOptions:
    """A `jax.jit` compiled with XLA options when called at top level, and staged without them when called inside
    a program being traced (`kiln.export` of a PyNative network traces its ops' kernels into one program): JAX
    refuses compiler options on a nested jit. PersistentJit does the same for a tracer argument."""

    __slots__ = ("_donate", "_fun", "_nested", "_top")

    def __init__(self, top, fun, donate_argnums: tuple[int, ...]) -> None:
        self._top, self._fun, self._donate, self._nested = top, fun, donate_argnums, None

    def __call__(self, *args):
        if _jax_core.trace_ctx.is_top_level():
            return self._top(*args)
        if self._nested is None:  # made at the first nested call: a kernel run at top level only never needs it
            self._nested = jax.jit(self._fun, donate_argnums=self._donate)
        return self._nested(*args)

    def lower(self, *args):
        """`jax.jit(fun).lower(*args)`, with the options."""
        return self._top.lower(*args)


MAX_SIGNATURES = 256  # executables one PersistentJit keeps in memory (one per input signature)


# Executables all PersistentJits keep in memory together (PyNative's kernels, lazy window and backward programs);
# past it the one admitted longest ago goes, and a later call loads it back from disk (about a millisecond for a
# kernel). Each holds 0.1-0.3 MB for a small kernel and more for a whole step; without a bound a process that
# meets ever new shapes grows without end (the test suite's workers did). A training step of the benchmarks
# needs tens to a few hundred (`resident`).
def env_count(name: str, default: int) -> int:
    """The positive int the environment variable `name` sets, else `default` (also for a value that is no int)."""
    try:
        return max(1, int(os.environ.get(name, default)))
    except ValueError:
        return default


MAX_EXECUTABLES = env_count("KILN_MAX_PYNATIVE_EXECUTABLES", 1024)
_resident: dict = {}  # (id(owner), signature) -> weakref to the owner: every executable kept, oldest first
_resident_lock = threading.Lock()
_gone = [0]  # owners collected since the last sweep (their entries still count)


def _owner_gone(_ref) -> None:
    _gone[0] += 1


def _admit(owner: PersistentJit, sig: tuple) -> None:
    """Count `owner`'s executable for `sig` against MAX_EXECUTABLES (as the newest); evict the oldest past it."""
    key = (id(owner), sig)
    with _resident_lock:
        _resident.pop(key, None)
        _resident[key] = owner._ref
        if len(_resident) <= MAX_EXECUTABLES:
            return
        if _gone[0]:  # collected owners' entries hold nothing: drop them before evicting live ones
            _gone[0] = 0
            for k in [k for k, r in _resident.items() if r() is None]:
                del _resident[k]
        while len(_resident) > MAX_EXECUTABLES:
            (_, old_sig), ref = _pop_oldest()
            old = ref()
            if old is not None:
                old._mem.pop(old_sig, None)


def _pop_oldest():
    k = next(iter(_resident))
    return k, _resident.pop(k)


def forget_executables() -> None:
    """Drop every executable the PersistentJits of this process keep in memory, and JAX's own caches: the next call
    of each traces and compiles again (after a setting that changes programs but no argument, e.g. TF32 on a GPU)."""
    with _resident_lock:
        owners = [r() for r in _resident.values()]
        _resident.clear()
    for owner in owners:
        if owner is not None:
            owner._mem.clear()
    jax.clear_caches()


precision.on_change(forget_executables)


def resident() -> int:
    """How many executables the PersistentJits of this process keep in memory (at most MAX_EXECUTABLES)."""
    with _resident_lock:
        return sum(1 for (_, sig), r in _resident.items() if (o := r()) is not None and sig in o._mem)


# XLA options for the small executables PersistentJit compiles. On CPU, XLA's newer MLIR fusion emitters
# take about twice as long to compile PyNative's kernels as the classic LLVM IR emitters and give the same
# numbers (measured: benchmarks/bench_firstcall.py). A user's XLA_FLAGS setting of the same flag wins.
_CPU_OPTIONS = {"xla_cpu_use_fusion_emitters": False}
# A quick compile's LLVM module is not split for parallel codegen: at -O0 the split's own cost (a module per part,
# each through the codegen pipeline) outweighs the gain on 2 cores. Zoo first PyNative steps, interleaved, load
# 12-17 (session 23): the first step's CPU time 3.7-4.1 -> 2.7-3.5 s (MobileNetV2), 2.7-4.8 -> 2.1-2.2 s
# (Transformer), 1.3-3.3 -> 1.0-1.3 s (WGAN). It changes last bits in MobileNetV2's step only: after one step its
# BatchNorm beta gradients (sums that cancel to ~1e-15) and what follows from them; after 3 steps 4.5e-7 of an
# array's largest value, against 2.9e-5 between the quick and optimised tiers. Which XLA pass differs is not known
# (elementwise chains and 1,800-op programs of reductions give the same bits either way).
_CPU_QUICK_OPTIONS = {"xla_cpu_parallel_codegen_split_count": 1}


_UNKNOWN_OPTION = "No such compile option"  # XLA's words for an option it does not know


class _OptionSupport:
    """Whether this XLA accepts some compile options (None: not known yet), learnt from the first compile that passes
    them: an XLA that does not know an option fails before compiling anything, and that compile runs again without
    it, so no compile is spent asking."""

    def __init__(self) -> None:
        self.known: bool | None = None

    def compile(self, compile_with, options: dict | None, fallback: dict | None, tried: bool):
        """`compile_with(options)`, or `compile_with(fallback)` when XLA turns out not to know the options (`tried`:
        whether `options` holds any of the options in question)."""
        known = self.known
        try:
            compiled = compile_with(options)
        except Exception as err:
            if known is not None or not tried or _UNKNOWN_OPTION not in str(err):
                raise
            self.known = False
            return compile_with(fallback)
        if known is None and tried:
            self.known = True
        return compiled


_CPU_SUPPORT = _OptionSupport()  # _CPU_OPTIONS and _CPU_QUICK_OPTIONS (newer jaxlibs dropped the emitter flag)


def _cpu_options_accepted() -> bool:
    """Whether XLA here knows `_CPU_OPTIONS`. Known after the first kernel PersistentJit compiled (it tries them
    and learns from the answer); before that, asked with one compile of an identity function."""
    if _CPU_SUPPORT.known is None:
        try:
            jax.jit(lambda x: x, compiler_options={**_CPU_OPTIONS, **_CPU_QUICK_OPTIONS}).lower(0.0).compile()
            _CPU_SUPPORT.known = True
        except Exception:  # noqa: BLE001  (an XLA that does not know the flag: compile with its defaults)
            _CPU_SUPPORT.known = False
    return _CPU_SUPPORT.known


# XLA may compute a chain of float16/bfloat16 operations in float32 and round once at its end where the program says
# to round after each (`xla_allow_excess_precision`, on by default: it drops the convert pairs a backend without
# bfloat16 arithmetic puts around each operation). A fused program (GRAPH_MODE, the lazy window) then differs from
# the same operations run one by one, as MindSpore runs them: on the CPU a bfloat16 softmax written out of primitives
# in 244 of 16,384 elements in GRAPH_MODE and 15,890 in the lazy window, a bfloat16 Dense+GELU in 2,696 of 8,192
# (tests/_backend/test_low_precision_rounding.py). float32 programs compile to the same executable with or without
# it (float16 ones to the same values on the CPU, which computes float16 per operation); only programs that hold
# such values get it. Its price is bfloat16's on the CPU, which rounds each value in software: a bfloat16 (amp O3)
# two-block transformer train step took 1.6x the CPU time (35 -> 55 ms; float16's step the same executable);
# XLA_FLAGS=--xla_allow_excess_precision=true gives XLA's behaviour back.
_LOW_PRECISION_OPTIONS = {"xla_allow_excess_precision": False}


def _low_precision(text: str | None) -> bool:
    """Whether the lowered program `text` holds float16, bfloat16 or float8 values (StableHLO writes their tensor
    types tensor<4xbf16>, tensor<f16>, tensor<2xf8E4M3FN>; these substring tests read a 1,500-op program's 128 kB
    in 0.6 ms, a regular expression in 1.6 ms, against seconds of compiling it)."""
    return text is not None and ("f16>" in text or "xf8E" in text or "<f8E" in text)


def exact_rounding_options(dtypes) -> dict | None:
    """XLA's options for a program whose values have `dtypes`, to be passed to `jax.jit(compiler_options=...)`:
    `_LOW_PRECISION_OPTIONS` when one of them is float16, bfloat16 or float8 (a user's XLA_FLAGS setting of the
    same option wins), else None (XLA's defaults)."""
    names = {jax.numpy.dtype(d).name for d in dtypes}
    if not any(n in ("float16", "bfloat16") or n.startswith("float8") for n in names):
        return None
    flags = os.environ.get("XLA_FLAGS", "")
    return {k: v for k, v in _LOW_PRECISION_OPTIONS.items() if k not in flags} or None


def _compiler_options(
    platform: str, quick: bool = False, cpu_accepted: bool | None = None, low: bool = False
) -> dict | None:
    """XLA's options for a kernel on `platform` (`cpu_accepted`: whether to pass `_CPU_OPTIONS`; None: ask; `low`:
    the program holds float16/bfloat16 values, `_LOW_PRECISION_OPTIONS`)."""
    flags = os.environ.get("XLA_FLAGS", "")
    exact = _LOW_PRECISION_OPTIONS if low else {}
    if platform != "cpu":
        return {k: v for k, v in exact.items() if k not in flags} or None
    accepted = _cpu_options_accepted() if cpu_accepted is None else cpu_accepted
    cpu = _CPU_OPTIONS if accepted else {}
    options = {**cpu, **_QUICK_OPTIONS, **(_CPU_QUICK_OPTIONS if accepted else {})} if quick else cpu
    return {k: v for k, v in {**options, **exact}.items() if k not in flags} or None


def _compile_with_options(lowered, platform: str, quick: bool = False, text: str | None = None):
    """`compile_fresh` with Kiln's options (`text`: the lowered program's, when the caller has it). While nobody
    knows yet whether XLA accepts `_CPU_OPTIONS`, this compile tries them and its outcome answers (an XLA without
    them fails before compiling anything, and the kernel compiles again without them): a cold process spends no
    compile on asking."""
    known = _CPU_SUPPORT.known
    low = _low_precision(lowered.as_text() if text is None else text)
    options = _compiler_options(platform, quick, cpu_accepted=True if known is None else known, low=low)
    tried = options is not None and bool(options.keys() & (_CPU_OPTIONS.keys() | _CPU_QUICK_OPTIONS.keys()))
    fallback = _compiler_options(platform, quick, cpu_accepted=False, low=low)
    with compile_log.quick_tier() if quick else contextlib.nullcontext():
        return _CPU_SUPPORT.compile(partial(compile_fresh, lowered), options, fallback, tried)


# ---- quick first compiles --------------------------------------------------------------------------------
# LLVM's optimisations take most of the time of compiling a small elementwise CPU kernel (ReLU on a LeNet
# activation: ~50 ms optimised, ~18 ms at -O0) and speed it up 5-7x. For kernels made only of operations whose
# results cannot depend on LLVM's optimisation level (no multiply that could be contracted with an add into an
# FMA, no transcendental function approximated by a polynomial, no dot or convolution that XLA may emit as an
# LLVM loop: measured bit-identical at -O0 and -O2 in tests/_backend/test_quick_compile.py), the first
# compile is a quick -O0 one; once the kernel runs a second time, the optimised executable is compiled on
# a background thread and takes over (and replaces the entry on disk). KILN_QUICK_COMPILE=0 turns this off.
QUICK_FIRST_COMPILE = os.environ.get("KILN_QUICK_COMPILE", "1").strip().lower() not in ("0", "off", "false", "no")
_QUICK_OPTIONS = tiers.QUICK_OPTIONS
_TIER_INVARIANT = frozenset(
    "stablehlo." + op
    for op in (
        "constant broadcast_in_dim reshape transpose slice dynamic_slice dynamic_update_slice concatenate pad "
        "reverse iota convert bitcast_convert compare select maximum minimum clamp add subtract negate abs sign "
        "and or xor not shift_left shift_right_logical shift_right_arithmetic reduce reduce_window "
        "select_and_scatter gather scatter return get_tuple_element tuple optimization_barrier"
    ).split()
) | frozenset({"func.func", "func.call", "func.return", "mhlo.num_partitions", "mhlo.num_replicas"})
_OP_NAME = re.compile(r"(?<![#\w.])((?:stablehlo|chlo|mhlo|func|sdy|shardy)\.[a-z_]+)")
UPGRADE_AFTER = 2  # calls of a quick executable before its optimised one is compiled


def _tier_invariant(text: str) -> bool:
    """Whether a lowered program's results are the same at every LLVM optimisation level (see above)."""
    ops = set(_OP_NAME.findall(text))
    return bool(ops) and ops <= _TIER_INVARIANT


class _Quick:
    """A quick (-O0) executable that hands over to the optimised one: at its UPGRADE_AFTER-th call it starts
    compiling that on the background thread; once ready, the owner's memory holds the optimised executable."""

    __slots__ = ("ex", "owner", "sig", "args", "name", "device", "calls", "better")

    def __init__(self, ex, owner, sig, args, name, device) -> None:
        self.ex, self.owner, self.sig, self.name, self.device = ex, owner, sig, name, device
        # What lowering needs again: abstract values, not the buffers, nor the lowered program (its module is
        # several times the executable's size, and most kernels never run the UPGRADE_AFTER-th time).
        self.args = tuple(_abstract(a) for a in args)
        self.calls = 0
        self.better = None

    def __call__(self, *args):
        better = self.better
        if better is not None:
            out = better(*args)
            # the optimised executable's C++ entry point (made by that call) goes where this one was
            mem = self.owner._mem
            if mem.get(self.sig) is self:
                mem[self.sig] = getattr(better, "_call", None) or better
            return out
        self.calls += 1
        if self.calls == UPGRADE_AFTER:
            _optimizer().submit(self._upgrade)
        ex = self.ex
        out = ex(*args)
        self.ex = getattr(ex, "_call", None) or ex
        return out

    def _upgrade(self) -> None:
        if _trace_context() != self.sig[0]:
            return  # settings the caller set for its own thread do not hold here: stay quick (same results)
        try:
            lowered = self.owner.lower(*self.args)
            compiled = _compile_with_options(lowered, self.device.platform)
        except Exception:  # noqa: BLE001  (the quick executable stays: it computes the same)
            return
        self.args = None
        self.better = compiled
        store = _store
        if store is not None:
            _write(store, self.name, compiled, False, replace=True)


def wait_optimized(timeout: float | None = None) -> None:
    """Wait until the optimised executables asked for so far (quick kernels run twice) are compiled and in use
    (benchmarks measuring a steady state, tests), and the optimised tiers of whole programs (`tiers.wait`)."""
    pool = _threads.get(_OPTIMIZER)
    if pool is not None:
        pool.submit(lambda: None).result(timeout)  # one worker: what came before is done
    tiers.wait(timeout)


def _abstract(a):
    aval = getattr(a, "aval", None)
    if aval is None:
        return a  # a Python scalar or None: traced by type, as in the call
    return jax.ShapeDtypeStruct(aval.shape, aval.dtype, sharding=a.sharding, weak_type=aval.weak_type)


_OPTIMIZER = "kiln-optimize"


def _optimizer():
    # Joined at exit with what it was given: a process that ran its kernels twice leaves the optimised
    # executables on disk (the next process loads those and compiles nothing).
    with _writer_lock:
        return _one_thread(_OPTIMIZER)


def default_device():
    """The device a program of no array input runs on: JAX's default device (set_context's device_target sets it,
    as a Device or a platform name), else this process's first device of the default backend. Never `jax.devices()`:
    in a job of several processes its first device is process 0's, and an executable loaded there from the disk in
    another process made arrays that process cannot read or pass to a program (issue 21)."""
    chosen = jax.config.jax_default_device
    if chosen is None:
        return jax.local_devices()[0]
    return jax.local_devices(backend=chosen)[0] if isinstance(chosen, str) else chosen


class _Unknown(Exception):
    pass


try:
    from jax._src.config import trace_context as _trace_context  # the settings jax.jit's cache is keyed on
except ImportError:  # another JAX: the settings that change tracing most

    def _trace_context() -> tuple:
        return tuple(getattr(jax.config, s, None) for s in _JAX_SETTINGS)


_SCALARS = frozenset({bool, int, float, complex, type(None)})
_array_types: set[type] = set()  # concrete array classes seen (tracers never get in)


def _signature(args: tuple) -> tuple:
    """What an executable is specialised on: JAX's settings in force (x64, matmul precision...: what jax.jit keys
    its own cache on too), then per argument (shape, dtype, weak type, sharding) for an array, the type for a
    Python scalar or None. Raises _Unknown for anything else.

    Shape, dtype and weak type are read off the array's abstract value: tuples of them compare in C, where two
    abstract values (a new object per array) would compare through Python on every lookup."""
    sig = [_trace_context()]
    for a in args:
        if type(a) in _array_types:
            aval = a.aval
            sig.append((aval.shape, aval.dtype, aval.weak_type, a.sharding))
        else:
            sig.append(_describe(a))
    return tuple(sig)


def _describe(x):
    t = type(x)
    if t in _SCALARS:
        return t
    if isinstance(x, jax.Array) and not isinstance(x, jax.core.Tracer):
        _array_types.add(t)
        aval = x.aval
        return (aval.shape, aval.dtype, aval.weak_type, x.sharding)
    raise _Unknown


def _entry_text(key: str, sig: tuple, device) -> str:
    """What an on-disk executable depends on, spelled out: the function's key, each input (shape, dtype,
    weak type, memory kind; or the scalar type), the device's platform and kind, and the environment."""
    parts = []
    for d in sig:
        if type(d) is tuple:
            shape, dtype, weak_type, sharding = d
            parts.append(f"{dtype.str}{list(shape)}{'w' if weak_type else ''}@{sharding.memory_kind}")
        else:
            parts.append(d.__name__)
    where = f"{device.platform}/{device.device_kind}/{getattr(device.client, 'platform_version', '')}"
    return f"{key}|({', '.join(parts)})|{where}|{_env_key()}"


_env_keys: dict[tuple, str] = {}
_JAX_SETTINGS = (  # JAX settings that change what a function traces to
    "jax_enable_x64",
    "jax_default_matmul_precision",
    "jax_numpy_dtype_promotion",
    "jax_numpy_rank_promotion",
    "jax_default_prng_impl",
    "jax_threefry_partitionable",
    "jax_enable_checks",
)


def _env_key() -> str:
    """What else an executable depends on: versions, JAX settings, XLA flags, Kiln's sources."""
    settings = (_trace_context(), *(getattr(jax.config, s, None) for s in _JAX_SETTINGS), precision.key())
    key = _env_keys.get(settings)
    if key is None:
        # Every setting jax.jit keys on, as text the same in every process (an object shown by its
        # address is shown by its type instead).
        text = ", ".join(re.sub(r"<([\w.]+) object at 0x[0-9a-f]+>", r"<\1>", repr(v)) for v in settings)
        key = _env_keys[settings] = (
            f"jax {jax.__version__} jaxlib {jaxlib.__version__} ({text}) "
            f"{os.environ.get('XLA_FLAGS', '')} {_CPU_OPTIONS!r} kiln {source_fingerprint()}"
        )
    return key


_fingerprint: str | None = None
ENV_SOURCE_KEY = "KILN_CACHE_SOURCE_KEY"


def source_fingerprint(root: str | os.PathLike | None = None, stamp_dir: Path | None = None) -> str:
    """A hash of the name and contents of every Python file of the `kiln` package (or `root`).

    Part of every PersistentJit entry's name: a primitive's implementation may change with Kiln's code,
    and an executable compiled from the old code must not be read back by the new one. `KILN_CACHE_SOURCE_KEY`,
    when set, stands for it (for a deployment that knows its sources by another name, or a test).

    Contents, not sizes and modification times: a tree copied or installed with fixed timestamps (`cp -p`,
    `rsync -t`, an image build that normalises them) can hold other code under the same sizes and times. Reading
    every file costs a process tens of milliseconds, so the cache folder keeps each file's digest in a stamp under
    its size, modification and change times and inode (`_SOURCES_STAMP`): the change time moves on every write
    and no tool sets it back, so only files written since are read again. The stamp lives in `stamp_dir`, by
    default the enabled cache folder for Kiln's own sources and none for another `root`.
    """
    global _fingerprint
    if root is None:
        override = os.environ.get(ENV_SOURCE_KEY)
        if override:
            return "key:" + override
        if _fingerprint is not None:
            return _fingerprint
    folder = Path(root).resolve() if root is not None else Path(__file__).resolve().parent.parent
    if stamp_dir is None and root is None:
        stamp_dir = _enabled_dir
    stamp = None if stamp_dir is None else Path(stamp_dir) / _SOURCES_STAMP.format(_digest(str(folder))[:16])
    known = _read_stamp(stamp)
    seen: dict[str, list] = {}
    h = hashlib.sha256()
    for where, dirs, files in os.walk(folder):
        dirs.sort()
        for f in sorted(files):
            if not f.endswith(".py"):
                continue
            p = os.path.join(where, f)
            try:
                st = os.stat(p)
                stat = [st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino]
                rel = os.path.relpath(p, folder)
                held = known.get(rel)
                # stat before reading: a file written meanwhile has another stat next time, and is read again
                digest = held[4] if held is not None and held[:4] == stat else file_digest(p)
            except OSError:
                continue
            seen[rel] = [*stat, digest]
            h.update(f"{rel}:{digest};".encode())
    if stamp is not None and seen != known:
        _write_stamp(stamp, seen)
    digest = h.hexdigest()[:16]
    if root is None:
        _fingerprint = digest
    return digest


_SOURCES_STAMP = "kiln-sources-{}.json"  # per source folder: {file: [size, mtime_ns, ctime_ns, inode, digest]}


def file_digest(path: str) -> str:
    """The SHA-256 of a file's bytes (a source file of the fingerprint)."""
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def _read_stamp(path: Path | None) -> dict:
    if path is None:
        return {}
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError):  # absent, or damaged (then written again)
        return {}
    return data if isinstance(data, dict) else {}


def _write_stamp(path: Path, stats: dict) -> None:
    try:  # a private file renamed into place: a reader sees a whole stamp or the previous one
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=TMP_PREFIX)
    except OSError:
        return
    try:
        with os.fdopen(fd, "w") as f:
            json.dump(stats, f)
        os.replace(tmp, path)
    except OSError:
        with contextlib.suppress(OSError):
            os.unlink(tmp)


# ---- the compile-ahead thread ----------------------------------------------------------------------------
_AHEAD = "kiln-compile-ahead"


def _ahead():
    with _writer_lock:
        started = _AHEAD in _threads
        pool = _one_thread(_AHEAD)
        if not started:
            # At exit, what has not started is dropped (the executables would go unused).
            register = getattr(threading, "_register_atexit", None)
            if register is not None:
                register(pool.shutdown, wait=True, cancel_futures=True)
    return pool


def _outcome(future, fallback):
    try:
        return future.result()
    except BaseException:  # noqa: BLE001  (cancelled at exit, or failed: the plain path decides)
        return fallback


# ---- the writer thread: serializing and storing an executable is not on the caller's path ---------------
_writer_lock = threading.Lock()  # guards the background threads' creation and `_pending`
_pending: list = []
_threads: dict = {}  # name -> its one-thread pool (the writer, the optimizer, the compile-ahead thread)


def _one_thread(name: str) -> ThreadPoolExecutor:
    """The background thread `name`, started on first use (called with `_writer_lock` held)."""
    pool = _threads.get(name)
    if pool is None:
        pool = _threads[name] = ThreadPoolExecutor(max_workers=1, thread_name_prefix=name)
    return pool


def _write_later(store: DiskCache, name: str, compiled, quick: bool = False, replace: bool = False) -> None:
    _submit(_write, store, name, compiled, quick, replace)


def _write(store: DiskCache, name: str, compiled, quick: bool = False, replace: bool = False) -> None:
    try:
        store.put(name, pickle.dumps((quick, serialize(compiled))), replace=replace)
    except Exception:  # noqa: BLE001  (not serializable here, or the folder is gone: usable in this process)
        pass


def write_later(name: str, make_bytes, replace: bool = False) -> bool:
    """Store `make_bytes()` under `name` in the cache folder, on the writer thread (joined at exit); a
    `make_bytes` that raises or returns None stores nothing. False when the cache is off."""
    store = _store
    if store is None or not _ours:
        return False
    _submit(_write_bytes, store, name, make_bytes, replace)
    return True


def read(name: str) -> bytes | None:
    """The bytes stored under `name` (None when absent or the cache is off)."""
    store = _store
    return None if store is None or not _ours else store.get(name)


def discard(name: str) -> None:
    """Delete the entry `name` (a damaged one)."""
    store = _store
    if store is not None:
        _unlink(store.path / f"{name}{SUFFIX}")


def compile_fresh(lowered, options: dict | None = None):
    """`lowered.compile(options)`, neither read from nor written to JAX's own persistent cache, so that the
    executable serializes whole (see PersistentJit._load_or_compile)."""
    _fresh.on = True
    try:
        return lowered.compile(options)
    finally:
        _fresh.on = False
        host_memory.release_idle_heap()


# XLA's CPU options for a whole program with a loop in it (a recurrent layer's time loop). LLVM's 512-bit vectors
# for XLA's own kernels instead of its default 256 (where the processor has them; elsewhere the option changes
# nothing): the gradient of bench_rnn's LSTM at length 500, whose loops run about 30 small elementwise kernels a
# step, took 0.96x the CPU time with the same values (lstm5, session 23). Programs without a loop keep XLA's defaults.
_LOOP_OPTIONS = {"xla_cpu_prefer_vector_width": 512}
_LOOP_MARK = "stablehlo.while"
_LOOP_SUPPORT = _OptionSupport()  # _LOOP_OPTIONS


def _program_options(text: str | None, on_cpu: bool = True, loop: bool = True) -> dict | None:
    """XLA's options for a whole program: on the CPU `_LOOP_OPTIONS` when its text has a loop and XLA may know them
    (`loop`), `_LOW_PRECISION_OPTIONS` when it holds float16/bfloat16 values (any platform); a user's XLA_FLAGS
    setting of the same option wins; None: XLA's defaults."""
    looped = loop and on_cpu and text is not None and _LOOP_MARK in text and _LOOP_SUPPORT.known is not False
    options = {**(_LOOP_OPTIONS if looped else {}), **(_LOW_PRECISION_OPTIONS if _low_precision(text) else {})}
    flags = os.environ.get("XLA_FLAGS", "")
    return {k: v for k, v in options.items() if k not in flags} or None


def compile_program(
    lowered, text: str | None = None, on_optimized=None, on_swap=None, cached: bool = False, on_quick=None
):
    """Compile a whole program (a GRAPH_MODE or @jit step): tiered on the CPU when `tiers.worth_tiering` says so.

    Args:
        lowered: the lowered program.
        text: its text (`lowered.as_text()`), when the caller has it already.
        on_optimized: `on_optimized(executable)` once the optimised executable is compiled (on the tier-up
            thread when tiered, here otherwise): e.g. to store it on disk.
        on_swap: `on_swap(executable)` when the optimised executable takes over from the quick one (caller's thread).
        cached: compile the optimised executable through JAX's own persistent cache (read and written) instead
            of `compile_fresh` (for a program Kiln does not store itself).
        on_quick: `on_quick(executable, seconds)` when a quick tier was compiled (here, with its compile's wall
            time): e.g. to store it until the optimised one replaces it, so that a process which exits before the
            optimised compile has run leaves the program on disk. Given, the optimised compile is asked for by the
            rule of `tiers.TIER_UP_AFTER`; else at once.

    Returns:
        A `tiers.Tiered` (quick first) or the optimised executable.
    """
    # the rule and the quick options were measured on the CPU: other platforms compile once, as before
    on_cpu = jax.default_backend() == "cpu"
    if text is None:  # the tiering rule, the loop options and the low-precision options read it
        text = lowered.as_text()
    options = _program_options(text, on_cpu)
    tried = bool(options) and bool(options.keys() & _LOOP_OPTIONS.keys())
    compile_with = lowered.compile if cached else partial(compile_fresh, lowered)
    full = partial(_LOOP_SUPPORT.compile, compile_with, options, _program_options(text, on_cpu, loop=False), tried)
    if text is None or not on_cpu or not tiers.worth_tiering(text):
        compiled = full()
        if on_optimized is not None:
            on_optimized(compiled)
        return compiled
    with tiers.foreground():
        started = time.perf_counter()
        quick = _compile_with_options(lowered, "cpu", quick=True, text=text)
    compile_s = time.perf_counter() - started
    if on_quick is not None:
        on_quick(quick, compile_s)
    # A program whose quick tier is kept asks for its optimised compile by the rule of tiers.TIER_UP_AFTER, as a lazy
    # window does: a short script then starts none, which its exit would wait for. The zoo's fibinet driver (GRAPH_MODE,
    # 3 programs of 4 steps, cold, 2 interleaved rounds, load 14-18): 17.3-18.7 s to exit with 1.7-2.2 s after its last
    # line, against 37.7-40.0 s and 7.4-13.5 s asking at once. Where only the optimised executable can reach the disk
    # it is asked for at once.
    return tiers.Tiered(quick, full, on_optimized, on_swap, None if on_quick is None else compile_s, quick_s=compile_s)


def compile_stored(like, text: str, device):
    """The optimised executable of a whole program from its lowered text (kept on disk beside its quick tier, `like`,
    a `compile_program` quick executable loaded back on `device`): a process that loaded the quick tier has no
    lowered program to compile. Same options as `compile_program`'s optimised tier; called as `like` is (inputs,
    donation, outputs)."""
    options = _program_options(text, device.platform == "cpu")
    tried = bool(options) and bool(options.keys() & _LOOP_OPTIONS.keys())
    fallback = _program_options(text, device.platform == "cpu", loop=False)
    started = time.perf_counter()
    compiled = _LOOP_SUPPORT.compile(partial(_compile_text, like, text, device), options, fallback, tried)
    if compile_log.enabled():
        name = getattr(like._executable._unloaded_executable, "name", "") or "a program"
        name = name[4:-1] if name.startswith("jit(") and name.endswith(")") else name  # as the log names it
        compile_log.write(f"[kiln] XLA compiled {name} (optimized tier, from its stored text) in "
                          f"{1000 * (time.perf_counter() - started):.1f} ms\n")  # fmt: skip
    return compiled


def _compile_text(like, text: str, device, options: dict | None):
    """`text` compiled for `device` with XLA `options`, wrapped as `like` (a Compiled of the same program) is."""
    compile_options = _jax_compiler.get_compile_options(
        num_replicas=1,
        num_partitions=1,
        device_assignment=numpy.array([[device]]),
        env_options_overrides=options,
        backend=device.client,
    )
    compile_options.parameter_is_tupled_arguments = False
    try:
        executable = device.client.compile_and_load(text, jaxlib.xla_client.DeviceList((device,)), compile_options)
    finally:
        host_memory.release_idle_heap()
    unloaded = dataclasses.replace(like._executable._unloaded_executable, xla_executable=executable)
    return jax.stages.Compiled(unloaded.load(), [], like.args_info, like.out_tree, no_kwargs=like._no_kwargs)


def serialize_executable(compiled) -> bytes:
    """A compiled executable as bytes (`load_executable` reads them back)."""
    return pickle.dumps(serialize(compiled))


def load_executable(data: bytes, device):
    """The executable `serialize_executable` wrote, loaded on `device`; raises when damaged."""
    return deserialize_and_load(*pickle.loads(data), backend=device.client, execution_devices=[device])


def device_text(device) -> str:
    """The device's platform, kind and platform version, as the entry names spell them."""
    return f"{device.platform}/{device.device_kind}/{getattr(device.client, 'platform_version', '')}"


def env_key() -> str:
    """What every stored executable depends on besides its program (versions, JAX settings, XLA flags,
    Kiln's sources)."""
    return _env_key()


def _write_bytes(store: DiskCache, name: str, make_bytes, replace: bool) -> None:
    try:
        data = make_bytes()
        if data is not None:
            store.put(name, data, replace=replace)
    except Exception:  # noqa: BLE001  (not serializable here, or the folder is gone: usable in this process)
        pass


def _submit(fn, *args) -> None:
    with _writer_lock:
        # Its worker is joined at interpreter exit, so what a process compiled reaches the disk.
        _pending.append(_one_thread("kiln-cache-writer").submit(fn, *args))
        if len(_pending) > 64:
            _pending[:] = [f for f in _pending if not f.done()]


def flush_writes(timeout: float | None = None) -> None:
    """Wait until every executable PersistentJit compiled so far is on disk (or failed to be written), the
    optimised tiers of whole programs included (`tiers.wait`: they are stored once compiled)."""
    tiers.wait(timeout)
    with _writer_lock:
        pending, _pending[:] = list(_pending), []
    for f in pending:
        try:
            f.result(timeout)
        except Exception:  # noqa: BLE001
            pass


_store: DiskCache | None = None
_ours = False  # JAX's persistent cache reads and writes through DiskCache
_fresh = threading.local()  # .on: JAX's cache is bypassed on purpose (see PersistentJit._load_or_compile)


def info(path: Path | None = None) -> CacheInfo:
    """Location, entry count and size of the cache folder (`path` or the configured one)."""
    path = cache_dir() if path is None else Path(path)
    if path is None:
        return CacheInfo(None, False, 0, 0, max_bytes(), 0)
    entries, files, total = 0, 0, 0
    if path.is_dir():
        for p in path.rglob("*"):
            if p.is_file() and p.name != LOCK_NAME:
                files += 1
                try:
                    total += p.stat().st_size
                except OSError:
                    continue
                entries += p.name.endswith(SUFFIX)
    return CacheInfo(path, True, entries, total, max_bytes(), files)


def clear(path: Path | None = None) -> int:
    """Delete every file of the cache folder (`path` or the configured one); returns the bytes freed.

    Runs under the folder's lock, so it does not race another process's eviction; a process that is
    compiling at the same time may write new entries right after.
    """
    path = cache_dir() if path is None else Path(path)
    if path is None or not path.is_dir():
        return 0
    freed = 0
    flock = _Flock(path / LOCK_NAME, blocking=True)
    with flock:
        if flock.fd is not None:
            os.ftruncate(flock.fd, 0)  # the usage record goes too: the next writer scans the emptied folder
        for p in sorted(path.rglob("*"), key=lambda q: len(q.parts), reverse=True):
            if p.name == LOCK_NAME and p.parent == path:
                continue
            if p.is_dir() and not p.is_symlink():
                try:
                    p.rmdir()
                except OSError:
                    pass
                continue
            try:
                size = p.stat().st_size
            except OSError:
                size = 0
            if _unlink(p):
                freed += size
    return freed


def _scan(path: Path) -> tuple[list[tuple[float, int, Path]], int]:
    """(mtime, size, path) of every entry, and the total bytes; removes stale temporary files."""
    entries, total = [], 0
    now = time.time()
    with os.scandir(path) as it:
        for e in it:
            try:
                st = e.stat(follow_symlinks=False)
            except OSError:
                continue
            if e.name.startswith(TMP_PREFIX):
                if now - st.st_mtime > STALE_TMP_SECONDS:
                    _unlink(Path(e.path))
                continue
            if e.is_file(follow_symlinks=False) and e.name.endswith(SUFFIX):
                entries.append((st.st_mtime, st.st_size, Path(e.path)))
                total += st.st_size
    return entries, total


def _usage_text(total: int, scanned: float) -> str:
    body = f"{total} {scanned!r}"
    return f"kiln-usage {body} {zlib.crc32(body.encode())}"


def _read_usage(lock_fd: int | None) -> tuple[int, float] | None:
    """(bytes, time of the scan it started from) of the usage record in the lock file; None when it is missing,
    damaged (a torn write fails its checksum), older than USAGE_MAX_AGE or dated in the future."""
    if lock_fd is None:
        return None
    try:
        raw = os.pread(lock_fd, 256, 0)
        _, total_text, scanned_text, _ = raw.decode().split()
        total, scanned = int(total_text), float(scanned_text)
    except (OSError, ValueError):
        return None
    if _usage_text(total, scanned).encode() != raw:
        return None
    age = time.time() - scanned
    if total < 0 or not 0 <= age <= USAGE_MAX_AGE:
        return None
    return total, scanned


def _write_usage(lock_fd: int | None, total: int, scanned: float) -> bool:
    """Replace the usage record in the lock file (held: no reader sees it half written); False when it failed.
    In place, not renamed: a rename over a file waits for its data to reach the disk on ext4 (~2 ms a write)."""
    if lock_fd is None:
        return False
    data = _usage_text(total, scanned).encode()
    try:
        os.pwrite(lock_fd, data, 0)
        os.ftruncate(lock_fd, len(data))
        return True
    except OSError:
        return False


def _unlink(p: Path) -> bool:
    try:
        p.unlink()
        return True
    except OSError:
        return False


class _Flock:
    """An exclusive advisory lock on a file, between processes; `as` gives whether it is held."""

    def __init__(self, path: Path, blocking: bool) -> None:
        self.path, self.blocking, self.fd = path, blocking, None

    def __enter__(self) -> bool:
        try:
            self.fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        except OSError:
            return self.blocking  # cannot lock here: go ahead only when the caller insisted
        if fcntl is None:
            return True
        try:
            fcntl.flock(self.fd, fcntl.LOCK_EX | (0 if self.blocking else fcntl.LOCK_NB))
            return True
        except OSError:
            os.close(self.fd)
            self.fd = None
            return False

    def __exit__(self, *exc) -> None:
        if self.fd is not None:
            if fcntl is not None:
                fcntl.flock(self.fd, fcntl.LOCK_UN)
            os.close(self.fd)
            self.fd = None


enable()
