"""Pooling over windows that tile the input (reshape + reduce, first-maximum mask gradient) against XLA's
reduce_window and its derivative, and when MaxPool/AvgPool use it."""

from __future__ import annotations

import numpy as np
import pytest

import kiln
from kiln import ops
from kiln._backend import jax, jnp, lax
from kiln._prims.nn import pool

# (x shape, kernel): strides equal the kernel; sizes that the windows do not divide leave a remainder
CASES = [
    ((2, 3, 8, 8), (2, 2)),  # LeNet5's pools
    ((2, 3, 9, 7), (2, 2)),  # a remainder row and column that no window reads
    ((2, 2, 12, 9), (3, 3)),
    ((3, 6, 10), (4, 2)),  # unbatched 2-D (C, H, W)
    ((2, 3, 11), (2,)),  # 1-D
    ((1, 2, 4, 6, 5), (2, 3, 2)),  # 3-D
    ((2, 3, 6, 6), (1, 2)),  # a unit kernel along one axis
]


def _reference(x, kernel):
    nd = len(kernel)
    lead = (1,) * (x.ndim - nd)
    return lax.reduce_window(x, -jnp.inf, lax.max, lead + kernel, lead + kernel, "VALID")


def _outs(x, kernel):
    return tuple(n // k for n, k in zip(x.shape[-len(kernel) :], kernel))


def _with_ties(shape, seed=0):
    """ReLU'd values rounded to a few levels: most windows hold repeated maxima, as after a ReLU."""
    rng = np.random.default_rng(seed)
    return jnp.asarray(np.maximum(np.round(rng.standard_normal(shape), 0), 0).astype(np.float32))


@pytest.mark.parametrize(("shape", "kernel"), CASES, ids=[f"{s}k{k}" for s, k in CASES])
@pytest.mark.parametrize("ties", [False, True], ids=["distinct", "ties"])
def test_tiled_max_pool_and_gradient_equal_reduce_window(shape, kernel, ties):
    x = _with_ties(shape) if ties else jnp.asarray(np.random.default_rng(0).standard_normal(shape), jnp.float32)
    outs = _outs(x, kernel)
    want, pull = jax.vjp(lambda t: _reference(t, kernel), x)
    got = pool.tiled_max_pool(x, kernel, outs)
    np.testing.assert_array_equal(got, want)
    dy = jnp.asarray(np.random.default_rng(1).standard_normal(want.shape), jnp.float32)
    np.testing.assert_array_equal(pool.tiled_max_pool_grad(x, got, dy, kernel, outs), pull(dy)[0])


def _max_pool(x, kernel, strides, **attrs):
    kw = {"pad_mode": "valid", "pad": (0,) * (2 * len(kernel)), "dilation": (1,) * len(kernel), "ceil_mode": False}
    kw.update(attrs)
    return pool.MaxPool.impl(x, kernel_size=kernel, strides=strides, **kw)


def _lowered_ops(fn, *args) -> set[str]:
    fresh = lambda *a: fn(*a)  # noqa: E731  (a new function each call: jax caches traces per function)
    return {str(eqn.primitive) for eqn in jax.make_jaxpr(fresh)(*args).jaxpr.eqns}


def test_max_pool_takes_the_tiled_form_only_for_disjoint_unpadded_windows():
    x = jnp.ones((2, 3, 8, 8), jnp.float32)
    assert "reduce_window_max" not in _lowered_ops(lambda t: _max_pool(t, (2, 2), (2, 2)), x)
    assert "reduce_window_max" not in _lowered_ops(lambda t: _max_pool(t, (2, 2), (2, 2), pad_mode="same"), x)
    overlapping = _lowered_ops(lambda t: _max_pool(t, (3, 3), (2, 2)), x)
    padded = _lowered_ops(lambda t: _max_pool(t, (2, 2), (2, 2), pad_mode="pad", pad=(1, 1, 1, 1)), x)
    ceil = _lowered_ops(lambda t: _max_pool(t, (2, 2), (2, 2), ceil_mode=True), jnp.ones((1, 1, 7, 7)))
    assert all("reduce_window_max" in ops_ for ops_ in (overlapping, padded, ceil))


@pytest.mark.parametrize(
    ("shape", "kernel", "stride", "pad_mode"),
    [((2, 3, 8, 8), 2, 2, "valid"), ((2, 3, 9, 9), 2, 2, "valid"), ((2, 3, 9, 9), 3, 2, "same")],
)
def test_max_pool_gradient_through_kiln_matches_reduce_window(shape, kernel, stride, pad_mode):
    x = _with_ties(shape, seed=3)
    window, strides = (1, 1, kernel, kernel), (1, 1, stride, stride)
    want = jax.grad(lambda t: (lax.reduce_window(t, -jnp.inf, lax.max, window, strides, pad_mode.upper()) ** 2).sum())
    max_pool = ops.MaxPool(kernel_size=kernel, strides=stride, pad_mode=pad_mode)
    got = kiln.grad(lambda t: (max_pool(t) ** 2).sum())(kiln.Tensor(np.asarray(x)))
    np.testing.assert_array_equal(got.asnumpy(), want(x))


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.int32])
def test_tiled_pools_keep_the_dtype(dtype):
    x = jnp.asarray(np.arange(2 * 3 * 6 * 6).reshape(2, 3, 6, 6) % 7, dtype)
    got = _max_pool(x, (2, 2), (2, 2))
    assert got.dtype == x.dtype
    np.testing.assert_array_equal(got, lax.reduce_window(x, np.array(-1000, dtype), lax.max, (1, 1, 2, 2),
                                                         (1, 1, 2, 2), "VALID"))  # fmt: skip


@pytest.mark.parametrize(("shape", "kernel", "pad_mode"), [((2, 3, 8, 8), 2, "valid"), ((2, 3, 9, 7), 3, "valid")])
def test_tiled_avg_pool_and_gradient_equal_reduce_window(shape, kernel, pad_mode):
    x = jnp.asarray(np.random.default_rng(0).standard_normal(shape), jnp.float32)
    attrs = {"kernel_size": (kernel, kernel), "strides": (kernel, kernel), "pad_mode": pad_mode, "pad": (0,) * 4}
    attrs |= {"ceil_mode": False, "count_include_pad": True, "divisor_override": 0}
    assert "reduce_window_sum" not in _lowered_ops(lambda t: pool.AvgPool.impl(t, **attrs), x)

    def reference(t):
        window = (1, 1, kernel, kernel)
        return lax.reduce_window(t, 0.0, lax.add, window, window, "VALID") / kernel**2

    want, pull = jax.vjp(reference, x)
    got, got_pull = jax.vjp(lambda t: pool.AvgPool.impl(t, **attrs), x)
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6)
    dy = jnp.ones_like(want)
    np.testing.assert_allclose(got_pull(dy)[0], pull(dy)[0], rtol=1e-6, atol=1e-6)
