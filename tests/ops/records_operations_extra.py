"""Op records for kiln.ops.operations_extra: the Bessel K/Y functions against SciPy, colour adjustment against
Python's colorsys, image patches, FloatStatus and DetTriangle against NumPy (with gradients where defined)."""

from __future__ import annotations

import colorsys

import numpy as np
import scipy.special as sp

from kiln import ops
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
    R("AdjustHue", lambda x, d: P.AdjustHue()(x, d), _hsv_map(_hue), shapes=((2, 4, 3), ()), rtol=1e-5, atol=1e-6,
      extra={"make_inputs": _rgb_inputs(0.27), "grad_positions": (0,), "grad_rtol": 1e-3}),
    R("AdjustSaturation", lambda x, k: P.AdjustSaturation()(x, k), _hsv_map(_sat), shapes=((2, 4, 3), ()),
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
