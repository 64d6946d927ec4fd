"""`kiln demo`: both models train in both modes to a useful accuracy, the two modes agree, the table and the
figures come out."""

import contextlib
import io
import re

import numpy as np
import pytest

import kiln
from kiln import demo
from kiln.__main__ import main
from kiln.demo.lenet import LeNet5
from kiln.demo.train import RunResult, max_param_difference
from kiln.demo.transformer import DigitTransformer
from kiln.train import load_checkpoint, load_param_into_net

PNG = b"\x89PNG\r\n\x1a\n"
ROW = re.compile(
    r"^(?P<model>LeNet5|Transformer) +(?P<mode>PyNative|Graph) +(?P<ms>[\d.]+) ms +(?P<speedup>[\d.]+)x"
    r" +(?P<compile>[\d.]+) s +(?P<first>[\d.]+) s +(?P<loss>[\d.]+) +(?P<acc>[\d.]+)$",
    re.M,
)
DIFF = re.compile(r"^(LeNet5|Transformer): max \|parameter difference\| between PyNative and Graph .*: (\S+)$", re.M)


@pytest.fixture(scope="module")
def demo_run(tmp_path_factory):
    """One demo run with one epoch per model and mode (the figures below are checked on it)."""
    out_dir = tmp_path_factory.mktemp("demo")
    mp = pytest.MonkeyPatch()
    mp.setenv("KILN_PROGRESS", "0")
    buf = io.StringIO()
    try:
        with contextlib.redirect_stdout(buf):
            status = main(["demo", "--epochs", "1", "--out", str(out_dir)])
    finally:
        mp.undo()
    return status, buf.getvalue(), out_dir


def test_demo_exits_cleanly_and_restores_pynative(demo_run):
    status, _, _ = demo_run
    assert status == 0
    assert kiln.get_context("mode") == kiln.PYNATIVE_MODE


def test_table_has_every_model_and_mode(demo_run):
    _, out, _ = demo_run
    rows = {(m["model"], m["mode"]): m for m in ROW.finditer(out)}
    assert set(rows) == {(a, b) for a in ("LeNet5", "Transformer") for b in ("PyNative", "Graph")}, out
    for (model, mode), m in rows.items():
        # compile may exceed the first step: it counts the wait for the optimised programs after it too
        assert float(m["ms"]) > 0 and float(m["first"]) > 0 and float(m["compile"]) >= 0
        if mode == "PyNative":
            assert m["speedup"] == "1.0"
        else:  # the speedup printed is the ratio of the printed step times
            base = float(rows[(model, "PyNative")]["ms"])
            assert float(m["speedup"]) == pytest.approx(base / float(m["ms"]), rel=0.06, abs=0.06)


def test_accuracy_after_one_epoch(demo_run):
    _, out, _ = demo_run
    for m in ROW.finditer(out):
        assert float(m["acc"]) > 0.6, m.group(0)  # 10 classes: chance is 0.1
        assert float(m["loss"]) < 1.6, m.group(0)  # ln(10) = 2.30 at the start


def test_both_modes_compute_the_same_training(demo_run):
    _, out, _ = demo_run
    rows = {(m["model"], m["mode"]): m for m in ROW.finditer(out)}
    diffs = dict(DIFF.findall(out))
    assert set(diffs) == {"LeNet5", "Transformer"}
    # One epoch: LeNet5 ends ~1e-6 apart, the transformer ~3e-4 (Adam normalises tiny gradient differences).
    limits = {"LeNet5": 1e-4, "Transformer": 2e-3}
    for model, diff in diffs.items():
        assert float(diff) < limits[model], (model, diff)
        assert rows[(model, "PyNative")]["acc"] == rows[(model, "Graph")]["acc"]


def test_figures_and_checkpoints_are_written(demo_run):
    _, out, out_dir = demo_run
    for name in ("loss_curves.png", "step_times.png"):
        assert f"{out_dir / name}" in out
        assert (out_dir / name).read_bytes()[:8] == PNG
    for name, net in (("lenet5_digits.ckpt", LeNet5()), ("transformer_digits.ckpt", DigitTransformer())):
        param_not_load, _ = load_param_into_net(net, load_checkpoint(str(out_dir / name)))
        assert param_not_load == []
        assert all(np.isfinite(p.asnumpy()).all() for p in net.trainable_params())


def test_demo_reports_unavailable_graph_mode(tmp_path, capsys, monkeypatch):
    real = demo.train

    def no_graph(spec, mode, *args, **kwargs):
        if mode == kiln.GRAPH_MODE:
            raise RuntimeError("the graph compiler is not available")
        return real(spec, mode, *args, **kwargs)

    monkeypatch.setenv("KILN_PROGRESS", "0")
    monkeypatch.setattr(demo, "train", no_graph)
    assert demo.run_demo(epochs=1, out_dir=str(tmp_path), models=("lenet",)) == 0
    out = capsys.readouterr().out
    assert "LeNet5: Graph mode is unavailable: RuntimeError: the graph compiler is not available" in out
    assert re.search(r"^LeNet5 +PyNative +[\d.]+ ms", out, re.M) and not re.search("^LeNet5 +Graph", out, re.M)
    assert (tmp_path / "lenet5_digits.ckpt").exists() and (tmp_path / "step_times.png").exists()


def test_timing_and_difference_helpers():
    a = RunResult("m", "PyNative", chunk_seconds_per_step=[9.0, 2.0, 1.0, 3.0], first_step_seconds=5.0)
    assert a.step_seconds == 2.0  # the median without the warm-up chunk
    assert a.compile_seconds == 3.0
    a.tier_up_seconds = 1.5  # the wait for the optimised programs after the first step is compiling too
    assert a.compile_seconds == 4.5
    a.params = {"w": np.array([1.0, 2.0]), "b": np.array([0.5])}
    b = RunResult("m", "Graph", params={"w": np.array([1.0, 2.5]), "b": np.array([0.25])})
    assert max_param_difference(a, b) == 0.5
