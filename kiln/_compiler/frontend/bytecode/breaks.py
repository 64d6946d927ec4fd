"""Graph breaks: which locals are live where a segment ends (only those cross the boundary), and the record
of each break for `explain` and `KILN_LOG=graph_breaks`."""

from __future__ import annotations

import dis
import os
import sys

from kiln._compiler.frontend.bytecode.instructions import Code

_UNCONDITIONAL = {"JUMP_FORWARD", "JUMP_BACKWARD", "JUMP_BACKWARD_NO_INTERRUPT", "JUMP", "JUMP_NO_INTERRUPT"}
_TERMINAL = {"RETURN_VALUE", "RETURN_CONST", "RAISE_VARARGS", "RERAISE"}
_live_cache: dict = {}


def _effect(ins) -> tuple[set, set]:
    op, v = ins.opname, ins.argval
    if op in ("LOAD_FAST", "LOAD_FAST_CHECK", "LOAD_FAST_AND_CLEAR", "MAKE_CELL"):
        return {v}, set()
    if op == "LOAD_FAST_LOAD_FAST":
        return set(v), set()
    if op in ("STORE_FAST", "DELETE_FAST"):
        return set(), {v}
    if op == "STORE_FAST_STORE_FAST":
        return set(), set(v)
    if op == "STORE_FAST_LOAD_FAST":
        return ({v[1]} if v[1] != v[0] else set()), {v[0]}
    return set(), set()


def live_locals(code) -> list[frozenset]:
    """For each instruction index of `code`, the local names read before being written on some path from it."""
    hit = _live_cache.get(code)
    if hit is not None:
        return hit
    c = Code.of(code)
    n = len(c.instrs)
    succ: list[list[int]] = []
    effects = []
    for i, ins in enumerate(c.instrs):
        s = []
        if ins.opname not in _UNCONDITIONAL and ins.opname not in _TERMINAL and i + 1 < n:
            s.append(i + 1)
        if ins.opcode in _jumps() and ins.argval in c.index:
            s.append(c.index[ins.argval])
        h = c.handler(ins.offset)
        if h is not None:
            s.append(h[0])
        succ.append(s)
        effects.append(_effect(ins))
    live = [frozenset()] * n
    changed = True
    while changed:
        changed = False
        for i in range(n - 1, -1, -1):
            out: set = set()
            for j in succ[i]:
                out |= live[j]
            uses, defs = effects[i]
            new = frozenset((out - defs) | uses)
            if new != live[i]:
                live[i] = new
                changed = True
    _live_cache[code] = live
    return live


_J: set = set()


def _jumps() -> set:
    if not _J:
        _J.update(dis.hasjrel)
        _J.update(dis.hasjabs)
    return _J


# -- logging -------------------------------------------------------------------------------------


def log_enabled(what: str) -> bool:
    return what in os.environ.get("KILN_LOG", "")


class BreakInfo:
    """One graph break: where, why, and how to avoid it."""

    __slots__ = ("reason", "file", "line", "hint", "function")

    def __init__(self, reason: str, loc, hint: str, function: str) -> None:
        self.reason, self.hint, self.function = reason, hint, function
        self.file, self.line = loc if loc else ("?", 0)

    def where(self) -> str:
        return f"{self.file}:{self.line}"

    def __str__(self) -> str:
        tip = f" (to avoid: {self.hint})" if self.hint else ""
        return f"graph break in {self.function} at {self.where()}: {self.reason}{tip}"


def report_break(info: BreakInfo) -> None:
    if log_enabled("graph_breaks"):
        sys.stderr.write(f"[kiln] {info}\n")


def report_recompile(name: str, reason: str) -> None:
    if log_enabled("recompiles"):
        sys.stderr.write(f"[kiln] recompiling '{name}': {reason}\n")
