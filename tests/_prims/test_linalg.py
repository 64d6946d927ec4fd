"""kiln/_prims/linalg.py: the CPU lowering of small batched matrix products (the same values and derivatives as
`jnp.matmul`, and no dot contracting the left operand over its rows in the gradient); vector p-norms of a large p."""

import numpy as np
import pytest

import kiln as ms
from kiln import Tensor, ops
from kiln._backend import jax, jnp
from kiln._prims import linalg
from tests._prims.derivative_transforms import TWO_ARGUMENT_TRANSFORMS

RNG = np.random.default_rng(0)


def _pair(dtype, w_batch=(3, 2)):
    x = jnp.asarray(RNG.standard_normal((3, 2, 5, 4)), dtype)
    w = jnp.asarray(RNG.standard_normal((*w_batch, 4, 6)), dtype)
    return x, w


def _loss(matmul):
    return lambda x, w: jnp.sum(jnp.sin(matmul(x, w)))


TRANSFORMS = {
    **TWO_ARGUMENT_TRANSFORMS,
    "vmap(grad)": lambda f: jax.vmap(jax.grad(f, 1)),
}


@pytest.mark.parametrize("dtype", [jnp.float32, jnp.float64])
@pytest.mark.parametrize("name", list(TRANSFORMS))
def test_small_batched_matmul_derivatives_are_matmuls(name, dtype):
    x, w = _pair(dtype)
    want = TRANSFORMS[name](_loss(jnp.matmul))(x, w)
    got = TRANSFORMS[name](_loss(linalg._small_batched_matmul))(x, w)
    tol = 1e-5 if dtype == jnp.float32 else 1e-12
    for g, e in zip(jax.tree.leaves(got), jax.tree.leaves(want), strict=True):
        np.testing.assert_allclose(np.asarray(g), np.asarray(e), rtol=tol, atol=tol)


def test_small_batched_matmul_broadcasts_batch_dimensions():
    x, w = _pair(jnp.float32, w_batch=(1, 2))
    want = jax.grad(_loss(jnp.matmul), (0, 1))(x, w)
    got = jax.grad(_loss(linalg._small_batched_matmul), (0, 1))(x, w)
    for g, e in zip(got, want, strict=True):
        assert g.shape == e.shape
        np.testing.assert_allclose(np.asarray(g), np.asarray(e), rtol=1e-5, atol=1e-5)


def _row_contracting_dots(fn, *args) -> list[str]:
    """The compiled program's dots that contract their left operand over a dimension other than its last."""
    text = jax.jit(fn).lower(*args).compile().as_text()
    dots = []
    for line in text.splitlines():
        if " dot(" in line and "lhs_contracting_dims={" in line:
            dims = line.split("[", 1)[1].split("]", 1)[0]  # the output's shape: the operands' rank
            rank_of_out = dims.count(",") + 1
            contracted = int(line.split("lhs_contracting_dims={")[1].split("}")[0].split(",")[0])
            if "lhs_batch_dims" in line and contracted != rank_of_out - 1:
                dots.append(line.strip())
    return dots


@pytest.mark.skipif(jax.default_backend() != "cpu", reason="the rule is the CPU's")
def test_attention_sized_gradient_has_no_row_contracting_dot():
    x = jnp.ones((32, 4, 8, 16), jnp.float32)
    w = jnp.ones((32, 4, 16, 8), jnp.float32)
    assert _row_contracting_dots(jax.grad(_loss(jnp.matmul), 1), x, w)  # the backend's own rule has one
    assert not _row_contracting_dots(jax.grad(_loss(linalg._small_batched_matmul), 1), x, w)


def test_rule_keeps_large_integer_and_unbatched_products_as_matmul():
    big = jnp.ones((2, 64, 64), jnp.float32)
    assert not linalg._small_batched(big, big)  # 64^3 > SMALL_BATCHED_MAX: the dot is faster
    assert linalg._small_batched(jnp.ones((2, 8, 16), jnp.float32), jnp.ones((2, 16, 8), jnp.float32))
    assert not linalg._small_batched(jnp.ones((2, 8, 16), jnp.int32), jnp.ones((2, 16, 8), jnp.int32))
    assert not linalg._small_batched(jnp.ones((8, 16), jnp.float32), jnp.ones((16, 8), jnp.float32))


@pytest.mark.parametrize("mode", [ms.PYNATIVE_MODE, ms.GRAPH_MODE])
def test_batched_matmul_gradient_through_ops_matches_numpy(mode):
    x = RNG.standard_normal((2, 3, 4, 5)).astype(np.float32)
    w = RNG.standard_normal((2, 3, 5, 6)).astype(np.float32)
    g = RNG.standard_normal((2, 3, 4, 6)).astype(np.float32)
    ms.set_context(mode=mode)
    try:
        fn = ms.grad(lambda a, b: (ops.matmul(a, b) * Tensor(g)).sum(), grad_position=(0, 1))
        dx, dw = fn(Tensor(x), Tensor(w))
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    np.testing.assert_allclose(dx.asnumpy(), g @ np.swapaxes(w, -1, -2), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(dw.asnumpy(), np.swapaxes(x, -1, -2) @ g, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("p", [3.0, 7.0, 90.0])
def test_large_p_vector_norms_do_not_underflow(p):
    # |x|^p underflows float32 for a large p (0.34^90 ~ 1e-42); the norm and its gradient are computed scaled by
    # the largest |x|. NumPy in float64 is the reference; the gradient is sign(x) |x|^(p-1) / norm^(p-1).
    a = np.array([[0.33854103, -0.13209231, 0.2], [0.05, -0.5, 0.45]], np.float32)
    want = (np.abs(a.astype(np.float64)) ** p).sum(1) ** (1 / p)
    x = ms.Tensor(a)
    for out in (ms.ops.norm(x, p, dim=1), ms.ops.vector_norm(x, p, 1), ms.ops.LpNorm(1, int(p), False)(x)):
        np.testing.assert_allclose(out.asnumpy(), want, rtol=2e-6)
    grad = ms.grad(lambda t: ms.ops.norm(t, p, dim=1).sum())(x).asnumpy()
    want_grad = np.sign(a) * np.abs(a.astype(np.float64)) ** (p - 1) / want[:, None] ** (p - 1)
    np.testing.assert_allclose(grad, want_grad, rtol=1e-4, atol=1e-6)
