"""Gradient hooks: Cell backward (pre-)hooks, Tensor/Parameter.register_hook, HookBackward, forward-hook options.

Semantics (order, what grad_input/grad_output hold, leaves vs intermediates) are checked against MindSpore 2.10
(hook_goldens_mindspore.json, from make_hook_goldens_mindspore.py running hook_cases.py); the hooked gradients
against JAX's own gradients of the same functions.
"""

from __future__ import annotations

import json
import os

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import kiln
from kiln import Parameter, Tensor, nn, ops
from tests.pynative import hook_cases

HERE = os.path.dirname(os.path.abspath(__file__))


@pytest.fixture
def pynative():
    mode = kiln.get_context("mode")
    kiln.set_context(mode=kiln.PYNATIVE_MODE)
    yield
    kiln.set_context(mode=mode)


def test_cases_match_mindspore(pynative):
    with open(os.path.join(HERE, "hook_goldens_mindspore.json")) as f:
        golden = json.load(f)["cases"]
    mine = hook_cases.run(kiln)
    for key, expected in golden.items():
        got = mine[key]
        assert _close(got, expected), f"{key}: Kiln {got} != MindSpore {expected}"


def _close(a, b) -> bool:
    if isinstance(b, list) and isinstance(a, list):
        return len(a) == len(b) and all(_close(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(b, float) and isinstance(a, float):
        return abs(a - b) <= 1e-5 * max(1.0, abs(b))
    return a == b


X = np.array([0.5, -1.5, 2.0], np.float32)
Y = np.array([1.5, 2.5, -0.5], np.float32)


def test_tensor_hook_matches_jax_with_a_scaled_cotangent(pynative):
    """A hook g -> 3g on z = x*y in f = sin(z) * y equals JAX's vjp with z's cotangent scaled by 3."""

    def fn(x, y):
        z = x * y
        z.register_hook(lambda g: g * 3)
        return ops.sin(z) * y

    gx, gy = kiln.grad(fn, (0, 1))(Tensor(X), Tensor(Y))

    def ref(x, y):
        z, back_z = jax.vjp(lambda a, b: a * b, x, y)
        out_cot = jnp.ones_like(z)
        gz = jnp.cos(z) * y * out_cot * 3
        gx, gy_z = back_z(gz)
        return gx, gy_z + jnp.sin(z) * out_cot

    rx, ry = ref(X, Y)
    np.testing.assert_allclose(gx.asnumpy(), rx, rtol=1e-6)
    np.testing.assert_allclose(gy.asnumpy(), ry, rtol=1e-6)


def test_cell_backward_hook_scales_grad_input_against_finite_differences(pynative):
    class Inner(nn.Cell):
        def construct(self, a, b):
            return ops.tanh(a) * b

    class Outer(nn.Cell):
        def __init__(self):
            super().__init__()
            self.inner = Inner()

        def construct(self, a, b):
            return (self.inner(a, b) ** 2).sum()

    net = Outer()
    net.inner.register_backward_hook(lambda cell, gi, go: (gi[0] * 2, gi[1] * -1))
    gx, gy = ops.GradOperation(get_all=True)(net)(Tensor(X), Tensor(Y))

    def f(x, y):
        return float(np.sum((np.tanh(x) * y) ** 2))

    eps = 1e-3
    fd = [
        np.array([(f(*_bump(X, Y, k, i, eps)) - f(*_bump(X, Y, k, i, -eps))) / (2 * eps) for i in range(3)])
        for k in range(2)
    ]
    np.testing.assert_allclose(gx.asnumpy(), fd[0] * 2, rtol=1e-2)
    np.testing.assert_allclose(gy.asnumpy(), fd[1] * -1, rtol=1e-2)


def _bump(x, y, which, i, eps):
    x, y = x.astype(np.float64).copy(), y.astype(np.float64).copy()
    (x if which == 0 else y)[i] += eps
    return x, y


def test_backward_hook_leaves_parameter_gradients_alone(pynative):
    net = nn.Dense(3, 2)
    x = Tensor(np.ones((1, 3), np.float32))
    weights = kiln.ParameterTuple(net.trainable_params())
    grad_op = ops.GradOperation(get_all=True, get_by_list=True)
    _, plain = grad_op(net, weights)(x)
    net.register_backward_hook(lambda cell, gi, go: (gi[0] * 10,))
    (gx,), hooked = grad_op(net, weights)(x)
    for a, b in zip(plain, hooked, strict=True):
        np.testing.assert_allclose(a.asnumpy(), b.asnumpy())
    np.testing.assert_allclose(gx.asnumpy(), 10 * net.weight.asnumpy().sum(0, keepdims=True), rtol=1e-6)


def test_hooks_fire_in_second_order_gradients(pynative):
    seen = []

    def f(x):
        y = x * x
        y.register_hook(lambda g: seen.append(1))
        return y * x

    g2 = kiln.grad(kiln.grad(f))(Tensor(np.array([2.0], np.float32)))
    np.testing.assert_allclose(g2.asnumpy(), [12.0])  # d2/dx2 x^3 = 6x
    assert seen


def test_structured_inputs_and_outputs_pass_through(pynative):
    class Id(nn.Cell):
        def construct(self, x):
            return x

    net = Id()
    calls = []
    net.register_backward_pre_hook(lambda cell, go: calls.append("pre"))
    net.register_backward_hook(lambda cell, gi, go: calls.append("bwd"))
    out = net(((Tensor(1.0),),))
    assert isinstance(out, tuple) and isinstance(out[0], tuple) and isinstance(out[0][0], Tensor)

    class Dict(nn.Cell):
        def construct(self, x):
            return {"a": x * 2, "b": x}

    d = Dict()
    d.register_backward_hook(lambda cell, gi, go: calls.append(("dict", len(gi), len(go))))
    g = kiln.grad(lambda x: d(x)["a"].sum())(Tensor(X))
    np.testing.assert_allclose(g.asnumpy(), [2.0, 2.0, 2.0])
    assert ("dict", 1, 2) in calls


def test_errors_name_the_hook(pynative):
    with pytest.raises(TypeError, match="callable"):
        Tensor(X).register_hook(3)
    with pytest.raises(RuntimeError, match="requires_grad=False"):
        Parameter(Tensor(X), name="frozen", requires_grad=False).register_hook(lambda g: g)
    with pytest.raises(TypeError, match="callable"):
        nn.ReLU().register_backward_hook("not a function")

    def bad_type(g):
        return 3

    def fn(x):
        y = x * 2
        y.register_hook(bad_type)
        return y.sum()

    with pytest.raises(TypeError, match="bad_type"):
        kiln.grad(fn)(Tensor(X))

    def bad_count(cell, gi, go):
        return (gi[0], gi[0])

    net = nn.ReLU()
    net.register_backward_hook(bad_count)
    with pytest.raises(TypeError, match="bad_count.*returned 2 gradient"):
        kiln.grad(lambda x: net(x).sum())(Tensor(X))


def _relu_net(jit: bool):
    def scale_input(cell, gi, go):
        return (gi[0] * 10,)

    def scale_output(cell, go):
        return (go[0] * 3,)

    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.relu = nn.ReLU()
            self.relu.register_backward_hook(scale_input)
            self.relu.register_backward_pre_hook(scale_output)
            self.hook = ops.HookBackward(lambda grads: (grads[0] * 2,))

        def construct(self, x):
            return self.relu(self.hook(x * x))

    if jit:
        Net.construct = kiln.jit(Net.construct)
    return Net()


def test_hooks_in_graph_mode_and_jit_match_pynative(pynative):
    """Cell backward hooks (cells without trainable Parameters) and HookBackward also run in compiled graphs."""
    x = Tensor(np.array([1.0, 2.0], np.float32))
    grad_all = ops.GradOperation(get_all=True)
    expected = 2 * x.asnumpy() * 3 * 10 * 2
    np.testing.assert_allclose(grad_all(_relu_net(False))(x)[0].asnumpy(), expected)
    np.testing.assert_allclose(grad_all(_relu_net(True))(x)[0].asnumpy(), expected)
    kiln.set_context(mode=kiln.GRAPH_MODE)
    np.testing.assert_allclose(_relu_net(False)(x).asnumpy(), [1.0, 4.0])
    np.testing.assert_allclose(grad_all(_relu_net(False))(x)[0].asnumpy(), expected)


def test_graph_mode_refuses_hooks_it_cannot_run(pynative):
    net = nn.Dense(3, 2)
    net.register_backward_hook(lambda cell, gi, go: None)
    kiln.set_context(mode=kiln.GRAPH_MODE)
    with pytest.raises(RuntimeError, match="Dense has backward hooks and trainable Parameters"):
        ops.GradOperation()(net)(Tensor(np.ones((1, 3), np.float32)))
    kiln.set_context(mode=kiln.PYNATIVE_MODE)

    class HooksItsWeight(nn.Cell):
        def __init__(self):
            super().__init__()
            self.w = Parameter(Tensor(X), name="w")

        def construct(self, x):
            self.w.register_hook(_keep)
            return x * self.w

    kiln.set_context(mode=kiln.GRAPH_MODE)
    with pytest.raises(ValueError, match="register_hook.*on a Parameter inside a compiled graph"):  # MindSpore's type
        HooksItsWeight()(Tensor(X))


def test_a_hook_on_an_argument_of_a_graph_mode_cell_runs_in_a_gradient_taken_inside_it():
    """MindSpore's test_one_tensor_cell_construct: a hook registered on a Tensor outside, which a GRAPH_MODE Cell
    differentiates with respect to inside construct, doubles that gradient (the Cell runs through the tape)."""

    class Scale(nn.Cell):
        def __init__(self):
            super().__init__()
            self.w = Parameter(Tensor(np.array([1.0, 2.0], np.float32)), name="w")

        def construct(self, x, y):
            return x * self.w * y

    class GradNet(nn.Cell):
        def __init__(self, net):
            super().__init__()
            self.net = net
            self.params = net.trainable_params()
            self.grad_op = ops.GradOperation(get_all=True, get_by_list=True)

        def construct(self, x, y):
            return self.grad_op(self.net, self.params)(x, y)

    kiln.set_context(mode=kiln.GRAPH_MODE)
    try:
        grad_net = GradNet(Scale())
        x, y = Tensor(np.array([3.0, 4.0], np.float32)), Tensor(np.array([5.0, 6.0], np.float32))
        np.testing.assert_allclose(grad_net(x, y)[0][0].asnumpy(), [5.0, 12.0])
        handle = x.register_hook(lambda g: g * 2)
        np.testing.assert_allclose(grad_net(x, y)[0][0].asnumpy(), [10.0, 24.0])
        np.testing.assert_allclose(grad_net(x, y)[1][0].asnumpy(), [15.0, 24.0])  # the weight's is not hooked
        handle.remove()
        np.testing.assert_allclose(grad_net(x, y)[0][0].asnumpy(), [5.0, 12.0])
    finally:
        kiln.set_context(mode=kiln.PYNATIVE_MODE)


def _keep(g):
    return g


def test_tensor_hook_inside_jit_and_graph_mode(pynative):
    """As MindSpore 2.10: y = 2x, hook g -> 7g, d/dx sum(y^2) = 56x."""

    def times_seven(g):
        return g * 7

    def body(x):
        y = x * 2
        y.register_hook(times_seven)
        return (y * y).sum()

    class Net(nn.Cell):
        def construct(self, x):
            return body(x)

    x = Tensor(np.array([1.0, 2.0], np.float32))
    np.testing.assert_allclose(kiln.grad(kiln.jit(body))(x).asnumpy(), [56.0, 112.0])
    kiln.set_context(mode=kiln.GRAPH_MODE)
    np.testing.assert_allclose(kiln.grad(Net())(x).asnumpy(), [56.0, 112.0])


def test_graph_mode_compiles_again_when_hooks_change(pynative):
    def with_bias(cell, args, kwargs):
        return args, {"bias": kwargs["bias"] * 2}

    def add_bias(cell, args, kwargs, output):
        return output + kwargs["bias"]

    class Biased(nn.Cell):
        def construct(self, x, bias=None):
            return x * x + bias

    kiln.set_context(mode=kiln.GRAPH_MODE)
    net = Biased()
    x, bias = Tensor(np.float32(2.0)), Tensor(np.float32(3.0))
    assert float(net(x, bias=bias).asnumpy()) == 7.0
    h1 = net.register_forward_pre_hook(with_bias, with_kwargs=True)
    assert float(net(x, bias=bias).asnumpy()) == 10.0
    h2 = net.register_forward_hook(add_bias, with_kwargs=True)
    assert float(net(x, bias=bias).asnumpy()) == 16.0
    h1.remove()
    assert float(net(x, bias=bias).asnumpy()) == 10.0
    h2.remove()
    assert float(net(x, bias=bias).asnumpy()) == 7.0
    with pytest.raises(TypeError, match="@jit"):
        net.register_forward_hook(kiln.jit(add_bias))


def test_leaf_hooks_registered_outside_apply_in_graph_mode(pynative):
    """As MindSpore 2.10: a Parameter's or an input's hook applies to GRAPH_MODE gradients too."""

    def double(g):
        return g * 2

    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.w = Parameter(Tensor(np.array([1.0, 2.0], np.float32)), name="w")

        def construct(self, x):
            return (x * self.w).sum()

    class Step(nn.Cell):  # a gradient taken inside a compiled Cell
        def __init__(self, net):
            super().__init__()
            self.net = net
            self.grad = ops.GradOperation(get_by_list=True)
            self.weights = kiln.ParameterTuple(net.trainable_params())

        def construct(self, x):
            return self.grad(self.net, self.weights)(x)

    kiln.set_context(mode=kiln.GRAPH_MODE)
    x = Tensor(np.array([3.0, 4.0], np.float32))
    net = Net()
    step = Step(net)
    np.testing.assert_allclose(step(x)[0].asnumpy(), [3.0, 4.0])
    handle = net.w.register_hook(double)
    np.testing.assert_allclose(step(x)[0].asnumpy(), [6.0, 8.0])  # compiled again: the hook is traced in
    handle.remove()
    np.testing.assert_allclose(step(x)[0].asnumpy(), [3.0, 4.0])
    xi = Tensor(np.array([3.0, 4.0], np.float32))
    xi.register_hook(double)
    np.testing.assert_allclose(ops.GradOperation()(net)(xi).asnumpy(), [2.0, 4.0])


def test_backward_hook_with_integer_inputs_and_outputs(pynative):
    """Integer tensors pass by the hooks' identity nodes: None in grad_input/grad_output, indices still work."""
    seen = []

    class Pick(nn.Cell):
        def construct(self, x, idx):
            return ops.gather(x, idx, 0) * 3, idx + 1

    net = Pick()
    net.register_backward_hook(lambda cell, gi, go: seen.append((gi[1] is None, go[1] is None, len(gi), len(go))))
    idx = Tensor(np.array([2, 0], np.int32))
    g = kiln.grad(lambda x: net(x, idx)[0].sum())(Tensor(X))
    np.testing.assert_allclose(g.asnumpy(), [3.0, 0.0, 3.0])
    assert seen == [(True, True, 2, 2)]
