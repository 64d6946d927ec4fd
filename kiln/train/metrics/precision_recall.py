"""Precision, Recall and F-beta, per class."""

from __future__ import annotations

import sys

import numpy as np

from kiln.train.metrics.metric import EvaluationBase, Metric, rearrange_inputs

_EPS = sys.float_info.min  # keeps 0/0 at 0 without changing any other value


class _Counts(EvaluationBase):
    """Per-class true positives, predicted positives and actual positives."""

    def __init__(self, eval_type: str = "classification") -> None:
        super().__init__(eval_type)
        self.clear()

    def clear(self) -> None:
        self._true_positives = 0
        self._positives = 0  # predicted
        self._actual_positives = 0
        self._seen = False

    @rearrange_inputs
    def update(self, *inputs) -> None:
        """`update(y_pred, y)`: classification scores (N, C) with labels (N,) or one-hot (N, C);
        or, for 'multilabel', 0/1 arrays of the same shape (N, C)."""
        y_pred, y = self._as_arrays(inputs, 2)
        if self._type == "classification":
            y = self._labels(y_pred, y)
            n_classes = y_pred.shape[1]
            if y.size and (y.min() < 0 or y.max() >= n_classes):
                raise ValueError(
                    f"For '{type(self).__name__}', labels must be in [0, {n_classes}), but got values in "
                    f"[{y.min()}, {y.max()}]."
                )
            eye = np.eye(n_classes, dtype=np.int64)
            pred = eye[y_pred.argmax(axis=1).reshape(-1)]
            true = eye[y.reshape(-1).astype(np.int64)]
        else:
            self._check_multilabel(y_pred, y)
            pred = y_pred.reshape(y.shape[0], -1).astype(np.int64)
            true = y.reshape(y.shape[0], -1).astype(np.int64)
        self._true_positives = self._true_positives + (pred * true).sum(axis=0)
        self._positives = self._positives + pred.sum(axis=0)
        self._actual_positives = self._actual_positives + true.sum(axis=0)
        self._seen = True

    def _check_seen(self) -> None:
        if not self._seen:
            raise RuntimeError(f"'{type(self).__name__}' cannot be computed: call update() before eval().")

    def _per_class(self, denominator, average: bool):
        """True positives / `denominator` per class, or their mean (float) when `average`."""
        self._check_seen()
        result = self._true_positives / (denominator + _EPS)
        return float(result.mean()) if average else result


class Precision(_Counts):
    """Per-class precision TP / (TP + FP) (0 for a class never predicted).

    Args:
        eval_type: 'classification' or 'multilabel' (per label, like sklearn's average=None).
    """

    def eval(self, average: bool = False):
        """Returns: a NumPy array with one value per class, or their mean (float) when `average`."""
        return self._per_class(self._positives, average)


class Recall(_Counts):
    """Per-class recall TP / (TP + FN) (0 for a class absent from the labels).

    Args:
        eval_type: 'classification' or 'multilabel'.
    """

    def eval(self, average: bool = False):
        """Returns: a NumPy array with one value per class, or their mean (float) when `average`."""
        return self._per_class(self._actual_positives, average)


class Fbeta(Metric):
    """Per-class F-beta score (1 + b^2) TP / ((1 + b^2) TP + b^2 FN + FP), for single-label classification.

    Args:
        beta: the weight of recall relative to precision (> 0).
    """

    def __init__(self, beta: float) -> None:
        super().__init__()
        if isinstance(beta, bool) or not isinstance(beta, (int, float)) or beta <= 0:
            raise ValueError(f"For 'Fbeta', 'beta' must be a positive number, but got {beta!r}.")
        self.beta = float(beta)
        self._counts = Precision("classification")  # any concrete _Counts: only its counts are read

    def clear(self) -> None:
        self._counts.clear()

    @rearrange_inputs
    def update(self, *inputs) -> None:
        """`update(y_pred, y)`: scores (N, C) and labels (N,) or one-hot (N, C)."""
        self._counts.update(*inputs)

    def eval(self, average: bool = False):
        """Returns: a NumPy array with one value per class, or their mean (float) when `average`."""
        c = self._counts
        c._check_seen()
        b2 = self.beta**2
        result = (1.0 + b2) * c._true_positives / (b2 * c._actual_positives + c._positives + _EPS)
        return float(result.mean()) if average else result


class F1(Fbeta):
    """`Fbeta(1)`: the harmonic mean of precision and recall, per class."""

    def __init__(self) -> None:
        super().__init__(1.0)
