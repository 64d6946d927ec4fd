"""The CPU lowering of thin convolutions (`shifted_conv`) against XLA's convolution, and when Conv2D uses it."""

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
    want, want_pull = jax.vjp(lambda a, b: _xla(a, b, stride, pads, dilation, group), x, w)
    got, got_pull = jax.vjp(lambda a, b: conv.shifted_conv(a, b, stride, pads, dilation, group), x, w)
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
        ((4, 1, 32, 32), (6, 1, 5, 5), {}),
        ((2, 3, 12, 12), (8, 3, 3, 3), {"stride": (2, 2), "pad_mode": "pad", "pad": (1, 2, 0, 1)}),
        ((2, 4, 9, 9), (4, 1, 3, 3), {"pad_mode": "same", "group": 4, "dilation": (2, 1)}),
    ],
)
def test_conv2d_lowers_thin_layers_to_shifted_slices_on_cpu(x_shape, w_shape, attrs, monkeypatch):
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


def test_conv2d_keeps_xla_convolution_for_wide_layers_and_other_dtypes(monkeypatch):
    monkeypatch.setattr(conv, "default_platform", lambda: "cpu")
    x, w = _data((2, 16, 8, 8), (8, 16, 3, 3))  # 16 x 9 terms: past the threshold
    assert "conv_general_dilated" in _lowered_ops(_conv2d, x, w)
    x, w = _data((2, 1, 8, 8), (4, 1, 3, 3))
    assert "conv_general_dilated" not in _lowered_ops(_conv2d, x, w)
    half = (x.astype(jnp.float16), w.astype(jnp.float16))  # low precision keeps XLA's accumulation
    assert "conv_general_dilated" in _lowered_ops(_conv2d, *half)


def test_conv2d_keeps_xla_convolution_on_gpu(monkeypatch):
    x, w = _data((2, 1, 8, 8), (4, 1, 3, 3))
    monkeypatch.setattr(conv, "default_platform", lambda: "gpu")
    assert not conv.use_shifted_conv(x, w, "NCHW")
    assert "conv_general_dilated" in _lowered_ops(_conv2d, x, w)


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
