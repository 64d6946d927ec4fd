"""NumPy kernels behind the vision transforms (HW or HWC images).

Resizing follows OpenCV, which MindSpore uses: LINEAR samples at half-pixel
centres, src = (dst + 0.5) * in / out - 0.5, clamped to the image; NEAREST
takes src = floor(dst * in / out). Integer images are computed in float and
rounded back, where OpenCV uses 11-bit fixed point, so values can differ from
MindSpore's by 1 when the exact result lies near .5.
"""

from __future__ import annotations

import functools
import io

import numpy as np

from kiln.dataset.vision.utils import Border, Inter, pil_image


@functools.lru_cache(maxsize=128)
def _linear_matrix(in_size: int, out_size: int, dtype: type) -> np.ndarray:
    """The (out_size, in_size) interpolation matrix along one axis (cached: pipelines reuse sizes).

    Bilinear resizing is separable, so an image resizes as Ry @ img @ Rx.T: two small matrix
    products instead of four gathers, several times faster per image.
    """
    src = (np.arange(out_size, dtype=np.float64) + 0.5) * (in_size / out_size) - 0.5
    src = np.maximum(src, 0.0)
    i0 = np.floor(src).astype(np.intp)
    frac = src - i0
    i0 = np.minimum(i0, in_size - 1)
    i1 = np.minimum(i0 + 1, in_size - 1)
    m = np.zeros((out_size, in_size), np.float64)
    rows = np.arange(out_size)
    np.add.at(m, (rows, i0), 1.0 - frac)
    np.add.at(m, (rows, i1), frac)
    return m.astype(dtype)


@functools.lru_cache(maxsize=128)
def _nearest_index(in_size: int, out_size: int) -> np.ndarray:
    src = np.floor(np.arange(out_size) * (in_size / out_size)).astype(np.intp)
    return np.minimum(src, in_size - 1)


def resize(img: np.ndarray, height: int, width: int, interpolation: Inter = Inter.LINEAR, batched: bool = False):
    """Resize an HW or HWC image (or, with `batched`, a stack of them) to (height, width), keeping its dtype."""
    lead = img.shape[:1] if batched else ()
    h, w = img.shape[len(lead) : len(lead) + 2]
    rest = img.shape[len(lead) + 2 :]
    if interpolation == Inter.NEAREST:
        return np.take(
            np.take(img, _nearest_index(h, height), axis=len(lead)), _nearest_index(w, width), axis=len(lead) + 1
        )
    if interpolation != Inter.LINEAR:
        raise NotImplementedError(f"Resize: interpolation {interpolation} is not implemented; use LINEAR or NEAREST.")
    work = np.float64 if img.dtype == np.float64 else np.float32
    ry, rx = _linear_matrix(h, height, work), _linear_matrix(w, width, work)
    src = img.astype(work, copy=False)
    if rest:
        c = int(np.prod(rest))
        rows = np.matmul(ry, src.reshape(lead + (h, w * c))).reshape(lead + (height, w, c))  # along H
        out = np.matmul(rx, rows).reshape(lead + (height, width) + rest)  # along W: (width, w) @ (w, c)
    else:
        out = np.matmul(np.matmul(ry, src), rx.T)
    if np.issubdtype(img.dtype, np.integer):
        # A convex combination stays inside the input range, so rounding needs no clipping.
        return np.rint(out, out=out).astype(img.dtype)
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
