"""ReduceLROnPlateau, BackupAndRestore, OnRequestExit; DatasetHelper, connect_network_with_dataset, data_sink;
ckpt_to_safetensors / safetensors_to_ckpt, load_checkpoint_async; the names train re-exports from elsewhere."""

import os
import signal

import numpy as np
import pytest

import kiln as ms
from kiln import Tensor, nn, train
from tests.train.helpers import ArrayDataset, CrossEntropy, Linear, make_data


def _model(lr=0.1):
    net = Linear()
    opt = nn.Momentum(net.trainable_params(), lr, 0.9)
    return net, opt, train.Model(net, CrossEntropy(), opt)


class _Losses(train.Callback):
    """Feeds a scripted sequence of 'losses' to the callbacks after it (by overwriting net_outputs)."""

    def __init__(self, values):
        super().__init__()
        self.values = list(values)

    def on_train_epoch_end(self, run_context):
        run_context.original_args().net_outputs = Tensor(np.float32(self.values.pop(0)))


def test_reduce_lr_on_plateau():
    net, opt, model = _model()
    cb = train.ReduceLROnPlateau(monitor="loss", factor=0.5, patience=2, cooldown=1, min_lr=0.02)
    lrs = []
    record = train.LambdaCallback(on_train_epoch_end=lambda rc: lrs.append(float(opt.learning_rate.asnumpy())))
    x, y = make_data()
    # improvement, then a plateau: reduce at epoch 4, then (the cooldown epoch also counts, MindSpore's order) at
    # epochs 6 and 8, never below min_lr
    model.train(9, ArrayDataset(x, y), callbacks=[_Losses([1.0, 0.9, 0.95, 0.95, 0.95, 0.95, 0.95, 0.95, 0.95]), cb,
                                                   record])  # fmt: skip
    np.testing.assert_allclose(lrs, [0.1, 0.1, 0.1, 0.05, 0.05, 0.025, 0.025, 0.02, 0.02], rtol=1e-6)
    with pytest.raises(ValueError):
        train.ReduceLROnPlateau(factor=1.0)
    with pytest.raises(ValueError, match="mode"):
        train.ReduceLROnPlateau(mode="up")


def test_backup_and_restore(tmp_path):
    x, y = make_data()
    net, _, model = _model()
    cb = train.BackupAndRestore(str(tmp_path), delete_checkpoint=False)
    model.train(2, ArrayDataset(x, y), callbacks=[cb])
    backup = tmp_path / "backup.ckpt"
    assert backup.exists()
    saved = net.fc.weight.asnumpy().copy()
    net2, _, model2 = _model()

    class Peek(train.Callback):
        def on_train_begin(self, run_context):
            self.w = net2.fc.weight.asnumpy().copy()

    peek = Peek()
    model2.train(1, ArrayDataset(x, y), callbacks=[train.BackupAndRestore(str(tmp_path)), peek])
    np.testing.assert_allclose(peek.w, saved)  # restored before the first step
    assert not backup.exists()  # deleted at the end


def test_on_request_exit(tmp_path):
    x, y = make_data()
    net, _, model = _model()
    cb = train.OnRequestExit(save_mindir=False, directory=str(tmp_path), file_name="Net")
    steps = []

    class SendSignal(train.Callback):
        def on_train_step_end(self, run_context):
            steps.append(1)
            if len(steps) == 2:
                os.kill(os.getpid(), signal.SIGTERM)

    model.train(3, ArrayDataset(x, y), callbacks=[SendSignal(), cb])
    assert len(steps) == 2
    path = tmp_path / "rank_0" / "Net_train.ckpt"
    assert path.exists()
    np.testing.assert_allclose(ms.load_checkpoint(str(path))["fc.weight"].asnumpy(), net.fc.weight.asnumpy())
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    with pytest.raises(ValueError):
        train.OnRequestExit(sig=signal.SIGKILL)


def test_dataset_helper_and_connect():
    x, y = make_data()
    ds = ArrayDataset(x, y)
    helper = train.DatasetHelper(ds, dataset_sink_mode=False, epoch_num=2)
    batches = list(helper)
    assert len(batches) == len(helper) == 8
    np.testing.assert_array_equal(batches[4][0].asnumpy(), x[:12])

    net = nn.TrainOneStepCell(nn.WithLossCell(Linear(), CrossEntropy()), nn.SGD(Linear().trainable_params(), 0.1))
    seen = []

    class Count(nn.Cell):
        def construct(self, a, b):
            seen.append(a.asnumpy()[0, 0])
            return a.sum()

    sink = train.DatasetHelper(ds, dataset_sink_mode=True, sink_size=3, epoch_num=1)
    assert sink.sink_size() == 3 and len(sink) == 1
    connected = train.connect_network_with_dataset(Count(), sink)
    for inputs in sink:
        out = connected(*inputs)
    assert len(seen) == 3
    np.testing.assert_allclose(out.asnumpy(), x[24:36].sum(), rtol=1e-5)
    connected()  # continues across the epoch boundary
    assert seen[3] == x[36, 0] and seen[4] == x[0, 0]
    assert train.connect_network_with_dataset(net, helper) is net
    dtypes, shapes = sink.types_shapes()
    assert shapes == [(12, 4), (12,)]


def test_data_sink():
    x, y = make_data()
    calls = []

    def step(a, b):
        calls.append(a.asnumpy()[0, 0])
        return a.mean()

    fn = train.data_sink(step, ArrayDataset(x, y), sink_size=2)
    out = fn()
    assert calls == [x[0, 0], x[12, 0]]
    np.testing.assert_allclose(out.asnumpy(), x[12:24].mean(), rtol=1e-5)
    fn()
    fn()
    assert calls[-1] == x[12, 0]  # cycles through epochs


def test_format_conversion_and_async_load(tmp_path):
    net = Linear()
    ms.save_checkpoint(net, str(tmp_path / "net.ckpt"))
    train.ckpt_to_safetensors(str(tmp_path / "net.ckpt"), name_map={"fc.bias": "head.bias"})
    st = ms.load_checkpoint(str(tmp_path / "net.safetensors"), format="safetensors")
    assert set(st) == {"fc.weight", "head.bias"}
    np.testing.assert_array_equal(st["fc.weight"].asnumpy(), net.fc.weight.asnumpy())
    (tmp_path / "dir" / "rank_0").mkdir(parents=True)
    ms.save_checkpoint(net, str(tmp_path / "dir" / "rank_0" / "a.safetensors"), format="safetensors")
    train.safetensors_to_ckpt(str(tmp_path / "dir"), save_path=str(tmp_path / "out"))
    back = ms.load_checkpoint(str(tmp_path / "out" / "rank_0" / "a.ckpt"))
    np.testing.assert_array_equal(back["fc.bias"].asnumpy(), net.fc.bias.asnumpy())
    with pytest.raises(ValueError, match="rank"):
        train.ckpt_to_safetensors(str(tmp_path / "out" / "rank_0"))
    future = train.load_checkpoint_async(str(tmp_path / "net.ckpt"))
    other = Linear(seed=5)
    ms.load_param_into_net(other, future)
    np.testing.assert_array_equal(other.fc.weight.asnumpy(), net.fc.weight.asnumpy())
    assert train.async_ckpt_thread_status() in (True, False)


def test_reexports():
    import kiln.amp  # noqa: PLC0415

    assert train.build_train_network is kiln.amp.build_train_network
    assert train.export is ms.export and train.load is ms.load
    assert {"merge_sliced_parameter", "ReduceLROnPlateau", "absolute_import"} <= set(dir(train))


def test_strategy_helpers(tmp_path):
    import json  # noqa: PLC0415

    path = tmp_path / "strategy.json"
    path.write_text(json.dumps({"fc.weight": {"device_matrix": [2], "tensor_map": [0, -1]}}))
    layouts = train.build_searched_strategy(str(path))
    assert layouts["fc.weight"]["tensor_map"] == [0, -1]
    with pytest.raises(ValueError):
        train.build_searched_strategy(str(tmp_path / "missing.json"))
    ckpt = tmp_path / "a.ckpt"
    assert train.get_ckpt_path_with_strategy(str(ckpt), str(path)) is None
    ms.save_checkpoint(Linear(), str(ckpt))
    assert train.get_ckpt_path_with_strategy(str(ckpt), str(path)) == str(ckpt)
