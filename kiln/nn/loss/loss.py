"""Loss cells (MindSpore's `mindspore.nn` losses): each calls one functional loss op.

`LossBase` keeps MindSpore's protocol for user-defined losses: `reduction` is
'mean', 'sum' or 'none', and `get_loss(x, weights)` applies it.
"""

from __future__ import annotations

from kiln import ops
from kiln._core.tensor import Tensor
from kiln.nn.cell import Cell

__all__ = [
    "BCELoss", "BCEWithLogitsLoss", "CrossEntropyLoss", "KLDivLoss", "L1Loss", "LossBase", "MSELoss", "NLLLoss",
    "SmoothL1Loss", "SoftmaxCrossEntropyWithLogits",
]  # fmt: skip

_REDUCTIONS = ("mean", "sum", "none")


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
        self.reduction = _check_reduction(type(self).__name__, reduction)
        self.average = reduction == "mean"
        self.reduce = reduction != "none"

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
            x = x * weights
        if self.reduction == "mean":
            return ops.mean(x)
        if self.reduction == "sum":
            return ops.sum(x)
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

    def construct(self, logits, labels):
        return ops.mse_loss(logits, labels, self.reduction)


class L1Loss(LossBase):
    """Mean absolute error |input - target|, with broadcasting.

    Args:
        reduction (str): 'mean', 'sum' or 'none'. Default: 'mean'.
    """

    def construct(self, logits, labels):
        return ops.l1_loss(logits, labels, self.reduction)


class SmoothL1Loss(LossBase):
    """0.5 * d ** 2 / beta for d = |x - y| < beta, else d - 0.5 * beta.

    Args:
        beta (float): where the loss turns linear (0 gives the L1 loss). Default: 1.0.
        reduction (str): 'none', 'mean' or 'sum'. Default: 'none'.
    """

    def __init__(self, beta: float = 1.0, reduction: str = "none") -> None:
        super().__init__(reduction)
        if not isinstance(beta, (int, float)) or isinstance(beta, bool) or beta < 0:
            raise ValueError(f"For 'SmoothL1Loss', 'beta' must be a non-negative float, but got {beta!r}.")
        self.beta = float(beta)

    def construct(self, logits, labels):
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
        self._sce = ops.SoftmaxCrossEntropyWithLogits()
        self._sparse_mean = ops.SparseSoftmaxCrossEntropyWithLogits()

    def construct(self, logits, labels):
        if self.sparse:
            if self.reduction == "mean":
                return self._sparse_mean(logits, labels)
            labels = ops.one_hot(labels, logits.shape[-1], 1.0, 0.0).astype(logits.dtype)
        return self.get_loss(self._sce(logits, labels)[0])


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

    def __init__(self, reduction: str = "mean") -> None:
        Cell.__init__(self)
        self.reduction = _check_reduction("KLDivLoss", reduction, _REDUCTIONS + ("batchmean",))

    def construct(self, logits, labels):
        return ops.kl_div(logits, labels, self.reduction)
