"""More functional layers (MindSpore 2.10's `ops.*`): pixel and channel shuffles, channel dropout, LP pooling,
max unpooling, GLU, threshold and cosine similarity. Composed from existing ops; max unpooling is a primitive."""

from __future__ import annotations

import builtins

import numpy as np

from kiln._core.tensor import Tensor
from kiln._prims.nn import pool as prims_pool
from kiln.ops import array, math
from kiln.ops._helpers import apply, op_error
from kiln.ops.nn import activation, pooling

__all__ = [
    "channel_shuffle", "cosine_similarity", "dropout1d", "dropout2d", "dropout3d", "glu", "lp_pool1d", "lp_pool2d",
    "max_unpool1d", "max_unpool2d", "max_unpool3d", "pixel_shuffle", "pixel_unshuffle", "threshold",
]  # fmt: skip


def _positive_int(op: str, name: str, v) -> int:
    if not isinstance(v, int) or isinstance(v, bool) or v <= 0:
        raise op_error(op, f"'{name}' must be a positive int, but got {v!r}.")
    return v


def pixel_shuffle(input, upscale_factor: int) -> Tensor:
    """(*, C r^2, H, W) -> (*, C, H r, W r)."""
    r = _positive_int("pixel_shuffle", "upscale_factor", upscale_factor)
    *lead, c, h, w = input.shape
    if input.ndim < 3 or c % (r * r):
        raise op_error("pixel_shuffle", f"the channels of shape {tuple(input.shape)} must be divisible by {r * r}.")
    x = array.reshape(input, (*lead, c // (r * r), r, r, h, w))
    n = len(lead)
    x = array.transpose(x, (*range(n), n, n + 3, n + 1, n + 4, n + 2))
    return array.reshape(x, (*lead, c // (r * r), h * r, w * r))


def pixel_unshuffle(input, downscale_factor: int) -> Tensor:
    """(*, C, H r, W r) -> (*, C r^2, H, W)."""
    r = _positive_int("pixel_unshuffle", "downscale_factor", downscale_factor)
    *lead, c, h, w = input.shape
    if input.ndim < 3 or h % r or w % r:
        raise op_error("pixel_unshuffle", f"the height and width of {tuple(input.shape)} must be divisible by {r}.")
    x = array.reshape(input, (*lead, c, h // r, r, w // r, r))
    n = len(lead)
    x = array.transpose(x, (*range(n), n, n + 2, n + 4, n + 1, n + 3))
    return array.reshape(x, (*lead, c * r * r, h // r, w // r))


def channel_shuffle(x, groups: int) -> Tensor:
    """Split the channels (axis 1) into `groups` and interleave them: (N, g * k, *) -> (N, k * g, *)."""
    g = _positive_int("channel_shuffle", "groups", groups)
    if x.ndim < 3 or x.shape[1] % g:
        raise op_error("channel_shuffle", f"the channels of shape {tuple(x.shape)} must be divisible by {g}.")
    n, c, *rest = x.shape
    y = array.reshape(x, (n, g, c // g, *rest))
    return array.reshape(array.swapaxes(y, 1, 2), (n, c, *rest))


def _channel_dropout(op: str, input, p, training, spatial: int):
    if not isinstance(p, (int, float)) or not 0 <= p <= 1:
        raise op_error(op, f"'p' must be a number in [0, 1], but got {p!r}.")
    if not training or p == 0:
        return input
    if input.ndim not in (spatial + 1, spatial + 2):
        raise op_error(op, f"the input must be {spatial + 1}-D or {spatial + 2}-D, but got {input.ndim}-D.")
    mask_shape = tuple(input.shape[: input.ndim - spatial]) + (1,) * spatial
    if p == 1:
        return array.zeros_like(input)
    from kiln.ops.random import rand  # noqa: PLC0415  (ops.random imports the Primitive classes, which import this)

    keep = math.cast(math.greater_equal(rand(*mask_shape), p), input.dtype)
    return math.mul(input, math.mul(keep, 1.0 / (1.0 - p)))


def dropout1d(input, p=0.5, training=True) -> Tensor:
    """Zero whole channels of (N, C, L) / (C, L) with probability `p`, scaling the rest by 1 / (1 - p)."""
    return _channel_dropout("dropout1d", input, p, training, 1)


def dropout2d(input, p=0.5, training=True) -> Tensor:
    """Zero whole channels of (N, C, H, W) / (C, H, W) with probability `p`, scaling the rest by 1 / (1 - p)."""
    return _channel_dropout("dropout2d", input, p, training, 2)


def dropout3d(input, p=0.5, training=True) -> Tensor:
    """Zero whole channels of (N, C, D, H, W) / (C, D, H, W) with probability `p`, scaling the rest."""
    return _channel_dropout("dropout3d", input, p, training, 3)


def _lp(avg, norm_type, kernel_elems):
    # (sum over the window of x^p)^(1/p) = (k * mean(x^p))^(1/p), with MindSpore's sign(.) * relu(|.|) guard.
    return math.pow(math.mul(math.mul(math.sign(avg), activation.relu(math.abs(avg))), kernel_elems),
                    1.0 / norm_type)  # fmt: skip


def lp_pool1d(x, norm_type, kernel_size, stride=None, ceil_mode=False) -> Tensor:
    """Power-average pooling over the last axis of (N, C, L) / (C, L)."""
    k = int(kernel_size)
    s = k if stride is None else int(stride)
    avg = pooling.avg_pool1d(math.pow(x, norm_type), k, s, 0, ceil_mode)
    return _lp(avg, norm_type, k)


def lp_pool2d(x, norm_type, kernel_size, stride=None, ceil_mode=False) -> Tensor:
    """Power-average pooling over the last two axes of (N, C, H, W)."""
    k = (kernel_size, kernel_size) if isinstance(kernel_size, int) else tuple(kernel_size)
    s = k if stride is None else ((stride, stride) if isinstance(stride, int) else tuple(stride))
    avg = pooling.avg_pool2d(math.pow(x, norm_type), k, s, 0, ceil_mode)
    return _lp(avg, norm_type, k[0] * k[1])


def _tuple(v, n):
    return (v,) * n if isinstance(v, int) else tuple(v)


def _max_unpool(op: str, dims: int, x, indices, kernel_size, stride, padding, output_size):
    k = _tuple(kernel_size, dims)
    s = k if stride is None else _tuple(stride, dims)
    p = _tuple(padding, dims)
    spatial_in = tuple(x.shape[-dims:])
    if output_size is None:
        out = tuple((i - 1) * st - 2 * pd + kk for i, st, pd, kk in zip(spatial_in, s, p, k))
    else:
        out = tuple(int(v) for v in tuple(output_size)[-dims:])
    if builtins.any(o <= 0 for o in out):
        raise op_error(op, f"the output size {out} must be positive.")
    lead = tuple(x.shape[:-dims])
    flat_x = array.reshape(x, lead + (int(np.prod(spatial_in)),))
    flat_i = array.reshape(indices, lead + (int(np.prod(spatial_in)),))
    res = apply(prims_pool.MaxUnpool, (flat_x, flat_i), (int(np.prod(out)),))
    return array.reshape(res, lead + out)


def max_unpool1d(x, indices, kernel_size, stride=None, padding=0, output_size=None) -> Tensor:
    """The inverse of max_pool1d: each value of x put back at its index (flat over L), zeros elsewhere."""
    return _max_unpool("max_unpool1d", 1, x, indices, kernel_size, stride, padding, output_size)


def max_unpool2d(x, indices, kernel_size, stride=None, padding=0, output_size=None) -> Tensor:
    """The inverse of max_pool2d: each value of x put back at its index (flat over H * W), zeros elsewhere."""
    return _max_unpool("max_unpool2d", 2, x, indices, kernel_size, stride, padding, output_size)


def max_unpool3d(x, indices, kernel_size, stride=None, padding=0, output_size=None) -> Tensor:
    """The inverse of max_pool3d: each value of x put back at its index (flat over D * H * W), zeros elsewhere."""
    return _max_unpool("max_unpool3d", 3, x, indices, kernel_size, stride, padding, output_size)


def glu(x, axis=-1) -> Tensor:
    """Gated linear unit: a * sigmoid(b) for the two halves (a, b) of `x` along `axis`."""
    if x.shape[axis] % 2:
        raise op_error("GLU", f"the size of axis {axis} of {tuple(x.shape)} must be even.")
    a, b = array.split(x, x.shape[axis] // 2, axis)
    return math.mul(a, activation.sigmoid(b))


def threshold(input, thr, value) -> Tensor:
    """`input` where it is greater than `thr`, else `value`."""
    return array.select(math.greater(input, thr), input, array.full_like(input, value))


def cosine_similarity(x1, x2, dim=1, eps=1e-8) -> Tensor:
    """sum(x1 * x2) / max(||x1|| ||x2||, eps) along `dim` (the inputs broadcast)."""
    dot = math.sum(math.mul(x1, x2), dim)
    n1 = math.sqrt(math.sum(math.square(x1), dim))
    n2 = math.sqrt(math.sum(math.square(x2), dim))
    return math.div(dot, math.maximum(math.mul(n1, n2), eps))
