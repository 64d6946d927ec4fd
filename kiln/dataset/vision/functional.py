"""NumPy kernels behind the vision transforms (HW or HWC images).

Resizing follows OpenCV, which MindSpore uses: LINEAR samples at half-pixel
centres, src = (dst + 0.5) * in / out - 0.5, clamped to the image; NEAREST
takes src = floor(dst * in / out). uint8 images are resized in OpenCV's 11-bit
fixed point and float images in OpenCV's float32 arithmetic, bit for bit;
other integer images are computed in float32 and rounded back.
"""

from __future__ import annotations

import functools
import io
import math

import numpy as np

from kiln.dataset.vision.utils import Border, Inter, pil_image


@functools.lru_cache(maxsize=128)
def _nearest_index(in_size: int, out_size: int) -> np.ndarray:
    # OpenCV's step is 1 / (out / in) in float64: at exact multiples it can floor one below in / out's.
    src = np.floor(np.arange(out_size) * (1.0 / (out_size / in_size))).astype(np.intp)
    return np.minimum(src, in_size - 1)


_COEF_BITS = 11  # OpenCV's INTER_RESIZE_COEF_BITS: interpolation weights are integers summing to 2048


@functools.lru_cache(maxsize=128)
def _linear_taps(in_size: int, out_size: int, clamp_fraction: bool, area: bool = False) -> tuple[np.ndarray, ...]:
    """OpenCV's bilinear taps along one axis: source indices i0, i1 and float32 weights w0 = 1 - f, w1 = f.

    The position is computed in float32 from a float64 scale, as OpenCV does. Along the width a position
    outside the image takes its edge pixel with weight 1; along the height OpenCV keeps the fraction and
    only clamps the rows, which rounds differently on the first and last rows of an enlarged image.
    With `area` (INTER_AREA enlarging an axis), the source is floor(dst * in / out) and the fraction is that
    of (dst + 1) - (src + 1) * out / in when positive (each output pixel's overlap with the next source pixel).
    """
    inv_scale = out_size / in_size
    scale = 1.0 / inv_scale
    if area:
        dst = np.arange(out_size)
        i0 = np.floor(dst * scale).astype(np.intp)
        frac = ((dst + 1) - (i0 + 1) * inv_scale).astype(np.float32)
        frac = np.where(frac <= 0, np.float32(0.0), frac - np.floor(frac)).astype(np.float32)
    else:
        pos = ((np.arange(out_size) + 0.5) * scale - 0.5).astype(np.float32)
        i0 = np.floor(pos).astype(np.intp)
        frac = pos - i0.astype(np.float32)
    if clamp_fraction:
        outside = (i0 < 0) | (i0 >= in_size - 1)
        frac[outside] = 0.0
        i0 = np.where(i0 < 0, 0, np.where(i0 >= in_size - 1, in_size - 1, i0))
    return np.clip(i0, 0, in_size - 1), np.clip(i0 + 1, 0, in_size - 1), np.float32(1.0) - frac, frac


@functools.lru_cache(maxsize=128)
def _fixed_point_taps(in_size: int, out_size: int, clamp_fraction: bool, area: bool = False) -> tuple[np.ndarray, ...]:
    """`_linear_taps` with OpenCV's integer weights for uint8 images (w0 + w1 = 2048)."""
    i0, i1, w0, w1 = _linear_taps(in_size, out_size, clamp_fraction, area)
    one = np.float32(1 << _COEF_BITS)
    # rint: OpenCV's saturate_cast rounds halves to even.
    return i0, i1, np.rint(w0 * one).astype(np.int32), np.rint(w1 * one).astype(np.int32)


def _resize_linear_u8(img: np.ndarray, height: int, width: int, axis: int, area: bool = False) -> np.ndarray:
    """Bilinear resize of uint8 images in OpenCV's fixed point (axis: the height axis; width follows it)."""
    h, w = img.shape[axis : axis + 2]
    x0, x1, a0, a1 = _fixed_point_taps(w, width, True, area)
    y0, y1, b0, b1 = _fixed_point_taps(h, height, False, area)
    trailing = (1,) * (img.ndim - axis - 2)
    src = img.astype(np.int32)
    # Along the width: exact integer sums, each pixel scaled by 2048.
    rows = np.take(src, x0, axis=axis + 1) * a0.reshape((-1, *trailing))
    rows += np.take(src, x1, axis=axis + 1) * a1.reshape((-1, *trailing))
    # Along the height OpenCV's vector code drops 4 bits, keeps the high 16 bits of each product and rounds
    # off the last 2: not the exact (sum + 2**21) >> 22, and MindSpore's results are these.
    top = np.take(rows, y0, axis=axis) >> 4
    bottom = np.take(rows, y1, axis=axis) >> 4
    weights = (-1, 1, *trailing)
    out = ((top * b0.reshape(weights)) >> 16) + ((bottom * b1.reshape(weights)) >> 16)
    return ((out + 2) >> 2).clip(0, 255).astype(np.uint8)


_CUBIC_A = np.float32(-0.75)  # OpenCV's bicubic kernel parameter


@functools.lru_cache(maxsize=128)
def _cubic_taps(in_size: int, out_size: int) -> tuple[tuple[np.ndarray, ...], tuple[np.ndarray, ...]]:
    """OpenCV's bicubic taps along one axis: four source indices (edge pixels repeated) and four float32 weights,
    computed in float32 from the same half-pixel position as LINEAR, without clamping the fraction."""
    scale = 1.0 / (out_size / in_size)
    pos = ((np.arange(out_size) + 0.5) * scale - 0.5).astype(np.float32)
    i0 = np.floor(pos).astype(np.intp)
    x = pos - i0.astype(np.float32)
    a, one = _CUBIC_A, np.float32(1.0)
    w0 = ((a * (x + one) - 5 * a) * (x + one) + 8 * a) * (x + one) - 4 * a
    w1 = ((a + 2) * x - (a + 3)) * x * x + one
    w2 = ((a + 2) * (one - x) - (a + 3)) * (one - x) * (one - x) + one
    w3 = one - w0 - w1 - w2
    taps = tuple(np.clip(i0 - 1 + k, 0, in_size - 1) for k in range(4))
    return taps, tuple(w.astype(np.float32) for w in (w0, w1, w2, w3))


def _vector_lanes_split(out: np.ndarray, tail: np.ndarray, axis: int, lanes: int) -> np.ndarray:
    """OpenCV's vector loop covers whole blocks of `lanes` values of each output row (width * channels) and
    its scalar loop, which rounds differently, the rest: take the rest from `tail`."""
    row_shape = out.shape[: axis + 1] + (-1,)
    flat, flat_tail = out.reshape(row_shape), tail.reshape(row_shape)
    cut = flat.shape[-1] // lanes * lanes
    flat[..., cut:] = flat_tail[..., cut:]
    return flat.reshape(out.shape)


def _resize_cubic(img: np.ndarray, height: int, width: int, axis: int) -> np.ndarray:
    """Bicubic resize as OpenCV's kernels: uint8 in 11-bit fixed point along the width, then float32 (vector
    part) or exact integer (scalar tail) along the height; other dtypes in float32 (float64 for float64)."""
    h, w = img.shape[axis : axis + 2]
    xs, xw = _cubic_taps(w, width)
    ys, yw = _cubic_taps(h, height)
    trailing = (1,) * (img.ndim - axis - 2)
    col, row = (-1, *trailing), (-1, 1, *trailing)
    if img.dtype == np.uint8:
        one = np.float32(1 << _COEF_BITS)
        xi = [np.rint(wk * one).astype(np.int64) for wk in xw]
        yi = [np.rint(wk * one).astype(np.int64) for wk in yw]
        src = img.astype(np.int64)
        rows = sum(np.take(src, xs[k], axis=axis + 1) * xi[k].reshape(col) for k in range(4))
        taps = [np.take(rows, ys[k], axis=axis) for k in range(4)]
        exact = (sum(taps[k] * yi[k].reshape(row) for k in range(4)) + (1 << 21)) >> 22
        scale = np.float32(1.0 / (1 << 2 * _COEF_BITS))
        f = [t.astype(np.float32) for t in taps]
        b = [(wk.astype(np.float32) * scale).reshape(row) for wk in yi]
        vector = np.rint(f[0] * b[0] + (f[1] * b[1] + (f[2] * b[2] + f[3] * b[3])))
        out = _vector_lanes_split(vector, exact.astype(np.float32), axis, 8)
        return np.clip(out, 0, 255).astype(np.uint8)
    work = np.float64 if img.dtype == np.float64 else np.float32
    src = img.astype(work, copy=False)
    parts = [np.take(src, xs[k], axis=axis + 1) * xw[k].reshape(col) for k in range(4)]
    rows = ((parts[0] + parts[1]) + parts[2]) + parts[3]
    t = [np.take(rows, ys[k], axis=axis) * yw[k].reshape(row) for k in range(4)]
    out = _vector_lanes_split(t[0] + (t[1] + (t[2] + t[3])), ((t[0] + t[1]) + t[2]) + t[3], axis, 4)
    if np.issubdtype(img.dtype, np.integer):
        info = np.iinfo(img.dtype)
        return np.clip(np.rint(out), info.min, info.max).astype(img.dtype)
    return out.astype(img.dtype, copy=False)


def resize(img: np.ndarray, height: int, width: int, interpolation: Inter = Inter.LINEAR, batched: bool = False):
    """Resize an HW or HWC image (or, with `batched`, a stack of them) to (height, width), keeping its dtype."""
    lead = img.shape[:1] if batched else ()
    h, w = img.shape[len(lead) : len(lead) + 2]
    if interpolation == Inter.NEAREST:
        return np.take(
            np.take(img, _nearest_index(h, height), axis=len(lead)), _nearest_index(w, width), axis=len(lead) + 1
        )
    if interpolation == Inter.CUBIC:
        return _resize_cubic(img, height, width, len(lead))
    if interpolation == Inter.PILCUBIC:
        return _resize_pil_cubic(img, height, width, len(lead))
    if interpolation == Inter.AREA:
        if height <= h and width <= w:
            return _resize_area_shrink(img, height, width, len(lead))
        # OpenCV enlarges with INTER_AREA as with INTER_LINEAR, with the area taps of `_linear_taps`
        if img.dtype == np.uint8:
            return _resize_linear_u8(img, height, width, len(lead), area=True)
        return _resize_linear_float(img, height, width, len(lead), area=True)
    if interpolation != Inter.LINEAR:
        raise NotImplementedError(
            f"Resize: interpolation {interpolation} is not implemented; use LINEAR, NEAREST or BICUBIC."
        )
    if img.dtype == np.uint8:
        return _resize_linear_u8(img, height, width, len(lead))
    return _resize_linear_float(img, height, width, len(lead))


def _resize_linear_float(img: np.ndarray, height: int, width: int, axis: int, area: bool = False) -> np.ndarray:
    """Bilinear resize in floating point, as OpenCV's float kernels: float32 weights, a * w0 + b * w1 per axis
    (float64 images in float64); other integer images are rounded back to their dtype, halves to even."""
    h, w = img.shape[axis : axis + 2]
    x0, x1, a0, a1 = _linear_taps(w, width, True, area)
    y0, y1, b0, b1 = _linear_taps(h, height, False, area)
    work = np.float64 if img.dtype == np.float64 else np.float32
    trailing = (1,) * (img.ndim - axis - 2)
    src = img.astype(work, copy=False)
    rows = np.take(src, x0, axis=axis + 1) * a0.reshape((-1, *trailing))
    rows += np.take(src, x1, axis=axis + 1) * a1.reshape((-1, *trailing))
    weights = (-1, 1, *trailing)
    out = np.take(rows, y0, axis=axis) * b0.reshape(weights)
    out += np.take(rows, y1, axis=axis) * b1.reshape(weights)
    if np.issubdtype(img.dtype, np.integer):
        info = np.iinfo(img.dtype)
        return np.clip(np.rint(out), info.min, info.max).astype(img.dtype)
    return out.astype(img.dtype, copy=False)


def _resize_pil_cubic(img: np.ndarray, height: int, width: int, axis: int) -> np.ndarray:
    """Inter.PILCUBIC of uint8 RGB images: Pillow's bicubic along the width, then along the height, each pass
    rounded to uint8 (MindSpore's port of Pillow's resampling runs the two passes in this order)."""
    if img.dtype != np.uint8 or img.ndim != axis + 3 or img.shape[-1] != 3:
        raise RuntimeError(
            f"Resize: Inter.PILCUBIC takes uint8 RGB images <H, W, 3>, but got shape {img.shape[axis:]} "
            f"and dtype {img.dtype}."
        )
    image = pil_image()
    h = img.shape[axis]
    flat = img.reshape(-1, *img.shape[axis:])
    out = [
        np.asarray(image.fromarray(one).resize((width, h), image.BICUBIC).resize((width, height), image.BICUBIC))
        for one in flat
    ]
    return np.stack(out).reshape(*img.shape[:axis], height, width, 3)


@functools.lru_cache(maxsize=128)
def _area_weights(in_size: int, out_size: int) -> np.ndarray:
    """(out_size, in_size) float32 weights of INTER_AREA shrinking one axis: each output pixel averages the source
    pixels its cell [dst * s, (dst + 1) * s) covers (s = in / out), the partly covered ones by their overlap."""
    scale = 1.0 / (out_size / in_size)
    weights = np.zeros((out_size, in_size), np.float64)
    for dst in range(out_size):
        start, stop = dst * scale, (dst + 1) * scale
        first, last = int(math.ceil(start)), min(int(math.floor(stop)), in_size)
        cell = min(scale, in_size - start)
        if first - start > 1e-3:
            weights[dst, first - 1] = (first - start) / cell
        weights[dst, first:last] = 1.0 / cell
        if stop - last > 1e-3 and last < in_size:
            weights[dst, last] = min(stop - last, 1.0, cell) / cell
    return weights.astype(np.float32)


def _resize_area_shrink(img: np.ndarray, height: int, width: int, axis: int) -> np.ndarray:
    """INTER_AREA when neither side grows: the area-weighted mean of the covered source pixels, summed along the
    width first in float32 (float64 images in float64) and rounded to the dtype halves to even; uint8 images
    halved on both sides take OpenCV's (a + b + c + d + 2) >> 2."""
    h, w = img.shape[axis : axis + 2]
    if img.dtype == np.uint8 and (h, w) == (2 * height, 2 * width):
        s = img.astype(np.int32)
        ev, od = slice(0, None, 2), slice(1, None, 2)
        at = lambda r, c: s[(slice(None),) * axis + (r, c)]  # noqa: E731
        return ((at(ev, ev) + at(ev, od) + at(od, ev) + at(od, od) + 2) >> 2).astype(np.uint8)
    work = np.float64 if img.dtype == np.float64 else np.float32
    wx = _area_weights(w, width).astype(work)
    wy = _area_weights(h, height).astype(work)
    src = img.astype(work, copy=False)
    rows = np.moveaxis(np.tensordot(src, wx, axes=([axis + 1], [1])), -1, axis + 1)
    out = np.moveaxis(np.tensordot(rows, wy, axes=([axis], [1])), -1, axis)
    if np.issubdtype(img.dtype, np.integer):
        info = np.iinfo(img.dtype)
        return np.clip(np.rint(out), info.min, info.max).astype(img.dtype)
    return out.astype(img.dtype, copy=False)


def pad(img: np.ndarray, top: int, bottom: int, left: int, right: int, mode=Border.CONSTANT, fill=0) -> np.ndarray:
    """Pad an HW or HWC image; `fill` (a number or one per channel) is used by CONSTANT."""
    mode = Border(mode)
    if (top, bottom, left, right) == (0, 0, 0, 0):
        return img
    if mode != Border.CONSTANT:
        widths = [(top, bottom), (left, right)] + [(0, 0)] * (img.ndim - 2)
        return np.pad(img, widths, mode=mode.value)
    h, w = img.shape[:2]
    out = np.empty((h + top + bottom, w + left + right) + img.shape[2:], dtype=img.dtype)
    fill = np.asarray(fill)
    if fill.ndim and (img.ndim == 2 or fill.size != img.shape[2]):
        fill = fill.reshape(-1)[0]  # one value per channel only fits images with that many channels
    out[...] = fill
    out[top : top + h, left : left + w] = img
    return out


def crop(img: np.ndarray, top: int, left: int, height: int, width: int) -> np.ndarray:
    """The (height, width) window at (top, left), as a new array."""
    return img[top : top + height, left : left + width].copy()


def decode(data) -> np.ndarray:
    """Decode the bytes of an image file (1-D uint8 array) into an HWC uint8 RGB image."""
    arr = np.asarray(data)
    if arr.dtype != np.uint8 or arr.ndim != 1:
        raise RuntimeError(
            f"Decode: expected the bytes of an image file as a 1-D uint8 array, but got shape {arr.shape} "
            f"and dtype {arr.dtype} (already decoded?)."
        )
    image_mod = pil_image()
    try:
        with image_mod.open(io.BytesIO(arr.tobytes())) as im:
            return np.array(im.convert("RGB"))
    except OSError as exc:
        raise RuntimeError(f"Decode: the data is not an image Pillow can read ({exc}).") from exc
