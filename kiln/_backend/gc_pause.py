"""Python's cyclic garbage collector paused while a program is traced, lowered and compiled.

Tracing a program allocates many container objects (tracers, equations, MLIR operations) that mostly live until the
program is built, so the collector's young generations fill again and again and its full collections walk the whole
heap (JAX, Kiln, the user's network) several times per build: a cold PyNative MobileNetV2 step spent 0.3-0.6 s of
its 3.7-3.9 s of CPU in collections (load 13). Memory is still freed by reference counting during a pause; cycles
made during it are collected by the first collection after it.
"""

from __future__ import annotations

import gc
import threading

__all__ = ["paused"]

_lock = threading.Lock()
_depth = 0  # pauses in progress (all threads)
_resume = False  # whether the collector was on when the first of them began (a user who turned it off keeps it off)


class paused:  # noqa: N801  (a context manager, used as `with gc_pause.paused():`)
    """No cyclic collection while any thread is inside one (nests; any thread)."""

    __slots__ = ()

    def __enter__(self) -> None:
        global _depth, _resume
        with _lock:
            if _depth == 0:
                _resume = gc.isenabled()
                gc.disable()
            _depth += 1

    def __exit__(self, *exc) -> None:
        global _depth
        with _lock:
            _depth -= 1
            if _depth == 0 and _resume:
                gc.enable()
