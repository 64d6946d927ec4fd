"""Accuracy and top-k accuracy."""

from __future__ import annotations

import numpy as np

from kiln.train.metrics.metric import EvaluationBase, Metric, _is_one_hot, rearrange_inputs


class Accuracy(EvaluationBase):
    """The fraction of samples whose prediction is right.

    Args:
        eval_type: 'classification': `update(y_pred, y)` with scores y_pred (N, C) and labels y (N,) or
            one-hot (N, C); 'multilabel': y_pred and y of 0/1 with the same shape, a sample counts when
            all its labels are right.
    """

    def __init__(self, eval_type: str = "classification") -> None:
        super().__init__(eval_type)
        self.clear()

    def clear(self) -> None:
        self._correct_num = 0
        self._total_num = 0

    @rearrange_inputs
    def update(self, *inputs) -> None:
        self._check_count(inputs, 2, "predicted value, true value")
        y_pred, y = self._convert_data(inputs[0]), self._convert_data(inputs[1])
        if self._type == "classification":
            y = self._labels(y_pred, y)
            right = (y_pred.argmax(axis=1) == y).reshape(-1)
        else:
            self._check_multilabel(y_pred, y)
            right = (y_pred == y).reshape(y.shape[0], -1).all(axis=1)
        self._correct_num += int(right.sum())
        self._total_num += right.shape[0]

    def eval(self) -> float:
        """Returns: correct / total (a float).

        Raises:
            RuntimeError: no sample was seen.
        """
        self._require_samples(self._total_num)
        return self._correct_num / self._total_num


class TopKCategoricalAccuracy(Metric):
    """The fraction of samples whose label is among the k highest scores.

    Args:
        k: how many top predictions count (>= 1).
    """

    def __init__(self, k: int) -> None:
        super().__init__()
        if not isinstance(k, int) or isinstance(k, bool) or k < 1:
            raise ValueError(f"For 'TopKCategoricalAccuracy', 'k' must be a positive int, but got {k!r}.")
        self.k = k
        self.clear()

    def clear(self) -> None:
        self._correct_num = 0
        self._samples_num = 0

    @rearrange_inputs
    def update(self, *inputs) -> None:
        """`update(y_pred, y)`: scores (N, C) and labels (N,) or one-hot (N, C)."""
        self._check_count(inputs, 2, "predicted value, true value")
        y_pred, y = self._convert_data(inputs[0]), self._convert_data(inputs[1])
        if y.ndim == y_pred.ndim and _is_one_hot(y):
            y = y.argmax(axis=1)
        if y_pred.ndim != 2 or y.shape != (y_pred.shape[0],):
            raise ValueError(
                f"For '{type(self).__name__}', y_pred must be (N, C) and y (N,) or one-hot (N, C), "
                f"but got shapes {y_pred.shape} and {y.shape}."
            )
        # Stable sort so that ties keep the lower class first, whatever the platform.
        top = np.argsort(-y_pred, axis=1, kind="stable")[:, : self.k]
        self._correct_num += int((top == y.reshape(-1, 1)).any(axis=1).sum())
        self._samples_num += y.shape[0]

    def eval(self) -> float:
        """Returns: the top-k accuracy (a float).

        Raises:
            RuntimeError: no sample was seen.
        """
        self._require_samples(self._samples_num)
        return self._correct_num / self._samples_num


class Top1CategoricalAccuracy(TopKCategoricalAccuracy):
    """`TopKCategoricalAccuracy(1)`."""

    def __init__(self) -> None:
        super().__init__(1)


class Top5CategoricalAccuracy(TopKCategoricalAccuracy):
    """`TopKCategoricalAccuracy(5)`."""

    def __init__(self) -> None:
        super().__init__(5)
