"""Atomic file writes (checkpoints, exported graphs): a temporary file beside the target, fsync, `os.replace`.

Readers see either the old file or the complete new one, never a prefix; on any
failure (an exception, a full disk, KeyboardInterrupt) the temporary file is
removed and the target is left as it was.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterable


def _current_umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


# mkstemp creates files readable only by their owner; checkpoints get the
# permissions an ordinary open() would give them.
_FILE_MODE = 0o666 & ~_current_umask()


def _write(f, chunk: bytes) -> None:
    """Write one chunk (a separate function so tests can make it fail half-way)."""
    f.write(chunk)


def _fsync_dir(directory: str) -> None:
    # Makes the rename itself durable; not every platform/filesystem allows it.
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def atomic_write(path: str, chunks: Iterable[bytes]) -> None:
    """Write the concatenation of `chunks` to `path` atomically.

    Args:
        path: the destination file; its directory must exist.
        chunks: byte strings written in order (a generator streams large files).

    Raises:
        OSError: the directory does not exist or is not writable (nothing is left behind).
    """
    path = os.fspath(path)
    directory = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(directory):
        raise FileNotFoundError(f"cannot write '{path}': the directory '{directory}' does not exist.")
    fd, tmp = tempfile.mkstemp(dir=directory, prefix=f".{os.path.basename(path)}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            if hasattr(os, "fchmod"):
                os.fchmod(f.fileno(), _FILE_MODE)
            for chunk in chunks:
                _write(f, chunk)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise
    _fsync_dir(directory)
