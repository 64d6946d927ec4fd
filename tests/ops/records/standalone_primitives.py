"""Op records for kiln.ops.standalone_primitives: the Bessel K/Y functions against SciPy, colour adjustment against
Python's colorsys, image patches, FloatStatus and DetTriangle against NumPy (with gradients where defined)."""

from __future__ import annotations

import colorsys

import numpy as np
import scipy.special as sp

from kiln import Tensor, ops
from tests.ops.records import OpRecord

P = ops.operations


def _bessel(name):
    return lambda x: getattr(sp, name)(x.astype(np.float64)).astype(x.dtype)


def _hsv_map(fn):
    def ref(img, amount):
        flat = img.reshape(-1, 3).astype(np.float64)
        out = np.array([colorsys.hsv_to_rgb(*fn(*colorsys.rgb_to_hsv(*px), float(amount))) for px in flat])
        return out.reshape(img.shape).astype(img.dtype)

    return ref


def _hue(h, s, v, d):
    return ((h + d) % 1.0, s, v)


def _sat(h, s, v, k):
    return (h, min(max(s * k, 0.0), 1.0), v)


def _rgb_inputs(amount):
    def make(rng, dtype, shapes):
        return [rng.uniform(0.05, 0.95, size=shapes[0]).astype(dtype), np.asarray(amount, dtype)]

    return make


def _patches_ref(x):
    n, c, h, w = x.shape
    out = np.zeros((n, 4 * c, h - 1, w - 1), x.dtype)
    for i in range(h - 1):
        for j in range(w - 1):
            out[:, :, i, j] = x[:, :, i : i + 2, j : j + 2].transpose(0, 2, 3, 1).reshape(n, -1)
    return out


def _float_status_inputs(rng, dtype, shapes):
    x = rng.uniform(-1, 1, size=shapes[0]).astype(dtype)
    x.reshape(-1)[3] = np.inf
    return [x]


R = OpRecord
RECORDS = [
    *(R(f"bessel_{n}", getattr(ops, f"bessel_{n}"), _bessel(n), shapes=((3, 4),), dtypes=(np.float32, np.float64),
        domain=(0.3, 6.0), rtol=2e-6, atol=1e-7) for n in ("k0", "k0e", "k1", "k1e", "y0", "y1")),
    R("BesselK0_class", lambda x: P.BesselK0()(x), _bessel("k0"), shapes=((5,),), grad=False, domain=(0.3, 3.0)),
    R("AdjustHue", lambda x, d: P.AdjustHue()(x, d), _hsv_map(_hue), shapes=((1, 3, 3), ()), rtol=1e-5, atol=1e-6,
      extra={"make_inputs": _rgb_inputs(0.27), "grad_positions": (0,), "grad_rtol": 1e-3}),
    R("AdjustSaturation", lambda x, k: P.AdjustSaturation()(x, k), _hsv_map(_sat), shapes=((1, 3, 3), ()),
      rtol=1e-5, atol=1e-6, extra={"make_inputs": _rgb_inputs(0.6), "grad_positions": (0,), "grad_rtol": 1e-3}),
    R("ExtractImagePatches", lambda x: P.ExtractImagePatches((1, 1, 2, 2), (1, 1, 1, 1), (1, 1, 1, 1), "VALID")(x),
      _patches_ref, shapes=((2, 3, 4, 5),)),
    R("FloatStatus", lambda x: P.FloatStatus()(x), lambda x: np.array([1.0], x.dtype), shapes=((3, 4),),
      grad=False, extra={"make_inputs": _float_status_inputs}),
    R("FloatStatus_finite", lambda x: P.FloatStatus()(x), lambda x: np.array([0.0], x.dtype), shapes=((3, 4),),
      grad=False),
    R("DetTriangle", lambda x: P.DetTriangle()(x), lambda x: np.prod(np.diagonal(x, 0, -2, -1), -1),
      shapes=((2, 3, 3),)),
]  # fmt: skip


# -- resize, ROI align, 3-D grid sampling: loop references written from the definitions -----------------------------


def _keys(v, a):
    v = abs(v)
    if v <= 1:
        return ((a + 2) * v - (a + 3)) * v * v + 1
    return ((a * v - 5 * a) * v + 8 * a) * v - 4 * a if v < 2 else 0.0


def _bicubic_ref(size, align=False):
    def ref(x):
        n, c, h, w = x.shape

        def sample(src_len, dst_len, i):
            scale = (src_len - 1) / (dst_len - 1) if align else src_len / dst_len
            pos = i * scale
            base = int(np.floor(pos))
            t = np.floor((pos - base) * 1024 + 0.5) / 1024
            return [(min(max(base + k - 1, 0), src_len - 1), _keys(t - (k - 1), -0.75)) for k in range(4)]

        out = np.zeros((n, c) + size)
        for i in range(size[0]):
            for j in range(size[1]):
                for yi, wy in sample(h, size[0], i):
                    for xj, wx in sample(w, size[1], j):
                        out[:, :, i, j] += wy * wx * x[:, :, yi, xj]
        return out.astype(x.dtype)

    return ref


# the last two: a roi under one feature pixel wide (mode 1 keeps its size) and a padding roi (x1 = x2 = 0: zeros)
_ROIS = np.array([[0, 0.4, 0.3, 4.5, 3.1], [1, 1.2, 0.7, 3.6, 4.4], [0, -1.0, 2.2, 2.0, 5.5], [1, 2.0, 1.0, 2.2, 1.3],
                  [0, 0.0, 1.0, 0.0, 3.0]], np.float32)  # fmt: skip


def _bilinear(img, y, x):
    h, w = img.shape[-2:]
    if y < -1.0 or y > h or x < -1.0 or x > w:
        return np.zeros(img.shape[0])
    y, x = max(y, 0.0), max(x, 0.0)
    y0, x0 = int(y), int(x)
    y1, x1 = min(y0 + 1, h - 1), min(x0 + 1, w - 1)
    if y0 >= h - 1:
        y0 = y1 = h - 1
        y = float(y0)
    if x0 >= w - 1:
        x0 = x1 = w - 1
        x = float(x0)
    ly, lx = y - y0, x - x0
    return ((1 - ly) * (1 - lx) * img[:, y0, x0] + (1 - ly) * lx * img[:, y0, x1] + ly * (1 - lx) * img[:, y1, x0]
            + ly * lx * img[:, y1, x1])  # fmt: skip


def _roi_align_ref(feat):
    ph, pw, scale, grid = 2, 2, 0.5, 2
    out = np.zeros((len(_ROIS), feat.shape[1], ph, pw))
    for r, (b, x1, y1, x2, y2) in enumerate(_ROIS.astype(np.float64)):
        if abs(x1) < 1e-3 and abs(x2) < 1e-3:
            continue
        sw, sh = x1 * scale, y1 * scale
        rw, rh = (x2 + 1) * scale - sw, (y2 + 1) * scale - sh
        for i in range(ph):
            for j in range(pw):
                acc = 0
                for gy in range(grid):
                    for gx in range(grid):
                        y = sh + i * rh / ph + (gy + 0.5) * rh / ph / grid
                        x = sw + j * rw / pw + (gx + 0.5) * rw / pw / grid
                        acc = acc + _bilinear(feat[int(b)].astype(np.float64), y, x)
                out[r, :, i, j] = acc / grid**2
    return out.astype(feat.dtype)


def _grid3_ref(x, grid):
    n, c, d, h, w = x.shape
    out = np.zeros((n, c) + grid.shape[1:4])
    for b in range(n):
        for idx in np.ndindex(*grid.shape[1:4]):
            gx, gy, gz = grid[(b, *idx)].astype(np.float64)
            fx, fy, fz = ((gx + 1) * w - 1) / 2, ((gy + 1) * h - 1) / 2, ((gz + 1) * d - 1) / 2
            x0, y0, z0 = int(np.floor(fx)), int(np.floor(fy)), int(np.floor(fz))
            for dz in (0, 1):
                for dy in (0, 1):
                    for dx in (0, 1):
                        zz, yy, xx = z0 + dz, y0 + dy, x0 + dx
                        if 0 <= zz < d and 0 <= yy < h and 0 <= xx < w:
                            wgt = (1 - abs(fz - zz)) * (1 - abs(fy - yy)) * (1 - abs(fx - xx))
                            out[(b, slice(None), *idx)] += wgt * x[b, :, zz, yy, xx]
    return out.astype(x.dtype)


def _grid3_inputs(rng, dtype, shapes):
    return [rng.normal(size=shapes[0]).astype(dtype), rng.uniform(-1.1, 1.1, size=shapes[1]).astype(dtype)]


RECORDS += [
    R("ResizeBicubic", lambda x: P.ResizeBicubic()(x, (5, 7)), _bicubic_ref((5, 7)), shapes=((1, 2, 3, 4),),
      rtol=1e-5, atol=1e-5),
    R("ResizeBicubic_align", lambda x: P.ResizeBicubic(True)(x, (2, 6)), _bicubic_ref((2, 6), True),
      shapes=((2, 1, 4, 3),), rtol=1e-5, atol=1e-5),
    R("ROIAlign", lambda f: P.ROIAlign(2, 2, 0.5, 2)(f, Tensor(_ROIS)), _roi_align_ref,
      shapes=((2, 1, 4, 5),), rtol=1e-5, atol=1e-5),
    R("GridSampler3D", lambda x, g: P.GridSampler3D()(x, g), _grid3_ref, shapes=((1, 1, 2, 3, 2), (1, 1, 2, 2, 3)),
      rtol=1e-5, atol=1e-5, extra={"make_inputs": _grid3_inputs, "grad_rtol": 1e-3}),
]  # fmt: skip


def _frac_starts(u, n_in, n_out, k):
    alpha = np.float32((n_in - k) / (n_out - 1))
    starts = [int(np.floor((np.float32(i) + u) * alpha)) - int(np.floor(u * alpha)) for i in range(n_out - 1)]
    return starts + [n_in - k]


def _frac2_ref(x, samples):
    n, c, h, w = x.shape
    (kh, kw), (oh, ow) = (2, 3), (4, 3)
    out = np.zeros((n, c, oh, ow), x.dtype)
    for b in range(n):
        for ch in range(c):
            rows = _frac_starts(samples[b, ch, 1], h, oh, kh)
            cols = _frac_starts(samples[b, ch, 0], w, ow, kw)
            for i, r in enumerate(rows):
                for j, q in enumerate(cols):
                    out[b, ch, i, j] = x[b, ch, r : r + kh, q : q + kw].max()
    return out


def _frac2_inputs(rng, dtype, shapes):
    x = (rng.permutation(int(np.prod(shapes[0]))).reshape(shapes[0]) / 7.0).astype(dtype)  # no ties
    return [x, rng.uniform(0, 1, size=shapes[1]).astype(np.float32)]


RECORDS += [
    R("FractionalMaxPoolWithFixedKsize", lambda x, s: P.FractionalMaxPoolWithFixedKsize((2, 3), (4, 3))(x, s)[0],
      _frac2_ref, shapes=((1, 1, 5, 6), (1, 1, 2)), extra={"make_inputs": _frac2_inputs, "grad_positions": (0,),
                                                          "check_dtype": False}),
]  # fmt: skip


def _dcn_ref(x, w, off):
    n, c, h, wd = x.shape
    kh, kw = w.shape[2:]
    oh, ow = off.shape[2:]
    out = np.zeros((n, w.shape[0], oh, ow))
    for b in range(n):
        for i in range(oh):
            for j in range(ow):
                for a in range(kh):
                    for q in range(kw):
                        k = a * kw + q
                        yy, xx = i + a + off[b, kh * kw + k, i, j], j + q + off[b, k, i, j]
                        m = off[b, 2 * kh * kw + k, i, j]
                        val = np.zeros(c)
                        for y0 in (int(np.floor(yy)), int(np.floor(yy)) + 1):
                            for x0 in (int(np.floor(xx)), int(np.floor(xx)) + 1):
                                if 0 <= y0 < h and 0 <= x0 < wd:
                                    val = val + (1 - abs(yy - y0)) * (1 - abs(xx - x0)) * x[b, :, y0, x0]
                        out[b, :, i, j] += w[:, :, a, q] @ (val * m)
    return out.astype(x.dtype)


def _dcn_inputs(rng, dtype, shapes):
    x = rng.normal(size=shapes[0]).astype(dtype)
    w = rng.normal(size=shapes[1]).astype(dtype)
    off = np.concatenate([rng.uniform(-0.8, 0.8, size=(1, 8, 3, 3)), rng.uniform(0.2, 1, size=(1, 4, 3, 3))], 1)
    return [x, w, off.astype(dtype)]


RECORDS += [
    R("deformable_conv2d", lambda x, w, o: ops.deformable_conv2d(x, w, o, (2, 2), (1, 1, 1, 1), (0, 0, 0, 0)),
      _dcn_ref, shapes=((1, 2, 4, 4), (1, 2, 2, 2), (1, 12, 3, 3)), rtol=1e-5, atol=1e-5,
      extra={"make_inputs": _dcn_inputs, "grad_rtol": 1e-3}),
]  # fmt: skip
