"""`kiln.mint.nn`: PyTorch-style layers (constructor arguments as MindSpore's `mint.nn` has them).

Each layer is a `kiln.nn.Cell` whose `construct` calls `kiln.mint.nn.functional`; parameters carry
PyTorch's names (`weight`, `bias`, `running_mean`, `running_var`).
"""

from __future__ import annotations

import math

from kiln import ops
from kiln._core import dtype as mstype
from kiln._core.tensor import Parameter, Tensor
from kiln._core.unsupported import refuse_argument
from kiln.common.initializer import HeUniform, Normal, Uniform, initializer
from kiln.mint.nn import functional
from kiln.mint.nn import functional as F
from kiln.nn.cell import Cell
from kiln.nn.layer._held import hold, touched
from kiln.nn.layer.basic import Identity  # one class in both namespaces, as in MindSpore
from kiln.nn.layer.dense import Linear  # kiln.nn's Linear already has mint.nn.Linear's constructor
from kiln.nn.loss.loss import LossBase

__all__ = [
    "AdaptiveAvgPool1d", "AdaptiveAvgPool2d", "AdaptiveAvgPool3d", "AdaptiveMaxPool1d", "AdaptiveMaxPool2d",
    "AvgPool1d", "AvgPool2d", "AvgPool3d", "BCELoss", "BCEWithLogitsLoss", "BatchNorm1d", "BatchNorm2d",
    "BatchNorm3d", "ConstantPad1d", "ConstantPad2d", "ConstantPad3d", "Conv1d", "Conv2d", "Conv3d",
    "ConvTranspose2d", "CosineEmbeddingLoss", "ELU", "Flatten", "Fold", "GELU", "GroupNorm", "Hardshrink",
    "Hardsigmoid", "Hardswish", "Hardtanh", "Identity", "KLDivLoss", "L1Loss", "Linear", "LogSigmoid",
    "LogSoftmax", "MSELoss", "MaxUnpool2d", "Mish", "PReLU", "PixelShuffle", "ReLU", "ReLU6", "ReflectionPad1d",
    "ReflectionPad2d", "ReflectionPad3d", "ReplicationPad1d", "ReplicationPad2d", "ReplicationPad3d", "SELU",
    "SiLU", "Sigmoid", "SmoothL1Loss", "SoftMarginLoss", "Softmax", "SyncBatchNorm", "Tanh", "Threshold",
    "Unfold", "Upsample", "UpsamplingBilinear2d", "UpsamplingNearest2d", "ZeroPad1d", "ZeroPad2d", "ZeroPad3d",
    # also in MindSpore's mint.nn, outside its __all__
    "Cell", "CrossEntropyLoss", "Dropout", "Dropout2d", "Embedding", "GLU", "LayerNorm", "MaxPool2d", "NLLLoss",
    "Softshrink", "functional", "F",
]  # fmt: skip


def _fn_cell(name: str, fn, params: tuple = (), doc: str = "") -> type:
    """A parameter-free layer: `__init__` stores `params` (name, default) and `construct` calls `fn`."""

    def __init__(self, *args, **kwargs):
        Cell.__init__(self)
        names = [p for p, _ in params]
        values = dict(params)
        if len(args) > len(names):
            raise TypeError(f"{name}() takes at most {len(names)} arguments, but got {len(args)}.")
        values.update(zip(names, args))
        for k, v in kwargs.items():
            if k not in values:
                raise TypeError(f"{name}() got an unexpected keyword argument '{k}'.")
            values[k] = v
        missing = [k for k, v in values.items() if v is _REQUIRED]
        if missing:
            raise TypeError(f"{name}() missing required argument(s): {', '.join(missing)}.")
        self._kw = values
        for k, v in values.items():
            setattr(self, k, v)

    def construct(self, *inputs):
        return fn(*inputs, **self._kw)

    def extend_repr(self):
        return ", ".join(f"{k}={v}" for k, v in self._kw.items())

    sig = ", ".join(p if d is _REQUIRED else f"{p}={d!r}" for p, d in params)
    cls = type(name, (Cell,), {"__init__": __init__, "construct": construct, "extend_repr": extend_repr,
                               "__doc__": f"{doc or name}\n\n    Args: ({sig}).\n"})  # fmt: skip
    return cls


_REQUIRED = object()
_R = _REQUIRED

# ---------------------------------------------------------------------------------------------- activations
ReLU = _fn_cell("ReLU", lambda x: F.relu(x), doc="max(x, 0).")
ReLU6 = _fn_cell("ReLU6", lambda x, inplace: F.relu6(x), (("inplace", False),), "min(max(x, 0), 6).")
Sigmoid = _fn_cell("Sigmoid", lambda x: F.sigmoid(x), doc="1 / (1 + exp(-x)).")
Tanh = _fn_cell("Tanh", lambda x: F.tanh(x), doc="tanh(x).")
SiLU = _fn_cell("SiLU", lambda x, inplace: F.silu(x), (("inplace", False),), "x * sigmoid(x).")
ELU = _fn_cell("ELU", lambda x, alpha, inplace: F.elu(x, alpha), (("alpha", 1.0), ("inplace", False)), "ELU.")
GELU = _fn_cell("GELU", lambda x, approximate: F.gelu(x, approximate), (("approximate", "none"),), "GELU.")
GLU = _fn_cell("GLU", lambda x, dim: F.glu(x, dim), (("dim", -1),), "Gated linear unit.")
Hardshrink = _fn_cell("Hardshrink", lambda x, lambd: F.hardshrink(x, lambd), (("lambd", 0.5),), "Hard shrink.")
Softshrink = _fn_cell("Softshrink", lambda x, lambd: F.softshrink(x, lambd), (("lambd", 0.5),), "Soft shrink.")
Hardsigmoid = _fn_cell("Hardsigmoid", lambda x: F.hardsigmoid(x), doc="relu6(x + 3) / 6.")
Hardswish = _fn_cell("Hardswish", lambda x: F.hardswish(x), doc="x * relu6(x + 3) / 6.")
Hardtanh = _fn_cell(
    "Hardtanh", lambda x, min_val, max_val, inplace: F.hardtanh(x, min_val, max_val),
    (("min_val", -1.0), ("max_val", 1.0), ("inplace", False)), "clip(x, min_val, max_val).",
)  # fmt: skip
LogSigmoid = _fn_cell("LogSigmoid", lambda x: F.logsigmoid(x), doc="log(sigmoid(x)).")
Mish = _fn_cell("Mish", lambda x: F.mish(x), doc="x * tanh(softplus(x)).")
SELU = _fn_cell("SELU", lambda x: F.selu(x), doc="Scaled ELU.")
Softmax = _fn_cell("Softmax", lambda x, dim: F.softmax(x, dim), (("dim", None),), "Softmax along dim.")


class LogSoftmax(Cell):
    """Log-softmax along `dim` (None: the default axis of `softmax` for the input's rank). It holds MindSpore's
    primitive `log_softmax` (LogSoftmaxExt), which it calls once sharded or replaced."""

    def __init__(self, dim=None) -> None:
        super().__init__()
        self.dim = dim
        hold(self, log_softmax=ops.LogSoftmaxExt())

    def construct(self, x):
        if touched(self):
            return self.log_softmax(x, dim=self.dim)
        return F.log_softmax(x, self.dim)

    def extend_repr(self) -> str:
        return f"dim={self.dim}"


Threshold = _fn_cell(
    "Threshold", lambda x, threshold, value, inplace: F.threshold(x, threshold, value),
    (("threshold", _R), ("value", _R), ("inplace", False)), "x where x > threshold, else value.",
)  # fmt: skip


class PReLU(Cell):
    """x where x >= 0, else weight * x; `num_parameters` weights (1, or one per channel), all `init`.

    Args:
        num_parameters (int): 1 or the number of channels. init (float): initial weight. dtype: its dtype.
    """

    def __init__(self, num_parameters: int = 1, init: float = 0.25, dtype=None) -> None:
        super().__init__()
        self.num_parameters = num_parameters
        self.weight = Parameter(ops.full((num_parameters,), float(init), dtype=dtype or mstype.float32), name="weight")

    def construct(self, input):
        return F.prelu(input, self.weight)


# ---------------------------------------------------------------------------------------------- linear, conv
def _ntuple(v, n: int) -> tuple:
    return tuple(v) if isinstance(v, (tuple, list)) else (v,) * n


class _ConvNd(Cell):
    _nd = 2

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1, bias=True,
                 padding_mode="zeros", dtype=None, *, _transposed=False, output_padding=0):  # fmt: skip
        super().__init__()
        nd = self._nd
        if in_channels % groups or out_channels % groups:
            raise ValueError(f"'in_channels' {in_channels} and 'out_channels' {out_channels} must be divisible by "
                             f"'groups' {groups}.")  # fmt: skip
        if padding_mode not in ("zeros", "reflect", "replicate", "circular"):
            raise ValueError(
                f"'padding_mode' must be 'zeros', 'reflect', 'replicate' or 'circular', got {padding_mode!r}."
            )
        self.in_channels, self.out_channels, self.groups = in_channels, out_channels, groups
        self.kernel_size = _ntuple(kernel_size, nd)
        self.stride, self.dilation = _ntuple(stride, nd), _ntuple(dilation, nd)
        self.padding = padding if isinstance(padding, str) else _ntuple(padding, nd)
        self.output_padding = _ntuple(output_padding, nd)
        self.padding_mode = padding_mode
        dtype = dtype or mstype.float32
        if _transposed:
            shape = (in_channels, out_channels // groups, *self.kernel_size)
            fan_in = out_channels // groups * math.prod(self.kernel_size)
        else:
            shape = (out_channels, in_channels // groups, *self.kernel_size)
            fan_in = in_channels // groups * math.prod(self.kernel_size)
        self.weight = Parameter(initializer(HeUniform(math.sqrt(5)), shape, dtype), name="weight")
        self.bias = None
        if bias:
            bound = 1 / math.sqrt(fan_in) if fan_in else 0.0
            self.bias = Parameter(initializer(Uniform(bound), (out_channels,), dtype), name="bias")

    def _padded(self, x):
        if self.padding_mode == "zeros" or isinstance(self.padding, str):
            return x, self.padding
        pads = []
        for p in reversed(self.padding):
            pads += [p, p]
        mode = {"reflect": "reflect", "replicate": "replicate", "circular": "circular"}[self.padding_mode]
        return F.pad(x, pads, mode), 0

    def extend_repr(self):
        return (f"{self.in_channels}, {self.out_channels}, kernel_size={self.kernel_size}, stride={self.stride}, "
                f"padding={self.padding}")  # fmt: skip


class Conv1d(_ConvNd):
    """1-D convolution over (N, C_in, L); weight (C_out, C_in / groups, k).

    Args:
        in_channels, out_channels (int), kernel_size, stride=1, padding=0 (int, tuple, 'same' or 'valid'),
        dilation=1, groups=1, bias=True, padding_mode='zeros' ('reflect', 'replicate', 'circular'), dtype.
    """

    _nd = 1

    def construct(self, input):
        x, pad = self._padded(input)
        return F.conv1d(x, self.weight, self.bias, self.stride, pad, self.dilation, self.groups)


class Conv2d(_ConvNd):
    """2-D convolution over (N, C_in, H, W); weight (C_out, C_in / groups, kh, kw). Arguments as Conv1d."""

    _nd = 2

    def construct(self, input):
        x, pad = self._padded(input)
        return F.conv2d(x, self.weight, self.bias, self.stride, pad, self.dilation, self.groups)


class Conv3d(_ConvNd):
    """3-D convolution over (N, C_in, D, H, W). Arguments as Conv1d."""

    _nd = 3

    def construct(self, input):
        x, pad = self._padded(input)
        return F.conv3d(x, self.weight, self.bias, self.stride, pad, self.dilation, self.groups)


class ConvTranspose2d(_ConvNd):
    """Transposed 2-D convolution; weight (C_in, C_out / groups, kh, kw).

    Args:
        in_channels, out_channels, kernel_size, stride=1, padding=0, output_padding=0, groups=1, bias=True,
        dilation=1, padding_mode='zeros', dtype.
    """

    _nd = 2

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, output_padding=0, groups=1,
                 bias=True, dilation=1, padding_mode="zeros", dtype=None):  # fmt: skip
        if padding_mode != "zeros":
            raise ValueError(f"ConvTranspose2d only supports padding_mode 'zeros', but got {padding_mode!r}.")
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, dilation, groups, bias, padding_mode,
                         dtype, _transposed=True, output_padding=output_padding)  # fmt: skip

    def construct(self, input, output_size=None):
        refuse_argument(
            "ConvTranspose2d",
            "output_size",
            output_size,
            reason="the output size follows from stride, padding and output_padding; give output_padding instead",
        )
        return F.conv_transpose2d(input, self.weight, self.bias, self.stride, self.padding, self.output_padding,
                                  self.groups, self.dilation)  # fmt: skip


Fold = _fn_cell(
    "Fold", lambda x, output_size, kernel_size, dilation, padding, stride: F.fold(
        x, output_size, kernel_size, dilation, padding, stride),
    (("output_size", _R), ("kernel_size", _R), ("dilation", 1), ("padding", 0), ("stride", 1)),
    "Sum sliding blocks back into (N, C, H, W).",
)  # fmt: skip
Unfold = _fn_cell(
    "Unfold", lambda x, kernel_size, dilation, padding, stride: F.unfold(x, kernel_size, dilation, padding, stride),
    (("kernel_size", _R), ("dilation", 1), ("padding", 0), ("stride", 1)), "Sliding blocks as columns.",
)  # fmt: skip
Flatten = _fn_cell(
    "Flatten", lambda x, start_dim, end_dim: F.flatten(x, start_dim, end_dim), (("start_dim", 1), ("end_dim", -1)),
    "Merge dimensions start_dim..end_dim.",
)  # fmt: skip
PixelShuffle = _fn_cell("PixelShuffle", lambda x, upscale_factor: F.pixel_shuffle(x, upscale_factor),
                        (("upscale_factor", _R),), "(N, C r^2, H, W) -> (N, C, H r, W r).")  # fmt: skip


class Embedding(Cell):
    """Lookup table: rows of `weight` (num_embeddings, embedding_dim), initialised N(0, 1).

    Args:
        num_embeddings: rows of the table; embedding_dim: the length of each row.
        padding_idx: a row whose lookups get no gradient (None: every row trains).
        max_norm / norm_type: rows looked up are rescaled to at most this p-norm (None: never).
        scale_grad_by_freq: divide a row's gradient by how often the batch looks it up.
        sparse: accepted; Kiln's gradient is dense and holds the same values.
        _weight / _freeze: a table to start from and whether it stays fixed; dtype: the table's dtype.
    """

    def __init__(self, num_embeddings, embedding_dim, padding_idx=None, max_norm=None, norm_type=2.0,
                 scale_grad_by_freq=False, sparse=False, _weight=None, _freeze=False, dtype=None):  # fmt: skip
        super().__init__()
        self.num_embeddings, self.embedding_dim = num_embeddings, embedding_dim
        if padding_idx is not None and padding_idx < 0:
            padding_idx += num_embeddings
        self.padding_idx, self.max_norm, self.norm_type = padding_idx, max_norm, norm_type
        self.scale_grad_by_freq = scale_grad_by_freq
        if _weight is None:
            w = initializer(Normal(1.0), (num_embeddings, embedding_dim), dtype or mstype.float32)
            if padding_idx is not None:
                w = ops.tensor_scatter_update(w, Tensor([[padding_idx]]), ops.zeros((1, embedding_dim), w.dtype))
        else:
            w = _weight
        self.weight = Parameter(w, name="weight", requires_grad=not _freeze)

    def construct(self, input):
        return F.embedding(input, self.weight, self.padding_idx, self.max_norm, self.norm_type,
                           self.scale_grad_by_freq)  # fmt: skip


# ---------------------------------------------------------------------------------------------- pooling
AvgPool1d = _fn_cell(
    "AvgPool1d", lambda x, **k: F.avg_pool1d(x, **k),
    (("kernel_size", _R), ("stride", None), ("padding", 0), ("ceil_mode", False), ("count_include_pad", True)),
    "Average pooling over (N, C, L).",
)  # fmt: skip
# the 2-D and 3-D average pools take the same arguments
_AVG_POOL_ND = (("kernel_size", _R), ("stride", None), ("padding", 0), ("ceil_mode", False),
                ("count_include_pad", True), ("divisor_override", None))  # fmt: skip
AvgPool2d = _fn_cell(
    "AvgPool2d", lambda x, **k: F.avg_pool2d(x, **k), _AVG_POOL_ND, "Average pooling over (N, C, H, W)."
)
AvgPool3d = _fn_cell(
    "AvgPool3d", lambda x, **k: F.avg_pool3d(x, **k), _AVG_POOL_ND, "Average pooling over (N, C, D, H, W)."
)
MaxPool2d = _fn_cell(
    "MaxPool2d", lambda x, **k: F.max_pool2d(x, **k),
    (("kernel_size", _R), ("stride", None), ("padding", 0), ("dilation", 1), ("return_indices", False),
     ("ceil_mode", False)),
    "Max pooling over (N, C, H, W).",
)  # fmt: skip
MaxUnpool2d = _fn_cell(
    "MaxUnpool2d", lambda x, indices, output_size=None, **k: F.max_unpool2d(x, indices, output_size=output_size, **k),
    (("kernel_size", _R), ("stride", None), ("padding", 0)), "The inverse of MaxPool2d.",
)  # fmt: skip
AdaptiveAvgPool1d = _fn_cell("AdaptiveAvgPool1d", lambda x, output_size: F.adaptive_avg_pool1d(x, output_size),
                             (("output_size", _R),), "Adaptive average pooling over (N, C, L).")  # fmt: skip
AdaptiveAvgPool2d = _fn_cell("AdaptiveAvgPool2d", lambda x, output_size: F.adaptive_avg_pool2d(x, output_size),
                             (("output_size", _R),), "Adaptive average pooling over (N, C, H, W).")  # fmt: skip
AdaptiveAvgPool3d = _fn_cell("AdaptiveAvgPool3d", lambda x, output_size: F.adaptive_avg_pool3d(x, output_size),
                             (("output_size", _R),), "Adaptive average pooling over (N, C, D, H, W).")  # fmt: skip
AdaptiveMaxPool1d = _fn_cell(
    "AdaptiveMaxPool1d", lambda x, output_size, return_indices: F.adaptive_max_pool1d(x, output_size, return_indices),
    (("output_size", _R), ("return_indices", False)), "Adaptive max pooling over (N, C, L).",
)  # fmt: skip
AdaptiveMaxPool2d = _fn_cell(
    "AdaptiveMaxPool2d", lambda x, output_size, return_indices: F.adaptive_max_pool2d(x, output_size, return_indices),
    (("output_size", _R), ("return_indices", False)), "Adaptive max pooling over (N, C, H, W).",
)  # fmt: skip


# ---------------------------------------------------------------------------------------------- padding
def _pad_cell(name: str, mode: str, nd: int, with_value: bool) -> type:
    def __init__(self, padding, value=None):
        Cell.__init__(self)
        self.padding = tuple(padding) if isinstance(padding, (tuple, list)) else (int(padding),) * (2 * nd)
        if len(self.padding) != 2 * nd:
            raise ValueError(f"{name}: 'padding' must be an int or {2 * nd} ints, but got {padding}.")
        self.value = (0.0 if value is None else value) if with_value or mode == "constant" else None

    def construct(self, input):
        return F.pad(input, self.padding, mode, self.value)

    if with_value:
        init = __init__
    else:

        def init(self, padding):
            __init__(self, padding)

    return type(name, (Cell,), {"__init__": init, "construct": construct,
                                "__doc__": f"Pad the last {nd} dimension(s), mode '{mode}'."})  # fmt: skip


ConstantPad1d, ConstantPad2d, ConstantPad3d = (_pad_cell(f"ConstantPad{d}d", "constant", d, True) for d in (1, 2, 3))
ZeroPad1d, ZeroPad2d, ZeroPad3d = (_pad_cell(f"ZeroPad{d}d", "constant", d, False) for d in (1, 2, 3))
ReflectionPad1d, ReflectionPad2d, ReflectionPad3d = (_pad_cell(f"ReflectionPad{d}d", "reflect", d, False)
                                                     for d in (1, 2, 3))  # fmt: skip
ReplicationPad1d, ReplicationPad2d, ReplicationPad3d = (_pad_cell(f"ReplicationPad{d}d", "replicate", d, False)
                                                        for d in (1, 2, 3))  # fmt: skip


# ---------------------------------------------------------------------------------------------- normalisation
class _BatchNorm(Cell):
    _ranks: tuple = (2, 3)

    def __init__(self, num_features: int, eps=1e-5, momentum=0.1, affine=True, track_running_stats=True, dtype=None):
        super().__init__()
        dtype = dtype or mstype.float32
        self.num_features, self.eps, self.momentum = num_features, eps, momentum
        self.affine, self.track_running_stats = affine, track_running_stats
        self.weight = Parameter(ops.ones((num_features,), dtype), name="weight") if affine else None
        self.bias = Parameter(ops.zeros((num_features,), dtype), name="bias") if affine else None
        if track_running_stats:
            self.running_mean = Parameter(ops.zeros((num_features,), dtype), name="running_mean", requires_grad=False)
            self.running_var = Parameter(ops.ones((num_features,), dtype), name="running_var", requires_grad=False)
        else:
            self.running_mean = self.running_var = None

    def construct(self, input):
        if input.ndim not in self._ranks:
            raise ValueError(f"{type(self).__name__} expects a {' or '.join(map(str, self._ranks))}-D input, "
                             f"but got {input.ndim}-D.")  # fmt: skip
        use_batch = self.training or self.running_mean is None
        return F.batch_norm(input, self.running_mean, self.running_var, self.weight, self.bias, use_batch,
                            self.momentum, self.eps)  # fmt: skip

    def extend_repr(self):
        return (f"{self.num_features}, eps={self.eps}, momentum={self.momentum}, affine={self.affine}, "
                f"track_running_stats={self.track_running_stats}")  # fmt: skip


class BatchNorm1d(_BatchNorm):
    """Batch normalisation of (N, C) or (N, C, L).

    Args:
        num_features (int), eps=1e-5, momentum=0.1 (weight of the new statistics), affine=True,
        track_running_stats=True, dtype=None.
    """

    _ranks = (2, 3)


class BatchNorm2d(_BatchNorm):
    """Batch normalisation of (N, C, H, W). Arguments as BatchNorm1d."""

    _ranks = (4,)


class BatchNorm3d(_BatchNorm):
    """Batch normalisation of (N, C, D, H, W). Arguments as BatchNorm1d."""

    _ranks = (5,)


class SyncBatchNorm(_BatchNorm):
    """Batch normalisation of any (N, C, ...) input; on one device the same as BatchNorm (no process group).

    Args:
        num_features, eps=1e-5, momentum=0.1, affine=True, track_running_stats=True, process_group=None, dtype.
    """

    _ranks = (2, 3, 4, 5)

    def __init__(self, num_features, eps=1e-5, momentum=0.1, affine=True, track_running_stats=True,
                 process_group=None, dtype=None):  # fmt: skip
        super().__init__(num_features, eps, momentum, affine, track_running_stats, dtype)
        self.process_group = process_group


class GroupNorm(Cell):
    """Group normalisation of (N, C, ...): C split into `num_groups` groups.

    Args:
        num_groups, num_channels (int), eps=1e-5, affine=True, dtype=None.
    """

    def __init__(self, num_groups: int, num_channels: int, eps=1e-5, affine=True, dtype=None):
        super().__init__()
        if num_channels % num_groups:
            raise ValueError(f"'num_channels' {num_channels} must be divisible by 'num_groups' {num_groups}.")
        dtype = dtype or mstype.float32
        self.num_groups, self.num_channels, self.eps, self.affine = num_groups, num_channels, eps, affine
        self.weight = Parameter(ops.ones((num_channels,), dtype), name="weight") if affine else None
        self.bias = Parameter(ops.zeros((num_channels,), dtype), name="bias") if affine else None

    def construct(self, input):
        return F.group_norm(input, self.num_groups, self.weight, self.bias, self.eps)


class LayerNorm(Cell):
    """Layer normalisation over the last dimensions `normalized_shape`.

    Args:
        normalized_shape (int | tuple), eps=1e-5, elementwise_affine=True, bias=True, dtype=None.
    """

    def __init__(self, normalized_shape, eps=1e-5, elementwise_affine=True, bias=True, dtype=None):
        super().__init__()
        shape = (normalized_shape,) if isinstance(normalized_shape, int) else tuple(normalized_shape)
        dtype = dtype or mstype.float32
        self.normalized_shape, self.eps = shape, eps
        self.weight = Parameter(ops.ones(shape, dtype), name="weight") if elementwise_affine else None
        self.bias = Parameter(ops.zeros(shape, dtype), name="bias") if elementwise_affine and bias else None

    def construct(self, input):
        return F.layer_norm(input, self.normalized_shape, self.weight, self.bias, self.eps)


# ---------------------------------------------------------------------------------------------- dropout, resampling
class Dropout(Cell):
    """Zero elements with probability p in training (scaling the rest by 1 / (1 - p)).

    Args:
        p (float): drop probability. Default: 0.5. inplace (bool): ignored.
    """

    def __init__(self, p: float = 0.5, inplace: bool = False) -> None:
        super().__init__()
        if not 0 <= p <= 1:
            raise ValueError(f"Dropout: 'p' must be in [0, 1], but got {p}.")
        self.p = p

    def construct(self, input):
        return F.dropout(input, self.p, self.training)


class Dropout2d(Dropout):
    """Zero whole channels with probability p in training."""

    def construct(self, input):
        return F.dropout2d(input, self.p, self.training)


Upsample = _fn_cell(
    "Upsample", lambda x, size, scale_factor, mode, align_corners, recompute_scale_factor: F.interpolate(
        x, size, scale_factor, mode, align_corners, recompute_scale_factor),
    (("size", None), ("scale_factor", None), ("mode", "nearest"), ("align_corners", None),
     ("recompute_scale_factor", None)),
    "Resize the spatial dimensions.",
)  # fmt: skip
UpsamplingNearest2d = _fn_cell(
    "UpsamplingNearest2d", lambda x, size, scale_factor: F.interpolate(x, size, scale_factor, "nearest"),
    (("size", None), ("scale_factor", None)), "Nearest-neighbour 2-D upsampling.",
)  # fmt: skip
UpsamplingBilinear2d = _fn_cell(
    "UpsamplingBilinear2d", lambda x, size, scale_factor: F.interpolate(x, size, scale_factor, "bilinear", True),
    (("size", None), ("scale_factor", None)), "Bilinear 2-D upsampling with align_corners=True.",
)  # fmt: skip


# ---------------------------------------------------------------------------------------------- losses
class _WeightedLoss(Cell):
    def __init__(self, weight=None, reduction: str = "mean") -> None:
        super().__init__()
        if reduction not in ("mean", "sum", "none"):
            raise ValueError(f"{type(self).__name__}: 'reduction' must be 'mean', 'sum' or 'none', got {reduction!r}.")
        self.weight, self.reduction = weight, reduction


class L1Loss(LossBase):
    """|input - target|, reduced by `reduction` ('mean', 'sum' or 'none'). Built on LossBase as MindSpore's
    (nn.L1LossExt), whose reduction primitives it holds idle: its op reduces inside."""

    _reduces_inside = True

    def construct(self, input, target):  # noqa: A002
        return F.l1_loss(input, target, self.reduction)


MSELoss = _fn_cell("MSELoss", lambda x, y, reduction: F.mse_loss(x, y, reduction), (("reduction", "mean"),),
                   "(x - y)^2.")  # fmt: skip
SmoothL1Loss = _fn_cell(
    "SmoothL1Loss", lambda x, y, reduction, beta: F.smooth_l1_loss(x, y, reduction, beta),
    (("reduction", "mean"), ("beta", 1.0)), "Smooth L1 loss.",
)  # fmt: skip
SoftMarginLoss = _fn_cell("SoftMarginLoss", lambda x, y, reduction: F.soft_margin_loss(x, y, reduction),
                          (("reduction", "mean"),), "log(1 + exp(-y x)).")  # fmt: skip
KLDivLoss = _fn_cell(
    "KLDivLoss", lambda x, y, reduction, log_target: F.kl_div(x, y, reduction, log_target),
    (("reduction", "mean"), ("log_target", False)), "KL divergence of log-probabilities x from y.",
)  # fmt: skip
CosineEmbeddingLoss = _fn_cell(
    "CosineEmbeddingLoss", lambda x1, x2, y, margin, reduction: F.cosine_embedding_loss(x1, x2, y, margin, reduction),
    (("margin", 0.0), ("reduction", "mean")), "Cosine embedding loss.",
)  # fmt: skip


class BCELoss(_WeightedLoss):
    """Binary cross entropy of probabilities. Args: weight=None, reduction='mean'."""

    def construct(self, input, target):
        return F.binary_cross_entropy(input, target, self.weight, self.reduction)


class BCEWithLogitsLoss(_WeightedLoss):
    """Binary cross entropy of logits. Args: weight=None, reduction='mean', pos_weight=None."""

    def __init__(self, weight=None, reduction: str = "mean", pos_weight=None) -> None:
        super().__init__(weight, reduction)
        self.pos_weight = pos_weight

    def construct(self, input, target):
        return F.binary_cross_entropy_with_logits(input, target, self.weight, self.reduction, self.pos_weight)


class CrossEntropyLoss(_WeightedLoss):
    """Cross entropy of logits. Args: weight=None, ignore_index=-100, reduction='mean', label_smoothing=0.0."""

    def __init__(self, weight=None, ignore_index: int = -100, reduction: str = "mean", label_smoothing=0.0):
        super().__init__(weight, reduction)
        self.ignore_index, self.label_smoothing = ignore_index, label_smoothing

    def construct(self, input, target):
        return F.cross_entropy(input, target, self.weight, self.ignore_index, self.reduction, self.label_smoothing)


class NLLLoss(_WeightedLoss):
    """Negative log-likelihood. Args: weight=None, ignore_index=-100, reduction='mean'."""

    def __init__(self, weight=None, ignore_index: int = -100, reduction: str = "mean"):
        super().__init__(weight, reduction)
        self.ignore_index = ignore_index

    def construct(self, input, target):
        return F.nll_loss(input, target, self.weight, self.ignore_index, self.reduction)
