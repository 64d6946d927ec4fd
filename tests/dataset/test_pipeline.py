"""Dataset operations, iterators, seeding, sharding and the prefetch thread."""

from __future__ import annotations

import gc
import os
import subprocess
import sys
import threading
import time
import traceback

import numpy as np
import pytest

import kiln.dataset as ds
from kiln._core import dtype as mstype
from kiln._core.tensor import Tensor
from kiln.dataset import transforms, vision

from .helpers import column, rows


def numbers(n=10, shuffle=False, **kwargs):
    return ds.NumpySlicesDataset({"n": np.arange(n)}, shuffle=shuffle, **kwargs)


def test_take_skip_repeat():
    d = numbers()
    assert column(d.take(3)) == [0, 1, 2] and d.take(3).get_dataset_size() == 3
    assert column(d.skip(7)) == [7, 8, 9] and d.skip(7).get_dataset_size() == 3
    assert d.skip(20).get_dataset_size() == 0 and column(d.skip(20)) == []
    assert column(d.take(-1)) == list(range(10))
    assert column(d.repeat(2)) == list(range(10)) * 2 and d.repeat(2).get_dataset_size() == 20
    endless = d.repeat()
    # MindSpore 2.10 reports one pass of the child for an endless repeat (tests/dataset/goldens/sweep.json too)
    assert endless.get_dataset_size() == 10 and endless.get_repeat_count() == -1
    assert column(endless.take(25)) == (list(range(10)) * 3)[:25]
    assert column(d.skip(2).take(3).repeat(2)) == [2, 3, 4, 2, 3, 4]


def test_zip_concat_project_rename():
    a = numbers(4)
    b = ds.NumpySlicesDataset({"sq": np.arange(6) ** 2}, shuffle=False)
    z = a.zip(b)
    assert z.get_col_names() == ["n", "sq"] and z.get_dataset_size() == 4
    assert [(int(n), int(s)) for n, s in rows(z)] == [(i, i * i) for i in range(4)]
    assert ds.zip((a, b)).get_col_names() == ["n", "sq"]
    c = a + numbers(3)
    assert column(c) == [0, 1, 2, 3, 0, 1, 2] and c.get_dataset_size() == 7
    assert column(a.concat([numbers(2), numbers(1)])) == [0, 1, 2, 3, 0, 1, 0]
    assert column(z.project("sq")) == [0, 1, 4, 9]
    assert z.project(["sq", "n"]).get_col_names() == ["sq", "n"]
    r = z.rename(["n"], ["index"])
    assert r.get_col_names() == ["index", "sq"] and column(r) == [0, 1, 2, 3]
    with pytest.raises(ValueError, match="duplicate"):
        a.zip(numbers(3))
    with pytest.raises(ValueError, match="same columns"):
        a.concat(b)


def test_batch_and_batch_size():
    d = ds.NumpySlicesDataset({"x": np.arange(20).reshape(10, 2), "y": np.arange(10)}, shuffle=False)
    batched = rows(d.batch(4))
    assert [b[0].shape for b in batched] == [(4, 2), (4, 2), (2, 2)]
    np.testing.assert_array_equal(batched[1][0], np.arange(20).reshape(10, 2)[4:8])
    np.testing.assert_array_equal(batched[2][1], [8, 9])
    assert d.batch(4).get_dataset_size() == 3
    dropped = d.batch(4, drop_remainder=True)
    assert dropped.get_dataset_size() == 2 and len(rows(dropped)) == 2
    assert dropped.get_batch_size() == 4 and d.get_batch_size() == 1
    assert d.batch(3).map(lambda x: x, "x").get_batch_size() == 3


def test_map_columns_and_order():
    d = ds.NumpySlicesDataset({"a": np.arange(3), "b": np.arange(3) * 10, "c": np.arange(3) * 100}, shuffle=False)
    same = d.map([lambda b: b + 1, lambda b: b * 2], input_columns="b")
    assert same.get_col_names() == ["a", "b", "c"]
    assert column(same, 1) == [2, 22, 42]
    split = d.map(lambda b: (b, -b), input_columns="b", output_columns=["b1", "b2"])
    # MindSpore: when the column count changes, outputs come first, then the untouched columns.
    assert split.get_col_names() == ["b1", "b2", "a", "c"]
    assert [[int(v) for v in r] for r in rows(split)][2] == [20, -20, 2, 200]
    merged = d.map(lambda a, c: a + c, input_columns=["a", "c"], output_columns="ac")
    assert merged.get_col_names() == ["ac", "b"] and column(merged) == [0, 101, 202]
    renamed = d.map(lambda a: a, input_columns="a", output_columns="z")
    assert renamed.get_col_names() == ["z", "b", "c"]
    # input_columns None: the first column only, as MindSpore 2.10 (tests/dataset/goldens/sweep.json)
    first = d.map(lambda a: a * 2)
    assert first.get_col_names() == ["a", "b", "c"] and column(first) == [0, 2, 4] and column(first, 2) == [0, 100, 200]


def test_filter():
    d = numbers().filter(lambda n: n % 3 == 0)
    assert column(d) == [0, 3, 6, 9] and d.get_dataset_size() == 4


def test_tuple_and_dict_iterators_yield_tensors():
    d = ds.NumpySlicesDataset({"x": np.arange(6, dtype=np.uint8).reshape(3, 2), "y": np.arange(3)}, shuffle=False)
    first = next(iter(d))
    assert isinstance(first, list) and all(isinstance(t, Tensor) for t in first)
    assert first[0].dtype == mstype.uint8 and first[0].shape == (2,)
    dicts = list(d.create_dict_iterator(num_epochs=1))
    assert list(dicts[2]) == ["x", "y"] and isinstance(dicts[2]["x"], Tensor)
    np.testing.assert_array_equal(dicts[2]["x"].asnumpy(), [4, 5])
    np_dicts = list(d.create_dict_iterator(num_epochs=1, output_numpy=True))
    assert isinstance(np_dicts[0]["y"], np.ndarray)
    only_y = list(d.create_tuple_iterator(columns=["y"], output_numpy=True, num_epochs=1))
    assert [len(r) for r in only_y] == [1, 1, 1] and int(only_y[1][0]) == 1
    assert d.output_shapes() == [[2], []]
    assert d.output_types() == [np.dtype(np.uint8), np.dtype(np.int64)]


def test_iterator_epochs():
    d = numbers(3)
    it = d.create_tuple_iterator(num_epochs=2, output_numpy=True)
    assert [int(r[0]) for r in it] == [0, 1, 2]
    assert [int(r[0]) for r in it] == [0, 1, 2]
    assert list(it) == []  # both epochs used up
    endless = d.create_tuple_iterator(output_numpy=True)
    for _ in range(3):
        assert len(list(endless)) == 3


def test_cleanup_stops_every_live_iterator():
    from kiln.dataset import iterators

    it = numbers(50).create_tuple_iterator(output_numpy=True)
    assert int(next(it)[0]) == 0  # its prefetch thread is running
    iterators._cleanup()
    assert list(it) == []
    iterators._unset_iterator_cleanup()
    assert it not in iterators._LIVE


def test_source_shuffle_is_seeded_and_reshuffles_each_epoch():
    ds.config.set_seed(123)
    a = column(numbers(20, shuffle=True))
    b = column(numbers(20, shuffle=True))
    ds.config.set_seed(124)
    c = column(numbers(20, shuffle=True))
    assert a == b and a != c
    assert sorted(a) == list(range(20)) and a != list(range(20))
    ds.config.set_seed(123)
    it = numbers(20, shuffle=True).create_tuple_iterator(output_numpy=True, num_epochs=2)
    epoch0, epoch1 = [int(r[0]) for r in it], [int(r[0]) for r in it]
    assert epoch0 == a and epoch1 != epoch0 and sorted(epoch1) == list(range(20))


def test_buffer_shuffle():
    ds.config.set_seed(7)
    a = column(numbers(30).shuffle(8))
    b = column(numbers(30).shuffle(8))
    assert a == b and sorted(a) == list(range(30)) and a != list(range(30))
    # A buffer of k rows can only hold a row back, never move it earlier by more than k.
    assert all(pos >= value - 8 for pos, value in enumerate(a))
    with pytest.raises(ValueError, match="buffer_size"):
        numbers().shuffle(1)


def test_sharding_splits_the_shuffled_order():
    ds.config.set_seed(5)
    full = column(numbers(10, shuffle=True))
    shards = [numbers(10, shuffle=True, num_shards=3, shard_id=k) for k in range(3)]
    assert [s.get_dataset_size() for s in shards] == [4, 4, 4]  # ceil(10 / 3), wrapping around
    got = [column(s) for s in shards]
    for k in range(3):
        assert got[k] == [full[(k + 3 * j) % 10] for j in range(4)]
    assert set().union(*got) == set(range(10))
    plain = [column(numbers(10, num_shards=2, shard_id=k)) for k in range(2)]
    assert plain == [[0, 2, 4, 6, 8], [1, 3, 5, 7, 9]]


def _augment_pipeline(workers):
    images = np.random.default_rng(0).integers(0, 256, size=(24, 12, 10, 3), dtype=np.uint8)
    d = ds.NumpySlicesDataset({"image": images, "label": np.arange(24)}, shuffle=True)
    ops = [vision.RandomCrop(8, padding=2), vision.RandomHorizontalFlip(), vision.Resize((16, 12)), vision.HWC2CHW()]
    return d.map(ops, "image", num_parallel_workers=workers).batch(5)


def test_parallel_map_matches_serial():
    ds.config.set_seed(11)
    serial = rows(_augment_pipeline(1))
    parallel = rows(_augment_pipeline(4))
    ds.config.set_seed(11)
    again = rows(_augment_pipeline(3))
    assert len(serial) == len(parallel) == 5
    for s, p, a in zip(serial, parallel, again):
        for x, y, z in zip(s, p, a):
            np.testing.assert_array_equal(x, y)
            np.testing.assert_array_equal(x, z)
    # The crops really are random: images do not all come from the same window.
    first = rows(_augment_pipeline(1).project("image").batch(1))
    assert len({arr.tobytes() for (arr,) in first}) > 1


def test_error_messages_for_bad_pipelines():
    d = ds.NumpySlicesDataset({"image": np.zeros((4, 2)), "label": np.zeros(4)})
    with pytest.raises(ValueError) as info:
        d.map(lambda x: x, input_columns="img")
    assert "'img'" in str(info.value) and "['image', 'label']" in str(info.value)
    with pytest.raises(ValueError, match=r"'lbl'.*\['image', 'label'\]"):
        d.project(["lbl"])
    with pytest.raises(ValueError, match="batch_size"):
        d.batch(0)
    with pytest.raises(TypeError, match="batch_size"):
        d.batch(2.5)
    with pytest.raises(ValueError, match="'nope'"):
        d.rename("nope", "x")
    with pytest.raises(ValueError, match="count"):
        d.repeat(0)
    with pytest.raises(TypeError, match="not callable"):
        d.map([1], "image")
    ragged = ds.GeneratorDataset(lambda: ((np.zeros(n),) for n in (2, 3)), ["v"])
    with pytest.raises(RuntimeError, match="different shapes"):
        rows(ragged.batch(2))
    wrong_count = d.map(lambda x: (x, x), "image")
    with pytest.raises(RuntimeError, match="output_columns"):
        rows(wrong_count)


def test_worker_exception_reaches_consumer_with_traceback():
    def exploding_source():
        for i in range(10):
            if i == 4:
                raise KeyError("row 4 is broken")
            yield (np.array(i),)

    d = ds.GeneratorDataset(exploding_source, ["i"])
    it = d.create_tuple_iterator(output_numpy=True, num_epochs=1)
    seen = []
    with pytest.raises(KeyError, match="row 4 is broken") as info:
        for (i,) in it:
            seen.append(int(i))
    assert seen == [0, 1, 2, 3]
    # the user's frame is in the traceback itself (the pipeline thread's frames before it are not)
    frames = traceback.extract_tb(info.value.__traceback__)
    assert frames[-1].name == "exploding_source"
    assert not any(f.filename.endswith(("engine.py", "sources/python.py")) for f in frames)

    def bad_op(x):
        raise ValueError("op failed")

    with pytest.raises(ValueError, match="op failed") as info:
        rows(numbers().map(bad_op, "n", num_parallel_workers=2))
    assert "bad_op" in "\n".join(info.value.__notes__)


_FAILING_MAP = """
import numpy as np
import kiln.dataset as ds


def scale(x):
    if x[0] > 2:
        raise KeyError("no scale for this row")  # the user's failing line
    return x * 2


d = ds.NumpySlicesDataset({"pixels": np.arange(6, dtype=np.float32).reshape(6, 1)}, shuffle=False)
d = d.map(scale, input_columns=["pixels"], num_parallel_workers=WORKERS, python_multiprocessing=PROCESSES)
for row in d.create_tuple_iterator():
    pass
"""


@pytest.mark.parametrize("workers, processes", [(1, False), (2, False), (2, True)])
def test_a_failing_map_function_is_reported_once(tmp_path, workers, processes):
    # the report repeated the pipeline thread's traceback in a note (58 lines for a one-line failure), and a worker
    # process's failure came with the pool's remote traceback as its cause: one report, the user's frames only
    script = tmp_path / "user_pipeline.py"
    script.write_text(_FAILING_MAP.replace("WORKERS", str(workers)).replace("PROCESSES", str(processes)))
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    env.pop("KILN_DEBUG", None)
    run = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, env=env, timeout=300)
    assert run.returncode == 1
    report = run.stderr
    line = next(i for i, text in enumerate(_FAILING_MAP.splitlines(), 1) if "the user's failing line" in text)
    assert f'File "{script}", line {line}, in scale' in report
    assert "KeyError: 'no scale for this row'" in report
    assert "map operation <function scale" in report and "['pixels']" in report  # the dataset op and its column
    assert report.count("Traceback (most recent call last)") == 1
    assert report.count("KeyError: ") == 1 and report.count("in scale") == 1
    assert "engine.py" not in report and "pipeline thread" not in report and "concurrent" not in report
    assert len(report.splitlines()) <= 20, report


def _prefetch_threads():
    return [t for t in threading.enumerate() if t.name == "kiln-dataset-prefetch" and t.is_alive()]


def _wait_for_no_prefetch_threads(timeout=3.0):
    deadline = time.monotonic() + timeout
    while _prefetch_threads() and time.monotonic() < deadline:
        time.sleep(0.02)
    return _prefetch_threads()


def test_prefetch_thread_stops_when_iterator_is_dropped_or_exhausted():
    assert _wait_for_no_prefetch_threads() == []
    ds.config.set_prefetch_size(2)
    try:
        endless = numbers().repeat()
        it = endless.create_tuple_iterator(output_numpy=True)
        for _ in range(5):
            next(it)
        assert len(_prefetch_threads()) == 1
        del it
        gc.collect()
        assert _wait_for_no_prefetch_threads() == []
        for _ in numbers():
            pass
        assert _wait_for_no_prefetch_threads() == []
        it = endless.create_tuple_iterator(output_numpy=True)
        next(it)
        it.stop()
        assert _prefetch_threads() == [] and list(it) == []
    finally:
        ds.config.set_prefetch_size(4)


def test_streaming_does_not_materialise_the_source():
    produced = []

    def endless():
        i = 0
        while True:
            produced.append(i)
            yield (np.array(i),)
            i += 1

    d = ds.GeneratorDataset(endless, ["i"]).map(lambda i: i * 2).batch(4)
    it = d.create_tuple_iterator(output_numpy=True)
    first = [next(it)[0] for _ in range(3)]
    np.testing.assert_array_equal(first[2], [16, 18, 20, 22])
    time.sleep(0.05)
    # Only what the bounded prefetch queue can hold was read ahead.
    assert len(produced) <= 4 * (3 + ds.config.get_prefetch_size() + 2)
    it.stop()


def test_config_validation():
    with pytest.raises(ValueError, match="seed"):
        ds.config.set_seed(-1)
    with pytest.raises(ValueError, match="prefetch"):
        ds.config.set_prefetch_size(0)
    ds.config.set_seed(42)
    assert ds.config.get_seed() == 42
    ds.config.set_num_parallel_workers(3)
    try:
        assert ds.config.get_num_parallel_workers() == 3
        assert numbers().map(transforms.TypeCast(np.int8), "n")._workers == 3
    finally:
        ds.config.set_num_parallel_workers(1)
