"""Encoding and decoding of MindSpore's `.ckpt` protobuf format.

A file is a concatenation of serialized `Checkpoint` messages with one `Value`
each (the same bytes as one message holding them all, which is how MindSpore
writes it). Tensors larger than 512 MiB are split along axis 0 into several
`Value`s with the same tag; readers join adjacent entries with equal tags.
Strings (from `append_dict`) are stored with `tensor_type="str"`, dims `[0]`
and the UTF-32 bytes NumPy gives a `'<U'` array. An optional trailer
`b"crc_num" + crc32.to_bytes(10, "big")` protects the whole content.
"""

from __future__ import annotations

import binascii
import math
from collections import OrderedDict
from collections.abc import Iterable, Iterator

import numpy as np
from google.protobuf.message import DecodeError

from kiln._core import dtype as mstype
from kiln.train.checkpoint._proto import Checkpoint

# MindSpore's tensor_type strings.
_TYPE_NAME = {
    np.dtype(np.bool_): "Bool",
    np.dtype(np.int8): "Int8",
    np.dtype(np.int16): "Int16",
    np.dtype(np.int32): "Int32",
    np.dtype(np.int64): "Int64",
    np.dtype(np.uint8): "UInt8",
    np.dtype(np.uint16): "UInt16",
    np.dtype(np.uint32): "UInt32",
    np.dtype(np.uint64): "UInt64",
    np.dtype(np.float16): "Float16",
    np.dtype(np.float32): "Float32",
    np.dtype(np.float64): "Float64",
    mstype.bfloat16.np: "BFloat16",
    # Not in MindSpore's table (it cannot read these); kept so Kiln round-trips them.
    np.dtype(np.complex64): "Complex64",
    np.dtype(np.complex128): "Complex128",
}
_NP_TYPE = {name: dt for dt, name in _TYPE_NAME.items()}
STR_TYPE = "str"

SLICE_BYTES = 512 * 1024 * 1024
_CRC_TAG = b"crc_num"
_CRC_LEN = len(_CRC_TAG) + 10


def type_name(dtype: np.dtype) -> str:
    """MindSpore's tensor_type string for a NumPy dtype."""
    try:
        return _TYPE_NAME[np.dtype(dtype)]
    except KeyError:
        raise TypeError(f"save_checkpoint cannot store tensors of dtype {dtype}.") from None


def _value_bytes(name: str, dims, tname: str, content: bytes) -> bytes:
    msg = Checkpoint()
    v = msg.value.add()
    v.tag = name
    v.tensor.dims.extend(dims)
    v.tensor.tensor_type = tname
    v.tensor.tensor_content = content
    return msg.SerializeToString()


def encode(entries: Iterable[tuple[str, np.ndarray | str]], crc_check: bool = False) -> Iterator[bytes]:
    """Yield the file's bytes entry by entry (so large checkpoints stream to disk).

    Args:
        entries: (name, NumPy array or str) pairs in file order.
        crc_check: append MindSpore's CRC32 trailer.
    """
    crc = 0
    for name, value in entries:
        if isinstance(value, str):
            pieces = [_value_bytes(name, [0], STR_TYPE, np.array(value).tobytes())]
        else:
            arr = np.asarray(value)  # tobytes() is C order; ascontiguousarray would turn 0-d into 1-d
            tname = type_name(arr.dtype)
            count = math.ceil(arr.nbytes / SLICE_BYTES) if arr.ndim else 1
            slices = np.array_split(arr, count) if count > 1 else [arr]
            pieces = (_value_bytes(name, arr.shape, tname, s.tobytes()) for s in slices)
        for piece in pieces:
            if crc_check:
                crc = binascii.crc32(piece, crc)
            yield piece
    if crc_check:
        yield _CRC_TAG + crc.to_bytes(10, byteorder="big")


def _corrupt(filename: str, why: str) -> ValueError:
    return ValueError(f"Failed to read the checkpoint file '{filename}': {why}")


def decode(data: bytes, filename: str, crc_check: bool = False) -> OrderedDict[str, np.ndarray | str]:
    """Parse a whole `.ckpt` file into {name: NumPy array or str}, in file order.

    Raises:
        ValueError: the content is not a valid checkpoint (truncated, corrupt,
            wrong CRC, unknown tensor type, size not matching the shape).
    """
    if data[-_CRC_LEN:-10] == _CRC_TAG:
        expected = int.from_bytes(data[-10:], byteorder="big")
        data = data[:-_CRC_LEN]
        if crc_check and binascii.crc32(data) != expected:
            raise _corrupt(filename, "the CRC32 check failed; the file is damaged.")
    msg = Checkpoint()
    try:
        msg.ParseFromString(data)
    except (DecodeError, RuntimeError) as e:
        raise _corrupt(filename, f"the file is truncated or corrupt and cannot be parsed ({e}).") from None
    out: OrderedDict[str, np.ndarray | str] = OrderedDict()
    values = msg.value
    pending: list[bytes] = []
    for i, v in enumerate(values):
        if not v.HasField("tensor"):
            raise _corrupt(filename, f"entry '{v.tag}' is a MapParameter, which Kiln does not support.")
        pending.append(v.tensor.tensor_content)
        if i + 1 < len(values) and values[i + 1].tag == v.tag:
            continue  # a slice of a large tensor: the next entry continues it
        content = b"".join(pending)
        pending = []
        out[v.tag] = _decode_tensor(v.tag, list(v.tensor.dims), v.tensor.tensor_type, content, filename)
    if not out:
        raise _corrupt(filename, "it contains no parameters (empty or not a checkpoint).")
    return out


def _decode_tensor(tag: str, dims: list[int], tname: str, content: bytes, filename: str) -> np.ndarray | str:
    if tname == STR_TYPE:
        if len(content) % 4:
            raise _corrupt(filename, f"string entry '{tag}' has {len(content)} bytes, not a multiple of 4.")
        return str(np.frombuffer(content, f"<U{max(len(content) // 4, 1)}")[0]) if content else ""
    dt = _NP_TYPE.get(tname)
    if dt is None:
        raise _corrupt(filename, f"entry '{tag}' has an unknown tensor_type '{tname}'.")
    if any(d < 0 for d in dims):
        raise _corrupt(filename, f"entry '{tag}' has a negative dimension in its shape {dims}.")
    expected = math.prod(dims) * dt.itemsize
    if len(content) != expected:
        if dims == [0] and len(content) == dt.itemsize:
            dims = []  # how MindSpore marks some scalars
        else:
            raise _corrupt(
                filename,
                f"entry '{tag}' holds {len(content)} bytes, but shape {dims} of {tname} needs {expected} "
                f"(the file is truncated or corrupt).",
            )
    return np.frombuffer(content, dtype=dt).reshape(dims)
