"""A compiled program over Cells compiles again when something its run reads is replaced after the compile.

nn layers hold MindSpore's primitives under MindSpore's names (`dense.matmul`, `relu.relu`; nn/layer/_held.py) and
run them once one is replaced. A library layer runs as Python inside the trace, so its reads of those attributes (and
of its child Cells) were not guarded: a GRAPH_MODE Cell, an @jit function or a TrainOneStepCell step compiled before
`net.dense.matmul = ...` kept running the old program (kiln/_compiler/guards.py `cell_reads` now guards them). Each
case below compares the output after the change with PyNative's for the same network after the same change.

MindSpore 2.10 does not compile again in any of these cases (its GRAPH_MODE Cell and @jit function keep the first
program: checked with the same changes on MindSpore's own Dense/ReLU/SequentialCell, and a Python scalar attribute or
a child Cell of a user Cell replaced after the first call); Kiln runs what PyNative runs, as it already did for the
attributes a user's construct reads.
"""

from __future__ import annotations

import numpy as np
import pytest

import kiln as ms
from kiln import nn, ops
from kiln.ops.primitive import Primitive

X = ms.Tensor(np.array([[1.0, -2.0, 0.5], [0.3, 0.7, 1.1]], np.float32))
Y = ms.Tensor(np.array([[0.2, -0.4], [1.0, 0.5]], np.float32))


class _DoubledMatMul(nn.Cell):
    """A user's Cell in place of Dense's MatMul: twice the product."""

    def construct(self, a, b):
        return ops.MatMul(transpose_b=True)(a, b) * 2


class _CubedMatMul(Primitive):
    """A user's own Primitive in place of Dense's MatMul: three times the product."""

    def __call__(self, a, b):
        return ops.matmul(a, ops.transpose(b, (1, 0))) * 3


class _Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.dense = nn.Dense(3, 2, weight_init="ones", bias_init="zeros")
        self.act = nn.ReLU()
        self.tail = nn.SequentialCell(nn.Dense(2, 2, weight_init="ones", bias_init="zeros"), nn.ReLU())
        self.head = nn.Dense(2, 2, weight_init="ones", bias_init="zeros")
        self.scale = 1.0

    def construct(self, x):
        return self.head(self.tail(self.act(self.dense(x))) * self.scale)


def _swap_relu(net):
    net.act.relu = ops.Sigmoid()  # a Primitive in place of the held one


def _swap_matmul_cell(net):
    net.dense.matmul = _DoubledMatMul()  # a user's Cell in place of a held Primitive


def _swap_matmul_primitive(net):
    net.dense.matmul = _CubedMatMul()  # a user's own Primitive


def _swap_twice(net):
    net.act.relu = ops.Sigmoid()
    net(X)  # the second program compiles over the first replacement
    net.act.relu = ops.Tanh()


def _swap_library_child(net):
    net.tail[1] = nn.Tanh()  # a child Cell of a library Cell (SequentialCell) replaced


def _swap_user_child(net):
    net.head = nn.Dense(2, 2, weight_init="zeros", bias_init="ones")  # a user Cell's child (guarded before too)


def _set_scalar(net):
    net.scale = 3.0  # a Python scalar a user's construct reads (guarded before too)


CHANGES = {
    "held primitive by a Primitive": _swap_relu,
    "held primitive by a user's Cell": _swap_matmul_cell,
    "held primitive by a user's Primitive": _swap_matmul_primitive,
    "held primitive replaced twice": _swap_twice,
    "child of a library Cell": _swap_library_child,
    "child of a user Cell": _swap_user_child,
    "scalar read by a user construct": _set_scalar,
}


def _pynative(change) -> np.ndarray:
    net = _Net()
    change(net)
    return net(X).asnumpy()


def _runner(net, how: str):
    if how == "graph":
        return net
    jitted = ms.jit(lambda x: net(x), capture_mode=how)
    return jitted


@pytest.mark.parametrize("how", ["graph", "ast", "bytecode"])
@pytest.mark.parametrize("change", list(CHANGES))
def test_a_change_after_the_compile_runs_what_pynative_runs(change, how):
    expected = _pynative(CHANGES[change])
    if how == "graph":
        ms.set_context(mode=ms.GRAPH_MODE)
    try:
        net = _Net()
        run = _runner(net, how)
        before = run(X).asnumpy()
        CHANGES[change](net)
        after = run(X).asnumpy()
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    assert not np.allclose(before, expected)  # the change changes the output
    np.testing.assert_allclose(after, expected, rtol=1e-6, atol=1e-6)


def _train_losses(change, mode: int) -> list[float]:
    ms.set_context(mode=mode)
    try:
        net = _Net()
        step = nn.TrainOneStepCell(nn.WithLossCell(net, nn.MSELoss()), nn.SGD(net.trainable_params(), 0.001))
        losses = [float(step(X, Y).asnumpy())]
        change(net)
        losses += [float(step(X, Y).asnumpy()) for _ in range(2)]
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    return losses


@pytest.mark.parametrize("change", ["held primitive by a Primitive", "held primitive by a user's Cell"])
def test_a_train_step_compiled_before_a_change_trains_as_pynative(change):
    expected = _train_losses(CHANGES[change], ms.PYNATIVE_MODE)
    assert not np.allclose(expected, _train_losses(lambda net: None, ms.PYNATIVE_MODE))  # the change tells
    np.testing.assert_allclose(_train_losses(CHANGES[change], ms.GRAPH_MODE), expected, rtol=1e-5, atol=1e-6)


def test_a_held_primitive_replaced_by_a_cell_runs_in_pynative():
    """`dense.matmul = SomeCell()` goes to the Cell's child registry: the layer notices it as a replacement too."""
    net = nn.Dense(3, 2, weight_init="ones", bias_init="zeros")
    plain = net(X).asnumpy()
    net.matmul = _DoubledMatMul()
    np.testing.assert_allclose(net(X).asnumpy(), 2 * plain, rtol=1e-6)


def test_an_unchanged_network_does_not_compile_again():
    """The new guards hold while nothing changes: one compile for many calls (and none after a no-op read)."""
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        net = _Net()
        run = ms.jit(lambda x: net(x))
        for _ in range(3):
            run(X)
        _ = net.dense.matmul, net.tail[1]  # reading them changes nothing
        run(X)
        assert run.compile_count == 1
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
