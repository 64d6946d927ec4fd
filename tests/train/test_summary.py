"""SummaryRecord writes queued values per step; SummaryCollector records a Model's loss, learning rate, metrics."""

import warnings

import numpy as np
import pytest

import kiln
from kiln import nn
from kiln._core import unsupported
from kiln.train import Model
from kiln.train.callback import SummaryCollector
from kiln.train.summary import SummaryRecord
from kiln.train.summary.summary_record import read_summary


def test_record_writes_queued_values_for_the_step(tmp_path):
    with SummaryRecord(str(tmp_path)) as record:
        record.add_value("scalar", "loss", kiln.Tensor(np.float32(0.5)))
        record.add_value("tensor", "w", kiln.Tensor(np.arange(6, dtype=np.float32).reshape(2, 3)))
        assert record.record(3) is True
        record.set_mode("eval")
        record.add_value("scalar", "acc", np.float64(0.75))
        record.record(4)
        path = record.log_dir
    rows = read_summary(path)
    assert [(r["step"], r["mode"], r["plugin"], r["tag"]) for r in rows] == [
        (3, "train", "scalar", "loss"), (3, "train", "tensor", "w"), (4, "eval", "scalar", "acc"),
    ]  # fmt: skip
    assert rows[0]["value"] == 0.5 and rows[2]["value"] == 0.75
    np.testing.assert_array_equal(rows[1]["value"], np.arange(6, dtype=np.float32).reshape(2, 3))
    assert rows[1]["value"].dtype == np.float32


def test_record_checks_its_arguments(tmp_path):
    record = SummaryRecord(str(tmp_path), max_file_size=1)
    with pytest.raises(ValueError, match="unknown plugin"):
        record.add_value("audio", "x", 1.0)
    with pytest.raises(ValueError, match="not one value"):
        record.add_value("scalar", "x", np.ones(2))
    with pytest.raises(ValueError, match="4-D"):
        record.add_value("image", "x", np.ones((2, 2)))
    with pytest.raises(TypeError):
        record.record(1.5)
    record.add_value("scalar", "x", 1.0)
    assert record.record(1) is True
    record.flush()
    record.add_value("scalar", "x", 2.0)
    assert record.record(2) is False  # the file reached max_file_size
    record.close()
    assert [r["value"] for r in read_summary(record.log_dir)] == [1.0]


class _Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.dense = nn.Dense(3, 1)

    def construct(self, x):
        return self.dense(x)


def _dataset(n: int):
    rng = np.random.default_rng(0)
    x = rng.standard_normal((n, 3)).astype(np.float32)
    y = x.sum(axis=1, keepdims=True).astype(np.float32)
    return kiln.dataset.NumpySlicesDataset((x, y), column_names=["x", "y"], shuffle=False).batch(2)


def test_collector_records_loss_and_learning_rate(tmp_path):
    net = _Net()
    model = Model(net, nn.MSELoss(), nn.Momentum(net.trainable_params(), 0.01, 0.9))
    collector = SummaryCollector(str(tmp_path), collect_freq=2)
    model.train(2, _dataset(8), callbacks=[collector])  # 4 steps an epoch
    files = list(tmp_path.iterdir())
    assert len(files) == 1
    rows = read_summary(str(files[0]))
    losses = [(r["step"], r["value"]) for r in rows if r["tag"] == "loss"]
    assert [step for step, _ in losses] == [1, 2, 4, 6, 8]
    assert all(np.isfinite(v) for _, v in losses)
    lrs = [r["value"] for r in rows if r["tag"] == "learning_rate"]
    assert lrs == pytest.approx([0.01] * 5)


def test_collector_checks_its_arguments(tmp_path):
    with pytest.raises(ValueError):
        SummaryCollector(str(tmp_path), collect_freq=0)
    with pytest.raises(ValueError):
        SummaryCollector("")
    with pytest.raises(TypeError):
        SummaryCollector(str(tmp_path), collect_specified_data=["loss"])


def test_options_kiln_does_not_act_on_warn_once(tmp_path, monkeypatch):
    monkeypatch.setattr(unsupported, "_warned", set())
    with pytest.warns(UserWarning, match="export_options=tensor_format has no effect"):
        record = SummaryRecord(str(tmp_path), export_options={"tensor_format": "npy"})
    with record:
        record.add_value("scalar", "loss", np.float32(1.0))
        with pytest.warns(UserWarning, match="train_network=.* has no effect in Kiln .its summary records no graph"):
            record.record(1, train_network=nn.Dense(1, 1))
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            record.record(2, train_network=nn.Dense(1, 1))  # said once
        path = record.log_dir
    assert [r["step"] for r in read_summary(path)] == [1]
