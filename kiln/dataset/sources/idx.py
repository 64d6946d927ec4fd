"""Reading IDX files (the MNIST format) through memory maps.

An IDX file is a big-endian header (magic number, then one uint32 per
dimension) followed by the raw array. Memory-mapping it means rows are read
from the page cache on demand and the process never holds the whole file.
"""

from __future__ import annotations

import os
import struct

import numpy as np

from kiln.dataset.sources.base import require_file

IMAGES_MAGIC = 0x00000803  # unsigned bytes, 3 dimensions


LABELS_MAGIC = 0x00000801  # unsigned bytes, 1 dimension


def open_idx(path: str, expected_magic: int) -> np.ndarray:
    """Memory-map an unsigned-byte IDX file; its shape comes from the header.

    Args:
        path: the file.
        expected_magic: IMAGES_MAGIC or LABELS_MAGIC.

    Returns:
        A read-only uint8 array backed by the file.
    """
    require_file(path, "MNIST file")
    ndim = expected_magic & 0xFF
    header_size = 4 + 4 * ndim
    file_size = os.path.getsize(path)
    with open(path, "rb") as f:
        header = f.read(header_size)
    if len(header) < 4:
        raise ValueError(f"{path!r} is too short ({file_size} bytes) to be an IDX file.")
    (magic,) = struct.unpack(">I", header[:4])
    if magic != expected_magic:
        raise ValueError(
            f"{path!r} is not the expected IDX file: expected magic number {expected_magic} "
            f"(0x{expected_magic:08X}), but found {magic} (0x{magic:08X})."
        )
    if len(header) < header_size:
        raise ValueError(f"{path!r} is truncated: its IDX header needs {header_size} bytes, the file has {file_size}.")
    shape = struct.unpack(f">{ndim}I", header[4:])
    needed = header_size + int(np.prod(shape, dtype=np.int64))
    if file_size < needed:
        raise ValueError(
            f"{path!r} is truncated: its header declares shape {shape} ({needed} bytes with the header), "
            f"but the file has {file_size} bytes."
        )
    if shape[0] == 0:
        return np.zeros(shape, np.uint8)  # mmap cannot map zero bytes
    # A plain ndarray view of the map: same lazy pages, without np.memmap's slow per-index Python hooks.
    return np.memmap(path, dtype=np.uint8, mode="r", offset=header_size, shape=shape).view(np.ndarray)
