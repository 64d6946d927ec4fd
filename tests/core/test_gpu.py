"""On an NVIDIA GPU (`pip install "kiln[cuda12]"`): both modes run there and agree with the CPU.

Marked `gpu`: tests/conftest.py skips them when JAX sees no GPU.
"""

import numpy as np
import pytest

import kiln
from kiln import nn, ops

pytestmark = pytest.mark.gpu


@pytest.fixture
def on_gpu():
    before = kiln.get_context("device_target")
    kiln.set_context(device_target="GPU")
    yield
    kiln.set_context(device_target=before)


def _platform(t) -> str:
    return next(iter(t._data.devices())).platform


def test_default_device_is_the_gpu():
    assert kiln.get_context("device_target") == "GPU"


def test_pynative_op_runs_on_gpu(on_gpu, rng):
    a = rng.standard_normal((64, 32)).astype(np.float32)
    out = ops.matmul(kiln.Tensor(a), kiln.Tensor(a.T))
    assert _platform(out) == "gpu"
    np.testing.assert_allclose(out.asnumpy(), a @ a.T, rtol=1e-4, atol=1e-4)


def test_graph_mode_train_step_matches_pynative_on_gpu(on_gpu, rng):
    x = kiln.Tensor(rng.standard_normal((16, 8)).astype(np.float32))
    y = kiln.Tensor(rng.integers(0, 3, 16).astype(np.int32))
    finals = []
    for mode in (kiln.PYNATIVE_MODE, kiln.GRAPH_MODE):
        kiln.set_context(mode=mode)
        kiln.set_seed(0)
        net = nn.SequentialCell([nn.Dense(8, 16), nn.ReLU(), nn.Dense(16, 3)])
        loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
        step = nn.TrainOneStepCell(nn.WithLossCell(net, loss), nn.Momentum(net.trainable_params(), 0.1, 0.9))
        for _ in range(5):
            out = step(x, y)
        assert _platform(out) == "gpu"
        finals.append([p.asnumpy() for p in net.trainable_params()])
    kiln.set_context(mode=kiln.PYNATIVE_MODE)
    for a, b in zip(*finals):
        np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-5)
