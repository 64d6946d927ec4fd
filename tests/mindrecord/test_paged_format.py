"""MindRecord files written by MindSpore 2.10 (goldens/, by goldens/make_paged_goldens_mindspore.py) read by Kiln."""

import json
import shutil
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


def test_kiln_files_are_not_taken_for_mindspores(tmp_path):
    path = str(tmp_path / "own.mindrecord")
    writer = FileWriter(path)
    writer.add_schema({"x": {"type": "int32"}}, "own")
    writer.write_raw_data([{"x": 1}])
    writer.commit()
    assert read_header(path) is None
    assert read_header(str(GOLDENS / "mixed.mindrecord"))["page_size"] == 1 << 15


def test_a_missing_index_or_append_is_a_clear_error(tmp_path):
    shutil.copy(GOLDENS / "mixed.mindrecord", tmp_path / "mixed.mindrecord")
    with pytest.raises(MRMOpenError, match=r"index file .*mixed\.mindrecord\.db.* does not exist"):
        FileReader(str(tmp_path / "mixed.mindrecord"))
    shutil.copy(GOLDENS / "mixed.mindrecord.db", tmp_path / "mixed.mindrecord.db")
    with pytest.raises(MRMOpenError, match="MindSpore's layout"):
        FileWriter.open_for_append(str(tmp_path / "mixed.mindrecord"))
