"""Convolution layers: Conv1d/2d/3d and Conv1d/2d/3dTranspose (MindSpore 2.x constructors and defaults).

Weights follow MindSpore's layouts so checkpoints load unchanged: (C_out, C_in / group, *k)
for convolutions, (C_in, C_out / group, *k) for transposed ones, and the 1-D layers keep
MindSpore's extra unit axis, (.., 1, K).
"""

from __future__ import annotations

import math
import numbers

from kiln import ops
from kiln._core import dtype as mstype
from kiln._core.tensor import Parameter, Tensor
from kiln.common.initializer import HeUniform, Initializer, Uniform, initializer
from kiln.nn._checks import positive_int
from kiln.nn.cell import Cell
from kiln.nn.layer._bias import bias_of
from kiln.nn.layer._held import hold, hold_idle, touched
from kiln.ops._args import check_non_negative, check_positive, ntuple, pad_mode_of, pad_pairs
from kiln.ops.nn.conv import conv_transpose, transposed_sizes

__all__ = ["Conv1d", "Conv1dTranspose", "Conv2d", "Conv2dTranspose", "Conv3d", "Conv3dTranspose"]


def _init_repr(init) -> str:
    if init is None or isinstance(init, (str, numbers.Number)):
        return repr(init)
    return type(init).__name__ if isinstance(init, Initializer) else f"Tensor{list(init.shape)}"


def _arguments(init_locals: dict) -> dict:
    """A public layer's constructor arguments (its `locals()`), passed on to the N-d base by keyword."""
    return {k: v for k, v in init_locals.items() if k not in ("self", "__class__")}


def _check_input_3d(input_shape, op_name: str) -> None:
    """Raise ValueError unless `input_shape` has three dimensions (N, C, L). Private in MindSpore too; a zoo layer
    (SPADE's spectral norm) imports it."""
    if len(input_shape) != 3:
        raise ValueError(f"{op_name} takes a 3-D input (N, C, L), but got shape {tuple(input_shape)}.")


class _Conv(Cell):
    """Shared construction of the convolution layers."""

    _nd = 2
    _transposed = False

    def __init__(
        self,
        in_channels: int,
        out_channels: int,
        kernel_size,
        stride=1,
        pad_mode: str = "same",
        padding=0,
        dilation=1,
        group: int = 1,
        has_bias: bool = False,
        weight_init=None,
        bias_init=None,
        data_format: str = "NCHW",
        dtype=mstype.float32,
        output_padding=0,
    ) -> None:
        super().__init__()
        op, nd = type(self).__name__, self._nd
        self.in_channels = positive_int(op, "in_channels", in_channels)
        self.out_channels = positive_int(op, "out_channels", out_channels)
        self.kernel_size = ntuple(op, "kernel_size", kernel_size, nd)
        self.stride = ntuple(op, "stride", stride, nd)
        self.dilation = ntuple(op, "dilation", dilation, nd)
        for name, value in (("kernel_size", self.kernel_size), ("stride", self.stride), ("dilation", self.dilation)):
            check_positive(op, name, value)
        self.pad_mode = pad_mode_of(op, pad_mode)
        self.padding = padding if isinstance(padding, int) else tuple(padding)
        pads = pad_pairs(op, self.padding, nd)
        check_non_negative(op, "padding", pads)
        if self.pad_mode != "pad" and any(pads):
            raise ValueError(f"For '{op}', 'padding' must be 0 unless pad_mode is 'pad', but got {padding!r}.")
        self.output_padding = ntuple(op, "output_padding", output_padding, nd)
        check_non_negative(op, "output_padding", self.output_padding)
        if any(self.output_padding) and self.pad_mode != "pad":
            raise ValueError(
                f"For '{op}', 'output_padding' must be 0 unless pad_mode is 'pad', but got {output_padding!r}."
            )
        self.group = positive_int(op, "group", group)
        if self.in_channels % self.group or self.out_channels % self.group:
            raise ValueError(
                f"For '{op}', 'group' must divide both in_channels and out_channels, but got group={group}, "
                f"in_channels={in_channels}, out_channels={out_channels}."
            )
        if not isinstance(has_bias, bool):
            raise TypeError(f"For '{op}', 'has_bias' must be a bool, but got {type(has_bias).__name__}.")
        self.has_bias = has_bias
        self.data_format = data_format
        shape = self._weight_shape()
        if isinstance(weight_init, Tensor) and self._nd == 1:
            # MindSpore's 1-D convolutions take a Tensor weight_init of the 3-D shape (out, in, k) (transposed: in,
            # out, k) and expand it to their 4-D weight (out, in, 1, k); a 4-D Tensor is refused.
            if weight_init.ndim != 3:
                raise ValueError(
                    f"For '{op}', 'weight_init' must be a 3-D Tensor (its weight of shape {list(shape)} without the "
                    f"axis of length 1), but got shape {list(weight_init.shape)}."
                )
            weight_init = weight_init.expand_dims(2)
        if isinstance(weight_init, Tensor) and tuple(weight_init.shape) != shape:
            raise ValueError(
                f"For '{op}', 'weight_init' must have shape {list(shape)}, but got {list(weight_init.shape)}."
            )
        self.weight_init = HeUniform(negative_slope=math.sqrt(5)) if weight_init is None else weight_init
        self.weight = Parameter(initializer(self.weight_init, shape, dtype), name="weight")
        self.bias_init = None
        if has_bias:
            fan_in = shape[1] * math.prod(shape[2:])
            self.bias_init = Uniform(1 / math.sqrt(fan_in)) if bias_init is None else bias_init
            self.bias = Parameter(initializer(self.bias_init, [self.out_channels], dtype), name="bias")
        else:
            self.bias = None
        self._hold_primitives(pads)

    def _hold_primitives(self, pads: tuple) -> None:
        """Hold MindSpore's primitives of this layer (`conv2d`, `bias_add`, ...); see kiln/nn/layer/_held.py."""

    def _add_bias(self, y):
        return self.bias_add(y, self.bias) if self.has_bias else y

    def _weight_shape(self) -> tuple:
        kernel = (1, *self.kernel_size) if self._nd == 1 else self.kernel_size  # MindSpore's 1-D layout
        if self._transposed:
            return (self.in_channels, self.out_channels // self.group, *kernel)
        return (self.out_channels, self.in_channels // self.group, *kernel)

    def extend_repr(self) -> str:
        s = (
            f"in_channels={self.in_channels}, out_channels={self.out_channels}, "
            f"kernel_size={self.kernel_size}, stride={self.stride}, pad_mode={self.pad_mode}, "
            f"padding={self.padding}, dilation={self.dilation}, group={self.group}, has_bias={self.has_bias}, "
            f"weight_init={_init_repr(self.weight_init)}, bias_init={_init_repr(self.bias_init)}"
        )
        if self._transposed and any(self.output_padding):
            s += f", output_padding={self.output_padding}"
        return s + f", format={self.data_format}"


class Conv1d(_Conv):
    """1-D convolution over (N, C_in, L).

    Args:
        in_channels (int): input channels.
        out_channels (int): output channels.
        kernel_size (Union[int, tuple[int]]): kernel length.
        stride (Union[int, tuple[int]]): window step. Default: 1.
        pad_mode (str): 'same' (output ceil(L / stride)), 'valid' or 'pad'. Default: 'same'.
        padding (Union[int, tuple[int]]): explicit padding for pad_mode 'pad'. Default: 0.
        dilation (Union[int, tuple[int]]): tap spacing. Default: 1.
        group (int): channel groups; must divide both channel counts. Default: 1.
        has_bias (bool): add a bias. Default: False.
        weight_init: initializer of the (C_out, C_in / group, 1, K) weight. Default: HeUniform(sqrt(5)).
        bias_init: initializer of the (C_out,) bias. Default: Uniform(1 / sqrt(fan_in)).
        dtype (mindspore.dtype): parameter dtype. Default: float32.

    Inputs:
        x (Tensor): (N, C_in, L).

    Outputs:
        Tensor (N, C_out, L_out).
    """

    _nd = 1

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, pad_mode="same",
                 padding=0, dilation=1, group=1, has_bias=False, weight_init=None, bias_init=None,
                 dtype=mstype.float32) -> None:  # fmt: skip
        super().__init__(**_arguments(locals()))

    def _hold_primitives(self, pads: tuple) -> None:
        # MindSpore's Conv1d runs a 2-D convolution over (N, C, 1, L)
        conv = ops.Conv2D(self.out_channels, (1, *self.kernel_size), 1, self.pad_mode, (0, 0, *pads),
                          (1, *self.stride), (1, *self.dilation), self.group)  # fmt: skip
        hold(self, conv2d=conv, bias_add=ops.BiasAdd(), expand_dims=ops.ExpandDims(), squeeze=ops.Squeeze(2),
             shape=ops.Shape())  # fmt: skip

    def construct(self, x):
        if touched(self):  # a held primitive sharded or replaced: MindSpore's sequence
            return self._add_bias(self.squeeze(self.conv2d(self.expand_dims(x, 2), self.weight)))
        bias, apart = bias_of(self)
        y = ops.conv1d(x, self.weight, bias, self.stride, self.pad_mode, self.padding, self.dilation, self.group)
        return ops.bias_add(y, self.bias) if apart else y


class Conv2d(_Conv):
    """2-D convolution over (N, C_in, H, W).

    Args:
        in_channels (int): input channels.
        out_channels (int): output channels.
        kernel_size (Union[int, tuple[int]]): kernel (height, width).
        stride (Union[int, tuple[int]]): window step. Default: 1.
        pad_mode (str): 'same' (output ceil(size / stride)), 'valid' or 'pad'. Default: 'same'.
        padding (Union[int, tuple[int]]): for pad_mode 'pad': one value, (pad_h, pad_w) or
            (top, bottom, left, right). Default: 0.
        dilation (Union[int, tuple[int]]): tap spacing. Default: 1.
        group (int): channel groups; must divide both channel counts. Default: 1.
        has_bias (bool): add a bias. Default: False.
        weight_init: initializer of the (C_out, C_in / group, kH, kW) weight. Default: HeUniform(sqrt(5)).
        bias_init: initializer of the (C_out,) bias. Default: Uniform(1 / sqrt(fan_in)).
        data_format (str): 'NCHW' or 'NHWC'. Default: 'NCHW'.
        dtype (mindspore.dtype): parameter dtype. Default: float32.

    Inputs:
        x (Tensor): (N, C_in, H, W).

    Outputs:
        Tensor (N, C_out, H_out, W_out).
    """

    def _hold_primitives(self, pads: tuple) -> None:
        conv = ops.Conv2D(self.out_channels, self.kernel_size, 1, self.pad_mode, pads, self.stride, self.dilation,
                          self.group, self.data_format)  # fmt: skip
        hold(self, conv2d=conv, bias_add=ops.BiasAdd(self.data_format))

    def construct(self, x):
        if touched(self):  # a held primitive sharded or replaced: MindSpore's sequence
            return self._add_bias(self.conv2d(x, self.weight))
        bias, apart = bias_of(self)
        y = ops.conv2d(
            x,
            self.weight,
            bias,
            self.stride,
            self.pad_mode,
            self.padding,
            self.dilation,
            self.group,
            data_format=self.data_format,
        )
        return ops.bias_add(y, self.bias, self.data_format) if apart else y


class Conv3d(_Conv):
    """3-D convolution over (N, C_in, D, H, W); arguments as in Conv2d (padding: 1, 3 or 6 values).

    Inputs:
        x (Tensor): (N, C_in, D, H, W).

    Outputs:
        Tensor (N, C_out, D_out, H_out, W_out).
    """

    _nd = 3

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, pad_mode="same",
                 padding=0, dilation=1, group=1, has_bias=False, weight_init=None, bias_init=None,
                 data_format="NCDHW", dtype=mstype.float32) -> None:  # fmt: skip
        super().__init__(**_arguments(locals()))

    def _hold_primitives(self, pads: tuple) -> None:
        conv = ops.Conv3D(self.out_channels, self.kernel_size, 1, self.pad_mode, pads, self.stride, self.dilation,
                          self.group, self.data_format)  # fmt: skip
        hold(self, conv3d=conv, bias_add=ops.BiasAdd(), shape=ops.Shape())
        why = "MindSpore splits a grouped 3-D convolution with them; Kiln's Conv3D takes the groups itself"
        hold_idle(self, why, concat=ops.Concat(1), split_0=ops.Split(1, self.group), split_1=ops.Split(0, self.group))

    def construct(self, x):
        if touched(self):  # a held primitive sharded or replaced: MindSpore's sequence
            return self._add_bias(self.conv3d(x, self.weight))
        bias, apart = bias_of(self)
        y = ops.conv3d(x, self.weight, bias, self.stride, self.pad_mode, self.padding, self.dilation, self.group)
        return ops.bias_add(y, self.bias) if apart else y


class _ConvTranspose(_Conv):
    _transposed = True
    _zero_output_padding = False  # MindSpore's Conv2dTranspose pads the output with zeros instead

    def construct(self, x):
        if touched(self):  # a held primitive sharded or replaced: MindSpore's sequence
            return self._held_construct(x)
        zero_pad = self._zero_output_padding and any(self.output_padding)
        out_pad = (0,) * self._nd if zero_pad else self.output_padding
        bias, apart = bias_of(self)
        y = conv_transpose(
            x, self.weight, bias, self._nd, self.stride, self.pad_mode, self.padding, out_pad, self.group,
            self.dilation,
        )  # fmt: skip
        if zero_pad:
            y = ops.pad(y, tuple(v for p in reversed(self.output_padding) for v in (0, p)))
        return ops.bias_add(y, self.bias) if apart else y


class Conv1dTranspose(_ConvTranspose):
    """1-D transposed convolution over (N, C_in, L).

    Output length: L * stride for 'same', (L - 1) * stride + dilation * (K - 1) + 1 for 'valid', and that
    minus the two paddings for 'pad'. Weight (C_in, C_out / group, 1, K); other arguments as in Conv1d.
    """

    _nd = 1

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, pad_mode="same",
                 padding=0, dilation=1, group=1, has_bias=False, weight_init=None, bias_init=None,
                 dtype=mstype.float32) -> None:  # fmt: skip
        super().__init__(**_arguments(locals()))

    def _hold_primitives(self, pads: tuple) -> None:
        # MindSpore's Conv1dTranspose runs a 2-D transposed convolution (Conv2DBackpropInput, the name its layer
        # uses) over (N, C, 1, L); its out_channel is the forward convolution's, this layer's in_channels
        conv = ops.Conv2DBackpropInput(self.in_channels, (1, *self.kernel_size), self.pad_mode, (0, 0, *pads), None,
                                       1, (1, *self.stride), (1, *self.dilation), self.group)  # fmt: skip
        hold(self, conv2d_transpose=conv, bias_add=ops.BiasAdd(), expand_dims=ops.ExpandDims(), squeeze=ops.Squeeze(2),
             shape=ops.Shape())  # fmt: skip
        self._pads = pads

    def _held_construct(self, x):
        n, _, length = self.shape(x)
        sizes = transposed_sizes((length,), self.kernel_size, self.stride, self.dilation, self.pad_mode, self._pads)
        y = self.conv2d_transpose(self.expand_dims(x, 2), self.weight, (n, self.out_channels, 1, *sizes))
        return self._add_bias(self.squeeze(y))


class Conv2dTranspose(_ConvTranspose):
    """2-D transposed convolution over (N, C_in, H, W) (the gradient of Conv2d with respect to its input).

    As in MindSpore, `output_padding` appends zero rows / columns at the bottom / right of the result
    (the functional `ops.conv_transpose2d` instead computes those positions, as PyTorch does).

    Args:
        in_channels, out_channels (int): channels of the input and of the output.
        kernel_size, stride, dilation (Union[int, tuple[int]]): as in Conv2d.
        pad_mode (str): 'same' (output size * stride), 'valid' or 'pad'. Default: 'same'.
        padding (Union[int, tuple[int]]): removed from the output for pad_mode 'pad'. Default: 0.
        output_padding (Union[int, tuple[int]]): extra output size at the end (pad_mode 'pad'). Default: 0.
        group (int): channel groups. Default: 1.
        has_bias (bool): add a bias. Default: False.
        weight_init, bias_init: initializers of the (C_in, C_out / group, kH, kW) weight and (C_out,) bias.
        dtype (mindspore.dtype): parameter dtype. Default: float32.

    Inputs:
        x (Tensor): (N, C_in, H, W).

    Outputs:
        Tensor (N, C_out, H_out, W_out).
    """

    _zero_output_padding = True

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, pad_mode="same",
                 padding=0, output_padding=0, dilation=1, group=1, has_bias=False,
                 weight_init=None, bias_init=None, dtype=mstype.float32) -> None:  # fmt: skip
        super().__init__(**_arguments(locals()))

    def _hold_primitives(self, pads: tuple) -> None:
        # its out_channel is the forward convolution's, i.e. this layer's in_channels (as MindSpore's layer builds it)
        conv = ops.Conv2DTranspose(self.in_channels, self.kernel_size, self.pad_mode, pads, None, 1, self.stride,
                                   self.dilation, self.group)  # fmt: skip
        hold(self, conv2d_transpose=conv, bias_add=ops.BiasAdd(), shape=ops.Shape())
        self._pads = pads

    def _held_construct(self, x):
        n, _, h, w = self.shape(x)
        sizes = transposed_sizes((h, w), self.kernel_size, self.stride, self.dilation, self.pad_mode, self._pads)
        y = self._add_bias(self.conv2d_transpose(x, self.weight, (n, self.out_channels, *sizes)))
        if any(self.output_padding):
            y = ops.pad(y, tuple(v for p in reversed(self.output_padding) for v in (0, p)))
        return y


class Conv3dTranspose(_ConvTranspose):
    """3-D transposed convolution over (N, C_in, D, H, W); arguments as in Conv2dTranspose."""

    _nd = 3

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, pad_mode="same",
                 padding=0, dilation=1, group=1, output_padding=0, has_bias=False,
                 weight_init=None, bias_init=None, data_format="NCDHW", dtype=mstype.float32) -> None:  # fmt: skip
        super().__init__(**_arguments(locals()))

    def _hold_primitives(self, pads: tuple) -> None:
        conv = ops.Conv3DTranspose(self.in_channels, self.out_channels, self.kernel_size, 1, self.pad_mode, pads,
                                   self.stride, self.dilation, self.group, self.output_padding)  # fmt: skip
        hold(self, conv3d_transpose=conv, bias_add=ops.BiasAdd(), shape=ops.Shape())

    def _held_construct(self, x):
        return self._add_bias(self.conv3d_transpose(x, self.weight))
