"""The CPU's pooling lowerings against XLA's reduce_window and its derivative: windows that tile the input
(reshape + reduce, first-maximum mask gradient), overlapping or padded windows (strided slices, their shares
placed back by pads), and when MaxPool/AvgPool use which."""

from __future__ import annotations

import numpy as np
import pytest

import kiln
from kiln import ops
from kiln._backend import jax, jnp, lax
from kiln._prims.nn import pool


@pytest.fixture(autouse=True)
def _on_cpu(monkeypatch):
    monkeypatch.setattr(pool, "default_platform", lambda: "cpu")  # the CPU's rules, on any machine


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
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_tiled_max_pool_and_gradient_equal_reduce_window(shape, kernel, ties, dtype):
    x = _with_ties(shape) if ties else jnp.asarray(np.random.default_rng(0).standard_normal(shape), jnp.float32)
    x = jnp.asarray(np.asarray(x, dtype))
    outs = _outs(x, kernel)
    want, pull = jax.vjp(lambda t: _reference(t, kernel), x)
    got = pool.tiled_max_pool(x, kernel, outs)
    np.testing.assert_array_equal(got, want)
    dy = jnp.asarray(np.random.default_rng(1).standard_normal(want.shape).astype(dtype))
    grad = pool.tiled_max_pool_grad(x, got, dy, kernel, outs)
    assert grad.dtype == x.dtype
    np.testing.assert_array_equal(grad, pull(dy)[0])


def test_tiled_max_pool_gradient_of_windows_holding_infinities_equals_reduce_window():
    x = np.random.default_rng(2).standard_normal((1, 2, 4, 6)).astype(np.float32)
    x[0, 0, 2, 2:4] = -np.inf  # a window of two -inf and two finite values
    x[0, 1, 0:2, 0:2] = -np.inf  # a window of -inf only: its first entry takes the gradient
    x[0, 1, 2:4, 4:6] = np.inf  # a window of +inf only
    x = jnp.asarray(x)
    want, pull = jax.vjp(lambda t: _reference(t, (2, 2)), x)
    got = pool.tiled_max_pool(x, (2, 2), (2, 3))
    np.testing.assert_array_equal(got, want)
    dy = jnp.asarray(np.random.default_rng(3).standard_normal(want.shape).astype(np.float32))
    np.testing.assert_array_equal(pool.tiled_max_pool_grad(x, got, dy, (2, 2), (2, 3)), pull(dy)[0])


def _max_pool(x, kernel, strides, **attrs):
    kw = {"pad_mode": "valid", "pad": (0,) * (2 * len(kernel)), "dilation": (1,) * len(kernel), "ceil_mode": False}
    kw.update(attrs)
    return pool.MaxPool.impl(x, kernel_size=kernel, strides=strides, **kw)


def _lowered_ops(fn, *args) -> set[str]:
    fresh = lambda *a: fn(*a)  # noqa: E731  (a new function each call: jax caches traces per function)
    found: set[str] = set()

    def walk(jaxpr):  # into nested calls too (`materialized` is a custom-derivative call)
        for eqn in jaxpr.eqns:
            found.add(str(eqn.primitive))
            for inner in jax.extend.core.jaxprs_in_params(eqn.params):
                walk(inner)

    walk(jax.make_jaxpr(fresh)(*args).jaxpr)
    return found


# (x shape, kernel, strides, (lo, hi) pads): overlapping, padded or gapped windows
WINDOWED = [
    ((2, 3, 9, 9), (3, 3), (2, 2), [(1, 1), (1, 1)]),  # ResNet's stem pool
    ((2, 3, 8, 7), (3, 2), (1, 1), [(0, 0), (0, 0)]),  # stride 1
    ((2, 3, 10, 9), (2, 2), (3, 3), [(0, 0), (0, 0)]),  # windows with gaps between them
    ((2, 3, 7, 7), (2, 2), (2, 2), [(0, 1), (0, 1)]),  # ceil mode's last partial window
    ((3, 9), (3,), (2,), [(1, 1)]),  # 1-D, unbatched
    ((1, 2, 5, 6, 5), (2, 3, 2), (1, 2, 2), [(1, 0), (1, 1), (0, 1)]),  # 3-D
]


def _windowed_reference(x, kernel, strides, pads):
    lead = x.ndim - len(kernel)
    return lax.reduce_window(
        x, -jnp.inf, lax.max, (1,) * lead + kernel, (1,) * lead + strides, [(0, 0)] * lead + list(pads)
    )


@pytest.mark.parametrize(("shape", "kernel", "strides", "pads"), WINDOWED, ids=[str(c[:3]) for c in WINDOWED])
@pytest.mark.parametrize("ties", [False, True], ids=["distinct", "ties"])
def test_windowed_max_pool_and_gradient_equal_reduce_window(shape, kernel, strides, pads, ties):
    x = _with_ties(shape) if ties else jnp.asarray(np.random.default_rng(0).standard_normal(shape), jnp.float32)
    want, pull = jax.vjp(lambda t: _windowed_reference(t, kernel, strides, pads), x)
    outs = want.shape[-len(kernel) :]
    got = pool.windowed_max_pool(x, kernel, strides, pads, outs)
    np.testing.assert_array_equal(got, want)
    dy = jnp.asarray(np.random.default_rng(1).standard_normal(want.shape), jnp.float32)
    got_grad = pool.windowed_max_pool_grad(x, got, dy, kernel, strides, pads, outs)
    # An entry that is the maximum of several overlapping windows sums their shares in another order.
    np.testing.assert_allclose(got_grad, pull(dy)[0], rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("k", [5, 7])
def test_windowed_max_pool_gradient_compiles_to_a_program_linear_in_the_window(k):
    # Each tap's share is an XLA fusion of its own, and XLA fuses a cheap producer into each: a tie chain across the
    # taps and the recomputed maximum were emitted once per tap (a 7x7 'same' pool: 1,680 `maximum` instructions, the
    # bulk of BiMLP's train-step compile). The first-maximum code and dout are computed once: about one maximum per
    # tap remains (the forward's chain), plus the reductions that keep them in memory.
    kernel, strides, pads, outs = (k, k), (1, 1), [((k - 1) // 2, k // 2)] * 2, (6, 6)

    def grad(x, r):
        dout = r * 3.0 - 1.0  # a computed cotangent, as a layer's backward pass gives it
        out = pool.windowed_max_pool(x, kernel, strides, pads, outs)
        return pool.windowed_max_pool_grad(x, out, dout, kernel, strides, pads, outs)

    x = jnp.asarray(np.random.default_rng(0).standard_normal((2, 3, 6, 6)), jnp.float32)
    r = jnp.asarray(np.random.default_rng(1).standard_normal((2, 3, 6, 6)), jnp.float32)
    text = jax.jit(grad).lower(x, r).compile().as_text()
    assert text.count(" maximum(") <= 2 * k * k  # k * k + 1 now; 264 for 5x5 and 1,680 for 7x7 before
    want = jax.vjp(lambda t: _windowed_reference(t, kernel, strides, pads), x)[1](r * 3.0 - 1.0)[0]
    np.testing.assert_allclose(jax.jit(grad)(x, r), want, rtol=1e-6, atol=1e-6)


def test_windowed_max_pool_is_computed_once_for_several_consumers():
    # A pool's output read by several reductions (a BatchNorm's statistics and gradient sums after BiMLP's Downsample)
    # had its chain of taps and maxima fused into each of them (BiMLP: 80 maxima copied into 70 fusions).
    kernel, strides, pads, outs = (5, 5), (1, 1), [(2, 2), (2, 2)], (6, 6)

    def stats(x):
        y = pool.windowed_max_pool(x, kernel, strides, pads, outs)
        return y.sum(axis=(0, 2, 3)), (y * y).sum(axis=(0, 2, 3)), (y * 3.0).max(axis=(0, 2, 3))

    x = jnp.asarray(np.random.default_rng(0).standard_normal((2, 3, 6, 6)), jnp.float32)
    text = jax.jit(stats).lower(x).compile().as_text()
    assert text.count(" maximum(") <= 25 + 4  # the chain once, the materializing and the max reductions
    y = _windowed_reference(x, kernel, strides, pads)
    for got, want in zip(
        jax.jit(stats)(x),
        (y.sum(axis=(0, 2, 3)), (y * y).sum(axis=(0, 2, 3)), (y * 3.0).max(axis=(0, 2, 3))),
        strict=True,
    ):
        np.testing.assert_allclose(got, want, rtol=1e-6)


def test_max_pool_lowering_by_window_shape_and_platform(monkeypatch):
    x = jnp.ones((2, 3, 8, 8), jnp.float32)
    tiled = _lowered_ops(lambda t: _max_pool(t, (2, 2), (2, 2), pad_mode="same"), x)
    assert "reduce_max" in tiled and "reduce_window_max" not in tiled
    overlapping = _lowered_ops(lambda t: _max_pool(t, (3, 3), (2, 2)), x)
    padded = _lowered_ops(lambda t: _max_pool(t, (2, 2), (2, 2), pad_mode="pad", pad=(1, 1, 1, 1)), x)
    ceil = _lowered_ops(lambda t: _max_pool(t, (2, 2), (2, 2), ceil_mode=True), jnp.ones((1, 1, 7, 7)))
    for lowered in (overlapping, padded, ceil):  # elementwise maxima of the taps (reduce_max: `materialized`)
        assert "max" in lowered and "reduce_window_max" not in lowered
    monkeypatch.setattr(pool, "default_platform", lambda: "gpu")
    for kernel, strides in (((2, 2), (2, 2)), ((3, 3), (2, 2))):
        assert "reduce_window_max" in _lowered_ops(lambda t, k=kernel, s=strides: _max_pool(t, k, s), x)


@pytest.mark.parametrize(
    ("shape", "kernel", "stride", "pad_mode"),
    [((2, 3, 8, 8), 2, 2, "valid"), ((2, 3, 9, 9), 2, 2, "valid"), ((2, 3, 9, 9), 3, 2, "same")],
)
@pytest.mark.parametrize("platform", ["cpu", "gpu"])
def test_max_pool_gradient_through_kiln_matches_reduce_window(shape, kernel, stride, pad_mode, platform, monkeypatch):
    monkeypatch.setattr(pool, "default_platform", lambda: platform)
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


@pytest.mark.parametrize("dtype", [jnp.float16, jnp.bfloat16, np.float32, np.float64])
def test_materialized_keeps_every_bit(dtype):
    special = [np.nan, -np.nan, np.inf, -np.inf, 0.0, -0.0, 1.5, -2.25, 1e-30, -1e30]
    values = np.concatenate([special, np.random.default_rng(4).standard_normal(30)]).reshape(4, 10)
    a = jnp.asarray(values).astype(dtype)
    bits = jnp.dtype(f"uint{8 * a.dtype.itemsize}")
    want = np.asarray(lax.bitcast_convert_type(a, bits))
    np.testing.assert_array_equal(np.asarray(lax.bitcast_convert_type(pool.materialized(a), bits)), want)
    got = jax.jit(pool.materialized)(a)
    np.testing.assert_array_equal(np.asarray(lax.bitcast_convert_type(got, bits)), want)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_tiled_max_pool_gradient_of_a_computed_cotangent_equals_reduce_window_compiled(dtype):
    # The cotangent is a sum of shifted rows (as c2's input gradient reaches c1's pool in LeNet5): compiled, the
    # gradient reads it through `materialized`, and must still equal reduce_window's derivative (and jax.grad).
    x = jnp.asarray(np.asarray(_with_ties((2, 3, 12, 12)), dtype))
    rows = jnp.asarray(np.random.default_rng(5).standard_normal((2, 3, 4, 6)).astype(dtype))
    kernel, outs = (2, 2), (6, 6)

    def cotangent(r):
        zero = jnp.zeros((), r.dtype)
        return sum(lax.pad(r, zero, [(0, 0, 0)] * 2 + [(i, 2 - i, 0), (0, 0, 0)]) for i in range(3))

    @jax.jit
    def kiln_grad(x, r):
        return pool.tiled_max_pool_grad(x, pool.tiled_max_pool(x, kernel, outs), cotangent(r), kernel, outs)

    @jax.jit
    def reference_grad(x, r):
        return jax.vjp(lambda t: _reference(t, kernel), x)[1](cotangent(r))[0]

    np.testing.assert_array_equal(kiln_grad(x, rows), reference_grad(x, rows))
    loss = jax.grad(lambda t: jnp.sum(_reference(t, kernel) * cotangent(rows)))(x)
    np.testing.assert_array_equal(kiln_grad(x, rows), loss)


def test_materialized_stays_a_reduction_after_xla_optimises():
    # What makes XLA compute the value once (see `materialized`): a simplifier that folded the reduction away would
    # bring back the recomputation inside the pool gradient's mask without changing a number.
    x = jnp.ones((4, 6), jnp.float32)
    text = jax.jit(lambda a: pool.materialized(a * 2.0)).lower(x).compile().as_text()
    assert "reduce(" in text


# Forward mode and second order go through the backend's derivative of the lowering (ops.jvp, jacfwd, a gradient
# of a gradient): `materialized`'s bit cast had a zero derivative there, so ops.jvp through a tiled MaxPool was 0
# and a gradient penalty through one lost the term through its gradient's dout (half the reference).
@pytest.mark.parametrize("kernel, stride", [((2, 2), (2, 2)), ((3, 3), (2, 2))])  # tiled; overlapping
def test_max_pool_forward_mode_equals_reduce_window(kernel, stride):
    rng = np.random.default_rng(0)
    x, v = (rng.standard_normal((2, 3, 8, 8)).astype(np.float32) for _ in range(2))
    pool_op = ops.MaxPool(kernel, stride)

    def ref(a):
        return lax.reduce_window(a, -jnp.inf, lax.max, (1, 1, *kernel), (1, 1, *stride), "VALID")

    _, expected = jax.jvp(ref, (x,), (v,))
    _, got = ops.jvp(pool_op, kiln.Tensor(x), kiln.Tensor(v))
    np.testing.assert_allclose(got.asnumpy(), expected, rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("mode", ["pynative", "jit"])
def test_gradient_penalty_through_max_pool_equals_jax(mode):
    rng = np.random.default_rng(1)
    x, w = (rng.standard_normal((2, 3, 8, 8)).astype(np.float32) for _ in range(2))
    pool_op = ops.MaxPool(2, 2)

    def penalty(a, b):
        inner = ops.grad(lambda a, b: (pool_op(a * b) ** 2).sum(), grad_position=0)(a, b)
        return (inner**2).sum()

    def ref_penalty(a, b):
        inner = jax.grad(lambda a: (_reference(a * b, (2, 2)) ** 2).sum())(a)
        return (inner**2).sum()

    fn = ops.grad(penalty, grad_position=1)
    if mode == "jit":
        fn = kiln.jit(fn)
    got = fn(kiln.Tensor(x), kiln.Tensor(w)).asnumpy()
    np.testing.assert_allclose(got, jax.grad(ref_penalty, argnums=1)(x, w), rtol=1e-5, atol=1e-4)


def test_forward_mode_through_conv_and_max_pool_in_a_graph_equals_jax():
    # a primitive's declared reverse rule has no forward mode: inside ops.jvp / jacfwd the graph lowers the
    # primitive's own implementation (this raised "can't apply forward-mode autodiff" for Conv2D and MaxPool)
    rng = np.random.default_rng(2)
    x, v = (rng.standard_normal((1, 2, 6, 6)).astype(np.float32) for _ in range(2))
    w = rng.standard_normal((3, 2, 3, 3)).astype(np.float32)
    conv, pool_op, weight = ops.Conv2D(3, 3), ops.MaxPool(2, 2), kiln.Tensor(w)

    def net(a):
        return pool_op(ops.relu(conv(a, weight)))

    def ref(a):
        y = jax.nn.relu(lax.conv_general_dilated(a, w, (1, 1), "VALID"))
        return lax.reduce_window(y, -jnp.inf, lax.max, (1, 1, 2, 2), (1, 1, 2, 2), "VALID")

    _, tangent = kiln.jit(lambda a, t: ops.jvp(net, a, t))(kiln.Tensor(x), kiln.Tensor(v))
    np.testing.assert_allclose(tangent.asnumpy(), jax.jvp(ref, (x,), (v,))[1], rtol=1e-5, atol=1e-5)
    jacobian = kiln.jit(lambda a: ops.jacfwd(net)(a))(kiln.Tensor(x))
    np.testing.assert_allclose(jacobian.asnumpy(), jax.jacfwd(ref)(x), rtol=1e-5, atol=1e-5)


# (op, x shape): tiled, overlapping, 'same'-padded, 1-D and 3-D average pools, adaptive pools of even and uneven bins
HALF_AVG_CASES = [
    (lambda: ops.AvgPool(3, 3), (4, 8, 7, 9)),
    (lambda: ops.AvgPool((3, 4), 2, "same"), (4, 8, 7, 9)),
    (lambda: kiln.nn.AvgPool1d(5, 2), (4, 8, 63)),
    (lambda: kiln.nn.AvgPool3d(2, 2), (2, 4, 4, 6, 6)),
    (lambda: kiln.nn.AdaptiveAvgPool2d((7, 3)), (4, 8, 7, 9)),
    (lambda: kiln.nn.AdaptiveAvgPool2d((2, 3)), (4, 8, 7, 9)),
]


def _assert_rounded_once(got, exact, dtype):
    """`got` (half precision) is `exact` (float64) rounded once: within half an ulp of it, and a float32 ulp more
    (an exact value on a tie between two half-precision numbers, computed in float32, may round either way)."""
    mantissa = 10 if dtype == np.float16 else 7
    ulp = 2.0 ** (np.floor(np.log2(np.maximum(np.abs(exact), 2.0**-14))) - mantissa)
    err = np.abs(got.astype(np.float64) - exact)
    off = err > ulp * (0.5 + 2.0**-13)
    assert not off.any(), f"{off.mean():.1%} more than half an ulp off, at most {(err / ulp).max()} ulps"


@pytest.mark.parametrize("dtype", [np.float16, jnp.bfloat16])
@pytest.mark.parametrize(("make", "shape"), HALF_AVG_CASES)
@pytest.mark.parametrize("mode", ["pynative", "jit"])
def test_half_precision_average_pool_is_the_exact_mean_rounded_once(make, shape, dtype, mode):
    # MindSpore's CPU kernels sum a float16 window in float32 and round its mean once (both modes); a float16 running
    # sum and quotient were one or two ulps off in 20-55% of the outputs and of the gradients (dy over the count,
    # summed over the windows that hold each input).
    rng = np.random.default_rng(2)
    x = rng.standard_normal(shape).astype(dtype)
    pool_op = make()
    out_shape = pool_op(kiln.Tensor(x.astype(np.float64))).shape
    dy = rng.standard_normal(out_shape).astype(dtype)

    def forward_and_grad(t, d):
        return pool_op(t), ops.GradOperation(sens_param=True)(pool_op)(t, d)

    fn = kiln.jit(forward_and_grad) if mode == "jit" else forward_and_grad
    got, grad = fn(kiln.Tensor(x), kiln.Tensor(dy))
    want, want_grad = forward_and_grad(kiln.Tensor(x.astype(np.float64)), kiln.Tensor(dy.astype(np.float64)))
    assert got.dtype == grad.dtype == kiln.Tensor(x).dtype
    _assert_rounded_once(got.asnumpy(), want.asnumpy(), dtype)
    _assert_rounded_once(grad.asnumpy(), want_grad.asnumpy(), dtype)


# Compiled, XLA may compute a pool's fused producer (BatchNorm's normalisation) once per consumer, each copy rounded
# its own way: the gradient's first-maximum test against the forward's output then missed windows, and BiMLP's
# Downsample (BatchNorm, then 2x2, 3x3, 5x5 and 7x7 'same' pools summed) lost a third of its input gradient in
# GRAPH_MODE only. The gradient now finds each window's maximum again from the input it reads.
@pytest.mark.parametrize("kernels", [(2, 5), (2, 3, 5, 7)])
def test_max_pool_gradients_after_batch_norm_compiled_equal_jax(kernels):
    rng = np.random.default_rng(2)
    x = rng.standard_normal((2, 4, 6, 6)).astype(np.float32)
    proj = rng.standard_normal((2, 4, 3, 3)).astype(np.float32)
    gamma, beta = (rng.standard_normal(4).astype(np.float32) for _ in range(2))
    pools = [ops.MaxPool(k, 2, pad_mode="same") for k in kernels]
    batch_norm = ops.BatchNorm(is_training=True, epsilon=1e-5)
    mean0, var0 = kiln.Tensor(np.zeros(4, np.float32)), kiln.Tensor(np.ones(4, np.float32))

    def loss(t):
        y = batch_norm(t, kiln.Tensor(gamma), kiln.Tensor(beta), mean0, var0)[0]
        return (sum(p(y) for p in pools) * kiln.Tensor(proj)).sum()

    def reference(t):
        mean = t.mean(axis=(0, 2, 3), keepdims=True)
        var = t.var(axis=(0, 2, 3), keepdims=True)
        y = (t - mean) / jnp.sqrt(var + 1e-5) * gamma.reshape(1, 4, 1, 1) + beta.reshape(1, 4, 1, 1)
        out = sum(lax.reduce_window(y, -jnp.inf, lax.max, (1, 1, k, k), (1, 1, 2, 2), "SAME") for k in kernels)
        return (out * proj).sum()

    want = jax.grad(reference)(jnp.asarray(x))
    for fn in (ops.grad(loss), kiln.jit(ops.grad(loss))):
        np.testing.assert_allclose(fn(kiln.Tensor(x)).asnumpy(), want, rtol=1e-4, atol=1e-5)
