"""Functional normalisation: batch_norm, layer_norm, group_norm, normalize and local response normalisation."""

from __future__ import annotations

import builtins

from kiln._core.tensor import Parameter, Tensor
from kiln._core.unsupported import refuse_argument
from kiln._prims.nn import norm as N
from kiln._prims.nn import norm as prims_norm
from kiln.ops import array, math
from kiln.ops._helpers import apply, op_error, write_back

__all__ = ["lrn", "batch_norm", "layer_norm", "group_norm", "normalize"]


def lrn(x, depth_radius=5, bias=1.0, alpha=1.0, beta=0.5, norm_region="ACROSS_CHANNELS") -> Tensor:
    """Local response normalisation across channels of NCHW input:
    x / (bias + alpha * sum of squares over 2 * depth_radius + 1 channels) ** beta."""
    refuse_argument("ops.lrn", "norm_region", norm_region, "ACROSS_CHANNELS", reason="the sum runs across channels")
    c = x.shape[1]
    sq = math.square(x)
    padded = array.pad(sq, (0, 0, 0, 0, depth_radius, depth_radius))
    acc = builtins.sum(array.narrow(padded, 1, i, c) for i in builtins.range(2 * depth_radius + 1))
    return x / math.pow(bias + alpha * acc, beta)


def batch_norm(input_x, running_mean, running_var, weight, bias, training=False, momentum=0.1, eps=1e-5) -> Tensor:
    """Batch normalisation over every axis but the channel axis 1.

    In training, the batch statistics normalise the input and the running
    statistics are updated in place (when they are Parameters):
    running = (1 - momentum) * running + momentum * batch (unbiased variance).

    Args:
        input_x (Tensor): (N, C, ...).
        running_mean (Tensor): (C,), the moving mean.
        running_var (Tensor): (C,), the moving variance.
        weight (Tensor): (C,) scale (gamma).
        bias (Tensor): (C,) shift (beta).
        training (bool): use batch statistics and update the running ones. Default: False.
        momentum (float): weight of the batch statistics in the update. Default: 0.1.
        eps (float): added to the variance for stability. Default: 1e-5.

    Returns:
        Tensor of the input's shape.
    """
    y, _, _, new_mean, new_var = apply(
        N.BatchNorm,
        (input_x, weight, bias, running_mean, running_var),
        (bool(training), float(eps), float(momentum), "NCHW"),
    )
    if training:
        update_moving_stats(running_mean, running_var, new_mean, new_var)
    return y


def update_moving_stats(mean, var, new_mean: Tensor, new_var: Tensor) -> None:
    """Write BatchNorm's updated moving statistics into the Parameters that hold them. In PyNative they may wait in
    the lazy window (`write_back`'s `wait`): reading them runs it, and a failed op's error is raised again then."""
    targets = [(t, v) for t, v in ((mean, new_mean), (var, new_var)) if isinstance(t, Parameter)]
    if targets:
        write_back([t for t, _ in targets], [v for _, v in targets], wait=True)


def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-5) -> Tensor:
    """Normalise over the trailing `normalized_shape` axes, then scale and shift.

    Args:
        input (Tensor): the input.
        normalized_shape (Union[int, tuple[int]]): the trailing shape to normalise over.
        weight (Tensor, optional): scale of shape `normalized_shape`.
        bias (Tensor, optional): shift of shape `normalized_shape`.
        eps (float): added to the variance. Default: 1e-5.

    Returns:
        Tensor of the input's shape.
    """
    shape = (normalized_shape,) if isinstance(normalized_shape, int) else tuple(normalized_shape)
    if tuple(input.shape[input.ndim - len(shape) :]) != shape or len(shape) > input.ndim:
        raise op_error(
            "LayerNorm",
            f"'normalized_shape' {list(shape)} must equal the trailing dimensions of the "
            f"input shape {list(input.shape)}.",
        )
    axis = input.ndim - len(shape)
    return apply(N.LayerNorm, (input, weight, bias), (axis, axis, float(eps)))[0]


def group_norm(input, num_groups: int, weight=None, bias=None, eps=1e-5) -> Tensor:
    """Normalise each group of channels of (N, C, ...) over the group and the spatial axes.

    Args:
        input (Tensor): (N, C, ...).
        num_groups (int): number of groups; must divide C.
        weight (Tensor, optional): (C,) scale.
        bias (Tensor, optional): (C,) shift.
        eps (float): added to the variance. Default: 1e-5.

    Returns:
        Tensor of the input's shape.
    """
    return apply(N.GroupNorm, (input, weight, bias), (num_groups, float(eps)))


def normalize(input, p: float = 2.0, dim=1, eps: float = 1e-12) -> Tensor:
    """input / max(||input||_p, eps) along `dim`.

    Args:
        input (Tensor): floating-point input.
        p (float): the norm's exponent. Default: 2.
        dim (Union[int, tuple[int]]): axis (or axes) of the norm. Default: 1.
        eps (float): lower bound of the divisor. Default: 1e-12.

    Returns:
        Tensor of the input's shape.
    """
    axis = (dim,) if isinstance(dim, int) else tuple(dim)
    return apply(prims_norm.LpNormalize, (input,), (axis, float(p), float(eps)))
