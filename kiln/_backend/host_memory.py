"""Host memory between runs: a freed large buffer stays in the process for the next run instead of going back to
the OS.

XLA's CPU executables allocate their temporary buffer at each run and free it at the end (68 MB for the training
step of a 2-layer bidirectional LSTM(32, 64), batch 8, length 500). glibc's malloc serves a block that large with
mmap and gives it back with munmap, so every step faults all its pages in again: about 14,800 minor page faults a
step there, a quarter of the step's CPU time spent in the kernel. `keep_freed_memory` raises glibc's mmap and trim
thresholds (`mallopt`) so that such blocks come from the heap and return to it, and the next run reuses the same
pages, as a framework's memory pool does. The price is the one of a pool: the process keeps its peak heap.
glibc's own dynamic threshold keeps blocks up to 32 MB after their first free; the LSTM step's are larger.
It does not reach blocks of 64 MB or more allocated on a thread other than the main one (glibc's heaps for other
threads are 64 MB, so such a block is still mapped at each run): the same LSTM step at length 2000 still takes
about 58,600 page faults a step. `MALLOC_ARENA_MAX=1` in the environment removed an 80 MB block's faults in a
test program, not that step's kernel time; left as it is.

It runs once, when the backend is imported. `KILN_HOST_MEMORY=system` leaves glibc's defaults; other C libraries
(no `mallopt`) are left as they are.
"""

from __future__ import annotations

import ctypes
import os

__all__ = ["KEEP_BELOW", "keep_freed_memory"]

# Blocks up to this size come from the heap, and up to this much free memory at its top is kept (bytes).
KEEP_BELOW = 1 << 30

_M_TRIM_THRESHOLD = -1  # glibc's mallopt parameters (malloc.h)
_M_MMAP_THRESHOLD = -3


def _is_glibc() -> bool:
    # os.confstr answers at once; platform.libc_ver reads the interpreter's binary (about 1.4 ms at import)
    try:
        return (os.confstr("CS_GNU_LIBC_VERSION") or "").startswith("glibc")
    except (ValueError, OSError, AttributeError):
        return False


def keep_freed_memory() -> bool:
    """Make glibc's malloc keep freed blocks below `KEEP_BELOW` for reuse; True when it was set.

    Does nothing (False) under `KILN_HOST_MEMORY=system` or when the C library is not glibc.
    """
    if os.environ.get("KILN_HOST_MEMORY", "").strip().lower() == "system" or not _is_glibc():
        return False
    try:
        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError):
        return False
    mallopt.argtypes = (ctypes.c_int, ctypes.c_int)
    return bool(mallopt(_M_MMAP_THRESHOLD, KEEP_BELOW)) and bool(mallopt(_M_TRIM_THRESHOLD, KEEP_BELOW))
