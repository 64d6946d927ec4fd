"""Dense's CPU derivative (kiln/_prims/nn/dense.py): the same values and derivatives as `x @ w.T`, and the weight
gradient's transposed output gradient made by a dot, not by a copy that recomputes the gradient's chain."""

import numpy as np
import pytest

import kiln as ms
from kiln import Tensor, ops
from kiln._backend import jax, jnp
from kiln._prims.nn import dense
from tests._prims.derivative_transforms import TWO_ARGUMENT_TRANSFORMS

RNG = np.random.default_rng(0)


def _pair(dtype, x_shape=(3, 5, 4)):
    x = jnp.asarray(RNG.standard_normal(x_shape), dtype)
    w = jnp.asarray(RNG.standard_normal((6, 4)), dtype)
    return x, w


def _loss(product):
    return lambda x, w: jnp.sum(jnp.sin(product(x, w)))


def _matmul(x, w):
    return jnp.matmul(x, w.T)


TRANSFORMS = {
    "value": lambda f: f,
    **TWO_ARGUMENT_TRANSFORMS,
    "vmap(grad)": lambda f: jax.vmap(jax.grad(f, (0, 1)), (0, None)),
    "vmap over w": lambda f: lambda x, w: jax.vmap(jax.grad(f, (0, 1)), (None, 0))(x, jnp.stack([w, 2 * w])),
}


@pytest.mark.parametrize("dtype", [jnp.float32, jnp.float64])
@pytest.mark.parametrize("name", list(TRANSFORMS))
def test_rows_dense_derivatives_are_the_matmuls(name, dtype):
    x, w = _pair(dtype)
    want = TRANSFORMS[name](_loss(_matmul))(x, w)
    got = TRANSFORMS[name](_loss(dense._rows_dense))(x, w)
    tol = 1e-5 if dtype == jnp.float32 else 1e-12
    for g, e in zip(jax.tree.leaves(got), jax.tree.leaves(want), strict=True):
        assert g.shape == e.shape and g.dtype == e.dtype
        np.testing.assert_allclose(np.asarray(g), np.asarray(e), rtol=tol, atol=tol)


@pytest.mark.parametrize("x_shape", [(7, 4), (2, 3, 5, 4), (0, 4), (3, 0, 4)])
def test_rows_dense_takes_any_batch_of_rows(x_shape):
    x, w = _pair(jnp.float32, x_shape)
    got = jax.grad(_loss(dense._rows_dense), (0, 1))(x, w)
    want = jax.grad(_loss(_matmul), (0, 1))(x, w)
    np.testing.assert_allclose(np.asarray(dense._rows_dense(x, w)), np.asarray(_matmul(x, w)), atol=1e-5)
    for g, e in zip(got, want, strict=True):
        assert g.shape == e.shape
        np.testing.assert_allclose(np.asarray(g), np.asarray(e), rtol=1e-5, atol=1e-5)


def test_weight_gradient_in_float32_is_the_matmuls_bit_for_bit_up_to_the_sum_order():
    x, w = _pair(jnp.float32, (8, 8, 4))
    got = jax.jit(jax.grad(_loss(dense._rows_dense), 1))(x, w)
    want = jax.jit(jax.grad(_loss(_matmul), 1))(x, w)
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=2e-6, atol=1e-6)


def _looped_gradient_copies(fn, *args, shape: str) -> int:
    """How many loop fusions of the compiled program write a `shape` array (the output gradient transposed)."""
    text = jax.jit(fn).lower(*args).compile().as_text()
    return sum(1 for line in text.splitlines() if f" = {shape}" in line and "kind=kLoop" in line)


@pytest.mark.skipif(jax.default_backend() != "cpu", reason="the rule is the CPU's")
def test_weight_gradient_transposes_the_output_gradient_by_a_dot():
    x = jnp.ones((32, 8, 64), jnp.float32)  # a batch of sequences: the backend reshapes g to rows, then copies
    w = jnp.ones((64, 64), jnp.float32)

    def chained(product):  # the output gradient is an elementwise chain XLA can fuse into its consumers
        return lambda a, b: jnp.sum(jnp.tanh(jnp.sin(product(a, b)) * 3.0))

    shape = "f32[64,256]{1,0}"
    assert _looped_gradient_copies(jax.grad(chained(_matmul), 1), x, w, shape=shape)  # the backend's own rule
    assert not _looped_gradient_copies(jax.grad(chained(dense._rows_dense), 1), x, w, shape=shape)


def test_rule_keeps_matrices_vectors_integers_wide_and_1d_weights_as_matmul():
    rows, w = jnp.ones((2, 8, 4), jnp.float32), jnp.ones((6, 4), jnp.float32)
    assert dense._gradient_transposed_by_dot(rows, w) == (jax.default_backend() == "cpu")
    assert not dense._gradient_transposed_by_dot(jnp.ones((8, 4), jnp.float32), w)
    wide = jnp.ones((dense.IDENTITY_TRANSPOSE_MAX_OUT + 1, 4), jnp.float32)
    assert not dense._gradient_transposed_by_dot(rows, wide)
    assert not dense._gradient_transposed_by_dot(jnp.ones((4,), jnp.float32), w)
    assert not dense._gradient_transposed_by_dot(rows, jnp.ones((4,), jnp.float32))
    assert not dense._gradient_transposed_by_dot(jnp.ones((8, 4), jnp.int32), jnp.ones((6, 4), jnp.int32))


@pytest.mark.parametrize("mode", [ms.PYNATIVE_MODE, ms.GRAPH_MODE])
@pytest.mark.parametrize("with_bias", [False, True])
def test_dense_gradient_through_ops_matches_numpy(mode, with_bias):
    x = RNG.standard_normal((2, 3, 5)).astype(np.float32)
    w = RNG.standard_normal((4, 5)).astype(np.float32)
    b = RNG.standard_normal((4,)).astype(np.float32)
    g = RNG.standard_normal((2, 3, 4)).astype(np.float32)
    ms.set_context(mode=mode)
    try:
        if with_bias:
            fn = ms.grad(lambda a, c, d: (ops.dense(a, c, d) * Tensor(g)).sum(), grad_position=(0, 1, 2))
            dx, dw, db = fn(Tensor(x), Tensor(w), Tensor(b))
            np.testing.assert_allclose(db.asnumpy(), g.sum((0, 1)), rtol=1e-5, atol=1e-5)
        else:
            fn = ms.grad(lambda a, c: (ops.dense(a, c) * Tensor(g)).sum(), grad_position=(0, 1))
            dx, dw = fn(Tensor(x), Tensor(w))
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    np.testing.assert_allclose(dx.asnumpy(), g @ w, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(dw.asnumpy(), np.einsum("bto,bti->oi", g, x), rtol=1e-5, atol=1e-5)
