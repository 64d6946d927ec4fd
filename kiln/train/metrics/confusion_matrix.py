"""The confusion matrix (`ConfusionMatrix`) and the metrics read from it per class (`ConfusionMatrixMetric`:
sensitivity, precision, F1, ...)."""

from __future__ import annotations

import numpy as np

from kiln.train.metrics.metric import Metric, check_choice, check_type, rearrange_inputs

__all__ = ["ConfusionMatrix", "ConfusionMatrixMetric"]

_NORMALIZE = ("no_norm", "target", "prediction", "all")


class ConfusionMatrix(Metric):
    """Counts of (true class, predicted class) pairs: row = true label, column = prediction.

    Args:
        num_classes: the number of classes.
        normalize: 'no_norm' (counts), 'target' (rows sum to 1), 'prediction' (columns sum to 1) or
            'all' (everything sums to 1); empty rows/columns stay 0.
        threshold: for float predictions with the shape of the labels (binary scores), a prediction
            is class 1 when it is above `threshold`.
    """

    def __init__(self, num_classes: int, normalize: str = "no_norm", threshold: float = 0.5) -> None:
        super().__init__()
        if not isinstance(num_classes, int) or isinstance(num_classes, bool) or num_classes < 1:
            raise ValueError(f"For 'ConfusionMatrix', 'num_classes' must be a positive int, but got {num_classes!r}.")
        if normalize not in _NORMALIZE:
            raise ValueError(f"For 'ConfusionMatrix', 'normalize' must be one of {_NORMALIZE}, but got {normalize!r}.")
        self.num_classes = num_classes
        self.normalize = normalize
        self.threshold = threshold
        self.clear()

    def clear(self) -> None:
        self.confusion_matrix = np.zeros((self.num_classes, self.num_classes), dtype=np.float64)
        self._is_update = False

    @rearrange_inputs
    def update(self, *inputs) -> None:
        """`update(y_pred, y)`: y_pred as scores (N, C, ...), labels (N, ...) or binary scores; y labels (N, ...)."""
        y_pred, y = self._as_arrays(inputs, 2)
        if y_pred.ndim == y.ndim + 1:
            y_pred = y_pred.argmax(axis=1)
        elif y_pred.ndim == y.ndim and y_pred.dtype.kind == "f":
            y_pred = (y_pred > self.threshold).astype(np.int64)
        if y_pred.shape != y.shape:
            raise ValueError(
                f"For 'ConfusionMatrix', y_pred must be labels with the shape of y or scores with an extra axis 1, "
                f"but got shapes {y_pred.shape} and {y.shape}."
            )
        y, y_pred = y.reshape(-1).astype(np.int64), y_pred.reshape(-1).astype(np.int64)
        for name, v in (("y", y), ("y_pred", y_pred)):
            if v.size and (v.min() < 0 or v.max() >= self.num_classes):
                raise ValueError(
                    f"For 'ConfusionMatrix', the classes in {name} must be in [0, {self.num_classes}), "
                    f"but got values in [{v.min()}, {v.max()}]."
                )
        n = self.num_classes
        counts = np.bincount(n * y + y_pred, minlength=n * n).reshape(n, n)
        self.confusion_matrix += counts
        self._is_update = True

    def eval(self) -> np.ndarray:
        """Returns: the (num_classes, num_classes) matrix, normalised as configured.

        Raises:
            RuntimeError: update() was never called.
        """
        if not self._is_update:
            raise RuntimeError("'ConfusionMatrix' cannot be computed: call update() before eval().")
        m = self.confusion_matrix
        if self.normalize == "no_norm":
            return m.copy()
        if self.normalize == "target":
            total = m.sum(axis=1, keepdims=True)
        elif self.normalize == "prediction":
            total = m.sum(axis=0, keepdims=True)
        else:
            total = m.sum()
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.nan_to_num(m / total, nan=0.0)


_CM_ALIASES = {
    "tpr": ("sensitivity", "recall", "hit_rate", "true_positive_rate", "tpr"),
    "tnr": ("specificity", "selectivity", "true_negative_rate", "tnr"),
    "ppv": ("precision", "positive_predictive_value", "ppv"),
    "npv": ("negative_predictive_value", "npv"),
    "fnr": ("miss_rate", "false_negative_rate", "fnr"),
    "fpr": ("fall_out", "false_positive_rate", "fpr"),
    "fdr": ("false_discovery_rate", "fdr"),
    "for": ("false_omission_rate", "for"),
    "pt": ("prevalence_threshold", "pt"),
    "ts": ("threat_score", "critical_success_index", "ts", "csi"),
    "acc": ("accuracy", "acc"),
    "ba": ("balanced_accuracy", "ba"),
    "f1": ("f1_score", "f1"),
    "mcc": ("matthews_correlation_coefficient", "mcc"),
    "fm": ("fowlkes_mallows_index", "fm"),
    "bm": ("informedness", "bookmaker_informedness", "bm"),
    "mk": ("markedness", "deltap", "mk"),
}


_CM_NAME = {alias: key for key, aliases in _CM_ALIASES.items() for alias in aliases}


def _ratio(a, b):
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(b > 0, a / np.where(b > 0, b, 1), np.nan)


def _cm_metric(name: str, cm: np.ndarray) -> np.ndarray:
    """The metric `name` from counts [..., (tp, fp, tn, fn)]; nan where its denominator is 0."""
    key = _CM_NAME.get(name.replace(" ", "_").lower())
    if key is None:
        raise NotImplementedError(f"For 'ConfusionMatrixMetric', the metric '{name}' is not implemented.")
    cm = cm[None] if cm.ndim == 1 else cm
    if cm.shape[-1] != 4:
        raise ValueError(f"For 'ConfusionMatrixMetric', the last dimension of the counts must be 4, but got "
                         f"{cm.shape[-1]}.")  # fmt: skip
    tp, fp, tn, fn = (cm[..., i] for i in range(4))
    p, n = tp + fn, fp + tn
    tpr, tnr = _ratio(tp, p), _ratio(tn, n)
    ppv = _ratio(tp, tp + fp)
    with np.errstate(divide="ignore", invalid="ignore"):
        fractions = {
            "tpr": (tp, p), "tnr": (tn, n), "ppv": (tp, tp + fp), "npv": (tn, tn + fn), "fnr": (fn, p),
            "fpr": (fp, n), "fdr": (fp, fp + tp), "for": (fn, fn + tn), "ts": (tp, tp + fn + fp),
            "acc": (tp + tn, p + n), "f1": (2.0 * tp, 2.0 * tp + fn + fp),
            "pt": (np.sqrt(tpr * (1.0 - tnr)) + tnr - 1.0, tpr + tnr - 1.0),
            "mcc": (tp * tn - fp * fn, np.sqrt((tp + fp) * (tp + fn) * (tn + fp) * (tn + fn))),
        }  # fmt: skip
        direct = {"ba": (tpr + tnr) / 2.0, "fm": np.sqrt(ppv * tpr), "bm": tpr + tnr - 1.0,
                  "mk": ppv + tn / (tn + fn) - 1.0}  # fmt: skip
        if key in direct:
            return direct[key]
        num, den = fractions[key]
        return np.where(den != 0, num / np.where(den != 0, den, 1), np.nan)


def _cm_counts(y_pred: np.ndarray, y: np.ndarray, skip_channel: bool) -> np.ndarray:
    """Per sample and class, (tp, fp, tn, fn) of binarised one-hot inputs (N, C, ...) -> (N, C, 4). MindSpore drops
    the first channel when `skip_channel` is False (and keeps it when True); Kiln does the same."""
    if not skip_channel:
        y = y[:, 1:] if y.shape[1] > 1 else y
        y_pred = y_pred[:, 1:] if y_pred.shape[1] > 1 else y_pred
    if y.shape != y_pred.shape:
        raise ValueError(f"For 'ConfusionMatrixMetric', y and y_pred must have the same shape, but got {y.shape} and "
                         f"{y_pred.shape}.")  # fmt: skip
    b, c = y_pred.shape[:2]
    y_pred, y = y_pred.reshape(b, c, -1).astype(float), y.reshape(b, c, -1).astype(float)
    tp = ((y_pred + y) == 2).sum(axis=2).astype(float)
    tn = ((y_pred + y) == 0).sum(axis=2).astype(float)
    p = y.sum(axis=2)
    return np.stack([tp, y.shape[-1] - p - tn, tn, p - tp], axis=-1)


def _reduce(chart: np.ndarray, how: str):
    """Reduce a (batch, class) chart ignoring nans: returns (value, number of non-nan entries that went in)."""
    nans = np.isnan(chart)
    ok = (~nans).astype(float)
    chart = np.where(nans, 0.0, chart)
    if how == "none":
        return chart, ok
    if how in ("sum", "sum_batch", "sum_channel"):
        axis = {"sum": (0, 1), "sum_batch": 0, "sum_channel": 1}[how]
        return chart.sum(axis=axis), ok.sum(axis=axis)
    if how in ("mean_batch", "mean_channel"):
        axis = 0 if how == "mean_batch" else 1
        cnt = ok.sum(axis=axis)
        return np.where(cnt > 0, chart.sum(axis=axis) / np.where(cnt > 0, cnt, 1), 0.0), cnt
    cnt = ok.sum(axis=1)  # "mean": over classes, then over the samples that had one
    per_sample = np.where(cnt > 0, chart.sum(axis=1) / np.where(cnt > 0, cnt, 1), 0.0)
    n = (cnt > 0).astype(float).sum(axis=0)
    return np.where(n > 0, per_sample.sum(axis=0) / np.where(n > 0, n, 1), 0.0), n


class ConfusionMatrixMetric(Metric):
    """A confusion-matrix metric ('sensitivity', 'precision', 'f1', 'mcc', ... and their aliases) of binarised one-hot
    inputs (N, C, ...): from the counts summed over all updates, or (`calculation_method=True`) per sample and class,
    reduced by `decrease` and averaged over the updates."""

    _DECREASE = ["none", "mean", "sum", "mean_batch", "sum_batch", "mean_channel", "sum_channel"]

    def __init__(self, skip_channel=True, metric_name="sensitivity", calculation_method=False, decrease="mean"):
        super().__init__()
        self.skip_channel = check_type("ConfusionMatrixMetric", "skip_channel", skip_channel, (bool,))
        self.calculation_method = check_type("ConfusionMatrixMetric", "calculation_method", calculation_method,
                                              (bool,))  # fmt: skip
        self.metric_name = check_type("ConfusionMatrixMetric", "metric_name", metric_name, (str,))
        self.decrease = check_choice("ConfusionMatrixMetric", "decrease", decrease, self._DECREASE)
        self.clear()

    def clear(self):
        self._total_num = 0
        self._class_num = 0
        self._total = np.zeros(4)

    @rearrange_inputs
    def update(self, *inputs):
        y_pred, y = self._as_arrays(inputs, 2)
        if not np.all(y.astype(np.uint8) == y):
            raise ValueError("For 'ConfusionMatrixMetric.update', the true value (input[1]) must be binarised.")
        if y_pred.ndim < 2:
            raise ValueError(f"For 'ConfusionMatrixMetric.update', the predicted value (input[0]) needs at least 2 "
                             f"dimensions, but got {y_pred.ndim}.")  # fmt: skip
        per_sample = self.calculation_method and not (
            y_pred.ndim == 2 or (y_pred.ndim == 3 and y_pred.shape[-1] == 1)
        )  # classification inputs always accumulate counts
        counts = _cm_counts(y_pred, y, self.skip_channel)
        if per_sample:
            score, not_nans = _reduce(_cm_metric(self.metric_name, counts), self.decrease)
            not_nans = int(np.asarray(not_nans).item())
            self._total_num += np.asarray(score).item() * not_nans
            self._class_num += not_nans
        else:
            self._total += counts.sum(axis=(0, 1))

    def eval(self):
        if self.calculation_method:
            if self._class_num == 0:
                raise RuntimeError("For 'ConfusionMatrixMetric.eval', no sample gave a defined value.")
            return self._total_num / self._class_num
        return _cm_metric(self.metric_name, self._total.copy())
