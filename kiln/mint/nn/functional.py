"""`kiln.mint.nn.functional`: PyTorch-style functional layers over Kiln's ops (`mint.nn.functional as F`)."""

from __future__ import annotations

from kiln import ops
from kiln._core import dtype as mstype
from kiln._core.tensor import Tensor
from kiln.mint import _ops as M
from kiln.ops import image
from kiln.ops import nn as nn_ops
from kiln.ops._args import split_padding
from kiln.ops.faces import MINT
from kiln.ops.nn import conv

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
    out = nn_ops.relu(input)
    return M._inplace(input, out) if inplace else out


def relu_(input) -> Tensor:
    """relu, written into `input`."""
    return M._inplace(input, nn_ops.relu(input))


def relu6(input, inplace: bool = False) -> Tensor:
    """min(max(input, 0), 6)."""
    out = nn_ops.relu6(input)
    return M._inplace(input, out) if inplace else out


def sigmoid(input) -> Tensor:
    """1 / (1 + exp(-input))."""
    return ops.sigmoid(input)


def sigmoid_(input) -> Tensor:
    """sigmoid, written into `input`."""
    return M._inplace(input, ops.sigmoid(input))


def tanh(input) -> Tensor:
    """Hyperbolic tangent."""
    return ops.tanh(input)


def silu(input, inplace: bool = False) -> Tensor:
    """input * sigmoid(input)."""
    out = nn_ops.silu(input)
    return M._inplace(input, out) if inplace else out


def elu(input, alpha: float = 1.0, inplace: bool = False) -> Tensor:
    """input where > 0, else alpha * (exp(input) - 1)."""
    out = nn_ops.elu(input, float(alpha))
    return M._inplace(input, out) if inplace else out


def elu_(input, alpha: float = 1.0) -> Tensor:
    """elu, written into `input`."""
    return M._inplace(input, nn_ops.elu(input, float(alpha)))


def gelu(input, approximate: str = "none") -> Tensor:
    """GELU: 'none' (erf form) or 'tanh' (the tanh approximation)."""
    return nn_ops.gelu(input, approximate)


def glu(input, dim: int = -1) -> Tensor:
    """First half of `input` along `dim` times sigmoid of the second half (an empty dimension gives an empty
    result)."""
    d = M._norm_dim(dim, input.ndim)
    n = input.shape[d]
    if n % 2:
        raise ValueError(f"glu(): dimension {dim} of the input {tuple(input.shape)} must have an even size.")
    a, b = ops.narrow(input, d, 0, n // 2), ops.narrow(input, d, n // 2, n // 2)
    return ops.mul(a, ops.sigmoid(b))


def hardtanh(input, min_val: float = -1.0, max_val: float = 1.0, inplace: bool = False) -> Tensor:
    """clip(input, min_val, max_val)."""
    out = nn_ops.hardtanh(input, min_val, max_val)
    return M._inplace(input, out) if inplace else out


def hardtanh_(input, min_val: float = -1.0, max_val: float = 1.0) -> Tensor:
    """hardtanh, written into `input`."""
    return M._inplace(input, nn_ops.hardtanh(input, min_val, max_val))


def leaky_relu(input, negative_slope: float = 0.01) -> Tensor:
    """input where >= 0, else negative_slope * input."""
    return nn_ops.leaky_relu(input, float(negative_slope))


def logsigmoid(input) -> Tensor:
    """log(sigmoid(input)), computed stably."""
    return nn_ops.logsigmoid(input)


def prelu(input, weight) -> Tensor:
    """input where >= 0, else weight * input (one weight, or one per channel of dimension 1)."""
    return nn_ops.prelu(input, weight)


def threshold(input, threshold, value, inplace: bool = False) -> Tensor:  # noqa: A002
    """input where > threshold, else value."""
    out = nn_ops.threshold(input, threshold, value)
    return M._inplace(input, out) if inplace else out


def threshold_(input, threshold, value) -> Tensor:
    """threshold, written into `input`."""
    return M._inplace(input, nn_ops.threshold(input, threshold, value))


def _softmax_dim(ndim: int) -> int:
    return 0 if ndim in (0, 1, 3) else 1


def softmax(input, dim=None, dtype=None) -> Tensor:
    """Softmax along `dim` (None: dimension 0 for 0-, 1- and 3-D inputs, else 1)."""
    dim = _softmax_dim(input.ndim) if dim is None else dim
    return ops.softmax(M._cast(input, dtype), dim)


def log_softmax(input, dim=None, *, dtype=None) -> Tensor:
    """log(softmax(input)) along `dim` (None as in `softmax`)."""
    dim = _softmax_dim(input.ndim) if dim is None else dim
    return nn_ops.log_softmax(M._cast(input, dtype), dim)


def softmin(input, dim=None, dtype=None) -> Tensor:
    """softmax(-input) along `dim`."""
    return softmax(ops.neg(input), dim, dtype)


hardshrink, softshrink, hardsigmoid, hardswish = (
    nn_ops.hardshrink,
    nn_ops.softshrink,
    nn_ops.hardsigmoid,
    nn_ops.hardswish,
)
mish, selu, softplus, tanhshrink, celu = nn_ops.mish, nn_ops.selu, nn_ops.softplus, nn_ops.tanhshrink, nn_ops.celu


# ---------------------------------------------------------------------------------------------- linear, conv
def linear(input, weight, bias=None) -> Tensor:
    """input @ weight.T + bias.

    Args:
        input (Tensor): (*, in_features). weight (Tensor): (out_features, in_features).
        bias (Tensor, optional): (out_features,).

    Returns:
        Tensor of shape (*, out_features).
    """
    out = ops.matmul(input, ops.t(weight) if weight.ndim == 2 else weight)
    return out if bias is None else ops.add(out, bias)


def conv1d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups: int = 1) -> Tensor:
    """1-D convolution over (N, C, L) (padding: an int, a 1-tuple, 'same' or 'valid')."""
    mode, pad = split_padding(padding)
    if isinstance(pad, (tuple, list)) and len(pad) == 1:
        pad = pad[0]
    return nn_ops.conv1d(input, weight, bias, stride, mode, pad, dilation, groups)


conv2d = MINT["conv2d"]  # faces table


def conv3d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups: int = 1) -> Tensor:
    """3-D convolution over (N, C, D, H, W) (padding: an int, a triple, 'same' or 'valid')."""
    mode, pad = split_padding(padding)
    return nn_ops.conv3d(input, weight, bias, stride, mode, pad, dilation, groups)


def conv_transpose2d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1):
    """Transposed 2-D convolution; weight is (C_in, C_out / groups, kh, kw)."""
    return nn_ops.conv_transpose2d(input, weight, bias, stride, padding, output_padding, groups, dilation)


conv_transpose1d = getattr(nn_ops, "conv_transpose1d", None) or ops.conv_transpose1d
conv_transpose3d = getattr(nn_ops, "conv_transpose3d", None) or ops.conv_transpose3d


def unfold(input, kernel_size, dilation=1, padding=0, stride=1) -> Tensor:
    """Sliding local blocks of (N, C, H, W) as columns: (N, C * kh * kw, L)."""
    return conv.im2col(input, kernel_size, dilation, padding, stride)


def fold(input, output_size, kernel_size, dilation=1, padding=0, stride=1) -> Tensor:
    """Sum the columns (N, C * kh * kw, L) back into (N, C, H, W): the adjoint of `unfold`."""
    return conv.col2im(input, output_size, kernel_size, dilation, padding, stride)


# ---------------------------------------------------------------------------------------------- pooling
def avg_pool1d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True) -> Tensor:
    """Average over windows of (N, C, L) (stride defaults to kernel_size)."""
    stride = kernel_size if stride is None else stride
    return nn_ops.avg_pool1d(input, kernel_size, stride, padding, ceil_mode, count_include_pad)


def avg_pool2d(
    input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True, divisor_override=None
) -> Tensor:
    """Average over windows of (N, C, H, W) (stride defaults to kernel_size)."""
    stride = kernel_size if stride is None else stride
    return nn_ops.avg_pool2d(input, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override or 0)


def avg_pool3d(
    input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True, divisor_override=None
) -> Tensor:
    """Average over windows of (N, C, D, H, W) (stride defaults to kernel_size)."""
    stride = kernel_size if stride is None else stride
    return nn_ops.avg_pool3d(input, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override or 0)


def max_pool2d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
    """Maximum over windows of (N, C, H, W); with return_indices also the flat (h * W + w) argmax."""
    return nn_ops.max_pool2d(
        input, kernel_size, stride, padding, dilation, return_indices=return_indices, ceil_mode=ceil_mode
    )


def max_pool1d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
    """Maximum over windows of (N, C, L)."""
    return ops.max_pool1d(input, kernel_size, stride, padding, dilation, return_indices, ceil_mode)


def max_pool3d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
    """Maximum over windows of (N, C, D, H, W)."""
    return ops.max_pool3d(input, kernel_size, stride, padding, dilation, ceil_mode, return_indices)


def max_unpool2d(input, indices, kernel_size, stride=None, padding=0, output_size=None) -> Tensor:
    """Scatter pooled maxima back to the positions `indices` (the inverse of max_pool2d)."""
    return nn_ops.max_unpool2d(input, indices, kernel_size, stride, padding, output_size)


adaptive_avg_pool1d, adaptive_avg_pool2d, adaptive_avg_pool3d = (
    ops.adaptive_avg_pool1d, ops.adaptive_avg_pool2d, ops.adaptive_avg_pool3d)  # fmt: skip


def adaptive_max_pool1d(input, output_size, return_indices: bool = False):
    """Maximum over adaptive windows of (N, C, L)."""
    return ops.adaptive_max_pool1d(input, output_size, return_indices)


def adaptive_max_pool2d(input, output_size, return_indices: bool = False):
    """Maximum over adaptive windows of (N, C, H, W)."""
    return ops.adaptive_max_pool2d(input, output_size, return_indices)


adaptive_max_pool3d = getattr(ops, "adaptive_max_pool3d", None)
lp_pool1d, lp_pool2d = ops.lp_pool1d, ops.lp_pool2d


# ---------------------------------------------------------------------------------------------- normalisation
def batch_norm(
    input, running_mean, running_var, weight=None, bias=None, training=False, momentum=0.1, eps=1e-5
) -> Tensor:
    """Batch normalisation over dimension 1; in training the batch statistics are used and the running ones
    (Parameters) updated with weight `momentum`."""
    c = input.shape[1]
    if weight is None:
        weight = ops.ones((c,), input.dtype)
    if bias is None:
        bias = ops.zeros((c,), input.dtype)
    if running_mean is None or running_var is None:
        if not training:
            raise ValueError("batch_norm(): running_mean and running_var are needed when not training.")
        mean_, invstd = M.batch_norm_stats(input, eps)
        return M.batch_norm_elemt(input, weight, bias, mean_, invstd, eps)
    return nn_ops.batch_norm(input, running_mean, running_var, weight, bias, training, momentum, eps)


def layer_norm(input, normalized_shape, weight=None, bias=None, eps: float = 1e-5) -> Tensor:
    """Normalise over the last len(normalized_shape) dimensions."""
    shape = (normalized_shape,) if isinstance(normalized_shape, int) else tuple(normalized_shape)
    return nn_ops.layer_norm(input, shape, weight, bias, eps)


def group_norm(input, num_groups: int, weight=None, bias=None, eps: float = 1e-5) -> Tensor:
    """Normalise each group of channels."""
    return nn_ops.group_norm(input, num_groups, weight, bias, eps)


def _normalise_with(input, mean, var, weight, bias, eps) -> Tensor:
    """(input - mean) / sqrt(var + eps) * weight + bias, with per-channel statistics (dimension 1)."""
    out = ops.mul(ops.sub(input, M._channel_shape(input, mean)), ops.rsqrt(ops.add(M._channel_shape(input, var), eps)))
    if weight is not None:
        out = ops.mul(out, M._channel_shape(input, weight))
    if bias is not None:
        out = ops.add(out, M._channel_shape(input, bias))
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
    mean_ = ops.mean(input, axes, True)
    var_ = ops.mean(ops.square(ops.sub(input, mean_)), axes, True)
    out = ops.mul(ops.sub(input, mean_), ops.rsqrt(ops.add(var_, eps)))
    if weight is not None:
        out = ops.mul(out, M._channel_shape(input, weight))
    if bias is not None:
        out = ops.add(out, M._channel_shape(input, bias))
    return out


def normalize(input, p: float = 2.0, dim: int = 1, eps: float = 1e-12) -> Tensor:
    """input / max(||input||_p along dim, eps)."""
    return nn_ops.normalize(input, p, dim, eps)


# ---------------------------------------------------------------------------------------------- dropout, embedding
def dropout(input, p: float = 0.5, training: bool = True, inplace: bool = False) -> Tensor:
    """Zero elements with probability p, scale the rest by 1 / (1 - p) (identity when not training)."""
    out = nn_ops.dropout(input, p, training)
    return M._inplace(input, out) if inplace and training else out


def dropout2d(input, p: float = 0.5, training: bool = True, inplace: bool = False) -> Tensor:
    """Zero whole channels of (N, C, H, W) with probability p."""
    out = nn_ops.dropout2d(input, p, training)
    return M._inplace(input, out) if inplace and training else out


dropout1d, dropout3d = ops.dropout1d, ops.dropout3d


def embedding(input, weight, padding_idx=None, max_norm=None, norm_type=2.0, scale_grad_by_freq=False) -> Tensor:
    """Rows of `weight` at the indices `input`."""
    return nn_ops.embedding(input, weight, padding_idx, max_norm, norm_type, scale_grad_by_freq)


def one_hot(tensor, num_classes: int = -1) -> Tensor:
    """int64 one-hot encoding along a new last dimension (num_classes -1: max(tensor) + 1, eager only)."""
    if num_classes == -1:
        num_classes = int(ops.amax(tensor).item()) + 1
    return ops.cast(ops.one_hot(tensor, int(num_classes), 1, 0, -1), mstype.int64)


# ---------------------------------------------------------------------------------------------- losses
def l1_loss(input, target, reduction: str = "mean") -> Tensor:
    """|input - target|, reduced."""
    return nn_ops.l1_loss(input, target, reduction)


def mse_loss(input, target, reduction: str = "mean") -> Tensor:
    """(input - target) ** 2, reduced."""
    return nn_ops.mse_loss(input, target, reduction)


def smooth_l1_loss(input, target, reduction: str = "mean", beta: float = 1.0) -> Tensor:
    """Huber-like loss: 0.5 d^2 / beta where |d| < beta, else |d| - 0.5 beta; reduced."""
    return nn_ops.smooth_l1_loss(input, target, beta, reduction)


def huber_loss(input, target, reduction: str = "mean", delta: float = 1.0) -> Tensor:
    """0.5 d^2 where |d| < delta, else delta (|d| - 0.5 delta); reduced."""
    return ops.huber_loss(input, target, reduction, delta)


def soft_margin_loss(input, target, reduction: str = "mean") -> Tensor:
    """log(1 + exp(-target * input)), reduced."""
    return nn_ops.soft_margin_loss(input, target, reduction)


def binary_cross_entropy(input, target, weight=None, reduction: str = "mean") -> Tensor:
    """-(target log(input) + (1 - target) log(1 - input)), weighted and reduced."""
    return nn_ops.binary_cross_entropy(input, target, weight, reduction)


def binary_cross_entropy_with_logits(input, target, weight=None, reduction="mean", pos_weight=None) -> Tensor:
    """binary_cross_entropy of sigmoid(input), computed stably; pos_weight weighs the positive term."""
    return nn_ops.binary_cross_entropy_with_logits(input, target, weight, pos_weight, reduction)


def cross_entropy(input, target, weight=None, ignore_index=-100, reduction="mean", label_smoothing=0.0) -> Tensor:
    """Cross entropy of logits `input` (N, C, ...) with class indices or class probabilities `target`."""
    return nn_ops.cross_entropy(input, target, weight, ignore_index, reduction, label_smoothing)


def nll_loss(input, target, weight=None, ignore_index: int = -100, reduction: str = "mean") -> Tensor:
    """Negative log-likelihood of log-probabilities `input` (N, C, ...) at class indices `target`."""
    return nn_ops.nll_loss(input, target, weight, ignore_index, reduction)


def kl_div(input, target, reduction: str = "mean", log_target: bool = False) -> Tensor:
    """KL divergence with log-probabilities `input`: target * (log(target) - input) (log_target: target is a
    log-probability); reduction 'mean', 'sum', 'batchmean' or 'none'."""
    if reduction not in ("mean", "sum", "batchmean", "none"):
        raise ValueError(f"kl_div(): 'reduction' must be 'mean', 'sum', 'batchmean' or 'none', got {reduction!r}.")
    if log_target:
        terms = ops.mul(ops.exp(target), ops.sub(target, input))
    else:
        terms = ops.where(
            ops.greater(target, 0), ops.mul(target, ops.sub(ops.log(ops.maximum(target, 1e-38)), input)),
            ops.zeros_like(ops.mul(target, input)),
        )  # fmt: skip
    if reduction == "none":
        return terms
    if reduction == "sum":
        return ops.sum(terms)
    if reduction == "batchmean":
        return ops.div(ops.sum(terms), input.shape[0] if input.ndim else 1)
    return ops.mean(terms)


def cosine_embedding_loss(input1, input2, target, margin: float = 0.0, reduction: str = "mean") -> Tensor:
    """1 - cos(x1, x2) for target 1, max(0, cos(x1, x2) - margin) for target -1; reduced."""
    return nn_ops.cosine_embedding_loss(input1, input2, target, margin, reduction)


margin_ranking_loss, triplet_margin_loss, hinge_embedding_loss = (
    ops.margin_ranking_loss, ops.triplet_margin_loss, ops.hinge_embedding_loss)  # fmt: skip
multi_margin_loss, multilabel_soft_margin_loss = ops.multi_margin_loss, ops.multilabel_soft_margin_loss
poisson_nll_loss, gaussian_nll_loss, ctc_loss = ops.poisson_nll_loss, ops.gaussian_nll_loss, ops.ctc_loss


# ---------------------------------------------------------------------------------------------- shape, resampling
def flatten(input, start_dim: int = 0, end_dim: int = -1) -> Tensor:
    """Merge dimensions start_dim..end_dim (a 0-d input becomes shape (1,))."""
    if input.ndim == 0:
        return ops.reshape(input, (1,))
    return ops.flatten(input, start_dim=start_dim, end_dim=end_dim)


def pad(input, pad, mode: str = "constant", value=None) -> Tensor:  # noqa: A002
    """Pad the last dimensions: `pad` is (left, right, top, bottom, ...), last dimension first; mode 'constant',
    'reflect', 'replicate' or 'circular'."""
    return ops.pad(input, tuple(pad), mode, value)


def pixel_shuffle(input, upscale_factor: int) -> Tensor:
    """(N, C r^2, H, W) -> (N, C, H r, W r)."""
    return nn_ops.pixel_shuffle(input, upscale_factor)


pixel_unshuffle, channel_shuffle = ops.pixel_unshuffle, ops.channel_shuffle


def interpolate(input, size=None, scale_factor=None, mode="nearest", align_corners=None, recompute_scale_factor=None):
    """Resize spatial dimensions ('nearest', 'linear', 'bilinear', 'bicubic', 'trilinear', 'area', ...)."""
    return ops.interpolate(input, size, scale_factor, mode, align_corners, recompute_scale_factor)


def upsample(input, size=None, scale_factor=None, mode="nearest", align_corners=None) -> Tensor:
    """`interpolate` under its older name."""
    return ops.interpolate(input, size, scale_factor, mode, align_corners)


def grid_sample(input, grid, mode="bilinear", padding_mode="zeros", align_corners=None) -> Tensor:
    """Sample (N, C, H, W) at the normalised positions of grid (N, Ho, Wo, 2)."""
    return image.grid_sample(input, grid, mode, padding_mode, align_corners)


def cosine_similarity(x1, x2, dim: int = 1, eps: float = 1e-8) -> Tensor:
    """Cosine of the angle between x1 and x2 along `dim`."""
    return ops.cosine_similarity(x1, x2, dim, eps)


def pairwise_distance(x1, x2, p: float = 2.0, eps: float = 1e-6, keepdim: bool = False) -> Tensor:
    """p-norm of x1 - x2 + eps along the last dimension."""
    return ops.vector_norm(ops.add(ops.sub(x1, x2), eps), p, -1, keepdim)


pdist = ops.pdist
