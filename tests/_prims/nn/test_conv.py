"""The CPU lowerings of convolutions (thin grouped layers as shifted slices, ungrouped channels-first layers as
dots, tiling transposes as one dot) against XLA's convolution, and when each is used."""

from __future__ import annotations

import numpy as np
import pytest

import kiln
from kiln import ops
from kiln._backend import jax, jnp, lax
from kiln._prims.nn import conv

# (x shape, weight shape, stride, pads, dilation, group)
CASES = [
    ((4, 1, 32, 32), (6, 1, 5, 5), (1, 1), [(0, 0), (0, 0)], (1, 1), 1),  # LeNet5's first layer
    ((2, 3, 13, 11), (5, 3, 3, 3), (2, 2), [(1, 1), (1, 1)], (1, 1), 1),  # strided, odd sizes, RGB
    ((2, 3, 9, 10), (4, 3, 3, 2), (1, 3), [(2, 0), (0, 1)], (2, 1), 1),  # asymmetric pads, dilation
    ((2, 4, 7, 7), (8, 1, 3, 3), (1, 1), [(1, 1), (1, 1)], (1, 1), 4),  # depthwise, 2 outputs per group
    ((2, 6, 8, 9), (6, 2, 2, 3), (2, 1), [(0, 1), (1, 2)], (1, 2), 3),  # grouped, 2 inputs per group
    ((3, 5, 6, 6), (7, 5, 1, 1), (1, 1), [(0, 0), (0, 0)], (1, 1), 1),  # 1x1
    ((3, 5, 7, 7), (7, 5, 1, 1), (2, 2), [(0, 0), (0, 0)], (1, 1), 1),  # strided 1x1
    ((2, 1, 5, 5), (3, 1, 5, 5), (1, 1), [(0, 0), (0, 0)], (1, 1), 1),  # kernel as large as the input
    ((2, 2, 17), (3, 2, 4), (3,), [(2, 1)], (2,), 1),  # 1-D
    ((1, 2, 5, 6, 4), (4, 1, 2, 3, 2), (1, 2, 1), [(1, 0), (0, 1), (1, 1)], (1, 1, 2), 2),  # 3-D, grouped
]


_PULL = jax.jit(lambda pull, dy: pull(dy))


def _vjp(fn, *args):
    """`jax.vjp(fn, *args)` with its forward and its pullback each compiled as one program. Eager JAX compiles
    every operation of a lowering alone (a shifted convolution is dozens of slices): this file took 692 s of the
    suite's time on the 2-core CI machine, second only to the generated corpus."""
    out, pull = jax.jit(lambda *a: jax.vjp(fn, *a))(*args)
    return out, lambda dy: _PULL(pull, dy)


def _xla(x, w, stride, pads, dilation, group):
    return lax.conv_general_dilated(x, w, stride, pads, rhs_dilation=dilation, feature_group_count=group)


def _data(x_shape, w_shape, seed=0):
    rng = np.random.default_rng(seed)
    return (
        jnp.asarray(rng.standard_normal(x_shape).astype(np.float32)),
        jnp.asarray(rng.standard_normal(w_shape).astype(np.float32)),
    )


@pytest.mark.parametrize("case", CASES, ids=[str(c[0]) + str(c[1]) for c in CASES])
def test_shifted_conv_equals_xla_values_and_gradients(case):
    x_shape, w_shape, stride, pads, dilation, group = case
    x, w = _data(x_shape, w_shape)
    want, want_pull = _vjp(lambda a, b: _xla(a, b, stride, pads, dilation, group), x, w)
    got, got_pull = _vjp(lambda a, b: conv.shifted_conv(a, b, stride, pads, dilation, group), x, w)
    assert got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
    dy = jnp.asarray(np.random.default_rng(1).standard_normal(want.shape).astype(np.float32))
    for g, e in zip(got_pull(dy), want_pull(dy), strict=True):
        np.testing.assert_allclose(g, e, rtol=1e-5, atol=1e-4)


def _conv2d(x, w, **attrs):
    kw = {"stride": (1, 1), "pad_mode": "valid", "pad": (0, 0, 0, 0), "dilation": (1, 1), "group": 1}
    kw.update(attrs)
    return conv.Conv2D.impl(x, w, None, data_format="NCHW", **kw)


def _lowered_ops(fn, *args) -> set[str]:
    fresh = lambda *a: fn(*a)  # noqa: E731  (a new function each call: jax caches traces per function)
    return {str(eqn.primitive) for eqn in jax.make_jaxpr(fresh)(*args).jaxpr.eqns}


@pytest.mark.parametrize(
    ("x_shape", "w_shape", "attrs"),
    [
        ((2, 4, 9, 9), (4, 1, 3, 3), {"pad_mode": "same", "group": 4, "dilation": (2, 1)}),  # depthwise
        ((2, 6, 12, 12), (12, 2, 3, 3), {"stride": (2, 2), "pad_mode": "pad", "pad": (1, 2, 0, 1), "group": 3}),
    ],
)
def test_conv2d_lowers_thin_grouped_layers_to_shifted_slices_on_cpu(x_shape, w_shape, attrs, monkeypatch):
    monkeypatch.setattr(conv, "default_platform", lambda: "cpu")  # the rule under test, on any machine
    x, w = _data(x_shape, w_shape)
    pads, _ = conv.conv_geometry(
        x.shape[2:],
        w.shape[2:],
        attrs.get("stride", (1, 1)),
        attrs.get("dilation", (1, 1)),
        attrs.get("pad_mode", "valid"),
        attrs.get("pad", (0,) * 4),
    )
    want = _xla(x, w, attrs.get("stride", (1, 1)), pads, attrs.get("dilation", (1, 1)), attrs.get("group", 1))
    np.testing.assert_allclose(_conv2d(x, w, **attrs), want, rtol=1e-5, atol=1e-5)
    assert "conv_general_dilated" not in _lowered_ops(lambda a, b: _conv2d(a, b, **attrs), x, w)


def test_conv2d_keeps_xla_convolution_for_ungrouped_wide_layers_and_other_dtypes(monkeypatch):
    monkeypatch.setattr(conv, "default_platform", lambda: "cpu")
    x, w = _data((4, 16, 14, 14), (16, 16, 5, 5))  # ungrouped, 16 channels: XLA's
    assert "conv_general_dilated" in _lowered_ops(_conv2d, x, w)
    x, w = _data((4, 6, 14, 14), (16, 6, 5, 5))  # LeNet5's second layer at a stride of 2: XLA's
    assert "conv_general_dilated" in _lowered_ops(lambda a, b: _conv2d(a, b, stride=(2, 2)), x, w)
    x, w = _data((4, 1, 32, 32), (6, 1, 5, 5))  # its first layer (1 channel): patches + a dot, never shifted
    assert "conv_general_dilated" not in _lowered_ops(_conv2d, x, w) and "dot_general" in _lowered_ops(_conv2d, x, w)
    x, w = _data(
        (2, 16, 8, 8),
        (16, 2, 5, 5),
    )  # grouped, 2 x 25 terms: shifted
    assert "conv_general_dilated" not in _lowered_ops(lambda a, b: _conv2d(a, b, group=8), x, w)
    x, w = _data((2, 16, 8, 8), (16, 4, 5, 5))  # grouped, 4 x 25 terms: past the threshold
    assert "conv_general_dilated" in _lowered_ops(lambda a, b: _conv2d(a, b, group=4), x, w)
    x, w = _data((2, 4, 8, 8), (4, 1, 3, 3))
    half = (x.astype(jnp.float16), w.astype(jnp.float16))  # low precision keeps XLA's accumulation
    assert "conv_general_dilated" in _lowered_ops(lambda a, b: _conv2d(a, b, group=4), *half)


def test_conv2d_keeps_xla_convolution_on_gpu(monkeypatch):
    x, w = _data((2, 4, 8, 8), (4, 1, 3, 3))
    monkeypatch.setattr(conv, "default_platform", lambda: "cpu")
    assert conv.use_shifted_conv(x, w, 4, "NCHW")
    monkeypatch.setattr(conv, "default_platform", lambda: "gpu")
    assert not conv.use_shifted_conv(x, w, 4, "NCHW")
    assert "conv_general_dilated" in _lowered_ops(lambda a, b: _conv2d(a, b, group=4), x, w)


def test_conv2d_gradients_through_kiln_match_xla():
    x, w = _data((3, 1, 10, 10), (4, 1, 3, 3))
    b = jnp.asarray(np.arange(4, dtype=np.float32))

    def loss(xx, ww, bb):
        y = ops.conv2d(xx, ww, bb, stride=2, pad_mode="pad", padding=1)
        return (y * y).sum()

    args = [kiln.Tensor(np.asarray(a)) for a in (x, w, b)]
    grads = kiln.grad(loss, grad_position=(0, 1, 2))(*args)

    def ref(xx, ww, bb):
        y = _xla(xx, ww, (2, 2), [(1, 1), (1, 1)], (1, 1), 1) + bb.reshape(1, -1, 1, 1)
        return (y * y).sum()

    for g, e in zip(grads, jax.grad(ref, argnums=(0, 1, 2))(x, w, b), strict=True):
        np.testing.assert_allclose(g.asnumpy(), e, rtol=1e-4, atol=1e-4)


# ---- every lowering of the Conv primitives, values and both gradients ---------------------------------
# (x shape, weight shape, attrs, data_format): which lowering each takes on the CPU is in the comment
PRIMITIVE_CASES = [
    ((2, 3, 9, 9), (4, 3, 3, 3), {"stride": (2, 1), "pad_mode": "pad", "pad": (1, 0, 2, 1)}, "NCHW"),  # XLA
    ((2, 5, 6, 7), (4, 5, 1, 1), {}, "NCHW"),  # pointwise dot
    ((2, 5, 7, 7), (6, 5, 1, 1), {"stride": (2, 3)}, "NCHW"),  # strided pointwise
    ((2, 5, 6, 6), (6, 5, 1, 1), {"pad_mode": "pad", "pad": (1, 0, 0, 2), "dilation": (2, 2)}, "NCHW"),
    ((2, 6, 7, 5), (3, 5, 1, 1), {"stride": (2, 1)}, "NHWC"),  # pointwise, channels last
    ((2, 7, 7, 3), (4, 3, 3, 3), {"pad_mode": "same"}, "NHWC"),  # XLA, channels last
    ((2, 4, 9, 9), (8, 1, 3, 3), {"pad_mode": "same", "group": 4}, "NCHW"),  # shifted (depthwise, 2 per group)
    ((2, 6, 8, 10), (6, 1, 5, 3), {"pad_mode": "valid", "group": 6, "dilation": (1, 2)}, "NCHW"),  # shifted
    ((2, 6, 8, 8), (4, 3, 3, 3), {"group": 2}, "NCHW"),  # XLA, grouped
]
ND_CASES = [  # (primitive, x shape, weight shape, attrs)
    ("Conv1D", (2, 3, 11), (4, 3, 1), {"stride": (2,), "pad": (1, 1), "pad_mode": "pad"}),  # pointwise 1-D
    ("Conv1D", (2, 3, 11), (4, 3, 1, 3), {"dilation": (2,)}),  # MindSpore's (C_out, C_in, 1, K) 1-D weight
    ("Conv3D", (1, 3, 4, 5, 6), (2, 3, 1, 1, 1), {"stride": (1, 2, 1)}),  # pointwise 3-D
    ("Conv3D", (1, 2, 4, 5, 6), (4, 1, 2, 2, 3), {"group": 2, "pad_mode": "same"}),  # shifted 3-D
]


def _run_primitive(prim, x, w, b, attrs, data_format):
    """The primitive's value and its hand-written (dx, dw, db) for an all-ones-free random cotangent."""
    nd = x.ndim - 2
    kw = {"stride": (1,) * nd, "pad_mode": "valid", "pad": (0,) * (2 * nd), "dilation": (1,) * nd, "group": 1}
    kw |= attrs
    out = jax.jit(lambda x, w, b: prim.impl(x, w, b, data_format=data_format, **kw))(x, w, b)
    dout = jnp.asarray(np.random.default_rng(2).standard_normal(out.shape).astype(x.dtype))
    vjp = jax.jit(lambda *a: prim.custom_vjp(*a, out=out, dout=dout, data_format=data_format, **kw))
    return out, dout, vjp(x, w, b)


def _reference(x, w, b, attrs, data_format, dout):
    """lax.conv_general_dilated and its jax.vjp with the same geometry."""
    nd = x.ndim - 2
    w_nd = w.reshape(w.shape[:2] + w.shape[3:]) if w.ndim == nd + 3 else w
    last = data_format in ("NWC", "NHWC", "NDHWC")
    sizes = x.shape[1:-1] if last else x.shape[2:]
    stride, dilation = attrs.get("stride", (1,) * nd), attrs.get("dilation", (1,) * nd)
    pads, _ = conv.conv_geometry(
        sizes, w_nd.shape[2:], stride, dilation, attrs.get("pad_mode", "valid"), attrs.get("pad", (0,) * 2 * nd)
    )
    sp = "DHW"[3 - nd :]
    dn = (f"N{sp}C" if last else f"NC{sp}", f"OI{sp}", f"N{sp}C" if last else f"NC{sp}")

    def fn(x_, w_, b_):
        y = lax.conv_general_dilated(
            x_, w_.reshape(w_nd.shape), stride, pads, rhs_dilation=dilation,
            feature_group_count=attrs.get("group", 1), dimension_numbers=dn,
        )  # fmt: skip
        return y + (b_ if last else b_.reshape((1, -1) + (1,) * nd))

    want, pull = _vjp(fn, x, w, b)
    return want, pull(dout)


def _check_against_reference(prim, x_shape, w_shape, attrs, data_format, dtype=np.float32, tol=1e-4):
    x, w = _data(x_shape, w_shape)
    x, w = x.astype(dtype), w.astype(dtype)
    channels = w_shape[0]
    b = jnp.asarray(np.linspace(-1, 1, channels), dtype)
    out, dout, grads = _run_primitive(prim, x, w, b, attrs, data_format)
    want, want_grads = _reference(x, w, b, attrs, data_format, dout)
    assert out.dtype == want.dtype
    np.testing.assert_allclose(np.asarray(out, np.float64), np.asarray(want, np.float64), rtol=tol, atol=tol)
    for got, expect in zip(grads, want_grads, strict=True):
        assert got.shape == expect.shape and got.dtype == expect.dtype
        np.testing.assert_allclose(np.asarray(got, np.float64), np.asarray(expect, np.float64), rtol=tol, atol=tol)


@pytest.mark.parametrize("platform", ["cpu", "gpu"])
@pytest.mark.parametrize("case", PRIMITIVE_CASES, ids=[f"{c[0]}{c[1]}{c[3]}" for c in PRIMITIVE_CASES])
def test_conv2d_every_lowering_equals_xla_values_and_gradients(case, platform, monkeypatch):
    monkeypatch.setattr(conv, "default_platform", lambda: platform)  # gpu: XLA's convolution everywhere
    x_shape, w_shape, attrs, data_format = case
    _check_against_reference(conv.Conv2D, x_shape, w_shape, attrs, data_format)


@pytest.mark.parametrize("case", ND_CASES, ids=[f"{c[0]}{c[1]}{c[2]}" for c in ND_CASES])
def test_conv1d_and_conv3d_lowerings_equal_xla_values_and_gradients(case, monkeypatch):
    monkeypatch.setattr(conv, "default_platform", lambda: "cpu")
    name, x_shape, w_shape, attrs = case
    _check_against_reference(getattr(conv, name), x_shape, w_shape, attrs, "NCHW")


@pytest.mark.parametrize("dtype", [jnp.float16, jnp.bfloat16, np.float64])
def test_conv2d_other_dtypes_equal_xla(dtype, monkeypatch):
    monkeypatch.setattr(conv, "default_platform", lambda: "cpu")
    tol = 1e-9 if dtype == np.float64 else 5e-2
    for x_shape, w_shape, attrs, data_format in PRIMITIVE_CASES[1:2] + PRIMITIVE_CASES[6:7]:
        _check_against_reference(conv.Conv2D, x_shape, w_shape, attrs, data_format, dtype=dtype, tol=tol)


def test_conv2d_gradients_match_finite_differences(monkeypatch):
    monkeypatch.setattr(conv, "default_platform", lambda: "cpu")
    rng = np.random.default_rng(5)
    for w_shape, attrs in [((3, 2, 1, 1), {"stride": (2, 1)}), ((3, 2, 3, 3), {"pad_mode": "same"})]:
        x = jnp.asarray(rng.standard_normal((1, 2, 5, 5)))  # float64: differences without rounding noise
        w = jnp.asarray(rng.standard_normal(w_shape))
        b = jnp.zeros((3,), jnp.float64)
        out, dout, (dx, dw, _) = _run_primitive(conv.Conv2D, x, w, b, attrs, "NCHW")

        def loss(x_, w_, b=b, attrs=attrs, dout=dout):
            return float(jnp.sum(_run_primitive(conv.Conv2D, x_, w_, b, attrs, "NCHW")[0] * dout))

        eps = 1e-6
        for arr, grad, which in ((x, dx, 0), (w, dw, 1)):
            for index in [(0,) * arr.ndim, tuple(s - 1 for s in arr.shape), tuple(s // 2 for s in arr.shape)]:
                bump = jnp.zeros_like(arr).at[index].set(eps)
                args = [x, w]
                plus, minus = list(args), list(args)
                plus[which], minus[which] = arr + bump, arr - bump
                numeric = (loss(*plus) - loss(*minus)) / (2 * eps)
                np.testing.assert_allclose(float(grad[index]), numeric, rtol=1e-5, atol=1e-7)


# ---- ungrouped channels-first 2-D convolutions as dots (`dot_directions`) ------------------------------
DOT_CASES = [  # (x shape, weight shape, attrs)
    ((3, 5, 6, 7), (4, 5, 1, 1), {}),  # 1x1
    ((2, 5, 7, 9), (6, 5, 1, 1), {"stride": (2, 3)}),  # strided 1x1, sizes not multiples of the stride
    ((2, 4, 6, 6), (3, 4, 1, 1), {"pad_mode": "pad", "pad": (1, 0, 0, 2), "stride": (2, 1)}),  # padded 1x1
    ((2, 3, 8, 8), (4, 3, 3, 3), {"pad_mode": "pad", "pad": (1, 1, 1, 1)}),  # ResNet's 3x3
    ((2, 3, 9, 8), (4, 3, 3, 3), {"pad_mode": "pad", "pad": (1, 1, 1, 1), "stride": (2, 2)}),  # 3x3 / 2
    ((2, 6, 14, 14), (16, 6, 5, 5), {}),  # LeNet5's second layer
    ((2, 3, 9, 10), (4, 3, 3, 2), {"pad_mode": "same", "stride": (2, 3)}),  # asymmetric 'same' pads
]


@pytest.mark.parametrize("min_pixels", [1, 10**9], ids=["batched", "short rows"])
@pytest.mark.parametrize("case", DOT_CASES, ids=[f"{c[0]}{c[1]}" for c in DOT_CASES])
def test_dot_lowering_equals_xla_values_and_gradients(case, min_pixels, monkeypatch):
    monkeypatch.setattr(conv, "default_platform", lambda: "cpu")
    monkeypatch.setattr(conv, "DOT_MIN_PIXELS", min_pixels)  # both forms of the rule on small shapes
    monkeypatch.setattr(conv, "TAP_MIN_CHANNELS", 1)
    x_shape, w_shape, attrs = case
    _check_against_reference(conv.Conv2D, x_shape, w_shape, attrs, "NCHW")
    _check_against_reference(conv.Conv2D, x_shape, w_shape, attrs, "NCHW", dtype=np.float64, tol=1e-9)


def test_dot_lowering_functions_equal_lax_and_its_vjp():
    x, w = _data((2, 4, 9, 7), (5, 4, 1, 1))
    stride, pads = (2, 2), [(1, 0), (0, 2)]
    want, pull = _vjp(lambda a, b: _xla(a, b, stride, pads, (1, 1), 1), x, w)
    outs = want.shape[2:]
    np.testing.assert_allclose(conv.patch_conv(x, w, stride, pads, outs), want, rtol=1e-5, atol=1e-5)
    dy = jnp.asarray(np.random.default_rng(3).standard_normal(want.shape).astype(np.float32))
    dx, dw = pull(dy)
    np.testing.assert_allclose(conv.pointwise_conv_input_grad(dy, w, stride, pads, x.shape[2:]), dx, atol=1e-5)
    np.testing.assert_allclose(conv.tap_weight_grad(x, dy, (1, 1), stride, pads), dw, rtol=1e-5, atol=1e-4)
    np.testing.assert_allclose(conv.pointwise_weight_grad(x, dy, stride, pads), dw, rtol=1e-5, atol=1e-4)


@pytest.mark.parametrize(
    ("x_shape", "w_shape", "pads"),
    [((2, 6, 14, 14), (16, 6, 5, 5), [(0, 0), (0, 0)]), ((2, 3, 7, 9), (4, 3, 3, 2), [(1, 2), (0, 1)])],
    ids=["lenet2", "padded"],
)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_banded_input_grad_equals_lax_vjp(x_shape, w_shape, pads, dtype):
    x, w = (a.astype(dtype) for a in _data(x_shape, w_shape))
    want, pull = _vjp(lambda a, b: _xla(a, b, (1, 1), pads, (1, 1), 1), x, w)
    dy = jnp.asarray(np.random.default_rng(4).standard_normal(want.shape).astype(dtype))
    got = conv.banded_input_grad(dy, w, pads, x.shape[2:])
    assert got.dtype == dtype
    tol = 1e-5 if dtype == np.float32 else 1e-12
    np.testing.assert_allclose(got, pull(dy)[0], rtol=tol, atol=tol)


PHASE_CASES = [  # (x shape, weight shape, pads) of stride-2 convolutions
    ((2, 3, 8, 8), (4, 3, 3, 3), [(1, 1), (1, 1)]),  # ResNet's 3x3 / 2, even sizes
    ((2, 3, 9, 7), (4, 3, 3, 3), [(1, 1), (1, 1)]),  # odd sizes: the last row and column are in no window
    ((2, 3, 8, 9), (4, 3, 3, 3), [(0, 1), (0, 0)]),  # 'same' pads, asymmetric; no padding
    ((2, 2, 11, 10), (3, 2, 5, 5), [(2, 2), (3, 1)]),  # 5x5
    ((2, 2, 7, 9), (3, 2, 2, 4), [(0, 0), (1, 2)]),  # even kernels: both parities have as many taps
    ((1, 2, 6, 6), (3, 2, 3, 3), [(4, 3), (2, 5)]),  # padding wider than the kernel
]


@pytest.mark.parametrize(("x_shape", "w_shape", "pads"), PHASE_CASES, ids=[f"{c[0]}{c[1]}" for c in PHASE_CASES])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_phase_input_grad_equals_lax_vjp(x_shape, w_shape, pads, dtype):
    x, w = (a.astype(dtype) for a in _data(x_shape, w_shape))
    want, pull = _vjp(lambda a: _xla(a, w, (2, 2), pads, (1, 1), 1), x)
    dy = jnp.asarray(np.random.default_rng(6).standard_normal(want.shape).astype(dtype))
    got = conv.phase_input_grad(dy, w, pads, x.shape[2:])
    assert got.shape == x.shape and got.dtype == dtype
    tol = 1e-5 if dtype == np.float32 else 1e-12
    np.testing.assert_allclose(got, pull(dy)[0], rtol=tol, atol=tol)


@pytest.mark.parametrize("platform", ["cpu", "gpu"])
def test_strided_input_gradient_runs_as_phases_on_cpu_and_equals_lax(platform, monkeypatch):
    monkeypatch.setattr(conv, "default_platform", lambda: platform)
    monkeypatch.setattr(conv, "PHASE_MIN_CHANNELS", 1)  # the rule on small shapes
    monkeypatch.setattr(conv, "PHASE_MIN_PIXELS", 1)
    calls = []
    monkeypatch.setattr(conv, "phase_input_grad", lambda *a, f=conv.phase_input_grad: calls.append(1) or f(*a))
    attrs = {"pad_mode": "pad", "pad": (1, 1, 1, 1), "stride": (2, 2)}
    _check_against_reference(conv.Conv2D, (2, 3, 9, 8), (4, 3, 3, 3), attrs, "NCHW")
    _check_against_reference(conv.Conv2D, (2, 3, 9, 8), (4, 3, 3, 3), attrs, "NCHW", dtype=np.float64, tol=1e-9)
    _check_against_reference(conv.Conv2D, (2, 3, 9, 10), (4, 3, 3, 3), {"pad_mode": "same", "stride": (2, 2)}, "NCHW")
    assert len(calls) == (3 if platform == "cpu" else 0)


def test_phase_input_grad_rule(monkeypatch):
    monkeypatch.setattr(conv, "default_platform", lambda: "cpu")
    x = jnp.zeros((1, 128, 1, 1), jnp.float32)
    w3 = jnp.zeros((128, 128, 3, 3))
    assert conv.uses_phase_input_grad(x, w3, (28, 28), (2, 2), (1, 1), 1, "NCHW")  # ResNet-50's 56 -> 28
    assert not conv.uses_phase_input_grad(x, w3, (14, 14), (2, 2), (1, 1), 1, "NCHW")  # 28 -> 14: no clear win
    assert not conv.uses_phase_input_grad(x, w3, (28, 28), (1, 1), (1, 1), 1, "NCHW")  # stride 1
    assert not conv.uses_phase_input_grad(x, w3, (28, 28), (2, 1), (1, 1), 1, "NCHW")
    assert not conv.uses_phase_input_grad(x, w3[:, :, :1], (28, 28), (2, 2), (1, 1), 1, "NCHW")  # a 1-tap side
    assert not conv.uses_phase_input_grad(x, jnp.zeros((128, 128, 1, 1)), (28, 28), (2, 2), (1, 1), 1, "NCHW")
    stem = jnp.zeros((32, 3, 3, 3))  # few input channels: slower
    assert not conv.uses_phase_input_grad(jnp.zeros((1, 3, 1, 1)), stem, (32, 32), (2, 2), (1, 1), 1, "NCHW")
    assert not conv.uses_phase_input_grad(x, w3, (28, 28), (2, 2), (2, 2), 1, "NCHW")  # dilated
    assert not conv.uses_phase_input_grad(x, w3[:, :64], (28, 28), (2, 2), (1, 1), 2, "NCHW")  # grouped
    assert not conv.uses_phase_input_grad(x, w3, (28, 28), (2, 2), (1, 1), 1, "NHWC")
    assert not conv.uses_phase_input_grad(x.astype(jnp.float16), w3, (28, 28), (2, 2), (1, 1), 1, "NCHW")
    monkeypatch.setattr(conv, "default_platform", lambda: "gpu")
    assert not conv.uses_phase_input_grad(x, w3, (28, 28), (2, 2), (1, 1), 1, "NCHW")


def test_dot_directions_rule(monkeypatch):
    monkeypatch.setattr(conv, "default_platform", lambda: "cpu")
    f32 = jnp.zeros((1, 64, 1, 1), jnp.float32)
    w1, w3 = jnp.zeros((64, 64, 1, 1)), jnp.zeros((64, 64, 3, 3))
    everything = {"forward", "input", "weight"}
    assert conv.dot_directions(f32, w1, (56, 56), (1, 1), (1, 1), 1, "NCHW") == everything  # ResNet-50 stage 1
    assert conv.dot_directions(f32, w1, (28, 28), (2, 2), (1, 1), 1, "NCHW") == everything  # 56 -> 28, stride 2
    assert conv.dot_directions(f32, w1, (14, 14), (1, 1), (1, 1), 1, "NCHW") == {"weight"}  # short rows: one dot
    assert conv.dot_directions(f32, w3, (56, 56), (1, 1), (1, 1), 1, "NCHW") == {"weight"}
    assert conv.dot_directions(f32, w3, (28, 28), (2, 2), (1, 1), 1, "NCHW") == set()  # 56 -> 28 / 2: XLA's
    assert conv.dot_directions(f32, w3, (14, 14), (1, 1), (1, 1), 1, "NCHW") == set()
    lenet1, lenet2 = jnp.zeros((6, 1, 5, 5)), jnp.zeros((16, 6, 5, 5))
    assert conv.dot_directions(jnp.zeros((1, 1, 1, 1)), lenet1, (28, 28), (2, 2), (1, 1), 1, "NCHW") == {
        "forward",
        "weight",
    }
    one = jnp.zeros((1, 1, 1, 1))
    assert conv.dot_directions(one, lenet1, (5, 5), (1, 1), (1, 1), 1, "NCHW") == everything  # banded: one channel
    assert conv.dot_directions(one, lenet1, (28, 28), (1, 1), (1, 1), 1, "NCHW") == everything  # 28 columns, 5x5
    assert conv.dot_directions(one, lenet1, (29, 29), (1, 1), (1, 1), 1, "NCHW") == {"forward", "weight"}  # wider
    three = jnp.zeros((32, 1, 3, 3))  # 3x3 at 28 columns: 10x the multiply-adds, XLA's
    assert conv.dot_directions(one, three, (28, 28), (1, 1), (1, 1), 1, "NCHW") == {"forward", "weight"}
    big = jnp.zeros((64, 15, 5, 5))  # 28 columns, a band of 3.2 M entries: XLA's
    assert conv.dot_directions(jnp.zeros((1, 15, 1, 1)), big, (24, 24), (1, 1), (1, 1), 1, "NCHW") == set()
    assert conv.uses_banded_input_grad(big, (16, 16), (1, 1))  # up to 16 columns whatever its size (session 11)
    six = jnp.zeros((1, 6, 1, 1))
    assert conv.dot_directions(six, lenet2, (10, 10), (1, 1), (1, 1), 1, "NCHW") == everything  # patches, banded
    assert conv.dot_directions(six, lenet2, (5, 5), (2, 2), (1, 1), 1, "NCHW") == set()  # strided: XLA's
    assert conv.dot_directions(six, lenet2, (10, 17), (1, 1), (1, 1), 1, "NCHW") == set()  # wide: XLA's
    stem = jnp.zeros((32, 3, 3, 3))  # MobileNetV2's stem at 32x32: stride 2, XLA's
    assert conv.dot_directions(jnp.zeros((1, 3, 1, 1)), stem, (16, 16), (2, 2), (1, 1), 1, "NCHW") == set()
    assert conv.uses_patches(lenet2, (10, 10), (1, 1)) and not conv.uses_patches(lenet2, (12, 12), (1, 1))  # entries
    assert conv.dot_directions(f32[:, :16], w3[:, :16], (14, 14), (1, 1), (1, 1), 1, "NCHW") == set()  # 16 channels
    assert conv.dot_directions(f32, w1, (56, 56), (1, 1), (2, 2), 1, "NCHW") == set()  # dilated
    assert conv.dot_directions(f32, w1[:, :32], (56, 56), (1, 1), (1, 1), 2, "NCHW") == set()  # grouped
    assert conv.dot_directions(f32, w1, (56, 56), (1, 1), (1, 1), 1, "NHWC") == set()
    assert conv.dot_directions(f32.astype(jnp.float16), w1, (56, 56), (1, 1), (1, 1), 1, "NCHW") == set()
    monkeypatch.setattr(conv, "default_platform", lambda: "gpu")
    assert conv.dot_directions(f32, w1, (56, 56), (1, 1), (1, 1), 1, "NCHW") == set()


@pytest.mark.parametrize(
    "case",
    [
        ((3, 1, 12, 12), (6, 1, 5, 5), {}),  # LeNet5's first layer
        ((2, 1, 9, 8), (4, 1, 3, 2), {"pad_mode": "pad", "pad": (1, 0, 2, 1), "stride": (2, 3)}),
        ((2, 1, 7, 7), (3, 1, 3, 3), {"pad_mode": "same"}),
        ((2, 1, 9, 8), (4, 1, 3, 2), {"pad_mode": "pad", "pad": (1, 0, 2, 1), "stride": (1, 2)}),
    ],
    ids=["lenet1", "strided padded", "same", "row stride 1, column stride 2"],
)
def test_one_channel_patch_forward_equals_lax_and_its_gradients(case, monkeypatch):
    monkeypatch.setattr(conv, "default_platform", lambda: "cpu")
    x_shape, w_shape, attrs = case
    x, w = _data(x_shape, w_shape)
    assert "conv_general_dilated" not in _lowered_ops(lambda a, b: _conv2d(a, b, **attrs), x, w)
    _check_against_reference(conv.Conv2D, x_shape, w_shape, attrs, "NCHW")
    _check_against_reference(conv.Conv2D, x_shape, w_shape, attrs, "NCHW", dtype=np.float64, tol=1e-9)


@pytest.mark.parametrize("platform", ["cpu", "gpu"])
def test_lenet_second_layer_runs_as_patches_on_cpu_and_equals_lax(platform, monkeypatch):
    monkeypatch.setattr(conv, "default_platform", lambda: platform)
    x_shape, w_shape = (3, 6, 14, 14), (16, 6, 5, 5)  # LeNet5's second layer
    x, w = _data(x_shape, w_shape)
    lowered = _lowered_ops(lambda a, b: _conv2d(a, b), x, w)
    assert ("conv_general_dilated" in lowered) == (platform == "gpu")  # the GPU keeps XLA's convolution
    calls = []
    monkeypatch.setattr(conv, "patch_weight_grad", lambda *a, f=conv.patch_weight_grad: calls.append(1) or f(*a))
    _check_against_reference(conv.Conv2D, x_shape, w_shape, {}, "NCHW")
    _check_against_reference(conv.Conv2D, x_shape, w_shape, {}, "NCHW", dtype=np.float64, tol=1e-9)
    assert bool(calls) == (platform == "cpu")


@pytest.mark.parametrize("platform", ["cpu", "gpu"])
@pytest.mark.parametrize(
    ("x_shape", "w_shape", "attrs"),
    [
        ((3, 1, 32, 32), (6, 1, 5, 5), {}),  # LeNet5's first layer: 28 columns
        ((2, 1, 12, 11), (4, 1, 3, 3), {"pad_mode": "same"}),  # one channel, padded
        ((2, 3, 30, 27), (5, 3, 5, 5), {"pad_mode": "pad", "pad": (2, 1, 0, 3)}),  # RGB, asymmetric pads, 26 columns
    ],
    ids=["lenet1", "one channel same", "rgb 5x5"],
)
def test_few_channel_input_gradient_runs_as_a_banded_dot_on_cpu_and_equals_lax(
    x_shape, w_shape, attrs, platform, monkeypatch
):
    monkeypatch.setattr(conv, "default_platform", lambda: platform)
    calls = []
    monkeypatch.setattr(conv, "banded_input_grad", lambda *a, f=conv.banded_input_grad: calls.append(1) or f(*a))
    _check_against_reference(conv.Conv2D, x_shape, w_shape, attrs, "NCHW")
    _check_against_reference(conv.Conv2D, x_shape, w_shape, attrs, "NCHW", dtype=np.float64, tol=1e-9)
    assert len(calls) == (2 if platform == "cpu" else 0)


def test_patch_conv_equals_lax_for_kxk_kernels():
    for x_shape, w_shape, stride, pads in [
        ((2, 1, 11, 10), (6, 1, 5, 5), (1, 1), [(0, 0), (0, 0)]),
        ((2, 3, 9, 8), (4, 3, 3, 3), (2, 1), [(1, 2), (0, 1)]),  # several channels: rows ordered (channel, tap)
    ]:
        x, w = _data(x_shape, w_shape)
        want = _xla(x, w, stride, pads, (1, 1), 1)
        got = conv.patch_conv(x, w, stride, pads, want.shape[2:])
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize(
    ("x_shape", "kernel", "stride", "pads"),
    [
        ((2, 1, 32, 32), (5, 5), (1, 1), [(0, 0), (0, 0)]),  # LeNet5's first layer
        ((2, 3, 9, 8), (3, 2), (2, 3), [(1, 2), (0, 1)]),  # several channels, strided, padded
    ],
)
def test_kxk_patches_equal_jax_patches_and_are_two_stacks(x_shape, kernel, stride, pads):
    x = jnp.asarray(np.random.default_rng(3).standard_normal(x_shape).astype(np.float32))
    outs = conv.conv_geometry(x_shape[2:], kernel, stride, (1, 1), "pad", [p for pair in pads for p in pair])[1]
    got = conv._patches(x, kernel, stride, pads, outs)
    # JAX's patches are (N, C x taps, *outs), channel-major, taps row-major: the same copy of the same entries.
    want = lax.conv_general_dilated_patches(x, kernel, stride, pads, precision=lax.Precision.HIGHEST)
    np.testing.assert_array_equal(got, np.asarray(want).reshape(got.shape))
    # One stack per kernel axis (kw, then kh slices): XLA's CPU fusion makes each one loop, where one stack of
    # kh x kw slices stayed kh x kw slice kernels and a copy.
    jaxpr = jax.make_jaxpr(lambda a: conv._patches(a, kernel, stride, pads, outs))(x).jaxpr
    stacked = sorted(len(eqn.invars) for eqn in jaxpr.eqns if str(eqn.primitive) in ("stack", "concatenate"))
    assert stacked == sorted(kernel)


@pytest.mark.parametrize(
    ("x_shape", "kernel", "stride", "pads"),
    [
        ((2, 1, 32, 32), (5, 5), (1, 1), [(0, 0), (0, 0)]),  # LeNet5's first layer
        ((2, 1, 9, 8), (3, 2), (1, 3), [(1, 2), (0, 1)]),  # padded, column stride 3
        ((2, 1, 9, 8), (3, 3), (2, 1), [(1, 1), (1, 1)]),  # row stride 2: the rows' windows are not contiguous
    ],
)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_one_channel_patches_are_contiguous_slices_of_the_flat_column_windows(x_shape, kernel, stride, pads, dtype):
    """With one channel and row stride 1 the patches are the concatenate of kh contiguous slices of the flat
    column windows (no reshape after it: XLA's fusion emitters write that concatenate as one vectorised loop)."""
    x = jnp.asarray(np.random.default_rng(4).standard_normal(x_shape).astype(dtype))
    outs = conv.conv_geometry(x_shape[2:], kernel, stride, (1, 1), "pad", [p for pair in pads for p in pair])[1]
    got = conv._patches(x, kernel, stride, pads, outs)
    want = lax.conv_general_dilated_patches(x, kernel, stride, pads, precision=lax.Precision.HIGHEST)
    assert got.dtype == x.dtype == dtype
    np.testing.assert_array_equal(got, np.asarray(want).reshape(got.shape))
    last = jax.make_jaxpr(lambda a: conv._patches(a, kernel, stride, pads, outs))(x).jaxpr.eqns[-1]
    if stride[0] == 1:
        assert str(last.primitive) == "concatenate" and len(last.invars) == kernel[0]
        assert last.params["dimension"] == 1
    else:
        assert str(last.primitive) == "reshape"


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_patch_weight_grad_equals_lax_vjp_and_replaces_the_convolution(dtype, monkeypatch):
    monkeypatch.setattr(conv, "default_platform", lambda: "cpu")
    tol = 1e-4 if dtype == np.float32 else 1e-9
    for x_shape, w_shape, stride, pads in [
        ((3, 1, 12, 12), (6, 1, 5, 5), (1, 1), [(0, 0), (0, 0)]),  # LeNet5's first layer
        ((2, 1, 9, 8), (4, 1, 3, 2), (2, 3), [(1, 0), (2, 1)]),  # strided, padded
        ((2, 3, 9, 8), (4, 3, 3, 3), (2, 1), [(1, 2), (0, 1)]),  # several channels: rows ordered (channel, tap)
    ]:
        x, w = (a.astype(dtype) for a in _data(x_shape, w_shape))
        want, pull = _vjp(lambda b, x=x, stride=stride, pads=pads: _xla(x, b, stride, pads, (1, 1), 1), w)
        dy = jnp.asarray(np.random.default_rng(5).standard_normal(want.shape).astype(dtype))
        got = conv.patch_weight_grad(x, dy, w_shape[2:], stride, pads)
        assert got.dtype == dtype
        np.testing.assert_allclose(got, pull(dy)[0], rtol=tol, atol=tol)
    x, w = _data((3, 1, 12, 12), (6, 1, 5, 5))
    attrs = {"stride": (1, 1), "pad_mode": "valid", "pad": (0,) * 4, "dilation": (1, 1), "group": 1}
    calls = []
    monkeypatch.setattr(conv, "patch_weight_grad", lambda *a, f=conv.patch_weight_grad: calls.append(1) or f(*a))
    dy = jnp.ones((3, 6, 8, 8), jnp.float32)
    for platform, used in [("cpu", [1]), ("gpu", [1])]:  # the GPU keeps XLA's weight gradient: no new call
        monkeypatch.setattr(conv, "default_platform", lambda platform=platform: platform)
        dw = conv.Conv2D.custom_vjp(x, w, None, out=None, dout=dy, **attrs, data_format="NCHW")[1]
        want = _vjp(lambda b: _xla(x, b, (1, 1), [(0, 0), (0, 0)], (1, 1), 1), w)[1](dy)[0]
        np.testing.assert_allclose(dw, want, rtol=1e-4, atol=1e-4)
        assert calls == used


def test_small_batch_weight_gradient_rule(monkeypatch):
    monkeypatch.setattr(conv, "default_platform", lambda: "cpu")
    w3 = jnp.zeros((16, 64, 3, 3))

    def small(batch, outs=(16, 16), w=w3, stride=(1, 1), dilation=(1, 1), group=1, data_format="NCHW", dtype=None):
        x = jnp.zeros((batch, w.shape[1] * group, 1, 1), dtype or jnp.float32)
        return conv.uses_small_batch_weight_grad(x, w, outs, stride, dilation, group, data_format)

    assert small(2) and small(1) and small(7) and small(2, outs=(32, 32), w=jnp.zeros((8, 8, 3, 3)))  # UNet++'s
    assert not small(8)  # XLA's faster path from 8 images
    assert not small(2, outs=(8, 8))  # few pixels: XLA's as fast
    assert not small(2, w=jnp.zeros((16, 64, 1, 1)))  # 1x1: no patches
    assert not small(2, stride=(2, 2))
    assert not small(2, dilation=(2, 2))
    assert not small(2, w=jnp.zeros((16, 32, 3, 3)), group=2)
    assert not small(2, data_format="NHWC")
    assert not small(2, dtype=jnp.float16)
    assert not small(2, outs=(128, 128))  # 9.4 M patch entries per image
    monkeypatch.setattr(conv, "default_platform", lambda: "gpu")
    assert not small(2)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_small_batch_weight_gradient_runs_as_patches_and_equals_lax(dtype, monkeypatch):
    monkeypatch.setattr(conv, "SMALL_BATCH_MIN_PIXELS", 16)  # the rule on small shapes
    calls = []
    monkeypatch.setattr(conv, "patch_weight_grad", lambda *a, f=conv.patch_weight_grad: calls.append(1) or f(*a))
    tol = 1e-4 if dtype == np.float32 else 1e-9
    for x_shape, w_shape, attrs in [
        ((2, 8, 6, 5), (5, 8, 3, 3), {"pad_mode": "pad", "pad": (1, 1, 1, 1)}),  # UNet++'s 3x3 / 1, padding 1
        ((3, 7, 8, 6), (4, 7, 3, 2), {"pad_mode": "pad", "pad": (2, 0, 1, 1)}),
        ((1, 9, 7, 7), (6, 9, 5, 5), {"pad_mode": "same"}),
    ]:
        for platform in ("cpu", "gpu"):
            monkeypatch.setattr(conv, "default_platform", lambda platform=platform: platform)
            _check_against_reference(conv.Conv2D, x_shape, w_shape, attrs, "NCHW", dtype=dtype, tol=tol)
    assert len(calls) == 3  # the CPU's three layers; the GPU keeps XLA's


@pytest.mark.parametrize("platform", ["cpu", "gpu"])
def test_wide_padded_input_gradient_pads_first_on_cpu_and_equals_lax(platform, monkeypatch):
    monkeypatch.setattr(conv, "default_platform", lambda: platform)
    x_shape, w_shape = (2, 6, 14, 14), (16, 6, 5, 5)  # LeNet5's second layer: its input gradient pads by 4
    x, w = _data(x_shape, w_shape)
    dy = jnp.asarray(np.random.default_rng(4).standard_normal((2, 16, 10, 10)).astype(np.float32))
    attrs = {"stride": (1, 1), "pad_mode": "valid", "pad": (0,) * 4, "dilation": (1, 1), "group": 1}
    attrs |= {"data_format": "NCHW"}

    def input_grad(dy_, w_):
        return conv.Conv2D.custom_vjp(x, w_, None, out=None, dout=dy_, **attrs)[0]

    assert ("pad" in _lowered_ops(input_grad, dy, w)) == (platform == "cpu")  # the GPU: the convolution's own
    want = _vjp(lambda t: _xla(t, w, (1, 1), [(0, 0), (0, 0)], (1, 1), 1), x)[1](dy)[0]
    np.testing.assert_allclose(jax.jit(input_grad)(dy, w), want, rtol=1e-5, atol=1e-5)


def test_conv2d_lowers_large_pointwise_layers_to_dots_on_cpu(monkeypatch):
    monkeypatch.setattr(conv, "DOT_MIN_PIXELS", 16)
    x, w = _data((2, 8, 6, 6), (4, 8, 1, 1))
    monkeypatch.setattr(conv, "default_platform", lambda: "cpu")
    assert "conv_general_dilated" not in _lowered_ops(_conv2d, x, w)
    monkeypatch.setattr(conv, "default_platform", lambda: "gpu")
    assert "conv_general_dilated" in _lowered_ops(_conv2d, x, w)


@pytest.mark.parametrize("platform", ["cpu", "gpu"])
def test_small_pointwise_weight_gradient_is_one_dot_on_cpu(platform, monkeypatch):
    monkeypatch.setattr(conv, "default_platform", lambda: platform)
    x, w = _data((3, 8, 7, 7), (4, 8, 1, 1))  # 49 pixels < DOT_MIN_PIXELS: forward and input gradient stay XLA's
    kw = {"data_format": "NCHW", "stride": (1, 1), "pad_mode": "valid", "pad": (0,) * 4, "dilation": (1, 1)}
    kw |= {"group": 1, "out": None}
    dy = jnp.asarray(np.random.default_rng(5).standard_normal((3, 4, 7, 7)).astype(np.float32))
    weight_grad = lambda a, b, g: conv.Conv2D.custom_vjp(a, b, None, dout=g, **kw)[1]  # noqa: E731
    assert ("dot_general" in _lowered_ops(weight_grad, x, w, dy)) == (platform == "cpu")  # the GPU: convolutions
    want = _vjp(lambda b: _xla(x, b, (1, 1), [(0, 0), (0, 0)], (1, 1), 1), w)[1](dy)[0]
    np.testing.assert_allclose(jax.jit(weight_grad)(x, w, dy), want, rtol=1e-5, atol=1e-4)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("platform", ["cpu", "gpu"])
def test_strided_input_gradient_keeps_lhs_dilation_on_cpu_when_the_kernel_fits(platform, dtype, monkeypatch):
    monkeypatch.setattr(conv, "default_platform", lambda: platform)
    attrs = {"stride": (2, 2), "pad_mode": "pad", "pad": (1, 1, 1, 1)}
    # (x, weight, kernel fits in the output gradient): ResNet-50's 3x3 / 2 shape, odd sizes, and the guarded case (a
    # 5x5 kernel over a 2x2 output gradient, the kind XLA's CPU simplifier can abort on with lhs_dilation)
    cases = [((2, 16, 12, 12), (16, 16, 3, 3), 1, True), ((2, 3, 9, 8), (4, 3, 3, 3), 1, True)]
    cases.append(((2, 3, 5, 5), (4, 3, 5, 5), 1, False))
    cases.append(((2, 8, 9, 9), (8, 1, 3, 3), 8, True))  # depthwise: the interior pad (faster there)
    for x_shape, w_shape, group, fits in cases:
        attrs_g = {**attrs, "group": group}
        _check_against_reference(conv.Conv2D, x_shape, w_shape, attrs_g, "NCHW", dtype=dtype)
        x, w = _data(x_shape, w_shape)
        x, w = x.astype(dtype), w.astype(dtype)
        out = conv.Conv2D.impl(x, w, None, data_format="NCHW", dilation=(1, 1), **attrs_g)
        kw = {"data_format": "NCHW", "dilation": (1, 1), "out": None, **attrs_g}
        dx = lambda a, b, g, kw=kw: conv.Conv2D.custom_vjp(a, b, None, dout=g, **kw)[0]  # noqa: E731
        # the interior pad writes the zeros out: where XLA could abort (a kernel larger than the input), for grouped
        # layers and off the CPU
        assert ("pad" in _lowered_ops(dx, x, w, out)) == (platform == "gpu" or not fits or group > 1)
        # compiled and run for real (the guarded case included), against jax.vjp of XLA's convolution
        want = _vjp(lambda a, w=w, g=group: _xla(a, w, (2, 2), [(1, 1), (1, 1)], (1, 1), g), x)[1](out)[0]
        np.testing.assert_allclose(np.asarray(jax.jit(dx)(x, w, out)), np.asarray(want), rtol=1e-4, atol=1e-4)


# bench_conv's layers that the CPU rewrites, batch 2 (C_in, H = W, C_out, kernel, stride, padding, group)
BENCH_LAYERS = [
    (1, 32, 6, 5, 1, 0, 1),  # LeNet5's first layer (patches on the CPU)
    (6, 14, 16, 5, 1, 0, 1),  # LeNet5's second (patches, banded input gradient)
    (64, 56, 64, 3, 1, 1, 64),  # depthwise 3x3 (shifted)
    (128, 28, 128, 5, 1, 2, 128),  # depthwise 5x5 (shifted)
    (64, 56, 256, 1, 1, 0, 1),  # ResNet-50 1x1 (dots)
    (64, 56, 64, 3, 1, 1, 1),  # ResNet-50 3x3 (Winograd weight gradient)
    (128, 56, 128, 3, 2, 1, 1),  # ResNet-50 3x3 / 2 (phases)
    (256, 56, 512, 1, 2, 0, 1),  # ResNet-50 1x1 / 2
]


@pytest.mark.parametrize("layer", BENCH_LAYERS, ids=[str(layer) for layer in BENCH_LAYERS])
def test_off_the_cpu_each_direction_is_one_xla_convolution(layer, monkeypatch):
    """The CPU rewrites never reach the GPU: there each direction of a layer is one XLA convolution (cuDNN's),
    with no dot, no shifted sum and no Winograd transform beside it; on the CPU these layers are rewritten."""
    c, size, c_out, k, s, p, g = layer
    x, w = _data((2, c, size, size), (c_out, c // g, k, k))
    attrs = {"stride": (s, s), "pad_mode": "pad", "pad": (p,) * 4, "dilation": (1, 1), "group": g}
    out = conv.Conv2D.impl(x, w, None, data_format="NCHW", **attrs)

    def directions(a, b, dy):
        return (conv.Conv2D.impl(a, b, None, data_format="NCHW", **attrs),) + tuple(
            conv.Conv2D.custom_vjp(a, b, None, out=None, dout=dy, data_format="NCHW", **attrs)[:2]
        )

    def program():  # the jaxpr's text, nested jaxprs included; a new function each call (jax caches traces)
        return str(jax.make_jaxpr(lambda *a: directions(*a))(x, w, out))

    monkeypatch.setattr(conv, "default_platform", lambda: "cpu")
    cpu = program()
    monkeypatch.setattr(conv, "default_platform", lambda: "gpu")
    gpu = program()
    assert cpu != gpu  # the layer is one the CPU rewrites
    # forward, input gradient, weight gradient by jax.vjp (which traces the forward again; XLA drops it unused)
    assert gpu.count("conv_general_dilated[") == 4
    assert not any(name in gpu for name in ("dot_general", "reduce_window", "scan[", "while[")), gpu


# ---- transposed convolutions whose kernels tile the output (UNet's 2x2 / 2 upsampling) -----------------
# (primitive, x shape, weight shape (C_in, C_out, *k), attrs, data_format)
TILING_CASES = [
    ("Conv2DTranspose", (2, 6, 3, 4), (6, 5, 2, 2), {"stride": (2, 2), "pad_mode": "same"}, "NCHW"),  # UNet's
    ("Conv2DTranspose", (2, 3, 5, 4), (3, 4, 3, 2), {"stride": (3, 2), "pad_mode": "valid"}, "NCHW"),
    ("Conv2DTranspose", (2, 5, 4, 3), (3, 6, 2, 2), {"stride": (2, 2), "pad_mode": "same"}, "NHWC"),
    ("Conv1DTranspose", (2, 3, 7), (3, 4, 3), {"stride": (3,), "pad_mode": "valid"}, "NCW"),
    ("Conv3DTranspose", (1, 2, 3, 4, 2), (2, 3, 2, 1, 2), {"stride": (2, 1, 2), "pad_mode": "same"}, "NCDHW"),
]


def _transpose_attrs(nd, attrs, data_format):
    kw = {"stride": (1,) * nd, "pad_mode": "valid", "pad": (0,) * (2 * nd), "dilation": (1,) * nd, "group": 1}
    return kw | {"output_padding": (0,) * nd, "output_size": None, "data_format": data_format} | attrs


@pytest.mark.parametrize("case", TILING_CASES, ids=[f"{c[0]}{c[1]}{c[4]}" for c in TILING_CASES])
def test_tiling_transposed_convolution_equals_the_dilated_convolution(case, monkeypatch):
    name, x_shape, w_shape, attrs, data_format = case
    prim = getattr(conv, name)
    x, w = _data(x_shape, w_shape)
    b = jnp.asarray(np.linspace(-1, 1, w_shape[1]), np.float32)
    kw = _transpose_attrs(len(w_shape) - 2, attrs, data_format)
    sizes = x_shape[1:-1] if data_format in ("NHWC", "NWC", "NDHWC") else x_shape[2:]
    pads, outs = conv.transpose_geometry(sizes, w_shape[2:], kw["stride"], kw["dilation"], kw["pad_mode"],
                                         kw["pad"], kw["output_padding"], None)  # fmt: skip
    assert conv.is_tiling_transpose(sizes, w_shape[2:], kw["stride"], kw["dilation"], pads, outs, 1)
    monkeypatch.setattr(conv, "default_platform", lambda: "cpu")
    calls = []
    monkeypatch.setattr(conv, "tiling_transpose", lambda *a, f=conv.tiling_transpose: calls.append(1) or f(*a))
    got, pull = _vjp(lambda *a: prim.impl(*a, **kw), x, w, b)
    assert calls  # the CPU lowers it as one dot
    monkeypatch.setattr(conv, "default_platform", lambda: "gpu")  # the dilated convolution, XLA's everywhere
    want, want_pull = _vjp(lambda *a: prim.impl(*a, **kw), x, w, b)
    assert got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
    dout = jnp.asarray(np.random.default_rng(3).standard_normal(got.shape).astype(np.float32))
    for g, e in zip(pull(dout), want_pull(dout), strict=True):
        np.testing.assert_allclose(g, e, rtol=1e-4, atol=1e-4)


def test_only_non_overlapping_unpadded_single_group_transposes_tile():
    def tiles(kernel, stride, dilation=(1, 1), pad_mode="valid", pad=(0, 0, 0, 0), output_padding=(0, 0), group=1):
        pads, outs = conv.transpose_geometry((4, 4), kernel, stride, dilation, pad_mode, pad, output_padding, None)
        return conv.is_tiling_transpose((4, 4), kernel, stride, dilation, pads, outs, group)

    assert tiles((2, 2), (2, 2)) and tiles((2, 2), (2, 2), pad_mode="same") and tiles((3, 1), (3, 1))
    assert not tiles((3, 3), (2, 2))  # overlapping kernels
    assert not tiles((2, 2), (3, 3))  # gaps between them
    assert not tiles((2, 2), (2, 2), pad_mode="pad", pad=(1, 0, 0, 0))
    assert not tiles((2, 2), (2, 2), pad_mode="pad", output_padding=(1, 0))
    assert not tiles((2, 2), (2, 2), dilation=(2, 1))
    assert not tiles((2, 2), (2, 2), group=2)


# ---- gradients of transposed convolutions through the convolution rules (WGAN's 4x4 / 2 generator) -------------
# (primitive, x shape, weight shape (C_in, C_out / group, *k), attrs, data_format, dtype)
TRANSPOSE_GRAD_CASES = [
    ("Conv2DTranspose", (2, 6, 4, 4), (6, 5, 4, 4), {"stride": (2, 2), "pad_mode": "pad", "pad": (1, 1, 1, 1)},
     "NCHW", np.float32),  # WGAN's
    ("Conv2DTranspose", (2, 3, 5, 6), (3, 4, 3, 3), {"stride": (2, 2), "pad_mode": "same"}, "NCHW", np.float32),
    ("Conv2DTranspose", (2, 3, 4, 3), (3, 2, 5, 4), {"stride": (3, 2), "pad_mode": "pad", "pad": (2, 1, 0, 2),
     "output_padding": (2, 1)}, "NCHW", np.float64),
    ("Conv2DTranspose", (1, 3, 4, 5), (3, 4, 3, 2), {"stride": (2, 3), "pad_mode": "valid"}, "NCHW", np.float32),
    ("Conv2DTranspose", (2, 3, 6, 5), (3, 4, 3, 3), {"stride": (1, 1), "pad_mode": "pad", "pad": (1, 1, 1, 1)},
     "NCHW", np.float32),
    ("Conv2DTranspose", (2, 4, 5, 5), (4, 3, 3, 3), {"stride": (2, 2), "pad_mode": "same", "group": 2}, "NCHW",
     np.float32),
    ("Conv2DTranspose", (2, 3, 5, 5), (3, 2, 3, 3), {"stride": (2, 2), "pad_mode": "pad", "pad": (1, 1, 1, 1),
     "dilation": (2, 2)}, "NCHW", np.float32),
    ("Conv2DTranspose", (2, 5, 4, 3), (3, 6, 3, 3), {"stride": (2, 2), "pad_mode": "same"}, "NHWC", np.float32),
    ("Conv2DTranspose", (2, 3, 4, 4), (3, 2, 3, 3), {"stride": (2, 2), "pad_mode": "same", "output_size": (9, 8)},
     "NCHW", np.float32),  # an output size the convolution it transposes does not give back: autodiff's gradients
    ("Conv1DTranspose", (2, 3, 7), (3, 4, 4), {"stride": (2,), "pad_mode": "pad", "pad": (1, 1)}, "NCW", np.float32),
    ("Conv3DTranspose", (1, 2, 3, 4, 3), (2, 3, 3, 2, 3), {"stride": (2, 1, 2), "pad_mode": "same"}, "NCDHW",
     np.float32),
]  # fmt: skip


@pytest.mark.parametrize("case", TRANSPOSE_GRAD_CASES, ids=[f"{c[0]}{c[1]}{c[4]}" for c in TRANSPOSE_GRAD_CASES])
def test_transposed_convolution_gradients_equal_autodiff_of_the_dilated_convolution(case, monkeypatch):
    name, x_shape, w_shape, attrs, data_format, dtype = case
    prim = getattr(conv, name)
    rng = np.random.default_rng(5)
    x, w = (jnp.asarray(rng.standard_normal(s).astype(dtype)) for s in (x_shape, w_shape))
    kw = _transpose_attrs(len(w_shape) - 2, attrs, data_format)
    channels = w_shape[1] * kw["group"]
    b = jnp.asarray(np.linspace(-1, 1, channels).astype(dtype))
    monkeypatch.setattr(conv, "default_platform", lambda: "gpu")  # autodiff of XLA's input-dilated convolution
    want, want_pull = _vjp(lambda *a: prim.impl(*a, **kw), x, w, b)
    dout = jnp.asarray(rng.standard_normal(want.shape).astype(dtype))
    want_grads = want_pull(dout)
    monkeypatch.setattr(conv, "default_platform", lambda: "cpu")
    rewritten = []
    monkeypatch.setattr(conv, "conv_weight_grad", lambda *a, f=conv.conv_weight_grad: rewritten.append(1) or f(*a))
    got = jax.jit(lambda *a: prim.custom_vjp(*a, out=None, dout=dout, **kw))(x, w, b)
    tolerance = 1e-4 if dtype == np.float32 else 1e-10
    for g, e in zip(got, want_grads, strict=True):
        assert g.shape == e.shape and g.dtype == e.dtype
        np.testing.assert_allclose(g, e, rtol=tolerance, atol=tolerance)
    # the CPU takes the convolution's rules unless the transpose tiles its output or its size is not the inverse's
    assert bool(rewritten) == ("output_size" not in attrs), rewritten


# ---- Winograd F(2x2, 3x3) and F(4x4, 3x3): 3x3 stride-1 convolutions --------------------------------------------
# (x shape, C_out, pads): odd and non-square sizes, padding 0, 1 and 2, batch 1 and a batch split into chunks
WINOGRAD_CASES = [  # + the chunk budget in bytes: 1 runs the batch image by image (lax.map / lax.scan steps)
    ((2, 5, 9, 9), 4, [(1, 1), (1, 1)], 1),
    ((1, 3, 7, 10), 6, [(0, 0), (0, 0)], 1 << 22),
    ((3, 4, 6, 5), 5, [(1, 0), (2, 1)], 1 << 22),
    ((4, 8, 11, 8), 3, [(2, 2), (1, 1)], 1),
]
# float32 against the float64 reference, relative to the largest value: XLA's own float32 convolution is at 1e-7 to
# 6e-7 on these shapes, F(2x2) at 1e-7 to 3e-7 and F(4x4) at 8e-7 to 3e-6 (its larger transform constants).
WINOGRAD_F32_BOUND = {2: 1e-6, 4: 1e-5}


def _max_rel(got, want) -> float:
    return float(np.abs(np.asarray(got, np.float64) - np.asarray(want)).max() / np.abs(np.asarray(want)).max())


@pytest.mark.parametrize("tile", [2, 4])
@pytest.mark.parametrize(
    ("x_shape", "c_out", "pads", "chunk_bytes"), WINOGRAD_CASES, ids=[str(c[0]) for c in WINOGRAD_CASES]
)
def test_winograd_equals_lax_and_its_vjp(x_shape, c_out, pads, chunk_bytes, tile, monkeypatch):
    monkeypatch.setattr(conv, "WINOGRAD_CHUNK_BYTES", chunk_bytes)
    rng = np.random.default_rng(8)
    x = rng.standard_normal(x_shape)
    w = rng.standard_normal((c_out, x_shape[1], 3, 3))
    with jax.enable_x64(True):
        want, pull = _vjp(lambda a, b: _xla(a, b, (1, 1), pads, (1, 1), 1), jnp.asarray(x), jnp.asarray(w))
        dy = rng.standard_normal(want.shape)
        want_dx, want_dw = pull(jnp.asarray(dy))
        x64, w64, dy64 = jnp.asarray(x), jnp.asarray(w), jnp.asarray(dy)
        got64 = (
            conv.winograd_conv(x64, w64, pads, tile),
            conv.winograd_input_grad(dy64, w64, pads, x_shape[2:], tile),
            conv.winograd_weight_grad(x64, dy64, pads, tile),
        )
        for got, expect in zip(got64, (want, want_dx, want_dw), strict=True):
            assert got.dtype == jnp.float64 and got.shape == expect.shape
            assert _max_rel(got, expect) < 1e-13
        x32, w32, dy32 = (jnp.asarray(a, jnp.float32) for a in (x, w, dy))
        got32 = (
            conv.winograd_conv(x32, w32, pads, tile),
            conv.winograd_input_grad(dy32, w32, pads, x_shape[2:], tile),
            conv.winograd_weight_grad(x32, dy32, pads, tile),
        )
        for got, expect in zip(got32, (want, want_dx, want_dw), strict=True):
            assert got.dtype == jnp.float32 and got.shape == expect.shape
            assert _max_rel(got, expect) < WINOGRAD_F32_BOUND[tile]


def test_winograd_directions_rule(monkeypatch):
    monkeypatch.setattr(conv, "default_platform", lambda: "cpu")
    x = jnp.zeros((1, 64, 1, 1), jnp.float32)
    w3 = jnp.zeros((64, 64, 3, 3))
    for outs in [(56, 56), (28, 28), (14, 14)]:  # ResNet-50's 3x3 stride-1 layers' sizes
        assert conv.winograd_directions(x, w3, outs, (1, 1), (1, 1), 1, "NCHW") == {"weight"}
    assert not conv.winograd_directions(x, w3, (7, 7), (1, 1), (1, 1), 1, "NCHW")  # within noise: XLA's
    assert conv.winograd_directions(x.astype(jnp.float64), w3, (56, 56), (1, 1), (1, 1), 1, "NCHW") == {"weight"}
    assert not conv.winograd_directions(x, w3, (28, 28), (2, 2), (1, 1), 1, "NCHW")  # strided
    assert not conv.winograd_directions(x, w3, (56, 56), (1, 1), (2, 2), 1, "NCHW")  # dilated
    assert not conv.winograd_directions(x, w3[:, :32], (56, 56), (1, 1), (1, 1), 2, "NCHW")  # grouped
    assert not conv.winograd_directions(x, jnp.zeros((64, 64, 5, 5)), (56, 56), (1, 1), (1, 1), 1, "NCHW")
    assert not conv.winograd_directions(x, jnp.zeros((64, 64, 1, 1)), (56, 56), (1, 1), (1, 1), 1, "NCHW")
    assert not conv.winograd_directions(x[:, :32], w3[:, :32], (56, 56), (1, 1), (1, 1), 1, "NCHW")  # 32 in
    assert not conv.winograd_directions(x, w3[:32], (56, 56), (1, 1), (1, 1), 1, "NCHW")  # 32 out
    assert not conv.winograd_directions(x, w3, (56, 56), (1, 1), (1, 1), 1, "NHWC")
    assert not conv.winograd_directions(x.astype(jnp.float16), w3, (56, 56), (1, 1), (1, 1), 1, "NCHW")
    monkeypatch.setattr(conv, "default_platform", lambda: "gpu")
    assert not conv.winograd_directions(x, w3, (56, 56), (1, 1), (1, 1), 1, "NCHW")


@pytest.mark.parametrize("platform", ["cpu", "gpu"])
def test_3x3_weight_gradient_runs_as_winograd_on_cpu_and_equals_lax(platform, monkeypatch):
    monkeypatch.setattr(conv, "default_platform", lambda: platform)
    monkeypatch.setattr(conv, "WINOGRAD_MIN_CHANNELS", 4)  # the rule on small shapes
    monkeypatch.setattr(conv, "WINOGRAD_MIN_PIXELS", 1)
    calls = []
    monkeypatch.setattr(conv, "winograd_weight_grad", lambda *a, f=conv.winograd_weight_grad: calls.append(1) or f(*a))
    # more than PATCH_SMALL_MAX_CHANNELS input channels: fewer run as patches + dots
    _check_against_reference(conv.Conv2D, (2, 8, 9, 7), (9, 8, 3, 3), {"pad_mode": "same"}, "NCHW")
    _check_against_reference(conv.Conv2D, (1, 7, 5, 8), (4, 7, 3, 3), {}, "NCHW", dtype=np.float64, tol=1e-9)
    pad = {"pad_mode": "pad", "pad": (1, 0, 0, 2)}
    _check_against_reference(conv.Conv2D, (3, 8, 6, 6), (4, 8, 3, 3), pad, "NCHW")
    assert len(calls) == (3 if platform == "cpu" else 0)


@pytest.mark.parametrize("mode", [kiln.PYNATIVE_MODE, kiln.GRAPH_MODE])
def test_winograd_layer_through_nn_conv2d_equals_lax_in_both_modes(mode):
    # 64 -> 64 channels at 15 x 14 (odd: a partial tile row), batch 2: the rule as it is
    rng = np.random.default_rng(9)
    x = rng.standard_normal((2, 64, 15, 14)).astype(np.float32)
    g = rng.standard_normal((2, 64, 15, 14)).astype(np.float32)
    net = kiln.nn.Conv2d(64, 64, 3, pad_mode="same", has_bias=False)
    w = net.weight.asnumpy()
    loss = lambda a: (net(a) * kiln.Tensor(g)).sum()  # noqa: E731
    kiln.set_context(mode=mode)
    try:
        dx, (dw,) = kiln.grad(loss, grad_position=0, weights=net.trainable_params())(kiln.Tensor(x))
    finally:
        kiln.set_context(mode=kiln.PYNATIVE_MODE)
    _, pull = _vjp(lambda a, b: _xla(a, b, (1, 1), [(1, 1), (1, 1)], (1, 1), 1), jnp.asarray(x), jnp.asarray(w))
    want_dx, want_dw = pull(jnp.asarray(g))
    np.testing.assert_allclose(dx.asnumpy(), want_dx, rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(dw.asnumpy(), want_dw, rtol=1e-4, atol=1e-4)


# ---- weight-heavy layers as dots on the stored weight (CRNN's deep layers at a small batch) ---------------------
# (x shape, weight shape, stride, pads): the functions take any stride and padding; the rule uses them at stride 1
STORED_WEIGHT_CASES = [
    ((2, 6, 4, 9), (8, 6, 3, 3), (1, 1), [(1, 1), (1, 1)]),  # 'same'
    ((2, 5, 5, 7), (7, 5, 3, 2), (2, 1), [(0, 1), (2, 0)]),  # strided, asymmetric pads, a non-square kernel
    ((1, 4, 2, 6), (6, 4, 2, 2), (1, 1), [(0, 0), (0, 0)]),  # CRNN's last 2x2 layer's shape, valid
    ((3, 3, 9, 8), (5, 3, 3, 3), (3, 2), [(1, 2), (0, 1)]),  # a stride past the kernel's reach on one side
]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize(
    ("x_shape", "w_shape", "stride", "pads"), STORED_WEIGHT_CASES, ids=[str(c[:2]) for c in STORED_WEIGHT_CASES]
)
def test_stored_weight_functions_equal_lax_and_its_vjp(x_shape, w_shape, stride, pads, dtype):
    x, w = (a.astype(dtype) for a in _data(x_shape, w_shape))
    want, pull = _vjp(lambda a, b: _xla(a, b, stride, pads, (1, 1), 1), x, w)
    dy = jnp.asarray(np.random.default_rng(4).standard_normal(want.shape).astype(dtype))
    want_dx, want_dw = pull(dy)
    got = (
        conv.stored_weight_conv(x, w, stride, pads, want.shape[2:]),
        conv.stored_weight_input_grad(dy, w, stride, pads, x_shape[2:]),
        conv.stored_weight_weight_grad(x, dy, w_shape[2:], stride, pads),
    )
    tol = 1e-5 if dtype == np.float32 else 1e-12
    for value, expect in zip(got, (want, want_dx, want_dw), strict=True):
        assert value.shape == expect.shape and value.dtype == expect.dtype
        np.testing.assert_allclose(value, expect, rtol=tol, atol=tol)


def test_stored_weight_rule(monkeypatch):
    monkeypatch.setattr(conv, "default_platform", lambda: "cpu")
    x = jnp.zeros((4, 512, 4, 25), jnp.float32)  # CRNN's 512 -> 512 at batch 4
    w3 = jnp.zeros((512, 512, 3, 3))
    assert conv.uses_stored_weight_dots(x, w3, (4, 25), (1, 1), (1, 1), 1, "NCHW")
    assert conv.uses_stored_weight_dots(x, jnp.zeros((512, 512, 2, 2)), (3, 24), (1, 1), (1, 1), 1, "NCHW")
    assert conv.uses_stored_weight_dots(x.astype(jnp.float64), w3, (4, 25), (1, 1), (1, 1), 1, "NCHW")
    # ResNet-50's 512 -> 512 at 7 x 7 and batch 32: 7.2 M patch entries; at batch 64 past the bound
    assert conv.uses_stored_weight_dots(jnp.zeros((32, 512, 7, 7)), w3, (7, 7), (1, 1), (1, 1), 1, "NCHW")
    assert not conv.uses_stored_weight_dots(jnp.zeros((64, 512, 7, 7)), w3, (7, 7), (1, 1), (1, 1), 1, "NCHW")
    small = jnp.zeros((64, 64, 3, 3))  # 36,864 weight entries: slower as dots
    assert not conv.uses_stored_weight_dots(x[:, :64], small, (4, 25), (1, 1), (1, 1), 1, "NCHW")
    assert not conv.uses_stored_weight_dots(x, w3, (2, 13), (2, 2), (1, 1), 1, "NCHW")  # strided
    assert not conv.uses_stored_weight_dots(x, w3, (4, 25), (1, 1), (2, 2), 1, "NCHW")  # dilated
    assert not conv.uses_stored_weight_dots(x, w3[:, :256], (4, 25), (1, 1), (1, 1), 2, "NCHW")  # grouped
    assert not conv.uses_stored_weight_dots(x, jnp.zeros((512, 512, 1, 1)), (4, 25), (1, 1), (1, 1), 1, "NCHW")
    assert not conv.uses_stored_weight_dots(x, jnp.zeros((512, 512, 1, 3)), (4, 23), (1, 1), (1, 1), 1, "NCHW")
    assert not conv.uses_stored_weight_dots(x, w3, (4, 25), (1, 1), (1, 1), 1, "NHWC")
    assert not conv.uses_stored_weight_dots(x.astype(jnp.float16), w3, (4, 25), (1, 1), (1, 1), 1, "NCHW")
    monkeypatch.setattr(conv, "default_platform", lambda: "gpu")
    assert not conv.uses_stored_weight_dots(x, w3, (4, 25), (1, 1), (1, 1), 1, "NCHW")


@pytest.mark.parametrize("platform", ["cpu", "gpu"])
def test_weight_heavy_layer_runs_on_its_stored_weight_on_cpu_and_equals_lax(platform, monkeypatch):
    monkeypatch.setattr(conv, "default_platform", lambda: platform)
    monkeypatch.setattr(conv, "STORED_WEIGHT_MIN_ENTRIES", 1)  # the rule on small shapes
    names = ("stored_weight_conv", "stored_weight_input_grad", "stored_weight_weight_grad")
    calls = []
    for name in names:
        original = getattr(conv, name)
        monkeypatch.setattr(conv, name, lambda *a, f=original, n=name: calls.append(n) or f(*a))
    _check_against_reference(conv.Conv2D, (2, 8, 4, 9), (9, 8, 3, 3), {"pad_mode": "same"}, "NCHW")
    pad = {"pad_mode": "pad", "pad": (1, 0, 0, 2)}
    _check_against_reference(conv.Conv2D, (1, 7, 5, 8), (4, 7, 3, 2), pad, "NCHW", dtype=np.float64, tol=1e-9)
    assert calls == (list(names) * 2 if platform == "cpu" else [])


@pytest.mark.parametrize("mode", [kiln.PYNATIVE_MODE, kiln.GRAPH_MODE])
def test_stored_weight_layer_through_nn_conv2d_equals_lax_in_both_modes(mode):
    # 256 -> 128 channels at 3 x 5, batch 2: the rule as it is (294,912 weight entries, 13,824 patch entries)
    rng = np.random.default_rng(10)
    x = rng.standard_normal((2, 256, 3, 5)).astype(np.float32)
    g = rng.standard_normal((2, 128, 3, 5)).astype(np.float32)
    net = kiln.nn.Conv2d(256, 128, 3, pad_mode="same", has_bias=False)
    w = net.weight.asnumpy()
    assert conv.uses_stored_weight_dots(jnp.asarray(x), jnp.asarray(w), (3, 5), (1, 1), (1, 1), 1, "NCHW")
    loss = lambda a: (net(a) * kiln.Tensor(g)).sum()  # noqa: E731
    kiln.set_context(mode=mode)
    try:
        dx, (dw,) = kiln.grad(loss, grad_position=0, weights=net.trainable_params())(kiln.Tensor(x))
    finally:
        kiln.set_context(mode=kiln.PYNATIVE_MODE)
    _, pull = _vjp(lambda a, b: _xla(a, b, (1, 1), [(1, 1), (1, 1)], (1, 1), 1), jnp.asarray(x), jnp.asarray(w))
    want_dx, want_dw = pull(jnp.asarray(g))
    np.testing.assert_allclose(dx.asnumpy(), want_dx, rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(dw.asnumpy(), want_dw, rtol=1e-4, atol=1e-4)


# ---- the gradients of shifted (thin grouped) layers -------------------------------------------------------------
# (x shape, weight shape, stride, pads, dilation, group): MobileNetV2's depthwise 3x3 at strides 1 and 2, strides larger
# than the kernel (phases without taps), a multiplier of 2 and 2 input channels per group, dilation with a stride,
# asymmetric pads, 1-D and 3-D
SHIFTED_GRAD_CASES = [
    ((2, 6, 9, 9), (6, 1, 3, 3), (1, 1), [(1, 1), (1, 1)], (1, 1), 6),
    ((2, 6, 10, 9), (6, 1, 3, 3), (2, 2), [(0, 1), (1, 1)], (1, 1), 6),  # 'same' at stride 2, odd and even sizes
    ((2, 4, 11, 9), (4, 1, 1, 2), (3, 2), [(0, 0), (1, 0)], (1, 1), 4),
    ((2, 4, 8, 9), (8, 1, 3, 2), (2, 3), [(2, 0), (0, 1)], (1, 1), 4),  # 2 outputs per group
    ((2, 6, 9, 8), (6, 2, 2, 3), (1, 2), [(0, 1), (1, 2)], (1, 1), 3),  # 2 inputs per group
    ((2, 4, 10, 9), (4, 1, 3, 3), (2, 1), [(1, 1), (2, 2)], (2, 2), 4),  # dilated and strided
    ((2, 4, 13), (4, 1, 5), (2,), [(2, 2)], (1,), 4),
    ((1, 4, 5, 6, 4), (4, 1, 2, 3, 2), (2, 1, 2), [(1, 0), (0, 1), (1, 1)], (1, 1, 1), 4),
]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize(
    "case", SHIFTED_GRAD_CASES, ids=[str(c[0]) + str(c[1]) + str(c[2]) for c in SHIFTED_GRAD_CASES]
)
def test_shifted_gradients_equal_lax_vjp(case, dtype):
    x_shape, w_shape, stride, pads, dilation, group = case
    x, w = (a.astype(dtype) for a in _data(x_shape, w_shape))
    sp = "DHW"[3 - len(stride) :]
    dn = (f"NC{sp}", f"OI{sp}", f"NC{sp}")
    want, pull = _vjp(
        lambda a, b: lax.conv_general_dilated(
            a, b, stride, pads, rhs_dilation=dilation, feature_group_count=group, dimension_numbers=dn,
            precision=lax.Precision.HIGHEST,
        ), x, w,
    )  # fmt: skip
    dy = jnp.asarray(np.random.default_rng(3).standard_normal(want.shape), dtype)
    want_dx, want_dw = pull(dy)
    dx = jax.jit(lambda g, b: conv.shifted_input_grad(g, b, stride, pads, dilation, group, x.shape[2:]))(dy, w)
    dw = jax.jit(lambda a, g: conv.shifted_weight_grad(a, g, w.shape[2:], stride, pads, dilation, group))(x, dy)
    tol = 1e-12 if dtype == np.float64 else 2e-5
    for got, expect in ((dx, want_dx), (dw, want_dw)):
        assert got.shape == expect.shape and got.dtype == expect.dtype
        np.testing.assert_allclose(got, expect, rtol=tol, atol=tol)


@pytest.mark.parametrize("platform", ["cpu", "gpu"])
def test_depthwise_gradients_run_as_shifted_sums_on_cpu_and_equal_lax(platform, monkeypatch):
    monkeypatch.setattr(conv, "default_platform", lambda: platform)
    kw = {"data_format": "NCHW", "stride": (2, 2), "pad_mode": "same", "pad": (0,) * 4, "dilation": (1, 1)}
    kw |= {"group": 8, "out": None}
    x, w = _data((2, 8, 9, 10), (8, 1, 3, 3))
    dy = jnp.asarray(np.random.default_rng(4).standard_normal((2, 8, 5, 5)).astype(np.float32))
    grads = lambda a, b, g: conv.Conv2D.custom_vjp(a, b, None, dout=g, **kw)[:2]  # noqa: E731
    assert ("conv_general_dilated" in _lowered_ops(grads, x, w, dy)) == (platform == "gpu")
    _check_against_reference(
        conv.Conv2D, (2, 8, 9, 10), (8, 1, 3, 3), {"stride": (2, 2), "pad_mode": "same", "group": 8}, "NCHW"
    )
    # a grouped layer whose input gradient would sum more than SHIFTED_MAX_TERMS terms keeps XLA's for it
    x, w = _data((2, 2, 6, 6), (18, 1, 3, 3))  # 9 outputs per group x 9 taps = 81
    assert conv.use_shifted_conv(x, w, 2, "NCHW") == (platform == "cpu")
    assert not conv.uses_shifted_input_grad(x, w, 2, "NCHW")
    _check_against_reference(conv.Conv2D, (2, 2, 6, 6), (18, 1, 3, 3), {"group": 2, "pad_mode": "same"}, "NCHW")


@pytest.mark.parametrize("mode", [kiln.PYNATIVE_MODE, kiln.GRAPH_MODE])
def test_depthwise_layer_through_nn_conv2d_equals_lax_in_both_modes(mode):
    # MobileNetV2's depthwise 3x3 / 2 (48 channels, 16 x 15: odd), batch 2: the rule as it is
    rng = np.random.default_rng(10)
    x = rng.standard_normal((2, 48, 16, 15)).astype(np.float32)
    g = rng.standard_normal((2, 48, 8, 8)).astype(np.float32)
    net = kiln.nn.Conv2d(48, 48, 3, stride=2, pad_mode="same", group=48, has_bias=False)
    w = net.weight.asnumpy()
    loss = lambda a: (net(a) * kiln.Tensor(g)).sum()  # noqa: E731
    kiln.set_context(mode=mode)
    try:
        dx, (dw,) = kiln.grad(loss, grad_position=0, weights=net.trainable_params())(kiln.Tensor(x))
    finally:
        kiln.set_context(mode=kiln.PYNATIVE_MODE)
    pads, _ = conv.conv_geometry((16, 15), (3, 3), (2, 2), (1, 1), "same", (0,) * 4)
    _, pull = _vjp(lambda a, b: _xla(a, b, (2, 2), pads, (1, 1), 48), jnp.asarray(x), jnp.asarray(w))
    want_dx, want_dw = pull(jnp.asarray(g))
    np.testing.assert_allclose(dx.asnumpy(), want_dx, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(dw.asnumpy(), want_dw, rtol=1e-5, atol=1e-4)
