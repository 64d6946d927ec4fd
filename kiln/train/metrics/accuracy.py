"""Accuracy and top-k accuracy."""

from __future__ import annotations

import numpy as np

from kiln.train.metrics.metric import EvaluationBase, _is_one_hot, _PerSampleMetric, rearrange_inputs


class Accuracy(EvaluationBase, _PerSampleMetric):
    """The fraction of samples whose prediction is right.

    Args:
        eval_type: 'classification': `update(y_pred, y)` with scores y_pred (N, C) and labels y (N,) or
            one-hot (N, C); 'multilabel': y_pred and y of 0/1 with the same shape, a sample counts when
            all its labels are right.
    """

    def __init__(self, eval_type: str = "classification") -> None:
        super().__init__(eval_type)

    @rearrange_inputs
    def update(self, *inputs) -> None:
        y_pred, y = self._as_arrays(inputs, 2)
        if self._type == "classification":
            y = self._labels(y_pred, y)
            right = (y_pred.argmax(axis=1) == y).reshape(-1)
        else:
            self._check_multilabel(y_pred, y)
            right = (y_pred == y).reshape(y.shape[0], -1).all(axis=1)
        self._sum += int(right.sum())
        self._samples += right.shape[0]


class TopKCategoricalAccuracy(_PerSampleMetric):
    """The fraction of samples whose label is among the k highest scores.

    Args:
        k: how many top predictions count (>= 1).
    """

    def __init__(self, k: int) -> None:
        super().__init__()
        if not isinstance(k, int) or isinstance(k, bool) or k < 1:
            raise ValueError(f"For 'TopKCategoricalAccuracy', 'k' must be a positive int, but got {k!r}.")
        self.k = k

    @rearrange_inputs
    def update(self, *inputs) -> None:
        """`update(y_pred, y)`: scores (N, C) and labels (N,) or one-hot (N, C)."""
        y_pred, y = self._as_arrays(inputs, 2)
        if y.ndim == y_pred.ndim and _is_one_hot(y):
            y = y.argmax(axis=1)
        if y_pred.ndim != 2 or y.shape != (y_pred.shape[0],):
            raise ValueError(
                f"For '{type(self).__name__}', y_pred must be (N, C) and y (N,) or one-hot (N, C), "
                f"but got shapes {y_pred.shape} and {y.shape}."
            )
        # Stable sort so that ties keep the lower class first, whatever the platform.
        top = np.argsort(-y_pred, axis=1, kind="stable")[:, : self.k]
        self._sum += int((top == y.reshape(-1, 1)).any(axis=1).sum())
        self._samples += y.shape[0]


class Top1CategoricalAccuracy(TopKCategoricalAccuracy):
    """`TopKCategoricalAccuracy(1)`."""

    def __init__(self) -> None:
        super().__init__(1)


class Top5CategoricalAccuracy(TopKCategoricalAccuracy):
    """`TopKCategoricalAccuracy(5)`."""

    def __init__(self) -> None:
        super().__init__(5)
