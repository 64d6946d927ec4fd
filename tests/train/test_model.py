"""Model.train / eval / fit / predict in both modes, against a NumPy reference of the same training."""

import os
import re
import traceback

import numpy as np
import pytest

import kiln as ms
from kiln import Tensor, nn
from kiln import dataset as ds
from kiln.train import (
    Accuracy,
    Callback,
    CheckpointConfig,
    EarlyStopping,
    History,
    LearningRateScheduler,
    Loss,
    LossMonitor,
    Model,
    ModelCheckpoint,
    TimeMonitor,
    TrainOneStepCell,
    WithEvalCell,
    WithGradCell,
    WithLossCell,
    load_checkpoint,
    load_param_into_net,
)
from tests.train.helpers import (
    ArrayDataset,
    CrossEntropy,
    Linear,
    make_data,
    reference_steps,
    reference_training,
    set_mode,
)

MODES = [ms.PYNATIVE_MODE, ms.GRAPH_MODE]
MODE_IDS = ["pynative", "graph"]


@pytest.fixture(params=MODES, ids=MODE_IDS)
def mode(request):
    set_mode(request.param)
    yield request.param
    ms.set_context(mode=ms.PYNATIVE_MODE)


def _model(lr=0.1, momentum=0.9, metrics=None, seed=0):
    net = Linear(seed)
    opt = nn.Momentum(net.trainable_params(), learning_rate=lr, momentum=momentum)
    return net, Model(net, loss_fn=CrossEntropy(), optimizer=opt, metrics=metrics)


def test_train_matches_numpy_reference(mode, capsys):
    x, y = make_data()
    net, model = _model()
    w0, b0 = net.wb()
    model.train(3, ArrayDataset(x, y), callbacks=[LossMonitor(1)])
    w, b, losses = reference_training(w0, b0, x, y, lr=0.1, momentum=0.9, epochs=3, batch_size=12)
    np.testing.assert_allclose(net.wb()[0], w, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(net.wb()[1], b, rtol=1e-4, atol=1e-5)
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 12
    for i, line in enumerate(lines):
        m = re.fullmatch(r"epoch: (\d+) step: (\d+), loss is (\S+)", line)
        assert m and (int(m[1]), int(m[2])) == (i // 4 + 1, i % 4 + 1)
        assert float(m[3]) == pytest.approx(losses[i], rel=1e-4)


def test_graph_mode_compiles_the_whole_step_once():
    set_mode(ms.GRAPH_MODE)
    try:
        x, y = make_data()
        _, model = _model()
        model.train(2, ArrayDataset(x, y))
        # The training step (forward, gradients, optimizer update) is one executable, compiled once and reused.
        cache = model.train_network.__dict__.get("_kiln_graph_cache")
        assert cache is not None and cache.compiles == 1
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)


def test_callback_params_and_order(mode):
    seen = []

    class Spy(Callback):
        def on_train_begin(self, rc):
            cb = rc.original_args()
            seen.append(("begin", cb.epoch_num, cb.batch_num, cb.mode, type(cb.train_network).__name__))

        def on_train_step_end(self, rc):
            cb = rc.original_args()
            assert isinstance(cb.net_outputs, Tensor) and cb.net_outputs.shape == ()
            assert isinstance(cb.optimizer, nn.Momentum) and isinstance(cb.loss_fn, nn.SoftmaxCrossEntropyWithLogits)
            seen.append(("step", cb.cur_epoch_num, cb.cur_step_num))

        def on_train_end(self, rc):
            seen.append(("end",))

    x, y = make_data(24)
    _, model = _model()
    model.train(3, ArrayDataset(x, y), callbacks=Spy(), initial_epoch=1)
    assert seen == [("begin", 2, 2, "train", "TrainOneStepCell"), ("step", 2, 3), ("step", 2, 4), ("step", 3, 5),
                    ("step", 3, 6), ("end",)]  # fmt: skip


def test_fit_evaluates_and_prints(mode, capsys):
    x, y = make_data()
    xv, yv = make_data(24, seed=5)
    net, model = _model(metrics={"Accuracy": Accuracy(), "loss": Loss()})
    history = History()
    model.fit(2, ArrayDataset(x, y), ArrayDataset(xv, yv), callbacks=[LossMonitor(4), history])
    out = capsys.readouterr().out.splitlines()
    assert [line.split(",")[0] for line in out] == ["epoch: 1 step: 4", "Eval result: epoch 1", "epoch: 2 step: 4",
                                                   "Eval result: epoch 2"]  # fmt: skip
    logits = xv @ net.wb()[0] + net.wb()[1]
    acc = float((logits.argmax(1) == yv).mean())
    assert history.history["Accuracy"][-1] == pytest.approx(acc)
    assert f"'Accuracy': {history.history['Accuracy'][-1]}" in out[-1]
    assert model.eval(ArrayDataset(xv, yv))["Accuracy"] == pytest.approx(acc)


def test_fit_valid_frequency_and_early_stopping(mode):
    x, y = make_data()
    evals = []

    class OnEval(Callback):
        def on_eval_end(self, rc):
            evals.append(rc.original_args().cur_epoch_num)

    _, model = _model(lr=0.0, metrics={"acc": Accuracy()})  # lr 0: the accuracy never improves
    stop = EarlyStopping(monitor="acc", patience=2)
    model.fit(10, ArrayDataset(x, y), ArrayDataset(x, y), valid_frequency=1, callbacks=[OnEval(), stop])
    assert evals == [1, 2, 3] and stop.stopped_epoch == 3
    evals.clear()
    _, model = _model(metrics={"acc": Accuracy()})
    model.fit(4, ArrayDataset(x, y), ArrayDataset(x, y), valid_frequency=[2, 3], callbacks=[OnEval()])
    assert evals == [2, 3]


def test_eval_loss_is_reported_to_callbacks(mode):
    x, y = make_data()
    results = []

    class Grab(Callback):
        def on_train_epoch_end(self, rc):
            results.append(dict(rc.original_args().eval_results))

    net, model = _model(metrics={"acc": Accuracy()})
    model.fit(1, ArrayDataset(x, y), ArrayDataset(x, y), callbacks=[Grab()])
    logits = x.astype(np.float64) @ net.wb()[0] + net.wb()[1]
    logits -= logits.max(1, keepdims=True)
    logp = logits - np.log(np.exp(logits).sum(1, keepdims=True))
    batch_losses = [-logp[i * 12 : (i + 1) * 12][np.arange(12), y[i * 12 : (i + 1) * 12]].mean() for i in range(4)]
    assert results[0]["eval_loss"] == pytest.approx(np.mean(batch_losses), rel=1e-5)


def test_predict(mode):
    net, model = _model()
    x = np.random.default_rng(3).standard_normal((5, 4)).astype(np.float32)
    out = model.predict(Tensor(x))
    np.testing.assert_allclose(out.asnumpy(), x @ net.wb()[0] + net.wb()[1], rtol=1e-5, atol=1e-6)


def test_checkpoints_during_training_reload(mode, tmp_path):
    x, y = make_data()
    net, model = _model()
    config = CheckpointConfig(save_checkpoint_steps=4, keep_checkpoint_max=2)
    ckpt = ModelCheckpoint(prefix="lin", directory=str(tmp_path), config=config)
    model.train(3, ArrayDataset(x, y), callbacks=[ckpt, TimeMonitor()])
    assert sorted(os.listdir(tmp_path)) == ["lin-2_4.ckpt", "lin-3_4.ckpt"]
    params = load_checkpoint(ckpt.latest_ckpt_file_name)
    assert {"fc.weight", "fc.bias", "learning_rate", "momentum", "moments.fc.weight", "global_step"} <= set(params)
    fresh = Linear(seed=9)
    param_not_load, _ = load_param_into_net(fresh, params)
    assert param_not_load == []
    np.testing.assert_array_equal(fresh.fc.weight.asnumpy(), net.fc.weight.asnumpy())


def test_nan_loss_stops_training(mode, tmp_path):
    x, y = make_data()
    x[20] = np.inf  # the second batch poisons the loss
    _, model = _model()
    ckpt = ModelCheckpoint(prefix="nan", directory=str(tmp_path), config=CheckpointConfig(save_checkpoint_steps=1))
    with pytest.raises(ValueError, match=r"loss became nan at epoch 1, step 2"):
        model.train(2, ArrayDataset(x, y), callbacks=[LossMonitor(), ckpt])
    assert sorted(os.listdir(tmp_path)) == ["nan-1_1.ckpt"]


def test_learning_rate_scheduler_changes_the_compiled_step(mode):
    x, y = make_data()
    net, model = _model()
    w0, b0 = net.wb()
    # After the first step the learning rate is 0: only step 1 moves the weights (in Graph mode too, so the
    # rate must be read from its Parameter at every step, not baked into the executable).
    model.train(1, ArrayDataset(x, y), callbacks=LearningRateScheduler(lambda lr, step: 0.0))
    w, b, _ = reference_steps(w0, b0, x, y, 0.1, 0.9, [0], 12)
    np.testing.assert_allclose(net.wb()[0], w, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(net.wb()[1], b, rtol=1e-5, atol=1e-6)


def test_request_stop_mid_epoch(mode):
    steps = []

    class StopAt3(Callback):
        def on_train_step_end(self, rc):
            steps.append(rc.original_args().cur_step_num)
            if len(steps) == 3:
                rc.request_stop()

    x, y = make_data()
    _, model = _model()
    model.train(5, ArrayDataset(x, y), callbacks=StopAt3())
    assert steps == [1, 2, 3]


def test_sink_mode_gives_the_same_training(mode):
    x, y = make_data()
    net_a, model_a = _model()
    model_a.train(2, ArrayDataset(x, y))
    net_b, model_b = _model()
    model_b.train(2, ArrayDataset(x, y), dataset_sink_mode=True)
    np.testing.assert_allclose(net_b.wb()[0], net_a.wb()[0], rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("steps_per_call", ["4", "2"])
def test_sink_size_continues_through_the_data(mode, monkeypatch, steps_per_call):
    monkeypatch.setenv("KILN_SINK_STEPS", steps_per_call)
    x, y = make_data()
    data = ds.NumpySlicesDataset({"x": x, "y": y}, shuffle=False).batch(12)
    net, model = _model()
    w0, b0 = net.wb()
    model.train(3, data, dataset_sink_mode=True, sink_size=3)
    # Three "epochs" of 3 steps over a 4-batch dataset: the data continues where the last epoch stopped.
    w, b, _ = reference_steps(w0, b0, x, y, 0.1, 0.9, [0, 1, 2, 3, 0, 1, 2, 3, 0], 12)
    np.testing.assert_allclose(net.wb()[0], w, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(net.wb()[1], b, rtol=1e-4, atol=1e-5)


def test_sink_size_sets_the_epoch_length():
    x, y = make_data()
    steps = []

    class Count(Callback):
        def on_train_epoch_end(self, rc):
            steps.append(rc.original_args().cur_step_num)

    _, model = _model()
    model.train(3, ArrayDataset(x, y), callbacks=Count(), dataset_sink_mode=True, sink_size=3)
    assert steps == [3, 6, 9]


class _Square(nn.Cell):
    def construct(self, v):
        return v * v


@pytest.mark.parametrize("sink", [False, True])
@pytest.mark.parametrize("init_step", [10, 15])
def test_train_resumes_at_the_dataset_init_step(mode, sink, init_step):
    # MindSpore's resume: set_init_step(k) and initial_epoch=k // size run the steps k.. of the full run (a step in
    # the middle of an epoch resumes there; the epoch ends with the data). The full run's per-step losses are the
    # NumPy squares of the rows; Kiln ran no step at all (the iterator counted epochs from the resumed one).
    rows = np.arange(10, dtype=np.float32)
    losses = []

    class Losses(Callback):
        def on_train_step_end(self, rc):
            losses.append(float(rc.original_args().net_outputs.asnumpy()))

    data = ds.NumpySlicesDataset(rows, shuffle=False)
    Model(_Square()).train(2, data, callbacks=Losses(), dataset_sink_mode=sink)
    full = np.concatenate([rows, rows]) ** 2
    np.testing.assert_array_equal(losses, full)
    losses.clear()
    data.set_init_step(init_step)
    Model(_Square()).train(2, data, callbacks=Losses(), dataset_sink_mode=sink, initial_epoch=init_step // 10)
    np.testing.assert_array_equal(losses, full[init_step:])


def test_sink_mode_resumed_mid_epoch_ends_with_the_data():
    # GRAPH_MODE sink runs chunks of steps: a resumed epoch of 5 rows is 5 steps, not 5 more from the next epoch.
    set_mode(ms.GRAPH_MODE)
    try:
        x, y = make_data()
        data = ds.NumpySlicesDataset({"x": x, "y": y}, shuffle=False).batch(4)  # 12 batches an epoch
        steps = []

        class Count(Callback):
            def on_train_end(self, rc):
                steps.append(rc.original_args().cur_step_num)

        data.set_init_step(19)
        _, model = _model()
        model.train(2, data, callbacks=Count(), dataset_sink_mode=True, initial_epoch=1)
        assert steps == [12 + 5]  # the 12 steps of epoch 1, then rows 7..11 of epoch 2
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)


def test_without_optimizer_and_without_loss():
    x, y = make_data()
    net = Linear()
    w0 = net.wb()[0]
    Model(WithLossCell(net, CrossEntropy())).train(1, ArrayDataset(x, y))  # forward only
    np.testing.assert_array_equal(net.wb()[0], w0)
    opt = nn.Momentum(net.trainable_params(), 0.1, 0.9)
    Model(TrainOneStepCell(WithLossCell(net, CrossEntropy()), opt)).train(1, ArrayDataset(x, y))
    assert not np.array_equal(net.wb()[0], w0)


def test_with_grad_cell(mode):
    x, y = make_data(12)
    net = Linear()
    grads = WithGradCell(net, CrossEntropy(), sens=2.0)(Tensor(x), Tensor(y))
    w0, b0 = net.wb()
    w1, b1, _ = reference_training(w0, b0, x, y, lr=1.0, momentum=0.0, epochs=1, batch_size=12)
    np.testing.assert_allclose(grads[0].asnumpy().T, 2 * (w0 - w1), rtol=1e-4, atol=1e-6)
    np.testing.assert_allclose(grads[1].asnumpy(), 2 * (b0 - b1), rtol=1e-4, atol=1e-6)


def test_custom_eval_network_and_indexes():
    x, y = make_data()
    net = Linear()
    model = Model(net, metrics={"acc": Accuracy()}, eval_network=WithEvalCell(net, CrossEntropy()),
                  eval_indexes=[0, 1, 2])  # fmt: skip
    acc = model.eval(ArrayDataset(x, y))["acc"]
    assert acc == pytest.approx(float(((x @ net.wb()[0] + net.wb()[1]).argmax(1) == y).mean()))


def test_bad_input_is_clear():
    x, y = make_data()
    _, model = _model()
    with pytest.raises(TypeError, match="create_tuple_iterator"):
        model.train(1, [(x, y)])
    with pytest.raises(ValueError, match="a row has 3 columns"):
        model.train(1, ArrayDataset(x, y, columns=3))
    with pytest.raises(ValueError, match="'epoch' must be a positive int"):
        model.train(0, ArrayDataset(x, y))
    with pytest.raises(ValueError, match="'initial_epoch'"):
        model.train(2, ArrayDataset(x, y), initial_epoch=2)
    with pytest.raises(ValueError, match="empty"):
        model.train(1, ArrayDataset(x[:0], y[:0]))
    with pytest.raises(ValueError, match="needs metrics"):
        model.eval(ArrayDataset(x, y))
    with pytest.raises(ValueError, match="'metrics' needs an evaluation network"):
        Model(Linear(), metrics={"acc": Accuracy()})
    with pytest.raises(TypeError, match="'network' must be a Cell"):
        Model(lambda v: v)
    with pytest.raises(ValueError, match="amp_level"):
        Model(Linear(), amp_level="O9")


class _RaisesAtStepEnd(ms.train.Callback):
    def on_train_step_end(self, run_context):
        raise RuntimeError("the user's callback failed")  # the callback's line


def _kiln_frames(err: BaseException) -> list[str]:
    kiln_dir = os.path.dirname(os.path.abspath(ms.__file__)) + os.sep
    return [
        f.filename for f in traceback.extract_tb(err.__traceback__) if os.path.abspath(f.filename).startswith(kiln_dir)
    ]


@pytest.mark.parametrize(
    "labels, callbacks, kind", [(np.float32, None, TypeError), (np.int32, _RaisesAtStepEnd, RuntimeError)]
)
def test_a_training_error_shows_the_users_frames(labels, callbacks, kind, monkeypatch):
    """A bad dataset column (float labels for a sparse loss) fails with one Kiln frame, where Model.train was
    entered (it was four: train, _run_train, _epoch, the Cell's call); a user's callback keeps its own frame."""
    monkeypatch.delenv("KILN_DEBUG", raising=False)
    net = nn.Dense(3, 2)
    data = {"x": np.ones((4, 3), np.float32), "y": np.zeros((4,), labels)}
    data_set = ms.dataset.NumpySlicesDataset(data, shuffle=False).batch(2)
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    model = ms.train.Model(net, loss, nn.SGD(net.trainable_params(), 0.1))
    with pytest.raises(kind) as info:
        model.train(1, data_set, callbacks=callbacks() if callbacks else None)
    assert len(_kiln_frames(info.value)) <= 1, "".join(traceback.format_exception(info.value))
    if callbacks:
        lines = [f.line for f in traceback.extract_tb(info.value.__traceback__)]
        assert "raise RuntimeError(\"the user's callback failed\")  # the callback's line" in lines
