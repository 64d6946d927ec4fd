"""The `format="safetensors"` checkpoint: the safetensors package, NumPy side.

Tensors are stored under their names, sorted, with metadata {"format": "ms"}
as MindSpore writes it. Strings from `append_dict` (which safetensors cannot
hold as tensors) go to the metadata under "kiln.str.<name>".
"""

from __future__ import annotations

import binascii
import math
from collections import OrderedDict

import numpy as np
import safetensors
import safetensors.numpy

from kiln._core import dtype as mstype

_STR_PREFIX = "kiln.str."
# safetensors' dtype codes -> NumPy (bfloat16 is missing from safetensors.numpy's loader).
_NP_TYPE = {
    "BOOL": np.dtype(np.bool_),
    "I8": np.dtype(np.int8),
    "I16": np.dtype(np.int16),
    "I32": np.dtype(np.int32),
    "I64": np.dtype(np.int64),
    "U8": np.dtype(np.uint8),
    "U16": np.dtype(np.uint16),
    "U32": np.dtype(np.uint32),
    "U64": np.dtype(np.uint64),
    "F16": np.dtype(np.float16),
    "F32": np.dtype(np.float32),
    "F64": np.dtype(np.float64),
    "BF16": mstype.bfloat16.np,
    "C64": np.dtype(np.complex64),
}


def encode(entries, crc_check: bool = False) -> bytes:
    """The whole file's bytes for (name, NumPy array or str) pairs."""
    tensors: dict[str, np.ndarray] = {}
    metadata = {"format": "ms"}
    for name, value in entries:
        if isinstance(value, str):
            metadata[_STR_PREFIX + name] = value
        else:
            arr = np.asarray(value)
            tensors[name] = arr if arr.flags.c_contiguous else arr.copy(order="C")
    if crc_check:
        # MindSpore's definition: crc32 over (name, data bytes) in sorted name order.
        crc = 0
        for name in sorted(tensors):
            crc = binascii.crc32(name.encode("utf-8"), crc)
            crc = binascii.crc32(tensors[name].tobytes(), crc)
        metadata["crc_num"] = str(crc)
    return safetensors.numpy.save(tensors, metadata=metadata)


def decode(path: str, data: bytes, crc_check: bool = False) -> OrderedDict[str, np.ndarray | str]:
    """Parse a safetensors file's bytes into {name: NumPy array or str}.

    Raises:
        ValueError: the file is not a valid safetensors file.
    """
    try:
        items = safetensors.deserialize(data)
        with safetensors.safe_open(path, framework="np") as f:
            metadata = f.metadata() or {}
    except Exception as e:  # the Rust parser raises SafetensorError and friends
        raise ValueError(
            f"Failed to read the checkpoint file '{path}': it is truncated or not a valid safetensors file ({e})."
        ) from None
    out: OrderedDict[str, np.ndarray | str] = OrderedDict()
    for name, info in sorted(items, key=lambda kv: kv[0]):
        dt = _NP_TYPE.get(info["dtype"])
        if dt is None:
            raise ValueError(f"Failed to read the checkpoint file '{path}': '{name}' has dtype {info['dtype']}.")
        shape = tuple(info["shape"])
        buf = info["data"]
        if len(buf) != math.prod(shape) * dt.itemsize:
            raise ValueError(f"Failed to read the checkpoint file '{path}': '{name}' has the wrong number of bytes.")
        out[name] = np.frombuffer(bytes(buf), dtype=dt).reshape(shape)
    for key, value in metadata.items():
        if key.startswith(_STR_PREFIX):
            out[key[len(_STR_PREFIX) :]] = value
    if crc_check:
        if "crc_num" not in metadata:
            raise ValueError(f"Failed to read the checkpoint file '{path}': crc_check=True but it has no CRC.")
        crc = 0
        for name, value in out.items():
            if not isinstance(value, str):
                crc = binascii.crc32(name.encode("utf-8"), crc)
                crc = binascii.crc32(value.tobytes(), crc)
        if crc != int(metadata["crc_num"]):
            raise ValueError(f"Failed to read the checkpoint file '{path}': the CRC32 check failed.")
    if not out:
        raise ValueError(f"Failed to read the checkpoint file '{path}': it contains no parameters.")
    return out
