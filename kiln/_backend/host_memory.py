"""Host memory between runs: a freed large buffer stays in the process for the next run instead of going back to
the OS.

XLA's CPU executables allocate their temporary buffer at each run and free it at the end (68 MB for the training
step of a 2-layer bidirectional LSTM(32, 64), batch 8, length 500). glibc's malloc serves a block that large with
mmap and gives it back with munmap, so every step faults all its pages in again: about 14,800 minor page faults a
step there, a quarter of the step's CPU time spent in the kernel. `keep_freed_memory` raises glibc's mmap and trim
thresholds (`mallopt`) so that such blocks come from the heap and return to it, and the next run reuses the same
pages, as a framework's memory pool does. The price is the one of a pool: the process keeps its peak heap.
glibc's own dynamic threshold keeps blocks up to 32 MB after their first free; the LSTM step's are larger.
A block below 64 MB allocated on one of XLA's threads, whose glibc heap has no room for it, gets a heap of its own,
and glibc deletes a heap that its frees leave empty (munmap) whatever the trim threshold, unless the top pad
(`M_TOP_PAD`) asks it to keep that much: the LSTM step above at length 500 (a 54 MB temporary buffer) so faulted
13,800 pages in at every PyNative step and at up to half of the GRAPH_MODE ones, 20-28 ms of system time each (a
quiet GRAPH_MODE run read 40.9 ms a step against 25 ms without). `keep_freed_memory` sets the pad to a whole heap
(`HEAP_PAD`), so such a heap stays: a new one faults in once.
It does not reach blocks of 64 MB or more allocated on a thread other than the main one (glibc's heaps for other
threads are 64 MB, so such a block is still mapped at each run): the same LSTM step at length 2000 still takes
about 58,600 page faults a step. `MALLOC_ARENA_MAX=1` in the environment removed an 80 MB block's faults in a
test program, not that step's kernel time; left as it is. Set from here, it is `KILN_HOST_MEMORY=one_heap` (below):
opt-in, for its peak RSS.
`kiln run` starts the process with glibc's huge pages instead (kiln/cli/hugepages.py): about 2,000 faults a step
there, the same peak RSS; a plain `python train.py` needs `GLIBC_TUNABLES=glibc.malloc.hugetlb=1` set by hand.

It runs once, when the backend is imported, before the backend starts XLA's threads. `KILN_HOST_MEMORY=system`
leaves glibc's defaults; other C libraries (no `mallopt`) are left as they are.

`KILN_HOST_MEMORY=one_heap` adds `mallopt(M_ARENA_MAX, 1)`: every thread that first allocates after it (XLA's, which
the backend's import starts) shares the main thread's heap, whose raised thresholds keep blocks of any size below
`KEEP_BELOW`. It must come before those threads' first malloc (a thread keeps the heap it got then), hence before the
backend's modules are imported (a process that started JAX's CPU backend before importing Kiln keeps its threads'
heaps). ResNet-50's 1x1 convolutions at 56x56, batch 32 (bench_conv; a 102 MB output or input gradient allocated on
XLA's thread): about 25,000 faults a call -> 0, forward + both gradients' process CPU 0.58-0.79x (session 24, load
11-14). It is not the default because one shared heap fragments: in the zoo's ResNet-50 GRAPH_MODE step (batch 16,
112x112) the step's 860 MB temporary block, once freed, is split by smaller blocks allocated before the next step's,
which then extends the heap instead; the heap grows by about 800 MB a step until glibc trims its top (RSS 957 -> 1721
-> 2548 -> 957 MB), so the step still takes 206,000 faults (212,000 without it; 68,000-174,000 with
`MALLOC_ARENA_MAX=1` from the start) and its peak RSS is 3.4 GB against 1.8 GB.

The pool is bounded by `release_idle_heap`, called when a compile ends: when more than `TRIM_ABOVE` bytes of the
heap are free, `malloc_trim` gives their pages back. A compile's scratch memory is what piles up there (one test of
the suite, a 1,030-trip loop's second-order gradient, left 3.2 GB free in a heap of 3.5 GB for the rest of its
worker's life); a training loop that compiles nothing more, such as the LSTM's, never reaches the call, and its
freed buffers (68 MB) are far below the bound.
"""

from __future__ import annotations

import ctypes
import os
import time

__all__ = [
    "HEAP_PAD",
    "KEEP_BELOW",
    "ONE_HEAP",
    "TRIM_ABOVE",
    "free_heap_bytes",
    "keep_freed_memory",
    "release_idle_heap",
]

# Blocks up to this size come from the heap, and up to this much free memory at its top is kept (bytes).
KEEP_BELOW = 1 << 30
# Free heap kept past a compile (bytes); `release_idle_heap` gives back the rest, at most once per TRIM_EVERY_S.
TRIM_ABOVE = 1 << 30
TRIM_EVERY_S = 1.0
# glibc's top pad (bytes): a thread's heap (64 MB at most) that its frees leave empty stays while the pad is this large
HEAP_PAD = 64 << 20
ONE_HEAP = "one_heap"  # KILN_HOST_MEMORY's value that also makes every thread allocate from the main thread's heap


class _MallInfo2(ctypes.Structure):
    _fields_ = [
        (name, ctypes.c_size_t)
        for name in ("arena", "ordblks", "smblks", "hblks", "hblkhd", "usmblks", "fsmblks", "uordblks", "fordblks")
    ]


_glibc: dict = {}  # "mallinfo2" and "malloc_trim", once keep_freed_memory has raised the thresholds
_last_check = [0.0]

_M_TRIM_THRESHOLD = -1  # glibc's mallopt parameters (malloc.h)
_M_TOP_PAD = -2
_M_MMAP_THRESHOLD = -3
_M_ARENA_MAX = -8


def _is_glibc() -> bool:
    # os.confstr answers at once; platform.libc_ver reads the interpreter's binary (about 1.4 ms at import)
    try:
        return (os.confstr("CS_GNU_LIBC_VERSION") or "").startswith("glibc")
    except (ValueError, OSError, AttributeError):
        return False


def keep_freed_memory() -> bool:
    """Make glibc's malloc keep freed blocks below `KEEP_BELOW` for reuse; True when it was set.

    Does nothing (False) under `KILN_HOST_MEMORY=system` or when the C library is not glibc. Under
    `KILN_HOST_MEMORY=one_heap` it also limits glibc to one heap for all threads (`M_ARENA_MAX`).
    """
    setting = os.environ.get("KILN_HOST_MEMORY", "").strip().lower()
    if setting == "system" or not _is_glibc():
        return False
    try:
        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError):
        return False
    mallopt.argtypes = (ctypes.c_int, ctypes.c_int)
    kept = bool(mallopt(_M_MMAP_THRESHOLD, KEEP_BELOW)) and bool(mallopt(_M_TRIM_THRESHOLD, KEEP_BELOW))
    kept = kept and bool(mallopt(_M_TOP_PAD, HEAP_PAD))
    if kept and setting == ONE_HEAP:
        kept = bool(mallopt(_M_ARENA_MAX, 1))
    libc = ctypes.CDLL(None)
    if kept and hasattr(libc, "mallinfo2") and hasattr(libc, "malloc_trim"):  # mallinfo2: glibc 2.33 and later
        libc.mallinfo2.restype = _MallInfo2
        libc.malloc_trim.argtypes = (ctypes.c_size_t,)
        _glibc.update(mallinfo2=libc.mallinfo2, malloc_trim=libc.malloc_trim)
    return kept


def free_heap_bytes() -> int | None:
    """Bytes glibc's heap holds free (kept for reuse), or None when Kiln did not set the thresholds."""
    info = _glibc.get("mallinfo2")
    return None if info is None else int(info().fordblks)


def release_idle_heap() -> bool:
    """Give the free heap's pages back to the OS when it holds more than `TRIM_ABOVE` bytes (checked at most once
    per `TRIM_EVERY_S`); True when it did. Called when a compile ends: that already costs milliseconds, and the
    compile's own scratch memory has just been freed."""
    info = _glibc.get("mallinfo2")
    if info is None:
        return False
    now = time.monotonic()
    if now - _last_check[0] < TRIM_EVERY_S:
        return False
    _last_check[0] = now
    if info().fordblks <= TRIM_ABOVE:
        return False
    _glibc["malloc_trim"](0)
    return True


# at import: `kiln._backend` imports this module before the modules that start XLA's threads (see ONE_HEAP)
keep_freed_memory()
