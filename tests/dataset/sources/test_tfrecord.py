"""TFRecordDataset on files written here (an Example encoder by hand; layouts checked against MindSpore 2.10 on
MindSpore's own TFRecord test files: column order, dtypes, schema casts and shapes, numRows, sharding)."""

import gzip
import json
import struct

import numpy as np
import pytest

import kiln.dataset as ds


def _varint(v: int) -> bytes:
    v &= (1 << 64) - 1
    out = b""
    while True:
        b = v & 0x7F
        v >>= 7
        if v:
            out += bytes([b | 0x80])
        else:
            return out + bytes([b])


def _field(num: int, payload: bytes) -> bytes:
    return _varint(num << 3 | 2) + _varint(len(payload)) + payload


def _example(features: dict) -> bytes:
    entries = b""
    for key, value in features.items():
        if isinstance(value, bytes):
            feat = _field(1, _field(1, value))
        elif isinstance(value[0], float):
            feat = _field(2, _field(1, struct.pack(f"<{len(value)}f", *value)))
        else:
            feat = _field(3, _field(1, b"".join(_varint(x) for x in value)))
        entries += _field(1, _field(1, key.encode()) + _field(2, feat))
    return _field(1, entries)


def _write(path, examples, compress=False):
    raw = b"".join(_U(len(e)) + b"\0" * 4 + e + b"\0" * 4 for e in map(_example, examples))
    path.write_bytes(gzip.compress(raw) if compress else raw)


def _U(n):
    return struct.pack("<Q", n)


ROWS = [{"img": b"ab", "label": [3], "vals": [1.5, -2.0], "neg": [-7, 8, 9, 10]}, {"img": b"c", "label": [4],
         "vals": [0.25, 1.0], "neg": [1, 2, 3, 4]}]  # fmt: skip


def _rows(d):
    return list(d.create_tuple_iterator(num_epochs=1, output_numpy=True))


def test_without_schema(tmp_path):
    _write(tmp_path / "a.tfrecord", ROWS)
    d = ds.TFRecordDataset(str(tmp_path / "a.tfrecord"), shuffle=False)
    assert d.get_col_names() == ["img", "label", "neg", "vals"]
    rows = _rows(d)
    assert rows[0][0].dtype == np.uint8 and rows[0][0].tolist() == [97, 98]
    assert rows[0][1].dtype == np.int64 and rows[0][1].tolist() == [3]
    assert rows[0][2].tolist() == [-7, 8, 9, 10] and rows[0][3].dtype == np.float32


def test_schema_casts_and_reshapes(tmp_path):
    _write(tmp_path / "a.tfrecord", ROWS)
    schema = {"numRows": 1, "columns": {"neg": {"type": "int16", "rank": 2, "shape": [2, 2]},
                                         "label": {"type": "uint64", "rank": 1, "shape": [1]}}}  # fmt: skip
    (tmp_path / "schema.json").write_text(json.dumps(schema))
    rows = _rows(ds.TFRecordDataset([str(tmp_path / "a.tfrecord")], str(tmp_path / "schema.json"), shuffle=False))
    assert len(rows) == 1  # numRows
    assert rows[0][0].dtype == np.uint64 and rows[0][1].dtype == np.int16 and rows[0][1].tolist() == [[-7, 8], [9, 10]]
    s = ds.Schema()
    s.add_column("vals", de_type="float64", shape=[2])
    rows = _rows(ds.TFRecordDataset([str(tmp_path / "a.tfrecord")], s, shuffle=False))
    assert rows[1][0].dtype == np.float64 and rows[1][0].tolist() == [0.25, 1.0]


def test_columns_gzip_and_shards(tmp_path):
    _write(tmp_path / "a.tfrecord.gz", ROWS, compress=True)
    d = ds.TFRecordDataset([str(tmp_path / "a.tfrecord.gz")], columns_list=["label"], compression_type="GZIP",
                           shuffle=False)  # fmt: skip
    assert [r[0].tolist() for r in _rows(d)] == [[3], [4]]
    _write(tmp_path / "b.tfrecord", ROWS * 2)
    half = ds.TFRecordDataset([str(tmp_path / "b.tfrecord")], columns_list=["label"], num_shards=2, shard_id=1,
                              shard_equal_rows=True, shuffle=False)  # fmt: skip
    assert [r[0].tolist() for r in _rows(half)] == [[3], [4]]
    with pytest.raises(ValueError):
        ds.TFRecordDataset([str(tmp_path / "b.tfrecord")], compression_type="LZ4")
