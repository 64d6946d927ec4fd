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

from kiln.mindrecord.common import NUMERIC_TYPES, U64_LE, MRMOpenError

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
        (n,) = U64_LE.unpack(head)
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
        self.desc = described.get("desc", "")
        self.index_fields = [f["index_field"] for f in header.get("index_fields") or []]
        folder = os.path.dirname(path)
        self.siblings = [os.path.join(folder, os.path.basename(a)) for a in header["shard_addresses"]]
        self._header_size, self._page_size = int(header["header_size"]), int(header["page_size"])
        self.sizes = (self._header_size, self._page_size)
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
            (size,) = U64_LE.unpack_from(self._map, pos)
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
        """Each record's value of index field `field` as text (SQLite's spelling), in record order."""
        con = sqlite3.connect(f"file:{self.path}.db?mode=ro", uri=True)
        try:
            rows = con.execute(f'SELECT ROW_ID, CAST("{field}_0" AS TEXT) FROM INDEXES ORDER BY ROW_ID').fetchall()
        finally:
            con.close()
        return [value for _, value in rows]

    def close(self) -> None:
        if self._map is not None:
            self._map.close()
            self._map = None


# -- writing ---------------------------------------------------------------------------------------------------

_INDEX_COLUMN_TYPES = {"int32": "INTEGER", "int64": "INTEGER", "float32": "REAL", "float64": "REAL", "string": "TEXT"}
_NO_BLOB = b"\0\0\0\0"  # what a record of a schema without blob fields stores as its blob


def blob_fields_of(schema: dict) -> list[str]:
    """The fields stored in blob pages, in name order: bytes and arrays."""
    return sorted(name for name, spec in schema.items() if spec["type"] == "bytes" or "shape" in spec)


def compress_ints(values: np.ndarray) -> bytes:
    """`values` (int32/int64) in MindSpore's int compression: each element in the fewest bytes that hold it."""
    flat = np.ascontiguousarray(values, dtype="<i8").reshape(-1)
    codes = np.zeros(flat.shape, np.uint8)
    for code, width in enumerate(_WIDTH_TYPES[:3]):
        info = np.iinfo(width)
        codes[(codes == code) & ((flat < info.min) | (flat > info.max))] = code + 1
    bits = np.stack([codes >> 1, codes & 1], axis=1).reshape(-1)
    keep = np.arange(8)[None, :] < (1 << codes.astype(np.int64))[:, None]
    body = flat.view(np.uint8).reshape(-1, 8)[keep]
    return _U32_BE.pack(len(flat)) + np.packbits(bits).tobytes() + body.tobytes()


def _stored_bytes(kind: str, value) -> bytes:
    if kind == "bytes":
        return bytes(value)
    if kind in ("int32", "int64"):
        return compress_ints(value)
    return np.ascontiguousarray(value, np.dtype(NUMERIC_TYPES[kind]).newbyteorder("<")).tobytes()


class PagedShardWriter:
    """Writes one shard file in MindSpore's paged layout: blob pages as they fill, then the raw pages, the header
    and the `.db` index at `commit`. Raw parts (the scalar fields) stay in memory until then; blobs do not."""

    def __init__(self, path: str, shard_id: int, schema: dict, desc: str, index_fields: list[str], sizes: tuple):
        self.path, self._shard_id, self._schema, self._desc = path, shard_id, schema, desc
        self._index_fields = index_fields
        self._header_size, self._page_size = sizes
        self._blobs = blob_fields_of(schema)
        self._scalars = sorted(n for n in schema if n not in self._blobs)
        self._file = open(path, "wb")  # noqa: SIM115  (closed by commit)
        self._page, self._page_used, self._page_first = bytearray(), 0, 0
        self._blob_pages: list[dict] = []
        self._groups: list[list[bytes]] = [[]]  # raw parts by blob page
        self._located: list[list] = []  # per record: blob page, blob start, blob end, index values
        self._saved_by_compression = 0

    def __len__(self) -> int:
        return len(self._located)

    def add(self, row: dict) -> None:
        """Store one validated record (see `common.validate_row`)."""
        row_id = len(self._located)
        scalars = {n: row[n].item() if isinstance(row[n], np.ndarray) else row[n] for n in self._scalars}
        raw = msgpack.packb(scalars or {"id": row_id}, use_bin_type=True)
        parts = [_stored_bytes(self._schema[n]["type"], row[n]) for n in self._blobs]
        for n, part in zip(self._blobs, parts, strict=True):
            if self._schema[n]["type"] in ("int32", "int64"):
                self._saved_by_compression += row[n].nbytes - len(part)
        if not parts:
            body = _NO_BLOB
        elif len(parts) == 1:
            body = parts[0]
        else:
            body = b"".join(_U64_BE.pack(len(p)) + p for p in parts)
        blob = U64_LE.pack(len(body)) + body
        if len(blob) > self._page_size:
            raise ValueError(
                f"FileWriter: a record of {len(blob)} bytes does not fit a page of {self._page_size} bytes; "
                "raise it with set_page_size."
            )
        if self._page_used + len(blob) > self._page_size:
            self._flush_blob_page()
        start = self._page_used
        self._page += blob
        self._page_used += len(blob)
        self._groups[-1].append(U64_LE.pack(len(raw)) + raw)
        index = [scalars[n] for n in self._index_fields]
        self._located.append([len(self._blob_pages), start, self._page_used, index])

    def _flush_blob_page(self) -> None:
        page_id = len(self._blob_pages)
        self._file.seek(self._header_size + page_id * self._page_size)
        self._file.write(self._page)
        end = len(self._located)
        self._blob_pages.append({"end_row_id": end, "page_id": page_id, "page_size": self._page_used,
                                 "page_type": "BLOB_DATA", "page_type_id": page_id,
                                 "row_group_ids": [{"id": page_id, "offset": 0}], "shard_id": self._shard_id,
                                 "start_row_id": self._page_first})  # fmt: skip
        self._page, self._page_used, self._page_first = bytearray(), 0, end
        self._groups.append([])

    def commit(self, shard_names: list[str]) -> None:
        """Write the last pages, the header and the `.db` index; close the file."""
        try:
            if self._page_used or not self._blob_pages:
                self._flush_blob_page()
            pages = list(self._blob_pages)
            raw_where = self._write_raw_pages(pages)
            header = {"header_size": self._header_size, "page_size": self._page_size,
                      "index_fields": [{"index_field": f, "schema_id": 0} for f in self._index_fields] or None,
                      "page": pages, "compression_size": self._saved_by_compression,
                      "schema": [{"blob_fields": self._blobs, "desc": self._desc, "schema": self._schema}],
                      "shard_addresses": shard_names, "shard_id": self._shard_id, "statistics": None,
                      "version": "3.0"}  # fmt: skip
            text = json.dumps(header, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode("utf-8")
            if 8 + len(text) > self._header_size:
                raise ValueError(
                    f"FileWriter: the header of {self.path!r} takes {8 + len(text)} bytes, more than the header size "
                    f"{self._header_size}; raise it with set_header_size."
                )
            self._file.seek(0)
            self._file.write(U64_LE.pack(len(text)) + text)
        finally:
            self._file.close()
        self._write_index(raw_where)

    def _write_raw_pages(self, pages: list[dict]) -> list[tuple]:
        """Pack the raw parts into pages after the blob pages, a blob page's records never split across two, as
        MindSpore's reader expects; returns each record's (raw page, start, end)."""
        where, raw_pages = [], []
        page, groups = bytearray(), []
        for group_id, group in enumerate(self._groups[: len(self._blob_pages)]):
            size = sum(map(len, group))
            if size > self._page_size:
                raise ValueError(
                    f"FileWriter: the scalar fields of {len(group)} records sharing a blob page take {size} bytes, "
                    f"more than a page of {self._page_size} bytes; raise it with set_page_size."
                )
            if page and len(page) + size > self._page_size:
                raw_pages.append((page, groups))
                page, groups = bytearray(), []
            groups.append({"id": group_id, "offset": len(page)})
            page_id = len(pages) + len(raw_pages)
            for raw in group:
                where.append((page_id, len(page), len(page) + len(raw)))
                page += raw
        raw_pages.append((page, groups))
        for type_id, (page, groups) in enumerate(raw_pages):
            page_id = len(pages)
            self._file.seek(self._header_size + page_id * self._page_size)
            self._file.write(page)
            pages.append({"end_row_id": 0, "page_id": page_id, "page_size": len(page), "page_type": "RAW_DATA",
                          "page_type_id": type_id, "row_group_ids": groups, "shard_id": self._shard_id,
                          "start_row_id": 0})  # fmt: skip
        return where

    def _write_index(self, raw_where: list[tuple]) -> None:
        db = self.path + ".db"
        if os.path.exists(db):
            os.remove(db)
        columns = "".join(
            f",INC_{i} INT, {f}_0 {_INDEX_COLUMN_TYPES[self._schema[f]['type']]}"
            for i, f in enumerate(self._index_fields)
        )
        keys = "".join(f",INC_{i}" for i in range(len(self._index_fields)))
        con = sqlite3.connect(db)
        try:
            con.execute(
                "CREATE TABLE INDEXES(ROW_ID INT NOT NULL, PAGE_ID_RAW INT NOT NULL, PAGE_OFFSET_RAW INT NOT NULL, "
                "PAGE_OFFSET_RAW_END INT NOT NULL, ROW_GROUP_ID INT NOT NULL, PAGE_ID_BLOB INT NOT NULL, "
                f"PAGE_OFFSET_BLOB INT NOT NULL, PAGE_OFFSET_BLOB_END INT NOT NULL{columns}, PRIMARY KEY(ROW_ID{keys}))"
            )
            con.execute("CREATE TABLE SHARD_NAME(NAME TEXT NOT NULL)")
            con.execute("INSERT INTO SHARD_NAME VALUES (?)", (os.path.basename(self.path),))
            marks = ",".join("?" * (8 + 2 * len(self._index_fields)))
            records = []
            for row_id, ((raw_page, raw_start, raw_end), (blob_page, start, end, index)) in enumerate(
                zip(raw_where, self._located, strict=True)
            ):
                values = [v for value in index for v in (0, value)]
                records.append((row_id, raw_page, raw_start, raw_end, blob_page, blob_page, start, end, *values))
            con.executemany(f"INSERT INTO INDEXES VALUES ({marks})", records)
            con.commit()
        finally:
            con.close()

    def abandon(self) -> None:
        """Close the file without committing (the writer was dropped)."""
        if not self._file.closed:
            self._file.close()
