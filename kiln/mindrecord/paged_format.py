"""Reading MindRecord files in MindSpore's paged layout, so that datasets converted by MindSpore need no conversion.

A shard file of that layout is

    header length (u64, little-endian) | header (JSON) ... padded to `header_size` | pages of `page_size` bytes

The header names the schema (`schema[0]`: the fields and which of them are "blob" fields: bytes and arrays), the
index fields, the page size and the shard files of the set (`shard_addresses`). The companion `F.db` (SQLite) has one
`INDEXES` row per record: the page and byte range of its raw part and of its blob part, and each index field's value
as the column `<field>_0`. Page `p` starts at byte `header_size + p * page_size` of the file.

- A record's raw part is a u64 (little-endian) length and a MessagePack map of its scalar fields.
- Its blob part is a u64 (little-endian) length and the blob fields in the header's order, each a u64 big-endian
  length and its bytes; with a single blob field, that field's bytes alone.
- A float array is stored as little-endian values. An int32/int64 array is compressed: a u32 big-endian element
  count, a 2-bit width code per element (most significant bits first; code c means 2**c bytes), then each element
  sign-extended from that many little-endian bytes.
"""

from __future__ import annotations

import json
import mmap
import os
import sqlite3
import struct

import msgpack
import numpy as np

from kiln.mindrecord.common import NUMERIC_TYPES, MRMOpenError

_U64_LE = struct.Struct("<Q")
_U64_BE = struct.Struct(">Q")
_U32_BE = struct.Struct(">I")
_LARGEST_HEADER = 1 << 30  # MindSpore's own bound on header_size is 128 MiB
_WIDTH_TYPES = (np.dtype("<i1"), np.dtype("<i2"), np.dtype("<i4"), np.dtype("<i8"))
_LOCATION = "ROW_ID, PAGE_ID_RAW, PAGE_OFFSET_RAW, PAGE_OFFSET_RAW_END, PAGE_ID_BLOB, PAGE_OFFSET_BLOB"


def read_header(path: str) -> dict | None:
    """The JSON header of `path` when it is a MindRecord file in MindSpore's paged layout, else None."""
    with open(path, "rb") as f:
        head = f.read(8)
        if len(head) < 8:
            return None
        (n,) = _U64_LE.unpack(head)
        if not 0 < n < _LARGEST_HEADER or f.read(1) != b"{":
            return None
        f.seek(8)
        try:
            header = json.loads(f.read(n).decode("utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError):
            return None
    needed = ("header_size", "page_size", "schema", "shard_addresses")
    return header if isinstance(header, dict) and all(k in header for k in needed) else None


def decompress_ints(raw, dtype) -> np.ndarray:
    """The int array stored in `raw` by MindSpore's int compression (see the module docstring)."""
    (count,) = _U32_BE.unpack_from(raw, 0)
    if count == 0:
        return np.zeros(0, dtype)
    code_bytes = (2 * count + 7) // 8
    codes = np.unpackbits(np.frombuffer(raw, np.uint8, code_bytes, 4)).reshape(-1, 2)[:count]
    codes = codes[:, 0] * 2 + codes[:, 1]
    out = np.empty(count, np.int64)
    pos = 4 + code_bytes
    # Runs of one width are read at once: most arrays hold one or two widths.
    starts = np.flatnonzero(np.diff(codes, prepend=-1))
    ends = np.append(starts[1:], count)
    for start, end in zip(starts.tolist(), ends.tolist(), strict=True):
        width = _WIDTH_TYPES[codes[start]]
        out[start:end] = np.frombuffer(raw, width, end - start, pos)
        pos += (end - start) * width.itemsize
    return out.astype(dtype)


def _field_value(kind: str, shape, raw) -> object:
    """A blob field's value from its stored bytes."""
    if kind == "bytes":
        return bytes(raw)
    if kind in ("int32", "int64"):
        values = decompress_ints(raw, NUMERIC_TYPES[kind])
    else:
        values = np.frombuffer(raw, np.dtype(NUMERIC_TYPES[kind]).newbyteorder("<")).astype(NUMERIC_TYPES[kind])
    return values.reshape(shape) if shape is not None else values


class PagedShard:
    """One shard file in MindSpore's paged layout, memory-mapped: its schema and its records by position."""

    def __init__(self, path: str, header: dict) -> None:
        db = path + ".db"
        if not os.path.isfile(db):
            raise MRMOpenError(f"the index file {db!r} of MindRecord file {path!r} does not exist.")
        self.path = path
        described = header["schema"][0]
        self.schema = {name: dict(spec) for name, spec in sorted(described["schema"].items())}
        self.blob_fields = list(described["blob_fields"])
        self.index_fields = [f["index_field"] for f in header.get("index_fields") or []]
        folder = os.path.dirname(path)
        self.siblings = [os.path.join(folder, os.path.basename(a)) for a in header["shard_addresses"]]
        self._header_size, self._page_size = int(header["header_size"]), int(header["page_size"])
        con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
        try:
            located = con.execute(f"SELECT DISTINCT {_LOCATION} FROM INDEXES ORDER BY ROW_ID").fetchall()
        except sqlite3.DatabaseError as e:
            raise MRMOpenError(f"the index file {db!r} of MindRecord file {path!r} cannot be read: {e}.") from None
        finally:
            con.close()
        self._where = np.array(located, np.int64).reshape(-1, 6)
        if not np.array_equal(self._where[:, 0], np.arange(len(self._where))):
            raise MRMOpenError(f"the index file {db!r} of MindRecord file {path!r} does not number its rows 0, 1, ...")
        self._map = None

    def __len__(self) -> int:
        return len(self._where)

    def _page_start(self, page: int) -> int:
        return self._header_size + page * self._page_size

    def read(self, local: int) -> dict:
        """Record `local` of this shard: field -> Python bytes/str or NumPy array (0-D for scalars)."""
        if self._map is None:
            with open(self.path, "rb") as f:
                self._map = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
        _, raw_page, raw_start, raw_end, blob_page, blob_start = self._where[local].tolist()
        start = self._page_start(raw_page)
        scalars = msgpack.unpackb(self._map[start + raw_start + 8 : start + raw_end], raw=False)
        row = {}
        for name, value in scalars.items():
            if name not in self.schema:
                continue  # a record without scalar fields stores its number as "id"
            kind = self.schema[name]["type"]
            row[name] = np.asarray(value, NUMERIC_TYPES[kind]) if kind in NUMERIC_TYPES else value
        if self.blob_fields:
            pos = self._page_start(blob_page) + blob_start
            (size,) = _U64_LE.unpack_from(self._map, pos)
            blob = memoryview(self._map)[pos + 8 : pos + 8 + size]
            if len(self.blob_fields) == 1:
                parts = [blob]
            else:
                parts, at = [], 0
                for _ in self.blob_fields:
                    (n,) = _U64_BE.unpack_from(blob, at)
                    parts.append(blob[at + 8 : at + 8 + n])
                    at += 8 + n
            for name, raw in zip(self.blob_fields, parts, strict=True):
                spec = self.schema[name]
                row[name] = _field_value(spec["type"], spec.get("shape"), raw)
        return row

    def index_values(self, field: str) -> list:
        """Each record's value of index field `field`, in record order."""
        con = sqlite3.connect(f"file:{self.path}.db?mode=ro", uri=True)
        try:
            rows = con.execute(f'SELECT ROW_ID, "{field}_0" FROM INDEXES ORDER BY ROW_ID').fetchall()
        finally:
            con.close()
        return [value for _, value in rows]

    def close(self) -> None:
        if self._map is not None:
            self._map.close()
            self._map = None
