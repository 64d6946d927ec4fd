"""`kiln demo`: both modes train, the summary is printed, the checkpoint and the PNG are written."""

import os
import re

import numpy as np

import kiln
from kiln import demo
from kiln.__main__ import main
from kiln.demo.lenet import LeNet5
from kiln.train import load_checkpoint, load_param_into_net


def test_demo_one_epoch(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("KILN_PROGRESS", "0")
    assert main(["demo", "--epochs", "1", "--out", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "== PyNative mode" in out and "== Graph mode" in out
    assert len(re.findall(r"^epoch: 1 step: 44, loss is [\d.]+$", out, re.M)) == 2
    assert len(re.findall(r"^Eval result: epoch 1, metrics: \{'Accuracy': [\d.]+\}$", out, re.M)) == 2
    assert re.search(r"^PyNative +[\d.]+ ms", out, re.M) and re.search(r"^Graph +[\d.]+ ms", out, re.M)
    assert re.search(r"^Graph mode speedup: [\d.]+x per training step", out, re.M)
    with open(tmp_path / "loss_curve.png", "rb") as f:
        assert f.read(8) == b"\x89PNG\r\n\x1a\n"
    net = LeNet5()
    param_not_load, _ = load_param_into_net(net, load_checkpoint(str(tmp_path / "lenet5_digits.ckpt")))
    assert param_not_load == [] and np.isfinite(net.fc1.weight.asnumpy()).all()
    assert kiln.get_context("mode") == kiln.PYNATIVE_MODE


def test_demo_reports_unavailable_graph_mode(tmp_path, capsys, monkeypatch):
    real = demo.train_lenet

    def no_graph(mode, *args):
        if mode == kiln.GRAPH_MODE:
            raise RuntimeError("the graph compiler is not available")
        return real(mode, *args)

    monkeypatch.setenv("KILN_PROGRESS", "0")
    monkeypatch.setattr(demo, "train_lenet", no_graph)
    assert demo.run_demo(epochs=1, out_dir=str(tmp_path)) == 0
    out = capsys.readouterr().out
    assert "Graph mode is unavailable: RuntimeError: the graph compiler is not available" in out
    assert "speedup" not in out and os.path.exists(tmp_path / "lenet5_digits.ckpt")
