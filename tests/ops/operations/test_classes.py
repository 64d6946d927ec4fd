"""Primitive classes of kiln.ops.operations: gradient hooks (debug_ops), MaxPoolWithArgmax (nn_ops), elementwise."""

from __future__ import annotations

import numpy as np
import pytest

import kiln
from kiln import Tensor, nn, ops


def test_hook_backward_sees_and_may_replace_the_gradient():
    seen = []
    hook = ops.HookBackward(lambda g: seen.append(g[0].asnumpy().copy()))  # a tuple, one gradient per input
    g = kiln.grad(lambda x: (hook(x) * x).sum())(Tensor([1.0, 2.0]))
    np.testing.assert_allclose(g.asnumpy(), [2.0, 4.0])
    np.testing.assert_allclose(seen[0], [1.0, 2.0])
    doubling = ops.HookBackward(lambda grads: (grads[0] * 2,))
    g = kiln.grad(lambda x: (doubling(x) * 3).sum())(Tensor([1.0, 2.0]))
    np.testing.assert_allclose(g.asnumpy(), [6.0, 6.0])
    assert doubling(Tensor([5.0])).asnumpy()[0] == 5.0  # identity outside a gradient


def test_insert_gradient_of():
    clip = ops.InsertGradientOf(lambda grad: ops.clip_by_value(grad, -0.5, 0.5))
    g = kiln.grad(lambda x: (clip(x) * Tensor([3.0, 0.1])).sum())(Tensor([1.0, 2.0]))
    np.testing.assert_allclose(g.asnumpy(), [0.5, 0.1], rtol=1e-6)


def test_max_pool_with_argmax():
    x = Tensor(np.arange(32, dtype=np.float32).reshape(1, 2, 4, 4))
    out, idx = ops.MaxPoolWithArgmax(kernel_size=2, strides=2)(x)
    np.testing.assert_array_equal(out.asnumpy()[0, 0], [[5, 7], [13, 15]])
    np.testing.assert_array_equal(idx.asnumpy()[0, 1], [[5, 7], [13, 15]])
    assert idx.dtype == kiln.int32
    with pytest.raises(ValueError, match="'pad_mode' must be 'valid' or 'same'"):
        ops.MaxPoolWithArgmax(2, 2, "pad")(x)


def test_elementwise_classes_are_the_functional_ops():
    x = Tensor(np.array([0.25, 0.5], np.float32))
    np.testing.assert_allclose(ops.ACos()(x).asnumpy(), np.arccos([0.25, 0.5]), rtol=1e-6)
    np.testing.assert_allclose(ops.Xlogy()(x, x).asnumpy(), [0.25 * np.log(0.25), 0.5 * np.log(0.5)], rtol=1e-6)


def test_forward_value_and_grad():
    net = nn.Dense(2, 1, weight_init="ones", bias_init="zeros")
    value, grads = nn.ForwardValueAndGrad(net, net.trainable_params(), get_by_list=True)(Tensor([[1.0, 2.0]]))
    np.testing.assert_allclose(value.asnumpy(), [[3.0]])
    np.testing.assert_allclose(grads[0].asnumpy(), [[1.0, 2.0]])
    value, grads = nn.ForwardValueAndGrad(net, get_all=True, sens_param=True)(Tensor([[1.0, 2.0]]), Tensor([[2.0]]))
    np.testing.assert_allclose(grads[0].asnumpy(), [[2.0, 2.0]])


def test_prelu_derivative_at_zero_is_the_weight():
    """MindSpore's convention at the kink (finite differences cannot check it): x == 0 takes the slope side."""
    x = Tensor(np.array([-1.0, 0.0, 2.0], np.float32))
    w = Tensor(np.array([0.25], np.float32))
    dx, dw = ops.GradOperation(get_all=True)(ops.PReLU())(x, w)
    np.testing.assert_allclose(dx.asnumpy(), [0.25, 0.25, 1.0])
    np.testing.assert_allclose(dw.asnumpy(), [-1.0])


def test_functional_reductions_take_axes_as_a_tensor():
    x = np.arange(72, dtype=np.float32).reshape(3, 6, 4)
    got = ops.reduce_sum(Tensor(x), Tensor(np.array([0, 1])))
    np.testing.assert_allclose(got.asnumpy(), x.sum((0, 1)))
    np.testing.assert_allclose(ops.reduce_max(Tensor(x), ()).asnumpy(), x.max())


_TWO, _THREE = Tensor(2.0), Tensor(3.0)


def _scaled(a, b=_TWO, c=_THREE):
    return a * b * c


class _MorphNet(nn.Cell):
    def __init__(self, morph):
        super().__init__()
        self.morph = morph

    def construct(self, x):
        return self.morph(x, c=Tensor(5.0)) + self.morph(x)


@pytest.mark.parametrize("mode", ["pynative", "graph"])
def test_morph_takes_keyword_arguments_as_its_function_does(mode):
    if mode == "graph":
        kiln.set_context(mode=kiln.GRAPH_MODE)
    try:
        x = Tensor([1.0, 2.0])
        net = _MorphNet(ops.Morph(_scaled, lambda *s: s[0], lambda *d: d[0]))
        np.testing.assert_allclose(net(x).asnumpy(), [16.0, 32.0])  # 10x + 6x
        np.testing.assert_allclose(ops.GradOperation()(net)(x).asnumpy(), [16.0, 16.0])
    finally:
        kiln.set_context(mode=kiln.PYNATIVE_MODE)


def test_a_morph_input_given_by_keyword_reaches_bprop_fn_in_its_position():
    seen = []

    def bprop(a, b, c, out, dout):
        seen.append(float(c.asnumpy()))
        return dout * c, ops.zeros_like(b), ops.zeros_like(c)

    custom = ops.Morph(_scaled, lambda *s: s[0], lambda *d: d[0], bprop_fn=bprop)
    g = ops.grad(lambda a: custom(a, Tensor(2.0), c=Tensor(7.0)).sum())(Tensor([1.0, 2.0]))
    np.testing.assert_allclose(g.asnumpy(), [7.0, 7.0])
    assert seen == [7.0]


@pytest.mark.parametrize("mode", ["graph", "jit"])
def test_a_morph_bprop_fn_replaces_the_gradient_in_graphs_as_in_pynative(mode):
    """bprop_fn is the gradient in every mode (a graph used fn's own derivative: 2a instead of 7)."""
    custom = ops.Morph(lambda a: a * a, lambda s: s, lambda d: d, bprop_fn=lambda a, out, dout: (dout * 7,))
    x = Tensor(np.array([1.0, 2.0], np.float32))

    def loss(a):
        return custom(a).sum()

    pynative = ops.grad(loss)(x).asnumpy()
    if mode == "jit":
        graph = kiln.jit(ops.grad(loss))(x).asnumpy()
    else:
        kiln.set_context(mode=kiln.GRAPH_MODE)
        try:

            class Net(nn.Cell):
                def construct(self, a):
                    return custom(a).sum()

            graph = ops.grad(Net())(x).asnumpy()
        finally:
            kiln.set_context(mode=kiln.PYNATIVE_MODE)
    np.testing.assert_allclose(pynative, [7.0, 7.0])
    np.testing.assert_allclose(graph, pynative)


def _ftrl_reference(w, n, z, g, lr, l1, l2, p):  # p is lr_power (<= 0)
    """The published FTRL-Proximal row update in NumPy (MindSpore 2.10's SparseApplyFtrl matched it to 2e-6 on the
    cases below, l1 > 0 included)."""
    n2 = n + g * g
    z2 = z + g - (n2 ** (-p) - n ** (-p)) / lr * w
    w2 = np.where(np.abs(z2) > l1, (np.sign(z2) * l1 - z2) / (n2 ** (-p) / lr + 2 * l2), 0)
    return w2, n2, z2


@pytest.mark.parametrize("mode", [kiln.PYNATIVE_MODE, kiln.GRAPH_MODE])
@pytest.mark.parametrize("l1, l2, lr_power", [(0.0, 0.0, -0.5), (0.3, 0.2, -0.5), (0.1, 0.0, -0.3)])
def test_sparse_apply_ftrl_updates_the_indexed_rows(mode, l1, l2, lr_power):
    rng = np.random.default_rng(0)
    var, lin = rng.normal(size=(5, 3)).astype(np.float32), rng.normal(size=(5, 3)).astype(np.float32)
    acc = rng.uniform(0.1, 1.1, (5, 3)).astype(np.float32)
    grad, idx = rng.normal(size=(3, 3)).astype(np.float32), np.array([4, 0, 2], np.int32)
    op = ops.operations.SparseApplyFtrl(lr=0.05, l1=l1, l2=l2, lr_power=lr_power)

    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.var, self.accum = kiln.Parameter(Tensor(var), "var"), kiln.Parameter(Tensor(acc), "accum")
            self.linear = kiln.Parameter(Tensor(lin), "linear")

        def construct(self, g, i):
            return op(self.var, self.accum, self.linear, g, i)

    kiln.set_context(mode=mode)
    try:
        net = Net()
        out = net(Tensor(grad), Tensor(idx))
    finally:
        kiln.set_context(mode=kiln.PYNATIVE_MODE)
    want = [var.copy(), acc.copy(), lin.copy()]
    for t, rows in zip(want, _ftrl_reference(var[idx], acc[idx], lin[idx], grad, 0.05, l1, l2, lr_power),
                       strict=True):  # fmt: skip
        t[idx] = rows
    for got, param, w in zip(out, (net.var, net.accum, net.linear), want, strict=True):
        np.testing.assert_allclose(got.asnumpy(), w, rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(param.asnumpy(), w, rtol=1e-5, atol=1e-6)


def test_sparse_apply_ftrl_checks_attributes_and_shapes():
    P = ops.operations
    with pytest.raises(TypeError):
        P.SparseApplyFtrl(lr="0.1", l1=0.0, l2=0.0, lr_power=-0.5)
    with pytest.raises(ValueError):
        P.SparseApplyFtrl(lr=0.1, l1=0.0, l2=0.0, lr_power=0.5)
    op = P.SparseApplyFtrl(lr=0.1, l1=0.0, l2=0.0, lr_power=-0.5)
    var = kiln.Parameter(Tensor(np.ones((3, 2), np.float32)), "v")
    other = kiln.Parameter(Tensor(np.ones((3, 2), np.float32)), "o")
    with pytest.raises(ValueError):  # accum's shape differs from var's
        op(var, kiln.Parameter(Tensor(np.ones((2, 2), np.float32)), "a"), other, Tensor(np.ones((1, 2), np.float32)),
           Tensor(np.array([0], np.int32)))  # fmt: skip
    with pytest.raises(ValueError):  # two gradient rows for one index
        op(var, other, other, Tensor(np.ones((2, 2), np.float32)), Tensor(np.array([0], np.int32)))


def test_square_sum_all_values_and_checks():
    # MindSpore 2.10's SquareSumAll: float16/float32 only, one dtype, one shape (TypeError, TypeError, ValueError)
    x, y = np.array([1.0, 2.0, 4.0], np.float32), np.array([0.5, -1.0, -3.0], np.float32)
    sx, sy = ops.operations.SquareSumAll()(Tensor(x), Tensor(y))
    np.testing.assert_allclose([sx.asnumpy(), sy.asnumpy()], [np.sum(x * x), np.sum(y * y)], rtol=1e-6)
    op = ops.operations.SquareSumAll()
    with pytest.raises(TypeError):
        op(Tensor(x.astype(np.float16)), Tensor(y))
    with pytest.raises(TypeError):
        op(Tensor(x.astype(np.float64)), Tensor(y.astype(np.float64)))
    with pytest.raises(ValueError):
        op(Tensor(x), Tensor(y[:2]))


def test_truncate_mod_refuses_booleans():
    # MindSpore 2.10's TruncateMod and ops.truncate_mod raise TypeError on two bool tensors (ops.fmod accepts them);
    # one bool input is promoted with the other
    x, y = np.array([7.5, -7.5, 3.0], np.float32), np.array([2.0, 2.0, -2.0], np.float32)
    xi = np.array([1, 4, -7], np.int32)
    for face in (ops.truncate_mod, ops.operations.TruncateMod()):
        np.testing.assert_allclose(face(Tensor(x), Tensor(y)).asnumpy(), np.fmod(x, y))
        np.testing.assert_array_equal(face(Tensor(xi), Tensor(np.array([True]))).asnumpy(), np.fmod(xi, 1))
        with pytest.raises(TypeError):
            face(Tensor(np.array([True, False])), Tensor(np.array([True])))


class _ArgIndices(nn.Cell):
    def __init__(self):
        super().__init__()
        self.argmax = ops.Argmax()
        self.argmin = ops.Argmin(axis=0, output_type=kiln.int64)

    def construct(self, x):
        return self.argmax(x), self.argmin(x)


@pytest.mark.parametrize("mode", ["PYNATIVE_MODE", "GRAPH_MODE"])
def test_argmax_argmin_classes_give_int32_unless_told(mode):
    # MindSpore 2.10 (both modes): the classes' output_type defaults to int32 and only int32/int64 are taken; Kiln's
    # Argmax gave int64 and its Argmin ignored output_type (goldens in mindspore_cases.py: argmax_class, ...)
    x = np.random.default_rng(3).normal(size=(3, 5)).astype(np.float32)
    kiln.set_context(mode=getattr(kiln, mode))
    try:
        top, bottom = _ArgIndices()(Tensor(x))
    finally:
        kiln.set_context(mode=kiln.PYNATIVE_MODE)
    assert (top.dtype, bottom.dtype) == (kiln.int32, kiln.int64)
    np.testing.assert_array_equal(top.asnumpy(), x.argmax(-1))
    np.testing.assert_array_equal(bottom.asnumpy(), x.argmin(0))


@pytest.mark.parametrize("cls", [ops.Argmax, ops.Argmin])
def test_argmax_argmin_classes_refuse_other_output_types(cls):
    x = Tensor(np.ones((2, 3), np.float32))
    with pytest.raises(ValueError, match="output_type must be int32 or int64, got Float32"):
        cls(output_type=kiln.float32)(x)
    with pytest.raises(TypeError, match="output_type must be a kiln dtype"):
        cls(output_type=np.int64)(x)
