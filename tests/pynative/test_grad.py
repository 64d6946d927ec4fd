"""Tape autograd in PyNative: grad / value_and_grad / GradOperation, higher order, stop_gradient, bprop.

Expected values are analytic derivatives written out by hand (or NumPy expressions of
them); the structure of the returned values follows MindSpore 2.x.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import kiln
from kiln import Parameter, Tensor, nn, ops
from kiln._pynative import autograd

X = np.array([1.0, 2.0, -0.5], np.float32)
Y = np.array([3.0, 4.0, 0.25], np.float32)


def f(x, y):
    return (x * x * y).sum()  # df/dx = 2xy, df/dy = x^2


def _np(t):
    return t.asnumpy()


@pytest.fixture
def xy():
    return Tensor(X), Tensor(Y)


# ---- grad_position ----------------------------------------------------------------------------


def test_grad_default_position_is_first_input(xy):
    np.testing.assert_allclose(_np(kiln.grad(f)(*xy)), 2 * X * Y)


def test_grad_int_position(xy):
    np.testing.assert_allclose(_np(kiln.grad(f, 1)(*xy)), X * X)
    np.testing.assert_allclose(_np(kiln.grad(f, -1)(*xy)), X * X)


def test_grad_tuple_position(xy):
    gx, gy = kiln.grad(f, (0, 1))(*xy)
    np.testing.assert_allclose(_np(gx), 2 * X * Y)
    np.testing.assert_allclose(_np(gy), X * X)
    gy2, gx2 = kiln.grad(f, (1, 0))(*xy)
    np.testing.assert_allclose(_np(gx2), 2 * X * Y)
    np.testing.assert_allclose(_np(gy2), X * X)


def test_grad_one_element_tuple_position_gives_the_gradient_itself(xy):
    # MindSpore 2.10 returns the bare gradient for grad_position=(0,).
    g = kiln.grad(f, (0,))(*xy)
    assert isinstance(g, Tensor)
    np.testing.assert_allclose(_np(g), 2 * X * Y)


def test_grad_position_out_of_range(xy):
    # an index past the arguments: IndexError, as Python's sequences and MindSpore's graph mode raise
    with pytest.raises(IndexError, match="grad_position"):
        kiln.grad(f, 2)(*xy)


def test_grad_of_unused_input_is_zeros(xy):
    g = kiln.grad(lambda x, y: (x * 3).sum(), 1)(*xy)
    np.testing.assert_array_equal(_np(g), np.zeros(3))


def test_grad_of_non_scalar_output_uses_ones_as_sensitivity(xy):
    g = kiln.grad(lambda x, y: x * y)(*xy)
    np.testing.assert_allclose(_np(g), Y)


def test_grad_of_several_outputs_sums_them(xy):
    g = kiln.grad(lambda x, y: (x * y, x * x))(*xy)
    np.testing.assert_allclose(_np(g), Y + 2 * X)


def test_gradient_dtype_follows_the_input():
    x = Tensor(X.astype(np.float64))
    g = kiln.grad(lambda x: (x * x).sum())(x)
    assert g.dtype is kiln.float64
    h = kiln.grad(lambda x: (x * x).sum())(Tensor(X.astype(np.float16)))
    assert h.dtype is kiln.float16


# ---- weights, has_aux, return_ids -------------------------------------------------------------


@pytest.fixture
def w():
    return Parameter(Tensor(np.array([0.5, -1.0, 2.0], np.float32)), name="w")


def test_weights_only(xy, w):
    grads = kiln.grad(lambda x: (x * w * w).sum(), None, [w])(xy[0])
    assert isinstance(grads, tuple) and len(grads) == 1
    np.testing.assert_allclose(_np(grads[0]), 2 * X * _np(w))


def test_single_parameter_as_weights(xy, w):
    g = kiln.grad(lambda x: (x * w).sum(), None, w)(xy[0])
    np.testing.assert_allclose(_np(g), X)


def test_positions_and_weights(xy, w):
    gx, (gw,) = kiln.grad(lambda x: (x * w).sum(), 0, [w])(xy[0])
    np.testing.assert_allclose(_np(gx), _np(w))
    np.testing.assert_allclose(_np(gw), X)


def test_value_and_grad(xy, w):
    value, (gx, (gw,)) = kiln.value_and_grad(lambda x, y: (x * y * w).sum(), 0, [w])(*xy)
    np.testing.assert_allclose(_np(value), np.sum(X * Y * _np(w)), rtol=1e-6)
    np.testing.assert_allclose(_np(gx), Y * _np(w))
    np.testing.assert_allclose(_np(gw), X * Y)


def test_value_and_grad_needs_something_to_differentiate():
    with pytest.raises(ValueError):
        kiln.value_and_grad(f, None, None)


def test_has_aux_returns_aux_as_a_tuple(xy):
    def g(x, y):
        return (x * y).sum(), x * 2

    grads, aux = kiln.grad(g, 0, has_aux=True)(*xy)
    np.testing.assert_allclose(_np(grads), Y)
    assert isinstance(aux, tuple) and len(aux) == 1  # MindSpore 2.10: always a tuple
    np.testing.assert_allclose(_np(aux[0]), 2 * X)


def test_has_aux_aux_does_not_contribute(xy):
    def g(x, y):
        return (x * y).sum(), (x * x * 100).sum(), y

    grads, aux = kiln.grad(g, 0, has_aux=True)(*xy)
    np.testing.assert_allclose(_np(grads), Y)
    assert len(aux) == 2


def test_value_and_grad_has_aux_returns_the_whole_output(xy):
    (out, aux), g = kiln.value_and_grad(lambda x, y: ((x * y).sum(), x + 1), 0, has_aux=True)(*xy)
    np.testing.assert_allclose(_np(out), np.sum(X * Y), rtol=1e-6)
    np.testing.assert_allclose(_np(aux), X + 1)
    np.testing.assert_allclose(_np(g), Y)


def test_return_ids(xy, w):
    pairs = kiln.grad(f, (0, 1), return_ids=True)(*xy)
    assert [p for p, _ in pairs] == [0, 1]
    np.testing.assert_allclose(_np(pairs[0][1]), 2 * X * Y)
    (pos, gx), ((name, gw),) = kiln.grad(lambda x: (x * w).sum(), 0, [w], return_ids=True)(xy[0])
    assert pos == 0 and name == "w"
    np.testing.assert_allclose(_np(gx), _np(w))
    np.testing.assert_allclose(_np(gw), X)


# ---- GradOperation ------------------------------------------------------------------------------


class Scale(nn.Cell):
    def __init__(self):
        super().__init__()
        self.w = Parameter(Tensor(np.array([0.5, -1.0, 2.0], np.float32)), name="w")

    def construct(self, x, y):
        return (x * self.w * y).sum()


def test_grad_operation_default(xy):
    net = Scale()
    np.testing.assert_allclose(_np(ops.GradOperation()(net)(*xy)), _np(net.w) * Y)


def test_grad_operation_get_all(xy):
    net = Scale()
    gx, gy = ops.GradOperation(get_all=True)(net)(*xy)
    np.testing.assert_allclose(_np(gx), _np(net.w) * Y)
    np.testing.assert_allclose(_np(gy), _np(net.w) * X)


def test_grad_operation_get_by_list(xy):
    net = Scale()
    params = net.trainable_params()
    (gw,) = ops.GradOperation(get_by_list=True)(net, params)(*xy)
    np.testing.assert_allclose(_np(gw), X * Y)
    (gx, gy), (gw2,) = ops.GradOperation(get_all=True, get_by_list=True)(net, params)(*xy)
    np.testing.assert_allclose(_np(gw2), X * Y)
    np.testing.assert_allclose(_np(gy), _np(net.w) * X)


def test_grad_operation_sens_param(xy):
    net = Scale()
    g = ops.GradOperation(sens_param=True)(net)(*xy, Tensor(np.float32(3.0)))
    np.testing.assert_allclose(_np(g), 3 * _np(net.w) * Y)
    vec = Tensor(np.array([1.0, 2.0, 3.0], np.float32))
    g2 = ops.GradOperation(sens_param=True)(lambda x: x * x)(xy[0], vec)
    np.testing.assert_allclose(_np(g2), 2 * X * np.array([1, 2, 3]))


class _GradWithArraySens(nn.Cell):
    """The zoo's FastText train cell: the sensitivity of a scalar loss is `F.tuple_to_array((sens,))`, shape (1,)."""

    def __init__(self, shape):
        super().__init__()
        self.grad = ops.GradOperation(sens_param=True)
        self.shape = shape

    def construct(self, x):
        sens = ops.reshape(ops.tuple_to_array((3.0,)), self.shape)
        return self.grad(lambda v: (v * v).mean())(x, sens)


@pytest.mark.parametrize("mode", [kiln.PYNATIVE_MODE, kiln.GRAPH_MODE])
@pytest.mark.parametrize("shape", [(1,), (1, 1)])
def test_one_element_sensitivity_of_a_scalar_output_is_taken_as_the_scalar(mode, shape):
    # MindSpore 2.10 accepts it in both modes; Kiln rejected it (PyNative: the backward program's input check,
    # GRAPH_MODE: JAX's vjp)
    kiln.set_context(mode=mode)
    g = _GradWithArraySens(shape)(Tensor(X))
    np.testing.assert_allclose(_np(g), 3.0 * 2 * X / X.size, rtol=1e-6)


class _LossScaleGrad(nn.Cell):
    """The zoo's BERT loss-scale cell: a `(1,)` loss (its masked-LM denominator adds `tuple_to_array((1e-5,))`)
    differentiated with the loss scale, a scalar Parameter, as its sensitivity."""

    def __init__(self, sens_shape):
        super().__init__()
        self.scale = Parameter(Tensor(np.full(sens_shape, 4.0, np.float32)), name="scale")
        self.grad = ops.GradOperation(sens_param=True)

    def construct(self, x):
        return self.grad(lambda v: ops.reshape((v * v).sum(), (1,)) / ops.tuple_to_array((2.0,)))(x, self.scale)


@pytest.mark.parametrize("mode", [kiln.PYNATIVE_MODE, kiln.GRAPH_MODE])
@pytest.mark.parametrize("sens_shape", [(), (1, 1)])
def test_one_element_sensitivity_of_a_one_element_output_takes_its_shape(mode, sens_shape):
    # MindSpore 2.10's GRAPH_MODE takes it (its PyNative refuses it); Kiln rejected it in both modes (PyNative: the
    # backward program's input check, GRAPH_MODE: JAX's vjp), so the zoo's BERT loss-scale cell did not run
    kiln.set_context(mode=mode)
    g = _LossScaleGrad(sens_shape)(Tensor(X))
    np.testing.assert_allclose(_np(g), 4.0 * X, rtol=1e-6)  # d/dx of sum(x^2)/2 is x


class _WrongShapeSens(nn.Cell):
    def __init__(self):
        super().__init__()
        self.grad = ops.GradOperation(sens_param=True)

    def construct(self, x, sens):
        return self.grad(lambda v: ops.matmul(v, v.T))(x, sens)


@pytest.mark.parametrize("mode", [kiln.PYNATIVE_MODE, kiln.GRAPH_MODE])
def test_a_sensitivity_of_another_shape_is_refused_where_it_is_passed(mode):
    # MindSpore 2.10 refuses it at the gradient call; Kiln's PyNative took it and failed later, when the result was
    # read, as an input error of its backward program
    kiln.set_context(mode=mode)
    x = Tensor(np.ones((2, 3), np.float32))
    with pytest.raises(ValueError, match=r"sens has shape \(3, 2\) but the output it weighs has shape \(2, 2\)"):
        _np(_WrongShapeSens()(x, Tensor(np.ones((3, 2), np.float32))))


class _BatchNormNet(nn.Cell):
    def __init__(self):
        super().__init__()
        self.bn = nn.BatchNorm2d(3, momentum=0.9)
        self.conv = nn.Conv2d(3, 2, 1, has_bias=True)

    def construct(self, x):
        return self.conv(self.bn(x)).sum()


class _ForwardThenGrad(nn.Cell):
    """The zoo's train cells (SSD's TrainingWrapper, GCN's TrainOneStepCell): the loss from a forward call, then
    GradOperation of the same network on the same inputs."""

    def __init__(self, net, forward_first):
        super().__init__(auto_prefix=False)
        self.network = net
        self.network.set_grad()
        self.weights = kiln.ParameterTuple(net.trainable_params())
        self.grad = ops.GradOperation(get_by_list=True, sens_param=True)
        self.forward_first = forward_first

    def construct(self, x):
        sens = ops.ones((), kiln.float32)
        if self.forward_first:
            loss = self.network(x)
            return loss, self.grad(self.network, self.weights)(x, sens)
        return self.grad(self.network, self.weights)(x, sens)


@pytest.mark.parametrize("mode", [kiln.PYNATIVE_MODE, kiln.GRAPH_MODE])
@pytest.mark.parametrize("forward_first", [True, False])
def test_forward_then_grad_of_the_same_inputs_updates_batchnorm_statistics_once(mode, forward_first):
    # MindSpore 2.10's GradOperation reuses the forward just run on the same inputs (both modes): the moving
    # statistics move once per step. Kiln ran the forward twice and moved them twice (SSD's BatchNorm heads).
    kiln.set_context(mode=mode)
    net = _BatchNormNet()
    step = _ForwardThenGrad(net, forward_first)
    step.set_train()
    x = np.random.RandomState(0).standard_normal((2, 3, 4, 4)).astype(np.float32)
    t = Tensor(x)
    mean, var = np.zeros(3), np.ones(3)
    for _ in range(3):  # the same input Tensor every step: each step still moves them once
        step(t)
        mean = 0.9 * mean + 0.1 * x.mean((0, 2, 3))
        var = 0.9 * var + 0.1 * x.var((0, 2, 3), ddof=1)
    np.testing.assert_allclose(_np(net.bn.moving_mean), mean, rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(_np(net.bn.moving_variance), var, rtol=1e-5, atol=1e-7)


class _DropoutNet(nn.Cell):
    """sum(dropout(w * x)): the gradient with respect to w is the mask / keep_prob times x, so it shows the mask."""

    def __init__(self, n):
        super().__init__()
        self.w = Parameter(Tensor(np.ones(n, np.float32)), name="w")
        self.drop = nn.Dropout(p=0.5)

    def construct(self, x):
        return self.drop(self.w * x).sum()


class _ForwardThenGradOf(nn.Cell):
    """_ForwardThenGrad without its set_grad() (the caller decides)."""

    def __init__(self, net):
        super().__init__(auto_prefix=False)
        self.network = net
        self.weights = kiln.ParameterTuple(net.trainable_params())
        self.grad = ops.GradOperation(get_by_list=True, sens_param=True)

    def construct(self, x):
        loss = self.network(x)
        return loss, self.grad(self.network, self.weights)(x, ops.ones_like(loss))


# MindSpore 2.10 (its own runs of this net): GRAPH_MODE differentiates the loss it returned (the forward's mask),
# set_grad or not; PyNative does when the network is marked set_grad(), and draws a second mask when it is not.
@pytest.mark.parametrize(
    "mode, set_grad, same_mask",
    [
        (kiln.GRAPH_MODE, True, True),
        (kiln.GRAPH_MODE, False, True),
        (kiln.PYNATIVE_MODE, True, True),
        (kiln.PYNATIVE_MODE, False, False),
    ],  # fmt: skip
)
def test_forward_then_grad_differentiates_the_loss_it_returned_with_its_dropout_mask(mode, set_grad, same_mask):
    kiln.set_context(mode=mode)
    n = 256
    net = _DropoutNet(n)
    if set_grad:
        net.set_grad()
    step = _ForwardThenGradOf(net)
    step.set_train()
    x = np.arange(1, n + 1, dtype=np.float32)
    t = Tensor(x)
    kiln.set_seed(3)
    draws = []
    for _ in range(3):
        loss, (gw,) = step(t)
        g = _np(gw)
        kept = g != 0
        np.testing.assert_allclose(g[kept], 2 * x[kept])  # the gradient of a dropout: mask / keep_prob times x
        draws.append(float(_np(loss)))
        # the loss the gradient implies (its mask applied to this w and x), against the loss returned
        implied = float((g * _np(net.w)).sum())
        assert (abs(implied - draws[-1]) < 1e-3 * abs(draws[-1])) is same_mask
    # a step draws once when the gradient reuses the forward's mask (twice when not): the next step's mask is new
    assert len(set(draws)) == 3
    # the same draws as a network with no gradient taken at all (one mask per step, the generator's own sequence)
    if same_mask:
        kiln.set_seed(3)
        plain = _DropoutNet(n)
        plain.set_train()
        if mode == kiln.GRAPH_MODE:
            plain = kiln.jit(plain)
        np.testing.assert_allclose([float(_np(plain(t))) for _ in range(3)], draws, rtol=1e-6)


class _SeededDrawNet(nn.Cell):
    """sum(w * draw) from a random op with its own seed: the gradient with respect to w is the draw itself."""

    def __init__(self, n, kind):
        super().__init__()
        self.n, self.kind = n, kind
        self.w = Parameter(Tensor(np.ones(n, np.float32)), name="w")
        self.normal = ops.StandardNormal(5, 6)

    def construct(self, x):
        if self.kind == "uniform":
            lo, hi = Tensor(0.0, kiln.float32), Tensor(1.0, kiln.float32)
            draw = ops.uniform((self.n,), lo, hi, seed=9)
        else:
            draw = self.normal((self.n,))
        return (self.w * draw * x).sum()


# MindSpore 2.10 (its own runs of this net, both kinds): a seeded op's stream is replayed like the global generator,
# the same mask cases as the Dropout test above; Kiln's gradient drew the seeded stream's next numbers instead
@pytest.mark.parametrize("kind", ["uniform", "StandardNormal"])
@pytest.mark.parametrize(
    "mode, set_grad, same_draw",
    [
        (kiln.GRAPH_MODE, True, True),
        (kiln.GRAPH_MODE, False, True),
        (kiln.PYNATIVE_MODE, True, True),
        (kiln.PYNATIVE_MODE, False, False),
    ],  # fmt: skip
)
def test_forward_then_grad_replays_a_seeded_random_ops_draw(kind, mode, set_grad, same_draw):
    kiln.set_context(mode=mode)
    n = 64
    net = _SeededDrawNet(n, kind)
    if set_grad:
        net.set_grad()
    step = _ForwardThenGradOf(net)
    step.set_train()
    t = Tensor(np.ones(n, np.float32))
    losses = []
    for _ in range(3):
        loss, (gw,) = step(t)
        losses.append(float(_np(loss)))
        implied = float((_np(gw) * _np(net.w)).sum())  # the loss of the draw the gradient saw
        assert (abs(implied - losses[-1]) < 1e-4 * (1 + abs(losses[-1]))) is same_draw
    if kind == "StandardNormal":  # a fresh Primitive's stream: without a gradient, the same draws, one per step
        plain = _SeededDrawNet(n, kind)
        if mode == kiln.GRAPH_MODE:
            plain = kiln.jit(plain)
        plain_losses = [float(_np(plain(t))) for _ in range(5)]
        want = plain_losses[:3] if same_draw else plain_losses[0:5:2]  # (without the replay, two draws a step)
        np.testing.assert_allclose(losses, want, rtol=1e-5)


@kiln.constexpr
def _numpy_draw(n):
    return Tensor(np.random.uniform(size=(n,)).astype(np.float32))


class _ConstexprDrawNet(nn.Cell):
    """w * x * d summed, d drawn from NumPy's global generator by a @constexpr function (the zoo's PointNet++ draws its
    farthest-point-sampling starts so)."""

    def __init__(self, n):
        super().__init__()
        self.w = Parameter(Tensor(np.ones(n, np.float32)), name="w")

    def construct(self, x):
        return (self.w * x * _numpy_draw(self.w.shape[0])).sum()


# MindSpore 2.10 (its own runs of this net): the gradient reuses the forward's @constexpr value, as it does a random
# op's draw (GRAPH_MODE, set_grad or not; PyNative when set_grad); PyNative without set_grad runs the function again.
# Kiln's gradient ran the forward again in every case, so it differentiated the next NumPy draw.
@pytest.mark.parametrize(
    "mode, set_grad, same_draw",
    [
        (kiln.GRAPH_MODE, True, True),
        (kiln.GRAPH_MODE, False, True),
        (kiln.PYNATIVE_MODE, True, True),
        (kiln.PYNATIVE_MODE, False, False),
    ],  # fmt: skip
)
def test_forward_then_grad_reuses_the_forwards_constexpr_value(mode, set_grad, same_draw):
    kiln.set_context(mode=mode)
    net = _ConstexprDrawNet(3)
    if set_grad:
        net.set_grad()
    step = _ForwardThenGradOf(net)
    x = np.array([1.0, 2.0, 3.0], np.float32)
    draws = np.random.RandomState(0).uniform(size=6).astype(np.float32)  # the forward's draw, then the next
    for _ in range(2):
        np.random.seed(0)
        loss, (gw,) = step(Tensor(x))
        np.testing.assert_allclose(_np(loss), (x * draws[:3]).sum(), rtol=1e-6)
        np.testing.assert_allclose(_np(gw), x * (draws[:3] if same_draw else draws[3:]), rtol=1e-6)


class _Wrap(nn.Cell):
    def __init__(self, net):
        super().__init__(auto_prefix=False)
        self.network = net

    def construct(self, x):
        return self.network(x)


class _ForwardThenGradElsewhere(nn.Cell):
    """The forward of `net`, then the gradient of a Cell wrapping it (`wrap`; the zoo's StarGAN differentiates
    its loss cell through such a wrapper) and/or of `net` on other inputs of the same shape (`other`)."""

    def __init__(self, net, wrap, other):
        super().__init__(auto_prefix=False)
        self.network = net
        self.target = _Wrap(net) if wrap else net
        self.other = other
        self.weights = kiln.ParameterTuple(net.trainable_params())
        self.grad = ops.GradOperation(get_by_list=True, sens_param=True)

    def construct(self, x):
        loss = self.network(x)
        return loss, self.grad(self.target, self.weights)(x * 2 if self.other else x, ops.ones_like(loss))


# MindSpore 2.10 (its own runs of this net): GRAPH_MODE infers a construct once per input signature, so the gradient
# gets the forward's @constexpr value through a wrapper Cell or on other inputs of the same shape too, and the step
# draws once from NumPy when compiled (none when run again). Kiln drew again for such a gradient (the StarGAN zoo
# network's WGAN-GP alpha: its second D step's penalty was 4.933 against MindSpore's 4.857).
@pytest.mark.parametrize("wrap, other", [(True, False), (False, True), (True, True)])
def test_graph_gradient_through_a_wrapper_or_other_inputs_shares_the_forwards_constexpr_value(wrap, other):
    kiln.set_context(mode=kiln.GRAPH_MODE)
    step = _ForwardThenGradElsewhere(_ConstexprDrawNet(3), wrap, other)
    x = np.array([1.0, 2.0, 3.0], np.float32)
    draws = np.random.RandomState(0).uniform(size=6).astype(np.float32)
    for compiled in (False, True):
        np.random.seed(0)
        loss, (gw,) = step(Tensor(x))
        np.testing.assert_allclose(_np(loss), (x * draws[:3]).sum(), rtol=1e-6)
        np.testing.assert_allclose(_np(gw), x * (2 if other else 1) * draws[:3], rtol=1e-6)
        # the next NumPy draw: the compile drew once, the compiled step not at all
        assert np.float32(np.random.uniform()) == draws[0 if compiled else 3]


class _DrawsAroundForwardThenGrad(nn.Cell):
    """A draw before the forward, the forward, a draw between the forward and the gradient, the gradient (or none,
    `grad=False`: the same draws with no gradient taken). A draw comes from the network's own generator ("same":
    its StandardNormal's stream, or the global generator under its Dropout), from a stream nothing else uses
    ("other"), or is skipped (None)."""

    def __init__(self, net, before, between, grad=True):
        super().__init__(auto_prefix=False)
        self.network = net
        net.set_grad()
        self.weights = kiln.ParameterTuple(net.trainable_params())
        self.grad = ops.GradOperation(get_by_list=True, sens_param=True)
        self.other = ops.StandardNormal(7, 8)
        self.before, self.between, self.take_grad = before, between, grad

    def _draw(self, source):
        if source is None:
            return ops.zeros((), kiln.float32)
        if source == "other":
            return self.other((4,)).sum()
        if isinstance(self.network, _SeededDrawNet):
            return self.network.normal((4,)).sum()
        return ops.uniform((4,), Tensor(0.0, kiln.float32), Tensor(1.0, kiln.float32)).sum()  # the global one

    def construct(self, x):
        pre = self._draw(self.before)
        loss = self.network(x)
        mid = self._draw(self.between)
        if not self.take_grad:
            return pre, loss, mid, loss
        (gw,) = self.grad(self.network, self.weights)(x, ops.ones_like(loss))
        return pre, loss, mid, (gw * self.weights[0]).sum()  # the loss of the draw the gradient saw


# MindSpore 2.10's PyNative (its own runs of these steps, a StandardNormal net or a global-generator one, each draw
# from the same or another generator): the gradient reuses the forward's draw and draws nothing itself, so every
# draw outside the gradient is the one the same step without a gradient makes. Kiln's replay rewound the
# generators to before the forward: a draw between the forward and the gradient came again at the next step.
@pytest.mark.parametrize("mode", [kiln.PYNATIVE_MODE, kiln.GRAPH_MODE])
@pytest.mark.parametrize("kind", ["StandardNormal", "Dropout"])
@pytest.mark.parametrize(
    "before, between",
    [(None, "same"), (None, "other"), ("same", "same"), ("other", "same")],
)
def test_forward_then_grad_draws_nothing_again_outside_the_replayed_forward(mode, kind, before, between):
    kiln.set_context(mode=mode)
    n = 64

    def run(grad):
        kiln.set_seed(3)
        net = _SeededDrawNet(n, kind) if kind == "StandardNormal" else _DropoutNet(n)
        step = _DrawsAroundForwardThenGrad(net, before, between, grad)
        step.set_train()
        t = Tensor(np.arange(1, n + 1, dtype=np.float32))
        return np.array([[float(_np(v)) for v in step(t)] for _ in range(3)])

    with_grad, plain = run(True), run(False)
    np.testing.assert_allclose(with_grad[:, 3], with_grad[:, 1], rtol=1e-5)  # the gradient saw the forward's draw
    np.testing.assert_allclose(with_grad[:, :3], plain[:, :3], rtol=1e-5)
    drawn = [v for v in with_grad[:, :3].ravel() if v != 0]
    assert len(set(drawn)) == len(drawn)  # nothing outside the gradient drew the same numbers twice


def test_forward_then_grad_without_set_grad_moves_batchnorm_statistics_once_in_graph_mode():
    # MindSpore 2.10's GRAPH_MODE reuses the forward whether or not the network is marked set_grad(); Kiln's graph
    # recorded the forward only for a set_grad() network and moved the statistics twice
    kiln.set_context(mode=kiln.GRAPH_MODE)
    net = _BatchNormNet()
    step = _ForwardThenGradOf(net)
    step.set_train()
    x = np.random.RandomState(0).standard_normal((2, 3, 4, 4)).astype(np.float32)
    step(Tensor(x))
    np.testing.assert_allclose(_np(net.bn.moving_mean), 0.1 * x.mean((0, 2, 3)), rtol=1e-5, atol=1e-7)


class _TwoWeights(nn.Cell):
    """sum(tanh(a * x) * b): d/db = tanh(a x), d/da = b x (1 - tanh(a x)^2)."""

    def __init__(self):
        super().__init__()
        self.a = Parameter(Tensor(np.array([0.5, -1.0, 2.0], np.float32)), name="a")
        self.b = Parameter(Tensor(np.array([1.5, 0.25, -2.0], np.float32)), name="b")

    def construct(self, x):
        return (ops.tanh(self.a * x) * self.b).sum()


class _ForwardStepThenGrad(nn.Cell):
    """Pix2Pix's TrainOneStepCell: the loss from a forward call, another optimizer writes a weight of the network
    (D's step), then GradOperation of the network on the same inputs (G's gradient)."""

    def __init__(self, net, forward_first):
        super().__init__(auto_prefix=False)
        self.network = net
        self.network.set_grad()
        self.grad = ops.GradOperation(get_by_list=True, sens_param=True)
        self.forward_first = forward_first

    def construct(self, x, new_a):
        loss = self.network(x) if self.forward_first else ops.zeros((), kiln.float32)
        ops.assign(self.network.a, new_a)
        weights = kiln.ParameterTuple([self.network.a, self.network.b])
        return loss, self.grad(self.network, weights)(x, ops.ones_like(loss))


@pytest.mark.parametrize("mode", [kiln.PYNATIVE_MODE, kiln.GRAPH_MODE])
@pytest.mark.parametrize("forward_first", [True, False])
def test_forward_then_grad_differentiates_at_the_weights_of_the_forward(mode, forward_first):
    # MindSpore 2.10's GRAPH_MODE (Pix2Pix: G's loss, D's Adam step, then G's gradient through D) differentiates at
    # the weights its reused forward read; Kiln ran the forward again on the stepped weights. The write stays.
    kiln.set_context(mode=mode)
    net = _ForwardStepThenGrad(_TwoWeights(), forward_first)
    x = np.array([0.3, -1.2, 0.7], np.float32)
    a0, b = _np(net.network.a).copy(), _np(net.network.b).copy()
    for step in range(2):
        new_a = a0 + 0.5 * (step + 1)
        loss, (ga, gb) = net(Tensor(x), Tensor(new_a.astype(np.float32)))
        at = a0 if forward_first else new_a  # without a forward first there is nothing to reuse
        t = np.tanh(at * x)
        if forward_first:
            np.testing.assert_allclose(_np(loss), (t * b).sum(), rtol=1e-6)
        np.testing.assert_allclose(_np(gb), t, rtol=1e-6, atol=1e-7)
        np.testing.assert_allclose(_np(ga), b * x * (1 - t * t), rtol=1e-6, atol=1e-6)
        np.testing.assert_allclose(_np(net.network.a), new_a, rtol=1e-7)
        a0 = new_a


def test_the_pynative_replay_puts_the_forward_state_back_without_assign_kernels(monkeypatch):
    # the replay moves the arrays it kept back into the Parameters: an Assign per weight and statistic (and an
    # Identity per stepped weight) compiled a kernel per shape in Pix2Pix's first step. The values are the tests'
    # above (both modes); here only that PyNative's replay dispatches no Assign.
    calls = []
    real = autograd.apply
    monkeypatch.setattr(autograd, "apply", lambda prim, *args: calls.append(prim.name) or real(prim, *args))
    x = np.array([0.3, -1.2, 0.7], np.float32)
    net = _ForwardStepThenGrad(_TwoWeights(), True)
    net(Tensor(x), Tensor(np.ones(3, np.float32)))
    bn_step = _ForwardThenGrad(_BatchNormNet(), True)
    bn_step.set_train()
    bn_step(Tensor(np.random.RandomState(0).standard_normal((2, 3, 4, 4)).astype(np.float32)))
    assert "Identity" in calls and "Assign" not in calls, calls  # (the forward's copies are Identity ops)


def test_grad_operation_get_by_list_without_weights(xy):
    # MindSpore: a Cell's trainable parameters are the default weights; a plain function has none: an empty tuple.
    net = Scale()
    (gw,) = ops.GradOperation(get_by_list=True)(net)(*xy)
    (want,) = ops.GradOperation(get_by_list=True)(net, net.trainable_params())(*xy)
    np.testing.assert_allclose(_np(gw), _np(want))
    x, y = _np(xy[0]), _np(xy[1])
    np.testing.assert_allclose(_np(gw), (x * y).reshape(-1, 3).sum(0), rtol=1e-6)  # d/dw of sum(x * w * y)
    assert ops.GradOperation(get_by_list=True)(lambda x, y: (x * y).sum())(*xy) == ()
    in_grads, w_grads = ops.GradOperation(get_all=True, get_by_list=True)(lambda x, y: (x * y).sum())(*xy)
    assert len(in_grads) == 2 and w_grads == ()


def test_weights_keep_no_history_after_a_gradient(xy):
    net = Scale()
    ops.GradOperation(get_by_list=True)(net, net.trainable_params())(*xy)
    assert net.w._nodes is None


# ---- higher order ---------------------------------------------------------------------------------


def test_second_derivative():
    x = Tensor(X)
    d2 = kiln.grad(kiln.grad(lambda x: (ops.sin(x) * x).sum()))(x)
    # d/dx (sin x + x cos x) = 2 cos x - x sin x
    np.testing.assert_allclose(_np(d2), 2 * np.cos(X) - X * np.sin(X), rtol=1e-5, atol=1e-6)


def test_third_derivative():
    x = Tensor(X.astype(np.float64))
    d3 = kiln.grad(kiln.grad(kiln.grad(lambda x: (x**4).sum())))(x)
    np.testing.assert_allclose(_np(d3), 24 * X.astype(np.float64), rtol=1e-12)


def test_mixed_second_derivative(xy):
    # d/dy of (df/dx = 2xy) summed = 2x
    def dfdx_sum(x, y):
        return kiln.grad(f, 0)(x, y).sum()

    np.testing.assert_allclose(_np(kiln.grad(dfdx_sum, 1)(*xy)), 2 * X)


def test_grad_of_value_and_grad_through_exp():
    x = Tensor(np.array([0.3, -0.7], np.float64))

    def first(x):
        _, g = kiln.value_and_grad(lambda x: ops.exp(x * x).sum())(x)
        return g.sum()

    # d/dx [2x exp(x^2)] = (2 + 4x^2) exp(x^2)
    a = np.array([0.3, -0.7])
    np.testing.assert_allclose(_np(kiln.grad(first)(x)), (2 + 4 * a * a) * np.exp(a * a), rtol=1e-12)


# ---- stop_gradient, non-float inputs, custom bprop ------------------------------------------------


def test_stop_gradient():
    x = Tensor(X)
    g = kiln.grad(lambda x: (ops.stop_gradient(x * x) * x).sum())(x)
    np.testing.assert_allclose(_np(g), X * X)
    g2 = kiln.grad(lambda x: (ops.stop_gradient(x) * 5).sum() + x.sum())(x)
    np.testing.assert_allclose(_np(g2), np.ones(3))


def test_stop_gradient_of_tuple():
    x = Tensor(X)
    g = kiln.grad(lambda x: sum(t.sum() for t in ops.stop_gradient((x * 2, x * 3))) + (x * x).sum())(x)
    np.testing.assert_allclose(_np(g), 2 * X)


# MindSpore 2.10 (checked in PyNative and GRAPH_MODE): an integer input is differentiated as a real number and
# the gradient comes back in its dtype; where it can only be an integer (an index) the gradient is zeros.
INT_GRAD_CASES = [
    ("mul", lambda x, y: (x * x * y).sum(), lambda x, y: 2 * x * y),
    ("cast", lambda x, y: (ops.cast(x, kiln.float32) * y).sum(), lambda x, y: y),
    ("pow", lambda x, y: (x.astype(kiln.float32) ** 2).sum(), lambda x, y: 2 * x),
    ("floordiv", lambda x, y: ((x // 2) * 5).sum(), lambda x, y: np.zeros_like(x)),
    ("index", lambda x, y: ops.gather(y, x, 0).sum() * 3, lambda x, y: np.zeros_like(x)),
]


@pytest.mark.parametrize("mode", [kiln.PYNATIVE_MODE, kiln.GRAPH_MODE])
@pytest.mark.parametrize(("name", "fn", "expected"), INT_GRAD_CASES, ids=[c[0] for c in INT_GRAD_CASES])
@pytest.mark.parametrize("dtype", [np.int32, np.int64])
def test_gradient_of_an_integer_input_is_the_real_derivative_in_its_dtype(mode, name, fn, expected, dtype):
    kiln.set_context(mode=mode)
    x = np.array([0, 1, 2], dtype)
    y = np.array([1.5, 2.0, 3.0], np.float32)
    g = kiln.grad(fn)(Tensor(x), Tensor(y))
    assert g.dtype == Tensor(x).dtype
    np.testing.assert_array_equal(_np(g), expected(x, y).astype(dtype))


def test_gradient_of_a_bool_input_is_zeros():
    g = kiln.grad(lambda m, y: (ops.select(m, y, y * 2)).sum())(Tensor(np.array([True, False])), Tensor([1.0, 2.0]))
    np.testing.assert_array_equal(_np(g), [False, False])


def test_gradient_of_a_python_number_is_left_out():
    # MindSpore 2.10 (PyNative and graph): a position holding no Tensor gets no gradient, so none at all is ()
    assert kiln.grad(lambda x: x * 2)(3.0) == ()


def test_integer_inputs_not_differentiated_are_fine(xy):
    g = kiln.grad(lambda x, i: ops.gather(x, i, 0).sum())(xy[0], Tensor(np.array([0, 0, 2])))
    np.testing.assert_allclose(_np(g), [2, 0, 1])


class TimesTen(nn.Cell):
    """Forward x*x, but a user bprop that claims the gradient is 10 * dout."""

    def construct(self, x):
        return x * x

    def bprop(self, x, out, dout):
        return (dout * 10,)


class UsesOut(nn.Cell):
    def construct(self, x, y):
        return x * y

    def bprop(self, x, y, out, dout):
        return dout * y, dout * out  # deliberately not the true derivative w.r.t. y


def test_custom_bprop_replaces_backward():
    x = Tensor(X)
    np.testing.assert_allclose(_np(kiln.grad(lambda x: TimesTen()(x).sum())(x)), np.full(3, 10.0))
    # forward unchanged
    np.testing.assert_allclose(_np(TimesTen()(x)), X * X)


def test_custom_bprop_gets_inputs_out_and_dout(xy):
    gx, gy = kiln.grad(lambda x, y: (UsesOut()(x, y) * 2).sum(), (0, 1))(*xy)
    np.testing.assert_allclose(_np(gx), 2 * Y)
    np.testing.assert_allclose(_np(gy), 2 * X * Y)


def test_custom_bprop_inside_a_larger_graph():
    x = Tensor(X)

    def fn(x):
        return (ops.sin(TimesTen()(x * 3))).sum()

    # chain: d/dx sin(u) with du/dv := 10 (user rule), v = 3x
    u = (3 * X) ** 2
    np.testing.assert_allclose(_np(kiln.grad(fn)(x)), np.cos(u) * 10 * 3, rtol=1e-5)


def _extra_gradients_cell() -> nn.Cell:
    """A Cell, of a class of its own (the warning is once per class), whose bprop returns two values past its two
    inputs' gradients (MindSpore 2.10 ignores them)."""

    class _ExtraGradients(nn.Cell):
        def construct(self, x, y):
            return x * y * y

        def bprop(self, x, y, out, dout):
            return x + y, x * y, out, dout

    return _ExtraGradients()


class _TooFewGradients(nn.Cell):
    def construct(self, x, y):
        return x * y

    def bprop(self, x, y, out, dout):
        return (dout,)


@pytest.mark.parametrize("mode", ["pynative", "graph", "jit", "bytecode"])
def test_gradients_a_bprop_returns_past_its_inputs_are_ignored_with_one_warning(mode):
    net = _extra_gradients_cell()
    grad_all = ops.GradOperation(get_all=True)
    if mode == "graph":
        kiln.set_context(mode=kiln.GRAPH_MODE)
        run = grad_all(net)
    elif mode == "pynative":
        run = grad_all(net)
    else:
        run = kiln.jit(lambda x, y: grad_all(net)(x, y), capture_mode="ast" if mode == "jit" else "bytecode")
    x, y = Tensor(np.float32(1.0)), Tensor(np.float32(2.0))
    with pytest.warns(UserWarning, match="_ExtraGradients returned 4 values for 2 input"):
        gx, gy = run(x, y)
    assert (float(gx.asnumpy()), float(gy.asnumpy())) == (3.0, 2.0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        run(x, y + 1)  # once per Cell class


@pytest.mark.parametrize("mode", ["pynative", "graph"])
def test_a_bprop_returning_fewer_gradients_than_inputs_is_an_error(mode):
    if mode == "graph":
        kiln.set_context(mode=kiln.GRAPH_MODE)
    with pytest.raises(ValueError, match="_TooFewGradients returned 1 gradient"):
        ops.GradOperation(get_all=True)(_TooFewGradients())(Tensor([1.0]), Tensor([2.0]))


class _PartlyFrozen(nn.Cell):
    def __init__(self):
        super().__init__()
        self.p1 = Parameter(Tensor(np.array([2.0], np.float32)), name="p1")
        self.p2 = Parameter(Tensor(np.array([3.0], np.float32)), name="p2")
        self.p1.requires_grad = False

    def construct(self, x):
        return self.p1 * x * self.p2


def test_frozen_parameter_asked_for_gets_zeros_in_pynative_and_its_gradient_in_graph_mode():
    # MindSpore 2.10: PyNative returns zeros for a Parameter with requires_grad=False; graph mode differentiates it.
    x = Tensor([5.0])
    net = _PartlyFrozen()
    grads = ops.GradOperation(get_by_list=True)(net, [net.p1, net.p2])(x)
    np.testing.assert_allclose([g.asnumpy()[0] for g in grads], [0.0, 10.0])
    kiln.set_context(mode=kiln.GRAPH_MODE)
    grads = ops.GradOperation(get_by_list=True)(net, [net.p1, net.p2])(x)
    np.testing.assert_allclose([g.asnumpy()[0] for g in grads], [15.0, 10.0])


class _ShadowingTrainCell(nn.Cell):
    """The zoo's FiBiNET TrainStepWrap keeps its Parameter list as `self.trainable_params`, over the Cell method."""

    def __init__(self, net):
        super().__init__()
        self.network = net
        self.network.set_grad()
        self.trainable_params = net.trainable_params()
        self.weights = kiln.ParameterTuple(self.trainable_params)
        self.grad = ops.GradOperation(get_by_list=True, sens_param=True)

    def construct(self, x):
        loss = self.network(x)
        return loss, self.grad(self.network, self.weights)(x, ops.ones_like(loss))


@pytest.mark.parametrize("mode", [kiln.GRAPH_MODE, kiln.PYNATIVE_MODE])
def test_a_cell_attribute_named_like_a_cell_method_is_not_called_by_the_gradient(mode):
    # Kiln's record of a forward (note_forward) called cell.trainable_params(), which GRAPH_MODE makes for every Cell
    # it runs: TypeError: 'list' object is not callable (MindSpore 2.10 runs the zoo's FiBiNET in both modes).
    kiln.set_context(mode=mode)
    net = _DropoutNet(4)
    net.drop = nn.Identity()
    w = np.array([0.5, -1.0, 2.0, 3.0], np.float32)
    net.w.set_data(Tensor(w))
    x = np.array([1.0, 2.0, -3.0, 4.0], np.float32)
    loss, (gw,) = _ShadowingTrainCell(net)(Tensor(x))
    np.testing.assert_allclose(float(_np(loss)), float((w * x).sum()), rtol=1e-6)
    np.testing.assert_allclose(_np(gw), x)  # d sum(w * x) / dw


class _IntInput(nn.Cell):
    """A network whose first input is an integer tensor: int8 arithmetic that wraps (as in MindSpore and NumPy), then
    an embedding-style gather that only an integer index passes."""

    def __init__(self, calls: list):
        super().__init__()
        self.w = Parameter(Tensor(np.array([1.0, 2.0, 3.0], np.float32)), name="w")
        self.table = Parameter(Tensor(np.arange(12, dtype=np.float32).reshape(4, 3)), name="table")
        self.calls = calls

    def construct(self, x, gather: bool):
        self.calls.append(1)
        out = self.w * (x + x).astype(kiln.float32)
        if gather:
            out = out + ops.gather(self.table, ops.abs(x) % 4, 0).sum(0)
        return out.sum()


@pytest.mark.parametrize("mode", [kiln.PYNATIVE_MODE, kiln.GRAPH_MODE])
def test_get_by_list_does_not_differentiate_an_integer_first_input(mode):
    # GradOperation(get_by_list=True) returns the Parameters' gradients only. Kiln differentiated the first input too
    # and tried an integer one as float32 first: its weights' gradients were taken at 200 where int8 100 + 100 wraps
    # to -56 (MindSpore 2.10, both modes: -56), and in PyNative a forward the float index failed in ran twice
    kiln.set_context(mode=mode)
    x = np.array([100, 1, -100], np.int8)
    calls: list = []
    net = _IntInput(calls)
    for gather in (False, True):
        calls.clear()
        gw, gt = ops.GradOperation(get_by_list=True)(net, net.trainable_params())(Tensor(x), gather)
        np.testing.assert_array_equal(gw.asnumpy(), (x + x).astype(np.float32))
        expected = np.zeros((4, 3), np.float32)
        if gather:
            np.add.at(expected, np.abs(x.astype(np.int32)) % 4, 1.0)
        np.testing.assert_array_equal(gt.asnumpy(), expected)
        if mode == kiln.PYNATIVE_MODE:
            assert len(calls) == 1
