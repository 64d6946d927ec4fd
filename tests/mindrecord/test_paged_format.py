"""MindRecord files written by MindSpore 2.10 (goldens/, by goldens/make_paged_goldens_mindspore.py) read by Kiln."""

import json
import os
import shutil
import sqlite3
from pathlib import Path

import numpy as np
import pytest

from kiln import dataset as ds
from kiln.mindrecord import FileReader, FileWriter, MindPage, MRMOpenError
from kiln.mindrecord.paged_format import decompress_ints, read_header

from .paged_rows import MIXED_SCHEMA, image_rows, mixed_rows

GOLDENS = Path(__file__).parent / "goldens"
EXPECTED = json.loads((GOLDENS / "paged_goldens_mindspore.json").read_text(encoding="utf-8"))


def _as_stored(name: str, value):
    kind = MIXED_SCHEMA[name]["type"]
    return value if kind in ("bytes", "string") else np.asarray(value, dtype=kind)


def test_file_reader_gives_every_field_type_back():
    reader = FileReader(str(GOLDENS / "mixed.mindrecord"))
    assert reader.len() == 6
    assert reader.schema() == {k: dict(v) for k, v in MIXED_SCHEMA.items()}
    rows = list(reader.get_next())
    reader.close()
    for got, want in zip(rows, mixed_rows(), strict=True):
        assert sorted(got) == sorted(want)
        for name, value in want.items():
            expected = _as_stored(name, value)
            if isinstance(expected, np.ndarray) and expected.ndim:
                assert got[name].dtype == expected.dtype and got[name].shape == expected.shape, name
                np.testing.assert_array_equal(got[name], expected, err_msg=name)
            else:
                assert got[name] == expected, name


def test_int_arrays_of_every_stored_width():
    # `codes` and `longs` hold values needing 1, 2, 4 and 8 bytes, the extremes of int32 and int64 included
    rows = list(FileReader(str(GOLDENS / "mixed.mindrecord"), columns=["codes", "longs"]).get_next())
    for got, want in zip(rows, mixed_rows(), strict=True):
        np.testing.assert_array_equal(got["codes"], want["codes"])
        np.testing.assert_array_equal(got["longs"], want["longs"])
    assert int(rows[0]["longs"].min()) == -(2**63) and int(rows[0]["longs"].max()) == 2**63 - 1


def test_decompress_ints_reads_runs_of_mixed_widths():
    # 5 values: widths 1, 1, 2, 8, 4 -> codes 00 00 01 11 | 10 (padded)
    values = [3, -2, 300, -(2**40), 70000]
    codes = bytes([0b00000111, 0b10000000])
    body = b"".join(np.array([v], t).tobytes() for v, t in zip(values, ("<i1", "<i1", "<i2", "<i8", "<i4")))
    raw = len(values).to_bytes(4, "big") + codes + body
    np.testing.assert_array_equal(decompress_ints(raw, np.int64), values)
    assert decompress_ints((0).to_bytes(4, "big"), np.int32).shape == (0,)


def test_mind_dataset_columns_as_mindspore_gives_them():
    for name in ("mixed.mindrecord", "images.mindrecord0"):
        want = EXPECTED[name]
        rows = list(ds.MindDataset(str(GOLDENS / name), shuffle=False).create_dict_iterator(output_numpy=True))
        assert len(rows) == want["rows"]
        got = {k: [v.dtype.str, list(v.shape)] for k, v in rows[0].items()}
        assert got == want["columns"]


def test_a_shard_set_reads_all_its_files_in_mindspores_order():
    images = ds.MindDataset(str(GOLDENS / "images.mindrecord1"), shuffle=False)
    rows = list(images.create_dict_iterator(output_numpy=True))
    assert [int(r["id"]) for r in rows] == EXPECTED["images_ids"]
    for r, want in zip(rows, image_rows(0, 24), strict=True):
        assert r["img"][0] == want["img"]  # records span three blob pages per file
    one_of_two = ds.MindDataset(str(GOLDENS / "images.mindrecord0"), shuffle=False, num_shards=2, shard_id=1)
    assert [int(r["id"]) for r in one_of_two.create_dict_iterator(output_numpy=True)] == EXPECTED[
        "images_ids_shard_1_of_2"
    ]


def test_mind_page_groups_by_an_index_field():
    page = MindPage(str(GOLDENS / "mixed.mindrecord"))
    assert page.candidate_fields() == ["label", "name"]
    page.category_field = "name"
    assert json.loads(page.read_category_info()) == EXPECTED["mindpage_name_categories"]
    assert [int(r["label"]) for r in page.read_at_page_by_name("name-3-é", 0, 2)] == EXPECTED["mindpage_name_3"]
    page.category_field = "label"  # numbers: named by their text, in the texts' order ("-1" before "-2")
    assert json.loads(page.read_category_info()) == EXPECTED["mindpage_label_categories"]


def _kiln_written(tmp_path, rows=None):
    path = str(tmp_path / "mixed.mindrecord")
    writer = FileWriter(path)
    writer.set_header_size(1 << 14)
    writer.set_page_size(1 << 15)
    writer.add_schema(MIXED_SCHEMA, "kiln golden")
    writer.add_index(["label", "name"])
    writer.write_raw_data(mixed_rows() if rows is None else rows)
    writer.commit()
    return path


def _index_table(path: str) -> tuple[list, list]:
    con = sqlite3.connect(path + ".db")
    try:
        columns = [(c[1], c[2], c[5]) for c in con.execute("PRAGMA table_info(INDEXES)")]
        rows = con.execute("SELECT * FROM INDEXES ORDER BY ROW_ID").fetchall()
        assert con.execute("SELECT NAME FROM SHARD_NAME").fetchall() == [(os.path.basename(path),)]
    finally:
        con.close()
    return columns, rows


def test_kiln_writes_mindspores_layout(tmp_path):
    ours, theirs = _kiln_written(tmp_path), str(GOLDENS / "mixed.mindrecord")
    header, golden = read_header(ours), read_header(theirs)
    assert sorted(header) == sorted(golden)
    for key in ("header_size", "page_size", "index_fields", "schema", "shard_addresses", "compression_size"):
        assert header[key] == golden[key], key
    assert [(p["page_type"], p["start_row_id"], p["end_row_id"]) for p in header["page"]] == [
        (p["page_type"], p["start_row_id"], p["end_row_id"]) for p in golden["page"]
    ]
    # The blob page (bytes, arrays, compressed ints) is MindSpore's byte for byte; the raw page is MessagePack,
    # whose float widths differ (MindSpore writes a float32 where it is exact), so its records are compared decoded.
    blob = golden["page"][0]
    assert blob["page_type"] == "BLOB_DATA" and header["page"][0]["page_size"] == blob["page_size"]
    start = golden["header_size"]
    with open(ours, "rb") as f, open(theirs, "rb") as g:
        assert f.read()[start : start + blob["page_size"]] == g.read()[start : start + blob["page_size"]]
    (our_columns, our_rows), (their_columns, their_rows) = _index_table(ours), _index_table(theirs)
    assert our_columns == their_columns
    blob_places = lambda rows: [(r[0], *r[4:]) for r in rows]  # noqa: E731  (all but the raw offsets)
    assert blob_places(our_rows) == blob_places(their_rows)


def test_what_kiln_writes_it_reads_back(tmp_path):
    rows = list(FileReader(_kiln_written(tmp_path)).get_next())
    for got, want in zip(rows, mixed_rows(), strict=True):
        for name, value in want.items():
            expected = _as_stored(name, value)
            if isinstance(expected, np.ndarray) and expected.ndim:
                assert got[name].dtype == expected.dtype
                np.testing.assert_array_equal(got[name], expected, err_msg=name)
            else:
                assert got[name] == expected, name


def test_files_of_earlier_kiln_versions_still_read():
    # goldens/kiln_v1.mindrecord was written by Kiln before it wrote MindSpore's layout (commit 80b3400)
    rows = list(FileReader(str(GOLDENS / "kiln_v1.mindrecord")).get_next())
    assert [r["id"] for r in rows] == [0, 1, 2, 3] and rows[2]["name"] == "r2"
    np.testing.assert_array_equal(rows[3]["vec"], np.arange(4, dtype=np.float32))
    assert read_header(str(GOLDENS / "kiln_v1.mindrecord")) is None


def test_append_to_mindspores_files_and_a_missing_index(tmp_path):
    shutil.copy(GOLDENS / "mixed.mindrecord", tmp_path / "mixed.mindrecord")
    with pytest.raises(MRMOpenError, match=r"index file .*mixed\.mindrecord\.db.* does not exist"):
        FileReader(str(tmp_path / "mixed.mindrecord"))
    shutil.copy(GOLDENS / "mixed.mindrecord.db", tmp_path / "mixed.mindrecord.db")
    writer = FileWriter.open_for_append(str(tmp_path / "mixed.mindrecord"))
    writer.write_raw_data(mixed_rows()[:2])
    writer.commit()
    labels = [r["label"] for r in FileReader(str(tmp_path / "mixed.mindrecord")).get_next()]
    assert labels == [-2, -1, 0, 1, 2, 3, -2, -1]
    page = MindPage(str(tmp_path / "mixed.mindrecord"))
    page.category_field = "name"
    assert [c["count"] for c in json.loads(page.read_category_info())["categories"]] == [2, 2, 1, 1, 1, 1]


def test_a_record_larger_than_a_page_is_a_clear_error(tmp_path):
    writer = FileWriter(str(tmp_path / "big.mindrecord"))
    writer.set_page_size(1 << 15)
    writer.add_schema({"img": {"type": "bytes"}})
    with pytest.raises(ValueError, match="does not fit a page of 32768 bytes; raise it with set_page_size"):
        writer.write_raw_data([{"img": bytes(40000)}])
