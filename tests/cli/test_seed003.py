"""Seed 003, the MindSpore LeNet5 tutorial, run unchanged through `kiln run` in both modes."""

import os
import re
import struct
import subprocess
import sys

import numpy as np
import pytest

from kiln.train import load_checkpoint

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
SCRIPT = os.path.join(HERE, "seed003_lenet.py")
BATCH = 32
TRAIN_STEPS, TEST_STEPS = 6, 2


def _write_idx(path, array, magic):
    with open(path, "wb") as f:
        f.write(struct.pack(">I", magic))
        f.write(struct.pack(f">{array.ndim}I", *array.shape))
        f.write(np.ascontiguousarray(array, dtype=np.uint8).tobytes())


def synthetic_digits(n, seed):
    """28x28 uint8 images whose class shows as a bright bar at a class-dependent place, plus noise."""
    rng = np.random.default_rng(seed)
    labels = rng.integers(0, 10, n).astype(np.uint8)
    images = rng.integers(0, 40, (n, 28, 28)).astype(np.uint8)
    for i, c in enumerate(labels):
        row = 3 + 2 * int(c)
        images[i, row : row + 2, 4:24] = 255
    return images, labels


def write_mnist(root):
    for split, prefix, steps, seed in (("train", "train", TRAIN_STEPS, 0), ("test", "t10k", TEST_STEPS, 1)):
        folder = os.path.join(root, "MNIST_Data", split)
        os.makedirs(folder)
        images, labels = synthetic_digits(steps * BATCH, seed)
        _write_idx(os.path.join(folder, f"{prefix}-images-idx3-ubyte"), images, 0x803)
        _write_idx(os.path.join(folder, f"{prefix}-labels-idx1-ubyte"), labels, 0x801)


@pytest.mark.parametrize("mode", ["PYNATIVE_MODE", "GRAPH_MODE"])
def test_seed003_runs_unchanged(tmp_path, mode):
    write_mnist(str(tmp_path))
    env = dict(os.environ, PYTHONPATH=REPO + os.pathsep + os.environ.get("PYTHONPATH", ""), KILN_PROGRESS="0")
    cmd = [sys.executable, "-m", "kiln", "run", SCRIPT, mode, str(TRAIN_STEPS)]
    proc = subprocess.run(cmd, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    out = proc.stdout
    assert proc.returncode == 0, out + proc.stderr

    loss_lines = re.findall(rf"^epoch: (\d) step: {TRAIN_STEPS}, loss is (\S+)$", out, re.M)
    assert [int(e) for e, _ in loss_lines] == [1, 2, 3, 1, 2]  # train(3) then fit(2)
    assert all(np.isfinite(float(v)) for _, v in loss_lines)
    times = re.findall(r"^Train epoch time: [\d.]+ ms, per step time: [\d.]+ ms$", out, re.M)
    assert len(times) == 3
    evals = re.findall(r"^Eval result: epoch (\d), metrics: \{'Accuracy': ([\d.]+)\}$", out, re.M)
    assert [int(e) for e, _ in evals] == [1, 2] and all(0 <= float(a) <= 1 for _, a in evals)
    assert "\nEvaluation:\n" in out
    if mode == "PYNATIVE_MODE":
        assert out.count("This string is only printed in the PYNATIVE_MODE") == 1

    files = sorted(os.listdir(tmp_path / "checkpoint"))
    assert [f for f in files if f.endswith(".ckpt")] == [f"mnist-{e}_{TRAIN_STEPS}.ckpt" for e in (1, 2, 3)]
    params = load_checkpoint(str(tmp_path / "checkpoint" / f"mnist-3_{TRAIN_STEPS}.ckpt"))
    assert params["conv1.weight"].shape == (6, 1, 5, 5) and params["fc3.bias"].shape == (10,)
    assert np.isfinite(params["fc1.weight"].asnumpy()).all()
