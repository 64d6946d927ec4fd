"""Loss cells (MindSpore's `mindspore.nn` losses: regression, classification, ranking, margin, segmentation, CTC): each
calls one functional loss op.

`LossBase` keeps MindSpore's protocol for user-defined losses: `reduction` is
'mean', 'sum' or 'none', and `get_loss(x, weights)` applies it.
"""

from __future__ import annotations

from kiln import ops
from kiln._core import dtype as mstype
from kiln._core.tensor import Tensor
from kiln.nn.cell import Cell
from kiln.nn.layer._held import hold, hold_idle, touched
from kiln.nn.layer.activation import get_activation

__all__ = [
    "BCELoss", "BCEWithLogitsLoss", "CrossEntropyLoss", "KLDivLoss", "L1Loss", "LossBase", "MSELoss", "NLLLoss",
    "SmoothL1Loss", "SoftmaxCrossEntropyWithLogits", "MarginRankingLoss", "HingeEmbeddingLoss", "GaussianNLLLoss",
    "MultiLabelSoftMarginLoss", "SoftMarginLoss", "CosineEmbeddingLoss", "HuberLoss", "PoissonNLLLoss",
    "TripletMarginLoss", "MultiMarginLoss", "MAELoss", "RMSELoss", "DiceLoss", "CTCLoss", "MultilabelMarginLoss",
    "TripletMarginWithDistanceLoss", "FocalLoss", "MultiClassDiceLoss",
]  # fmt: skip

_REDUCTIONS = ("mean", "sum", "none")
# why a loss holds a primitive of MindSpore's loss without running it
_OWN_OP = "Kiln's loss computes it inside its own op"


def _check_reduction(op: str, reduction, allowed=_REDUCTIONS) -> str:
    if reduction not in allowed:
        raise ValueError(
            f"For '{op}', 'reduction' must be one of {', '.join(repr(a) for a in allowed)}, but got {reduction!r}."
        )
    return reduction


def _optional_tensor(op: str, name: str, value):
    if value is not None and not isinstance(value, Tensor):
        raise TypeError(f"For '{op}', '{name}' must be a Tensor or None, but got {type(value).__name__}.")
    return value


class LossBase(Cell):
    """Base class of losses: subclasses compute elementwise losses and call `get_loss`.

    Args:
        reduction (str): 'mean', 'sum' or 'none'. Default: 'mean'.
    """

    def __init__(self, reduction: str = "mean") -> None:
        super().__init__()
        self.reduction = _check_reduction(type(self).__name__, reduction, self._reductions)
        self.average = reduction == "mean"
        self.reduce = reduction != "none"
        # MindSpore's primitives of `get_loss` (zoo losses shard `reduce_mean`)
        held = {"cast": ops.Cast(), "mul": ops.Mul(), "reduce_mean": ops.ReduceMean(), "reduce_sum": ops.ReduceSum()}
        if self._reduces_inside:
            hold_idle(self, "Kiln's loss op applies the reduction itself", **held)
        else:
            hold(self, **held)

    # True for Kiln's losses whose functional op reduces (their construct never calls get_loss)
    _reduces_inside = False
    _reductions = _REDUCTIONS  # the reductions the loss accepts

    def get_axis(self, x) -> tuple[int, ...]:
        """Every axis of `x` (what the reduction runs over)."""
        return tuple(range(x.ndim))

    def get_loss(self, x, weights=1.0):
        """Weight the elementwise losses `x` and apply the reduction.

        Args:
            x (Tensor): elementwise losses.
            weights (Union[Tensor, float]): broadcast to `x`. Default: 1.0.

        Returns:
            Tensor: a scalar, or `x` weighted for reduction 'none'.
        """
        if not (isinstance(weights, (int, float)) and weights == 1.0):
            x = self.mul(weights, x)
        if self.reduction == "mean":
            return self.reduce_mean(x, self.get_axis(x))
        if self.reduction == "sum":
            return self.reduce_sum(x, self.get_axis(x))
        return x

    def construct(self, logits, labels):
        raise NotImplementedError(f"{type(self).__name__} must define construct().")


class _Loss(LossBase):
    """MindSpore's older name of `LossBase` (a subclass of it), which zoo losses still derive from."""


class MSELoss(LossBase):
    """Mean squared error (input - target) ** 2, with broadcasting.

    Args:
        reduction (str): 'mean', 'sum' or 'none'. Default: 'mean'.
    """

    _reduces_inside = True

    def construct(self, logits, labels):
        return ops.mse_loss(logits, labels, self.reduction)


class L1Loss(LossBase):
    """Mean absolute error |input - target|, with broadcasting.

    Args:
        reduction (str): 'mean', 'sum' or 'none'. Default: 'mean'.
    """

    _reduces_inside = True

    def construct(self, logits, labels):
        return ops.l1_loss(logits, labels, self.reduction)


class SmoothL1Loss(LossBase):
    """0.5 * d ** 2 / beta for d = |x - y| < beta, else d - 0.5 * beta.

    Args:
        beta (float): where the loss turns linear (0 gives the L1 loss). Default: 1.0.
        reduction (str): 'none', 'mean' or 'sum'. Default: 'none'.
    """

    _reduces_inside = True

    def __init__(self, beta: float = 1.0, reduction: str = "none") -> None:
        super().__init__(reduction)
        if not isinstance(beta, (int, float)) or isinstance(beta, bool) or beta < 0:
            raise ValueError(f"For 'SmoothL1Loss', 'beta' must be a non-negative float, but got {beta!r}.")
        self.beta = float(beta)
        hold(self, smooth_l1_loss=ops.SmoothL1Loss(self.beta, reduction))

    def construct(self, logits, labels):
        if touched(self):  # sharded or replaced: MindSpore's loss calls its primitive
            return self.smooth_l1_loss(logits, labels)
        return ops.smooth_l1_loss(logits, labels, self.beta, self.reduction)


class SoftmaxCrossEntropyWithLogits(LossBase):
    """Cross-entropy between softmax(logits) (over the last axis) and labels.

    Args:
        sparse (bool): labels are class indices (N,) instead of distributions (N, C). Default: False.
        reduction (str): 'none', 'mean' or 'sum'. Default: 'none'.

    Inputs:
        logits (Tensor): (N, C).
        labels (Tensor): (N, C) probabilities, or (N,) integer classes when `sparse`.

    Outputs:
        Tensor: (N,) losses, or their mean / sum.
    """

    def __init__(self, sparse: bool = False, reduction: str = "none") -> None:
        super().__init__(reduction)
        self.sparse = sparse
        # MindSpore's attribute names: model code reaches the primitives through them (e.g. to `.shard` them)
        self.softmax_cross_entropy = ops.SoftmaxCrossEntropyWithLogits()
        self.sparse_softmax_cross_entropy = ops.SparseSoftmaxCrossEntropyWithLogits()
        hold(self, one_hot=ops.OneHot())

    def construct(self, logits, labels):
        if self.sparse:
            if self.reduction == "mean":
                return self.sparse_softmax_cross_entropy(logits, labels)
            _check_class_indices(logits, labels)  # before one_hot, whose (N, C, C) would be the shape blamed
            on, off = Tensor(1.0, logits.dtype), Tensor(0.0, logits.dtype)
            labels = self.one_hot(labels, logits.shape[-1], on, off)
        return self.get_loss(self.softmax_cross_entropy(logits, labels)[0])


def _check_class_indices(logits, labels) -> None:
    """Sparse labels are integer class indices, one per row of `logits`."""
    want = tuple(logits.shape[:-1])
    if labels.dtype.kind not in "iu":
        raise TypeError(
            f"For 'SoftmaxCrossEntropyWithLogits', with sparse=True 'labels' must be integer class indices, but got "
            f"{labels.dtype} labels of shape {list(labels.shape)} (logits {list(logits.shape)})."
        )
    if tuple(labels.shape) != want:
        raise ValueError(
            f"For 'SoftmaxCrossEntropyWithLogits', with sparse=True 'labels' must have the shape of 'logits' "
            f"without its class axis, {list(want)}, but got logits {list(logits.shape)} and labels "
            f"{list(labels.shape)}."
        )


class CrossEntropyLoss(LossBase):
    """Cross-entropy of softmax(input) over axis 1 with class-index or probability targets.

    Args:
        weight (Tensor, optional): (C,) per-class weights.
        ignore_index (int): target class that contributes nothing. Default: -100.
        reduction (str): 'mean', 'sum' or 'none'. Default: 'mean'.
        label_smoothing (float): mix targets with the uniform distribution. Default: 0.0.

    Inputs:
        logits (Tensor): (N, C), (N, C, d1, ...) or (C,).
        labels (Tensor): class indices (N, d1, ...) or probabilities of the logits' shape.

    Outputs:
        Tensor: scalar, or per-sample losses for reduction 'none'.
    """

    _reduces_inside = True

    def __init__(
        self, weight=None, ignore_index: int = -100, reduction: str = "mean", label_smoothing: float = 0.0
    ) -> None:
        super().__init__(reduction)
        self.weight = _optional_tensor("CrossEntropyLoss", "weight", weight)
        if not isinstance(ignore_index, int) or isinstance(ignore_index, bool):
            raise TypeError(f"For 'CrossEntropyLoss', 'ignore_index' must be an int, but got {ignore_index!r}.")
        if not 0.0 <= label_smoothing <= 1.0:
            raise ValueError(f"For 'CrossEntropyLoss', 'label_smoothing' must be in [0, 1], but got {label_smoothing}.")
        self.ignore_index, self.label_smoothing = ignore_index, float(label_smoothing)

    def construct(self, logits, labels):
        return ops.cross_entropy(logits, labels, self.weight, self.ignore_index, self.reduction, self.label_smoothing)


class NLLLoss(LossBase):
    """Negative log-likelihood of log-probabilities at the target classes.

    Args:
        weight (Tensor, optional): (C,) per-class weights.
        ignore_index (int): target class that contributes nothing. Default: -100.
        reduction (str): 'mean', 'sum' or 'none'. Default: 'mean'.
    """

    _reduces_inside = True

    def __init__(self, weight=None, ignore_index: int = -100, reduction: str = "mean") -> None:
        super().__init__(reduction)
        self.weight = _optional_tensor("NLLLoss", "weight", weight)
        self.ignore_index = ignore_index

    def construct(self, logits, labels):
        return ops.nll_loss(logits, labels, self.weight, self.ignore_index, self.reduction)


class BCELoss(LossBase):
    """Binary cross-entropy of probabilities: -(y * log(p) + (1 - y) * log(1 - p)).

    Args:
        weight (Tensor, optional): weights broadcast to the input.
        reduction (str): 'mean', 'sum' or 'none'. Default: 'mean'.
    """

    _reduces_inside = True

    def __init__(self, weight=None, reduction: str = "mean") -> None:
        super().__init__(reduction)
        self.weight = _optional_tensor("BCELoss", "weight", weight)

    def construct(self, logits, labels):
        return ops.binary_cross_entropy(logits, labels, self.weight, self.reduction)


class BCEWithLogitsLoss(LossBase):
    """Binary cross-entropy of sigmoid(logits), computed stably.

    Args:
        reduction (str): 'mean', 'sum' or 'none'. Default: 'mean'.
        weight (Tensor, optional): weights broadcast to the input.
        pos_weight (Tensor, optional): weight of the positive term, broadcast along the last axis.
    """

    _reduces_inside = True

    def __init__(self, reduction: str = "mean", weight=None, pos_weight=None) -> None:
        super().__init__(reduction)
        self.weight = _optional_tensor("BCEWithLogitsLoss", "weight", weight)
        self.pos_weight = _optional_tensor("BCEWithLogitsLoss", "pos_weight", pos_weight)

    def construct(self, logits, labels):
        return ops.binary_cross_entropy_with_logits(logits, labels, self.weight, self.pos_weight, self.reduction)


class KLDivLoss(LossBase):
    """Kullback-Leibler divergence labels * (log(labels) - logits) with log-probability logits.

    Args:
        reduction (str): 'mean', 'sum', 'none' or 'batchmean'. Default: 'mean'.
    """

    _reduces_inside = True
    _reductions = _REDUCTIONS + ("batchmean",)

    def construct(self, logits, labels):
        return ops.kl_div(logits, labels, self.reduction)


class _MarginLoss(LossBase):
    """A loss of two inputs and labels with a `margin` and a `reduction` (the ranking and cosine-embedding losses)."""

    _reduces_inside = True

    def __init__(self, margin=0.0, reduction="mean") -> None:
        super().__init__(reduction)
        self.margin = margin


class MarginRankingLoss(_MarginLoss):
    """max(0, -target * (input1 - input2) + margin), reduced."""

    def construct(self, input1, input2, target):
        return ops.margin_ranking_loss(input1, input2, target, self.margin, self.reduction)


class HingeEmbeddingLoss(LossBase):
    """`logits` where `labels` is 1, max(0, margin - logits) where it is -1, reduced."""

    _reduces_inside = True

    def __init__(self, margin=1.0, reduction="mean") -> None:
        if not isinstance(margin, (int, float)) or isinstance(margin, bool):
            raise TypeError(f"For 'HingeEmbeddingLoss', 'margin' must be a float or int, not {type(margin).__name__}.")
        super().__init__(reduction)
        self.margin = margin

    def construct(self, logits, labels):
        return ops.hinge_embedding_loss(logits, labels, self.margin, self.reduction)


class GaussianNLLLoss(LossBase):
    """Gaussian negative log-likelihood of `labels` under mean `logits` and variance `var`."""

    _reduces_inside = True

    def __init__(self, *, full=False, eps=1e-6, reduction="mean") -> None:
        if not isinstance(full, bool):
            raise TypeError(f"For 'GaussianNLLLoss', 'full' must be a bool, but got {type(full).__name__}.")
        if not isinstance(eps, float) or eps <= 0:
            raise ValueError(f"For 'GaussianNLLLoss', 'eps' must be a positive float, but got {eps!r}.")
        super().__init__(reduction)
        self.full, self.eps = full, eps

    def construct(self, logits, labels, var):
        return ops.gaussian_nll_loss(logits, labels, var, self.full, self.eps, self.reduction)


class MultiLabelSoftMarginLoss(LossBase):
    """Multi-label one-versus-all logistic loss, averaged over the classes of each sample, then reduced."""

    _reduces_inside = True

    def __init__(self, weight=None, reduction="mean") -> None:
        super().__init__(reduction)
        self.weight = weight

    def construct(self, x, target):
        return ops.multilabel_soft_margin_loss(x, target, self.weight, self.reduction)


class SoftMarginLoss(LossBase):
    """log(1 + exp(-labels * logits)), reduced."""

    _reduces_inside = True

    def construct(self, logits, labels):
        return ops.soft_margin_loss(logits, labels, self.reduction)


class CosineEmbeddingLoss(_MarginLoss):
    """1 - cos(x1, x2) for labels 1, max(0, cos(x1, x2) - margin) for labels -1, reduced."""

    def __init__(self, margin=0.0, reduction="mean") -> None:
        super().__init__(margin, reduction)
        hold_idle(self, _OWN_OP, maximum=ops.Maximum())

    def construct(self, logits_x1, logits_x2, labels):
        return ops.cosine_embedding_loss(logits_x1, logits_x2, labels, self.margin, self.reduction)


class HuberLoss(LossBase):
    """0.5 d^2 for |d| < delta, delta * (|d| - 0.5 delta) beyond, reduced."""

    _reduces_inside = True

    def __init__(self, reduction="mean", delta=1.0) -> None:
        super().__init__(reduction)
        self.delta = delta

    def construct(self, logits, labels):
        return ops.huber_loss(logits, labels, self.reduction, self.delta)


class PoissonNLLLoss(LossBase):
    """Poisson negative log-likelihood (log-rate input by default), reduced."""

    _reduces_inside = True

    def __init__(self, log_input=True, full=False, eps=1e-8, reduction="mean") -> None:
        super().__init__(reduction)
        self.log_input, self.full, self.eps = log_input, full, eps
        hold_idle(self, _OWN_OP, maximum=ops.Maximum())

    def construct(self, input, target):
        return ops.poisson_nll_loss(input, target, self.log_input, self.full, self.eps, self.reduction)


class TripletMarginLoss(LossBase):
    """max(d(x, positive) - d(x, negative) + margin, 0) with the p-norm distance, reduced."""

    _reduces_inside = True

    def __init__(self, p=2, swap=False, eps=1e-6, reduction="mean", margin=1.0) -> None:
        super().__init__(reduction)
        self.p, self.swap, self.eps, self.margin = p, swap, eps, margin

    def construct(self, x, positive, negative, margin=1.0):
        return ops.triplet_margin_loss(x, positive, negative, margin, self.p, self.eps, self.swap, self.reduction)


class MultiMarginLoss(LossBase):
    """Multi-class hinge loss: per sample, the mean over classes of max(0, margin - x[y] + x[j])^p."""

    _reduces_inside = True

    def __init__(self, p=1, margin=1.0, reduction="mean", weight=None) -> None:
        super().__init__(reduction)
        self.p, self.margin, self.weight = p, margin, weight
        hold_idle(self, _OWN_OP, multi_margin_loss=ops.MultiMarginLoss(p=p, margin=float(margin), reduction=reduction))

    def construct(self, x, target, weight=None):
        return ops.multi_margin_loss(x, target, self.p, self.margin, weight if weight is not None else self.weight,
                                     self.reduction)  # fmt: skip


class MAELoss(LossBase):
    """|logits - label|, reduced."""

    def construct(self, logits, label):
        return self.get_loss(ops.abs(logits - label))


class RMSELoss(LossBase):
    """sqrt(mean((logits - label)^2))."""

    _reduces_inside = True

    def __init__(self) -> None:
        super().__init__("mean")

    def construct(self, logits, label):
        return ops.sqrt(ops.mean(ops.square(logits - label)))


class DiceLoss(LossBase):
    """1 - 2 sum(logits * label) / (sum(logits^2) + sum(label^2) + smooth)."""

    _reduces_inside = True

    def __init__(self, smooth=1e-5) -> None:
        if not isinstance(smooth, float) or smooth <= 0:
            raise ValueError(f"For 'DiceLoss', 'smooth' must be a positive float, but got {smooth!r}.")
        super().__init__()
        hold_idle(self, _OWN_OP, reshape=ops.Reshape())
        self.smooth = smooth

    def construct(self, logits, label):
        inter = ops.sum(logits * label)
        union = ops.sum(logits * logits) + ops.sum(label * label)
        return 1 - (2 * inter) / (union + self.smooth)


class CTCLoss(LossBase):
    """Connectionist Temporal Classification loss (see `ops.ctc_loss`); returns the loss only."""

    _reduces_inside = True

    def __init__(self, blank=0, reduction="mean", zero_infinity=False) -> None:
        if not isinstance(blank, int) or blank < 0:
            raise ValueError(f"For 'CTCLoss', 'blank' must be a non-negative int, but got {blank!r}.")
        super().__init__(reduction)
        self.blank, self.zero_infinity = blank, zero_infinity

    def construct(self, log_probs, targets, input_lengths, target_lengths):
        return ops.ctc_loss(log_probs, targets, input_lengths, target_lengths, self.blank, self.reduction,
                            self.zero_infinity)[0]  # fmt: skip


class MultilabelMarginLoss(LossBase):
    """Multi-label hinge loss: per sample, sum over its targets j (listed in `target` until the first -1) and the
    non-target classes i of max(0, 1 - (x[j] - x[i])) / C, reduced."""

    _reduces_inside = True

    def __init__(self, reduction="mean") -> None:
        super().__init__(reduction)
        hold_idle(self, _OWN_OP, multilabel_margin_loss=ops.MultilabelMarginLoss(reduction=reduction))

    def construct(self, x, target):
        return ops.multilabel_margin_loss(x, target, self.reduction)


def _pairwise_distance(x, y):
    d = ops.abs(x - y)
    if d.ndim == 0:
        raise ValueError("For 'TripletMarginWithDistanceLoss', the default distance needs inputs with ndim > 0.")
    return ops.norm(d, 2, 1)


class TripletMarginWithDistanceLoss(LossBase):
    """max(d(x, positive) - d(x, negative) + margin, 0) with any distance function (default: the L2 norm over
    axis 1); `swap` takes min(d(x, negative), d(positive, negative)) as the negative distance; reduced."""

    def __init__(self, distance_function=None, swap=False, reduction="mean", margin=1.0) -> None:
        super().__init__(reduction)
        if not isinstance(margin, float):
            raise TypeError(f"For 'TripletMarginWithDistanceLoss', 'margin' must be a float, but got "
                            f"{type(margin).__name__}.")  # fmt: skip
        if not isinstance(swap, bool):
            raise TypeError(f"For 'TripletMarginWithDistanceLoss', 'swap' must be a bool, but got "
                            f"{type(swap).__name__}.")  # fmt: skip
        self.distance_function = _pairwise_distance if distance_function is None else distance_function
        self.swap, self.margin = swap, margin

    def construct(self, x, positive, negative):
        d1 = self.distance_function(x, positive)
        d2 = self.distance_function(x, negative)
        if self.swap:
            d2 = ops.minimum(d2, self.distance_function(positive, negative))
        return self.get_loss(ops.maximum(d1 - d2 + self.margin, 0.0))


class FocalLoss(LossBase):
    """Focal loss (Lin et al. 2017) of logits (N, C, ...) against class indices (N, 1, ...) or one-hot labels
    (N, C, ...): -(1 - p)^gamma * log p with the log-softmax over C, optionally weighted per class, averaged over
    the classes (one-hot) or the single target, then reduced."""

    def __init__(self, weight=None, gamma=2.0, reduction="mean") -> None:
        super().__init__(reduction)
        if not isinstance(gamma, float):
            raise TypeError(f"For 'FocalLoss', 'gamma' must be a float, but got {type(gamma).__name__}.")
        if weight is not None and not isinstance(weight, Tensor):
            raise TypeError(f"FocalLoss: weight is a {type(weight).__name__}; give the per-class weights as a Tensor.")
        if isinstance(weight, Tensor) and weight.ndim != 1:
            raise ValueError(f"For 'FocalLoss', the dimension of 'weight' must be 1, but got {weight.ndim}.")
        self.weight, self.gamma = weight, gamma

    def construct(self, logits, labels):
        if logits.ndim != labels.ndim:
            raise ValueError(f"For 'FocalLoss', logits and labels must have the same number of dimensions, but got "
                             f"{logits.ndim} and {labels.ndim}.")  # fmt: skip
        if labels.shape[1] != 1 and labels.shape[1] != logits.shape[1]:
            raise ValueError(f"For 'FocalLoss', labels' channel must be 1 or C ({logits.shape[1]}), but got "
                             f"{labels.shape[1]}.")  # fmt: skip
        n, c = logits.shape[:2]
        x = ops.reshape(logits, (n, c, -1))
        y = ops.reshape(labels, (labels.shape[0], labels.shape[1], -1))
        logp = ops.log_softmax(x, 1)
        index = labels.shape[1] == 1
        if index:  # (a smaller label tensor reads the leading samples / positions only, as GatherD does)
            logp = ops.squeeze(
                ops.gather_elements(logp[: y.shape[0], :, : y.shape[2]], 1, ops.cast(y, mstype.int32)), 1
            )
        p = ops.exp(logp)
        if self.weight is not None:
            w = ops.broadcast_to(ops.reshape(self.weight, (1, c, 1)), (n, c, x.shape[2]))
            if index:
                w = ops.squeeze(ops.gather_elements(w[: y.shape[0], :, : y.shape[2]], 1, ops.cast(y, mstype.int32)), 1)
            logp = logp * w
        focal = ops.pow(1.0 - p, self.gamma)
        loss = ops.mean(-focal * logp, 1) if index else ops.mean(-focal * ops.cast(y, logp.dtype) * logp, -1)
        return self.get_loss(loss)


class MultiClassDiceLoss(LossBase):
    """The mean over the classes (dim 1, skipping `ignore_indiex`) of DiceLoss(activation(logits)[:, i], label[:,
    i]), each optionally multiplied by weights[i]."""

    _ACTIVATIONS = ("softmax", "logsoftmax", "relu", "relu6", "tanh", "sigmoid")
    _reduces_inside = True

    def __init__(self, weights=None, ignore_indiex=None, activation="softmax") -> None:
        super().__init__()
        hold_idle(self, _OWN_OP, reshape=ops.Reshape())
        if weights is not None and not isinstance(weights, Tensor):
            raise TypeError(f"For 'MultiClassDiceLoss', 'weights' must be a Tensor, but got {type(weights)}.")
        if isinstance(weights, Tensor) and weights.ndim != 2:
            raise ValueError(f"For 'MultiClassDiceLoss', the dimension of 'weights' must be 2, but got "
                             f"{weights.ndim}.")  # fmt: skip
        if ignore_indiex is not None and (isinstance(ignore_indiex, bool) or not isinstance(ignore_indiex, int)):
            raise TypeError(f"For 'MultiClassDiceLoss', 'ignore_indiex' must be an int, but got {ignore_indiex!r}.")
        if isinstance(activation, str) and activation not in self._ACTIVATIONS:
            raise ValueError(f"For 'MultiClassDiceLoss', the 'activation' must be in {list(self._ACTIVATIONS)}, "
                             f"but got {activation}.")  # fmt: skip
        self.activation = get_activation(activation) if isinstance(activation, str) else activation
        if self.activation is not None and not isinstance(self.activation, Cell):
            raise TypeError(f"MultiClassDiceLoss: activation is a {type(self.activation).__name__}; name one "
                            "('softmax') or pass a Cell.")  # fmt: skip
        self.weights, self.ignore_indiex = weights, ignore_indiex
        self.binarydiceloss = DiceLoss(smooth=1e-5)

    def construct(self, logits, label):
        if logits.shape != label.shape:
            raise ValueError(f"For 'MultiClassDiceLoss', logits and label must have the same shape, but got "
                             f"{logits.shape} and {label.shape}.")  # fmt: skip
        if self.activation is not None:
            logits = self.activation(logits)
        total = 0.0
        for i in range(label.shape[1]):
            if i != self.ignore_indiex:
                loss = self.binarydiceloss(logits[:, i], label[:, i])
                if self.weights is not None:
                    loss = loss * self.weights[i]
                total = total + loss
        return total / label.shape[1]
