"""Callbacks driven through a simulated run: output formats, NaN stop, checkpoint naming and pruning, early stop;
ReduceLROnPlateau, BackupAndRestore and OnRequestExit through `Model.train`."""

import os
import re
import signal

import numpy as np
import pytest

import kiln as ms
from kiln import Parameter, Tensor, nn, train
from kiln.train import (
    Callback,
    CheckpointConfig,
    EarlyStopping,
    History,
    LambdaCallback,
    LearningRateScheduler,
    LossMonitor,
    ModelCheckpoint,
    ProgressBar,
    RunContext,
    TimeMonitor,
    load_checkpoint,
)
from kiln.train.callback._callback import CallbackManager, InternalCallbackParam
from kiln.train.callback._progress import progress_enabled
from tests.train.helpers import ArrayDataset, CrossEntropy, Linear, make_data


class Tiny(nn.Cell):
    def __init__(self):
        super().__init__()
        self.w = Parameter(Tensor(np.arange(3, dtype=np.float32)), name="w")


class FakeOptimizer(nn.Cell):
    def __init__(self, lr):
        super().__init__()
        self.learning_rate = Parameter(Tensor(np.float32(lr)), name="learning_rate")


def simulate(callbacks, epochs=2, steps=4, losses=None, eval_results=None, network=None, optimizer=None):
    """Drive the train hooks like Model.train does; losses[i] is the loss of global step i+1."""
    network = network or Tiny()
    cb = InternalCallbackParam(
        cur_step_num=0, batch_num=steps, epoch_num=epochs, train_network=network, mode="train",
        optimizer=optimizer, dataset_sink_mode=False,
    )  # fmt: skip
    ctx = RunContext(cb)
    with CallbackManager(callbacks) as manager:
        manager.on_train_begin(ctx)
        for epoch in range(1, epochs + 1):
            cb.cur_epoch_num = epoch
            manager.on_train_epoch_begin(ctx)
            for _ in range(steps):
                cb.cur_step_num += 1
                manager.on_train_step_begin(ctx)
                loss = losses[cb.cur_step_num - 1] if losses is not None else 1.0 / cb.cur_step_num
                cb.net_outputs = Tensor(np.float32(loss))
                manager.on_train_step_end(ctx)
                if ctx.get_stop_requested():
                    break
            if eval_results is not None:
                cb.metrics = {"acc": eval_results[epoch - 1]}
                cb.eval_results = {"acc": eval_results[epoch - 1], "eval_loss": 1 - eval_results[epoch - 1]}
            manager.on_train_epoch_end(ctx)
            cb.pop("metrics", None)
            cb.pop("eval_results", None)
            if ctx.get_stop_requested():
                break
        manager.on_train_end(ctx)
    return cb


def test_legacy_hooks_are_called_by_the_new_ones():
    calls = []

    class Legacy(Callback):
        def begin(self, rc):
            calls.append("begin")

        def epoch_begin(self, rc):
            calls.append("epoch_begin")

        def step_begin(self, rc):
            calls.append("step_begin")

        def step_end(self, rc):
            calls.append("step_end")

        def epoch_end(self, rc):
            calls.append("epoch_end")

        def end(self, rc):
            calls.append("end")

    simulate([Legacy()], epochs=1, steps=2)
    assert calls == ["begin", "epoch_begin"] + ["step_begin", "step_end"] * 2 + ["epoch_end", "end"]
    rc = RunContext({"a": 1})
    Legacy().on_eval_step_end(rc)
    assert calls[-1] == "step_end"


def test_loss_monitor_format(capsys):
    simulate(LossMonitor(2), epochs=2, steps=4, losses=[0.5, 0.25, 0.125, 0.0625, 3.0, 2.0, 1.0, 0.1])
    lines = capsys.readouterr().out.splitlines()
    expected = [0.25, 0.0625, 2.0, 0.1]
    steps = [(1, 2), (1, 4), (2, 2), (2, 4)]
    assert lines == [f"epoch: {e} step: {s}, loss is {float(np.float32(v))}" for (e, s), v in zip(steps, expected)]


def test_loss_monitor_prints_eval_results(capsys):
    simulate(LossMonitor(100), epochs=2, steps=1, eval_results=[0.5, 0.75])
    assert capsys.readouterr().out.splitlines() == [
        "Eval result: epoch 1, metrics: {'acc': 0.5}",
        "Eval result: epoch 2, metrics: {'acc': 0.75}",
    ]


def test_loss_monitor_writes_to_whatever_stdout_is(monkeypatch):
    """Programs capture the output with a write-only object in sys.stdout (MindSpore's own tests do): no flush."""

    class WriteOnly:
        def __init__(self):
            self.text = ""

        def write(self, s):
            self.text += s

    out = WriteOnly()
    monkeypatch.setattr("sys.stdout", out)
    simulate(LossMonitor(100), epochs=1, steps=1, eval_results=[0.5])
    assert out.text == "Eval result: epoch 1, metrics: {'acc': 0.5}\n"


@pytest.mark.parametrize("bad", [float("nan"), float("inf")])
def test_loss_monitor_stops_on_nan(bad):
    with pytest.raises(ValueError, match=r"loss became (nan|inf) at epoch 2, step 1"):
        simulate(LossMonitor(), epochs=3, steps=2, losses=[1.0, 0.5, bad, 0.1, 0.1, 0.1])


def test_loss_monitor_validates():
    with pytest.raises(ValueError, match="per_print_times"):
        LossMonitor(-1)


def test_time_monitor_format(capsys):
    simulate(TimeMonitor(4, data_time=True), epochs=2, steps=4)
    lines = capsys.readouterr().out.splitlines()
    pat = r"Train epoch time: \d+\.\d{3} ms, per step time: \d+\.\d{3} ms \(data time: \d+\.\d{3} ms\)"
    assert len(lines) == 2 and all(re.fullmatch(pat, line) for line in lines)


def test_model_checkpoint_naming_pruning_and_final_save(tmp_path):
    config = CheckpointConfig(save_checkpoint_steps=3, keep_checkpoint_max=2, append_info=["epoch_num", "step_num"])
    ckpt = ModelCheckpoint(prefix="net", directory=str(tmp_path / "ck"), config=config)
    simulate([ckpt], epochs=2, steps=4)
    # Steps 3 (1_3) and 6 (2_2) by the schedule, 8 (2_4) at the end; only the newest two are kept.
    assert sorted(os.listdir(tmp_path / "ck")) == ["net-2_2.ckpt", "net-2_4.ckpt"]
    assert ckpt.latest_ckpt_file_name.endswith("net-2_4.ckpt")
    loaded = load_checkpoint(ckpt.latest_ckpt_file_name)
    assert int(loaded["epoch_num"].asnumpy()) == 2 and int(loaded["step_num"].asnumpy()) == 8
    np.testing.assert_array_equal(loaded["w"].asnumpy(), np.arange(3, dtype=np.float32))
    # A second callback in the same directory does not overwrite the first run's files.
    again = ModelCheckpoint(prefix="net", directory=str(tmp_path / "ck"), config=config)
    simulate([again], epochs=1, steps=3)
    assert "net_1-1_3.ckpt" in os.listdir(tmp_path / "ck")


def test_model_checkpoint_per_epoch_like_the_tutorial(tmp_path):
    config = CheckpointConfig(save_checkpoint_steps=4, keep_checkpoint_max=10)
    simulate([ModelCheckpoint("mnist", str(tmp_path), config)], epochs=3, steps=4)
    assert sorted(os.listdir(tmp_path)) == ["mnist-1_4.ckpt", "mnist-2_4.ckpt", "mnist-3_4.ckpt"]


def test_model_checkpoint_safetensors_and_saved_network(tmp_path):
    other = Tiny()
    other.w.set_data(Tensor(np.full(3, 7.0, np.float32)))
    config = CheckpointConfig(save_checkpoint_steps=2, saved_network=other, format="safetensors")
    simulate([ModelCheckpoint("s", str(tmp_path), config)], epochs=1, steps=2)
    loaded = load_checkpoint(str(tmp_path / "s-1_2.safetensors"), format="safetensors")
    np.testing.assert_array_equal(loaded["w"].asnumpy(), np.full(3, 7.0, np.float32))


def test_checkpoint_config_validation():
    with pytest.raises(ValueError, match="cannot all be 0"):
        CheckpointConfig(0, 0, 0, 0)
    with pytest.raises(ValueError, match=">= 0"):
        CheckpointConfig(save_checkpoint_steps=-1)
    with pytest.raises(ValueError, match="append_info"):
        CheckpointConfig(append_info=["bogus"])
    with pytest.raises(ValueError, match="without '/'"):
        ModelCheckpoint(prefix="a/b")
    with pytest.raises(TypeError, match="CheckpointConfig"):
        ModelCheckpoint(config={"steps": 1})
    c = CheckpointConfig(save_checkpoint_steps=5, save_checkpoint_seconds=10, keep_checkpoint_max=0)
    assert c.save_checkpoint_seconds is None and c.keep_checkpoint_max == 1


def test_early_stopping_patience_and_restore():
    net = Tiny()
    values = []

    def mutate(rc):  # every epoch changes the weights; epoch 2 is the best
        cb = rc.original_args()
        net.w.set_data(Tensor(np.full(3, cb.cur_epoch_num, np.float32)))
        values.append(cb.cur_epoch_num)

    stop = EarlyStopping(monitor="acc", patience=2, restore_best_weights=True, verbose=True)
    cb = simulate(
        [LambdaCallback(on_train_epoch_end=mutate), stop], epochs=6, steps=1, eval_results=[0.5, 0.9, 0.8, 0.7, 1, 1],
        network=net,
    )  # fmt: skip
    assert stop.stopped_epoch == 4 and cb.cur_epoch_num == 4 and stop.best == 0.9
    np.testing.assert_array_equal(net.w.asnumpy(), np.full(3, 2.0, np.float32))


def test_early_stopping_on_training_loss_min_delta():
    stop = EarlyStopping(monitor="loss", patience=1, min_delta=0.1)
    cb = simulate([stop], epochs=5, steps=1, losses=[1.0, 0.5, 0.45, 0.1, 0.05])
    assert stop.stopped_epoch == 3 and cb.cur_epoch_num == 3
    with pytest.warns(UserWarning, match="'eval_loss'"):
        simulate([EarlyStopping()], epochs=1, steps=1)
    with pytest.raises(ValueError, match="mode"):
        EarlyStopping(mode="up")


def test_learning_rate_scheduler():
    opt = FakeOptimizer(0.1)
    seen = []

    def schedule(lr, step):
        seen.append((round(lr, 6), step))
        return lr * 0.5 if step % 2 == 0 else lr

    simulate([LearningRateScheduler(schedule)], epochs=1, steps=4, optimizer=opt)
    assert seen == [(0.1, 1), (0.1, 2), (0.05, 3), (0.05, 4)]
    assert float(opt.learning_rate.asnumpy()) == pytest.approx(0.025)
    with pytest.raises(TypeError, match="scalar Parameter"):
        simulate([LearningRateScheduler(schedule)], epochs=1, steps=1, optimizer=None)


def test_history():
    h = History()
    simulate([h], epochs=2, steps=2, losses=[4.0, 3.0, 2.0, 1.0], eval_results=[0.1, 0.2])
    assert h.epoch == {"epoch": [1, 2]}
    assert h.history == {"net_output": [3.0, 1.0], "acc": [0.1, 0.2]}


def test_callback_list_validation():
    with pytest.raises(TypeError, match="item 1 is int"):
        CallbackManager([LossMonitor(), 3])
    with pytest.raises(TypeError, match="LambdaCallback got an unknown hook"):
        LambdaCallback(on_step=print)


def test_progress_bar_switch(monkeypatch, capsys):
    monkeypatch.setenv("KILN_PROGRESS", "0")
    assert not progress_enabled()
    monkeypatch.setenv("KILN_PROGRESS", "1")
    assert progress_enabled()
    monkeypatch.delenv("KILN_PROGRESS")
    assert not progress_enabled()  # pytest's captured stdout is not a terminal
    simulate([ProgressBar(refresh_every=1), LossMonitor(2)], epochs=1, steps=4)
    out = capsys.readouterr()
    assert out.out.splitlines() == ["epoch: 1 step: 2, loss is 0.5", "epoch: 1 step: 4, loss is 0.25"]
    assert "epoch 1/1" in out.err


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
