"""`mindspore.multiprocessing`: Python's `multiprocessing`, with Kiln's rules for forked children.

Everything of `multiprocessing` is here under the same names. `Process` and `Pool` differ in one way: with the
"fork" start method on the CPU, a child runs Kiln ops as the parent does (the CPU runtime works in a forked
child), so JAX's generic warning about forking a multithreaded process is not repeated for each child; on a GPU,
a forked child cannot use the device the parent opened, which is said once, with the fix ("spawn").
"""

from __future__ import annotations

import multiprocessing as _mp
import warnings as _warnings
from multiprocessing import *  # noqa: F403
from multiprocessing import pool as _pool

from kiln import _backend as _B

__all__ = list(_mp.__all__)

_warned_gpu = False


def _before_fork() -> _warnings.catch_warnings | None:
    """A context that quiets the fork warning on the CPU (None when the start method is not fork)."""
    global _warned_gpu
    if _mp.get_start_method(allow_none=True) not in (None, "fork"):
        return None
    if _B.default_platform() != "cpu":
        if not _warned_gpu:
            _warned_gpu = True
            _warnings.warn(
                "kiln.multiprocessing: a child forked from a process that uses the GPU cannot use the GPU; call "
                "set_start_method('spawn') (or 'forkserver') for children that run Kiln ops on the device.",
                RuntimeWarning,
                stacklevel=3,
            )
        return None
    quiet = _warnings.catch_warnings()
    quiet.__enter__()
    _warnings.filterwarnings("ignore", message=r"os\.fork\(\) was called", category=RuntimeWarning)
    return quiet


class Process(_mp.Process):
    """`multiprocessing.Process`; see the module's note on forked children."""

    def start(self) -> None:
        quiet = _before_fork()
        try:
            super().start()
        finally:
            if quiet is not None:
                quiet.__exit__(None, None, None)


class Pool(_pool.Pool):
    """`multiprocessing.Pool` whose workers are this module's `Process`."""

    @staticmethod
    def Process(ctx, *args, **kwds):  # noqa: N802  (multiprocessing's name)
        return Process(*args, **kwds)
