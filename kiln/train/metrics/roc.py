"""`ROC` (false/true positive rates over thresholds) and `auc`, the area under a curve by the trapezoidal rule."""

from __future__ import annotations

import numpy as np

from kiln.train.metrics.metric import Metric, check_type, check_updated, rearrange_inputs

__all__ = ["ROC", "auc"]


def _curve_inputs(y_pred, y, class_num, pos_label):
    if y_pred.ndim == y.ndim:
        if class_num is not None and class_num != 1:
            raise ValueError(f"For 'ROC', 'class_num' must be 1 when predicted value and true value have the same "
                             f"number of dimensions, but got {class_num}.")  # fmt: skip
        return y_pred.reshape(-1), y.reshape(-1), 1, 1 if pos_label is None else pos_label
    if y_pred.ndim == y.ndim + 1:
        if pos_label is not None:
            raise ValueError(f"For 'ROC', 'pos_label' must be None for multiclass inputs, but got {pos_label}.")
        if class_num != y_pred.shape[1]:
            raise ValueError(f"For 'ROC', 'class_num' must equal the number of classes of the predicted value "
                             f"({y_pred.shape[1]}), but got {class_num}.")  # fmt: skip
        return np.moveaxis(y_pred, 1, -1).reshape(-1, class_num), y.reshape(-1), class_num, pos_label
    raise ValueError(f"For 'ROC', predicted value (input[0]) must have the same number of dimensions as the true "
                     f"value (input[1]) or one more, but got {y_pred.shape} and {y.shape}.")  # fmt: skip


def _binary_curve(scores, target, pos_label):
    """Counts of false and true positives at each distinct score, highest first (thresholds = those scores)."""
    target = (target == pos_label).astype(np.float64)
    order = np.argsort(scores, kind="mergesort")[::-1]
    scores, target = scores[order], target[order]
    last = np.r_[np.where(np.diff(scores))[0], target.size - 1]
    tps = np.cumsum(target)[last]
    return 1 + last - tps, tps, scores[last]


class ROC(Metric):
    """The ROC curve: (fpr, tpr, thresholds), one array each for a binary problem, a list per class otherwise; the
    first threshold is the highest score + 1 (no sample predicted positive)."""

    def __init__(self, class_num=None, pos_label=None):
        super().__init__()
        self.class_num = class_num if class_num is None else check_type("ROC", "class_num", class_num, (int,))
        self.pos_label = pos_label if pos_label is None else check_type("ROC", "pos_label", pos_label, (int,))
        self.clear()

    def clear(self):
        self.y_pred = self.y = 0
        self.sample_weights = None
        self._is_update = False

    @rearrange_inputs
    def update(self, *inputs):
        y_pred, y = self._as_arrays(inputs, 2)
        self.y_pred, self.y, self.class_num, self.pos_label = _curve_inputs(y_pred, y, self.class_num, self.pos_label)
        self._is_update = True

    @staticmethod
    def _curve(y_pred, y, class_num, pos_label):
        if class_num == 1:
            fps, tps, thresholds = _binary_curve(y_pred, y, pos_label)
            fps, tps = np.r_[0.0, fps], np.r_[0.0, tps]
            thresholds = np.r_[thresholds[0] + 1, thresholds]
            if fps[-1] <= 0:
                raise ValueError("For 'ROC.eval', there are no negative samples in the true value: fpr is undefined.")
            if tps[-1] <= 0:
                raise ValueError("For 'ROC.eval', there are no positive samples in the true value: tpr is undefined.")
            return fps / fps[-1], tps / tps[-1], thresholds
        curves = [ROC._curve(y_pred[:, c], y, 1, c) for c in range(class_num)]
        return [c[0] for c in curves], [c[1] for c in curves], [c[2] for c in curves]

    def eval(self):
        check_updated(self)
        return self._curve(np.squeeze(self.y_pred), np.squeeze(self.y), self.class_num, self.pos_label)


def auc(x, y, reorder=False):
    """Area under the curve (x, y) by the trapezoidal rule; x must be monotonic unless `reorder` sorts it."""
    if not all(isinstance(v, np.ndarray) for v in (x, y)):
        raise TypeError(f"auc takes two NumPy arrays; got {type(x).__name__} and {type(y).__name__}.")
    x, y = np.asarray(x), np.asarray(y)
    for v in (x, y):
        if v.ndim > 2 or (v.ndim == 2 and v.shape[1] != 1):
            raise ValueError(f"For 'auc', the input must be a 1-D array or a column, but got shape {v.shape}.")
    x, y = x.reshape(-1), y.reshape(-1)
    if x.shape[0] != y.shape[0]:
        raise ValueError(f"For 'auc', 'x' and 'y' must have the same length, but got {x.shape[0]} and {y.shape[0]}.")
    if x.shape[0] < 2:
        raise ValueError(f"For 'auc', 'x' needs at least 2 points, but got {x.shape[0]}.")
    direction = 1
    if reorder:
        order = np.lexsort((y, x))
        x, y = x[order], y[order]
    else:
        dx = np.diff(x)
        if np.any(dx < 0):
            if not np.all(dx <= 0):
                raise ValueError(f"For 'auc', when 'reorder' is False, 'x' must be increasing or decreasing, but got "
                                 f"{x}.")  # fmt: skip
            direction = -1
    return direction * np.sum(np.diff(x) * (y[1:] + y[:-1]) / 2.0)
