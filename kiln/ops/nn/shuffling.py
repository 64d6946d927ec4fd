"""Functional pixel and channel shuffles: `pixel_shuffle`, `pixel_unshuffle`, `channel_shuffle`."""

from __future__ import annotations

from kiln._core.tensor import Tensor
from kiln.ops import array
from kiln.ops._helpers import op_error

__all__ = ["channel_shuffle", "pixel_shuffle", "pixel_unshuffle"]


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
