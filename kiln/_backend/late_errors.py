"""Failures the backend reports when a value is read rather than when its program is launched.

On a GPU a program runs after its launch returns: an allocation that fails, or a host callback that raises, is
reported by the first read of an output (`to_host`), past the places where Kiln turns a failed launch into its own
error (PyNative's `diagnose`, the lazy window's op-by-op run; on the CPU the launch itself fails). `at_read` gives
the error Kiln raises there instead of the backend's: the user's own exception, or a MemoryError.
"""

from __future__ import annotations

import re

from kiln._backend import callbacks

OOM_MARKERS = ("RESOURCE_EXHAUSTED", "Out of memory", "out of memory", "OOM when allocating")
_UNITS = {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40, "P": 1 << 50}


def bytes_asked(text: str) -> int | None:
    """The allocation size an out-of-memory message mentions: '123 bytes', '(123B)', '16.00GiB'."""
    m = re.search(r"(\d+)\s*bytes", text) or re.search(r"\((\d+)B\)", text)
    if m:
        return int(m.group(1))
    m = re.search(r"(\d+(?:\.\d+)?)\s*([KMGTP])i?B\b", text)
    if m:
        return int(float(m.group(1)) * _UNITS[m.group(2)])
    return None


def show_bytes(n: int) -> str:
    """`n` bytes in words: '16.00 GiB (17179869184 bytes)'."""
    for unit in ("T", "G", "M", "K"):  # (in TiB above: the words Kiln has always used)
        if n >= _UNITS[unit]:
            return f"{n / _UNITS[unit]:.2f} {unit}iB ({n} bytes)"
    return f"{n} bytes"


def is_out_of_memory(err: BaseException) -> bool:
    """Whether `err` is the backend saying the device ran out of memory."""
    return isinstance(err, MemoryError) or any(m in str(err) for m in OOM_MARKERS)


def at_read(err: BaseException) -> BaseException | None:
    """The error to raise for the backend's `err` met reading a value, or None when it is none of those above."""
    user = callbacks.user_error(err)
    if user is not None:
        return user
    if is_out_of_memory(err):
        asked = bytes_asked(str(err))
        size = f" while allocating {show_bytes(asked)}" if asked else ""
        return MemoryError(
            f"The device ran out of memory{size} computing this value (the device runs programs after they are "
            "launched, so the failure of an op before this read is reported here). Use smaller inputs (a smaller "
            "batch) or keep fewer large tensors alive."
        )
    return None
