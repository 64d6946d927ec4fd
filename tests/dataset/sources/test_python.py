"""Sources fed by Python objects: GeneratorDataset and NumpySlicesDataset."""

import numpy as np
import pytest

import kiln.dataset as ds
from tests.dataset.helpers import column, rows


# -- GeneratorDataset -----------------------------------------------------------
def test_generator_from_generator_function():
    def gen():
        for i in range(7):
            yield np.array([i, i * i]), np.int32(i)

    d = ds.GeneratorDataset(gen, column_names=["data", "label"])
    got = rows(d)
    assert len(got) == 7 and d.get_dataset_size() == 7  # size counted by reading
    for i, (data, label) in enumerate(got):
        np.testing.assert_array_equal(data, [i, i * i])
        assert label == i and label.dtype == np.int32
    # A callable source is called again every epoch.
    assert len(rows(d)) == 7


def test_generator_from_iterable_without_getitem():
    class Stream:
        def __iter__(self):
            return iter([(np.float32(v),) for v in (0.5, 1.5, 2.5)])

    d = ds.GeneratorDataset(Stream(), column_names="x", num_samples=2)
    assert column(d) == [0.5, 1.5]
    with pytest.raises(ValueError, match="random-accessible"):
        ds.GeneratorDataset(Stream(), column_names="x", shuffle=True)


def test_generator_from_random_access_source():
    class Squares:
        def __getitem__(self, i):
            return np.array(i * i), np.array(i)

        def __len__(self):
            return 12

    ordered = ds.GeneratorDataset(Squares(), ["sq", "i"], shuffle=False)
    assert column(ordered) == [i * i for i in range(12)]
    ds.config.set_seed(4)
    shuffled = column(ds.GeneratorDataset(Squares(), ["sq", "i"]))  # random access shuffles by default
    assert sorted(shuffled) == [i * i for i in range(12)] and shuffled != sorted(shuffled)
    threaded = ds.GeneratorDataset(Squares(), ["sq", "i"], shuffle=False, num_parallel_workers=3)
    assert column(threaded) == [i * i for i in range(12)]
    # A plain list is random-accessible too; column_types casts.
    typed = ds.GeneratorDataset([(1,), (2,)], ["v"], column_types=[np.float32], shuffle=False)
    assert [r[0].dtype for r in rows(typed)] == [np.float32, np.float32]


def test_generator_errors():
    with pytest.raises(ValueError, match="column_names"):
        ds.GeneratorDataset([(1,)])
    with pytest.raises(TypeError, match="source"):
        ds.GeneratorDataset(42, ["x"])

    def two_columns():
        yield 1, 2

    d = ds.GeneratorDataset(two_columns, ["only"])
    with pytest.raises(RuntimeError, match=r"2 column\(s\).*names 1"):
        rows(d)


# -- NumpySlicesDataset ---------------------------------------------------------
def test_numpy_slices_inputs():
    data = {"x": np.arange(12).reshape(6, 2), "y": np.arange(6) * 0.5}
    d = ds.NumpySlicesDataset(data, shuffle=False)
    assert d.get_col_names() == ["x", "y"]
    got = rows(d)
    for i, (x, y) in enumerate(got):
        np.testing.assert_array_equal(x, data["x"][i])
        assert y == data["y"][i]
    assert ds.NumpySlicesDataset([1, 2, 3], shuffle=False).get_col_names() == ["column_0"]
    assert column(ds.NumpySlicesDataset([1, 2, 3], shuffle=False)) == [1, 2, 3]
    t = ds.NumpySlicesDataset(([1, 2], [3, 4]), column_names=["a", "b"], shuffle=False)
    assert [(int(a), int(b)) for a, b in rows(t)] == [(1, 3), (2, 4)]
    arr = ds.NumpySlicesDataset(np.ones((4, 3)), column_names=["m"], shuffle=False)
    assert [r[0].shape for r in rows(arr)] == [(3,)] * 4


def test_numpy_slices_errors():
    with pytest.raises(ValueError, match="different numbers of rows"):
        ds.NumpySlicesDataset({"a": [1, 2, 3], "b": [1, 2]})
    with pytest.raises(ValueError, match="column_names"):
        ds.NumpySlicesDataset(([1], [2]), column_names=["only"])
    with pytest.raises(ValueError, match="num_shards and shard_id"):
        ds.NumpySlicesDataset([1, 2], num_shards=2)
    with pytest.raises(ValueError, match="shard_id"):
        ds.NumpySlicesDataset([1, 2], num_shards=2, shard_id=2)


def test_generator_schema_names_and_casts_the_columns(tmp_path):
    schema = ds.Schema()
    schema.add_column("image", "float32", [2])
    schema.add_column("label", "int64")
    data = [(np.array([1, 2]), 3), (np.array([4, 5]), 6)]
    d = ds.GeneratorDataset(data, schema=schema, shuffle=False)
    assert d.get_col_names() == ["image", "label"]
    got = rows(d)
    assert [(r[0].dtype, r[1].dtype) for r in got] == [(np.float32, np.int64)] * 2
    np.testing.assert_array_equal(got[1][0], [4.0, 5.0])
    path = tmp_path / "schema.json"
    path.write_text(schema.to_json())
    assert ds.GeneratorDataset(data, schema=str(path)).get_col_names() == ["image", "label"]
    with pytest.raises(ValueError, match="differ from the schema"):
        ds.GeneratorDataset(data, column_names=["a", "b"], schema=schema)
    with pytest.raises(TypeError, match="schema must be a Schema"):
        ds.GeneratorDataset(data, schema=3)
