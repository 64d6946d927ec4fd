"""MindSpore's neural-network Primitive classes: `ops.Conv2D(...)`, `ops.MaxPool(...)`, `ops.BatchNorm()`, ...

Each class validates and normalises its attributes once, at construction (as
MindSpore does), and `__call__` dispatches the primitive declared in
`kiln._prims.nn` with the stored attribute tuple.
"""

from __future__ import annotations

from kiln._core.random_state import next_key
from kiln._core.tensor import Tensor
from kiln._core.unsupported import refuse_argument
from kiln._prims.nn import activation as prims_activation
from kiln._prims.nn import conv as C
from kiln._prims.nn import dropout as prims_dropout
from kiln._prims.nn import loss as L
from kiln._prims.nn import norm as N
from kiln._prims.nn import norm as prims_norm
from kiln._prims.nn import pool as P
from kiln.ops._args import (
    check_non_negative,
    check_positive,
    check_probability,
    check_reduction,
    ntuple,
    pad_mode_of,
    pad_pairs,
)
from kiln.ops._helpers import REGISTRY, apply, op_error
from kiln.ops.faces import ConvPrimitive
from kiln.ops.nn.normalization import update_moving_stats
from kiln.ops.nn.pooling import adaptive_output_size
from kiln.ops.primitive import Primitive

__all__ = [
    "Conv3D", "Conv2DTranspose", "Conv2DBackpropInput", "Conv3DTranspose", "MaxPool", "AvgPool",
    "MaxPool3D", "AvgPool3D", "MaxPoolWithArgmaxV2", "AdaptiveAvgPool2D", "AdaptiveMaxPool2D", "AdaptiveAvgPool3D",
    "AdaptiveMaxPool3D", "BatchNorm", "LayerNorm", "Dropout", "PReLU", "L2Normalize", "SoftmaxCrossEntropyWithLogits",
    "SparseSoftmaxCrossEntropyWithLogits", "NLLLoss", "BinaryCrossEntropy", "BCEWithLogitsLoss", "SmoothL1Loss",
    "KLDivLoss",
]  # fmt: skip


class _NNPrimitive(Primitive):
    """A Primitive that records its (already normalised) attributes and keeps the dispatch tuple."""

    def _record(self, **attrs) -> None:
        for k, v in attrs.items():
            self.add_prim_attr(k, v)


# ---- convolution ---------------------------------------------------------------------------------
class Conv3D(ConvPrimitive):
    """3-D convolution primitive: `Conv3D(out_channel, kernel_size, ...)(x, weight)`; see Conv2D."""

    _nd = 3
    _prim = C.Conv3D


class Conv2DTranspose(_NNPrimitive):
    """Gradient of Conv2D with respect to its input: `Conv2DTranspose(...)(dout, weight, input_size)`.

    Args:
        out_channel (int): channels of the result (weight.shape[1] * group).
        kernel_size (Union[int, tuple[int]]): kernel height and width.
        pad_mode (str): 'valid', 'same' or 'pad' of the forward convolution. Default: 'valid'.
        pad (Union[int, tuple[int]]): (top, bottom, left, right) padding for pad_mode 'pad'.
        pad_list: alias of `pad` (MindSpore compatibility).
        mode (int): unused.
        stride, dilation (Union[int, tuple[int]]): of the forward convolution.
        group (int): channel groups. Default: 1.
        data_format (str): 'NCHW' or 'NHWC'.
    """

    def __init__(
        self,
        out_channel: int,
        kernel_size,
        pad_mode: str = "valid",
        pad=0,
        pad_list=None,
        mode: int = 1,
        stride=1,
        dilation=1,
        group: int = 1,
        data_format: str = "NCHW",
    ) -> None:
        refuse_argument("Conv2DTranspose", "mode", mode, 1, reason="mode 1 (a plain convolution) is the only mode")
        super().__init__()
        name = self.name
        kernel = ntuple(name, "kernel_size", kernel_size, 2)
        check_positive(name, "kernel_size", kernel)
        stride_t, dilation_t = ntuple(name, "stride", stride, 2), ntuple(name, "dilation", dilation, 2)
        check_positive(name, "stride", stride_t)
        check_positive(name, "dilation", dilation_t)
        pads = pad_pairs(name, pad_list if pad_list is not None else pad, 2)
        check_non_negative(name, "pad", pads)
        mode_ = pad_mode_of(name, pad_mode)
        self._record(
            out_channel=out_channel,
            kernel_size=kernel,
            pad_mode=mode_,
            pad=pads,
            stride=stride_t,
            dilation=dilation_t,
            group=group,
            data_format=data_format,
        )
        self._fixed = (stride_t, mode_, pads, dilation_t, group, (0, 0))

    def __call__(self, dout, weight, input_size):
        size = tuple(int(s) for s in (input_size.asnumpy() if isinstance(input_size, Tensor) else input_size))
        spatial = size[1:-1] if self.data_format == "NHWC" else size[2:]
        return apply(C.Conv2DTranspose, (dout, weight, None), (*self._fixed, spatial, self.data_format))


Conv2DBackpropInput = type("Conv2DBackpropInput", (Conv2DTranspose,), {"__doc__": "Alias of Conv2DTranspose."})


class Conv3DTranspose(_NNPrimitive):
    """3-D transposed convolution: `Conv3DTranspose(in_channel, out_channel, kernel_size, ...)(dout, weight)`.

    Args:
        in_channel, out_channel (int): channels of the input and of the result.
        kernel_size (Union[int, tuple[int]]): kernel depth, height and width.
        mode (int): unused.
        pad_mode (str): 'valid', 'same' or 'pad'. Default: 'valid'.
        pad (Union[int, tuple[int]]): 6 values (front, back, top, bottom, left, right) for 'pad'.
        stride, dilation (Union[int, tuple[int]]): of the forward convolution.
        group (int): channel groups. Default: 1.
        output_padding (Union[int, tuple[int]]): extra output size at the end (pad_mode 'pad').
        data_format (str): 'NCDHW'.
    """

    def __init__(
        self,
        in_channel: int,
        out_channel: int,
        kernel_size,
        mode: int = 1,
        pad_mode: str = "valid",
        pad=0,
        stride=1,
        dilation=1,
        group: int = 1,
        output_padding=0,
        data_format: str = "NCDHW",
    ) -> None:
        refuse_argument("Conv3DTranspose", "mode", mode, 1, reason="mode 1 (a plain convolution) is the only mode")
        super().__init__()
        name = self.name
        kernel = ntuple(name, "kernel_size", kernel_size, 3)
        check_positive(name, "kernel_size", kernel)
        stride_t, dilation_t = ntuple(name, "stride", stride, 3), ntuple(name, "dilation", dilation, 3)
        check_positive(name, "stride", stride_t)
        check_positive(name, "dilation", dilation_t)
        pads = pad_pairs(name, pad, 3)
        check_non_negative(name, "pad", pads)
        out_pad = ntuple(name, "output_padding", output_padding, 3)
        mode_ = pad_mode_of(name, pad_mode)
        self._record(
            in_channel=in_channel,
            out_channel=out_channel,
            kernel_size=kernel,
            pad_mode=mode_,
            pad=pads,
            stride=stride_t,
            dilation=dilation_t,
            group=group,
            output_padding=out_pad,
        )
        self._attrs = (stride_t, mode_, pads, dilation_t, group, out_pad, None, data_format)

    def __call__(self, dout, weight):
        return apply(C.Conv3DTranspose, (dout, weight, None), self._attrs)


# ---- pooling ---------------------------------------------------------------------------------------
class _Pool(_NNPrimitive):
    _nd = 2
    _kind = "max"

    def _setup(self, kernel_size, strides, pad_mode, pads=0, ceil=False, include_pad=True, divisor=0, **record) -> None:
        nd, name = self._nd, self.name
        kernel = ntuple(name, "kernel_size", kernel_size, nd)
        strides_t = ntuple(name, "strides", strides, nd)
        check_positive(name, "kernel_size", kernel)
        check_positive(name, "strides", strides_t)
        mode_ = pad_mode_of(name, pad_mode)
        pads = pad_pairs(name, pads, nd)
        check_non_negative(name, "pad", pads)
        self._record(kernel_size=kernel, strides=strides_t, pad_mode=mode_, **record)
        if self._kind == "max":
            self._prim = P.MaxPool3D if nd == 3 else P.MaxPool
            self._attrs = (kernel, strides_t, mode_, pads, (1,) * nd, bool(ceil))
        else:
            self._prim = P.AvgPool3D if nd == 3 else P.AvgPool
            self._attrs = (kernel, strides_t, mode_, pads, bool(ceil), bool(include_pad), int(divisor or 0))

    def __call__(self, x):
        return apply(self._prim, (x,), self._attrs)


class MaxPool(_Pool):
    """2-D max pooling primitive: `MaxPool(kernel_size=1, strides=1, pad_mode='valid')(x)`.

    Args:
        kernel_size (Union[int, tuple[int]]): window size.
        strides (Union[int, tuple[int]]): window step.
        pad_mode (str): 'valid' or 'same'.
        data_format (str): 'NCHW'.
    """

    def __init__(self, kernel_size=1, strides=1, pad_mode: str = "valid", data_format: str = "NCHW") -> None:
        super().__init__()
        self._setup(kernel_size, strides, pad_mode, data_format=data_format)


class AvgPool(_Pool):
    """2-D average pooling primitive: `AvgPool(kernel_size=1, strides=1, pad_mode='valid')(x)`; see MaxPool."""

    _kind = "avg"

    def __init__(self, kernel_size=1, strides=1, pad_mode: str = "valid", data_format: str = "NCHW") -> None:
        super().__init__()
        self._setup(kernel_size, strides, pad_mode, data_format=data_format)


class MaxPool3D(_Pool):
    """3-D max pooling primitive.

    Args:
        kernel_size, strides (Union[int, tuple[int]]): window size and step.
        pad_mode (str): 'valid', 'same' or 'pad'.
        pad_list (Union[int, tuple[int]]): padding for 'pad' (1, 3 or 6 values).
        ceil_mode (bool): round the output size up.
        data_format (str): 'NCDHW'.
    """

    _nd = 3

    def __init__(
        self, kernel_size=1, strides=1, pad_mode: str = "VALID", pad_list=0, ceil_mode=None, data_format: str = "NCDHW"
    ) -> None:
        super().__init__()
        self._setup(
            kernel_size,
            strides,
            pad_mode,
            pad_list,
            bool(ceil_mode),
            pad_list=pad_list,
            ceil_mode=ceil_mode,
            data_format=data_format,
        )


class AvgPool3D(_Pool):
    """3-D average pooling primitive.

    Args:
        kernel_size, strides (Union[int, tuple[int]]): window size and step.
        pad_mode (str): 'valid', 'same' or 'pad'.
        pad (Union[int, tuple[int]]): padding for 'pad'.
        ceil_mode (bool): round the output size up.
        count_include_pad (bool): count padding in the divisor.
        divisor_override (int): fixed divisor when non-zero.
        data_format (str): 'NCDHW'.
    """

    _nd = 3
    _kind = "avg"

    def __init__(
        self,
        kernel_size=1,
        strides=1,
        pad_mode: str = "valid",
        pad=0,
        ceil_mode: bool = False,
        count_include_pad: bool = True,
        divisor_override: int = 0,
        data_format: str = "NCDHW",
    ) -> None:
        refuse_argument("AvgPool3D", "data_format", data_format, "NCDHW", reason="inputs are (N, C, D, H, W)")
        super().__init__()
        self._setup(
            kernel_size,
            strides,
            pad_mode,
            pad,
            ceil_mode,
            count_include_pad,
            divisor_override,
            pad=pad,
            ceil_mode=ceil_mode,
            count_include_pad=count_include_pad,
            divisor_override=divisor_override,
        )


class MaxPoolWithArgmaxV2(_NNPrimitive):
    """2-D max pooling that also returns the flat (H * W) index of each maximum.

    Args:
        kernel_size (Union[int, tuple[int]]): window size.
        strides (Union[int, tuple[int]], optional): window step; defaults to `kernel_size`.
        pads (Union[int, tuple[int]]): symmetric padding.
        dilation (Union[int, tuple[int]]): tap spacing.
        ceil_mode (bool): round the output size up.
        argmax_type: dtype of the indices (int64 or int32).
    """

    def __init__(
        self, kernel_size, strides=None, pads=0, dilation=(1, 1), ceil_mode: bool = False, argmax_type=None
    ) -> None:
        super().__init__()
        name = self.name
        kernel = ntuple(name, "kernel_size", kernel_size, 2)
        strides_t = kernel if strides is None else ntuple(name, "strides", strides, 2)
        dilation_t = ntuple(name, "dilation", dilation, 2)
        for n, v in (("kernel_size", kernel), ("strides", strides_t), ("dilation", dilation_t)):
            check_positive(name, n, v)
        self._record(kernel_size=kernel, strides=strides_t, pads=pads, dilation=dilation_t, ceil_mode=ceil_mode)
        self.argmax_type = argmax_type
        self._attrs = (kernel, strides_t, "pad", pad_pairs(name, pads, 2), dilation_t, bool(ceil_mode))

    def __call__(self, x):
        out, index = apply(P.MaxPoolWithArgmax, (x,), self._attrs)
        if self.argmax_type is not None:
            index = index.astype(self.argmax_type)
        return out, index


class _Adaptive(_NNPrimitive):
    _kind, _nd = "Avg", 2

    def __init__(self, output_size) -> None:
        super().__init__()
        self._prim = REGISTRY[f"Adaptive{self._kind}Pool{self._nd}D"]
        self._attrs = (adaptive_output_size(self.name, output_size, self._nd),)
        self._record(output_size=output_size)

    def __call__(self, x):
        return apply(self._prim, (x,), self._attrs)


class AdaptiveAvgPool2D(_Adaptive):
    """Adaptive 2-D average pooling: `AdaptiveAvgPool2D(output_size)(x)`; None entries keep the input size."""


class AdaptiveMaxPool2D(_Adaptive):
    """Adaptive 2-D max pooling: returns (output, argmax) with flat H * W indices."""

    _kind = "Max"


class AdaptiveAvgPool3D(_Adaptive):
    """Adaptive 3-D average pooling: `AdaptiveAvgPool3D(output_size)(x)`."""

    _nd = 3


class AdaptiveMaxPool3D(_Adaptive):
    """Adaptive 3-D max pooling: returns (output, argmax) with flat D * H * W indices."""

    _kind, _nd = "Max", 3


# ---- normalisation, dropout, activations -----------------------------------------------------------
class BatchNorm(_NNPrimitive):
    """Batch normalisation: `BatchNorm(is_training, epsilon, momentum)(x, scale, bias, mean, variance)`.

    In training the batch statistics are used and `mean` / `variance` (Parameters) are
    updated in place: new = (1 - momentum) * old + momentum * batch (unbiased variance).

    Args:
        is_training (bool): use batch statistics. Default: False.
        epsilon (float): added to the variance. Default: 1e-5.
        momentum (float): weight of the batch statistics. Default: 0.1.
        data_format (str): 'NCHW' or 'NHWC'.

    Returns:
        (y, batch_mean, batch_variance, reserve_space_1, reserve_space_2): the reserve spaces hold
        the updated moving mean and variance.
    """

    def __init__(
        self, is_training: bool = False, epsilon: float = 1e-5, momentum: float = 0.1, data_format: str = "NCHW"
    ) -> None:
        super().__init__()
        check_probability(self.name, "momentum", momentum)
        if epsilon <= 0 or epsilon > 1:
            raise op_error(self.name, f"'epsilon' must be in (0, 1], but got {epsilon}.")
        self._record(is_training=is_training, epsilon=epsilon, momentum=momentum, data_format=data_format)
        self._attrs = (bool(is_training), float(epsilon), float(momentum), data_format)

    def __call__(self, x, scale, bias, mean, variance):
        outs = apply(N.BatchNorm, (x, scale, bias, mean, variance), self._attrs)
        if self.is_training:
            update_moving_stats(mean, variance, outs[3], outs[4])
        return outs


class LayerNorm(_NNPrimitive):
    """Layer normalisation: `LayerNorm(begin_norm_axis, begin_params_axis, epsilon)(x, gamma, beta)`.

    Args:
        begin_norm_axis (int): first axis normalised over. Default: 1.
        begin_params_axis (int): first axis of gamma / beta's shape. Default: 1.
        epsilon (float): added to the variance. Default: 1e-7.

    Returns:
        (y, mean, variance), the statistics with the normalised axes kept as size 1.
    """

    def __init__(self, begin_norm_axis: int = 1, begin_params_axis: int = 1, epsilon: float = 1e-7) -> None:
        super().__init__()
        self._record(begin_norm_axis=begin_norm_axis, begin_params_axis=begin_params_axis, epsilon=epsilon)
        self._attrs = (int(begin_norm_axis), int(begin_params_axis), float(epsilon))

    def __call__(self, x, gamma, beta):
        return apply(N.LayerNorm, (x, gamma, beta), self._attrs)


class Dropout(_NNPrimitive):
    """Dropout: `Dropout(keep_prob)(x)` returns (x * mask / keep_prob, mask).

    Args:
        keep_prob (float): probability of keeping an element, in (0, 1]. Default: 0.5.
        Seed0, Seed1 (int): accepted for compatibility; draws come from Kiln's global generator.
    """

    def __init__(self, keep_prob: float = 0.5, Seed0: int = 0, Seed1: int = 0) -> None:  # noqa: N803
        super().__init__()
        check_probability(self.name, "keep_prob", keep_prob, low_open=True)
        self._record(keep_prob=keep_prob, Seed0=Seed0, Seed1=Seed1)
        self._attrs = (float(keep_prob),)

    def __call__(self, x):
        return apply(prims_dropout.Dropout, (next_key(), x), self._attrs)


class PReLU(_NNPrimitive):
    """Parametric ReLU: `PReLU()(x, weight)` with one weight per channel (axis 1)."""

    def __call__(self, x, weight):
        return apply(prims_activation.PReLU, (x, weight))


class L2Normalize(_NNPrimitive):
    """x / sqrt(max(sum(x ** 2, axis), epsilon)).

    Args:
        axis (Union[int, tuple[int]]): axes of the norm. Default: 0.
        epsilon (float): lower bound of the squared norm. Default: 1e-4.
    """

    def __init__(self, axis=0, epsilon: float = 1e-4) -> None:
        super().__init__()
        self._record(axis=axis, epsilon=epsilon)
        self._attrs = ((axis,) if isinstance(axis, int) else tuple(axis), float(epsilon))

    def __call__(self, x):
        return apply(prims_norm.L2Normalize, (x,), self._attrs)


# ---- losses ----------------------------------------------------------------------------------------
class SoftmaxCrossEntropyWithLogits(_NNPrimitive):
    """Softmax cross-entropy with dense labels: returns (loss per row, gradient w.r.t. the logits)."""

    def __call__(self, logits, labels):
        return apply(L.SoftmaxCrossEntropyWithLogits, (logits, labels))


class SparseSoftmaxCrossEntropyWithLogits(_NNPrimitive):
    """Softmax cross-entropy with class-index labels: the mean loss, or its gradient when `is_grad`.

    Args:
        is_grad (bool): return the gradient with respect to the logits instead. Default: False.
    """

    def __init__(self, is_grad: bool = False) -> None:
        super().__init__()
        self._record(is_grad=is_grad)

    def __call__(self, logits, labels):
        return apply(L.SparseSoftmaxCrossEntropyWithLogits, (logits, labels), (bool(self.is_grad),))


class NLLLoss(_NNPrimitive):
    """Negative log-likelihood: `NLLLoss(reduction, ignore_index)(logits, labels, weight)` -> (loss, total_weight).

    Args:
        reduction (str): 'mean', 'sum' or 'none'. Default: 'mean'.
        ignore_index (int): label that contributes nothing. Default: -100.
    """

    def __init__(self, reduction: str = "mean", ignore_index: int = -100) -> None:
        super().__init__()
        check_reduction(self.name, reduction)
        self._record(reduction=reduction, ignore_index=ignore_index)

    def __call__(self, logits, labels, weight):
        return apply(L.NLLLoss, (logits, labels, weight), (self.reduction, int(self.ignore_index), 0.0))


class _ReducedLoss(_NNPrimitive):
    _prim = None

    def __init__(self, reduction: str = "mean") -> None:
        super().__init__()
        check_reduction(self.name, reduction)
        self._record(reduction=reduction)


class BinaryCrossEntropy(_ReducedLoss):
    """Binary cross-entropy of probabilities: `BinaryCrossEntropy(reduction)(logits, labels, weight=None)`."""

    def __call__(self, logits, labels, weight=None):
        return apply(L.BinaryCrossEntropy, (logits, labels, weight), (self.reduction,))


class BCEWithLogitsLoss(_ReducedLoss):
    """Binary cross-entropy of logits: `BCEWithLogitsLoss(reduction)(logits, label, weight, pos_weight)`."""

    def __call__(self, logits, label, weight=None, pos_weight=None):
        return apply(L.BCEWithLogitsLoss, (logits, label, weight, pos_weight), (self.reduction,))


class KLDivLoss(_ReducedLoss):
    """KL divergence `KLDivLoss(reduction)(logits, labels)` with log-probability logits ('batchmean' allowed)."""

    def __init__(self, reduction: str = "mean") -> None:
        _NNPrimitive.__init__(self)
        check_reduction(self.name, reduction, ("mean", "sum", "none", "batchmean"))
        self._record(reduction=reduction)

    def __call__(self, logits, labels):
        return apply(L.KLDivLoss, (logits, labels), (self.reduction,))


class SmoothL1Loss(_NNPrimitive):
    """Smooth L1 loss: `SmoothL1Loss(beta=1.0, reduction='none')(logits, labels)`.

    Args:
        beta (float): where the loss turns from quadratic to linear. Default: 1.0.
        reduction (str): 'none', 'mean' or 'sum'. Default: 'none'.
    """

    def __init__(self, beta: float = 1.0, reduction: str = "none") -> None:
        super().__init__()
        check_reduction(self.name, reduction)
        if beta < 0:
            raise op_error(self.name, f"'beta' must be non-negative, but got {beta}.")
        self._record(beta=beta, reduction=reduction)

    def __call__(self, logits, labels):
        return apply(L.SmoothL1Loss, (logits, labels), (float(self.beta), self.reduction))
