"""`Cell.set_inputs` / `jit(input_signature=...)` with None sizes: the program is recorded once, with symbolic
sizes, and XLA compiles it per concrete shape. Values (and training) equal PyNative at every size; a program
that needs a concrete size (a Python decision on it) falls back to one recording per shape, still correct."""

from __future__ import annotations

import numpy as np
import pytest

import kiln as ms
from kiln import Tensor, nn, ops


class ConvNet(nn.Cell):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(1, 4, 3)
        self.bn = nn.BatchNorm2d(4)
        self.fc = nn.Dense(4 * 8 * 8, 3)

    def construct(self, x):
        y = ops.relu(self.bn(self.conv(x)))
        return self.fc(y.reshape(y.shape[0], -1))


def _train_step(seed: int = 0):
    ms.set_seed(seed)
    loss = nn.WithLossCell(ConvNet(), nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean"))
    return nn.TrainOneStepCell(loss, nn.Momentum(loss.trainable_params(), 0.1, 0.9))


def _batch(n: int):
    rng = np.random.default_rng(n)
    x = Tensor(rng.standard_normal((n, 1, 8, 8)).astype(np.float32))
    return x, Tensor(rng.integers(0, 3, (n,)).astype(np.int32))


def test_training_step_recorded_once_for_every_batch_size():
    eager = _train_step()
    expected = [float(eager(*_batch(n)).asnumpy()) for n in (4, 6, 3, 4)]
    ms.set_context(mode=ms.GRAPH_MODE)
    step = _train_step()
    step.set_inputs(Tensor(shape=[None, 1, 8, 8], dtype=ms.float32), Tensor(shape=[None], dtype=ms.int32))
    got = [float(step(*_batch(n)).asnumpy()) for n in (4, 6, 3, 4)]
    np.testing.assert_allclose(got, expected, rtol=1e-5)
    cache = step.__dict__["_kiln_graph_cache"]
    assert cache.dynamic_off == ""
    assert cache.compiles == 1  # one recording; XLA compiled 3 shapes from it


def test_jit_with_a_dynamic_input_signature():
    def f(x, y):
        return (x * y).sum(-1) + x.shape[0]

    sig = (Tensor(shape=[None, 3], dtype=ms.float32), Tensor(shape=[None, 3], dtype=ms.float32))
    g = ms.jit(f, input_signature=sig)
    for n in (2, 5, 7):
        x = Tensor(np.arange(3 * n, dtype=np.float32).reshape(n, 3))
        np.testing.assert_allclose(g(x, x * 2).asnumpy(), f(x, x * 2).asnumpy())
    assert g.compile_count == 1


class SizeDecides(nn.Cell):
    def construct(self, x):
        if x.shape[0] > 3:  # a Python decision on the size: needs it at record time
            return x * 2
        return x - 1


def test_a_program_that_needs_the_size_falls_back_to_one_recording_per_shape():
    ms.set_context(mode=ms.GRAPH_MODE)
    net = SizeDecides()
    net.set_inputs(Tensor(shape=[None, 2], dtype=ms.float32))
    for n, want in ((2, -1.0), (5, 0.0)):
        x = Tensor(np.zeros((n, 2), np.float32))
        np.testing.assert_allclose(net(x).asnumpy(), np.full((n, 2), want))
    cache = net.__dict__["_kiln_graph_cache"]
    assert "InconclusiveDimension" in cache.dynamic_off or "symbolic" in cache.dynamic_off.lower()
    assert cache.compiles == 2


def test_dynamic_rank_declaration_accepts_any_shape_and_checks_the_dtype():
    declared = Tensor(dtype=ms.float32)  # MindSpore's dynamic-rank placeholder
    assert declared.shape == (-2,)

    def f(x):
        return ops.sigmoid(x) * 2

    g = ms.jit(f, input_signature=(declared,))
    for shape in ((2, 3), (4,), ()):
        x = Tensor(np.linspace(-1, 1, int(np.prod(shape))).astype(np.float32).reshape(shape))
        np.testing.assert_allclose(g(x).asnumpy(), f(x).asnumpy(), rtol=1e-6)
    with pytest.raises(TypeError, match="Int32.*Float32"):
        g(Tensor(np.ones(3, np.int32)))
