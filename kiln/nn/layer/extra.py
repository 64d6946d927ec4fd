"""More of MindSpore's layers, each the Cell face of existing functional ops: padding, pixel and channel
shuffles, channel dropout, LP pooling, max unpooling, GLU, Threshold, Softmax2d, BiDense, Linear, InstanceNorm,
and the small math Cells (MatMul, Norm, OneHot, Roll, Tril, Triu, Range, ReduceLogSumExp, Moments, ...)."""

from __future__ import annotations

import math as _math

from kiln import ops
from kiln._core import dtype as mstype
from kiln._core.tensor import Parameter, Tensor
from kiln.common.initializer import Uniform, initializer
from kiln.nn.cell import Cell
from kiln.nn.layer.dense import Dense

__all__ = [
    "BiDense", "ChannelShuffle", "ConstantPad1d", "ConstantPad2d", "ConstantPad3d", "Dropout1d", "Dropout2d",
    "Dropout3d", "EmbeddingLookup", "FastGelu", "GLU", "InstanceNorm1d", "InstanceNorm2d", "InstanceNorm3d",
    "L1Regularizer",
    "LPPool1d", "LPPool2d", "Linear", "MatMul", "MaxUnpool1d", "MaxUnpool2d", "MaxUnpool3d", "Moments", "Norm",
    "OneHot", "Pad", "PixelShuffle", "PixelUnshuffle", "Range", "ReduceLogSumExp", "ReflectionPad1d", "ReflectionPad2d",
    "ReflectionPad3d", "ReplicationPad1d", "ReplicationPad2d", "ReplicationPad3d", "Roll", "Softmax2d", "Threshold",
    "Tril", "Triu", "ZeroPad2d",
]  # fmt: skip


# ---- padding -----------------------------------------------------------------------------------------------------


class _Pad(Cell):
    _dims = 1
    _mode = "constant"

    def __init__(self, padding, value=0.0) -> None:
        super().__init__()
        name = type(self).__name__
        if isinstance(padding, int) and not isinstance(padding, bool):
            padding = (padding,) * (2 * self._dims)
        if not isinstance(padding, (tuple, list)):
            raise TypeError(f"For '{name}', 'padding' must be an int or a tuple of ints, but got {padding!r}.")
        if len(padding) % 2 != 0:  # (left, right) pairs from the last axis backwards, as many as given
            raise ValueError(f"For '{name}', the length of 'padding' must be even, but got {len(padding)}.")
        if any(not isinstance(p, int) or isinstance(p, bool) for p in padding):
            raise TypeError(f"For '{name}', the elements of 'padding' must be ints, but got {padding!r}.")
        if self._mode != "constant" and any(p < 0 for p in padding):
            raise ValueError(f"For '{name}', the elements of 'padding' must be >= 0, but got {padding!r}.")
        self.padding = tuple(padding)
        self.value = value

    def construct(self, x):
        if len(self.padding) > 2 * x.ndim:
            raise ValueError(f"For '{type(self).__name__}', 'padding' pads {len(self.padding) // 2} axes of a "
                             f"{x.ndim}-D input.")  # fmt: skip
        if self._mode == "constant":
            return ops.pad(x, self.padding, "constant", self.value)
        return ops.pad(x, self.padding, self._mode)


def _pad_class(name: str, dims: int, mode: str, doc: str):
    cls = type(name, (_Pad,), {"_dims": dims, "_mode": mode, "__doc__": doc})
    if mode != "constant":
        cls.__init__ = lambda self, padding: _Pad.__init__(self, padding)
    return cls


ReflectionPad1d = _pad_class("ReflectionPad1d", 1, "reflect", "Reflect the last axis by padding (left, right).")
ReflectionPad2d = _pad_class("ReflectionPad2d", 2, "reflect", "Reflect the last two axes (left, right, top, bottom).")
ReflectionPad3d = _pad_class("ReflectionPad3d", 3, "reflect", "Reflect the last three axes.")
ReplicationPad1d = _pad_class("ReplicationPad1d", 1, "replicate", "Repeat the edge of the last axis.")
ReplicationPad2d = _pad_class("ReplicationPad2d", 2, "replicate", "Repeat the edges of the last two axes.")
ReplicationPad3d = _pad_class("ReplicationPad3d", 3, "replicate", "Repeat the edges of the last three axes.")
ConstantPad1d = _pad_class("ConstantPad1d", 1, "constant", "Pad the last axis with `value`.")
ConstantPad2d = _pad_class("ConstantPad2d", 2, "constant", "Pad the last two axes with `value`.")
ConstantPad3d = _pad_class("ConstantPad3d", 3, "constant", "Pad the last three axes with `value`.")


class ZeroPad2d(_Pad):
    """Pad the last two axes with zeros (left, right, top, bottom)."""

    _dims = 2

    def __init__(self, padding) -> None:
        super().__init__(padding, 0.0)


# ---- reshuffles, dropout, pooling -------------------------------------------------------------------------------


class PixelShuffle(Cell):
    """(*, C r^2, H, W) -> (*, C, H r, W r)."""

    def __init__(self, upscale_factor) -> None:
        super().__init__()
        self.upscale_factor = upscale_factor

    def construct(self, input):
        return ops.pixel_shuffle(input, self.upscale_factor)


class PixelUnshuffle(Cell):
    """(*, C, H r, W r) -> (*, C r^2, H, W)."""

    def __init__(self, downscale_factor) -> None:
        super().__init__()
        self.downscale_factor = downscale_factor

    def construct(self, input):
        return ops.pixel_unshuffle(input, self.downscale_factor)


class ChannelShuffle(Cell):
    """Interleave the channels of `groups` groups."""

    def __init__(self, groups) -> None:
        super().__init__()
        if not isinstance(groups, int) or isinstance(groups, bool) or groups < 1:
            raise ValueError(f"For 'ChannelShuffle', 'groups' must be a positive int, but got {groups!r}.")
        self.groups = groups

    def construct(self, x):
        return ops.channel_shuffle(x, self.groups)


class _ChannelDropout(Cell):
    _fn = None

    def __init__(self, p=0.5) -> None:
        super().__init__()
        if not isinstance(p, (int, float)) or isinstance(p, bool) or not 0 <= p <= 1:
            raise ValueError(f"For '{type(self).__name__}', 'p' must be a number in [0, 1], but got {p!r}.")
        self.p = float(p)

    def construct(self, x):
        if not self.training or self.p == 0:
            return x
        return type(self)._fn(x, self.p, True)


class Dropout1d(_ChannelDropout):
    """Zero whole channels of (N, C, L) during training with probability `p`."""

    _fn = staticmethod(ops.dropout1d)


class Dropout2d(_ChannelDropout):
    """Zero whole channels of (N, C, H, W) during training with probability `p`."""

    _fn = staticmethod(ops.dropout2d)


class Dropout3d(_ChannelDropout):
    """Zero whole channels of (N, C, D, H, W) during training with probability `p`."""

    _fn = staticmethod(ops.dropout3d)


class LPPool1d(Cell):
    """Power-average pooling over the last axis."""

    def __init__(self, norm_type, kernel_size, stride=None, ceil_mode=False) -> None:
        super().__init__()
        self.norm_type, self.kernel_size, self.stride, self.ceil_mode = norm_type, kernel_size, stride, ceil_mode

    def construct(self, x):
        return ops.lp_pool1d(x, self.norm_type, self.kernel_size, self.stride, self.ceil_mode)


class LPPool2d(LPPool1d):
    """Power-average pooling over the last two axes."""

    def construct(self, x):
        return ops.lp_pool2d(x, self.norm_type, self.kernel_size, self.stride, self.ceil_mode)


class _MaxUnpool(Cell):
    _fn = None

    def __init__(self, kernel_size, stride=None, padding=0) -> None:
        super().__init__()
        self.kernel_size, self.stride, self.padding = kernel_size, stride, padding

    def construct(self, x, indices, output_size=None):
        return type(self)._fn(x, indices, self.kernel_size, self.stride, self.padding, output_size)


class MaxUnpool1d(_MaxUnpool):
    """The inverse of MaxPool1d with `return_indices`."""

    _fn = staticmethod(ops.max_unpool1d)


class MaxUnpool2d(_MaxUnpool):
    """The inverse of MaxPool2d with `return_indices`."""

    _fn = staticmethod(ops.max_unpool2d)


class MaxUnpool3d(_MaxUnpool):
    """The inverse of MaxPool3d with `return_indices`."""

    _fn = staticmethod(ops.max_unpool3d)


# ---- activations and small math Cells ------------------------------------------------------------------------


class GLU(Cell):
    """Gated linear unit along `axis`."""

    def __init__(self, axis=-1) -> None:
        super().__init__()
        self.axis = axis

    def construct(self, x):
        return ops.glu(x, self.axis)


class Threshold(Cell):
    """`input_x` where greater than `threshold`, else `value`."""

    def __init__(self, threshold, value) -> None:
        super().__init__()
        self.threshold, self.value = threshold, value

    def construct(self, input_x):
        return ops.threshold(input_x, self.threshold, self.value)


class Softmax2d(Cell):
    """Softmax over the channels of (N, C, H, W) / (C, H, W)."""

    def construct(self, x):
        if x.ndim not in (3, 4):
            raise ValueError(f"For 'Softmax2d', the input must be 3-D or 4-D, but got {x.ndim}-D.")
        return ops.softmax(x, -3)


class FastGelu(Cell):
    """x * sigmoid(1.702 x), MindSpore's fast GELU approximation."""

    def construct(self, x):
        return x * ops.sigmoid(1.702 * x)


class MatMul(Cell):
    """Batched matrix product with optional transposes of the last two axes."""

    def __init__(self, transpose_x1=False, transpose_x2=False) -> None:
        super().__init__()
        self.transpose_x1, self.transpose_x2 = transpose_x1, transpose_x2

    def construct(self, x1, x2):
        if self.transpose_x1:
            x1 = ops.swapaxes(x1, -1, -2)
        if self.transpose_x2:
            x2 = ops.swapaxes(x2, -1, -2)
        return ops.matmul(x1, x2)


class Norm(Cell):
    """The L2 norm over `axis` (() = all axes)."""

    def __init__(self, axis=(), keep_dims=False) -> None:
        super().__init__()
        self.axis = (axis,) if isinstance(axis, int) else tuple(axis)
        self.keep_dims = keep_dims

    def construct(self, x):
        return ops.sqrt(ops.sum(ops.square(x), self.axis if self.axis else None, self.keep_dims))


class OneHot(Cell):
    """One-hot encoding of `indices` with `depth` classes."""

    def __init__(self, axis=-1, depth=1, on_value=1.0, off_value=0.0, dtype=mstype.float32) -> None:
        super().__init__()
        self.axis, self.depth, self.dtype = axis, depth, dtype
        self.on_value, self.off_value = Tensor(on_value, dtype), Tensor(off_value, dtype)

    def construct(self, indices):
        return ops.one_hot(indices, self.depth, self.on_value, self.off_value, self.axis)


class Roll(Cell):
    """Roll `input_x` by `shift` along `axis`."""

    def __init__(self, shift, axis) -> None:
        super().__init__()
        self.shift, self.axis = shift, axis

    def construct(self, input_x):
        return ops.roll(input_x, self.shift, self.axis)


class Tril(Cell):
    """The lower triangle (diagonal offset k)."""

    def construct(self, x, k=0):
        return ops.tril(x, k)


class Triu(Cell):
    """The upper triangle (diagonal offset k)."""

    def construct(self, x, k=0):
        return ops.triu(x, k)


class Range(Cell):
    """`Range(start, limit, delta)()`: the sequence start, start + delta, ... below limit."""

    def __init__(self, start, limit=None, delta=1) -> None:
        super().__init__()
        if limit is None:
            start, limit = 0, start
        self.start, self.limit, self.delta = start, limit, delta

    def construct(self):
        return ops.arange(self.start, self.limit, self.delta)


class ReduceLogSumExp(Cell):
    """log(sum(exp(x))) over `axis`."""

    def __init__(self, axis, keep_dims=False) -> None:
        super().__init__()
        self.axis, self.keep_dims = axis, keep_dims

    def construct(self, x):
        return ops.logsumexp(x, self.axis, self.keep_dims)


class Moments(Cell):
    """(mean, variance) over `axis` (None: all axes)."""

    def __init__(self, axis=None, keep_dims=None) -> None:
        super().__init__()
        self.axis = axis
        self.keep_dims = bool(keep_dims)

    def construct(self, x):
        mean = ops.mean(x, self.axis, True)
        var = ops.mean(ops.square(x - mean), self.axis, self.keep_dims)
        return (mean if self.keep_dims else ops.mean(x, self.axis, False)), var


class L1Regularizer(Cell):
    """scale * sum(|weights|)."""

    def __init__(self, scale) -> None:
        super().__init__()
        if not isinstance(scale, (int, float)) or isinstance(scale, bool) or scale <= 0:
            raise ValueError(f"For 'L1Regularizer', 'scale' must be a positive number, but got {scale!r}.")
        self.scale = float(scale)

    def construct(self, weights):
        return ops.sum(ops.abs(weights)) * self.scale


# ---- layers with parameters ---------------------------------------------------------------------------------


class Linear(Dense):
    """MindSpore's PyTorch-style fully connected layer: `Linear(in_features, out_features, bias=True)`."""

    def __init__(self, in_features, out_features, bias=True, weight_init=None, bias_init=None, dtype=None) -> None:
        super().__init__(in_features, out_features, weight_init, bias_init, bias, None, dtype or mstype.float32)


class BiDense(Cell):
    """Bilinear layer: y_k = x1^T W_k x2 + b_k, weight (out_channels, in1_channels, in2_channels)."""

    def __init__(self, in1_channels, in2_channels, out_channels, weight_init=None, bias_init=None, has_bias=True,
                 dtype=mstype.float32) -> None:  # fmt: skip
        super().__init__()
        for name, v in (("in1_channels", in1_channels), ("in2_channels", in2_channels),
                        ("out_channels", out_channels)):  # fmt: skip
            if not isinstance(v, int) or isinstance(v, bool) or v <= 0:
                raise ValueError(f"For 'BiDense', '{name}' must be a positive int, but got {v!r}.")
        self.in1_channels, self.in2_channels, self.out_channels = in1_channels, in2_channels, out_channels
        self.has_bias = has_bias
        bound = 1 / _math.sqrt(in1_channels)
        shape = (out_channels, in1_channels, in2_channels)
        self.weight = Parameter(initializer(weight_init or Uniform(bound), shape, dtype), name="weight")
        if has_bias:
            self.bias = Parameter(initializer(bias_init or Uniform(bound), (out_channels,), dtype), name="bias")
        else:
            self.bias = None

    def construct(self, input1, input2):
        lead = input1.shape[:-1]
        a = ops.reshape(input1, (-1, self.in1_channels))
        b = ops.reshape(input2, (-1, self.in2_channels))
        out = ops.einsum("bi,oij,bj->bo", a, self.weight, b)
        if self.bias is not None:
            out = out + self.bias
        return ops.reshape(out, tuple(lead) + (self.out_channels,))


class _InstanceNorm(Cell):
    _dims = 1

    def __init__(self, num_features, eps=1e-5, momentum=0.1, affine=True, gamma_init="ones", beta_init="zeros",
                 dtype=mstype.float32) -> None:  # fmt: skip
        super().__init__()
        if not isinstance(num_features, int) or num_features <= 0:
            raise ValueError(f"For '{type(self).__name__}', 'num_features' must be a positive int.")
        self.num_features, self.eps, self.momentum, self.affine = num_features, eps, momentum, affine
        self.gamma = Parameter(initializer(gamma_init, (num_features,), dtype), name="gamma", requires_grad=affine)
        self.beta = Parameter(initializer(beta_init, (num_features,), dtype), name="beta", requires_grad=affine)

    def construct(self, x):
        if x.ndim != self._dims + 2:
            raise ValueError(f"For '{type(self).__name__}', the input must be {self._dims + 2}-D, got {x.ndim}-D.")
        axes = tuple(range(2, x.ndim))
        mean = ops.mean(x, axes, True)
        var = ops.mean(ops.square(x - mean), axes, True)
        y = (x - mean) / ops.sqrt(var + self.eps)
        shape = (1, self.num_features) + (1,) * self._dims
        return y * ops.reshape(self.gamma, shape) + ops.reshape(self.beta, shape)


class InstanceNorm1d(_InstanceNorm):
    """Normalise each (sample, channel) of (N, C, L) over L, then scale by gamma and shift by beta."""

    _dims = 1


class InstanceNorm2d(_InstanceNorm):
    """Normalise each (sample, channel) of (N, C, H, W) over H, W."""

    _dims = 2


class InstanceNorm3d(_InstanceNorm):
    """Normalise each (sample, channel) of (N, C, D, H, W) over D, H, W."""

    _dims = 3


class EmbeddingLookup(Cell):
    """A lookup table (vocab_size, embedding_size) named `embedding_table`; `target`, `slice_mode` and `sparse`
    (host/device placement and sharding in MindSpore) are accepted and change nothing here."""

    def __init__(self, vocab_size, embedding_size, param_init="normal", target="CPU", slice_mode="batch_slice",
                 manual_shapes=None, max_norm=None, sparse=True, dtype=mstype.float32) -> None:  # fmt: skip
        super().__init__()
        for name, v in (("vocab_size", vocab_size), ("embedding_size", embedding_size)):
            if not isinstance(v, int) or isinstance(v, bool) or v <= 0:
                raise ValueError(f"For 'EmbeddingLookup', '{name}' must be a positive int, but got {v!r}.")
        if target not in ("CPU", "DEVICE"):
            raise ValueError(f"For 'EmbeddingLookup', 'target' must be 'CPU' or 'DEVICE', but got {target!r}.")
        self.vocab_size, self.embedding_size, self.target, self.max_norm = vocab_size, embedding_size, target, max_norm
        self.embedding_table = Parameter(initializer(param_init, (vocab_size, embedding_size), dtype),
                                         name="embedding_table")  # fmt: skip

    def construct(self, indices):
        out = ops.gather(self.embedding_table, indices, 0)
        if self.max_norm is not None:
            norm = ops.sqrt(ops.sum(ops.square(out), -1, True))
            out = out * ops.minimum(1.0, self.max_norm / ops.maximum(norm, 1e-12))
        return out


class Pad(Cell):
    """Pad with `paddings` ((before, after) per axis, from the first) in mode 'CONSTANT' (zeros), 'REFLECT' or
    'SYMMETRIC' (the edge repeated in the mirror)."""

    def __init__(self, paddings, mode="CONSTANT") -> None:
        super().__init__()
        if mode not in ("CONSTANT", "REFLECT", "SYMMETRIC"):
            raise ValueError(f"For 'Pad', 'mode' must be 'CONSTANT', 'REFLECT' or 'SYMMETRIC', but got {mode!r}.")
        if not isinstance(paddings, (tuple, list)) or any(len(p) != 2 for p in paddings):
            raise ValueError(f"For 'Pad', 'paddings' must be a tuple of (before, after) pairs, but got {paddings!r}.")
        self.paddings, self.mode = tuple(tuple(int(v) for v in p) for p in paddings), mode

    def construct(self, x):
        if len(self.paddings) != x.ndim:
            raise ValueError(f"For 'Pad', 'paddings' has {len(self.paddings)} pairs for a {x.ndim}-D input.")
        if self.mode != "SYMMETRIC":
            flat = tuple(v for pair in reversed(self.paddings) for v in pair)
            return ops.pad(x, flat, "constant" if self.mode == "CONSTANT" else "reflect")
        for axis, (before, after) in enumerate(self.paddings):
            parts = []
            if before:
                parts.append(ops.flip(ops.narrow(x, axis, 0, before), (axis,)))
            parts.append(x)
            if after:
                parts.append(ops.flip(ops.narrow(x, axis, x.shape[axis] - after, after), (axis,)))
            x = ops.concat(parts, axis) if len(parts) > 1 else x
        return x
