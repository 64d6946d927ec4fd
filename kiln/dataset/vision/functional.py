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

import numpy as np

from kiln.dataset.vision.utils import Border, Inter, pil_image


@functools.lru_cache(maxsize=128)
def _nearest_index(in_size: int, out_size: int) -> np.ndarray:
    # OpenCV's step is 1 / (out / in) in float64: at exact multiples it can floor one below in / out's.
    src = np.floor(np.arange(out_size) * (1.0 / (out_size / in_size))).astype(np.intp)
    return np.minimum(src, in_size - 1)


_COEF_BITS = 11  # OpenCV's INTER_RESIZE_COEF_BITS: interpolation weights are integers summing to 2048


@functools.lru_cache(maxsize=128)
def _linear_taps(in_size: int, out_size: int, clamp_fraction: bool) -> tuple[np.ndarray, ...]:
    """OpenCV's bilinear taps along one axis: source indices i0, i1 and float32 weights w0 = 1 - f, w1 = f.

    The position is computed in float32 from a float64 scale, as OpenCV does. Along the width a position
    outside the image takes its edge pixel with weight 1; along the height OpenCV keeps the fraction and
    only clamps the rows, which rounds differently on the first and last rows of an enlarged image.
    """
    scale = 1.0 / (out_size / in_size)
    pos = ((np.arange(out_size) + 0.5) * scale - 0.5).astype(np.float32)
    i0 = np.floor(pos).astype(np.intp)
    frac = pos - i0.astype(np.float32)
    if clamp_fraction:
        outside = (i0 < 0) | (i0 >= in_size - 1)
        frac[outside] = 0.0
        i0 = np.where(i0 < 0, 0, np.where(i0 >= in_size - 1, in_size - 1, i0))
    return np.clip(i0, 0, in_size - 1), np.clip(i0 + 1, 0, in_size - 1), np.float32(1.0) - frac, frac


@functools.lru_cache(maxsize=128)
def _fixed_point_taps(in_size: int, out_size: int, clamp_fraction: bool) -> tuple[np.ndarray, ...]:
    """`_linear_taps` with OpenCV's integer weights for uint8 images (w0 + w1 = 2048)."""
    i0, i1, w0, w1 = _linear_taps(in_size, out_size, clamp_fraction)
    one = np.float32(1 << _COEF_BITS)
    # rint: OpenCV's saturate_cast rounds halves to even.
    return i0, i1, np.rint(w0 * one).astype(np.int32), np.rint(w1 * one).astype(np.int32)


def _resize_linear_u8(img: np.ndarray, height: int, width: int, axis: int) -> np.ndarray:
    """Bilinear resize of uint8 images in OpenCV's fixed point (axis: the height axis; width follows it)."""
    h, w = img.shape[axis : axis + 2]
    x0, x1, a0, a1 = _fixed_point_taps(w, width, True)
    y0, y1, b0, b1 = _fixed_point_taps(h, height, False)
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


def resize(img: np.ndarray, height: int, width: int, interpolation: Inter = Inter.LINEAR, batched: bool = False):
    """Resize an HW or HWC image (or, with `batched`, a stack of them) to (height, width), keeping its dtype."""
    lead = img.shape[:1] if batched else ()
    h, w = img.shape[len(lead) : len(lead) + 2]
    if interpolation == Inter.NEAREST:
        return np.take(
            np.take(img, _nearest_index(h, height), axis=len(lead)), _nearest_index(w, width), axis=len(lead) + 1
        )
    if interpolation != Inter.LINEAR:
        raise NotImplementedError(f"Resize: interpolation {interpolation} is not implemented; use LINEAR or NEAREST.")
    if img.dtype == np.uint8:
        return _resize_linear_u8(img, height, width, len(lead))
    return _resize_linear_float(img, height, width, len(lead))


def _resize_linear_float(img: np.ndarray, height: int, width: int, axis: int) -> np.ndarray:
    """Bilinear resize in floating point, as OpenCV's float kernels: float32 weights, a * w0 + b * w1 per axis
    (float64 images in float64); other integer images are rounded back to their dtype, halves to even."""
    h, w = img.shape[axis : axis + 2]
    x0, x1, a0, a1 = _linear_taps(w, width, True)
    y0, y1, b0, b1 = _linear_taps(h, height, False)
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
