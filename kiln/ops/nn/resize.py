"""Functional resizing: `interpolate` (nearest, linear / bilinear / trilinear, bicubic, area) and its older name
`upsample`."""

from __future__ import annotations

import math
import numbers

from kiln._prims import image as prims_image
from kiln._prims.nn import resize as R
from kiln.ops._helpers import apply, op_error
from kiln.ops.nn.pooling import adaptive_avg_pool1d, adaptive_avg_pool2d, adaptive_avg_pool3d

__all__ = ["upsample", "interpolate"]


def upsample(input, size=None, scale_factor=None, mode="nearest", align_corners=None, recompute_scale_factor=None):
    """`ops.interpolate` (its older name)."""
    return interpolate(input, size, scale_factor, mode, align_corners, recompute_scale_factor)


_LINEAR_RANK = {"linear": 3, "bilinear": 4, "trilinear": 5, "bicubic": 4}


def _per_dim(value, nd: int, name: str) -> tuple:
    if isinstance(value, (tuple, list)):
        if len(value) != nd:
            raise op_error("interpolate", f"'{name}' must have {nd} entries for this input, but got {value!r}.")
        return tuple(value)
    return (value,) * nd


def interpolate(input, size=None, scale_factor=None, mode="nearest", align_corners=None, recompute_scale_factor=None):
    """Resize the spatial dims of (N, C, *spatial) by `size` or `scale_factor`.

    Args:
        input (Tensor): (N, C, L), (N, C, H, W) or (N, C, D, H, W).
        size (Union[int, tuple[int]], optional): output spatial size.
        scale_factor (Union[float, tuple[float]], optional): output size = floor(size * scale_factor).
        mode (str): 'nearest', 'linear' (3-D), 'bilinear' (4-D), 'trilinear' (5-D), 'bicubic' (4-D) or 'area'.
            Default: 'nearest'.
        align_corners (bool, optional): linear and bicubic modes only: map the corner pixels onto each other.
            Default: False.
        recompute_scale_factor (bool, optional): with `scale_factor`, map coordinates with the ratio of the
            sizes instead of the given factor ('bicubic' takes `scale_factor` only with it).

    Returns:
        Tensor (N, C, *output size).
    """
    nd = input.ndim - 2
    if nd < 1:
        raise op_error("interpolate", f"the input must be (N, C, *spatial), but got shape {list(input.shape)}.")
    if (size is None) == (scale_factor is None):
        raise op_error("interpolate", "exactly one of 'size' and 'scale_factor' must be given.")
    if mode in _LINEAR_RANK and input.ndim != _LINEAR_RANK[mode]:
        raise op_error("interpolate", f"mode '{mode}' needs a {_LINEAR_RANK[mode]}-D input, but got shape "
                                      f"{list(input.shape)}.")  # fmt: skip
    if mode not in ("nearest", "area", *_LINEAR_RANK):
        raise op_error("interpolate", f"mode must be 'nearest', 'linear', 'bilinear', 'trilinear', 'bicubic' or "
                                      f"'area', but got {mode!r}.", NotImplementedError)  # fmt: skip
    if mode == "bicubic" and scale_factor is not None and not recompute_scale_factor:
        raise op_error("interpolate", "mode 'bicubic' takes 'scale_factor' only with recompute_scale_factor=True "
                                      "(the output size computed from it), as MindSpore; or give 'size'.")  # fmt: skip
    if align_corners and mode in ("nearest", "area"):
        raise op_error("interpolate", f"'align_corners' only applies to the linear modes, not '{mode}'.")
    spatial = input.shape[2:]
    if size is not None:
        sizes = tuple(int(s) for s in _per_dim(size, nd, "size"))
        scales = (None,) * nd
    else:
        factors = _per_dim(scale_factor, nd, "scale_factor")
        if any(not isinstance(f, numbers.Real) or f <= 0 for f in factors):
            raise op_error("interpolate", f"'scale_factor' must be positive, but got {scale_factor!r}.")
        sizes = tuple(math.floor(n * f) for n, f in zip(spatial, factors))
        scales = (None,) * nd if recompute_scale_factor else tuple(1.0 / f for f in factors)
    if mode == "area":
        return (adaptive_avg_pool1d, adaptive_avg_pool2d, adaptive_avg_pool3d)[nd - 1](input, sizes)
    if mode == "bicubic":  # MindSpore's: ResizeBicubic, half-pixel centres unless align_corners
        return apply(prims_image.ResizeBicubic, (input,), (sizes, bool(align_corners), not align_corners))
    prim_mode = "nearest" if mode == "nearest" else "linear"
    return apply(R.Interpolate, (input,), (sizes, scales, prim_mode, bool(align_corners)))
