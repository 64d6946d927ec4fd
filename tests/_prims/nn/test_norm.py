"""LayerNorm's lowering (kiln/_prims/nn/norm.py): inputs of more than two axes are normalised as a matrix of rows,
with the values and every derivative of the plain formula over the original axes, in both execution modes; a
compiled gradient that reverse mode alone differentiates takes its written derivative (`_layer_norm_vjp`), with the
values of the backend's derivative of the plain formula, and forward mode keeps working."""

import numpy as np
import pytest

import kiln as ms
from kiln import Tensor, ops
from kiln._backend import jax, jnp, lax
from kiln._prims import recurrent
from kiln._prims.nn import norm
from tests._prims.derivative_transforms import TWO_ARGUMENT_TRANSFORMS

RNG = np.random.default_rng(0)


def _plain(x, gamma, beta, first, eps=1e-5):
    """The formula over the original axes: what `_layer_norm` computed before its matrix view."""
    axes = tuple(range(first, x.ndim))
    mean = jnp.mean(x, axis=axes, keepdims=True)
    var = jnp.mean(jnp.square(x - mean), axis=axes, keepdims=True)
    return (x - mean) * lax.rsqrt(var + eps) * gamma + beta, mean, var


def _lowered(x, gamma, beta, first, eps=1e-5):
    return norm._layer_norm(x, gamma, beta, begin_norm_axis=first, begin_params_axis=first, epsilon=eps)


def _loss(layer_norm, beta, first):
    def loss(x, gamma):  # every output reaches the loss, so the statistics' derivatives are tested too
        y, mean, var = layer_norm(x, gamma, beta, first)
        return jnp.sum(jnp.sin(y)) + jnp.sum(mean**2) + jnp.sum(jnp.cos(var))

    return loss


def _numpy(x, gamma, beta, first, eps=1e-5):
    axes = tuple(range(first, x.ndim))
    mean = x.mean(axis=axes, keepdims=True)
    var = ((x - mean) ** 2).mean(axis=axes, keepdims=True)
    return (x - mean) / np.sqrt(var + eps) * gamma + beta, mean, var


# (x shape, first normalised axis): one axis of a sequence batch, two trailing axes, every axis, a batch of one
CASES = [((3, 4, 6), 2), ((2, 3, 4, 5), 2), ((2, 3, 4), 0), ((1, 1, 5), -1)]


@pytest.mark.parametrize("shape,first", CASES)
@pytest.mark.parametrize("dtype", [jnp.float32, jnp.float64])
def test_values_are_the_formula_over_the_original_axes(shape, first, dtype):
    x = RNG.standard_normal(shape) * 3 + 1
    gamma = RNG.standard_normal(shape[first:])
    beta = RNG.standard_normal(shape[first:])
    got = _lowered(*(jnp.asarray(a, dtype) for a in (x, gamma, beta)), first)
    tol = 1e-5 if dtype == jnp.float32 else 1e-12
    for g, e in zip(got, _numpy(x, gamma, beta, first % len(shape)), strict=True):
        assert g.shape == e.shape and g.dtype == dtype
        np.testing.assert_allclose(np.asarray(g), e, rtol=tol, atol=tol)


TRANSFORMS = {"value": lambda f: f, **TWO_ARGUMENT_TRANSFORMS}


@pytest.mark.parametrize("shape,first", CASES[:2])
@pytest.mark.parametrize("name", list(TRANSFORMS))
def test_derivatives_are_the_formulas(shape, first, name):
    x = jnp.asarray(RNG.standard_normal(shape), jnp.float64)
    gamma = jnp.asarray(RNG.standard_normal(shape[first:]), jnp.float64)
    beta = jnp.asarray(RNG.standard_normal(shape[first:]), jnp.float64)
    want = TRANSFORMS[name](_loss(_plain, beta, first))(x, gamma)
    got = TRANSFORMS[name](_loss(_lowered, beta, first))(x, gamma)
    for g, e in zip(jax.tree.leaves(got), jax.tree.leaves(want), strict=True):
        assert g.shape == e.shape
        np.testing.assert_allclose(np.asarray(g), np.asarray(e), rtol=1e-10, atol=1e-10)


def _reduced_operand_ranks(fn, *args) -> set:
    """The ranks of the arrays the program's reductions read."""
    jaxpr = jax.make_jaxpr(fn)(*args)
    return {eqn.invars[0].aval.ndim for eqn in jaxpr.eqns if eqn.primitive.name == "reduce_sum"}


def test_sequence_batches_are_normalised_as_rows():
    x = jnp.ones((32, 8, 64), jnp.float32)
    gamma, beta = jnp.ones((64,), jnp.float32), jnp.zeros((64,), jnp.float32)

    def flat_loss(a, c):  # the loss's own sum reads a vector: every 2-D sum is the LayerNorm's
        return sum(jnp.sum(jnp.sin(t.reshape(-1))) for t in _lowered(a, c, beta, 2))

    assert _reduced_operand_ranks(lambda a: _lowered(a, gamma, beta, 2), x) == {2}
    assert 3 not in _reduced_operand_ranks(jax.grad(flat_loss, (0, 1)), x, gamma)  # nor the backward's sums


def test_parameters_over_fewer_axes_than_normalised_keep_the_formula():
    x = jnp.asarray(RNG.standard_normal((2, 3, 4)), jnp.float32)
    gamma, beta = jnp.full((4,), 1.5, jnp.float32), jnp.full((4,), 0.5, jnp.float32)
    got = norm._layer_norm(x, gamma, beta, begin_norm_axis=1, begin_params_axis=2, epsilon=1e-5)
    for g, e in zip(got, _numpy(np.asarray(x), 1.5, 0.5, 1), strict=True):
        np.testing.assert_allclose(np.asarray(g), e, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("mode", [ms.PYNATIVE_MODE, ms.GRAPH_MODE])
@pytest.mark.parametrize("dtype", [np.float16, np.float32])
def test_statistics_of_a_float16_input_are_float32(mode, dtype):
    """MindSpore 2.10's CPU LayerNorm returns y in x's dtype and the mean and variance in float32 (checked in both of
    its modes; its type rule keeps x's dtype only on Ascend): the zoo's SegFormer under to_float(float16) found
    Kiln's statistics rounded to float16."""
    x = (RNG.standard_normal((4, 6)) * 2 + 0.5).astype(dtype)
    gamma, beta = np.ones(6, dtype), np.zeros(6, dtype)
    ms.set_context(mode=mode)
    try:
        y, mean, var = ops.LayerNorm(1, 1, 1e-5)(Tensor(x), Tensor(gamma), Tensor(beta))
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    assert y.asnumpy().dtype == dtype and (mean.dtype, var.dtype) == (ms.float32, ms.float32)
    exact = x.astype(np.float64)
    np.testing.assert_allclose(mean.asnumpy(), exact.mean(1, keepdims=True), rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(var.asnumpy(), exact.var(1, keepdims=True), rtol=1e-6)


@pytest.mark.parametrize("mode", [ms.PYNATIVE_MODE, ms.GRAPH_MODE])
def test_layer_norm_gradient_through_ops_matches_jax(mode):
    x = RNG.standard_normal((2, 3, 5)).astype(np.float32)
    gamma = RNG.standard_normal((5,)).astype(np.float32)
    beta = RNG.standard_normal((5,)).astype(np.float32)
    g = RNG.standard_normal((2, 3, 5)).astype(np.float32)
    ms.set_context(mode=mode)
    try:
        fn = ms.grad(lambda a, c, d: (ops.layer_norm(a, (5,), c, d) * Tensor(g)).sum(), grad_position=(0, 1, 2))
        got = fn(Tensor(x), Tensor(gamma), Tensor(beta))
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    want = jax.grad(lambda a, c, d: jnp.sum(_plain(a, c, d, 2)[0] * g), (0, 1, 2))(x, gamma, beta)
    for t, e in zip(got, want, strict=True):
        np.testing.assert_allclose(t.asnumpy(), np.asarray(e), rtol=1e-5, atol=1e-5)


# (x shape, begin_norm_axis, begin_params_axis, affine): rows of a sequence batch, two trailing axes, parameters over
# fewer or more axes than normalised, every axis, a matrix, no gamma and beta
WRITTEN_CASES = [
    ((3, 4, 6), 2, 2, True),
    ((2, 3, 4, 5), 2, 2, True),
    ((2, 3, 4), 1, 2, True),
    ((2, 3, 4), 2, 1, True),
    ((2, 3, 4), 0, 0, True),
    ((5, 7), 1, 1, True),
    ((3, 4, 6), -1, -1, False),
]


def _general(x, gamma, beta, first, params, eps=1e-5):
    """The formula over the original axes, parameters over axes `params`..."""
    axes = tuple(range(first % x.ndim, x.ndim))
    mean = jnp.mean(x, axis=axes, keepdims=True)
    var = jnp.mean(jnp.square(x - mean), axis=axes, keepdims=True)
    y = (x - mean) * lax.rsqrt(var + eps)
    return (y if gamma is None else y * gamma + beta), mean, var


def _inputs(shape, params, affine, dtype):
    x = jnp.asarray(RNG.standard_normal(shape) * 3 + 1, dtype)
    if not affine:
        return x, None, None
    gamma, beta = (jnp.asarray(RNG.standard_normal(shape[params % len(shape) :]), dtype) for _ in range(2))
    return x, gamma, beta


def _every_output_loss(layer_norm):
    def loss(x, gamma, beta):  # the statistics' cotangents reach the written derivative too
        y, mean, var = layer_norm(x, gamma, beta)
        return jnp.sum(jnp.sin(y)) + jnp.sum(mean**2) + jnp.sum(jnp.cos(var))

    return loss


@pytest.mark.parametrize("shape,first,params,affine", WRITTEN_CASES)
@pytest.mark.parametrize("order", ["grad", "grad of grad"])
def test_written_derivative_is_the_formulas(shape, first, params, affine, order):
    x, gamma, beta = _inputs(shape, params, affine, jnp.float64)
    argnums = (0, 1, 2) if affine else (0,)

    def lowered(a, c, d):
        return norm._layer_norm(a, c, d, begin_norm_axis=first, begin_params_axis=params, epsilon=1e-5)

    def derivative(loss):
        grad = jax.grad(loss, argnums)
        if order == "grad":
            return grad
        return jax.grad(lambda a, c, d: sum(jnp.sum(jnp.tanh(t)) for t in grad(a, c, d)), argnums)

    want = derivative(_every_output_loss(lambda a, c, d: _general(a, c, d, first, params)))(x, gamma, beta)
    with recurrent.reverse_only(True):
        got = derivative(_every_output_loss(lowered))(x, gamma, beta)
    for g, e in zip(got, want, strict=True):
        assert g.shape == e.shape and g.dtype == e.dtype
        np.testing.assert_allclose(np.asarray(g), np.asarray(e), rtol=1e-10, atol=1e-10)


@pytest.mark.parametrize("dtype", [jnp.float32, jnp.float16])
def test_written_derivative_of_low_precision_inputs(dtype):
    """Half-precision statistics are rounded: the written derivative computes them again in float32, as the
    backend's derivative of the formula does."""
    x, gamma, beta = _inputs((4, 3, 16), 2, True, dtype)

    def lowered(a, c, d):
        return norm._layer_norm(a, c, d, begin_norm_axis=2, begin_params_axis=2, epsilon=1e-5)

    def loss(a, c, d):
        y, mean, var = lowered(a, c, d)
        return jnp.sum(jnp.sin(y.astype(jnp.float32))) + jnp.sum(mean.astype(jnp.float32) ** 2)

    want = jax.grad(loss, (0, 1, 2))(x, gamma, beta)
    with recurrent.reverse_only(True):
        got = jax.grad(loss, (0, 1, 2))(x, gamma, beta)
    tol = 1e-5 if dtype == jnp.float32 else 2e-3
    for g, e in zip(got, want, strict=True):
        assert g.dtype == dtype
        scale = float(np.max(np.abs(np.asarray(e, np.float64))))
        np.testing.assert_allclose(np.asarray(g, np.float64), np.asarray(e, np.float64), atol=tol * scale)


def _full_row_sums(jaxpr) -> int:
    """How many reduce_sums of the program (nested ones included) sum the rows of a matrix wider than 1."""
    count = 0
    for eqn in jaxpr.eqns:
        shape = eqn.invars[0].aval.shape if eqn.invars and hasattr(eqn.invars[0].aval, "shape") else ()
        if eqn.primitive.name == "reduce_sum" and len(shape) == 2 and shape[1] > 1 and eqn.params["axes"] == (1,):
            count += 1
        for p in eqn.params.values():
            inner = getattr(p, "jaxpr", p)
            if hasattr(inner, "eqns"):
                count += _full_row_sums(inner)
    return count


def test_compiled_gradient_sums_each_row_four_times():
    """Two row sums forward (mean, variance) and two backward (mean(g), mean(g * xhat)); the backend's derivative of
    the formula sums the rows three times backward."""
    x, gamma, beta = _inputs((4, 3, 8), 2, True, jnp.float32)

    def loss(a, c):
        return jnp.sum(jnp.sin(norm._layer_norm(a, c, beta, begin_norm_axis=2, begin_params_axis=2, epsilon=1e-5)[0]))

    with recurrent.reverse_only(True):
        jaxpr = jax.make_jaxpr(jax.grad(loss, (0, 1)))(x, gamma)
    assert _full_row_sums(jaxpr.jaxpr) == 4


@pytest.mark.parametrize("mode", [ms.PYNATIVE_MODE, ms.GRAPH_MODE])
def test_forward_mode_through_layer_norm_in_both_modes(mode):
    """ops.jvp and jacfwd differentiate LayerNorm in forward mode: a compiled graph keeps the backend's derivative
    there (a custom reverse derivative has no forward mode)."""
    x = RNG.standard_normal((2, 3, 5)).astype(np.float32)
    t = RNG.standard_normal((2, 3, 5)).astype(np.float32)
    ln = ms.nn.LayerNorm((5,), epsilon=1e-5)

    def plain(a):
        return jnp.sin(_plain(a, 1.0, 0.0, 2)[0])

    want_jvp = jax.jvp(plain, (x,), (t,))[1]
    want_jac = jax.jacfwd(lambda a: jnp.sum(plain(a)))(x)
    ms.set_context(mode=mode)
    try:
        jvp = ms.jit(lambda a, b: ops.jvp(lambda c: ln(c).sin(), a, b)[1])
        jac = ms.jit(lambda a: ops.jacfwd(lambda c: ln(c).sin().sum())(a))
        got_jvp, got_jac = jvp(Tensor(x), Tensor(t)), jac(Tensor(x))
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    np.testing.assert_allclose(got_jvp.asnumpy(), np.asarray(want_jvp), rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(got_jac.asnumpy(), np.asarray(want_jac), rtol=1e-4, atol=1e-5)


def test_graph_gradient_of_a_layer_norm_network_is_pynative_s():
    """A LayerNorm between two Dense layers: GRAPH_MODE's compiled gradient (the written derivative) against
    PyNative's tape (the backend's derivative), every parameter."""
    x = Tensor(RNG.standard_normal((4, 3, 8)).astype(np.float32))

    def grads(mode):
        ms.set_context(mode=mode)
        ms.set_seed(3)
        net = ms.nn.SequentialCell(ms.nn.Dense(8, 16), ms.nn.LayerNorm((16,)), ms.nn.Dense(16, 2))
        params = net.trainable_params()
        fn = ms.value_and_grad(lambda a: (net(a) ** 2).sum(), None, params)
        try:
            loss, g = fn(x)
            return [loss.asnumpy()] + [t.asnumpy() for t in g]
        finally:
            ms.set_context(mode=ms.PYNATIVE_MODE)

    for got, want in zip(grads(ms.GRAPH_MODE), grads(ms.PYNATIVE_MODE), strict=True):
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("mode", [ms.PYNATIVE_MODE, ms.GRAPH_MODE])
def test_batch_norm_in_a_float16_cell_keeps_gamma_and_beta_float32(mode):
    """Inside a float16 Cell (`to_float`), BatchNorm normalises the float16 batch with float32 gamma and beta, as
    MindSpore 2.10 does in both modes (its outputs equal this float32-parameter reference on 99.96% of the elements,
    the float16-parameter one on 67.5%). Found training the zoo's HRNet at amp_level O3: casting gamma and beta to
    float16 first made the stem's float16 error 11% larger than MindSpore's."""
    ms.set_context(mode=mode)
    rng = np.random.RandomState(0)
    x = (2 * rng.standard_normal((4, 64, 8, 8))).astype(np.float32)
    gamma = (1 + 0.1 * rng.standard_normal(64)).astype(np.float32)
    beta = (0.1 * rng.standard_normal(64)).astype(np.float32)
    bn = ms.nn.BatchNorm2d(64, momentum=0.9)
    bn.gamma.set_data(Tensor(gamma))
    bn.beta.set_data(Tensor(beta))
    bn.to_float(ms.float16)
    bn.set_train(True)
    y = bn(Tensor(x)).asnumpy()
    assert y.dtype == np.float16
    assert bn.gamma.dtype == ms.float32 and bn.moving_mean.dtype == ms.float32
    x16 = x.astype(np.float16).astype(np.float64)
    normal = (x16 - x16.mean(axis=(0, 2, 3), keepdims=True)) / np.sqrt(x16.var(axis=(0, 2, 3), keepdims=True) + 1e-5)
    want = (normal * gamma[:, None, None] + beta[:, None, None]).astype(np.float16)
    assert np.abs(y.astype(np.float64) - want).max() <= 2.0**-8  # at most one float16 step (values within +-8)
    assert (y == want).mean() > 0.99
