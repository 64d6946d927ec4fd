"""kiln.nn.probability.bnn_layers: output shapes, the KL loss against the closed form of
KL(N(0, 0.1^2) || N(m, s^2)) (prior first, as MindSpore computes it), training steps in both modes (the
loss goes down), and argument errors."""

from __future__ import annotations

import numpy as np
import pytest

import kiln as ms
from kiln import Tensor, nn
from kiln.nn.probability import bnn_layers as B


def _softplus(x):
    return np.log1p(np.exp(x))


def test_dense_reparam_shape_and_kl():
    np.random.seed(0)
    layer = B.DenseReparam(3, 4)
    x = Tensor(np.random.rand(2, 3).astype(np.float32))
    assert layer(x).shape == (2, 4)
    kl = 0.0
    for post in (layer.weight_posterior, layer.bias_posterior):
        m = post.mean.asnumpy().astype(np.float64)
        s = 1e-6 + _softplus(post.untransformed_std.asnumpy().astype(np.float64))
        kl += np.sum(np.log(s / 0.1) + (0.1**2 + m**2) / (2 * s**2) - 0.5)  # KL(prior || posterior), as MindSpore
    np.testing.assert_allclose(layer.compute_kl_loss().asnumpy(), kl, rtol=1e-4)


def test_sampled_weights_differ_between_calls():
    layer = B.DenseReparam(3, 2, has_bias=False)
    layer.weight_posterior.untransformed_std.set_data(Tensor(np.zeros((2, 3), np.float32)))  # sd ~ 0.69
    x = Tensor(np.ones((1, 3), np.float32))
    assert not np.allclose(layer(x).asnumpy(), layer(x).asnumpy())


def test_conv_reparam_and_local_reparam_shapes():
    x = Tensor(np.random.rand(2, 3, 5, 5).astype(np.float32))
    assert B.ConvReparam(3, 4, 3)(x).shape == (2, 4, 5, 5)
    assert B.ConvReparam(3, 4, 3, pad_mode="valid", has_bias=True)(x).shape == (2, 4, 3, 3)
    assert B.DenseLocalReparam(5, 2)(Tensor(np.random.rand(3, 5).astype(np.float32))).shape == (3, 2)


class _Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.conv = B.ConvReparam(1, 2, 3, has_bias=True)
        self.flat = nn.Flatten()
        self.fc = B.DenseReparam(2 * 4 * 4, 3, activation="relu")

    def construct(self, x):
        return self.fc(self.flat(self.conv(x)))


@pytest.mark.parametrize("mode", [ms.PYNATIVE_MODE, ms.GRAPH_MODE])
def test_train_with_bnn_loss(mode):
    ms.set_context(mode=mode)
    np.random.seed(1)
    ms.set_seed(1)
    net = _Net()
    loss_fn = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    loss = B.WithBNNLossCell(net, loss_fn, 1, 1e-3)
    step = nn.TrainOneStepCell(loss, nn.Adam(net.trainable_params(), 0.05))
    x = Tensor(np.random.rand(4, 1, 4, 4).astype(np.float32))
    y = Tensor(np.array([0, 1, 2, 1], np.int32))
    first = float(step(x, y).asnumpy())
    for _ in range(4):
        last = float(step(x, y).asnumpy())
    assert last < first  # the KL term alone (weights' sd grows from softplus(-5)) dominates and falls
    assert len(net.trainable_params()) == 8


@pytest.mark.parametrize(
    "make,err",
    [
        (lambda: B.NormalPosterior(1, [2]), TypeError),
        (lambda: B.NormalPosterior("w", 2), TypeError),
        (lambda: B.NormalPosterior("w", [2], loc_std=-1.0), TypeError),
        (lambda: B.DenseReparam(0, 2), ValueError),
        (lambda: B.DenseReparam(2, 2, activation=1), ValueError),
        (lambda: B.ConvReparam(1, 2, 3, pad_mode="full"), ValueError),
        (lambda: B.WithBNNLossCell(nn.Dense(2, 2), nn.MSELoss(), dnn_factor=-1), ValueError),
        (lambda: B.WithBNNLossCell(nn.Dense(2, 2), nn.MSELoss(), bnn_factor="a"), TypeError),
    ],
)
def test_bad_arguments(make, err):
    with pytest.raises(err):
        make()
