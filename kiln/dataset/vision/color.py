"""NumPy kernels of the color, histogram and geometric vision transforms.

They follow the OpenCV routines MindSpore's C++ transforms call: uint8 results
are rounded half to even and saturated (OpenCV's saturate_cast), grayscale is
OpenCV's fixed-point RGB2GRAY, histogram equalization is cv::equalizeHist.
Warps (rotate, affine, perspective) map each output pixel back to the input
(nearest: rounded; bilinear: OpenCV's 1/32-pixel weights are computed in
float here, so values can differ from MindSpore's by 1).
"""

from __future__ import annotations

import numpy as np


def saturate_u8(x: np.ndarray) -> np.ndarray:
    """Round half to even and clip to uint8 (OpenCV's saturate_cast<uchar>)."""
    return np.clip(np.rint(x), 0, 255).astype(np.uint8)


def cast_like(x: np.ndarray, like: np.ndarray) -> np.ndarray:
    """`x` (float) back to the dtype of `like`: saturated for uint8, kept for floats."""
    if like.dtype == np.uint8:
        return saturate_u8(x)
    if np.issubdtype(like.dtype, np.integer):
        info = np.iinfo(like.dtype)
        return np.clip(np.rint(x), info.min, info.max).astype(like.dtype)
    return x.astype(like.dtype)


def rgb_to_gray(img: np.ndarray) -> np.ndarray:
    """OpenCV's COLOR_RGB2GRAY: fixed point (R*4899 + G*9617 + B*1868 + 2**13) >> 14 for uint8."""
    if img.dtype == np.uint8:
        r, g, b = (img[..., i].astype(np.int32) for i in range(3))
        return ((r * 4899 + g * 9617 + b * 1868 + (1 << 13)) >> 14).astype(np.uint8)
    f = img.astype(np.float32)
    # other integer images are rounded to nearest (a uint16 image truncated was off by 1 on half of its pixels)
    return cast_like(0.299 * f[..., 0] + 0.587 * f[..., 1] + 0.114 * f[..., 2], img)


def _work(img: np.ndarray):
    """OpenCV's arithmetic type for scaling `img`: float64 for float64 images, else float32."""
    return np.float64 if img.dtype == np.float64 else np.float32


def blend(a: np.ndarray, b: np.ndarray, alpha: float, like: np.ndarray) -> np.ndarray:
    """alpha * a + (1 - alpha) * b, cast like `like`."""
    return cast_like(a.astype(np.float64) * alpha + b.astype(np.float64) * (1.0 - alpha), like)


def adjust_brightness(img: np.ndarray, factor: float) -> np.ndarray:
    # OpenCV's convertTo scales in float32 (1.3 is 1.29999995: 95 * 1.3 rounds to 123, not 124)
    work = _work(img)
    return cast_like(img.astype(work) * work(factor), img)


def adjust_contrast(img: np.ndarray, factor: float) -> np.ndarray:
    gray = rgb_to_gray(img)
    mean = float(np.mean(gray))
    if img.dtype == np.uint8:
        mean = float(saturate_u8(np.array(mean)))  # MindSpore fills a uint8 image with the mean
    return blend(img, np.full(img.shape, mean), factor, img)


def adjust_saturation(img: np.ndarray, factor: float) -> np.ndarray:
    gray = rgb_to_gray(img)[..., None]
    return blend(img, np.broadcast_to(gray, img.shape), factor, img)


def adjust_gamma(img: np.ndarray, gamma: float, gain: float) -> np.ndarray:
    if img.dtype == np.uint8:
        table = saturate_u8(np.power(np.arange(256) / 255.0, gamma) * 255.0 * gain)
        return table[img]
    return (np.power(img.astype(np.float64), gamma) * gain).astype(img.dtype)


def rgb_to_hsv_float(rgb: np.ndarray) -> np.ndarray:
    """RGB in [0, 1] -> HSV in [0, 1] (colorsys's formulas, vectorized)."""
    r, g, b = rgb[..., 0], rgb[..., 1], rgb[..., 2]
    maxc, minc = rgb.max(-1), rgb.min(-1)
    v = maxc
    delta = maxc - minc
    with np.errstate(divide="ignore", invalid="ignore"):
        s = np.where(maxc > 0, delta / np.where(maxc > 0, maxc, 1), 0.0)
        safe = np.where(delta > 0, delta, 1)
        rc, gc, bc = (maxc - r) / safe, (maxc - g) / safe, (maxc - b) / safe
    h = np.where(r == maxc, bc - gc, np.where(g == maxc, 2.0 + rc - bc, 4.0 + gc - rc))
    h = np.where(delta > 0, (h / 6.0) % 1.0, 0.0)
    return np.stack([h, s, v], -1)


def hsv_to_rgb_float(hsv: np.ndarray) -> np.ndarray:
    """HSV in [0, 1] -> RGB in [0, 1] (colorsys's formulas, vectorized)."""
    h, s, v = hsv[..., 0], hsv[..., 1], hsv[..., 2]
    i = np.floor(h * 6.0)
    f = h * 6.0 - i
    p, q, t = v * (1.0 - s), v * (1.0 - s * f), v * (1.0 - s * (1.0 - f))
    i = i.astype(np.int64) % 6
    choices = [(v, t, p), (q, v, p), (p, v, t), (p, q, v), (t, p, v), (v, p, q)]
    out = np.zeros(hsv.shape, np.float64)
    for k, (rr, gg, bb) in enumerate(choices):
        m = i == k
        out[..., 0] = np.where(m, rr, out[..., 0])
        out[..., 1] = np.where(m, gg, out[..., 1])
        out[..., 2] = np.where(m, bb, out[..., 2])
    return np.where((s == 0)[..., None], np.stack([v, v, v], -1), out)


def adjust_hue(img: np.ndarray, factor: float) -> np.ndarray:
    scale = 255.0 if img.dtype == np.uint8 else 1.0
    hsv = rgb_to_hsv_float(img.astype(np.float64) / scale)
    hsv[..., 0] = (hsv[..., 0] + factor) % 1.0
    return cast_like(hsv_to_rgb_float(hsv) * scale, img)


def equalize(img: np.ndarray) -> np.ndarray:
    """cv::equalizeHist on every channel of a uint8 image."""
    if img.dtype != np.uint8:
        raise RuntimeError(f"Equalize: the image must be uint8, but got {img.dtype}.")

    def one(ch: np.ndarray) -> np.ndarray:
        hist = np.bincount(ch.ravel(), minlength=256)
        nz = np.flatnonzero(hist)
        i = int(nz[0])
        total = ch.size
        if hist[i] == total:
            return np.full_like(ch, i)
        scale = np.float32(255.0) / np.float32(total - hist[i])
        lut = np.zeros(256, np.uint8)
        csum = np.cumsum(hist[i + 1 :])
        lut[i + 1 :] = saturate_u8(csum.astype(np.float32) * scale)
        return lut[ch]

    if img.ndim == 2:
        return one(img)
    return np.stack([one(img[..., c]) for c in range(img.shape[2])], -1)


def _cut_counts(hist: np.ndarray, cut: int, order: range) -> None:
    """Remove `cut` counts from `hist` in place, taking the bins in `order` until that many are gone."""
    for idx in order:
        if cut > hist[idx]:
            cut -= hist[idx]
            hist[idx] = 0
        else:
            hist[idx] -= cut
            break


def auto_contrast(img: np.ndarray, cutoff: float, ignore) -> np.ndarray:
    """PIL's ImageOps.autocontrast per channel (MindSpore's C++ follows it)."""
    if img.dtype != np.uint8:
        raise RuntimeError(f"AutoContrast: the image must be uint8, but got {img.dtype}.")
    ignore = [] if ignore is None else ([ignore] if isinstance(ignore, int) else list(ignore))

    def one(ch: np.ndarray) -> np.ndarray:
        hist = np.bincount(ch.ravel(), minlength=256).astype(np.int64)
        for g in ignore:
            hist[g] = 0
        if cutoff:
            n = hist.sum()
            cut = int(n * cutoff / 100.0)
            h = hist.copy()
            _cut_counts(h, cut, range(256))  # from the low end
            _cut_counts(h, cut, range(255, -1, -1))  # from the high end
            hist = h
        nz = np.flatnonzero(hist)
        if nz.size == 0:
            return ch.copy()
        lo, hi = int(nz[0]), int(nz[-1])
        if hi <= lo:
            return ch.copy()
        scale = 255.0 / (hi - lo)
        offset = -lo * scale
        lut = np.clip(np.arange(256) * scale + offset, 0, 255).astype(np.int64)
        return lut.astype(np.uint8)[ch]

    if img.ndim == 2:
        return one(img)
    return np.stack([one(img[..., c]) for c in range(img.shape[2])], -1)


def sharpness(img: np.ndarray, factor: float) -> np.ndarray:
    """Blend with PIL's SMOOTH filter (kernel [[1,1,1],[1,5,1],[1,1,1]] / 13); the border keeps the image."""
    f = img.astype(np.float64)
    h, w = img.shape[:2]
    if h < 3 or w < 3:
        return img.copy()
    k = np.array([[1, 1, 1], [1, 5, 1], [1, 1, 1]], np.float64) / 13.0
    smooth = f.copy()
    acc = np.zeros_like(f[1:-1, 1:-1])
    for dy in range(3):
        for dx in range(3):
            acc += k[dy, dx] * f[dy : dy + h - 2, dx : dx + w - 2]
    smooth[1:-1, 1:-1] = np.rint(acc) if img.dtype == np.uint8 else acc
    return blend(f, smooth, factor, img)


def gaussian_kernel(size: int, sigma: float) -> np.ndarray:
    """OpenCV's getGaussianKernel (sigma <= 0: derived from the size)."""
    if sigma <= 0:
        sigma = 0.3 * ((size - 1) * 0.5 - 1) + 0.8
    x = np.arange(size) - (size - 1) / 2.0
    k = np.exp(-(x * x) / (2.0 * sigma * sigma))
    return k / k.sum()


def _reflect101(index: np.ndarray, n: int) -> np.ndarray:
    if n == 1:
        return np.zeros_like(index)
    period = 2 * n - 2
    index = np.abs(index) % period
    return np.where(index >= n, period - index, index)


def gaussian_blur(img: np.ndarray, ksize: tuple[int, int], sigma: tuple[float, float]) -> np.ndarray:
    """Separable Gaussian blur with BORDER_REFLECT_101 (OpenCV's default)."""
    kx, ky = gaussian_kernel(ksize[0], sigma[0]), gaussian_kernel(ksize[1], sigma[1])
    f = img.astype(np.float64)
    h, w = img.shape[:2]
    rows = _reflect101(np.arange(h)[:, None] + np.arange(ksize[1])[None, :] - ksize[1] // 2, h)
    out = np.tensordot(ky, f[rows.T], axes=(0, 0))
    cols = _reflect101(np.arange(w)[:, None] + np.arange(ksize[0])[None, :] - ksize[0] // 2, w)
    out = np.tensordot(kx, out[:, cols.T].swapaxes(0, 1), axes=(0, 0))
    return cast_like(out, img)


def warp(img: np.ndarray, inverse: np.ndarray, out_h: int, out_w: int, nearest: bool, fill) -> np.ndarray:
    """Output pixel (x, y) takes the input at inverse @ (x, y, 1) (a 2x3 affine or 3x3 projective matrix)."""
    ys, xs = np.mgrid[0:out_h, 0:out_w].astype(np.float64)
    pts = np.stack([xs.ravel(), ys.ravel(), np.ones(xs.size)])
    src = inverse @ pts
    if inverse.shape[0] == 3:
        with np.errstate(divide="ignore", invalid="ignore"):
            src = src[:2] / src[2]
    sx, sy = src[0], src[1]
    h, w = img.shape[:2]
    chan = img.shape[2:]
    fill_arr = np.broadcast_to(np.asarray(fill, np.float64), chan) if chan else np.asarray(fill, np.float64)
    flat = img.reshape(h * w, -1).astype(np.float64)
    if nearest:
        ix, iy = np.floor(sx + 0.5).astype(np.int64), np.floor(sy + 0.5).astype(np.int64)
        inside = (ix >= 0) & (ix < w) & (iy >= 0) & (iy < h)
        vals = np.where(
            inside[:, None], flat[np.clip(iy, 0, h - 1) * w + np.clip(ix, 0, w - 1)], fill_arr.reshape(1, -1)
        )
    else:
        x0, y0 = np.floor(sx).astype(np.int64), np.floor(sy).astype(np.int64)
        fx, fy = sx - x0, sy - y0
        vals = np.zeros((sx.size, flat.shape[1]))
        for dy, wy in ((0, 1 - fy), (1, fy)):
            for dx, wx in ((0, 1 - fx), (1, fx)):
                xx, yy = x0 + dx, y0 + dy
                inside = (xx >= 0) & (xx < w) & (yy >= 0) & (yy < h)
                v = np.where(
                    inside[:, None], flat[np.clip(yy, 0, h - 1) * w + np.clip(xx, 0, w - 1)], fill_arr.reshape(1, -1)
                )
                vals += (wx * wy)[:, None] * v
    out = vals.reshape((out_h, out_w) + chan)
    return cast_like(out, img)


def rotation_matrix(center: tuple[float, float], degrees: float) -> np.ndarray:
    """OpenCV's getRotationMatrix2D(center, degrees, 1): forward map, counter-clockwise."""
    a = np.deg2rad(degrees)
    alpha, beta = np.cos(a), np.sin(a)
    cx, cy = center
    return np.array([[alpha, beta, (1 - alpha) * cx - beta * cy], [-beta, alpha, beta * cx + (1 - alpha) * cy]])


def invert_affine(m: np.ndarray) -> np.ndarray:
    full = np.vstack([m, [0, 0, 1]])
    return np.linalg.inv(full)[:2]
