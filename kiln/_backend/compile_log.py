"""`KILN_LOG=compiles`: one line on stderr for every XLA compile this process starts, saying what it compiles (a
PyNative kernel, a lazy window of N ops, a piece of a backward plan, a graph), its tier and its time.

JAX reports each backend compile to its monitoring listeners, an explicit `lowered.compile()` and a jax.jit's
first call alike, with the compiled function's name: Kiln names the functions it jits after what they compute
(`named`) and marks the quick tier's compiles (`quick_tier`); a compile of anything else (JAX's own helpers) is
logged under its function's name.
"""

from __future__ import annotations

import os
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager

import jax

_EVENT = "/jax/core/compile/backend_compile_duration"
_local = threading.local()  # .tier: the tier of the compile this thread runs now (None: the optimised one)
# .writing: this thread is writing a line of Kiln's own log (a trace whose only output is that still is kept on disk)


def enabled() -> bool:
    """Whether `KILN_LOG` asks for compiles (read at each compile: a program may set it after importing Kiln)."""
    return "compiles" in os.environ.get("KILN_LOG", "")


def named(fun: Callable, label: str) -> Callable:
    """A function calling `fun`, named `label`: what the compile log says a jit of it compiles."""

    def call(*args):
        return fun(*args)

    call.__name__ = call.__qualname__ = label
    return call


@contextmanager
def quick_tier() -> Iterator[None]:
    """The compiles this thread runs inside are the quick tier's (the log says which tier each one is)."""
    outer = getattr(_local, "tier", None)
    _local.tier = "quick"
    try:
        yield
    finally:
        _local.tier = outer


def _on_duration(event: str, duration: float, fun_name: str = "", **_) -> None:
    if event != _EVENT or not enabled():
        return
    what = fun_name[4:-1] if fun_name.startswith("jit(") and fun_name.endswith(")") else fun_name
    tier = getattr(_local, "tier", None) or "optimized"
    write(f"[kiln] XLA compiled {what} ({tier} tier) in {1000 * duration:.1f} ms\n")


def write(text: str) -> None:
    """Write a line of Kiln's diagnostic log (`KILN_LOG=...`) to stderr, marked as the log's own: the graph cache
    keeps a trace that printed nothing else (a process loading it would not repeat a user's print, but the log
    only describes this process's work; counting it made `KILN_LOG=compiles` keep programs off the disk)."""
    _local.writing = True
    try:
        sys.stderr.write(text)
    finally:
        _local.writing = False


def writing() -> bool:
    """Whether this thread is inside `write` (a line of Kiln's log, not a program's output)."""
    return getattr(_local, "writing", False)


jax.monitoring.register_event_duration_secs_listener(_on_duration)
