"""`mindspore.multiprocessing`: Python's `multiprocessing`, with Kiln's word on forked children.

Everything of `multiprocessing` is here under the same names. `Process` and `Pool` differ in one way: forking a
process that has started the XLA runtime is said once, in Kiln's words, instead of JAX's warning on every fork:
a forked child runs the kernels its parent had compiled, but compiling a new program in it can hang (XLA's
compiler threads do not survive `fork`), and on a GPU it cannot use the device at all. Children that compile
should use `set_start_method("spawn")` (or "forkserver").
"""

from __future__ import annotations

import contextlib as _contextlib
import multiprocessing as _mp
import warnings as _warnings
from multiprocessing import *  # noqa: F403
from multiprocessing import pool as _pool

from kiln import _backend as _B

__all__ = list(_mp.__all__)

_warned = False


@_contextlib.contextmanager
def _forking():
    """With the fork start method: say once what a forked child can do, and quiet JAX's per-fork warning."""
    global _warned
    if _mp.get_start_method(allow_none=True) not in (None, "fork"):
        yield
        return
    if not _warned:
        _warned = True
        device = "" if _B.default_platform() == "cpu" else " and cannot use the GPU"
        _warnings.warn(
            f"kiln.multiprocessing: a forked child runs the kernels its parent compiled, but compiling a new "
            f"program in it can hang{device}; use set_start_method('spawn') for children that compile.",
            RuntimeWarning,
            stacklevel=4,  # the caller of Process.start
        )
    with _warnings.catch_warnings():
        _warnings.filterwarnings("ignore", message=r"os\.fork\(\) was called", category=RuntimeWarning)
        yield


class Process(_mp.Process):
    """`multiprocessing.Process`; see the module's note on forked children."""

    def start(self) -> None:
        with _forking():
            super().start()


class Pool(_pool.Pool):
    """`multiprocessing.Pool` whose workers are this module's `Process`."""

    @staticmethod
    def Process(ctx, *args, **kwds):  # noqa: N802  (multiprocessing's name)
        return Process(*args, **kwds)
