"""Pooling layers: MaxPool1d/2d/3d, AvgPool1d/2d/3d and the adaptive pools (MindSpore 2.x defaults)."""

from __future__ import annotations

from kiln.nn.cell import Cell
from kiln.ops._args import check_non_negative, check_positive, ntuple, pad_mode_of, pad_pairs
from kiln.ops.nn.pooling import (  # noqa: I001
    adaptive_avg_pool1d,
    adaptive_avg_pool2d,
    adaptive_avg_pool3d,
    adaptive_max_pool1d,
    adaptive_max_pool2d,
    adaptive_max_pool3d,
    adaptive_output_size,
    avg_pool,
    max_pool,
)

__all__ = [
    "AdaptiveAvgPool1d", "AdaptiveAvgPool2d", "AdaptiveAvgPool3d", "AdaptiveMaxPool1d", "AdaptiveMaxPool2d",
    "AdaptiveMaxPool3d", "AvgPool1d", "AvgPool2d", "AvgPool3d", "MaxPool1d", "MaxPool2d", "MaxPool3d",
]  # fmt: skip


class _Pool(Cell):
    """Validated window attributes shared by the max and average pooling layers."""

    _nd = 2

    def _setup(self, kernel_size, stride, pad_mode, padding, ceil_mode) -> None:
        op, nd = type(self).__name__, self._nd
        self.kernel_size = ntuple(op, "kernel_size", kernel_size, nd)
        self.stride = ntuple(op, "stride", stride, nd)
        check_positive(op, "kernel_size", self.kernel_size)
        check_positive(op, "stride", self.stride)
        self.pad_mode = pad_mode_of(op, pad_mode)
        self.padding = padding
        self._pads = pad_pairs(op, padding, nd)
        check_non_negative(op, "padding", self._pads)
        self.ceil_mode = bool(ceil_mode)

    def extend_repr(self) -> str:
        shown = lambda t: t[0] if len(set(t)) == 1 else t
        s = f"kernel_size={shown(self.kernel_size)}, stride={shown(self.stride)}, pad_mode={self.pad_mode.upper()}"
        if self.pad_mode == "pad":
            s += f", padding={self.padding}, ceil_mode={self.ceil_mode}"
        return s


class _MaxPool(_Pool):
    def __init__(
        self, kernel_size=1, stride=1, pad_mode="valid", padding=0, dilation=1, return_indices=False, ceil_mode=False
    ) -> None:
        super().__init__()
        op = type(self).__name__
        self._setup(kernel_size, stride, pad_mode, padding, ceil_mode)
        self.dilation = ntuple(op, "dilation", dilation, self._nd)
        check_positive(op, "dilation", self.dilation)
        self.return_indices = bool(return_indices)
        default = not any(self._pads) and set(self.dilation) == {1} and not return_indices and not ceil_mode
        if self.pad_mode != "pad" and not default:
            raise ValueError(
                f"For '{op}', 'padding', 'dilation', 'return_indices' and 'ceil_mode' need pad_mode='pad', but got "
                f"pad_mode='{pad_mode}' with padding={padding!r}, dilation={dilation!r}, "
                f"return_indices={return_indices}, ceil_mode={ceil_mode}."
            )

    def construct(self, x):
        return max_pool(
            x,
            self._nd,
            self.kernel_size,
            self.stride,
            self.pad_mode,
            self._pads,
            self.dilation,
            self.ceil_mode,
            self.return_indices,
            "MaxPool3D" if self._nd == 3 else "MaxPool",
        )


class MaxPool1d(_MaxPool):
    """1-D max pooling over (N, C, L) or (C, L).

    Args:
        kernel_size (Union[int, tuple[int]]): window size. Default: 1.
        stride (Union[int, tuple[int]]): window step. Default: 1.
        pad_mode (str): 'valid', 'same' or 'pad'. Default: 'valid'.
        padding (Union[int, tuple[int]]): padding for pad_mode 'pad' (at most half the window). Default: 0.
        dilation (Union[int, tuple[int]]): tap spacing ('pad' mode). Default: 1.
        return_indices (bool): also return the flat index of each maximum ('pad' mode). Default: False.
        ceil_mode (bool): round the output size up ('pad' mode). Default: False.

    Inputs:
        x (Tensor): (N, C, L) or (C, L).

    Outputs:
        Tensor, or (Tensor, indices) when `return_indices`.
    """

    _nd = 1


class MaxPool2d(_MaxPool):
    """2-D max pooling over (N, C, H, W) or (C, H, W); arguments as in MaxPool1d, per spatial dim.

    Args:
        data_format (str): 'NCHW' only.
    """

    def __init__(
        self,
        kernel_size=1,
        stride=1,
        pad_mode="valid",
        padding=0,
        dilation=1,
        return_indices=False,
        ceil_mode=False,
        data_format="NCHW",
    ) -> None:
        if data_format != "NCHW":
            raise ValueError(f"For 'MaxPool2d', only data_format 'NCHW' is supported, but got '{data_format}'.")
        super().__init__(kernel_size, stride, pad_mode, padding, dilation, return_indices, ceil_mode)
        self.data_format = data_format


class MaxPool3d(_MaxPool):
    """3-D max pooling over (N, C, D, H, W) or (C, D, H, W); arguments as in MaxPool1d, per spatial dim."""

    _nd = 3


class _AvgPool(_Pool):
    def __init__(
        self,
        kernel_size=1,
        stride=1,
        pad_mode="valid",
        padding=0,
        ceil_mode=False,
        count_include_pad=True,
        divisor_override=None,
    ) -> None:
        super().__init__()
        op = type(self).__name__
        self._setup(kernel_size, stride, pad_mode, padding, ceil_mode)
        if self.pad_mode != "pad" and any(self._pads):
            raise ValueError(f"For '{op}', 'padding' must be 0 unless pad_mode is 'pad', but got {padding!r}.")
        if divisor_override is not None and (not isinstance(divisor_override, int) or divisor_override < 0):
            raise ValueError(
                f"For '{op}', 'divisor_override' must be a non-negative int, but got {divisor_override!r}."
            )
        self.count_include_pad = bool(count_include_pad)
        self.divisor_override = divisor_override or 0

    def construct(self, x):
        return avg_pool(
            x,
            self._nd,
            self.kernel_size,
            self.stride,
            self.pad_mode,
            self._pads,
            self.ceil_mode,
            self.count_include_pad,
            self.divisor_override,
            "AvgPool3D" if self._nd == 3 else "AvgPool",
        )


class AvgPool1d(_AvgPool):
    """1-D average pooling over (N, C, L) or (C, L).

    Args:
        kernel_size (Union[int, tuple[int]]): window size. Default: 1.
        stride (Union[int, tuple[int]]): window step. Default: 1.
        pad_mode (str): 'valid', 'same' (padding never counted) or 'pad'. Default: 'valid'.
        padding (Union[int, tuple[int]]): padding for pad_mode 'pad'. Default: 0.
        ceil_mode (bool): round the output size up. Default: False.
        count_include_pad (bool): count explicit padding in the divisor. Default: True.

    Inputs:
        x (Tensor): (N, C, L) or (C, L).

    Outputs:
        Tensor (N, C, L_out).
    """

    _nd = 1

    def __init__(
        self, kernel_size=1, stride=1, pad_mode="valid", padding=0, ceil_mode=False, count_include_pad=True
    ) -> None:
        super().__init__(kernel_size, stride, pad_mode, padding, ceil_mode, count_include_pad)


class AvgPool2d(_AvgPool):
    """2-D average pooling over (N, C, H, W) or (C, H, W); arguments as in AvgPool1d, per spatial dim.

    Args:
        divisor_override (int, optional): divide by this instead of the window size.
        data_format (str): 'NCHW' only.
    """

    def __init__(
        self,
        kernel_size=1,
        stride=1,
        pad_mode="valid",
        padding=0,
        ceil_mode=False,
        count_include_pad=True,
        divisor_override=None,
        data_format="NCHW",
    ) -> None:
        if data_format != "NCHW":
            raise ValueError(f"For 'AvgPool2d', only data_format 'NCHW' is supported, but got '{data_format}'.")
        super().__init__(kernel_size, stride, pad_mode, padding, ceil_mode, count_include_pad, divisor_override)
        self.data_format = data_format


class AvgPool3d(_AvgPool):
    """3-D average pooling over (N, C, D, H, W) or (C, D, H, W); arguments as in AvgPool2d."""

    _nd = 3


class _Adaptive(Cell):
    _nd = 2
    _fn = None

    def __init__(self, output_size, return_indices: bool = False) -> None:
        super().__init__()
        self.output_size = adaptive_output_size(type(self).__name__, output_size, self._nd)
        self.return_indices = return_indices

    def extend_repr(self) -> str:
        return f"output_size={self.output_size}"


class AdaptiveAvgPool1d(_Adaptive):
    """Average over L bins [floor(i * L / out), ceil((i + 1) * L / out)) of (N, C, L) or (C, L).

    Args:
        output_size (int): number of bins.
    """

    _nd = 1

    def construct(self, x):
        return adaptive_avg_pool1d(x, self.output_size)


class AdaptiveAvgPool2d(_Adaptive):
    """Adaptive average pooling of (N, C, H, W) or (C, H, W).

    Args:
        output_size (Union[int, tuple]): (out_H, out_W); None keeps that input size.
    """

    def construct(self, x):
        return adaptive_avg_pool2d(x, self.output_size)


class AdaptiveAvgPool3d(_Adaptive):
    """Adaptive average pooling of (N, C, D, H, W) or (C, D, H, W); see AdaptiveAvgPool2d."""

    _nd = 3

    def construct(self, x):
        return adaptive_avg_pool3d(x, self.output_size)


class AdaptiveMaxPool1d(_Adaptive):
    """Adaptive max pooling of (N, C, L) or (C, L).

    Args:
        output_size (int): number of bins.
    """

    _nd = 1

    def __init__(self, output_size) -> None:
        super().__init__(output_size)

    def construct(self, x):
        return adaptive_max_pool1d(x, self.output_size)


class AdaptiveMaxPool2d(_Adaptive):
    """Adaptive max pooling of (N, C, H, W) or (C, H, W).

    Args:
        output_size (Union[int, tuple]): (out_H, out_W); None keeps that input size.
        return_indices (bool): also return the flat H * W index of each maximum. Default: False.
    """

    def construct(self, x):
        return adaptive_max_pool2d(x, self.output_size, self.return_indices)


class AdaptiveMaxPool3d(_Adaptive):
    """Adaptive max pooling of (N, C, D, H, W) or (C, D, H, W); see AdaptiveMaxPool2d."""

    _nd = 3

    def construct(self, x):
        return adaptive_max_pool3d(x, self.output_size, self.return_indices)
