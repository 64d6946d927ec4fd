"""Functional losses: cross-entropy, NLL, binary cross-entropy, regression, margin, embedding, Poisson/Gaussian NLL,
CTC and KL divergence.

Each takes `reduction` in 'mean' (over every element of the per-element loss), 'sum' or 'none'.
"""

from __future__ import annotations

import math as _math

from kiln._core import dtype as mstype
from kiln._core.tensor import Tensor
from kiln._prims.nn import loss as L
from kiln._prims.nn import loss as prims_loss
from kiln.ops import array, math
from kiln.ops._args import check_reduction
from kiln.ops._helpers import apply, op_error
from kiln.ops.nn import activation

__all__ = [
    "multilabel_margin_loss",
    "cross_entropy",
    "nll_loss",
    "binary_cross_entropy",
    "binary_cross_entropy_with_logits",
    "mse_loss",
    "l1_loss",
    "smooth_l1_loss",
    "kl_div",
    "cosine_embedding_loss",
    "ctc_loss",
    "gaussian_nll_loss",
    "hinge_embedding_loss",
    "huber_loss",
    "margin_ranking_loss",
    "multi_margin_loss",
    "multilabel_soft_margin_loss",
    "poisson_nll_loss",
    "soft_margin_loss",
    "triplet_margin_loss",
]


def multilabel_margin_loss(input, target, reduction="mean") -> Tensor:
    """Multi-class multi-label hinge loss: target holds class indices, the first -1 ends them.

    Args:
        input (Tensor): (N, C) or (C,) scores.
        target (Tensor): same shape, int; the labels up to the first -1.
        reduction (str): 'none', 'mean' or 'sum'.

    Returns:
        Tensor: the loss per sample ('none') or reduced.
    """
    x = input if input.ndim == 2 else array.expand_dims(input, 0)
    t = target if target.ndim == 2 else array.expand_dims(target, 0)
    c = x.shape[1]
    t64 = math.cast(t, mstype.int64)
    valid = math.cast(math.cumprod(math.cast(math.greater_equal(t64, 0), mstype.int32), 1), mstype.bool_)
    safe = array.select(valid, t64, array.zeros_like(t64))
    is_target = math.any(math.logical_and(array.expand_dims(valid, -1),
                                          math.equal(array.expand_dims(safe, -1), array.arange(0, c))), 1)  # fmt: skip
    x_t = array.gather_elements(x, 1, safe)  # (N, S)
    margins = math.maximum(1 - (array.expand_dims(x_t, -1) - array.expand_dims(x, 1)), 0)  # (N, S, C)
    mask = math.logical_and(array.expand_dims(valid, -1), math.logical_not(array.expand_dims(is_target, 1)))
    per = math.sum(array.select(mask, margins, array.zeros_like(margins)), (1, 2)) / c
    if input.ndim == 1:
        per = array.squeeze(per, 0)
    if reduction == "none":
        return per
    return math.mean(per) if reduction == "mean" else math.sum(per)


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
    """|input - target|, broadcast, then reduced; arguments and result as in `mse_loss`."""
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


def _reduce(loss, reduction: str, op: str):
    check_reduction(op, reduction)
    if reduction == "mean":
        return math.mean(loss)
    if reduction == "sum":
        return math.sum(loss)
    return loss


def margin_ranking_loss(input1, input2, target, margin=0.0, reduction="mean") -> Tensor:
    """max(0, -target * (input1 - input2) + margin)."""
    loss = activation.relu(math.add(math.mul(math.neg(target), math.sub(input1, input2)), margin))
    return _reduce(loss, reduction, "MarginRankingLoss")


def hinge_embedding_loss(inputs, targets, margin=1.0, reduction="mean") -> Tensor:
    """`inputs` where `targets` is positive (1), max(0, margin - inputs) where it is negative (-1), 0 where it is 0:
    MindSpore 2.10 reads the target's sign, so a target of 0.5 counts as 1 (PyTorch's test for 1 would give 0)."""
    pos = array.select(math.greater(targets, 0), inputs, array.zeros_like(inputs))
    neg = array.select(math.less(targets, 0), activation.relu(math.sub(margin, inputs)), array.zeros_like(inputs))
    return _reduce(math.add(pos, neg), reduction, "HingeEmbeddingLoss")


def gaussian_nll_loss(x, target, var, full=False, eps=1e-6, reduction="mean") -> Tensor:
    """0.5 * (log(max(var, eps)) + (x - target)^2 / max(var, eps)), plus 0.5 * log(2 pi) when `full`."""
    if not isinstance(full, bool):  # an int would pick the constant term by its truth value
        raise op_error("GaussianNLLLoss", f"'full' must be a bool, but got {type(full).__name__}.", TypeError)
    if not isinstance(eps, float) or eps <= 0:
        raise op_error("GaussianNLLLoss", f"'eps' must be a positive float, but got {eps!r}.")
    if isinstance(var, Tensor) and isinstance(x, Tensor) and var.ndim == x.ndim - 1 and var.shape == x.shape[:-1]:
        var = array.expand_dims(var, -1)  # one variance per sample: the input's shape less its last dimension
    v = math.maximum(var, eps)
    loss = math.mul(math.add(math.log(v), math.div(math.square(math.sub(x, target)), v)), 0.5)
    if full:
        loss = math.add(loss, 0.5 * _math.log(2 * _math.pi))
    return _reduce(loss, reduction, "GaussianNLLLoss")


def multilabel_soft_margin_loss(input, target, weight=None, reduction="mean") -> Tensor:
    """-mean over classes of (target * log sigmoid(input) + (1 - target) * log sigmoid(-input)), per sample."""
    # log sigmoid(x) = -softplus(-x)
    loss = math.add(math.mul(target, activation.softplus(math.neg(input))),
                    math.mul(math.sub(1.0, target), activation.softplus(input)))  # fmt: skip
    if weight is not None:
        loss = math.mul(loss, weight)
    loss = math.mean(loss, -1)
    return _reduce(loss, reduction, "MultilabelSoftMarginLoss")


def soft_margin_loss(input, target, reduction="mean") -> Tensor:
    """log(1 + exp(-target * input))."""
    loss = activation.softplus(math.neg(math.mul(target, input)))
    return _reduce(loss, reduction, "SoftMarginLoss")


def cosine_embedding_loss(input1, input2, target, margin=0.0, reduction="mean") -> Tensor:
    """1 - cos(input1, input2) where target is 1, max(0, cos - margin) where it is -1 (cosine over the last axis)."""
    dot = math.sum(math.mul(input1, input2), -1)
    norm = math.sqrt(math.add(math.mul(math.sum(math.square(input1), -1), math.sum(math.square(input2), -1)), 1e-12))
    cos = math.div(dot, norm)
    pos = array.select(math.equal(target, 1), math.sub(1.0, cos), array.zeros_like(cos))
    neg = array.select(math.equal(target, -1), activation.relu(math.sub(cos, margin)), array.zeros_like(cos))
    return _reduce(math.add(pos, neg), reduction, "CosineEmbeddingLoss")


def huber_loss(input, target, reduction="mean", delta=1.0) -> Tensor:
    """0.5 d^2 where |d| < delta, else delta * (|d| - 0.5 delta), for d = input - target."""
    if not isinstance(delta, (int, float)) or delta <= 0:
        raise op_error("HuberLoss", f"'delta' must be a positive number, but got {delta!r}.")
    d = math.abs(math.sub(input, target))
    loss = array.select(math.less(d, delta), math.mul(math.square(d), 0.5), math.mul(math.sub(d, 0.5 * delta), delta))
    return _reduce(loss, reduction, "HuberLoss")


def poisson_nll_loss(input, target, log_input=True, full=False, eps=1e-8, reduction="mean") -> Tensor:
    """exp(input) - target * input (log_input) or input - target * log(input + eps); with `full`, Stirling's term."""
    if log_input:
        loss = math.sub(math.exp(input), math.mul(target, input))
    else:
        loss = math.sub(input, math.mul(target, math.log(math.add(input, eps))))
    if full:
        t = math.cast(target, loss.dtype)
        safe = math.maximum(t, 1.0)
        stirling = math.add(
            math.sub(math.mul(safe, math.log(safe)), safe), math.mul(math.log(math.mul(safe, 2 * _math.pi)), 0.5)
        )
        loss = math.add(loss, array.select(math.greater(t, 1.0), stirling, array.zeros_like(stirling)))
    return _reduce(loss, reduction, "PoissonNLLLoss")


def _pairwise_distance(a, b, p, eps):
    return math.pow(math.sum(math.pow(math.abs(math.add(math.sub(a, b), eps)), p), -1), 1.0 / p)


def triplet_margin_loss(anchor, positive, negative, margin=1.0, p=2, eps=1e-6, swap=False, reduction="mean"):
    """max(d(anchor, positive) - d(anchor, negative) + margin, 0) with the p-norm distance of (a - b + eps)."""
    d_pos = _pairwise_distance(anchor, positive, p, eps)
    d_neg = _pairwise_distance(anchor, negative, p, eps)
    if swap:
        d_neg = math.minimum(d_neg, _pairwise_distance(positive, negative, p, eps))
    loss = activation.relu(math.add(math.sub(d_pos, d_neg), margin))
    return _reduce(loss, reduction, "TripletMarginLoss")


def multi_margin_loss(input, target, p=1, margin=1.0, weight=None, reduction="mean") -> Tensor:
    """Per sample: sum over classes j != target of max(0, margin - x[target] + x[j])^p (times weight[target]) / C."""
    if p not in (1, 2):
        raise op_error("MultiMarginLoss", f"'p' must be 1 or 2, but got {p!r}.")
    n_classes = input.shape[-1]
    picked = array.gather_elements(input, 1, array.expand_dims(target, 1))
    terms = activation.relu(math.add(math.sub(margin, picked), input))
    if p == 2:
        terms = math.square(terms)
    if weight is not None:
        terms = math.mul(terms, array.expand_dims(array.gather(weight, target, 0), 1))
    not_target = math.not_equal(array.expand_dims(target, 1), array.expand_dims(
        Tensor(list(range(n_classes)), dtype=target.dtype), 0))  # fmt: skip
    terms = array.select(not_target, terms, array.zeros_like(terms))
    loss = math.div(math.sum(terms, 1), n_classes)
    return _reduce(loss, reduction, "MultiMarginLoss")


def _lengths(value, n: int, name: str) -> Tensor:
    """The (n,) int64 lengths given as a Tensor, an int or a sequence of ints; fractional lengths are refused (a
    cast would truncate them)."""
    if isinstance(value, int) and not isinstance(value, bool):
        value = [value] * n
    given = value if isinstance(value, Tensor) else Tensor(list(value))
    if not given.dtype.is_integer:
        raise op_error("CTCLoss", f"'{name}' must be integer lengths, but got {given.dtype}.", TypeError)
    return math.cast(array.broadcast_to(given, (n,)), mstype.int64)


def ctc_loss(log_probs, targets, input_lengths, target_lengths, blank=0, reduction="mean", zero_infinity=False):
    """Connectionist Temporal Classification loss of (T, N, C) log-probabilities against padded (N, S) targets.

    Returns `(loss, log_alpha)` as MindSpore's `ops.ctc_loss` does: the loss per `reduction` ('mean' divides each
    sample's loss by its target length, then averages), and the (N, T, 2S+1) forward variables.
    """
    check_reduction("CTCLoss", reduction)
    n = log_probs.shape[1]
    lengths = [_lengths(input_lengths, n, "input_lengths"), _lengths(target_lengths, n, "target_lengths")]
    neg_ll, alpha = apply(
        prims_loss.CTCLoss, (log_probs, targets, lengths[0], lengths[1]), (int(blank), bool(zero_infinity))
    )
    if reduction == "mean":
        denom = math.cast(math.maximum(lengths[1], 1), neg_ll.dtype)
        return math.mean(math.div(neg_ll, denom)), alpha
    if reduction == "sum":
        return math.sum(neg_ll), alpha
    return neg_ll, alpha
