"""LayerNorm's lowering (kiln/_prims/nn/norm.py): inputs of more than two axes are normalised as a matrix of rows,
with the values and every derivative of the plain formula over the original axes, in both execution modes."""

import numpy as np
import pytest

import kiln as ms
from kiln import Tensor, ops
from kiln._backend import jax, jnp, lax
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
