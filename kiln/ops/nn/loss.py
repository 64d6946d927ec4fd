"""Functional losses: cross_entropy, nll_loss, binary cross-entropy, mse / l1 / smooth-l1, kl_div."""

from __future__ import annotations

from kiln._core.tensor import Tensor
from kiln._prims.nn import loss as L
from kiln.ops._helpers import apply
from kiln.ops.nn._args import check_reduction

__all__ = [
    "cross_entropy", "nll_loss", "binary_cross_entropy", "binary_cross_entropy_with_logits", "mse_loss", "l1_loss",
    "smooth_l1_loss", "kl_div",
]  # fmt: skip


def cross_entropy(input, target, weight=None, ignore_index=-100, reduction="mean", label_smoothing=0.0) -> Tensor:
    """Cross-entropy between the softmax of `input` (over axis 1) and `target`.

    Args:
        input (Tensor): logits (N, C), (N, C, d1, ...) or (C,).
        target (Tensor): class indices (N,) / (N, d1, ...) / (), or class probabilities of input's shape.
        weight (Tensor, optional): (C,) per-class weights.
        ignore_index (int): class index that contributes nothing (index targets only). Default: -100.
        reduction (str): 'mean' (weighted mean over non-ignored targets), 'sum' or 'none'.
        label_smoothing (float): mix the target with the uniform distribution by this amount. Default: 0.

    Returns:
        Tensor: a scalar, or the per-sample losses for reduction 'none'.
    """
    check_reduction("CrossEntropy", reduction)
    return apply(L.CrossEntropy, (input, target, weight), (reduction, int(ignore_index), float(label_smoothing)))


def nll_loss(inputs, target, weight=None, ignore_index=-100, reduction="mean", label_smoothing=0.0) -> Tensor:
    """Negative log-likelihood of log-probabilities `inputs` (class axis 1) at the `target` classes.

    Args:
        inputs (Tensor): log-probabilities (N, C), (N, C, d1, ...) or (C,).
        target (Tensor): class indices (N,) / (N, d1, ...) / ().
        weight (Tensor, optional): (C,) per-class weights.
        ignore_index (int): class index that contributes nothing. Default: -100.
        reduction (str): 'mean', 'sum' or 'none'. Default: 'mean'.
        label_smoothing (float): amount of uniform smoothing of the target. Default: 0.

    Returns:
        Tensor: a scalar, or the per-sample losses for reduction 'none'.
    """
    check_reduction("NLLLoss", reduction)
    return apply(L.NLLLoss, (inputs, target, weight), (reduction, int(ignore_index), float(label_smoothing)))[0]


def binary_cross_entropy(logits, labels, weight=None, reduction="mean") -> Tensor:
    """-(labels * log(p) + (1 - labels) * log(1 - p)) for probabilities p = `logits`.

    Args:
        logits (Tensor): predicted probabilities in [0, 1] (the log is clamped at log(1e-12)).
        labels (Tensor): targets of the same shape.
        weight (Tensor, optional): weights broadcast to the input shape.
        reduction (str): 'mean', 'sum' or 'none'. Default: 'mean'.

    Returns:
        Tensor: a scalar, or the elementwise losses for reduction 'none'.
    """
    check_reduction("BinaryCrossEntropy", reduction)
    return apply(L.BinaryCrossEntropy, (logits, labels, weight), (reduction,))


def binary_cross_entropy_with_logits(input, target, weight=None, pos_weight=None, reduction="mean") -> Tensor:
    """Binary cross-entropy of sigmoid(`input`), computed stably from the logits.

    Args:
        input (Tensor): logits.
        target (Tensor): targets in [0, 1], same shape.
        weight (Tensor, optional): weights broadcast to the input shape.
        pos_weight (Tensor, optional): weight of the positive term, broadcast along the last axis.
        reduction (str): 'mean', 'sum' or 'none'. Default: 'mean'.

    Returns:
        Tensor: a scalar, or the elementwise losses for reduction 'none'.
    """
    check_reduction("BCEWithLogitsLoss", reduction)
    return apply(L.BCEWithLogitsLoss, (input, target, weight, pos_weight), (reduction,))


def mse_loss(input, target, reduction="mean") -> Tensor:
    """(input - target) ** 2, broadcast, then reduced.

    Args:
        input (Tensor): predictions.
        target (Tensor): targets (broadcastable with `input`).
        reduction (str): 'mean', 'sum' or 'none'. Default: 'mean'.

    Returns:
        Tensor: a scalar, or the elementwise losses for reduction 'none'.
    """
    check_reduction("MSELoss", reduction)
    return apply(L.MSELoss, (input, target), (reduction,))


def l1_loss(input, target, reduction="mean") -> Tensor:
    """|input - target|, broadcast, then reduced.

    Args:
        input (Tensor): predictions.
        target (Tensor): targets (broadcastable with `input`).
        reduction (str): 'mean', 'sum' or 'none'. Default: 'mean'.

    Returns:
        Tensor: a scalar, or the elementwise losses for reduction 'none'.
    """
    check_reduction("L1Loss", reduction)
    return apply(L.L1Loss, (input, target), (reduction,))


def smooth_l1_loss(input, target, beta=1.0, reduction="none") -> Tensor:
    """Huber-style loss: 0.5 * d**2 / beta where d = |input - target| < beta, else d - 0.5 * beta.

    Args:
        input (Tensor): predictions.
        target (Tensor): targets of the same shape.
        beta (float): where the loss turns from quadratic to linear (0 gives the L1 loss). Default: 1.0.
        reduction (str): 'none', 'mean' or 'sum'. Default: 'none'.

    Returns:
        Tensor: the elementwise losses, or their mean / sum.
    """
    check_reduction("SmoothL1Loss", reduction)
    return apply(L.SmoothL1Loss, (input, target), (float(beta), reduction))


def kl_div(logits, labels, reduction="mean") -> Tensor:
    """Kullback-Leibler divergence labels * (log(labels) - logits), with log-probability `logits`.

    Args:
        logits (Tensor): log-probabilities.
        labels (Tensor): probabilities (broadcastable); zero entries contribute zero.
        reduction (str): 'mean', 'sum', 'batchmean' (sum / batch size) or 'none'. Default: 'mean'.

    Returns:
        Tensor: a scalar, or the elementwise terms for reduction 'none'.
    """
    check_reduction("KLDivLoss", reduction, ("mean", "sum", "none", "batchmean"))
    return apply(L.KLDivLoss, (logits, labels), (reduction,))
