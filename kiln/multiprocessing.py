"""`mindspore.multiprocessing`: Python's `multiprocessing`, with Kiln's word on forked children.

Everything of `multiprocessing` is here under the same names. `Process` and `Pool` differ in one way: forking a
process that has started the XLA runtime is said once, in Kiln's words, instead of JAX's warning on every fork:
a forked child runs the kernels its parent had compiled, but compiling a new program in it can hang (XLA's
compiler threads do not survive `fork`), and on a GPU it cannot use the device at all. Children that compile
should use `set_start_method("spawn")` (or "forkserver").
"""

from __future__ import annotations

import multiprocessing as _mp
import warnings as _warnings
from multiprocessing import *  # noqa: F403
from multiprocessing import pool as _pool

from kiln import _backend as _B

__all__ = list(_mp.__all__)

_warned = False


def _before_fork() -> _warnings.catch_warnings | None:
    """With the fork start method: say once what a forked child can do, and quiet JAX's per-fork warning."""
    global _warned
    if _mp.get_start_method(allow_none=True) not in (None, "fork"):
        return None
    if not _warned:
        _warned = True
        device = "" if _B.default_platform() == "cpu" else " and cannot use the GPU"
        _warnings.warn(
            f"kiln.multiprocessing: a forked child runs the kernels its parent compiled, but compiling a new "
            f"program in it can hang{device}; use set_start_method('spawn') for children that compile.",
            RuntimeWarning,
            stacklevel=3,
        )
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
