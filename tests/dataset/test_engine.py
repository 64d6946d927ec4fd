"""Engine behaviour measured on MindSpore 2.10: sync_wait counted in batches, disable_sync, set_init_step,
callable batch sizes, padded batches, input_indexs, IterSampler and the autotune settings."""

import numpy as np
import pytest

import kiln.dataset as ds


def _gen():
    yield from ((np.array(i),) for i in range(20))


def test_sync_wait_counts_batches():
    seen = []
    d = ds.GeneratorDataset(_gen, ["x"]).sync_wait("c", callback=seen.append).batch(4)
    firsts = []
    for k, row in enumerate(d.create_tuple_iterator(num_epochs=1, output_numpy=True)):
        firsts.append(int(row[0][0]))
        d.sync_update("c", data=k)
    assert firsts == [0, 4, 8, 12, 16]
    assert seen == [0, 1, 2, 3, 4]


def test_sync_errors_and_disable():
    d = ds.GeneratorDataset(_gen, ["x"]).sync_wait("c")
    with pytest.raises(RuntimeError, match="already has a sync_wait named 'c'"):
        d.sync_wait("c")
    with pytest.raises(RuntimeError, match="call shuffle before sync_wait"):
        d.shuffle(2)
    with pytest.raises(ValueError):
        ds.GeneratorDataset(_gen, ["x"]).sync_wait("c", num_batch=0)
    with pytest.raises(RuntimeError, match="has no sync_wait named"):
        d.sync_update("other")
    with pytest.raises(RuntimeError):
        d.sync_update("c", num_batch=-1)
    d.disable_sync()
    assert len(list(d.create_tuple_iterator(num_epochs=1))) == 20


@pytest.fixture
def seed_one():
    old = ds.config.get_seed()
    ds.config.set_seed(1)
    yield
    ds.config.set_seed(old)


@pytest.mark.parametrize("init_step", [0, 3, 5, 7])
def test_set_init_step_resumes(init_step, seed_one):
    d = ds.GeneratorDataset(_gen, ["x"]).shuffle(4).map(lambda x: x * 2, ["x"]).batch(4)
    it = d.create_tuple_iterator(num_epochs=2, output_numpy=True)
    full = []
    for _ in range(2):
        full += [r[0].tolist() for r in it]
    d.set_init_step(init_step)
    it = d.create_tuple_iterator(num_epochs=2, output_numpy=True)
    got = []
    for _ in range(2 - init_step // 5):
        got += [r[0].tolist() for r in it]
    assert got == full[init_step:]


def test_callable_batch_size_and_max_rowsize():
    d = ds.GeneratorDataset(_gen, ["x"]).batch(lambda info: 2)
    assert d.get_batch_size() == -1
    for bad in ((12, 20), "16", 20.5, [12.4, 20]):
        with pytest.raises(TypeError):
            ds.GeneratorDataset(_gen, ["x"]).batch(2, max_rowsize=bad)
    with pytest.raises(ValueError):
        ds.GeneratorDataset(_gen, ["x"]).map(lambda x: x, max_rowsize=[-8, 20])
    assert len(ds.NumpySlicesDataset([1, 2, 3], ["a"])) == 3


def test_input_indexs():
    a = ds.NumpySlicesDataset([1, 2, 3], ["c"])
    assert a.input_indexs == ()
    a.input_indexs = 10
    b = ds.NumpySlicesDataset([1, 2, 3], ["c"]).shuffle(2)
    assert a.shuffle(2).input_indexs == 10 and (a + b).input_indexs == 10 and b.input_indexs == ()


def test_iter_sampler_line_reader_and_aliases(tmp_path):
    d = ds.NumpySlicesDataset(np.arange(5), ["a"], sampler=ds.IterSampler([4, 0, 2]))
    assert [int(r[0]) for r in d.create_tuple_iterator(output_numpy=True)] == [4, 0, 2]
    assert isinstance(d, ds.MappableDataset) and isinstance(d.batch(2), ds.Dataset)
    (tmp_path / "f.csv").write_text("a,b\r\n1,2\nlast")
    reader = ds.LineReader(str(tmp_path / "f.csv"))
    assert reader.len() == 3 and reader.readline(1) == "a,b" and reader.readline(3) == "last"
    with pytest.raises(ValueError):
        reader.readline(4)
    reader.close()
    assert ds.get_seed() == ds.config.get_seed()
    with pytest.raises(NotImplementedError):
        ds.OBSMindDataset("obs://bucket/x", "s3", "ak", "sk", "/tmp")


def test_padded_batch_pads_and_cuts():
    def g():
        yield (np.array([[1, 2, 3]]),)
        yield (np.array([[4, 5, 6], [7, 8, 9], [1, 1, 1]]),)

    d = ds.GeneratorDataset(g, ["x"], shuffle=False).padded_batch(2, pad_info={"x": ([2, 2], -1)})
    # MindSpore 2.10's result for the same pipeline.
    assert [r[0].tolist() for r in d.create_tuple_iterator(output_numpy=True)] == [
        [[[1, 2], [-1, -1]], [[4, 5], [7, 8]]]
    ]


def test_autotune_config_checks(tmp_path):
    old = ds.config.get_enable_autotune()
    try:
        with pytest.raises(TypeError):
            ds.config.set_autotune_interval(20.5)
        with pytest.raises(TypeError):
            ds.config.set_enable_autotune(True, 123)
        with pytest.raises(RuntimeError):
            ds.config.set_enable_autotune(True, str(tmp_path))  # a directory
        with pytest.raises(RuntimeError):
            ds.config.set_enable_autotune(True, "/no/such/dir/x.json")
        ds.config.set_enable_autotune(False, "/no/such/dir/x.json")  # ignored when disabling
        ds.config.set_enable_autotune(True, str(tmp_path / "at.json"))
        assert ds.config.get_enable_autotune() is True
    finally:
        ds.config.set_enable_autotune(old)


def test_output_shapes_estimate_marks_varying_axes():
    d = ds.GeneratorDataset(lambda: ((np.zeros((n, 3)), np.zeros(2)) for n in (1, 4, 2)), ["a", "b"])
    assert d.output_shapes() == [[1, 3], [2]]
    assert d.output_shapes(estimate=True) == [[None, 3], [2]]
    ragged = ds.GeneratorDataset(lambda: (np.zeros((2,) * n) for n in (1, 2)), ["a"])
    with pytest.raises(RuntimeError, match="rank 1 and 2"):
        ragged.output_shapes(estimate=True)


def test_debug_hooks_warn_that_they_are_not_called():
    try:
        with pytest.warns(UserWarning, match="1 debug hook"):
            ds.config.set_debug_mode(True, debug_hook_list=[object()])
    finally:
        ds.config.set_debug_mode(False)


def test_waited_callback_waits_for_the_configured_timeout():
    before = ds.config.get_callback_timeout()
    cb = ds.WaitedDSCallback()
    cb._step_event.clear()  # training has not finished the previous step
    try:
        ds.config.set_callback_timeout(1)
        with pytest.raises(RuntimeError, match="within 1 s"):
            cb.ds_step_begin(type("Context", (), {"cur_step_num": 2})())
    finally:
        ds.config.set_callback_timeout(before)


def test_error_samples_modes_other_than_return_warn():
    try:
        with pytest.warns(UserWarning, match="SKIP is recorded"):
            ds.config.set_error_samples_mode(ds.config.ErrorSamplesMode.SKIP)
    finally:
        ds.config.set_error_samples_mode(ds.config.ErrorSamplesMode.RETURN)


def test_weighted_random_sampler_error_classes_as_mindspore():
    # MindSpore 2.10 (its CPU build): TypeError for '' , a tuple or a non-number element; RuntimeError for [],
    # a negative weight or all zeros (Kiln raised ValueError for each); a list of numbers, bools among them, is taken
    for bad in ("", (0.9, 0.8, 1.1), ["a", 1]):
        with pytest.raises(TypeError, match="WeightedRandomSampler"):
            ds.WeightedRandomSampler(bad)
    for bad in ([], [1.0, 0.1, -0.4], [0, 0, 0]):
        with pytest.raises(RuntimeError, match="WeightedRandomSampler"):
            ds.WeightedRandomSampler(bad)
    data = np.arange(4, dtype=np.int32)
    for weights, only in (([0, 0, 0, 2], 3), ([False, False, True, 0], 2)):
        sampler = ds.WeightedRandomSampler(weights, num_samples=3)
        pipeline = ds.NumpySlicesDataset(data, sampler=sampler)
        assert [int(r[0]) for r in pipeline.create_tuple_iterator(output_numpy=True)] == [only] * 3
