"""The custom rows: gather, gather_elements and conv2d, whose functional face is an argument adapter written here
over its primitive, with their mint faces and Conv2D's Primitive base class."""

from __future__ import annotations

from kiln._core.tensor import Tensor
from kiln._prims import array as prims_array
from kiln._prims.nn import conv as prims_conv
from kiln.ops._args import check_non_negative, check_positive, conv_attrs, ntuple, pad_mode_of, pad_pairs, split_padding
from kiln.ops._helpers import apply, op_error
from kiln.ops.faces.row import Row
from kiln.ops.primitive import Primitive

__all__ = ["CUSTOM_ROWS", "ConvPrimitive"]


def gather(input_params, input_indices, axis: int, batch_dims: int = 0) -> Tensor:
    """Take slices of `input_params` along `axis` at `input_indices`.

    Args:
        input_params (Tensor): the source.
        input_indices (Tensor): int indices into `axis` (checked against its size).
        axis (int): the axis to index.
        batch_dims (int): leading dimensions shared by the source and the indices. Default: 0.

    Returns:
        Tensor of shape params.shape[:axis] + indices.shape[batch_dims:] + params.shape[axis + 1:].
    """
    return apply(prims_array.Gather, (input_params, input_indices), (axis, batch_dims))


def gather_elements(input, dim: int, index) -> Tensor:
    """out[i][j] = input[index[i][j]][j] for dim 0 (and likewise for other dims).

    Args:
        input (Tensor): the source.
        dim (int): the axis `index` addresses.
        index (Tensor): int indices, of input's rank.

    Returns:
        Tensor of index's shape.
    """
    return apply(prims_array.GatherD, (input, index), (dim,))


def _mint_gather(input, dim: int, index) -> Tensor:
    """out[i][j] = input[index[i][j]][j] (dim 0), and so on: PyTorch's gather."""
    return gather_elements(input, dim, index)


_mint_gather.__name__ = _mint_gather.__qualname__ = "gather"


def conv2d(
    input, weight, bias=None, stride=1, pad_mode="valid", padding=0, dilation=1, groups=1, *, data_format="NCHW"
) -> Tensor:
    """2-D convolution over (N, C_in, H, W).

    Args:
        input (Tensor): (N, C_in, H, W) (or (N, H, W, C_in) with data_format 'NHWC').
        weight (Tensor): (C_out, C_in / groups, kH, kW).
        bias (Tensor, optional): (C_out,).
        stride (Union[int, tuple[int]]): step of the window. Default: 1.
        pad_mode (str): 'valid', 'same' or 'pad'. Default: 'valid'.
        padding (Union[int, tuple[int]]): for pad_mode 'pad': one value, (pad_h, pad_w) or
            (top, bottom, left, right). A string 'same' / 'valid' sets pad_mode.
        dilation (Union[int, tuple[int]]): spacing of kernel taps. Default: 1.
        groups (int): number of channel groups. Default: 1.
        data_format (str): 'NCHW' or 'NHWC' (keyword only).

    Returns:
        Tensor of shape (N, C_out, H_out, W_out).
    """
    attrs = conv_attrs("Conv2D", 2, stride, pad_mode, padding, dilation, groups, data_format)
    return apply(prims_conv.Conv2D, (input, weight, bias), attrs)


def _mint_conv2d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups: int = 1) -> Tensor:
    """2-D convolution over (N, C, H, W) (padding: an int, (pad_h, pad_w), 'same' or 'valid')."""
    mode, pad = split_padding(padding)
    return conv2d(input, weight, bias, stride, mode, pad, dilation, groups)


_mint_conv2d.__name__ = _mint_conv2d.__qualname__ = "conv2d"


class ConvPrimitive(Primitive):
    """Base of `ops.Conv2D` / `ops.Conv3D`: hand-written because MindSpore checks and normalises the constructor's
    attributes (kernel, stride, padding, ...) when the primitive is built, before any call."""

    _nd = 2
    _prim = prims_conv.Conv2D

    def __init__(
        self,
        out_channel: int,
        kernel_size,
        mode: int = 1,
        pad_mode: str = "valid",
        pad=0,
        stride=1,
        dilation=1,
        group: int = 1,
        data_format: str | None = None,
    ) -> None:
        super().__init__()
        nd, name = self._nd, self.name
        kernel = ntuple(name, "kernel_size", kernel_size, nd)
        check_positive(name, "kernel_size", kernel)
        check_positive(name, "out_channel", (out_channel,))
        stride_t, dilation_t = ntuple(name, "stride", stride, nd), ntuple(name, "dilation", dilation, nd)
        check_positive(name, "stride", stride_t)
        check_positive(name, "dilation", dilation_t)
        check_positive(name, "group", (group,))
        pads = pad_pairs(name, pad, nd)
        check_non_negative(name, "pad", pads)
        mode_ = pad_mode_of(name, pad_mode)
        if mode_ != "pad" and any(pads):
            raise op_error(name, f"'pad' must be zero unless pad_mode is 'pad', but got pad={pad!r}.")
        data_format = data_format or ("NCDHW" if nd == 3 else "NCHW")
        attrs = {"out_channel": out_channel, "kernel_size": kernel, "mode": mode, "pad_mode": mode_, "pad": pads,
                 "stride": stride_t, "dilation": dilation_t, "group": group, "data_format": data_format}  # fmt: skip
        for k, v in attrs.items():
            self.add_prim_attr(k, v)
        self._attrs = (stride_t, mode_, pads, dilation_t, group, data_format)

    def __call__(self, x, weight):
        if weight.shape[0] != self.out_channel:
            raise op_error(
                self.name,
                f"'weight' must have out_channel={self.out_channel} rows, but got shape {list(weight.shape)}.",
            )
        return apply(self._prim, (x, weight, None), self._attrs)


# The custom rows: the functional face is the row's `impl` over its primitive
CUSTOM_ROWS: list[Row] = [
    Row("Gather", "custom", ("gather",), impl=gather, classes={"Gather": "gather"}, methods={"gather": "gather"}),
    Row(
        "GatherD",
        "custom",
        ("gather_elements", "gather_d"),
        impl=gather_elements,
        classes={"GatherD": "gather_elements"},
        methods={"gather_elements": "gather_elements"},
        mint_impl={"gather": _mint_gather},
    ),
    Row(
        "Conv2D",
        "custom",
        ("conv2d",),
        impl=conv2d,
        classes={"Conv2D": "conv2d"},
        cls_base=ConvPrimitive,
        mint_impl={"conv2d": _mint_conv2d},
    ),
]
