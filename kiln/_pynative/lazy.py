"""PyNative's lazy window: eager ops recorded and run together as one compiled program.

`dispatch.apply` records an op here instead of launching its kernel when it can be deferred (no in-place write, no
user's function run on the host, no eager check, only Tensors, backend arrays, Python scalars and None as inputs; an op
with value bounds whose index input is itself pending has its check run on the host once the program has run, and a
failed check runs the window op by op, as a failed program does). Its output Tensors hold `Pending` values whose shape
and dtype come from the op's abstract evaluation (cached per primitive, attributes and input types), so a shape or type
error still raises at the user's line, in the op's own words. The window runs as ONE program when a value is needed: a
Tensor's `_data` is read (asnumpy, printing, `if tensor`, an op that is not deferred, the backward pass), a Parameter is
read outside dispatch (a compiled graph may donate its buffer), or the window holds `MAX_OPS` ops' worth (an op standing
for a whole compiled piece of a backward pass weighs its steps, `WEIGHTS`: a window never grows past the bound XLA
compiles quickly).

The program is cached by the window's structure (the ops, how their inputs connect, which outputs are still
referenced): a training step repeats it, so from the second step on a flush is one lookup and one launch, and
the first step compiles one program instead of one kernel per op. Each op is traced once per input signature
(`traceable`), for its output types and for every program that holds it. When the program fails, the window runs op
by op through the eager kernels, which raise in the op's own words: the first failure is raised by the flush itself
(an eager run would not have gone past that op), with a traceback ending at the user's line that called the op
(recorded with each op), and a value the failed op left without one raises the same error when read. Values
computed before the failure keep them. `KILN_LAZY=0` turns the window off.
"""

from __future__ import annotations

import copy
import os
import threading
import types
import weakref
from collections.abc import Callable

from kiln import _backend as B
from kiln._compiler.errors import line_of, outside_frames, user_frame
from kiln._core import known_values
from kiln._core.primitive import PrimitiveDef
from kiln._core.tensor import LAZY_WINDOWS, Pending, Tensor

ENABLED = os.environ.get("KILN_LAZY", "1").strip().lower() not in ("0", "off", "false", "no")
# Ops in one window: a longer run of deferred ops is flushed in pieces of this size. Also the bound on any compiled
# program PyNative builds (a backward plan is split into pieces of at most this many steps, backward_program.py):
# XLA's CPU compile time per op grows with the program (a chain of small Dense/sigmoid networks' step, quick tier,
# load 10: 15 ms/op at 100 ops, 30 at 400, 50 at 550-1100, and DIEN's 3117-step backward took 9 minutes).
MAX_OPS = 256
# The weight of a run-time primitive that stands for several ops (a piece of a backward plan: its steps); any other
# op weighs 1. A window holding a heavy op runs first when the op would take it past MAX_OPS.
WEIGHTS: dict[PrimitiveDef, int] = {}
# What such an op is, in the compile log (KILN_LOG=compiles): "backward piece 2 of 3"
LABELS: dict[PrimitiveDef, str] = {}
# An op whose outputs hold more bytes runs at once: it gains nothing from waiting, and an allocation that fails
# is then raised at the op's own line
MAX_DEFERRED_BYTES = 64 << 20
# Ops kept traced (`traceable`: one per primitive and attributes, each holding its traces per input signature)
MAX_TRACEABLES = 4096
MAX_PROGRAMS = 256  # compiled window programs kept (one per structure); the oldest goes first
# A program whose window structure changes every flush (data-dependent control flow) would compile anew each
# time where per-op kernels are reused: while this many programs have run only once, a window whose program is
# not compiled yet runs op by op. Such a window is remembered (up to MAX_REFUSED of them): one that comes again is
# not a one-off, and is compiled in place of the oldest single-use mark, so a long-lived process (a notebook) whose
# first 16 windows each ran once still compiles its later training loop.
MAX_SINGLE_USE = 16
MAX_REFUSED = 256
PID_AT_IMPORT = os.getpid()  # a forked child inherits it: `os.getpid() != PID_AT_IMPORT` there


def compiles_again(key, programs: dict, single_use: set, refused: dict) -> bool:
    """Whether `key`, not compiled while the single-use marks are full, is compiled now: only when it was refused
    before (it came again: not a one-off), and never in a forked child (XLA's compiler threads do not survive fork:
    the child runs the kernels its parent ran). A refused key is remembered, up to MAX_REFUSED of them; an admitted
    one takes the mark of the earliest compiled single-use program (any if none is still compiled)."""
    if refused.pop(key, False) is False or os.getpid() != PID_AT_IMPORT:
        refused[key] = None
        if len(refused) > MAX_REFUSED:
            del refused[next(iter(refused))]
        return False
    single_use.remove(next((k for k in programs if k in single_use), next(iter(single_use))))
    return True


_SCALARS = (bool, int, float, complex)
_concrete_types: set[type] = set()  # backend array classes seen (a tracer is never one)
_MAIN_THREAD = threading.main_thread().ident
_traceables: dict[tuple, tuple] = {}  # (prim, attrs, consts) -> (the implementation, `traceable`'s function)


class Window:
    """The ops recorded since the last flush.

    Args:
        run_eagerly: `run_eagerly(prim, attrs, args)` runs one op on concrete Tensors (and scalars) through its
            own kernel, raising in the op's words; used when the compiled window fails.
        kernel_name: `kernel_name(prim, attrs)` -> text naming the op across processes, or None (`dispatch._disk_key`).
    """

    def __init__(self, run_eagerly: Callable, kernel_name: Callable) -> None:
        self.run_eagerly = run_eagerly
        self.kernel_name = kernel_name
        self.lock = threading.RLock()
        self._reset()
        self.programs: dict[tuple, Callable] = {}
        self.single_use: set[tuple] = set()  # programs run once only
        self.refused: dict[tuple, None] = {}  # windows run op by op while single_use was full (insertion-ordered)
        self.flushes = 0  # windows run (tests and benchmarks read it)
        # the weight at which the window runs (`full`): MAX_OPS, or a whole number of periods of a Python loop's ops
        # (dispatch also runs it at MAX_OPS: a test lowers that bound)
        self.bound = MAX_OPS
        self.site_hints: list = []  # per op position: where the last op there found its user frame (`record`)

    def _reset(self) -> None:
        self.ops: list[tuple] = []  # (prim, attrs, input refs, number of outputs): the structure
        self.args: list = []  # the arrays and scalars the program takes
        self.arg_pos: dict[int, int] = {}  # id(array) -> its position in args
        self.outs: list[weakref.ref] = []  # every output's Pending, in output order
        self.weight = 0  # the ops recorded, a heavy op counting its WEIGHTS
        self.sites: list = []  # each op's user expression, (frame, f_lasti) or None: where a failure points
        # value checks run on the host once the program has run: (check, indices of the values it reads)
        self.checks: list[tuple[Callable, tuple]] = []

    # -- recording ------------------------------------------------------------------------------------
    def ref(self, a):
        """How the program reaches input `a`: an output position ("v", i), an argument position (int), or a
        constant ("c", None); raises TypeError for an input the window does not take."""
        if isinstance(a, Tensor):
            d = a._buf
            if type(d) is Pending:
                if d.array is None and d.window is self:
                    return ("v", d.index)
                d = d.resolve()
            t = type(d)
            if t not in _concrete_types:
                if not B.is_array(d) or B.is_tracer(d):
                    raise TypeError
                _concrete_types.add(t)
            return self._arg(d)
        if a is None:
            return ("c", None)
        if type(a) in _SCALARS:
            self.args.append(a)  # passed, not baked in: a changing scalar must not compile a new program
            return ("s", type(a), len(self.args) - 1)
        if B.is_array(a) and not B.is_tracer(a):
            return self._arg(a)
        raise TypeError

    def _arg(self, array) -> int:
        pos = self.arg_pos.get(id(array))
        if pos is None or pos >= len(self.args) or self.args[pos] is not array:
            pos = self.arg_pos[id(array)] = len(self.args)
            self.args.append(array)
        return pos

    def record(
        self, prim: PrimitiveDef, attrs: tuple, refs: tuple, avals: tuple, check: tuple | None = None
    ) -> list[Pending]:
        """Append `prim` on inputs `refs` (from `ref`) with output abstract values `avals`; its Pending outputs.
        `check`: `(check, indices)`, a test of the op's inputs run on the host once the program has computed the values
        at `indices` (`check(arrays)` -> whether they are in range); when one fails the window runs op by op."""
        if check is not None:
            self.checks.append(check)
        base = len(self.outs)
        outs = [Pending(tuple(a.shape), a.dtype, a.weak_type, self, base + i) for i, a in enumerate(avals)]
        self.ops.append((prim, attrs, refs, len(avals)))
        self.weight += WEIGHTS.get(prim, 1)
        self.outs.extend(map(weakref.ref, outs))
        # this frame, _defer, apply (or defer) and the face calling it are Kiln's: read from the face's caller up
        # (reading the face's frame too makes it a frame object, copied when it returns: +13% on an add, not +9%).
        # The op at this position of the last window was reached the same way, most likely: looked for there first.
        pos, hints = len(self.ops) - 1, self.site_hints
        hint = hints[pos] if pos < len(hints) else None
        f, found = user_frame(4, hint)
        if found is not hint:
            if pos < len(hints):
                hints[pos] = found
            else:
                hints.extend([None] * (pos - len(hints)) + [found])
        self.sites.append(None if f is None else (f, f.f_lasti))
        return outs

    # -- running --------------------------------------------------------------------------------------
    def full(self) -> None:
        """Run the window once it holds `bound` ops' worth. When its last ops repeat (a Python loop over the same
        ops), the next window's bound is the most whole periods that fit in MAX_OPS: the windows in the middle of a
        long loop then start and end at the same point of the loop body, have one structure and compile once (with
        MAX_OPS ops they would shift by MAX_OPS mod the period each time and each compile anew)."""
        bound = aligned_bound(self.ops)
        self.flush()
        self.bound = bound

    def flush(self) -> None:
        """Run the recorded ops as one program and give each Pending output still referenced its array."""
        with self.lock:
            if not self.ops:
                return
            ops, args, outs, sites, checks = tuple(self.ops), self.args, self.outs, self.sites, self.checks
            self._reset()
            self.bound = MAX_OPS  # (`full` sets the next window's)
            live = [(i, p) for i, w in enumerate(outs) if (p := w()) is not None]
            if not live and not checks:  # (an op whose inputs are checked runs: eagerly its failure stops the run)
                return
            self.flushes += 1
            returned = [i for i, _ in live]
            if checks:  # the values the checks read come out of the program too
                returned = sorted(set(returned).union(*(indices for _, indices in checks)))
            key = (ops, tuple(returned))
            program = self.programs.get(key)
            if program is not None:
                self.single_use.discard(key)
            elif len(self.single_use) >= MAX_SINGLE_USE and not compiles_again(
                key, self.programs, self.single_use, self.refused
            ):
                self._run_op_by_op(ops, args, live, sites)
                return
            try:
                if program is None:
                    # its first call traces, lowers and compiles: a foreground build, so no optimised compile of
                    # an earlier program starts on the other core meanwhile (tiers' gate)
                    with B.tiers.foreground():
                        program = self._compile(key)
                        results = program(*args)
                else:
                    results = program(*args)
            except Exception:  # noqa: BLE001  (the op-by-op run raises in the failing op's words)
                self.programs.pop(key, None)
                self.single_use.discard(key)
                self._run_op_by_op(ops, args, live, sites)
                return
            if checks:
                values = dict(zip(returned, results, strict=True))
                results = [values[i] for i, _ in live]
                if not all(check([values[i] for i in indices]) for check, indices in checks):
                    self._run_op_by_op(ops, args, live, sites)  # raises the op's own error, at its line
                    return
            for (_, p), r in zip(live, results, strict=True):
                p.array = r
                p.window = None
            if known_values.PENDING:  # a value known before it was computed (an optimizer's next global step)
                known_values.arrived()

    def _compile(self, key: tuple):
        if len(self.programs) >= MAX_PROGRAMS:
            oldest = next(iter(self.programs))
            del self.programs[oldest]
            self.single_use.discard(oldest)
        # tiered: a large window (a training step) runs quickly compiled until its optimised program is ready
        fn = B.cache.persistent_jit(_runner(*key), self._disk_key(key), tiered=True, label=_label(key[0]))
        self.programs[key] = fn
        self.single_use.add(key)
        return fn

    def _disk_key(self, key: tuple) -> str | None:
        ops, live = key
        parts = []
        for prim, attrs, refs, _ in ops:
            name = self.kernel_name(prim, attrs)
            if name is None:
                return None
            parts.append(f"{name}{list(refs)}")
        return f"Window{{{';'.join(parts)}}}->{list(live)}"

    def _run_op_by_op(self, ops: tuple, args: list, live: list, sites: list) -> None:
        """Run the window's ops one at a time and raise the first failure, at the failed op's line (`Failed`).

        An op that fails leaves its error, with its line, to its own outputs and to the outputs of the ops that
        read them (reading one raises it again); every other output is computed and kept."""
        values: list = []
        failed: dict[int, Failed] = {}  # value index -> why it has no value
        first = None
        for (prim, attrs, refs, n_out), site in zip(ops, sites, strict=True):
            base = len(values)
            why = next((failed[r[1]] for r in refs if type(r) is not int and r[0] == "v" and r[1] in failed), None)
            if why is None:
                try:
                    inputs = tuple(_eager_input(r, args, values) for r in refs)
                    out = self.run_eagerly(prim, attrs, inputs)
                    values.extend(out if prim.multiple_results else (out,))
                    continue
                except Exception as raised:  # noqa: BLE001  (raised below, and kept for whoever reads this op's outputs)
                    raised.__context__ = None  # neither it nor its traceback keeps this window's arrays alive
                    # (only the frames of the user's own function the op ran, a pyfunc's, are kept: they say where)
                    frames = outside_frames(raised.__traceback__)
                    why = Failed(raised.with_traceback(None), site, frames)
                    first = first or why
            values.extend([None] * n_out)
            failed.update(dict.fromkeys(range(base, base + n_out), why))
        for i, p in live:
            if i in failed:
                p.window = failed[i]  # no longer this window's: a later op reading it is not wired to its index
            else:
                p.array, p.window = values[i]._data, None
        if known_values.PENDING:
            known_values.arrived()
        if first is not None:
            raise first.failure(None)

    def failure(self, pending: Pending) -> BaseException:
        """The error to raise for `pending` when this window ran and left it without a value (never expected: a
        failed op's outputs point at their `Failed`)."""
        return RuntimeError("Kiln internal error: a lazily recorded value was lost before its window ran.")


class Failed:
    """The `window` of a Pending value whose op failed when its window ran: reading the value raises the op's error
    again, as a copy whose traceback ends at the user's line that called the op (`site`)."""

    __slots__ = ("error", "site", "frames")

    def __init__(self, error: BaseException, site: tuple | None, frames: types.TracebackType | None = None) -> None:
        # frames: the user's frames below the op (a pyfunc's function that raised), after the op's line
        self.error, self.site, self.frames = error, site, frames

    def flush(self) -> None:
        """Nothing is left to run."""

    def failure(self, pending: Pending | None) -> BaseException:
        """A fresh copy of the op's error (raising one object twice would grow its traceback), located at its line."""
        err = self.error
        try:
            new = copy.copy(err)
        except Exception:  # noqa: BLE001  (an exception that cannot be rebuilt from its arguments is raised itself)
            new = err
        new.__cause__, new.__suppress_context__ = None, True  # the compiled window's failure is Kiln's business
        if self.site is None:
            return new.with_traceback(self.frames)
        frame, lasti = self.site
        line = line_of(frame.f_code, lasti) or frame.f_lineno  # the line then (f_lineno is the frame's line now)
        if new is not err:  # (the copy shares the original's list of notes)
            new.__notes__ = [
                *getattr(err, "__notes__", ()),
                f"(Kiln's PyNative ran this op later than line {line}, in its lazy window, when a value was needed; "
                "KILN_LAZY=0 runs each op at its line.)",
            ]
        return new.with_traceback(types.TracebackType(self.frames, frame, lasti, line))


def aligned_bound(ops: list) -> int:
    """MAX_OPS, or the largest multiple of the period of `ops`' last run of repeated ops (a Python loop's body: its
    (primitive, attributes) sequence recorded at least twice in a row at the end) that fits in MAX_OPS. A heavy op
    in the body keeps MAX_OPS (the bound counts weights)."""
    keys = [(op[0], op[1]) for op in ops]
    n = len(keys)
    for period in range(1, min(n // 2, MAX_OPS // 2) + 1):
        if keys[n - period :] == keys[n - 2 * period : n - period]:
            if any(key[0] in WEIGHTS for key in keys[n - period :]):
                return MAX_OPS
            return MAX_OPS // period * period
    return MAX_OPS


def _eager_input(r, args: list, values: list):
    if type(r) is int:
        return Tensor._wrap(args[r])
    if r[0] == "v":
        return values[r[1]]
    if r[0] == "s":
        return args[r[2]]
    return r[1]


def _label(ops: tuple) -> str:
    """What a window's program computes, for the compile log: its ops, and the backward pieces among them."""
    pieces = [LABELS[op[0]] for op in ops if op[0] in LABELS]
    return f"a lazy window of {len(ops)} ops" + (f" ({', '.join(pieces)})" if pieces else "")


def traceable(prim: PrimitiveDef, attrs: tuple, consts: tuple = ()) -> Callable:
    """`prim`'s implementation with `attrs` bound, as an inlined jit of its inputs: dispatch evaluates an op's output
    types through it and the window's program calls it, so the op is traced once per input signature, not again in
    every program it is part of (JAX keeps the trace; inlined, the program's operations are those of a direct call).
    `consts`: (position, type, value) of inputs passed as Python values, not traced; the function takes the others."""
    key = (prim, attrs, consts)
    impl = prim.impl
    impl_fn = _traceables.get(key)
    if impl_fn is not None and impl_fn[0] is impl:  # (an implementation replaced since is traced anew)
        return impl_fn[1]
    if impl_fn is None and len(_traceables) >= MAX_TRACEABLES:  # the oldest goes: a full cache keeps caching
        del _traceables[next(iter(_traceables))]
    kw = prim.attrs_dict(attrs) if attrs else {}
    if consts:
        fixed = {position: value for position, _, value in consts}

        def call(*xs):
            it = iter(xs)
            return impl(*(fixed[i] if i in fixed else next(it) for i in range(len(xs) + len(fixed))), **kw)

    else:
        call = (lambda *xs: impl(*xs, **kw)) if kw else impl
    fn = B.jit(call, inline=True)
    _traceables[key] = (impl, fn)
    return fn


def forget(prim: PrimitiveDef) -> None:
    """Drop what the window keeps for a run-time primitive that is no longer used."""
    WEIGHTS.pop(prim, None)
    LABELS.pop(prim, None)
    for key in [k for k in _traceables if k[0] is prim]:
        del _traceables[key]


def _runner(ops: tuple, live: tuple):
    """The function of the window's arguments computing its referenced outputs (traced once per signature)."""

    def run(*args):
        values: list = []
        for prim, attrs, refs, _ in ops:
            inputs = [
                args[r] if type(r) is int else values[r[1]] if r[0] == "v" else args[r[2]] if r[0] == "s" else r[1]
                for r in refs
            ]
            out = traceable(prim, attrs)(*inputs)
            if prim.multiple_results:
                values.extend(out)
            else:
                values.append(out)
        return tuple(values[i] for i in live)

    return run


def on_main_thread() -> bool:
    """The window records the main thread's ops only (a data-loading thread runs its ops at once)."""
    return threading.get_ident() == _MAIN_THREAD


def register(window: Window) -> None:
    """Make `window` the one that Parameter reads outside dispatch run first (`tensor.LAZY_WINDOWS`)."""
    LAZY_WINDOWS[:] = [window]
