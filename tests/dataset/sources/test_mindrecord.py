"""kiln.mindrecord (FileWriter, FileReader, MindPage), MindDataset and Dataset.save.

The layout MindDataset exposes (column order, dtypes and shapes of each field type, how write_raw_data spreads
rows over shards, what save infers) was measured on MindSpore 2.10 and is written out here.
"""

import json
import os

import numpy as np
import pytest

import kiln.dataset as ds
from kiln.mindrecord import FileReader, FileWriter, MindPage

SCHEMA = {
    "b": {"type": "bytes"},
    "s": {"type": "string"},
    "i": {"type": "int32"},
    "f": {"type": "float64"},
    "arr": {"type": "float32", "shape": [-1]},
    "m": {"type": "int64", "shape": [2, -1]},
}


def _rows(n=5):
    return [
        {
            "b": b"xy%d" % k,
            "s": f"n{k}",
            "i": k,
            "f": k / 4,
            "arr": np.arange(k + 1, dtype=np.float32),
            "m": np.arange(2 * (k + 1)).reshape(2, -1),
        }
        for k in range(n)
    ]


def _write(path, shards=1, rows=None):
    w = FileWriter(str(path), shards)
    w.add_schema(SCHEMA, "test")
    w.add_index(["s", "i"])
    w.write_raw_data(_rows() if rows is None else rows)
    w.commit()


def test_round_trip_layout(tmp_path):
    _write(tmp_path / "a.mr")
    assert os.path.isfile(tmp_path / "a.mr.db")
    d = ds.MindDataset(str(tmp_path / "a.mr"), shuffle=False)
    assert d.get_col_names() == ["arr", "b", "f", "i", "m", "s"]  # name order, as MindSpore
    assert d.get_dataset_size() == 5
    for k, r in enumerate(d.create_dict_iterator(num_epochs=1, output_numpy=True)):
        want = _rows()[k]
        assert r["b"].shape == (1,) and r["b"][0] == want["b"]
        assert r["s"].shape == () and r["s"].dtype.kind == "U" and r["s"] == want["s"]
        assert r["i"].shape == () and r["i"].dtype == np.int32 and r["i"] == k
        assert r["f"].dtype == np.float64 and r["f"] == k / 4
        np.testing.assert_array_equal(r["arr"], want["arr"])
        np.testing.assert_array_equal(r["m"], want["m"])
        assert r["m"].dtype == np.int64


def test_shards_columns_and_reader(tmp_path):
    _write(tmp_path / "a.mr", shards=2)
    # One shard file names the whole set; a list reads just those files (rows are split in contiguous blocks).
    assert ds.MindDataset(str(tmp_path / "a.mr0")).get_dataset_size() == 5
    one = ds.MindDataset([str(tmp_path / "a.mr1")], columns_list=["i", "s"], shuffle=False)
    assert one.get_col_names() == ["i", "s"]
    assert [int(r[0]) for r in one.create_tuple_iterator(output_numpy=True)] == [3, 4]
    reader = FileReader(str(tmp_path / "a.mr0"))
    assert reader.len() == 5 and reader.schema() == SCHEMA
    first = next(reader.get_next())
    assert first["i"] == 0 and first["s"] == "n0" and first["b"] == b"xy0"
    reader.close()
    shard = ds.MindDataset(str(tmp_path / "a.mr0"), num_shards=2, shard_id=1, shuffle=False)
    assert shard.get_dataset_size() == 3


def test_invalid_rows_skipped_and_errors(tmp_path):
    rows = _rows(3)
    rows[1]["arr"] = rows[1]["arr"].astype(np.float64)  # wrong dtype: skipped
    _write(tmp_path / "a.mr", rows=rows)
    assert ds.MindDataset(str(tmp_path / "a.mr")).get_dataset_size() == 2
    w = FileWriter(str(tmp_path / "b.mr"))
    w.add_schema(SCHEMA)
    bad = _rows(1)
    bad[0]["i"] = "x"
    with pytest.raises(RuntimeError, match="none of the 1 rows passed to write_raw_data matches the schema"):
        w.write_raw_data(bad)
    with pytest.raises(RuntimeError, match="already exist"):
        FileWriter(str(tmp_path / "a.mr"))
    with pytest.raises(RuntimeError, match="does not exist or permission denied"):
        ds.MindDataset(str(tmp_path / "missing.mr"))
    os.remove(tmp_path / "a.mr.db")
    with pytest.raises(RuntimeError):
        ds.MindDataset(str(tmp_path / "a.mr"))


def test_append_and_mindpage(tmp_path):
    _write(tmp_path / "a.mr")
    w = FileWriter.open_for_append(str(tmp_path / "a.mr"))
    w.write_raw_data(_rows(2))
    w.commit()
    assert ds.MindDataset(str(tmp_path / "a.mr")).get_dataset_size() == 7
    page = MindPage(str(tmp_path / "a.mr"))
    assert page.candidate_fields() == ["s", "i"]
    page.category_field = "s"
    info = json.loads(page.read_category_info())
    assert {c["name"]: c["count"] for c in info["categories"]}["n1"] == 2
    got = page.read_at_page_by_name("n1", 0, 5)
    assert [r["i"] for r in got] == [1, 1]


def test_save_infers_schema(tmp_path):
    d = ds.NumpySlicesDataset(
        {
            "x": np.arange(12).reshape(3, 2, 2).astype(np.float16),
            "flag": np.array([True, False, True]),
            "u": np.array([1, 2, 3], np.uint32),
            "name": np.array(["a", "bb", "c"]),
        },
        shuffle=False,
    )
    d.save(str(tmp_path / "s.mr"))
    # The types MindSpore 2.10's save picks for these columns.
    assert FileReader(str(tmp_path / "s.mr")).schema() == {
        "x": {"type": "float32", "shape": [-1, 2]},
        "flag": {"type": "int32"},
        "u": {"type": "int64"},
        "name": {"type": "string"},
    }
    rows = list(ds.MindDataset(str(tmp_path / "s.mr"), shuffle=False).create_dict_iterator(output_numpy=True))
    np.testing.assert_array_equal(rows[2]["x"], np.arange(8, 12).reshape(2, 2))
    assert [str(r["name"]) for r in rows] == ["a", "bb", "c"]

    def ragged():
        yield (np.zeros((2, 3), np.float32),)
        yield (np.zeros((2, 4), np.float32),)

    with pytest.raises(RuntimeError, match="fixed shapes"):
        ds.GeneratorDataset(ragged, ["data"], shuffle=False).save(str(tmp_path / "r.mr"))


def test_padded_sample(tmp_path):
    _write(tmp_path / "a.mr")
    pad = {"i": -1, "s": "pad"}
    d = ds.MindDataset(str(tmp_path / "a.mr"), ["i", "s"], shuffle=False, padded_sample=pad, num_padded=1)
    assert [int(r[0]) for r in d.create_tuple_iterator(output_numpy=True)] == [0, 1, 2, 3, 4, -1]


def test_write_raw_data_refuses_unknown_keywords(tmp_path):
    w = FileWriter(str(tmp_path / "k.mr"))
    w.add_schema(SCHEMA)
    with pytest.raises(TypeError, match="parallel_writers"):
        w.write_raw_data(_rows(1), parallel_writers=True)  # a misspelt keyword was swallowed before
