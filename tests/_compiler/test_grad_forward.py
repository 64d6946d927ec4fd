"""The `grad_forward` pass: MindSpore's train-cell pattern (`loss = net(x)`, then `grad(net, weights)(x, sens)`)
runs the network's forward once in GRAPH_MODE, with the values and updates of running it twice."""

from __future__ import annotations

import numpy as np

import kiln as ms
from kiln import nn, ops
from kiln._compiler import build


class _Net(nn.Cell):
    """Dense -> BatchNorm (training: a state write between the two forwards) -> ReLU -> a constant-offset sum."""

    def __init__(self):
        super().__init__()
        self.dense = nn.Dense(4, 3)
        self.norm = nn.BatchNorm1d(3)
        self.relu = nn.ReLU()
        self.offset = ms.Tensor(np.array([0.5, -0.25, 1.0], np.float32))

    def construct(self, x):
        return (self.relu(self.norm(self.dense(x))) + self.offset).sum()


class _TrainStep(nn.Cell):
    """The zoo's train cells' step: the loss, then its gradient with an explicit sensitivity, then the update."""

    def __init__(self, net, optimizer):
        super().__init__()
        self.net, self.optimizer, self.weights = net, optimizer, optimizer.parameters
        self.grad = ops.GradOperation(get_by_list=True, sens_param=True)

    def construct(self, x):
        loss = self.net(x)
        sens = ops.Fill()(ops.DType()(loss), ops.Shape()(loss), 1.0)
        grads = self.grad(self.net, self.weights)(x, sens)
        return ops.depend(loss, self.optimizer(grads))


def _train(steps: int = 3):
    """Losses and the final Parameters of `steps` train steps of a freshly seeded network."""
    ms.set_seed(1)
    net = _Net()
    net.set_train()
    step = _TrainStep(net, nn.Momentum(net.trainable_params(), 0.1, 0.9))
    x = ms.Tensor(np.random.default_rng(0).standard_normal((8, 4)).astype(np.float32))
    losses = [float(step(x).asnumpy()) for _ in range(steps)]
    return losses, {p.name: p.asnumpy().copy() for p in net.get_parameters()}


def _outer_primitives(monkeypatch) -> list:
    """Collects the primitive names of each compiled program's top-level graph after the tensor passes."""
    names: list = []
    run = build._run_passes

    def spy(graph):
        stats = run(graph)
        names.append([e.name for e in graph.eqns])
        return stats

    monkeypatch.setattr(build, "_run_passes", spy)
    return names


def _graph_mode(fn, *args, passes: str = "", monkeypatch):
    monkeypatch.setenv("KILN_PASSES", passes)
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        return fn(*args)
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
        monkeypatch.delenv("KILN_PASSES")


def test_train_cell_pattern_keeps_its_values(monkeypatch):
    losses, params = _graph_mode(_train, monkeypatch=monkeypatch)
    # "grad_forward" skips the pass: the forward computed twice, as before it
    twice_losses, twice_params = _graph_mode(_train, passes="grad_forward", monkeypatch=monkeypatch)
    np.testing.assert_allclose(losses, twice_losses, rtol=1e-6)
    assert params.keys() == twice_params.keys()
    for name, value in params.items():  # BatchNorm's running averages too: updated once a step in GRAPH_MODE
        np.testing.assert_allclose(value, twice_params[name], rtol=1e-6, atol=1e-7, err_msg=name)
    want_losses, want_params = _train()  # PyNative (which runs both forwards: its running averages move twice)
    np.testing.assert_allclose(losses, want_losses, rtol=1e-5, atol=1e-6)
    for name, value in params.items():
        if "moving" not in name:
            np.testing.assert_allclose(value, want_params[name], rtol=1e-5, atol=1e-6, err_msg=name)


class _PureNet(nn.Cell):
    def __init__(self):
        super().__init__()
        self.dense = nn.Dense(4, 3)
        self.relu = nn.ReLU()

    def construct(self, x):
        return self.relu(self.dense(x)).sum()


def _pure_step():
    ms.set_seed(1)
    net = _PureNet()
    step = _TrainStep(net, nn.SGD(net.trainable_params(), 0.1))
    return float(step(ms.Tensor(np.ones((2, 4), np.float32))).asnumpy())


def test_the_forward_before_grad_is_computed_once(monkeypatch):
    names = _outer_primitives(monkeypatch)
    loss = _graph_mode(_pure_step, monkeypatch=monkeypatch)
    shared = names.pop()
    twice_loss = _graph_mode(_pure_step, passes="grad_forward", monkeypatch=monkeypatch)
    twice = names.pop()
    assert loss == twice_loss
    # without the pass the outer graph keeps the loss's own forward beside the grad equation's nested one
    assert twice.count("Dense") == 1 and "grad" in twice, twice
    assert shared.count("Dense") == 0 and "grad" in shared, shared
