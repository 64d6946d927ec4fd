"""TFRecordDataset: rows of TFRecord files holding tf.train.Example records, read without TensorFlow.

A TFRecord file is a sequence of records: length (u64), CRC of the length (u32), the bytes, CRC of the bytes (u32)
(the CRCs are not checked). Each record is an Example protocol buffer; its features become columns: bytes_list
-> uint8 (the bytes), int64_list -> int64, float_list -> float32, all 1-D; a schema casts and reshapes them.
"""

from __future__ import annotations

import gzip
import os
import struct
import zlib

import numpy as np

from kiln.dataset.schema import Schema
from kiln.dataset.sources.base import RowFilesSource, file_list

_U64 = struct.Struct("<Q")


def _varint(buf: bytes, pos: int) -> tuple[int, int]:
    result = shift = 0
    while True:
        b = buf[pos]
        pos += 1
        result |= (b & 0x7F) << shift
        if b < 0x80:
            return result, pos
        shift += 7


def _fields(buf: bytes):
    """(field number, wire type, value) of a protobuf message; length-delimited values are bytes."""
    pos, end = 0, len(buf)
    while pos < end:
        key, pos = _varint(buf, pos)
        num, wire = key >> 3, key & 7
        if wire == 0:
            value, pos = _varint(buf, pos)
        elif wire == 1:
            value, pos = buf[pos : pos + 8], pos + 8
        elif wire == 2:
            n, pos = _varint(buf, pos)
            value, pos = buf[pos : pos + n], pos + n
        elif wire == 5:
            value, pos = buf[pos : pos + 4], pos + 4
        else:
            raise RuntimeError(f"TFRecordDataset: unsupported protobuf wire type {wire} in an Example record.")
        yield num, wire, value


def _signed(v: int) -> int:
    return v - (1 << 64) if v >= 1 << 63 else v


def _feature(buf: bytes) -> np.ndarray:
    for kind, _, body in _fields(buf):
        if kind == 1:  # BytesList
            values = [v for n, _, v in _fields(body) if n == 1]
            return np.frombuffer(b"".join(values), dtype=np.uint8).copy()
        if kind == 2:  # FloatList, packed or not
            out = []
            for n, wire, v in _fields(body):
                if n == 1:
                    out.extend(struct.unpack(f"<{len(v) // 4}f", v) if wire == 2 else struct.unpack("<f", v))
            return np.array(out, dtype=np.float32)
        if kind == 3:  # Int64List, packed or not
            out = []
            for n, wire, v in _fields(body):
                if n != 1:
                    continue
                if wire == 2:
                    pos = 0
                    while pos < len(v):
                        x, pos = _varint(v, pos)
                        out.append(_signed(x))
                else:
                    out.append(_signed(v))
            return np.array(out, dtype=np.int64)
    return np.zeros(0, dtype=np.float32)


def parse_example(record: bytes) -> dict[str, np.ndarray]:
    """The features of one serialized tf.train.Example."""
    features = {}
    for num, _, body in _fields(record):
        if num != 1:
            continue
        for fnum, _, entry in _fields(body):
            if fnum != 1:
                continue
            key, value = "", b""
            for n, _, v in _fields(entry):
                if n == 1:
                    key = v.decode("utf-8")
                elif n == 2:
                    value = v
            features[key] = _feature(value)
    return features


def read_records(path: str, compression_type: str = "") -> list[bytes]:
    """The records of a TFRecord file (compression "", "GZIP" or "ZLIB")."""
    with open(path, "rb") as f:
        raw = f.read()
    if compression_type == "GZIP":
        raw = gzip.decompress(raw)
    elif compression_type == "ZLIB":
        raw = zlib.decompress(raw)
    records, pos = [], 0
    while pos < len(raw):
        if pos + 12 > len(raw):
            raise RuntimeError(f"TFRecordDataset: {path!r} ends inside a record header; the file is truncated.")
        (n,) = _U64.unpack_from(raw, pos)
        start = pos + 12
        if start + n + 4 > len(raw):
            raise RuntimeError(f"TFRecordDataset: {path!r} ends inside a record; the file is truncated or invalid.")
        records.append(raw[start : start + n])
        pos = start + n + 4
    return records


class TFRecordDataset(RowFilesSource):
    """Rows of TFRecord files of tf.train.Example records.

    Columns are the features (in name order, or `columns_list`, or the schema's columns); without a schema bytes
    features are uint8, int64 features int64 and float features float32, all 1-D.

    Args:
        dataset_files: a file, a glob pattern or a list of files.
        schema: a Schema or the path of a JSON schema (types, shapes, "numRows").
        columns_list: the features to read.
        num_samples: rows per epoch at most (default: the schema's numRows, else all).
        num_parallel_workers, shuffle, num_shards, shard_id, cache: as for TextFileDataset.
        shard_equal_rows: give every shard the same number of rows (contiguous blocks of all rows) instead of whole
            files.
        compression_type: "", "GZIP" or "ZLIB".
    """

    _SORT_FILES = False
    _AFTER = {"shard_equal_rows": "shard_id", "compression_type": "cache"}  # MindSpore's order

    def _open(self, dataset_files, schema=None, columns_list=None, shard_equal_rows=False, compression_type=None):
        files = file_list(dataset_files, "TFRecordDataset")
        if isinstance(dataset_files, list | tuple):
            files = [os.fspath(f) for f in dataset_files]
        if isinstance(schema, str | os.PathLike):
            schema = Schema(os.fspath(schema))
        if schema is not None and not isinstance(schema, Schema):
            raise TypeError(f"TFRecordDataset: schema must be a Schema or a path, but got {type(schema).__name__}.")
        compression_type = compression_type or ""
        self._check_choice("compression_type", compression_type, ("", "GZIP", "ZLIB"))
        self._schema, self._compression = schema, compression_type
        self._equal_rows = bool(shard_equal_rows)
        if columns_list is not None:
            names = [columns_list] if isinstance(columns_list, str) else list(columns_list)
        elif schema is not None and schema.columns:
            names = sorted(schema.names())
        else:
            first = next((r for f in files for r in read_records(f, compression_type)[:1]), None)
            names = sorted(parse_example(first)) if first is not None else []
        self._names = names
        self._specs = {}
        if schema is not None:
            for i, c in enumerate(schema.columns):
                self._specs[c["name"]] = (schema.dtype(i), c.get("shape"))
        return files

    def _default_num_samples(self) -> int | None:
        """The schema's numRows, where it gives one."""
        return (self._schema.get_num_rows() if self._schema is not None else None) or None

    def get_col_names(self) -> list[str]:
        return list(self._names)

    def _all_rows(self) -> list[tuple]:
        if self._cache is None and self._equal_rows and self._shard[0] is not None:
            num_shards, shard_id = self._shard
            rows = [row for f in self._files for row in self._read_file(f)]
            per = -(-len(rows) // num_shards)
            self._cache = [rows[(shard_id * per + j) % len(rows)] for j in range(per)] if rows else []
        return super()._all_rows()

    def _column(self, name: str, value: np.ndarray) -> np.ndarray:
        spec = self._specs.get(name)
        if spec is None:
            return value
        dtype, shape = spec
        out = value.astype(dtype) if dtype.kind not in "US" else value
        if shape:
            try:
                out = out.reshape(shape)
            except ValueError:
                raise RuntimeError(
                    f"TFRecordDataset: feature {name!r} has {value.size} values, which do not fit the schema shape "
                    f"{shape}."
                ) from None
        return out

    def _read_file(self, path):
        rows = []
        for record in read_records(path, self._compression):
            feats = parse_example(record)
            missing = [n for n in self._names if n not in feats]
            if missing:
                raise RuntimeError(f"TFRecordDataset: a record of {path!r} lacks the feature(s) {missing}.")
            rows.append(tuple(self._column(n, feats[n]) for n in self._names))
        return rows
