"""Functional pooling: max / average pooling (1-3 spatial dims), adaptive, LP pooling and max unpooling."""

from __future__ import annotations

import builtins

import numpy as np

from kiln._core.tensor import Tensor
from kiln._prims.nn import pool as P
from kiln._prims.nn import pool as prims_pool
from kiln.ops import array, math
from kiln.ops._args import ntuple, pad_mode_of, pad_pairs
from kiln.ops._helpers import REGISTRY, apply, op_error
from kiln.ops.nn import activation

__all__ = [
    "max_pool1d",
    "max_pool2d",
    "max_pool3d",
    "avg_pool1d",
    "avg_pool2d",
    "avg_pool3d",
    "adaptive_avg_pool1d",
    "adaptive_avg_pool2d",
    "adaptive_avg_pool3d",
    "adaptive_max_pool1d",
    "adaptive_max_pool2d",
    "adaptive_max_pool3d",
    "lp_pool1d",
    "lp_pool2d",
    "max_unpool1d",
    "max_unpool2d",
    "max_unpool3d",
]


def _window(op: str, nd: int, kernel_size, stride, pad_mode, padding) -> tuple:
    """A pooling window's (kernel, strides, pad mode, pad pairs); the stride defaults to the kernel."""
    kernel = ntuple(op, "kernel_size", kernel_size, nd)
    strides = kernel if stride is None else ntuple(op, "stride", stride, nd)
    return kernel, strides, pad_mode_of(op, pad_mode), pad_pairs(op, padding, nd)


def max_pool(
    x,
    nd: int,
    kernel_size,
    stride=None,
    pad_mode="pad",
    padding=0,
    dilation=1,
    ceil_mode=False,
    return_indices=False,
    op: str = "MaxPool",
):
    """Max pooling over the last `nd` dims; the shared body of max_pool1d/2d/3d and the MaxPool layers."""
    attrs = (
        *_window(op, nd, kernel_size, stride, pad_mode, padding),
        ntuple(op, "dilation", dilation, nd),
        bool(ceil_mode),
    )
    if return_indices:
        return apply(P.MaxPoolWithArgmax, (x,), attrs)
    return apply(P.MaxPool3D if nd == 3 else P.MaxPool, (x,), attrs)


def avg_pool(
    x,
    nd: int,
    kernel_size,
    stride=None,
    pad_mode="pad",
    padding=0,
    ceil_mode=False,
    count_include_pad=True,
    divisor_override=None,
    op: str = "AvgPool",
):
    """Average pooling over the last `nd` dims; the shared body of avg_pool1d/2d/3d and the AvgPool layers."""
    window = _window(op, nd, kernel_size, stride, pad_mode, padding)
    attrs = (*window, bool(ceil_mode), bool(count_include_pad), int(divisor_override or 0))
    return apply(P.AvgPool3D if nd == 3 else P.AvgPool, (x,), attrs)


def max_pool1d(x, kernel_size, stride=None, padding=0, dilation=1, return_indices=False, ceil_mode=False):
    """1-D max pooling over (N, C, L) or (C, L); arguments as in `max_pool2d`, each size one value (`padding` on
    both sides, at most half the window).

    Returns:
        Tensor, or (Tensor, indices) when `return_indices` (the position of each maximum along L, int64).
    """
    return max_pool(x, 1, kernel_size, stride, "pad", padding, dilation, ceil_mode, return_indices)


def max_pool2d(x, kernel_size, stride=None, padding=0, dilation=1, return_indices=False, ceil_mode=False):
    """2-D max pooling over (N, C, H, W) or (C, H, W).

    Args:
        x (Tensor): the input.
        kernel_size (Union[int, tuple[int]]): window size (kH, kW).
        stride (Union[int, tuple[int]], optional): window step; defaults to `kernel_size`.
        padding (Union[int, tuple[int]]): implicit -inf padding, one value, (pH, pW) or (top, bottom, left, right).
        dilation (Union[int, tuple[int]]): spacing of the window taps. Default: 1.
        return_indices (bool): also return the position of each maximum (flat index into H * W, int64).
        ceil_mode (bool): round the output size up instead of down.

    Returns:
        Tensor, or (Tensor, indices) when `return_indices`.
    """
    return max_pool(x, 2, kernel_size, stride, "pad", padding, dilation, ceil_mode, return_indices)


def max_pool3d(x, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
    """3-D max pooling over (N, C, D, H, W) or (C, D, H, W); arguments as in `max_pool2d`.

    Returns:
        Tensor, or (Tensor, indices) when `return_indices` (flat index into D * H * W).
    """
    return max_pool(x, 3, kernel_size, stride, "pad", padding, dilation, ceil_mode, return_indices, "MaxPool3D")


def avg_pool1d(input_x, kernel_size=1, stride=1, padding=0, ceil_mode=False, count_include_pad=True) -> Tensor:
    """1-D average pooling over (N, C, L) or (C, L).

    Args:
        input_x (Tensor): the input.
        kernel_size (Union[int, tuple[int]]): window size. Default: 1.
        stride (Union[int, tuple[int]]): window step. Default: 1.
        padding (Union[int, tuple[int]]): zero padding on both sides (at most half the window).
        ceil_mode (bool): round the output size up instead of down.
        count_include_pad (bool): count the padding in the divisor. Default: True.

    Returns:
        Tensor (N, C, L_out).
    """
    return avg_pool(input_x, 1, kernel_size, stride, "pad", padding, ceil_mode, count_include_pad)


def avg_pool2d(
    input_x, kernel_size=1, stride=1, padding=0, ceil_mode=False, count_include_pad=True, divisor_override=0
) -> Tensor:
    """2-D average pooling over (N, C, H, W) or (C, H, W).

    Args:
        input_x (Tensor): the input.
        kernel_size (Union[int, tuple[int]]): window size. Default: 1.
        stride (Union[int, tuple[int]]): window step. Default: 1.
        padding (Union[int, tuple[int]]): zero padding, one value, (pH, pW) or (top, bottom, left, right).
        ceil_mode (bool): round the output size up instead of down.
        count_include_pad (bool): count the padding in the divisor. Default: True.
        divisor_override (int): divide by this instead of the window size when non-zero.

    Returns:
        Tensor (N, C, H_out, W_out).
    """
    return avg_pool(input_x, 2, kernel_size, stride, "pad", padding, ceil_mode, count_include_pad, divisor_override)


def avg_pool3d(
    input_x, kernel_size=1, stride=1, padding=0, ceil_mode=False, count_include_pad=True, divisor_override=0
) -> Tensor:
    """3-D average pooling over (N, C, D, H, W) or (C, D, H, W); arguments as in `avg_pool2d`.

    Returns:
        Tensor (N, C, D_out, H_out, W_out).
    """
    return avg_pool(
        input_x, 3, kernel_size, stride, "pad", padding, ceil_mode, count_include_pad, divisor_override, "AvgPool3D"
    )


def adaptive_output_size(op: str, output_size, nd: int) -> tuple:
    """An int, or a tuple whose entries may be None (keep that input size)."""
    if isinstance(output_size, (tuple, list)):
        if len(output_size) != nd:
            raise ValueError(f"For '{op}', 'output_size' must have {nd} entries, but got {output_size!r}.")
        return tuple(None if o is None else int(o) for o in output_size)
    return ntuple(op, "output_size", output_size, nd)


def _adaptive(kind: str, nd: int, x, output_size):
    prim = REGISTRY[f"Adaptive{kind}Pool{nd}D"]
    return apply(prim, (x,), (adaptive_output_size(prim.name, output_size, nd),))


def adaptive_avg_pool1d(input, output_size) -> Tensor:
    """Average over L bins [floor(i * L / out), ceil((i + 1) * L / out)) of (N, C, L) or (C, L).

    Args:
        input (Tensor): the input.
        output_size (int): number of bins.

    Returns:
        Tensor (N, C, output_size).
    """
    return _adaptive("Avg", 1, input, output_size)


def adaptive_avg_pool2d(input, output_size) -> Tensor:
    """Average over adaptive bins of (N, C, H, W) or (C, H, W).

    Args:
        input (Tensor): the input.
        output_size (Union[int, tuple]): (out_H, out_W); an entry None keeps that input size.

    Returns:
        Tensor (N, C, out_H, out_W).
    """
    return _adaptive("Avg", 2, input, output_size)


def adaptive_avg_pool3d(input, output_size) -> Tensor:
    """Average over adaptive bins of (N, C, D, H, W) or (C, D, H, W); see `adaptive_avg_pool2d`."""
    return _adaptive("Avg", 3, input, output_size)


def _adaptive_max(nd, input, output_size, return_indices):
    out, index = _adaptive("Max", nd, input, output_size)
    return (out, index) if return_indices else out


def adaptive_max_pool1d(input, output_size, return_indices: bool = False):
    """Max over adaptive bins of (N, C, L) or (C, L).

    Args:
        input (Tensor): the input.
        output_size (int): number of bins.
        return_indices (bool): also return where each maximum was (int64 index into L).

    Returns:
        Tensor, or (Tensor, indices).
    """
    return _adaptive_max(1, input, output_size, return_indices)


def adaptive_max_pool2d(input, output_size, return_indices: bool = False):
    """Max over adaptive bins of (N, C, H, W) or (C, H, W).

    Args:
        input (Tensor): the input.
        output_size (Union[int, tuple]): (out_H, out_W); an entry None keeps that input size.
        return_indices (bool): also return where each maximum was (int64 flat index into H * W).

    Returns:
        Tensor, or (Tensor, indices).
    """
    return _adaptive_max(2, input, output_size, return_indices)


def adaptive_max_pool3d(input, output_size, return_indices: bool = False):
    """Max over adaptive bins of (N, C, D, H, W) or (C, D, H, W); see `adaptive_max_pool2d`."""
    return _adaptive_max(3, input, output_size, return_indices)


def _lp(avg, norm_type, kernel_elems):
    # (sum over the window of x^p)^(1/p) = (k * mean(x^p))^(1/p), with MindSpore's sign(.) * relu(|.|) guard.
    return math.pow(math.mul(math.mul(math.sign(avg), activation.relu(math.abs(avg))), kernel_elems),
                    1.0 / norm_type)  # fmt: skip


def lp_pool1d(x, norm_type, kernel_size, stride=None, ceil_mode=False) -> Tensor:
    """Power-average pooling over the last axis of (N, C, L) / (C, L)."""
    k = int(kernel_size)
    s = k if stride is None else int(stride)
    avg = avg_pool1d(math.pow(x, norm_type), k, s, 0, ceil_mode)
    return _lp(avg, norm_type, k)


def lp_pool2d(x, norm_type, kernel_size, stride=None, ceil_mode=False) -> Tensor:
    """Power-average pooling over the last two axes of (N, C, H, W)."""
    k = (kernel_size, kernel_size) if isinstance(kernel_size, int) else tuple(kernel_size)
    s = k if stride is None else ((stride, stride) if isinstance(stride, int) else tuple(stride))
    avg = avg_pool2d(math.pow(x, norm_type), k, s, 0, ceil_mode)
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
