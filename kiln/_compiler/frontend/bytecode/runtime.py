"""Running a function under bytecode capture: guarded segment caches, graph breaks, Python steps.

A call runs as a chain: segment (a compiled graph, from the entry state at instruction `pc`) -> Python step
(the instruction that broke the graph, and what follows it up to the next Tensor work) -> segment -> ...
until the function returns. Each segment is cached per (pc, entry signature) with its guards; the first
segment's entry is the call's arguments. A function without a break is one segment: one guarded graph call.
"""

from __future__ import annotations

import linecache
import os
import sys
import time
import warnings
import weakref

from kiln._compiler.build import build
from kiln._compiler.cache import memory as jit_cache
from kiln._compiler.cache.persistent import StaleExecutable
from kiln._compiler.errors import HostShapeChanged, user_stacklevel
from kiln._compiler.frontend.bytecode import breaks, state
from kiln._compiler.frontend.bytecode.instructions import Code, GraphBreak
from kiln._compiler.frontend.bytecode.tracer import (
    ConcreteRun,
    Frame,
    Stop,
    SymbolicRun,
    bind,
    closure_cells,
    var_names,
)
from kiln._compiler.guards import Guards

CACHE_SIZE = int(os.environ.get("KILN_PIJIT_CACHE_SIZE", "8"))  # segments kept per resume point


class Unsupported(RuntimeError):
    """`jit(fullgraph=True)`: the function cannot be captured as one graph (the message says where and why)."""


class Segment:
    """One captured graph from a resume point to a break (or the return)."""

    __slots__ = ("pc", "ex", "check", "guards", "effects", "kind", "ret", "end_pc", "frame_t", "n_eqns", "line", "refs")

    def run(self, values: list, leaves: list):
        outs = self.ex(leaves) if self.ex is not None else ()
        memo: dict = {}
        if self.effects:
            replay(self.effects, outs, values, memo)
        if self.kind == "return":
            return state.decode(self.ret, outs, values, memo)
        names, cells, stack = self.frame_t
        d = state.decode
        return (
            {n: d(t, outs, values, memo) for n, t in names},
            {n: d(t, outs, values, memo) for n, t in cells},
            [d(t, outs, values, memo) for t in stack],
        )


def replay(effects, outs, values, memo) -> None:
    """Apply the logged side effects with this call's values, in program order."""
    d = state.decode
    for e in effects:
        kind = e[0]
        if kind == "print":
            print(*[d(a, outs, values, memo) for a in e[1]], **{k: d(v, outs, values, memo) for k, v in e[2].items()})
        elif kind == "call":
            target = d(e[1], outs, values, memo)
            getattr(target, e[2])(*[d(a, outs, values, memo) for a in e[3]],
                                  **{k: d(v, outs, values, memo) for k, v in e[4].items()})  # fmt: skip
        elif kind == "global":
            e[1][e[2]] = d(e[3], outs, values, memo)
        elif kind == "cell":
            e[1].cell_contents = d(e[2], outs, values, memo)
        elif kind == "freevar":
            e[1].closure[e[2]].cell_contents = d(e[3], outs, values, memo)
        elif kind == "setattr":
            v = d(e[3], outs, values, memo)
            if v is state.MISSING:
                delattr(e[1], e[2])
            else:
                setattr(e[1], e[2], v)
        elif kind == "tensor":
            d(e[1], outs, values, memo)._data = d(e[2], outs, values, memo)._data


class FunctionCache:
    """Segments of one function (one per jit wrapper, or per code object for functions called from a step)."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.segments: dict = {}  # (pc, layout, signature) -> [Segment]
        self.per_pc: dict = {}  # pc -> segments compiled there
        self.eager_pcs: dict = {}  # pc -> why it runs without capture
        self.breaks: list = []  # BreakInfo, each break found once
        self.recompiles: list = []  # (line, reason)
        self.graphs: list = []  # Segment compiled (for explain)
        self.compiles = 0
        self.last_call = {"graphs": 0, "steps": 0}
        self.warned = False
        self.fullgraph = False
        self.checked = False
        self.fn = None
        self.closure: tuple = ()  # the closure cells of the call being run (guards and cell writes read them)


_BY_CODE: dict = {}
_BY_JIT: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def cache_for(holder, name: str) -> FunctionCache:
    fc = _BY_JIT.get(holder)
    if fc is None:
        fc = _BY_JIT[holder] = FunctionCache(name)
    return fc


def run_nested(fn, args, kwargs):
    """A user function called from a Python step: captured with its own cache (per code object)."""
    fc = _BY_CODE.get(fn.__code__)
    if fc is None:
        fc = _BY_CODE[fn.__code__] = FunctionCache(fn.__qualname__)
    return call(fc, fn, list(args), kwargs or {})


def _labels(fn, entry: state.Entry) -> list[str]:
    lay = entry.layout
    if lay[0] == "call":
        names = fn.__code__.co_varnames
        pos = [names[i] if i < fn.__code__.co_argcount else f"*args[{i}]" for i in range(lay[1])]
        return [*pos, *lay[2]]
    return [*lay[1], *lay[2], *(f"stack[{i}]" for i in range(lay[3]))]


def call(fc: FunctionCache, fn, args: list, kwargs: dict):
    """Run `fn(*args, **kwargs)` through its segments."""
    entry = state.Entry(0, ("call", len(args), tuple(kwargs)), [*args, *kwargs.values()] if kwargs else args)
    graphs = steps = 0
    if not fc.checked:
        fc.checked = True
        fc.fn = fn
        why = Code.of(fn.__code__).unsupported()
        if why is not None:
            fc.eager_pcs[0] = why
            line = fn.__code__.co_firstlineno
            fc.breaks.append(breaks.BreakInfo(why, (fn.__code__.co_filename, line), "", fn.__qualname__))
            if fc.fullgraph:
                raise Unsupported(_fullgraph_message(fc.breaks[-1]))
    reshaped = 0  # segments captured again for host steps' new result shapes
    restaled = 0  # segments captured again for a Parameter reshaped since (set_data)
    try:
        while True:
            pc = entry.pc
            fc.closure = fn.__closure__ or ()  # reset at each segment: a Python step may run this code recursively
            if pc in fc.eager_pcs:
                return _eager(fc, fn, entry)
            sig, leaves, tmpls, paths, refs = state.flatten(entry.values)
            key = (pc, entry.layout, sig)
            seg = None
            bucket = fc.segments.get(key)
            reason = None
            if bucket is not None:
                for s in bucket:
                    failed = s.check()
                    if failed is None:
                        seg = s
                        break
                    reason = f"guard failed: {failed}"
            if seg is None:
                seg = _compile(fc, fn, entry, key, sig, leaves, tmpls, paths, refs, reason)
                if seg is None:
                    return _eager(fc, fn, entry)
            if seg.ex is not None:
                graphs += 1
            try:
                out = seg.run(entry.values, leaves)
            except HostShapeChanged as changed:  # nothing applied: captured again for the new shapes
                fc.segments[key].remove(seg)
                reshaped += 1
                if reshaped > changed.MAX_RETRACES:
                    raise changed.refused() from None
                continue
            except StaleExecutable:  # a Parameter it reads has another shape (set_data): captured again
                fc.segments[key].remove(seg)
                restaled += 1
                if restaled > 2:  # a fresh capture is for the shapes as they are: never stale twice over
                    raise
                continue
            if seg.kind == "return":
                return out
            steps += 1
            result = _python_step(fn, seg.end_pc, *out)
            if type(result) is _Returned:
                return result.value
            entry = result
    finally:
        fc.last_call = {"graphs": graphs, "steps": steps}


class _Returned:
    __slots__ = ("value",)

    def __init__(self, value) -> None:
        self.value = value


def _frame_entry(frame) -> state.Entry:
    """The entry state of the segment starting where `frame` stopped (live locals only)."""
    live = breaks.live_locals(frame.code.code)[frame.cur]
    names = tuple(n for n in frame.code.code.co_varnames if n in frame.locals and n in live)
    free = set(frame.code.code.co_freevars)
    cells = tuple(n for n in frame.cells if n not in free)
    values = [*(frame.locals[n] for n in names), *(frame.cells[n] for n in cells), *frame.stack]
    return state.Entry(frame.cur, ("frame", names, cells, len(frame.stack)), values)


def _python_step(fn, pc, locals_, cells, stack, stop: bool = True):
    tx = ConcreteRun(fn, run_nested, stop)
    cells = {**closure_cells(fn), **cells}
    frame = Frame(tx, fn, locals_, cells, stack, pc)
    tx.top = frame
    try:
        return _Returned(frame.run())
    except Stop:
        return _frame_entry(frame)


def _eager(fc, fn, entry: state.Entry):
    if entry.pc == 0:
        n = entry.layout[1]
        return fn(*entry.values[:n], **dict(zip(entry.layout[2], entry.values[n:], strict=True)))
    _, names, cells, n_stack = entry.layout
    vals = entry.values
    locals_ = dict(zip(names, vals[: len(names)], strict=True))
    cell_d = dict(zip(cells, vals[len(names) : len(names) + len(cells)], strict=True))
    return _python_step(fn, entry.pc, locals_, cell_d, list(vals[len(vals) - n_stack :]), stop=False).value


def _start_frame(tx, fn, entry: state.Entry, values: list) -> Frame:
    if entry.layout[0] == "call":
        n = entry.layout[1]
        args, kwargs = values[:n], dict(zip(entry.layout[2], values[n:], strict=True))
        locals_ = bind(fn, args, kwargs)
        for name in var_names(fn):
            tx.fresh_obj(locals_[name])
        return Frame(tx, fn, locals_, closure_cells(fn), [], 0)
    _, names, cells, n_stack = entry.layout
    locals_ = dict(zip(names, values[: len(names)], strict=True))
    cell_d = {**closure_cells(fn), **dict(zip(cells, values[len(names) : len(names) + len(cells)], strict=True))}
    return Frame(tx, fn, locals_, cell_d, list(values[len(values) - n_stack :]), entry.pc)


def _describe_miss(fc, key, sig, paths, labels) -> str:
    pc, layout, _ = key
    for (p, lay, old), _b in fc.segments.items():
        if p != pc or lay != layout or len(old) != len(sig):
            continue
        for i, (a, b) in enumerate(zip(old, sig, strict=True)):
            if a != b:
                path = paths[i]
                where = labels[path[0]] + "".join(f"[{k!r}]" for k in path[1:])
                return f"'{where}' changed: {_show(a)} -> {_show(b)}"
    if fc.per_pc.get(pc):
        return "new input signature"
    return "first call" if pc == 0 else "first resume at this line"


def _show(s) -> str:
    if isinstance(s, tuple) and len(s) == 2 and isinstance(s[0], tuple):
        return f"shape {s[0]} {s[1]}"
    if isinstance(s, tuple) and len(s) == 2 and isinstance(s[0], type):
        return f"{s[0].__name__} {s[1]!r}"
    return repr(s)


def _line(fn, pc: int) -> int:
    return Code.of(fn.__code__).lines[pc]


def _compile(fc, fn, entry, key, sig, leaves, tmpls, paths, refs, reason):
    pc = entry.pc
    labels = _labels(fn, entry)
    if reason is None:
        reason = _describe_miss(fc, key, sig, paths, labels)
    n_here = fc.per_pc.get(pc, 0)
    if n_here >= CACHE_SIZE:
        why = f"cache size limit ({CACHE_SIZE}) reached at line {_line(fn, pc)}; last failing guard: {reason}"
        fc.eager_pcs[pc] = why
        if not fc.warned:
            fc.warned = True
            warnings.warn(
                f"bytecode jit of '{fc.name}': recompiled {n_here} times at line {_line(fn, pc)} (the guard that keeps "
                f"failing: {reason}); it runs as Python from there on. Pass changing values as Tensors or "
                f"mutable(...), or raise KILN_PIJIT_CACHE_SIZE.",
                stacklevel=user_stacklevel(),
            )
        return None
    if n_here or fc.compiles:
        if not reason.startswith("first"):
            fc.recompiles.append((_line(fn, pc), reason))
            breaks.report_recompile(fc.name, f"line {_line(fn, pc)}: {reason}")
    t0 = time.perf_counter()
    forced: set = set()
    for _attempt in range(256):
        if pc in forced:
            seg = _passthrough(entry)
            break
        try:
            seg = _capture(fc, fn, entry, tmpls, leaves, forced)
            break
        except _Broke as b:
            info = breaks.BreakInfo(b.brk.reason, b.brk.loc, b.brk.hint, fn.__qualname__)
            if fc.fullgraph:
                raise Unsupported(_fullgraph_message(info)) from None
            if not any(x.reason == info.reason and x.where() == info.where() for x in fc.breaks):
                fc.breaks.append(info)
                breaks.report_break(info)
            forced.add(b.pc)
        except state.Unrebuildable as u:
            fc.eager_pcs[pc] = str(u)
            fc.breaks.append(breaks.BreakInfo(f"runs as Python: {u}", (fn.__code__.co_filename, _line(fn, pc)),
                                              "", fn.__qualname__))  # fmt: skip
            return None
    else:
        fc.eager_pcs[pc] = "too many graph breaks"
        return None
    seg.pc = pc
    seg.line = _line(fn, pc)
    fc.segments.setdefault(key, []).insert(0, seg)
    fc.per_pc[pc] = n_here + 1
    fc.compiles += 1
    if seg.ex is not None:
        fc.graphs.append(seg)
        jit_cache.STATS["compiles"] += 1
    if jit_cache.log_enabled():
        sys.stderr.write(
            f"[kiln] bytecode: compiled '{fc.name}' from line {seg.line} ({reason}) "
            f"in {1000 * (time.perf_counter() - t0):.1f} ms\n"
        )
    seg.refs = refs
    return seg


def _fullgraph_message(info) -> str:
    src = linecache.getline(info.file, info.line).strip()
    code = f"\n    {src}" if src else ""
    tip = f"\nTo avoid it: {info.hint}." if info.hint else ""
    head = f'File "{info.file}", line {info.line}, in {info.function}'
    return f"{head}: graph break (fullgraph=True): {info.reason}{code}{tip}"


class _Broke(Exception):  # noqa: N818
    def __init__(self, brk, pc) -> None:
        self.brk, self.pc = brk, pc


def _passthrough(entry) -> Segment:
    seg = Segment()
    seg.ex, seg.effects, seg.kind, seg.end_pc = None, (), "break", entry.pc
    seg.check = _always
    seg.guards = Guards()
    seg.n_eqns = 0
    seg.refs = None
    if entry.layout[0] == "call":
        raise AssertionError("a break at a function's first instruction")
    _, names, cells, n_stack = entry.layout
    ln, lc = len(names), len(cells)
    seg.frame_t = (
        [(n, ("entry", (i,))) for i, n in enumerate(names)],
        [(n, ("entry", (ln + i,))) for i, n in enumerate(cells)],
        [("entry", (ln + lc + i,)) for i in range(n_stack)],
    )
    return seg


def _always():
    return None


def _capture(fc, fn, entry, tmpls, leaves, forced) -> Segment:
    guards = Guards()
    box: dict = {}

    def body(*tensors):
        tx = SymbolicRun(fn, forced, guards, fc)
        box["tx"] = tx
        try:
            values = state.rebuild(tmpls, list(tensors), tx)
            frame = _start_frame(tx, fn, entry, values)
            tx.top = frame
            try:
                ret = frame.run()
                stopped = None
            except Stop:
                stopped = frame
            except GraphBreak as gb:
                raise _Broke(gb, frame.kw_pc if frame.kw_names else frame.cur) from None
            except state.Unrebuildable:
                raise
            except Exception as err:  # noqa: BLE001  (the program raises: run that instruction in Python)
                gb = GraphBreak(f"raises {type(err).__name__}: {err}", "")
                gb.loc = frame.where()
                raise _Broke(gb, frame.kw_pc if frame.kw_names else frame.cur) from None
            enc = state.Encoder(tx)
            box["effects"] = _encode_effects(tx, enc)
            if stopped is None:
                box["ret"] = enc(ret)
            else:
                live = breaks.live_locals(frame.code.code)[frame.cur]
                free = set(frame.code.code.co_freevars)
                names = [n for n in frame.code.code.co_varnames if n in frame.locals and n in live]
                box["frame"] = (
                    [(n, enc(frame.locals[n])) for n in names],
                    [(n, enc(c)) for n, c in frame.cells.items() if n not in free],
                    [enc(v) for v in frame.stack],
                )
                box["end"] = frame.cur
            return tuple(enc.outs)
        finally:
            tx.undo_all()

    ex = build(fc.name, body, (("t",) * len(leaves), ()), leaves, [], [], True, None)
    seg = Segment()
    seg.ex = ex
    seg.guards = guards
    seg.check = guards.compile()
    seg.effects = box["effects"]
    seg.n_eqns = ex.graph.count() if ex.graph is not None else 0
    if "ret" in box:
        seg.kind, seg.ret, seg.end_pc, seg.frame_t = "return", box["ret"], None, None
    else:
        seg.kind, seg.ret, seg.end_pc, seg.frame_t = "break", None, box["end"], box["frame"]
    return seg


def _encode_effects(tx, enc) -> list:
    out = []
    for e in tx.effects:
        kind = e[0]
        if kind == "print":
            out.append(("print", [enc(a) for a in e[1]], {k: enc(v) for k, v in e[2].items()}))
        elif kind == "call":
            out.append(("call", e[1], e[2], [enc(a) for a in e[3]], {k: enc(v) for k, v in e[4].items()}))
        elif kind == "global":
            out.append(("global", e[1], e[2], enc(e[3])))
        elif kind == "cell":
            out.append(("cell", e[1], enc(e[2])))
        elif kind == "freevar":
            out.append(("freevar", e[1], e[2], enc(e[3])))
        elif kind == "setattr":
            out.append(("setattr", e[1], e[2], enc(e[3]) if e[3] is not state.MISSING else ("c", state.MISSING)))
    for path, t, data in tx.entry_tensors.values():
        if t._data is not data:
            out.append(("tensor", ("entry", path), enc.tensor(t)))
    return out
