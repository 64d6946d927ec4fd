"""Resizing: nearest and (bi/tri)linear interpolation over the trailing spatial dims.

Source coordinates follow MindSpore / PyTorch: nearest takes floor(dst * scale);
linear maps dst to (dst + 0.5) * scale - 0.5 (clamped at 0), or spreads the corners
evenly with `align_corners`. The index and weight tables are static, so the op is a
gather and a blend per dimension, differentiable in the input.
"""

from __future__ import annotations

import numpy as np

from kiln._backend import jnp
from kiln._prims.nn._common import declare, one_of, op_error, require_float, shape_of

MODES = ("nearest", "linear")


def _source(n_in: int, n_out: int, scale: float | None, mode: str, align_corners: bool):
    """(low index, high index, weight of high) per output position along one dim."""
    dst = np.arange(n_out, dtype=np.float64)
    ratio = n_in / n_out if scale is None else scale
    if mode == "nearest":
        idx = np.minimum(np.floor(dst * ratio).astype(np.int64), n_in - 1)
        return idx, idx, np.zeros(n_out)
    if align_corners:
        src = dst * ((n_in - 1) / (n_out - 1)) if n_out > 1 else np.zeros(n_out)
    else:
        src = np.maximum((dst + 0.5) * ratio - 0.5, 0.0)
    lo = np.minimum(np.floor(src).astype(np.int64), n_in - 1)
    hi = np.minimum(lo + 1, n_in - 1)
    return lo, hi, src - lo


def _check(x, *, sizes, scales, mode, align_corners):
    op = "Interpolate"
    one_of(op, "mode", mode, MODES)
    require_float(op, "input", x)
    xs = shape_of(x)
    if len(xs) < len(sizes) + 1:
        raise op_error(op, f"the input needs {len(sizes)} spatial dims after (N, C), but got shape {list(xs)}.")
    if any(not isinstance(s, int) or s <= 0 for s in sizes):
        raise op_error(op, f"the output size must be positive ints, but got {list(sizes)}.")


def _interpolate(x, *, sizes, scales, mode, align_corners):
    nd = len(sizes)
    for i, (n_out, scale) in enumerate(zip(sizes, scales)):
        axis = x.ndim - nd + i
        lo, hi, w = _source(x.shape[axis], n_out, scale, mode, align_corners)
        low = jnp.take(x, jnp.asarray(lo), axis=axis)
        if mode == "nearest":
            x = low
            continue
        shape = [1] * x.ndim
        shape[axis] = n_out
        w = jnp.asarray(w.reshape(shape), x.dtype)
        x = low + (jnp.take(x, jnp.asarray(hi), axis=axis) - low) * w
    return x


Interpolate = declare(
    "Interpolate", _interpolate, _check, attrs={"sizes": (1,), "scales": (None,), "mode": "nearest",
                                                 "align_corners": False}
)  # fmt: skip
