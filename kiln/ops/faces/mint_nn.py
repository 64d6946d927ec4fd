"""mint's faces of linear-algebra and neural-network ops (distances, batched products, convolution in
(time, batch, channel) layout, GELU, batch-norm statistics) over the functional ops."""

from __future__ import annotations

from kiln._core.primitive import REGISTRY
from kiln._core.tensor import Tensor
from kiln._pynative.dispatch import apply
from kiln.ops.faces.mint_args import _channel_shape, _inplace
from kiln.ops.faces.row import _named, ops

__all__ = [
    "_mint_addr_",
    "_mint_batch_norm_elemt",
    "_mint_batch_norm_gather_stats_with_counts",
    "_mint_batch_norm_stats",
    "_mint_bmm",
    "_mint_cdist",
    "_mint_conv_tbc",
    "_mint_cross",
    "_mint_einsum",
    "_mint_mv",
    "_mint_npu_gelu",
    "_mint_vdot",
]


@_named("cdist")
def _mint_cdist(x1, x2, p: float = 2.0, compute_mode: str = "use_mm_for_euclid_dist_if_necessary") -> Tensor:
    """p-norm distance between each row of x1 and each row of x2 (batched)."""
    return ops.cdist(x1, x2, float(p))


@_named("bmm")
def _mint_bmm(input, mat2) -> Tensor:
    """Batched matrix product of (b, n, m) and (b, m, p)."""
    # MindSpore's BatchMatMulExt, which amp level O1 does not list (ops.bmm's BatchMatMul it does)
    return apply(REGISTRY["BatchMatMul"], (input, mat2), (False, False), amp_listed=False)


@_named("mv")
def _mint_mv(input, vec) -> Tensor:
    """Matrix-vector product."""
    return ops.mv(input, vec)


@_named("vdot")
def _mint_vdot(input, other) -> Tensor:
    """Dot product of two 1-D tensors, the first conjugated."""
    if input.ndim != 1 or other.ndim != 1:
        raise ValueError(f"vdot(): both inputs must be 1-D, but got {input.ndim}-D and {other.ndim}-D.")
    return ops.sum(ops.mul(ops.conj(input), other))


@_named("addr_")
def _mint_addr_(input, vec1, vec2, beta=1, alpha=1) -> Tensor:
    """beta * input + alpha * outer(vec1, vec2)."""
    return ops.addr(input, vec1, vec2, beta=beta, alpha=alpha)


@_named("cross")
def _mint_cross(input, other, dim=None) -> Tensor:
    """Cross product of 3-vectors along `dim` (the first dimension of size 3 when None)."""
    return ops.cross(input, other, dim)


@_named("einsum")
def _mint_einsum(equation: str, *operands) -> Tensor:
    """Einstein summation."""
    return ops.einsum(equation, *operands)


@_named("conv_tbc")
def _mint_conv_tbc(input, weight, bias, pad: int = 0) -> Tensor:
    """1-D convolution in (time, batch, channel) layout: input (T, B, Cin), weight (K, Cin, Cout).

    Args:
        input (Tensor): (T, B, Cin). weight (Tensor): (K, Cin, Cout). bias (Tensor): (Cout,).
        pad (int): zeros added at both ends of the time dimension.

    Returns:
        Tensor of shape (T + 2 * pad - K + 1, B, Cout).
    """
    x = ops.permute(input, (1, 2, 0))
    w = ops.permute(weight, (2, 1, 0))
    out = ops.conv1d(x, w, bias, 1, "pad" if pad else "valid", int(pad))
    return ops.permute(out, (2, 0, 1))


@_named("npu_gelu")
def _mint_npu_gelu(input, approximate: str = "none") -> Tensor:
    """GELU ('none': exact erf form; 'tanh': the tanh approximation)."""
    return ops.gelu(input, approximate)


@_named("batch_norm_stats")
def _mint_batch_norm_stats(input, eps: float):
    """(mean, 1 / sqrt(biased var + eps)) per channel (dimension 1), over every other dimension."""
    axes = tuple(i for i in range(input.ndim) if i != 1)
    mean_ = ops.mean(input, axes)
    var_ = ops.mean(ops.square(ops.sub(input, _channel_shape(input, mean_))), axes)
    return mean_, ops.rsqrt(ops.add(var_, eps))


@_named("batch_norm_elemt")
def _mint_batch_norm_elemt(input, weight=None, bias=None, mean=None, invstd=None, eps: float = 1e-5) -> Tensor:
    """(input - mean) * invstd * weight + bias per channel (dimension 1)."""
    out = ops.mul(ops.sub(input, _channel_shape(input, mean)), _channel_shape(input, invstd))
    if weight is not None:
        out = ops.mul(out, _channel_shape(input, weight))
    if bias is not None:
        out = ops.add(out, _channel_shape(input, bias))
    return out


@_named("batch_norm_gather_stats_with_counts")
def _mint_batch_norm_gather_stats_with_counts(
    input, mean, invstd, running_mean=None, running_var=None, momentum: float = 0.1, eps: float = 1e-5, counts=None
):
    """Combine per-group statistics (rows of `mean`, `invstd`, with `counts` samples each) into global ones.

    Running statistics (Parameters) are updated in place: running_mean by the global mean, running_var by
    the unbiased global variance, each with weight `momentum`.

    Returns:
        tuple (mean, invstd) per channel.
    """
    counts = ops.reshape(ops.cast(counts, mean.dtype), (-1, 1))
    total = ops.sum(counts)
    g_mean = ops.div(ops.sum(ops.mul(mean, counts), 0), total)
    var_i = ops.sub(ops.reciprocal(ops.square(invstd)), eps)
    g_var = ops.div(ops.sum(ops.mul(counts, ops.add(var_i, ops.square(ops.sub(mean, g_mean)))), 0), total)
    if running_mean is not None:
        _inplace(running_mean, ops.add(ops.mul(running_mean, 1 - momentum), ops.mul(g_mean, momentum)))
    if running_var is not None:
        unbiased = ops.mul(g_var, ops.div(total, ops.sub(total, 1)))
        _inplace(running_var, ops.add(ops.mul(running_var, 1 - momentum), ops.mul(unbiased, momentum)))
    return g_mean, ops.rsqrt(ops.add(g_var, eps))
