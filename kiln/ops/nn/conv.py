"""Functional convolutions: conv1d/2d/3d, conv_transpose1d/2d/3d (channels-first) and sliding blocks
(`unfold`/`fold`, `im2col`/`col2im`).
"""

from __future__ import annotations

from kiln._core.tensor import Tensor
from kiln._prims.nn import conv as C
from kiln._prims.nn import unfold as prims_unfold
from kiln.ops._args import conv_attrs, ntuple, window_attrs
from kiln.ops._helpers import apply, op_error
from kiln.ops.faces import functional

__all__ = [
    "col2im",
    "unfold",
    "fold",
    "conv3d_transpose",
    "conv1d",
    "conv2d",
    "conv3d",
    "conv_transpose1d",
    "conv_transpose2d",
    "conv_transpose3d",
]


# ---------------------------------------------------------------------------------------------- im2col / col2im
def _pair(v, name: str, op: str) -> tuple[int, int]:
    if isinstance(v, int):
        return (v, v)
    v = tuple(int(a) for a in v)
    if len(v) == 1:
        return (v[0], v[0])
    if len(v) != 2:
        raise op_error(op, f"'{name}' must be an int or a pair of ints, but got {v}.")
    return v


def im2col(input, kernel_size, dilation=1, padding=0, stride=1) -> Tensor:
    """Sliding local blocks of a 4-D input, as columns (PyTorch's `unfold`).

    Args:
        input (Tensor): (N, C, H, W).
        kernel_size, dilation, padding, stride (int | tuple[int, int]): the blocks' geometry.

    Returns:
        Tensor of shape (N, C * kh * kw, L), L the number of blocks.
    """
    attrs = tuple(_pair(v, n, "Im2Col") for v, n in ((kernel_size, "kernel_size"), (dilation, "dilation"),
                                                    (padding, "padding"), (stride, "stride")))  # fmt: skip
    return apply(prims_unfold.Im2Col, (input,), attrs)


def col2im(input, output_size, kernel_size, dilation=1, padding=0, stride=1) -> Tensor:
    """Sum sliding local blocks back into a 4-D tensor (PyTorch's `fold`, the adjoint of `im2col`).

    Args:
        input (Tensor): (N, C * kh * kw, L).
        output_size (int | tuple[int, int]): spatial size (H, W) of the result.
        kernel_size, dilation, padding, stride (int | tuple[int, int]): the blocks' geometry.

    Returns:
        Tensor of shape (N, C, H, W).
    """
    attrs = tuple(_pair(v, n, "Col2Im") for v, n in ((output_size, "output_size"), (kernel_size, "kernel_size"),
                                                    (dilation, "dilation"), (padding, "padding"),
                                                    (stride, "stride")))  # fmt: skip
    return apply(prims_unfold.Col2Im, (input,), attrs)


def unfold(input, kernel_size, dilation=1, padding=0, stride=1) -> Tensor:
    """Sliding local blocks of a 4-D input as columns: (N, C * kh * kw, L).

    Args:
        input (Tensor): (N, C, H, W).
        kernel_size, dilation, padding, stride (int | tuple[int, int]): the blocks' geometry.

    Returns:
        Tensor (N, C * kh * kw, L).
    """
    return im2col(input, kernel_size, dilation, padding, stride)


def fold(input, output_size, kernel_size, dilation=1, padding=0, stride=1) -> Tensor:
    """Sum sliding local blocks (N, C * kh * kw, L) back into (N, C, H, W), the adjoint of `unfold`.

    Args:
        input (Tensor): (N, C * kh * kw, L).
        output_size (Tensor | tuple[int, int]): (H, W).
        kernel_size, dilation, padding, stride (int | tuple[int, int]): the blocks' geometry.

    Returns:
        Tensor (N, C, H, W).
    """
    if isinstance(output_size, Tensor):
        output_size = tuple(int(v) for v in output_size.asnumpy().reshape(-1))
    return col2im(input, output_size, kernel_size, dilation, padding, stride)


def conv3d_transpose(inputs, weight, pad_mode="valid", padding=0, stride=1, dilation=1, group=1, output_padding=0):
    """3-D transposed convolution (MindSpore's argument order; `pad_mode` 'valid' or 'pad')."""
    if pad_mode not in ("valid", "pad"):
        raise op_error("conv3d_transpose", f"'pad_mode' must be 'valid' or 'pad', but got {pad_mode!r}.")
    pad = 0 if pad_mode == "valid" else padding
    if isinstance(pad, tuple) and len(pad) == 6:
        pad = pad[::2]
    return conv_transpose3d(inputs, weight, None, stride, pad, output_padding, group, dilation)


_CONV = {1: C.Conv1D, 2: C.Conv2D, 3: C.Conv3D}

_TRANSPOSE = {1: C.Conv1DTranspose, 2: C.Conv2DTranspose, 3: C.Conv3DTranspose}


def _conv(nd, input, weight, bias, stride, pad_mode, padding, dilation, groups, data_format):
    prim = _CONV[nd]
    attrs = conv_attrs(prim.name, nd, stride, pad_mode, padding, dilation, groups, data_format)
    return apply(prim, (input, weight, bias), attrs)


def conv1d(input, weight, bias=None, stride=1, pad_mode="valid", padding=0, dilation=1, groups=1) -> Tensor:
    """1-D convolution over (N, C_in, L).

    Args:
        input (Tensor): (N, C_in, L).
        weight (Tensor): (C_out, C_in / groups, K); MindSpore's (C_out, C_in / groups, 1, K) also works.
        bias (Tensor, optional): (C_out,).
        stride (Union[int, tuple[int]]): step of the window. Default: 1.
        pad_mode (str): 'valid' (no padding), 'same' (output ceil(L / stride)) or 'pad' (use `padding`).
        padding (Union[int, tuple[int]]): explicit padding for pad_mode 'pad': one value or (left, right).
        dilation (Union[int, tuple[int]]): spacing of kernel taps. Default: 1.
        groups (int): input and output channels split into this many groups. Default: 1.

    Returns:
        Tensor of shape (N, C_out, L_out).
    """
    return _conv(1, input, weight, bias, stride, pad_mode, padding, dilation, groups, "NCHW")


conv2d = functional("conv2d")  # faces table


def conv3d(input, weight, bias=None, stride=1, pad_mode="valid", padding=0, dilation=1, groups=1) -> Tensor:
    """3-D convolution over (N, C_in, D, H, W).

    Args:
        input (Tensor): (N, C_in, D, H, W).
        weight (Tensor): (C_out, C_in / groups, kD, kH, kW).
        bias (Tensor, optional): (C_out,).
        stride, pad_mode, padding, dilation, groups: as in `conv2d`, with three spatial dims
            (explicit padding: one value, 3 values or 6 values (front, back, top, bottom, left, right)).

    Returns:
        Tensor of shape (N, C_out, D_out, H_out, W_out).
    """
    return _conv(3, input, weight, bias, stride, pad_mode, padding, dilation, groups, "NCDHW")


def transpose_attrs(op, nd, stride, pad_mode, padding, output_padding, groups, dilation, output_size, data_format):
    """The ConvTranspose primitive's attribute tuple from user arguments."""
    return (
        *window_attrs(op, nd, stride, pad_mode, padding, dilation),
        groups,
        ntuple(op, "output_padding", output_padding, nd),
        None if output_size is None else tuple(int(s) for s in output_size),
        data_format,
    )


def conv_transpose(
    input, weight, bias, nd, stride=1, pad_mode="pad", padding=0, output_padding=0, groups=1, dilation=1
):
    """The shared body of conv_transpose1d/2d/3d and the ConvTranspose layers (any pad_mode)."""
    prim = _TRANSPOSE[nd]
    fmt = "NCDHW" if nd == 3 else "NCHW"
    attrs = transpose_attrs(prim.name, nd, stride, pad_mode, padding, output_padding, groups, dilation, None, fmt)
    return apply(prim, (input, weight, bias), attrs)


def transposed_sizes(sizes, kernel, stride, dilation, pad_mode: str, pad) -> list[int]:
    """Output sizes of a transposed convolution with no output padding (`pad`: a (low, high) pair per axis)."""
    return C.transpose_geometry(sizes, kernel, stride, dilation, pad_mode, pad, (0,) * len(sizes), None)[1]


def _conv_transpose(nd, input, weight, bias, stride, padding, output_padding, groups, dilation):
    return conv_transpose(input, weight, bias, nd, stride, "pad", padding, output_padding, groups, dilation)


def conv_transpose1d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1) -> Tensor:
    """1-D transposed convolution (the gradient of conv1d with respect to its input).

    Args:
        input (Tensor): (N, C_in, L).
        weight (Tensor): (C_in, C_out / groups, K).
        bias (Tensor, optional): (C_out,).
        stride, padding, output_padding, groups, dilation: as in `conv_transpose2d`.

    Returns:
        Tensor (N, C_out, (L - 1) * stride - 2 * padding + dilation * (K - 1) + output_padding + 1).
    """
    return _conv_transpose(1, input, weight, bias, stride, padding, output_padding, groups, dilation)


def conv_transpose2d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1) -> Tensor:
    """2-D transposed convolution (the gradient of conv2d with respect to its input).

    Args:
        input (Tensor): (N, C_in, H, W).
        weight (Tensor): (C_in, C_out / groups, kH, kW).
        bias (Tensor, optional): (C_out,).
        stride (Union[int, tuple[int]]): stride of the matching forward convolution. Default: 1.
        padding (Union[int, tuple[int]]): padding of the matching forward convolution, removed from the output.
        output_padding (Union[int, tuple[int]]): extra size added to one side of the output. Default: 0.
        groups (int): number of channel groups. Default: 1.
        dilation (Union[int, tuple[int]]): spacing of kernel taps. Default: 1.

    Returns:
        Tensor (N, C_out, H_out, W_out) with H_out = (H - 1) * stride - 2 * padding + dilation * (kH - 1)
        + output_padding + 1.
    """
    return _conv_transpose(2, input, weight, bias, stride, padding, output_padding, groups, dilation)


def conv_transpose3d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1) -> Tensor:
    """3-D transposed convolution over (N, C_in, D, H, W); arguments as in `conv_transpose2d`.

    Returns:
        Tensor (N, C_out, D_out, H_out, W_out).
    """
    return _conv_transpose(3, input, weight, bias, stride, padding, output_padding, groups, dilation)
