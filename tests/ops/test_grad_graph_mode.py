"""Gradient transforms in GRAPH_MODE: one compiled graph per call signature, same numbers as PyNative."""

import os
import traceback

import numpy as np
import pytest

import kiln
from kiln import nn, ops
from kiln._compiler.cache import memory as cache
from kiln.ops._grad import custom_vjp


class _Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Dense(6, 8)
        self.fc2 = nn.Dense(8, 3)

    def construct(self, x):
        return self.fc2(ops.relu(self.fc1(x)))


def _train(mode, transform):
    kiln.set_context(mode=mode)
    kiln.set_seed(7)
    net = _Net()
    loss_fn = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    opt = nn.Momentum(net.trainable_params(), learning_rate=0.1, momentum=0.9)

    def forward(x, y):
        return loss_fn(net(x), y)

    if transform == "value_and_grad":
        grad_fn = kiln.value_and_grad(forward, None, opt.parameters)
    else:
        grad_op = kiln.GradOperation(get_by_list=True)(forward, opt.parameters)

        def grad_fn(x, y):
            return forward(x, y), grad_op(x, y)

    rng = np.random.default_rng(0)
    x = kiln.Tensor(rng.standard_normal((16, 6)).astype(np.float32))
    y = kiln.Tensor(rng.integers(0, 3, 16).astype(np.int32))
    losses = []
    before = cache.STATS["compiles"]
    for _ in range(4):
        loss, grads = grad_fn(x, y)
        opt(grads)
        losses.append(float(loss))
    compiles = cache.STATS["compiles"] - before
    weights = [p.asnumpy() for p in net.trainable_params()]
    kiln.set_context(mode=kiln.PYNATIVE_MODE)
    return losses, weights, compiles


@pytest.mark.parametrize("transform", ["value_and_grad", "GradOperation"])
def test_graph_mode_gradients_match_pynative_and_compile_once(transform):
    py_losses, py_weights, py_compiles = _train(kiln.PYNATIVE_MODE, transform)
    g_losses, g_weights, g_compiles = _train(kiln.GRAPH_MODE, transform)
    assert py_compiles == 0
    np.testing.assert_allclose(g_losses, py_losses, rtol=1e-5, atol=1e-6)
    for a, b in zip(g_weights, py_weights, strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
    assert py_losses[-1] < py_losses[0]
    # Compiled once each, not once per step: the gradient transform and the optimizer; for GradOperation
    # also the net and the loss Cells that the plain `forward(x, y)` call runs in GRAPH_MODE.
    assert g_compiles == (2 if transform == "value_and_grad" else 4)


@pytest.mark.parametrize("stop", ["function", "primitive"])
@pytest.mark.parametrize("how", ["pynative", "graph_mode", "jit_of_grad", "grad_of_jit", "bytecode"])
def test_stop_gradient_cuts_every_gradient(how, stop):
    # f(x) = stop(x*x)*x + x: the stopped factor is a constant, so df/dx = x*x + 1 (10 at x=3), never 3*x*x + 1.
    cut = ops.stop_gradient if stop == "function" else ops.StopGradient()

    def f(x):
        return cut(x * x) * x + x

    x = kiln.Tensor(np.float32(3.0))
    try:
        if how == "graph_mode":
            kiln.set_context(mode=kiln.GRAPH_MODE)
            grad = kiln.grad(f)(x)
        elif how == "jit_of_grad":
            grad = kiln.jit(kiln.grad(f))(x)
        elif how == "grad_of_jit":
            grad = kiln.grad(kiln.jit(f))(x)
        elif how == "bytecode":
            grad = kiln.jit(kiln.grad(f), capture_mode="bytecode")(x)
        else:
            grad = kiln.grad(f)(x)
    finally:
        kiln.set_context(mode=kiln.PYNATIVE_MODE)
    assert float(grad) == pytest.approx(10.0)


def test_stop_gradient_on_a_detached_target_in_a_cell_loss():
    # A loss against a detached copy of the network's own output: only the first term carries a gradient.
    def loss(mode):
        kiln.set_context(mode=mode)
        try:
            kiln.set_seed(3)
            net = nn.Dense(4, 2)
            x = kiln.Tensor(np.arange(8, dtype=np.float32).reshape(2, 4) / 8)

            def forward(x):
                out = net(x)
                return ((out - ops.stop_gradient(out * 0.5)) ** 2).sum()

            return [g.asnumpy() for g in kiln.value_and_grad(forward, None, net.trainable_params())(x)[1]]
        finally:
            kiln.set_context(mode=kiln.PYNATIVE_MODE)

    eager, graph = loss(kiln.PYNATIVE_MODE), loss(kiln.GRAPH_MODE)
    for e, g in zip(eager, graph, strict=True):
        np.testing.assert_allclose(g, e, rtol=1e-5, atol=1e-6)


class _ScaledMatMul(nn.Cell):
    def __init__(self):
        super().__init__()
        self.z = kiln.Parameter(kiln.Tensor(np.array([1.0], np.float32)), name="z")

    def construct(self, x, y):
        return ops.matmul(x * self.z, y)


@pytest.mark.parametrize("mode", [kiln.PYNATIVE_MODE, kiln.GRAPH_MODE])
def test_custom_vjp_of_a_function_that_builds_a_cell(mode):
    """MindSpore's gradient/test_custom_fn_bprop.py (`ops.function.grad.grad_func.custom_vjp`): the backward given
    by `defbwd` replaces the function's own, also when the function builds a Cell with a Parameter on each call."""

    @custom_vjp
    def fn(x, y):
        return _ScaledMatMul()(x, y)

    x = kiln.Tensor(np.array([[0.5, 0.6, 0.4], [1.2, 1.3, 1.1]], np.float32))
    y = kiln.Tensor(np.arange(9, dtype=np.float32).reshape(3, 3))
    kiln.set_context(mode=mode)
    try:
        grad_all = ops.GradOperation(get_all=True)
        own = grad_all(fn)(x, y)  # no defbwd yet: the function's own gradient
        np.testing.assert_allclose(own[0].asnumpy(), np.ones((2, 3)) @ y.asnumpy().T, rtol=1e-6)
        fn.defbwd(lambda x, y, out, dout: (x + x, y * 3))
        dx, dy = grad_all(fn)(x, y)
        np.testing.assert_allclose(dx.asnumpy(), 2 * x.asnumpy())
        np.testing.assert_allclose(dy.asnumpy(), 3 * y.asnumpy())
    finally:
        kiln.set_context(mode=kiln.PYNATIVE_MODE)


def _kiln_frames(err: BaseException) -> list[str]:
    kiln_dir = os.path.dirname(os.path.abspath(kiln.__file__)) + os.sep
    frames = [os.path.abspath(f.filename) for f in traceback.extract_tb(err.__traceback__)]
    return [f for f in frames if f.startswith(kiln_dir)]


@pytest.mark.parametrize(
    "make, args, kind",
    [
        (lambda net: ops.GradOperation(sens_param=True)(net), ((4, 6), (4, 5)), ValueError),  # sens (4, 5) != (4, 3)
        (lambda net: kiln.value_and_grad(net, grad_position=2), ((4, 6),), IndexError),
    ],
)
@pytest.mark.parametrize("mode", [kiln.PYNATIVE_MODE, kiln.GRAPH_MODE])
def test_a_gradients_error_shows_the_users_frames(make, args, kind, mode, monkeypatch):
    """A mistake found inside the gradient (its sens, its grad_position) shows the user's call and at most the one
    Kiln frame where the call entered Kiln, as a Cell's call does (PyNative showed 6 frames of autograd, GRAPH_MODE
    2)."""
    monkeypatch.delenv("KILN_DEBUG", raising=False)
    kiln.set_context(mode=mode)
    fn = make(_Net())
    tensors = [kiln.Tensor(np.ones(shape, np.float32)) for shape in args]
    try:
        with pytest.raises(kind) as info:
            fn(*tensors)  # the user's line
    finally:
        kiln.set_context(mode=kiln.PYNATIVE_MODE)
    assert len(_kiln_frames(info.value)) <= 1, "".join(traceback.format_exception(info.value))
    last_user = [f for f in traceback.extract_tb(info.value.__traceback__) if f.filename == __file__][-1]
    assert last_user.line == "fn(*tensors)  # the user's line"
