"""A compiled program that reads and writes Parameters runs its XLA executable itself (build.Executable's launch,
kiln/_backend/launch.py) once every donated input is the program's own output of its last call: checked against
jax.jit's call of the same executable, NumPy and PyNative; a Parameter set between steps, or a state input of
another shape, goes through jax.jit's call."""

from __future__ import annotations

import numpy as np
import pytest

import kiln as ms
from kiln import Parameter, Tensor, nn, ops
from kiln._backend import distributed
from kiln._backend.launch import Launch


class Decay(nn.Cell):
    """Writes `w` (donated) and reads `b` (not written, so not donated) each call."""

    def __init__(self):
        super().__init__()
        self.w = Parameter(Tensor(np.linspace(0.5, 1.5, 6, dtype=np.float32).reshape(2, 3)), name="w")
        self.b = Parameter(Tensor(np.array([0.25, -1.0, 2.0], np.float32)), name="b")

    def construct(self, x):
        y = (x * self.w).sum() + self.b.sum()
        ops.assign(self.w, self.w * 0.5 + x)
        return y


def _executable(cell):
    return cell.__dict__["_kiln_graph_cache"].written_for[2]


@pytest.fixture
def graph_mode():
    ms.set_context(mode=ms.GRAPH_MODE)
    yield
    ms.set_context(mode=ms.PYNATIVE_MODE)


def _numpy_steps(w, b, xs):
    outs = []
    for x in xs:
        outs.append((x * w).sum() + b.sum())
        w = w * 0.5 + x
    return outs, w


def test_a_stateful_program_launches_its_executable_and_gives_numpys_values(graph_mode):
    net = Decay()
    w0, b0 = net.w.asnumpy().copy(), net.b.asnumpy().copy()
    xs = [np.full((2, 3), 0.1 * k, np.float32) + np.arange(6, dtype=np.float32).reshape(2, 3) for k in range(5)]
    outs = [float(net(Tensor(x)).asnumpy()) for x in xs]
    assert isinstance(_executable(net).launch, Launch)  # found at the second call (the first one's outputs owned)
    expected, w = _numpy_steps(w0, b0, xs)
    np.testing.assert_allclose(outs, expected, rtol=1e-6)
    np.testing.assert_allclose(net.w.asnumpy(), w, rtol=1e-6)
    np.testing.assert_array_equal(net.b.asnumpy(), b0)


def test_a_launch_gives_jax_jits_call_bit_for_bit(graph_mode):
    nets = [Decay(), Decay()]
    x = Tensor(np.arange(6, dtype=np.float32).reshape(2, 3) / 7)
    for net in nets:
        net(x)
    _executable(nets[1]).launch = False  # jax.jit's call of the same executable, every step
    for _ in range(4):
        a, b = (float(net(x).asnumpy()) for net in nets)
        assert a == b
    assert isinstance(_executable(nets[0]).launch, Launch)
    np.testing.assert_array_equal(nets[0].w.asnumpy(), nets[1].w.asnumpy())


def test_a_parameter_set_between_steps_goes_through_jax_jits_call(graph_mode):
    net = Decay()
    x = Tensor(np.ones((2, 3), np.float32))
    net(x)
    net(x)
    ex = _executable(net)
    assert isinstance(ex.launch, Launch)
    w = np.full((2, 3), 3.0, np.float32)
    net.w.set_data(Tensor(w))  # not a buffer the program made: copied for donation, jax.jit's call runs it
    out = float(net(x).asnumpy())
    np.testing.assert_allclose(out, (w * 1.0).sum() + net.b.asnumpy().sum(), rtol=1e-6)
    np.testing.assert_allclose(net.w.asnumpy(), w * 0.5 + 1.0, rtol=1e-6)
    w = net.w.asnumpy().copy()  # the program's own output again: launched
    np.testing.assert_allclose(float(net(x).asnumpy()), w.sum() + net.b.asnumpy().sum(), rtol=1e-6)
    np.testing.assert_allclose(net.w.asnumpy(), w * 0.5 + 1.0, rtol=1e-6)


class WithEmpty(nn.Cell):
    """Reads an empty Parameter (not written, so not donated), which set_data may give another shape."""

    def __init__(self):
        super().__init__()
        self.w = Parameter(Tensor(np.ones((2, 3), np.float32)), name="w")
        self.e = Parameter(Tensor(np.zeros((0,), np.float32)), name="e")

    def construct(self, x):
        y = (x * self.w).sum() + self.e.sum()
        ops.assign(self.w, self.w * 0.5 + x)
        return y


def test_a_state_input_of_another_shape_is_not_launched(graph_mode):
    net, x = WithEmpty(), Tensor(np.ones((2, 3), np.float32))
    net(x)
    net(x)
    assert isinstance(_executable(net).launch, Launch)
    net.e.set_data(Tensor(np.array([1.0, 2.0, 3.0], np.float32)))  # an empty Parameter may take a shape
    w = net.w.asnumpy().copy()
    # the executable would refuse a buffer of 3 floats where it was compiled for 0: jax.jit's call compiles for it
    np.testing.assert_allclose(float(net(x).asnumpy()), w.sum() + 6.0, rtol=1e-6)
    np.testing.assert_allclose(net.w.asnumpy(), w * 0.5 + 1.0, rtol=1e-6)


class Affine(nn.Cell):
    """Reads Parameters and writes none (nothing donated: every input's aval is checked before a launch)."""

    def __init__(self):
        super().__init__()
        self.w = Parameter(Tensor(np.linspace(-1.0, 1.0, 6, dtype=np.float32).reshape(3, 2)), name="w")

    def construct(self, x):
        return ops.matmul(x, self.w) + 1.0


def test_a_program_that_only_reads_parameters_launches_from_its_second_call(graph_mode):
    net = Affine()
    xs = [np.arange(6, dtype=np.float32).reshape(2, 3) * k for k in (1.0, 0.5, -2.0)]
    outs = [net(Tensor(x)).asnumpy() for x in xs]
    assert isinstance(_executable(net).launch, Launch)
    for x, out in zip(xs, outs, strict=True):
        np.testing.assert_allclose(out, x @ net.w.asnumpy() + 1.0, rtol=1e-6)


def _train(mode: str, steps: int = 4):
    ms.set_context(mode=mode)
    ms.set_seed(1)
    net = nn.SequentialCell([nn.Dense(5, 8), nn.GELU(), nn.Dense(8, 3)])
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    opt = nn.Momentum(net.trainable_params(), learning_rate=0.05, momentum=0.9)
    step = nn.TrainOneStepCell(nn.WithLossCell(net, loss), opt)
    rng = np.random.default_rng(0)
    x = Tensor(rng.standard_normal((6, 5)).astype(np.float32))
    y = Tensor(rng.integers(0, 3, 6).astype(np.int32))
    losses = [float(step(x, y).asnumpy()) for _ in range(steps)]
    return losses, [p.asnumpy().copy() for p in net.trainable_params()], step


def test_a_training_step_launched_gives_pynatives_losses_and_weights(graph_mode):
    g_losses, g_params, step = _train(ms.GRAPH_MODE)
    assert isinstance(_executable(step).launch, Launch)
    p_losses, p_params, _ = _train(ms.PYNATIVE_MODE)
    np.testing.assert_allclose(g_losses, p_losses, rtol=1e-5)
    for g, p in zip(g_params, p_params, strict=True):
        np.testing.assert_allclose(g, p, rtol=1e-5, atol=1e-6)


class Scale(nn.Cell):
    """Writes each Parameter it is given (donated to its program) as `factor` times itself plus the input."""

    def __init__(self, params, factor):
        super().__init__()
        self.params = params
        self.factor = factor

    def construct(self, x):
        for p in self.params:
            ops.assign(p, p * self.factor + x)
        return x


def test_parameters_two_programs_write_in_turn_keep_every_held_value(graph_mode, monkeypatch):
    # as WGAN's two train cells write each other's BatchNorm statistics: each call finds the donated arrays made by
    # the other program and copies them, in one batched transfer, before a Tensor the user holds could lose its buffer
    copied = []
    monkeypatch.setattr(
        distributed, "private_copies", lambda xs, f=distributed.private_copies: copied.append(len(xs)) or f(xs)
    )
    a = Parameter(Tensor(np.arange(4, dtype=np.float32)), name="a")
    c = Parameter(Tensor(np.ones((2, 2), np.float32)), name="c")
    first, second = Scale([a, c], 2.0), Scale([a, c], 0.5)
    want_a, want_c = a.asnumpy(), c.asnumpy()
    held = []
    for step in range(3):
        x = Tensor(np.float32(step))
        for cell, factor in ((first, 2.0), (second, 0.5)):
            held.append((a.value(), want_a.copy(), c.value(), want_c.copy()))
            cell(x)
            want_a, want_c = want_a * factor + step, want_c * factor + step
    np.testing.assert_array_equal(a.asnumpy(), want_a)
    np.testing.assert_array_equal(c.asnumpy(), want_c)
    for a_then, a_want, c_then, c_want in held:  # every value read before a later call gave away its buffer
        np.testing.assert_array_equal(a_then.asnumpy(), a_want)
        np.testing.assert_array_equal(c_then.asnumpy(), c_want)
    assert copied and set(copied) == {2}, copied  # both arrays at once, at the calls that found the other's arrays
