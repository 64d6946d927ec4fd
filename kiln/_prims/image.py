"""Image primitives: patches, colour adjustment, bicubic resize, ROI align and grid sampling (2-D and 3-D)."""

from __future__ import annotations

import numpy as np

from kiln._backend import jnp, lax
from kiln._core.primitive import PrimitiveDef, op_error


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


def _check_pixels(op: str):
    def check(images):
        if not getattr(images, "shape", ()) or images.shape[-1] != 3:
            raise op_error(op, f"the last dimension of 'images' must be 3, but got shape {tuple(images.shape)}.")

    return check


def _hsv_to_rgb_images(images):
    work = images.astype(jnp.float32) if images.dtype == jnp.float16 else images
    return _hsv_to_rgb(work[..., 0], work[..., 1], work[..., 2]).astype(images.dtype)


def _rgb_to_hsv_images(images):
    work = images.astype(jnp.float32) if images.dtype == jnp.float16 else images
    return jnp.stack(_rgb_to_hsv(work), axis=-1).astype(images.dtype)


HSVToRGB = PrimitiveDef("HSVToRGB", _hsv_to_rgb_images, check=_check_pixels("HSVToRGB"))
RGBToHSV = PrimitiveDef("RGBToHSV", _rgb_to_hsv_images, check=_check_pixels("RGBToHSV"))
AdjustHue = PrimitiveDef("AdjustHue", _adjust_hue, check=_check_rgb("AdjustHue"))
AdjustSaturation = PrimitiveDef("AdjustSaturation", _adjust_saturation, check=_check_rgb("AdjustSaturation"))


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
    roi_w, roi_h = end_w - start_w, end_h - start_h
    if roi_end_mode == 0:  # the legacy mode widens a roi under one feature pixel to one; mode 1 keeps its size
        roi_w, roi_h = jnp.maximum(roi_w, 1.0), jnp.maximum(roi_h, 1.0)
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
    # a roi whose x1 and x2 are both 0 (within 1e-3) is padding: MindSpore's kernels leave its output at zero
    line = (jnp.abs(rois[:, 1]) < 1e-3) & (jnp.abs(rois[:, 3]) < 1e-3)
    valid = valid & ~line[:, None, None, None, None, None]
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
    nondiff=(1, 2),
)


def _unnormalize(coord, size, align_corners):
    if align_corners:
        return (coord + 1) / 2 * (size - 1)
    return ((coord + 1) * size - 1) / 2


def _reflect(coord, twice_low, twice_high):
    """Reflect `coord` into [twice_low / 2, twice_high / 2] (as often as needed)."""
    if twice_low == twice_high:
        return jnp.zeros_like(coord)
    low, span = twice_low / 2, (twice_high - twice_low) / 2
    c = jnp.abs(coord - low)
    extra = jnp.fmod(c, span)
    flips = jnp.floor(c / span)
    return jnp.where(flips % 2 == 0, extra + low, span - extra + low)


def _source_coord(coord, size, padding_mode, align_corners):
    c = _unnormalize(coord, size, align_corners)
    if padding_mode == "border":
        c = jnp.clip(c, 0, size - 1)
    elif padding_mode == "reflection":
        c = _reflect(c, 0, 2 * (size - 1)) if align_corners else _reflect(c, -1, 2 * size - 1)
        c = jnp.clip(c, 0, size - 1)
    return c


def _grid_sample(x, grid, mode, padding_mode, align_corners):
    n, c, h, w = x.shape
    gx = _source_coord(grid[..., 0], w, padding_mode, align_corners)  # (N, Ho, Wo)
    gy = _source_coord(grid[..., 1], h, padding_mode, align_corners)
    flat = x.reshape(n, c, h * w)

    def tap(iy, ix):
        valid = (iy >= 0) & (iy <= h - 1) & (ix >= 0) & (ix <= w - 1)
        iyc, ixc = jnp.clip(iy, 0, h - 1).astype(jnp.int32), jnp.clip(ix, 0, w - 1).astype(jnp.int32)
        idx = (iyc * w + ixc).reshape(n, 1, -1)
        vals = jnp.take_along_axis(flat, jnp.broadcast_to(idx, (n, c, idx.shape[-1])), axis=2)
        vals = vals.reshape(n, c, *iy.shape[1:])
        return vals * valid[:, None].astype(x.dtype)

    if mode == "nearest":
        return tap(jnp.round(gy), jnp.round(gx))
    x0, y0 = jnp.floor(gx), jnp.floor(gy)
    x1, y1 = x0 + 1, y0 + 1
    wx1, wy1 = (gx - x0)[:, None], (gy - y0)[:, None]
    wx0, wy0 = 1 - wx1, 1 - wy1
    return tap(y0, x0) * wy0 * wx0 + tap(y0, x1) * wy0 * wx1 + tap(y1, x0) * wy1 * wx0 + tap(y1, x1) * wy1 * wx1


def _check_grid_sample(x, grid, mode, padding_mode, align_corners):
    sx, sg = tuple(getattr(x, "shape", ())), tuple(getattr(grid, "shape", ()))
    if len(sx) != 4 or len(sg) != 4 or sg[-1] != 2 or sg[0] != sx[0]:
        raise op_error(
            "GridSampler2D", f"'input' must be (N, C, H, W) and 'grid' (N, Ho, Wo, 2), but got {sx} and {sg}."
        )
    if mode not in ("bilinear", "nearest"):
        raise op_error("GridSampler2D", f"'mode' must be 'bilinear' or 'nearest', but got {mode!r}.")
    if padding_mode not in ("zeros", "border", "reflection"):
        raise op_error(
            "GridSampler2D", f"'padding_mode' must be 'zeros', 'border' or 'reflection', but got {padding_mode!r}."
        )


GridSampler2D = PrimitiveDef(
    "GridSampler2D",
    _grid_sample,
    attrs={"mode": "bilinear", "padding_mode": "zeros", "align_corners": False},
    check=_check_grid_sample,
)


def _grid_sample_3d(x, grid, mode, padding_mode, align_corners):
    n, c, d, h, w = x.shape
    gx = _source_coord(grid[..., 0], w, padding_mode, align_corners)  # (N, Do, Ho, Wo)
    gy = _source_coord(grid[..., 1], h, padding_mode, align_corners)
    gz = _source_coord(grid[..., 2], d, padding_mode, align_corners)
    flat = x.reshape(n, c, d * h * w)

    def tap(iz, iy, ix):
        valid = (iz >= 0) & (iz <= d - 1) & (iy >= 0) & (iy <= h - 1) & (ix >= 0) & (ix <= w - 1)
        zc = jnp.clip(iz, 0, d - 1).astype(jnp.int32)
        yc = jnp.clip(iy, 0, h - 1).astype(jnp.int32)
        xc = jnp.clip(ix, 0, w - 1).astype(jnp.int32)
        idx = ((zc * h + yc) * w + xc).reshape(n, 1, -1)
        vals = jnp.take_along_axis(flat, jnp.broadcast_to(idx, (n, c, idx.shape[-1])), axis=2)
        return vals.reshape(n, c, *iz.shape[1:]) * valid[:, None].astype(x.dtype)

    if mode == "nearest":
        return tap(jnp.round(gz), jnp.round(gy), jnp.round(gx))
    x0, y0, z0 = jnp.floor(gx), jnp.floor(gy), jnp.floor(gz)
    fx, fy, fz = (gx - x0)[:, None], (gy - y0)[:, None], (gz - z0)[:, None]
    out = 0
    for dz, wz in ((0, 1 - fz), (1, fz)):
        for dy, wy in ((0, 1 - fy), (1, fy)):
            for dx, wx in ((0, 1 - fx), (1, fx)):
                out = out + tap(z0 + dz, y0 + dy, x0 + dx) * wz * wy * wx
    return out


def _check_grid_sample_3d(x, grid, mode, padding_mode, align_corners):
    sx, sg = tuple(getattr(x, "shape", ())), tuple(getattr(grid, "shape", ()))
    if len(sx) != 5 or len(sg) != 5 or sg[-1] != 3 or sg[0] != sx[0]:
        raise op_error("GridSampler3D", f"'input_x' must be (N, C, D, H, W) and 'grid' (N, Do, Ho, Wo, 3), "
                       f"but got {sx} and {sg}.")  # fmt: skip
    if mode not in ("bilinear", "nearest"):
        raise op_error("GridSampler3D", f"'interpolation_mode' must be 'bilinear' or 'nearest', but got {mode!r}.")
    if padding_mode not in ("zeros", "border", "reflection"):
        raise op_error("GridSampler3D", f"'padding_mode' must be 'zeros', 'border' or 'reflection', "
                       f"but got {padding_mode!r}.")  # fmt: skip


GridSampler3D = PrimitiveDef(
    "GridSampler3D",
    _grid_sample_3d,
    attrs={"mode": "bilinear", "padding_mode": "zeros", "align_corners": False},
    check=_check_grid_sample_3d,
)
