"""Declarations of the modified Bessel K and Bessel Y functions, Python-function calls (PyFunc/Custom),
image patches and colour adjustments, and random choice with mask.

The Bessel functions K0, K1 (and their exponentially scaled forms) and Y0, Y1 have no XLA kernel: they are
computed on the host by SciPy (`pure_callback`, which works eagerly, in compiled graphs and under vmap), with
their derivatives written by hand from the recurrences (K0' = -K1, K1' = -K0 - K1/x, Y0' = -Y1,
Y1' = Y0 - Y1/x). MindSpore's values at x <= 0 are kept: K* give inf, Y0 -inf, Y1 -inf (nan at 0).
"""

from __future__ import annotations

import numpy as np

from kiln._backend import jax, jnp, lax
from kiln._backend import random as jrandom
from kiln._core.primitive import PrimitiveDef, op_error

# -- Bessel functions ----------------------------------------------------------------------------------------------


def _scipy(name: str):
    import scipy.special as sp  # noqa: PLC0415  (SciPy comes with JAX; imported when first used)

    return getattr(sp, name)


def _host_bessel(name: str, x):
    def run(v):
        return np.asarray(_scipy(name)(np.asarray(v, np.float64)), dtype=np.dtype(v.dtype))

    return jax.pure_callback(run, jax.ShapeDtypeStruct(x.shape, x.dtype), x, vmap_method="broadcast_all")


def _check_float(op: str):
    def check(x):
        if getattr(x, "dtype", None) is not None and x.dtype.kind != "f":
            raise op_error(op, f"'x' must be a float16, float32 or float64 Tensor, but got {x.dtype}.", TypeError)

    return check


def _edge(name: str, x, y):
    """MindSpore's results outside the domain x > 0."""
    inf = jnp.asarray(jnp.inf, x.dtype)
    if name in ("k0", "k0e", "k1", "k1e"):
        return jnp.where(x <= 0, inf, y)
    if name == "y0":
        return jnp.where(x <= 0, -inf, y)
    return jnp.where(x < 0, -inf, jnp.where(x == 0, jnp.asarray(jnp.nan, x.dtype), y))  # y1


def _bessel(name: str):
    def impl(x):
        return _edge(name, x, _host_bessel(name, x))

    return impl


_K0, _K0E, _K1, _K1E, _Y0, _Y1 = (_bessel(n) for n in ("k0", "k0e", "k1", "k1e", "y0", "y1"))


def _vjp(derivative):
    def rule(x, out, dout):
        return (dout * derivative(x, out),)

    return rule


BesselK0 = PrimitiveDef("BesselK0", _K0, check=_check_float("BesselK0"), vjp=_vjp(lambda x, out: -_K1(x)))
BesselK0e = PrimitiveDef("BesselK0e", _K0E, check=_check_float("BesselK0e"), vjp=_vjp(lambda x, out: out - _K1E(x)))
BesselK1 = PrimitiveDef("BesselK1", _K1, check=_check_float("BesselK1"), vjp=_vjp(lambda x, out: -_K0(x) - out / x))
BesselK1e = PrimitiveDef(
    "BesselK1e", _K1E, check=_check_float("BesselK1e"), vjp=_vjp(lambda x, out: out - _K0E(x) - out / x)
)
BesselY0 = PrimitiveDef("BesselY0", _Y0, check=_check_float("BesselY0"), vjp=_vjp(lambda x, out: -_Y1(x)))
BesselY1 = PrimitiveDef("BesselY1", _Y1, check=_check_float("BesselY1"), vjp=_vjp(lambda x, out: _Y0(x) - out / x))


# -- Python functions ----------------------------------------------------------------------------------------------


def _pyfunc(*xs, fn, out_shapes, out_dtypes):
    """Call `fn` on NumPy copies of the inputs, on the host; the outputs have the declared shapes/dtypes."""
    structs = tuple(jax.ShapeDtypeStruct(s, np.dtype(d)) for s, d in zip(out_shapes, out_dtypes, strict=True))

    def run(*arrays):
        out = fn(*(np.asarray(a) for a in arrays))
        out = out if isinstance(out, (tuple, list)) else (out,)
        if len(out) != len(structs):
            raise ValueError(f"PyFunc: the function returned {len(out)} value(s), but {len(structs)} were declared.")
        results = []
        for value, st in zip(out, structs, strict=True):
            value = np.asarray(value.asnumpy() if hasattr(value, "asnumpy") else value)
            if value.shape != tuple(st.shape):
                raise ValueError(f"PyFunc: an output has shape {value.shape}, but {tuple(st.shape)} was declared.")
            results.append(value.astype(st.dtype))
        return tuple(results)

    return tuple(jax.pure_callback(run, structs, *xs, vmap_method="sequential"))


PyFunc = PrimitiveDef(
    "PyFunc",
    _pyfunc,
    attrs={"fn": None, "out_shapes": (), "out_dtypes": ()},
    multiple_results=True,
    nondiff=tuple(range(64)),
)


# -- image patches and colour ---------------------------------------------------------------------------------------


def _check_patches(x, ksizes, strides, rates, padding):
    if len(getattr(x, "shape", ())) != 4:
        raise op_error("ExtractImagePatches", f"'input_x' must be 4-D (N, C, H, W), but got {tuple(x.shape)}.")
    if padding not in ("VALID", "SAME"):
        raise op_error("ExtractImagePatches", f"'padding' must be 'VALID' or 'SAME', but got {padding!r}.")


def _patches(x, ksizes, strides, rates, padding):
    """(N, C, H, W) -> (N, kh * kw * C, out_h, out_w); depth ordered (row, col, channel) as MindSpore/TF."""
    n, c = x.shape[:2]
    kh, kw = ksizes
    out = lax.conv_general_dilated_patches(
        x, (kh, kw), strides, padding, rhs_dilation=rates, dimension_numbers=("NCHW", "OIHW", "NCHW")
    )  # (N, C * kh * kw, oh, ow), channel-major
    oh, ow = out.shape[2:]
    out = out.reshape(n, c, kh * kw, oh, ow).transpose(0, 2, 1, 3, 4)
    return out.reshape(n, kh * kw * c, oh, ow)


ExtractImagePatches = PrimitiveDef(
    "ExtractImagePatches",
    _patches,
    attrs={"ksizes": (1, 1), "strides": (1, 1), "rates": (1, 1), "padding": "VALID"},
    check=_check_patches,
    check_eagerly=True,
)


def _rgb_to_hsv(rgb):
    r, g, b = rgb[..., 0], rgb[..., 1], rgb[..., 2]
    v = jnp.max(rgb, axis=-1)
    mn = jnp.min(rgb, axis=-1)
    delta = v - mn
    s = jnp.where(v > 0, delta / jnp.where(v > 0, v, 1), 0)
    safe = jnp.where(delta > 0, delta, 1)
    h = jnp.where(v == r, (g - b) / safe, jnp.where(v == g, 2.0 + (b - r) / safe, 4.0 + (r - g) / safe))
    h = jnp.where(delta > 0, h / 6.0, 0)
    h = jnp.where(h < 0, h + 1.0, h)
    return h, s, v


def _hsv_to_rgb(h, s, v):
    h6 = (h - jnp.floor(h)) * 6.0
    c = v * s
    x = c * (1 - jnp.abs(jnp.mod(h6, 2.0) - 1))
    m = v - c
    sector = jnp.floor(h6).astype(jnp.int32) % 6
    zeros = jnp.zeros_like(c)
    table = [(c, x, zeros), (x, c, zeros), (zeros, c, x), (zeros, x, c), (x, zeros, c), (c, zeros, x)]
    r = jnp.select([sector == i for i in range(6)], [t[0] for t in table])
    g = jnp.select([sector == i for i in range(6)], [t[1] for t in table])
    b = jnp.select([sector == i for i in range(6)], [t[2] for t in table])
    return jnp.stack([r + m, g + m, b + m], axis=-1)


def _check_rgb(op: str):
    def check(image, amount):
        if not getattr(image, "shape", ()) or image.shape[-1] != 3:
            raise op_error(op, f"the last dimension of 'image' must be 3 (RGB), but got shape {tuple(image.shape)}.")
        if tuple(getattr(amount, "shape", ())) != ():
            raise op_error(op, f"the adjustment must be a scalar, but got shape {tuple(amount.shape)}.")

    return check


def _adjust_hue(image, delta):
    work = image.astype(jnp.float32) if image.dtype == jnp.float16 else image
    h, s, v = _rgb_to_hsv(work)
    h = h + delta.astype(work.dtype)
    return _hsv_to_rgb(h - jnp.floor(h), s, v).astype(image.dtype)


def _adjust_saturation(image, scale):
    work = image.astype(jnp.float32) if image.dtype == jnp.float16 else image
    h, s, v = _rgb_to_hsv(work)
    return _hsv_to_rgb(h, jnp.clip(s * scale.astype(work.dtype), 0, 1), v).astype(image.dtype)


AdjustHue = PrimitiveDef("AdjustHue", _adjust_hue, check=_check_rgb("AdjustHue"), check_eagerly=True)
AdjustSaturation = PrimitiveDef(
    "AdjustSaturation", _adjust_saturation, check=_check_rgb("AdjustSaturation"), check_eagerly=True
)


# -- random choice with mask ---------------------------------------------------------------------------------------


def _choice_with_mask(key, x, count):
    """`count` positions of True entries of `x` in random order (int32 (count, rank)), and which are real."""
    flat = x.reshape(-1)
    n = flat.shape[0]
    perm = jrandom.permutation(jrandom.wrap_key_data(key), n)
    chosen = flat[perm]
    order = jnp.argsort(~chosen, stable=True)  # the True ones first, in the random order
    picked = perm[order]
    valid = chosen[order]
    if count > n:
        picked = jnp.concatenate([picked, jnp.zeros(count - n, picked.dtype)])
        valid = jnp.concatenate([valid, jnp.zeros(count - n, bool)])
    picked, valid = picked[:count], valid[:count]
    coords = jnp.stack(jnp.unravel_index(picked, x.shape), axis=-1).astype(jnp.int32)
    coords = jnp.where(valid[:, None], coords, 0)
    return coords, valid


def _check_choice(key, x, count):
    if getattr(x, "dtype", None) is not None and x.dtype.kind != "b":
        raise op_error("RandomChoiceWithMask", f"'input_x' must be a bool Tensor, but got {x.dtype}.", TypeError)
    if not 1 <= len(x.shape) <= 5:
        raise op_error("RandomChoiceWithMask", f"the rank of 'input_x' must be in [1, 5], but got {len(x.shape)}.")
    if count <= 0:
        raise op_error("RandomChoiceWithMask", f"'count' must be positive, but got {count}.")


RandomChoiceWithMask = PrimitiveDef(
    "RandomChoiceWithMask",
    _choice_with_mask,
    attrs={"count": 256},
    check=_check_choice,
    check_eagerly=True,
    multiple_results=True,
    nondiff=(1,),
    random=True,
)


# -- bicubic resize ------------------------------------------------------------------------------------------------


def bicubic_weights(n_in: int, n_out: int, align_corners: bool, half_pixel_centers: bool) -> np.ndarray:
    """The (n_out, n_in) interpolation matrix of MindSpore's ResizeBicubic along one axis.

    Keys' cubic kernel (a = -0.75, or -0.5 with half-pixel centres, when taps outside the input are left out
    and the others renormalised; otherwise they read the edge), with the fractional offset rounded to 1/1024 as
    MindSpore's (and TensorFlow's) coefficient table does.
    """
    scale = (n_in - 1) / (n_out - 1) if align_corners and n_out > 1 else n_in / n_out
    a = -0.5 if half_pixel_centers else -0.75

    def kernel(v: float) -> float:
        v = abs(v)
        if v <= 1:
            return ((a + 2) * v - (a + 3)) * v * v + 1
        if v < 2:
            return ((a * v - 5 * a) * v + 8 * a) * v - 4 * a
        return 0.0

    out = np.zeros((n_out, n_in), np.float64)
    for i in range(n_out):
        src = (i + 0.5) * scale - 0.5 if half_pixel_centers else i * scale
        base = int(np.floor(src))
        t = np.floor((src - base) * 1024 + 0.5) / 1024
        taps = [base - 1 + k for k in range(4)]
        ws = [kernel(d) for d in (t + 1, t, 1 - t, 2 - t)]
        if half_pixel_centers:
            inside = [(j, w) for j, w in zip(taps, ws, strict=True) if 0 <= j < n_in]
            total = sum(w for _, w in inside)
            for j, w in inside:
                out[i, j] += w / total
        else:
            for j, w in zip(taps, ws, strict=True):
                out[i, min(max(j, 0), n_in - 1)] += w
    return out


def _resize_bicubic(x, size, align_corners, half_pixel_centers):
    h, w = x.shape[-2:]
    rows = jnp.asarray(bicubic_weights(h, size[0], align_corners, half_pixel_centers), x.dtype)
    cols = jnp.asarray(bicubic_weights(w, size[1], align_corners, half_pixel_centers), x.dtype)
    return jnp.einsum("oh,nchw,pw->ncop", rows, x, cols)


def _check_resize_bicubic(x, size, align_corners, half_pixel_centers):
    if len(getattr(x, "shape", ())) != 4:
        raise op_error("ResizeBicubic", f"'images' must be 4-D (N, C, H, W), but got shape {tuple(x.shape)}.")
    if getattr(x, "dtype", None) is not None and x.dtype.kind != "f":
        raise op_error("ResizeBicubic", f"'images' must be a float Tensor, but got {x.dtype}.", TypeError)
    if align_corners and half_pixel_centers:
        raise op_error("ResizeBicubic", "'align_corners' and 'half_pixel_centers' cannot both be True.")


ResizeBicubic = PrimitiveDef(
    "ResizeBicubic",
    _resize_bicubic,
    attrs={"size": (1, 1), "align_corners": False, "half_pixel_centers": False},
    check=_check_resize_bicubic,
    check_eagerly=True,
)


# -- ROI align -----------------------------------------------------------------------------------------------------


def _roi_align(features, rois, grids, pooled_h, pooled_w, spatial_scale, grid_max, roi_end_mode):
    """Average of bilinear samples on a (grid_h x grid_w) lattice in each of the pooled bins of each roi.

    rois: (R, 5) = (batch index, x1, y1, x2, y2); grids: (R, 2) int, each roi's lattice size (<= grid_max).
    """
    n, c, height, width = features.shape
    dt = features.dtype
    batch = rois[:, 0].astype(jnp.int32)
    start_w, start_h = rois[:, 1] * spatial_scale, rois[:, 2] * spatial_scale
    end_w = (rois[:, 3] + roi_end_mode) * spatial_scale
    end_h = (rois[:, 4] + roi_end_mode) * spatial_scale
    roi_w = jnp.maximum(end_w - start_w, 1.0)
    roi_h = jnp.maximum(end_h - start_h, 1.0)
    bin_h, bin_w = roi_h / pooled_h, roi_w / pooled_w
    gh, gw = grids[:, 0].astype(dt), grids[:, 1].astype(dt)
    g = jnp.arange(grid_max, dtype=dt)
    ph, pw = jnp.arange(pooled_h, dtype=dt), jnp.arange(pooled_w, dtype=dt)
    # sample positions: (R, ph, gy) and (R, pw, gx)
    ys = (
        start_h[:, None, None]
        + ph[None, :, None] * bin_h[:, None, None]
        + (g + 0.5)[None, None, :] * (bin_h / gh)[:, None, None]
    )
    xs = (
        start_w[:, None, None]
        + pw[None, :, None] * bin_w[:, None, None]
        + (g + 0.5)[None, None, :] * (bin_w / gw)[:, None, None]
    )
    use_y = g[None, None, :] < gh[:, None, None]
    use_x = g[None, None, :] < gw[:, None, None]

    def axis(coord, size):
        outside = (coord < -1.0) | (coord > size)
        coord = jnp.maximum(coord, 0.0)
        low = jnp.floor(coord).astype(jnp.int32)
        at_edge = low >= size - 1
        low = jnp.where(at_edge, size - 1, low)
        high = jnp.where(at_edge, size - 1, low + 1)
        coord = jnp.where(at_edge, low.astype(dt), coord)
        frac = coord - low
        return low, high, 1 - frac, frac, outside

    y_lo, y_hi, wy_lo, wy_hi, y_out = axis(ys, height)  # (R, ph, G)
    x_lo, x_hi, wx_lo, wx_hi, x_out = axis(xs, width)  # (R, pw, G)
    maps = jnp.transpose(features[batch], (0, 2, 3, 1))  # (R, H, W, C)
    r = jnp.arange(rois.shape[0])[:, None, None, None, None]

    def gather(yi, xi):  # -> (R, C, ph, G, pw, G)
        vals = maps[r, yi[:, :, :, None, None], xi[:, None, None, :, :]]  # (R, ph, G, pw, G, C)
        return jnp.moveaxis(vals, -1, 1)

    wy = (wy_lo, wy_hi)
    wx = (wx_lo, wx_hi)
    total = 0
    for iy, yi in enumerate((y_lo, y_hi)):
        for ix, xi in enumerate((x_lo, x_hi)):
            weight = wy[iy][:, None, :, :, None, None] * wx[ix][:, None, None, None, :, :]
            total = total + gather(yi, xi) * weight
    valid = (use_y & ~y_out)[:, None, :, :, None, None] & (use_x & ~x_out)[:, None, None, None, :, :]
    total = jnp.where(valid, total, 0)
    count = (gh * gw)[:, None, None, None]
    return (total.sum(axis=(3, 5)) / count).astype(dt)


def _check_roi_align(features, rois, grids, pooled_h, pooled_w, spatial_scale, grid_max, roi_end_mode):
    if len(getattr(features, "shape", ())) != 4:
        raise op_error("ROIAlign", f"'features' must be 4-D (N, C, H, W), but got {tuple(features.shape)}.")
    if len(rois.shape) != 2 or rois.shape[1] != 5:
        raise op_error("ROIAlign", f"'rois' must be (R, 5), but got {tuple(rois.shape)}.")


ROIAlign = PrimitiveDef(
    "ROIAlign",
    _roi_align,
    attrs={"pooled_h": 1, "pooled_w": 1, "spatial_scale": 1.0, "grid_max": 2, "roi_end_mode": 1},
    check=_check_roi_align,
    check_eagerly=True,
    nondiff=(1, 2),
)


# -- fractional max pooling -----------------------------------------------------------------------------------------


def _intervals(sample, n_in, n_out, k):
    """Window starts (..., n_out) from one uniform sample per plane (..., ), as in the Fractional Max-Pooling
    paper's pseudo-random sequences: floor((i + u) * a) - floor(u * a) with a = (n_in - k) / (n_out - 1), the
    last window ending at the input's end."""
    if n_out == 1:
        return jnp.full(sample.shape + (1,), n_in - k, jnp.int32)
    alpha = jnp.asarray((n_in - k) / (n_out - 1), sample.dtype)
    i = jnp.arange(n_out - 1, dtype=sample.dtype)
    starts = (
        jnp.floor((i + sample[..., None]) * alpha).astype(jnp.int32)
        - jnp.floor(sample * alpha).astype(jnp.int32)[..., None]
    )
    return jnp.concatenate([starts, jnp.full(sample.shape + (1,), n_in - k, jnp.int32)], axis=-1)


def _fractional_max_pool(x, samples, ksize, output_shape):
    """Max over ksize windows at pseudo-random starts: x (N, C, *spatial) -> (values, flat argmax int64).

    samples (N, C, nd): for 2-D the first drives the width and the second the height; for 3-D they drive
    (depth, height, width) in order (MindSpore's and PyTorch's convention).
    """
    nd = len(ksize)
    spatial = x.shape[2:]
    order = (1, 0) if nd == 2 else (0, 1, 2)  # which sample drives each spatial dim
    idx = []  # per spatial dim: (N, C, out, k) positions
    for d in range(nd):
        starts = _intervals(samples[..., order[d]], spatial[d], output_shape[d], ksize[d])
        idx.append(starts[..., None] + jnp.arange(ksize[d], dtype=jnp.int32))
    n, c = x.shape[:2]
    # flat positions of every window element: (N, C, out_0, ..., out_{nd-1}, k_0, ..., k_{nd-1})
    flat = jnp.zeros((n, c) + tuple(output_shape) + tuple(ksize), jnp.int32)
    stride = 1
    for d in reversed(range(nd)):
        shape = [n, c] + [1] * nd + [1] * nd
        shape[2 + d] = output_shape[d]
        shape[2 + nd + d] = ksize[d]
        flat = flat + idx[d].reshape(shape) * stride
        stride *= spatial[d]
    windows = flat.reshape(n, c, -1)
    vals = jnp.take_along_axis(x.reshape(n, c, -1), windows, axis=2).reshape(flat.shape)
    vals = vals.reshape((n, c) + tuple(output_shape) + (-1,))
    pos = jnp.argmax(vals, axis=-1)
    best = jnp.take_along_axis(vals, pos[..., None], axis=-1)[..., 0]
    where = jnp.take_along_axis(flat.reshape(vals.shape), pos[..., None], axis=-1)[..., 0]
    return best, where.astype(jnp.int64)


def _check_fractional(x, samples, ksize, output_shape):
    nd = len(ksize)
    op = "FractionalMaxPoolWithFixedKsize" if nd == 2 else "FractionalMaxPool3DWithFixedKsize"
    if len(x.shape) != nd + 2:
        raise op_error(op, f"'x' must be {nd + 2}-D (N, C, spatial...), but got shape {tuple(x.shape)}.")
    if tuple(samples.shape) != (x.shape[0], x.shape[1], nd):
        raise op_error(op, f"'random_samples' must have shape {(x.shape[0], x.shape[1], nd)}, "
                       f"but got {tuple(samples.shape)}.")  # fmt: skip
    for d in range(nd):
        if output_shape[d] + ksize[d] - 1 > x.shape[2 + d] or output_shape[d] <= 0 or ksize[d] <= 0:
            raise op_error(op, f"output size {output_shape[d]} with kernel {ksize[d]} does not fit the input size "
                           f"{x.shape[2 + d]} of spatial dim {d}.")  # fmt: skip


FractionalMaxPool = PrimitiveDef(
    "FractionalMaxPoolFixedKsize",
    _fractional_max_pool,
    attrs={"ksize": (1, 1), "output_shape": (1, 1)},
    check=_check_fractional,
    check_eagerly=True,
    multiple_results=True,
    nondiff=(1,),
)


# -- deformable convolution offsets ---------------------------------------------------------------------------------


def _deformable_offsets(x, offsets, strides, pads, ksize, dilations, deformable_groups, modulated):
    """Sample x (N, C, H, W) at the deformed kernel positions: (N, C, out_h * kh, out_w * kw), element
    (i * kh + a, j * kw + b) read at (i * s_h - pad_top + a * d_h + dy, j * s_w - pad_left + b * d_w + dx)
    bilinearly (zero outside) and scaled by the mask; offsets (N, 3 * groups * kh * kw, out_h, out_w) hold the
    x offsets, then the y offsets, then the masks, each ordered (group, kernel row, kernel column)."""
    n, c, h, w = x.shape
    kh, kw = ksize
    oh, ow = offsets.shape[2:]
    g = deformable_groups
    off = offsets.reshape(n, 3, g, kh, kw, oh, ow)
    dx, dy, mask = off[:, 0], off[:, 1], off[:, 2]  # (N, G, kh, kw, oh, ow)
    base_y = (jnp.arange(oh) * strides[0] - pads[0])[None, None, None, None, :, None] + (jnp.arange(kh) * dilations[0])[
        None, None, :, None, None, None
    ]
    base_x = (jnp.arange(ow) * strides[1] - pads[2])[None, None, None, None, None, :] + (jnp.arange(kw) * dilations[1])[
        None, None, None, :, None, None
    ]
    ys = base_y.astype(x.dtype) + dy
    xs = base_x.astype(x.dtype) + dx
    y0, x0 = jnp.floor(ys), jnp.floor(xs)
    planes = x.reshape(n, g, c // g, h * w)
    out = 0
    for oy in (0, 1):
        for ox in (0, 1):
            yi, xi = y0 + oy, x0 + ox
            weight = (1 - jnp.abs(ys - yi)) * (1 - jnp.abs(xs - xi))
            inside = (yi >= 0) & (yi <= h - 1) & (xi >= 0) & (xi <= w - 1)
            flat = (jnp.clip(yi, 0, h - 1) * w + jnp.clip(xi, 0, w - 1)).astype(jnp.int32)  # (N, G, kh, kw, oh, ow)
            idx = flat.reshape(n, g, 1, -1)
            vals = jnp.take_along_axis(planes, jnp.broadcast_to(idx, (n, g, c // g, idx.shape[-1])), axis=3)
            vals = vals.reshape(n, g, c // g, kh, kw, oh, ow)
            out = out + vals * jnp.where(inside, weight, 0)[:, :, None]
    if modulated:
        out = out * mask[:, :, None]
    out = out.reshape(n, c, kh, kw, oh, ow).transpose(0, 1, 4, 2, 5, 3)  # (N, C, oh, kh, ow, kw)
    return out.reshape(n, c, oh * kh, ow * kw)


def _check_deformable(x, offsets, strides, pads, ksize, dilations, deformable_groups, modulated):
    op = "DeformableOffsets"
    if len(x.shape) != 4 or len(offsets.shape) != 4:
        raise op_error(op, f"'x' and 'offsets' must be 4-D, but got {tuple(x.shape)} and {tuple(offsets.shape)}.")
    n, c, h, w = x.shape
    kh, kw = ksize
    if c % deformable_groups:
        raise op_error(op, f"the channels {c} must be divisible by 'deformable_groups' {deformable_groups}.")
    oh = (h + pads[0] + pads[1] - (kh - 1) * dilations[0] - 1) // strides[0] + 1
    ow = (w + pads[2] + pads[3] - (kw - 1) * dilations[1] - 1) // strides[1] + 1
    want = (n, 3 * deformable_groups * kh * kw, oh, ow)
    if tuple(offsets.shape) != want:
        raise op_error(op, f"'offsets' must have shape {want}, but got {tuple(offsets.shape)}.")


DeformableOffsets = PrimitiveDef(
    "DeformableOffsets",
    _deformable_offsets,
    attrs={
        "strides": (1, 1),
        "pads": (0, 0, 0, 0),
        "ksize": (1, 1),
        "dilations": (1, 1),
        "deformable_groups": 1,
        "modulated": True,
    },  # fmt: skip
    check=_check_deformable,
    check_eagerly=True,
)


# -- TensorFlow-style CTC loss with its gradient --------------------------------------------------------------------


def _ctc_tf(logits, targets, input_lengths, target_lengths, keep, blank):
    """(loss (N,), gradient (T, N, C)): the CTC loss of softmax(logits) per sample and its gradient w.r.t. the
    logits (0 for samples where `keep` is False)."""
    from kiln._core.prims.extra_nn import _ctc  # noqa: PLC0415

    def total(z):
        nll, _ = _ctc(jax.nn.log_softmax(z, axis=2), targets, input_lengths, target_lengths, blank, True)
        nll = jnp.where(keep, nll, 0)
        return nll.sum(), nll

    (_, nll), grad = jax.value_and_grad(total, has_aux=True)(logits)
    return nll, grad


CTCLossTF = PrimitiveDef("CTCLossTF", _ctc_tf, attrs={"blank": 0}, multiple_results=True, nondiff=(1, 2, 3, 4))
