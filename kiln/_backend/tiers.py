"""Tiered compilation: a new program's first calls run a quickly compiled executable, the optimised one takes over.

XLA's CPU compile of a whole training step is mostly LLVM optimising the code it emits. A program large enough for
that to matter (`worth_tiering`: at least `MIN_OPS` StableHLO operations) is first compiled with LLVM's optimisation
off (`QUICK_OPTIONS`) and, where XLA still has them, its classic LLVM IR emitters instead of the MLIR fusion
emitters (the CPU options of kiln/_backend/cache.py, `_CPU_OPTIONS`), which compiles several times faster and runs
2-10x slower; once the program has run for a while (`TIER_UP_AFTER`), the fully optimised executable is compiled
from the same lowered program on a background thread (`kiln-tier-up`) and replaces the quick one at the next call
boundary, on the caller's thread. Both come from one lowered program, so they take the same inputs, donate the same
buffers and give the same values within floating-point rounding (LLVM's optimisations may contract a multiply and an
add, or reassociate a reduction).

A GRAPH_MODE program kept on disk and a PyNative lazy window store their quick executable at once; the optimised one,
asked for by the `TIER_UP_AFTER` rule (the caller's `on_optimized`, on the background thread), replaces it. A process
that loads a quick executable runs it and tiers up by the same rule (a GRAPH_MODE program from its stored text). At
interpreter exit only the optimised compiles that will be stored and fit `KILN_EXIT_COMPILE_S` start (`_at_exit`); one
under way finishes, as XLA cannot be interrupted.

When the optimised executable takes over depends on when its background compile ends, so a run's last bits can
differ from another run's of the same seeded script; `set_context(deterministic="ON")` (`set_reproducible`) turns
tiering off, so every program runs optimised from its first call, cold or from the disk cache.

`KILN_TIERED=0` (or `off`) compiles every program fully at once, as before. `KILN_TIERED=quick` keeps the quick
executable for good (tests compare both tiers' values with it). `stats` counts quick compiles, optimised
compiles and swaps; `wait()` blocks until every optimised executable asked for so far is ready.
"""

from __future__ import annotations

import os
import re
import threading
import time
import weakref
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor

from kiln._backend import host_memory

__all__ = [
    "MIN_OPS",
    "QUICK_OPTIONS",
    "Tiered",
    "count_ops",
    "foreground",
    "mode",
    "set_reproducible",
    "stats",
    "wait",
    "worth_tiering",
]

ENV = "KILN_TIERED"
QUICK_OPTIONS = {"xla_backend_optimization_level": 0}

# The tiers round float32 multiply-adds differently. XLA lets LLVM contract a * b + c into one fused multiply-add at
# every level, but at level 0 LLVM selects instructions with FastISel, which never contracts; MindSpore's CPU kernels
# (one operation each) do not contract across operations either. Nothing per compile changes that (compiler_options'
# xla_cpu_max_isa is ignored: 23,448 of 100,000 a*b+c still contracted). Measured on the zoo's Res2Net GRAPH_MODE,
# whose 4 steps run this tier (MindSpore's step-4 loss 1.9172266): quick 1.9172224, optimised 1.9172196;
# `-fast-isel=false` in XLA_FLAGS' xla_backend_extra_options (quick contracts) 1.9193397, with 38 of 212 state sums
# off by up to 0.13, a jump at step 4 that contraction alone does not explain (the optimised tier contracts), so it
# was reverted; `--xla_cpu_max_isa=AVX` (no contraction anywhere) 1.9172238, but the transformer's GRAPH_MODE step
# took 1.88-2.30 ms of CPU against 1.47-1.72 (load 13-18). The optimizer updates' multiply-adds (kiln/_prims/state.py
# `_fma`) are left to XLA too: in float64 they gave the same bits in both tiers but doubled the update's cost.

# With the classic emitters as well, zoo UNet++'s step (3,333 StableHLO ops, 844 kernels) compiled its quick tier in
# 1.5-2.2 s of CPU against 8.1-9.2 s with the fusion emitters at level 0, and that executable ran its step in the same
# time (172 against 183 ms, interleaved, load 9); its GRAPH_MODE first step took 5.7 s of CPU against 11.0 s. The
# optimised tier keeps the fusion emitters: with the classic ones MobileNetV2 compiled slower and stepped 1.2-2x
# slower (session 8).

# The quick tier stays at LLVM level 0 whatever the program's size. Level 1 up to 2,500 operations (session 12)
# ran the demo's quick steps 4-10x faster but compiled 3-5x slower: the zoo's Deep&Cross and WGAN first steps
# took 1.50-1.81x MindSpore's against 0.53-0.98x at level 0, the cold first PyNative LeNet5 step 2.7-2.9 s against
# 1.05-1.41 s and its first GRAPH_MODE call 2.8-3.2 s against 0.9-1.3 s (session 13, load 9-17). No rule from the
# program's content separated them (WGAN's generator is as slow at level 0 as LeNet5); a first step is what a
# user waits for, and the demo now times its steps once the optimised programs have taken over.

# Programs below this many StableHLO operations compile fully at once. Measured on the 2-core CPU, loaded (the
# ratios hold, not the seconds): a chain of dots and tanh of 194 ops compiled in 0.85 s optimised against
# 0.55 s quick, 770 ops in 2.1 s against 1.1 s; the LeNet5 PyNative window (280 ops) in 7.4 s against 2.0 s, its
# GRAPH_MODE step (385 ops) in 15.7 s against 8.1 s; MobileNetV2 (thousands) in 54.9 s against 33.5 s. A small
# train step (a Dense layer, its loss and SGD: 140 ops) compiles in well under 0.1 s on a quiet machine, where a
# second compile on a shared core and a result that changes in the last bits once the optimised tier takes over
# are not worth the few milliseconds.
MIN_OPS = 256
_OP_LINE = re.compile(r"= (?:stablehlo|chlo|mhlo)\.|^\s*(?:stablehlo|chlo|mhlo)\.", re.M)


_reproducible = False


def set_reproducible(on: bool) -> None:
    """Whether every run of a program must give the same bits: tiering off (no timing-dependent swap)."""
    global _reproducible
    _reproducible = bool(on)


def mode() -> str:
    """ "on" (the default), "off" (`KILN_TIERED=0`, or `set_reproducible(True)`) or "quick" (`KILN_TIERED=quick`:
    never swap)."""
    raw = os.environ.get(ENV, "1").strip().lower()
    if raw == "quick":
        return "quick"
    return "off" if _reproducible or raw in ("0", "off", "false", "no") else "on"


def count_ops(text: str) -> int:
    """The number of StableHLO (and CHLO/MHLO) operations in a lowered program's text."""
    return len(_OP_LINE.findall(text))


def worth_tiering(text: str) -> bool:
    """Whether the lowered program `text` gets a quick tier (compiled with `QUICK_OPTIONS`): tiering on, and at
    least MIN_OPS operations."""
    m = mode()
    return m != "off" and (m == "quick" or count_ops(text) >= MIN_OPS)


stats = {"quick": 0, "optimized": 0, "swaps": 0, "failed": 0}  # counts since the process started
_lock = threading.Lock()
_pool: ThreadPoolExecutor | None = None
_pending: list[Future] = []
_unasked: weakref.WeakSet = weakref.WeakSet()  # quick programs whose optimised compile nobody asked for yet

# The tier-up gate. On a 2-core machine an optimised compile running beside the foreground's next build (a network
# whose first step builds several programs: WGAN's discriminator and generator steps) halves the core that build
# gets, and the first step waits for it. An optimised compile therefore starts only while no foreground build is in
# progress (`foreground`), and only once the foreground has been quiet for `QUIET_S`, or a quick program has asked
# for its optimised compile (its loop has come round: no new program is coming), or someone waits for it (`wait`).
# A compile under way is never interrupted (XLA cannot be paused).
QUIET_S = 0.5

# When the optimised compile is asked for at all (ski rental). It costs about 3x the quick compile (CPU, loaded:
# CycleGAN's 5,543-op PyNative step 8.5 s against 2.6 s, its 2,180-op one 2.6 s against 0.8 s, LeNet5's window
# 7.4 s against 2.0 s), and repays at most the time the program's loop has run since. A program is therefore tiered
# up at a call at least TIER_UP_AFTER quick-compile durations after its first call, not at its second call. A 4-step
# PyNative CycleGAN run spent about half its CPU on optimised compiles nobody used (the process also waits at exit
# for the one under way): 25.2-27.8 s of CPU before, 12.7-13.9 s with this rule (3 alternating rounds, load 7-10).
TIER_UP_AFTER = 3.0
_gate = threading.Condition(threading.Lock())
_busy = 0  # foreground builds in progress (all threads)
_last_busy = 0.0  # time.monotonic() when the last one ended
_cycled = False  # a quick program was called again since the last foreground build started
_waiters = 0  # threads in wait()
_exiting = False  # the interpreter is exiting: only what fits the exit budget starts (`_at_exit`)
_exit_deadline = 0.0  # time.monotonic() by which an optimised compile started at exit should end

# At interpreter exit, the optimised compiles of programs that store their optimised executable (`on_optimized`) run
# while their estimated cost (OPTIMIZED_COST times the quick compile's duration) fits in `KILN_EXIT_COMPILE_S` seconds
# (default EXIT_COMPILE_S), cheapest first; the others are dropped (their quick tier is on disk where the caller keeps
# one: GRAPH_MODE's kept programs, PyNative's windows). A compile under way at exit finishes (XLA cannot be
# interrupted); Ctrl-C ends the wait. Measured on the 2-core CPU, load 8-13: the cold GRAPH_MODE LeNet5 step of
# `benchmarks firstcall` (quick compile 0.15-0.3 s) is compiled within the budget, so its warm process loads the
# optimised executable (with no compile at exit it loaded the quick one: first call 254-303 ms against 221-263 ms);
# the zoo's fibinet driver (quick compiles 1-4 s, optimised 10-14 s) leaves its quick tiers and exits 1.3-1.9 s after
# its last line, against 6.5-10.2 s before.
EXIT_ENV = "KILN_EXIT_COMPILE_S"
EXIT_COMPILE_S = 2.0
OPTIMIZED_COST = 3.0  # an optimised compile's duration in quick compiles (see TIER_UP_AFTER)


class foreground:  # noqa: N801  (a context manager, used as `with tiers.foreground():`)
    """Marks a foreground build (a GRAPH_MODE trace, lowering and quick compile, or a PyNative lazy window's first
    run): no optimised compile starts while one is in progress, nor within `QUIET_S` after (see the tier-up gate
    above). Nests; any thread."""

    __slots__ = ()

    def __enter__(self) -> None:
        global _busy, _cycled
        with _gate:
            _busy += 1
            _cycled = False

    def __exit__(self, *exc) -> None:
        global _busy, _last_busy
        with _gate:
            _busy -= 1
            _last_busy = time.monotonic()
            _gate.notify_all()
        host_memory.release_idle_heap()  # a build's scratch memory lies free now


def _cycle() -> None:
    global _cycled
    with _gate:
        _cycled = True
        _gate.notify_all()


def _await_gate() -> None:
    """Block the tier-up thread until an optimised compile may start (the gate above)."""
    with _gate:
        while True:
            if _waiters or _exiting or (_busy == 0 and _cycled):
                return
            if _busy == 0:
                left = _last_busy + QUIET_S - time.monotonic()
                if left <= 0:
                    return
                _gate.wait(left)
            else:
                _gate.wait()


def _thread() -> ThreadPoolExecutor:
    global _pool
    with _lock:
        if _pool is None:
            _pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="kiln-tier-up")
            # joined at exit by `_at_exit`
        return _pool


class Tiered:
    """A quick executable that hands over to the optimised one, compiled on the background thread.

    Given `compile_s`, the optimised compile is asked for once the program has been called again and its first call
    lies `TIER_UP_AFTER` times its quick compile's duration in the past (or when someone `wait`s): see the rule above.

    Args:
        quick: the quick executable (called with the program's arguments).
        compile_optimized: `compile_optimized()` -> the optimised executable of the same lowered program; runs on
            the background thread.
        on_optimized: `on_optimized(executable)`, run on the background thread once it is compiled (e.g. to write
            it to the on-disk cache); its failures are ignored.
        on_swap: `on_swap(executable)`, run on the caller's thread when the optimised executable takes over (e.g.
            to put it where the caller looks executables up, so later calls skip this wrapper).
        compile_s: how long the quick compile took (seconds of wall time), for a program whose quick executable
            the caller keeps on disk itself; None asks for the optimised compile at once (a program whose quick tier
            is not kept, where only the optimised executable can spare a later process the compile).
        quick_s: how long the quick compile took, where `compile_s` is None (the exit budget's estimate; None:
            unknown, not compiled at exit).
    """

    __slots__ = ("run", "tier", "_future", "_on_swap", "_calls", "_ask", "_first", "_after", "_cost", "__weakref__")

    def __init__(
        self,
        quick,
        compile_optimized: Callable,
        on_optimized: Callable | None = None,
        on_swap: Callable | None = None,
        compile_s: float | None = None,
        quick_s: float | None = None,
    ) -> None:
        self.run = quick
        self.tier = "quick"  # "optimized" once the optimised executable runs the calls
        self._on_swap = on_swap
        self._calls = 0
        self._first: float | None = None  # time.monotonic() of the first call
        self._after = 0.0 if compile_s is None else TIER_UP_AFTER * max(0.0, compile_s)
        quick_s = compile_s if quick_s is None else quick_s
        self._cost = None if quick_s is None else OPTIMIZED_COST * max(0.0, quick_s)  # estimated optimised compile
        with _lock:
            stats["quick"] += 1
        self._future: Future | None = None
        self._ask: tuple | None = None  # what the tier-up thread needs, until the optimised compile is asked for
        if mode() != "quick":
            self._ask = (compile_optimized, on_optimized)
            with _lock:
                _unasked.add(self)
            if compile_s is None:
                self._request()

    def __call__(self, *args):
        future = self._future
        if future is not None:
            if future.done():
                self._swap(future)
            elif self._calls < 2:
                self._calls += 1
                if self._calls == 2:  # the foreground's loop came round to this program again: the gate opens
                    _cycle()
        elif self._ask is not None:
            now = time.monotonic()
            if self._first is None:
                self._first = now
            elif now - self._first >= self._after:
                # the foreground's loop came round to this program again, long enough after its first call
                self._request()
                _cycle()
        return self.run(*args)

    def _request(self) -> None:
        """Ask the tier-up thread for the optimised executable (once)."""
        with _lock:
            ask, self._ask = self._ask, None
            _unasked.discard(self)
        if ask is None:
            return
        future = _thread().submit(_tier_up, weakref.ref(self), *ask, self._cost)
        self._future = future
        with _lock:
            _pending.append(future)
            if len(_pending) > 64:
                _pending[:] = [f for f in _pending if not f.done()]

    def _swap(self, future: Future) -> None:
        self._future = None
        try:
            better = future.result()
        except BaseException:  # noqa: BLE001  (cancelled at exit or failed: the quick executable computes the same)
            better = None
        on_swap, self._on_swap = self._on_swap, None
        if better is None:
            return
        self.run = better
        self.tier = "optimized"
        with _lock:
            stats["swaps"] += 1
        if on_swap is not None:
            on_swap(better)


def exit_budget() -> float:
    """Seconds the interpreter's exit may spend on optimised compiles (`KILN_EXIT_COMPILE_S`, default
    EXIT_COMPILE_S; 0 starts none)."""
    try:
        return max(0.0, float(os.environ.get(EXIT_ENV, EXIT_COMPILE_S)))
    except ValueError:
        return EXIT_COMPILE_S


def _at_exit() -> None:
    """The interpreter is exiting: the optimised compiles that will be stored and fit the exit budget run now,
    cheapest first, and no other starts (see EXIT_COMPILE_S). Starting the pending one at the gate whatever its cost
    held the zoo's fibinet driver (GRAPH_MODE) 2.5-16 s after its last line (load 8-17)."""
    global _exiting, _exit_deadline
    with _lock:
        unasked = [p for p in _unasked if p._ask is not None and p._ask[1] is not None and p._cost is not None]
    with _gate:
        _exiting = True
        _exit_deadline = time.monotonic() + exit_budget()
        _gate.notify_all()
    for program in sorted(unasked, key=lambda p: p._cost):
        program._request()  # `_tier_up` starts it only while it fits
    with _lock:
        pending = list(_pending)
    for f in pending:  # Ctrl-C (KeyboardInterrupt) ends this wait
        left = _exit_deadline - time.monotonic()
        if left <= 0:
            break
        try:
            f.result(left)
        except BaseException as err:  # noqa: BLE001  (a timeout, a failure or a cancel: the next one)
            if isinstance(err, KeyboardInterrupt):
                raise
    with _lock:
        pool = _pool
    if pool is not None:  # a compile under way finishes (its executable reaches the disk); the queued ones are dropped
        pool.shutdown(wait=True, cancel_futures=True)


# Before the thread pools' own exit handler (concurrent.futures registered it on import, above), which refuses new work
_register_atexit = getattr(threading, "_register_atexit", None)
if _register_atexit is not None:
    _register_atexit(_at_exit)


def _tier_up(ref: weakref.ref, compile_optimized: Callable, on_optimized: Callable | None, cost: float | None):
    if ref() is None:
        return None  # the program was dropped before its turn: nothing would call the optimised executable
    _await_gate()
    if ref() is None:
        return None
    if _exiting and (on_optimized is None or cost is None or time.monotonic() + cost > _exit_deadline):
        return None  # nothing stored, or not within the exit budget: the quick tier stays where it is kept
    try:
        better = compile_optimized()
    except Exception:  # noqa: BLE001  (the quick executable stays)
        with _lock:
            stats["failed"] += 1
        return None
    with _lock:
        stats["optimized"] += 1
    if on_optimized is not None:
        try:
            on_optimized(better)
        except Exception:  # noqa: BLE001  (not written to disk: still used in this process)
            pass
    return better


def wait(timeout: float | None = None) -> None:
    """Block until every optimised executable asked for so far is compiled (benchmarks timing a steady state,
    tests); the swap itself happens at each program's next call."""
    global _waiters
    with _lock:
        unasked = list(_unasked)
    for program in unasked:
        program._request()
    with _lock:
        pending, _pending[:] = list(_pending), []
    with _gate:
        _waiters += 1
        _gate.notify_all()
    try:
        for f in pending:
            try:
                f.result(timeout)
            except BaseException:  # noqa: BLE001
                pass
    finally:
        with _gate:
            _waiters -= 1
