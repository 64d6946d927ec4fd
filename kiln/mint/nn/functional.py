"""`kiln.mint.nn.functional`: PyTorch-style functional layers over Kiln's ops (`mint.nn.functional as F`)."""

from __future__ import annotations

from kiln import ops as _ops
from kiln._core.tensor import Tensor
from kiln._prims import array as _prims_array
from kiln.mint import _ops as _mint_ops
from kiln.ops import image as _image
from kiln.ops import nn as _nn_ops
from kiln.ops._args import split_padding as _split_padding
from kiln.ops._helpers import apply as _apply
from kiln.ops.faces import MINT as _MINT
from kiln.ops.nn import conv as _conv

__all__ = [
    "adaptive_avg_pool1d", "adaptive_avg_pool2d", "adaptive_avg_pool3d", "adaptive_max_pool1d",
    "adaptive_max_pool2d", "avg_pool1d", "avg_pool2d", "avg_pool3d", "batch_norm", "binary_cross_entropy",
    "binary_cross_entropy_with_logits", "conv1d", "conv2d", "conv3d", "conv_transpose2d", "cosine_embedding_loss",
    "cross_entropy", "dropout", "dropout2d", "elu", "elu_", "embedding", "flatten", "fold", "gelu", "glu",
    "grid_sample", "group_norm", "hardtanh", "hardtanh_", "interpolate", "kl_div", "layer_norm", "leaky_relu",
    "linear", "log_softmax", "logsigmoid", "max_pool2d", "max_unpool2d", "mse_loss", "nll_loss", "normalize",
    "one_hot", "pad", "pixel_shuffle", "prelu", "relu", "relu6", "relu_", "sigmoid", "sigmoid_", "silu",
    "soft_margin_loss", "softmax", "tanh", "threshold", "threshold_", "unfold", "upsample",
    # also in MindSpore's module, outside its __all__
    "hardshrink", "hardsigmoid", "hardswish", "l1_loss", "mish", "selu", "smooth_l1_loss", "softplus",
    "softshrink", "max_pool1d", "max_pool3d", "adaptive_max_pool3d", "conv_transpose1d", "conv_transpose3d",
    "dropout1d", "dropout3d", "pixel_unshuffle", "cosine_similarity", "pairwise_distance", "softmin",
    "tanhshrink", "celu", "huber_loss", "margin_ranking_loss", "triplet_margin_loss", "hinge_embedding_loss",
    "multi_margin_loss", "multilabel_soft_margin_loss", "poisson_nll_loss", "gaussian_nll_loss", "ctc_loss",
    "pdist", "lp_pool1d", "lp_pool2d", "channel_shuffle", "instance_norm",
]  # fmt: skip


# ---------------------------------------------------------------------------------------------- activations
def relu(input, inplace: bool = False) -> Tensor:
    """max(input, 0)."""
    out = _nn_ops.relu(input)
    return _mint_ops._inplace(input, out) if inplace else out


def relu_(input) -> Tensor:
    """relu, written into `input`."""
    return _mint_ops._inplace(input, _nn_ops.relu(input))


def relu6(input, inplace: bool = False) -> Tensor:
    """min(max(input, 0), 6)."""
    out = _nn_ops.relu6(input)
    return _mint_ops._inplace(input, out) if inplace else out


def sigmoid(input) -> Tensor:
    """1 / (1 + exp(-input))."""
    return _ops.sigmoid(input)


def sigmoid_(input) -> Tensor:
    """sigmoid, written into `input`."""
    return _mint_ops._inplace(input, _ops.sigmoid(input))


def tanh(input) -> Tensor:
    """Hyperbolic tangent."""
    return _ops.tanh(input)


def silu(input, inplace: bool = False) -> Tensor:
    """input * sigmoid(input)."""
    out = _nn_ops.silu(input)
    return _mint_ops._inplace(input, out) if inplace else out


def elu(input, alpha: float = 1.0, inplace: bool = False) -> Tensor:
    """input where > 0, else alpha * (exp(input) - 1)."""
    out = _nn_ops.elu(input, float(alpha))
    return _mint_ops._inplace(input, out) if inplace else out


def elu_(input, alpha: float = 1.0) -> Tensor:
    """elu, written into `input`."""
    return _mint_ops._inplace(input, _nn_ops.elu(input, float(alpha)))


def gelu(input, approximate: str = "none") -> Tensor:
    """GELU: 'none' (erf form) or 'tanh' (the tanh approximation)."""
    return _nn_ops.gelu(input, approximate)


def glu(input, dim: int = -1) -> Tensor:
    """First half of `input` along `dim` times sigmoid of the second half (an empty dimension gives an empty
    result)."""
    d = _mint_ops._norm_dim(dim, input.ndim)
    n = input.shape[d]
    if n % 2:
        raise ValueError(f"glu(): dimension {dim} of the input {tuple(input.shape)} must have an even size.")
    a, b = _ops.narrow(input, d, 0, n // 2), _ops.narrow(input, d, n // 2, n // 2)
    return _ops.mul(a, _ops.sigmoid(b))


def hardtanh(input, min_val: float = -1.0, max_val: float = 1.0, inplace: bool = False) -> Tensor:
    """clip(input, min_val, max_val)."""
    out = _nn_ops.hardtanh(input, min_val, max_val)
    return _mint_ops._inplace(input, out) if inplace else out


def hardtanh_(input, min_val: float = -1.0, max_val: float = 1.0) -> Tensor:
    """hardtanh, written into `input`."""
    return _mint_ops._inplace(input, _nn_ops.hardtanh(input, min_val, max_val))


def leaky_relu(input, negative_slope: float = 0.01) -> Tensor:
    """input where >= 0, else negative_slope * input."""
    return _nn_ops.leaky_relu(input, float(negative_slope))


def logsigmoid(input) -> Tensor:
    """log(sigmoid(input)), computed stably."""
    return _nn_ops.logsigmoid(input)


def prelu(input, weight) -> Tensor:
    """input where >= 0, else weight * input (one weight, or one per channel of dimension 1)."""
    return _nn_ops.prelu(input, weight)


def threshold(input, threshold, value, inplace: bool = False) -> Tensor:  # noqa: A002
    """input where > threshold, else value."""
    out = _nn_ops.threshold(input, threshold, value)
    return _mint_ops._inplace(input, out) if inplace else out


def threshold_(input, threshold, value) -> Tensor:
    """threshold, written into `input`."""
    return _mint_ops._inplace(input, _nn_ops.threshold(input, threshold, value))


def _softmax_dim(ndim: int) -> int:
    return 0 if ndim in (0, 1, 3) else 1


def softmax(input, dim=None, dtype=None) -> Tensor:
    """Softmax along `dim` (None: dimension 0 for 0-, 1- and 3-D inputs, else 1)."""
    dim = _softmax_dim(input.ndim) if dim is None else dim
    return _ops.softmax(_mint_ops._cast(input, dtype), dim)


def log_softmax(input, dim=None, *, dtype=None) -> Tensor:
    """log(softmax(input)) along `dim` (None as in `softmax`)."""
    dim = _softmax_dim(input.ndim) if dim is None else dim
    return _nn_ops.log_softmax(_mint_ops._cast(input, dtype), dim)


def softmin(input, dim=None, dtype=None) -> Tensor:
    """softmax(-input) along `dim`."""
    return softmax(_ops.neg(input), dim, dtype)


hardshrink, softshrink, hardsigmoid, hardswish = (
    _nn_ops.hardshrink,
    _nn_ops.softshrink,
    _nn_ops.hardsigmoid,
    _nn_ops.hardswish,
)
mish, selu, softplus, tanhshrink, celu = _nn_ops.mish, _nn_ops.selu, _nn_ops.softplus, _nn_ops.tanhshrink, _nn_ops.celu


# ---------------------------------------------------------------------------------------------- linear, conv
def linear(input, weight, bias=None) -> Tensor:
    """input @ weight.T + bias.

    Args:
        input (Tensor): (*, in_features). weight (Tensor): (out_features, in_features).
        bias (Tensor, optional): (out_features,).

    Returns:
        Tensor of shape (*, out_features).
    """
    out = _ops.matmul(input, _ops.t(weight) if weight.ndim == 2 else weight)
    return out if bias is None else _ops.add(out, bias)


def conv1d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups: int = 1) -> Tensor:
    """1-D convolution over (N, C, L) (padding: an int, a 1-tuple, 'same' or 'valid')."""
    mode, pad = _split_padding(padding)
    if isinstance(pad, (tuple, list)) and len(pad) == 1:
        pad = pad[0]
    return _nn_ops.conv1d(input, weight, bias, stride, mode, pad, dilation, groups)


conv2d = _MINT["conv2d"]  # faces table


def conv3d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups: int = 1) -> Tensor:
    """3-D convolution over (N, C, D, H, W) (padding: an int, a triple, 'same' or 'valid')."""
    mode, pad = _split_padding(padding)
    return _nn_ops.conv3d(input, weight, bias, stride, mode, pad, dilation, groups)


def conv_transpose2d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1):
    """Transposed 2-D convolution; weight is (C_in, C_out / groups, kh, kw)."""
    return _nn_ops.conv_transpose2d(input, weight, bias, stride, padding, output_padding, groups, dilation)


conv_transpose1d = getattr(_nn_ops, "conv_transpose1d", None) or _ops.conv_transpose1d
conv_transpose3d = getattr(_nn_ops, "conv_transpose3d", None) or _ops.conv_transpose3d


def unfold(input, kernel_size, dilation=1, padding=0, stride=1) -> Tensor:
    """Sliding local blocks of (N, C, H, W) as columns: (N, C * kh * kw, L)."""
    return _conv.im2col(input, kernel_size, dilation, padding, stride)


def fold(input, output_size, kernel_size, dilation=1, padding=0, stride=1) -> Tensor:
    """Sum the columns (N, C * kh * kw, L) back into (N, C, H, W): the adjoint of `unfold`."""
    return _conv.col2im(input, output_size, kernel_size, dilation, padding, stride)


# ---------------------------------------------------------------------------------------------- pooling
def avg_pool1d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True) -> Tensor:
    """Average over windows of (N, C, L) (stride defaults to kernel_size)."""
    stride = kernel_size if stride is None else stride
    return _nn_ops.avg_pool1d(input, kernel_size, stride, padding, ceil_mode, count_include_pad)


def avg_pool2d(
    input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True, divisor_override=None
) -> Tensor:
    """Average over windows of (N, C, H, W) (stride defaults to kernel_size)."""
    stride = kernel_size if stride is None else stride
    return _nn_ops.avg_pool2d(input, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override or 0)


def avg_pool3d(
    input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True, divisor_override=None
) -> Tensor:
    """Average over windows of (N, C, D, H, W) (stride defaults to kernel_size)."""
    stride = kernel_size if stride is None else stride
    return _nn_ops.avg_pool3d(input, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override or 0)


def max_pool2d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
    """Maximum over windows of (N, C, H, W); with return_indices also the flat (h * W + w) argmax."""
    return _nn_ops.max_pool2d(
        input, kernel_size, stride, padding, dilation, return_indices=return_indices, ceil_mode=ceil_mode
    )


def max_pool1d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
    """Maximum over windows of (N, C, L)."""
    return _ops.max_pool1d(input, kernel_size, stride, padding, dilation, return_indices, ceil_mode)


def max_pool3d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
    """Maximum over windows of (N, C, D, H, W)."""
    return _ops.max_pool3d(input, kernel_size, stride, padding, dilation, ceil_mode, return_indices)


def max_unpool2d(input, indices, kernel_size, stride=None, padding=0, output_size=None) -> Tensor:
    """Scatter pooled maxima back to the positions `indices` (the inverse of max_pool2d)."""
    return _nn_ops.max_unpool2d(input, indices, kernel_size, stride, padding, output_size)


adaptive_avg_pool1d, adaptive_avg_pool2d, adaptive_avg_pool3d = (
    _ops.adaptive_avg_pool1d, _ops.adaptive_avg_pool2d, _ops.adaptive_avg_pool3d)  # fmt: skip


def adaptive_max_pool1d(input, output_size, return_indices: bool = False):
    """Maximum over adaptive windows of (N, C, L)."""
    return _ops.adaptive_max_pool1d(input, output_size, return_indices)


def adaptive_max_pool2d(input, output_size, return_indices: bool = False):
    """Maximum over adaptive windows of (N, C, H, W)."""
    return _ops.adaptive_max_pool2d(input, output_size, return_indices)


adaptive_max_pool3d = getattr(_ops, "adaptive_max_pool3d", None)
lp_pool1d, lp_pool2d = _ops.lp_pool1d, _ops.lp_pool2d


# ---------------------------------------------------------------------------------------------- normalisation
def batch_norm(
    input, running_mean, running_var, weight=None, bias=None, training=False, momentum=0.1, eps=1e-5
) -> Tensor:
    """Batch normalisation over dimension 1; in training the batch statistics are used and the running ones
    (Parameters) updated with weight `momentum`."""
    c = input.shape[1]
    if weight is None:
        weight = _ops.ones((c,), input.dtype)
    if bias is None:
        bias = _ops.zeros((c,), input.dtype)
    if running_mean is None or running_var is None:
        if not training:
            raise ValueError("batch_norm(): running_mean and running_var are needed when not training.")
        mean_, invstd = _mint_ops.batch_norm_stats(input, eps)
        return _mint_ops.batch_norm_elemt(input, weight, bias, mean_, invstd, eps)
    return _nn_ops.batch_norm(input, running_mean, running_var, weight, bias, training, momentum, eps)


def layer_norm(input, normalized_shape, weight=None, bias=None, eps: float = 1e-5) -> Tensor:
    """Normalise over the last len(normalized_shape) dimensions."""
    shape = (normalized_shape,) if isinstance(normalized_shape, int) else tuple(normalized_shape)
    return _nn_ops.layer_norm(input, shape, weight, bias, eps)


def group_norm(input, num_groups: int, weight=None, bias=None, eps: float = 1e-5) -> Tensor:
    """Normalise each group of channels."""
    return _nn_ops.group_norm(input, num_groups, weight, bias, eps)


def _normalise_with(input, mean, var, weight, bias, eps) -> Tensor:
    """(input - mean) / sqrt(var + eps) * weight + bias, with per-channel statistics (dimension 1)."""
    out = _ops.mul(
        _ops.sub(input, _mint_ops._channel_shape(input, mean)),
        _ops.rsqrt(_ops.add(_mint_ops._channel_shape(input, var), eps)),
    )
    if weight is not None:
        out = _ops.mul(out, _mint_ops._channel_shape(input, weight))
    if bias is not None:
        out = _ops.add(out, _mint_ops._channel_shape(input, bias))
    return out


def instance_norm(input, running_mean=None, running_var=None, weight=None, bias=None, use_input_stats=True,
                  momentum=0.1, eps=1e-5) -> Tensor:  # fmt: skip
    """Normalise each (sample, channel) over its spatial dimensions."""
    if not use_input_stats:
        if running_mean is None or running_var is None:
            raise ValueError(
                "instance_norm: use_input_stats=False normalises with running_mean and running_var; give both."
            )
        return _normalise_with(input, running_mean, running_var, weight, bias, eps)
    if running_mean is not None or running_var is not None:
        raise NotImplementedError(
            f"instance_norm: updating running_mean/running_var in place (momentum={momentum}) is not supported; "
            "pass them with use_input_stats=False to normalise with them, or leave them out."
        )
    axes = tuple(range(2, input.ndim))
    mean_ = _ops.mean(input, axes, True)
    var_ = _ops.mean(_ops.square(_ops.sub(input, mean_)), axes, True)
    out = _ops.mul(_ops.sub(input, mean_), _ops.rsqrt(_ops.add(var_, eps)))
    if weight is not None:
        out = _ops.mul(out, _mint_ops._channel_shape(input, weight))
    if bias is not None:
        out = _ops.add(out, _mint_ops._channel_shape(input, bias))
    return out


def normalize(input, p: float = 2.0, dim: int = 1, eps: float = 1e-12) -> Tensor:
    """input / max(||input||_p along dim, eps)."""
    return _nn_ops.normalize(input, p, dim, eps)


# ---------------------------------------------------------------------------------------------- dropout, embedding
def dropout(input, p: float = 0.5, training: bool = True, inplace: bool = False) -> Tensor:
    """Zero elements with probability p, scale the rest by 1 / (1 - p) (identity when not training)."""
    out = _nn_ops.dropout(input, p, training)
    return _mint_ops._inplace(input, out) if inplace and training else out


def dropout2d(input, p: float = 0.5, training: bool = True, inplace: bool = False) -> Tensor:
    """Zero whole channels of (N, C, H, W) with probability p."""
    out = _nn_ops.dropout2d(input, p, training)
    return _mint_ops._inplace(input, out) if inplace and training else out


dropout1d, dropout3d = _ops.dropout1d, _ops.dropout3d


def embedding(input, weight, padding_idx=None, max_norm=None, norm_type=2.0, scale_grad_by_freq=False) -> Tensor:
    """Rows of `weight` at the indices `input`."""
    return _nn_ops.embedding(input, weight, padding_idx, max_norm, norm_type, scale_grad_by_freq)


def one_hot(tensor, num_classes: int = -1) -> Tensor:
    """int64 one-hot encoding along a new last dimension (num_classes -1: max(tensor) + 1, eager only).

    As PyTorch's, a class value outside [0, num_classes) raises a RuntimeError naming it and num_classes, in
    PyNative at the call and in GRAPH_MODE when the graph runs (its value checks, on by default); with a
    graph's value checks turned off, such a value gives a row of zeros. (`ops.one_hot` and `nn.OneHot` give
    MindSpore's off_value rows instead, without an error.)
    """
    if num_classes == -1:
        num_classes = int(_ops.amax(tensor).item()) + 1
    return _apply(_prims_array.OneHotExt, (tensor,), (int(num_classes),))


# ---------------------------------------------------------------------------------------------- losses
def l1_loss(input, target, reduction: str = "mean") -> Tensor:
    """|input - target|, reduced."""
    return _nn_ops.l1_loss(input, target, reduction)


def mse_loss(input, target, reduction: str = "mean") -> Tensor:
    """(input - target) ** 2, reduced."""
    return _nn_ops.mse_loss(input, target, reduction)


def smooth_l1_loss(input, target, reduction: str = "mean", beta: float = 1.0) -> Tensor:
    """Huber-like loss: 0.5 d^2 / beta where |d| < beta, else |d| - 0.5 beta; reduced."""
    return _nn_ops.smooth_l1_loss(input, target, beta, reduction)


def huber_loss(input, target, reduction: str = "mean", delta: float = 1.0) -> Tensor:
    """0.5 d^2 where |d| < delta, else delta (|d| - 0.5 delta); reduced."""
    return _ops.huber_loss(input, target, reduction, delta)


def soft_margin_loss(input, target, reduction: str = "mean") -> Tensor:
    """log(1 + exp(-target * input)), reduced."""
    return _nn_ops.soft_margin_loss(input, target, reduction)


def binary_cross_entropy(input, target, weight=None, reduction: str = "mean") -> Tensor:
    """-(target log(input) + (1 - target) log(1 - input)), weighted and reduced."""
    return _nn_ops.binary_cross_entropy(input, target, weight, reduction)


def binary_cross_entropy_with_logits(input, target, weight=None, reduction="mean", pos_weight=None) -> Tensor:
    """binary_cross_entropy of sigmoid(input), computed stably; pos_weight weighs the positive term."""
    return _nn_ops.binary_cross_entropy_with_logits(input, target, weight, pos_weight, reduction)


def cross_entropy(input, target, weight=None, ignore_index=-100, reduction="mean", label_smoothing=0.0) -> Tensor:
    """Cross entropy of logits `input` (N, C, ...) with class indices or class probabilities `target`."""
    return _nn_ops.cross_entropy(input, target, weight, ignore_index, reduction, label_smoothing)


def nll_loss(input, target, weight=None, ignore_index: int = -100, reduction: str = "mean") -> Tensor:
    """Negative log-likelihood of log-probabilities `input` (N, C, ...) at class indices `target`."""
    return _nn_ops.nll_loss(input, target, weight, ignore_index, reduction)


def kl_div(input, target, reduction: str = "mean", log_target: bool = False) -> Tensor:
    """KL divergence with log-probabilities `input`: target * (log(target) - input) (log_target: target is a
    log-probability); reduction 'mean', 'sum', 'batchmean' or 'none'."""
    if reduction not in ("mean", "sum", "batchmean", "none"):
        raise ValueError(f"kl_div(): 'reduction' must be 'mean', 'sum', 'batchmean' or 'none', got {reduction!r}.")
    if log_target:
        terms = _ops.mul(_ops.exp(target), _ops.sub(target, input))
    else:
        terms = _ops.where(
            _ops.greater(target, 0), _ops.mul(target, _ops.sub(_ops.log(_ops.maximum(target, 1e-38)), input)),
            _ops.zeros_like(_ops.mul(target, input)),
        )  # fmt: skip
    if reduction == "none":
        return terms
    if reduction == "sum":
        return _ops.sum(terms)
    if reduction == "batchmean":
        return _ops.div(_ops.sum(terms), input.shape[0] if input.ndim else 1)
    return _ops.mean(terms)


def cosine_embedding_loss(input1, input2, target, margin: float = 0.0, reduction: str = "mean") -> Tensor:
    """1 - cos(x1, x2) for target 1, max(0, cos(x1, x2) - margin) for target -1; reduced."""
    return _nn_ops.cosine_embedding_loss(input1, input2, target, margin, reduction)


margin_ranking_loss, triplet_margin_loss, hinge_embedding_loss = (
    _ops.margin_ranking_loss, _ops.triplet_margin_loss, _ops.hinge_embedding_loss)  # fmt: skip
multi_margin_loss, multilabel_soft_margin_loss = _ops.multi_margin_loss, _ops.multilabel_soft_margin_loss
poisson_nll_loss, gaussian_nll_loss, ctc_loss = _ops.poisson_nll_loss, _ops.gaussian_nll_loss, _ops.ctc_loss


# ---------------------------------------------------------------------------------------------- shape, resampling
def flatten(input, start_dim: int = 0, end_dim: int = -1) -> Tensor:
    """Merge dimensions start_dim..end_dim (a 0-d input becomes shape (1,))."""
    if input.ndim == 0:
        return _ops.reshape(input, (1,))
    return _ops.flatten(input, start_dim=start_dim, end_dim=end_dim)


def pad(input, pad, mode: str = "constant", value=None) -> Tensor:  # noqa: A002
    """Pad the last dimensions: `pad` is (left, right, top, bottom, ...), last dimension first; mode 'constant',
    'reflect', 'replicate' or 'circular'."""
    return _ops.pad(input, tuple(pad), mode, value)


def pixel_shuffle(input, upscale_factor: int) -> Tensor:
    """(N, C r^2, H, W) -> (N, C, H r, W r)."""
    return _nn_ops.pixel_shuffle(input, upscale_factor)


pixel_unshuffle, channel_shuffle = _ops.pixel_unshuffle, _ops.channel_shuffle


def interpolate(input, size=None, scale_factor=None, mode="nearest", align_corners=None, recompute_scale_factor=None):
    """Resize spatial dimensions ('nearest', 'linear', 'bilinear', 'bicubic', 'trilinear', 'area', ...)."""
    return _ops.interpolate(input, size, scale_factor, mode, align_corners, recompute_scale_factor)


def upsample(input, size=None, scale_factor=None, mode="nearest", align_corners=None) -> Tensor:
    """`interpolate` under its older name."""
    return _ops.interpolate(input, size, scale_factor, mode, align_corners)


def grid_sample(input, grid, mode="bilinear", padding_mode="zeros", align_corners=None) -> Tensor:
    """Sample (N, C, H, W) at the normalised positions of grid (N, Ho, Wo, 2)."""
    return _image.grid_sample(input, grid, mode, padding_mode, align_corners)


def cosine_similarity(x1, x2, dim: int = 1, eps: float = 1e-8) -> Tensor:
    """Cosine of the angle between x1 and x2 along `dim`."""
    return _ops.cosine_similarity(x1, x2, dim, eps)


def pairwise_distance(x1, x2, p: float = 2.0, eps: float = 1e-6, keepdim: bool = False) -> Tensor:
    """p-norm of x1 - x2 + eps along the last dimension."""
    return _ops.vector_norm(_ops.add(_ops.sub(x1, x2), eps), p, -1, keepdim)


pdist = _ops.pdist
