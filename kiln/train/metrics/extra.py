"""More of MindSpore's metrics, computed with NumPy on the host like the others: BleuScore, CosineSimilarity, Dice,
Perplexity, ROC and auc, ConfusionMatrixMetric, the surface distances of segmentation masks (HausdorffDistance,
MeanSurfaceDistance, RootMeanSquareDistance) and OcclusionSensitivity."""

from __future__ import annotations

import math
from collections import Counter

import numpy as np

from kiln._core.tensor import Tensor
from kiln.train.metrics.metric import Metric, rearrange_inputs

__all__ = [
    "BleuScore", "ConfusionMatrixMetric", "CosineSimilarity", "Dice", "HausdorffDistance", "MeanSurfaceDistance",
    "OcclusionSensitivity", "Perplexity", "ROC", "RootMeanSquareDistance", "auc",
]  # fmt: skip


def _check_type(cls: str, name: str, value, types):
    if not isinstance(value, types) or (isinstance(value, bool) and bool not in types):
        raise TypeError(f"For '{cls}', the type of '{name}' must be {types}, but got {type(value).__name__}.")
    return value


def _check_choice(cls: str, name: str, value, choices):
    _check_type(cls, name, value, (str,))
    if value not in choices:
        raise ValueError(f"For '{cls}', '{name}' must be one of {choices}, but got '{value}'.")
    return value


def _not_updated(metric) -> None:
    if not metric._is_update:
        raise RuntimeError(f"For '{type(metric).__name__}', call 'update' before 'eval'.")


# ---- text ---------------------------------------------------------------------------------------------------------


def _ngrams(words, n_max: int) -> Counter:
    return Counter(tuple(words[j : j + n]) for n in range(1, n_max + 1) for j in range(len(words) - n + 1))


class BleuScore(Metric):
    """BLEU of candidate sentences against their references: clipped n-gram precisions (n = 1..n_gram, optionally
    add-one smoothed), their geometric mean, times the brevity penalty exp(1 - r / c) when c <= r (c: candidate words,
    r: the closest reference length of each sentence, summed)."""

    def __init__(self, n_gram=4, smooth=False):
        super().__init__()
        self.n_gram = _check_type("BleuScore", "n_gram", n_gram, (int,))
        if not 1 <= n_gram <= 4:
            raise ValueError(f"For 'BleuScore', the argument 'n_gram' should range from 1 to 4, but got {n_gram}.")
        self.smooth = _check_type("BleuScore", "smooth", smooth, (bool,))
        self.clear()

    def clear(self):
        self._numerator = np.zeros(self.n_gram)
        self._denominator = np.zeros(self.n_gram)
        self._c = self._r = 0.0
        self._is_update = False

    @rearrange_inputs
    def update(self, *inputs):
        self._check_count(inputs, 2, "candidate_corpus, reference_corpus")
        candidates, references = inputs
        if len(candidates) != len(references):
            raise ValueError(f"For 'BleuScore.update', the candidate corpus and the reference corpus must have the "
                             f"same length, but got {len(candidates)} and {len(references)}.")  # fmt: skip
        for cand, refs in zip(candidates, references):
            self._c += len(cand)
            self._r += min((len(r) for r in refs), key=lambda n: abs(len(cand) - n))
            counts = _ngrams(cand, self.n_gram)
            ref_counts = Counter()
            for r in refs:
                ref_counts |= _ngrams(r, self.n_gram)
            for gram, k in (counts & ref_counts).items():
                self._numerator[len(gram) - 1] += k
            for gram, k in counts.items():
                self._denominator[len(gram) - 1] += k
        self._is_update = True

    def eval(self):
        _not_updated(self)
        if self._numerator.min() == 0.0:
            return np.array(0.0)
        if self.smooth:
            precision = (self._numerator + 1.0) / (self._denominator + 1.0)
        else:
            precision = self._numerator / self._denominator
        mean = np.exp(np.sum(np.log(precision) / self.n_gram))
        penalty = np.array(1.0) if self._c > self._r else np.exp(1.0 - np.array(self._r) / np.array(self._c))
        return penalty * mean


class Perplexity(Metric):
    """exp of the mean negative log probability of the labels (`preds` holds probabilities, shape (..., C)); labels
    equal to `ignore_label` are left out."""

    def __init__(self, ignore_label=None):
        super().__init__()
        self.ignore_label = ignore_label if ignore_label is None else _check_type(
            "Perplexity", "ignore_label", ignore_label, (int,))  # fmt: skip
        self.clear()

    def clear(self):
        self._sum_metric = 0.0
        self._num_inst = 0

    @rearrange_inputs
    def update(self, *inputs):
        self._check_count(inputs, 2, "predicted value, label")
        pred, label = self._convert_data(inputs[0]), self._convert_data(inputs[1])
        if label.size != pred.size / pred.shape[-1]:
            raise RuntimeError(f"For 'Perplexity.update', predicted value (input[0]) and label (input[1]) should have "
                               f"the same shape, but got {pred.shape} and {label.shape}.")  # fmt: skip
        label = label.reshape(-1)
        prob = pred.reshape(-1, pred.shape[-1])[np.arange(label.size), label.astype(int)]
        num = prob.size
        if self.ignore_label is not None:
            ignore = (label == self.ignore_label).astype(prob.dtype)
            num -= np.sum(ignore)
            prob = prob * (1 - ignore) + ignore
        self._sum_metric -= np.sum(np.log(np.maximum(1e-10, prob)))
        self._num_inst += num

    def eval(self):
        self._require_samples(self._num_inst)
        return math.exp(self._sum_metric / self._num_inst)


# ---- similarity and overlap ---------------------------------------------------------------------------------------


class CosineSimilarity(Metric):
    """The (N, N) similarity matrix of the rows of the last input ('cosine' or 'dot'), its diagonal zeroed by default,
    optionally summed or averaged along the last axis."""

    def __init__(self, similarity="cosine", reduction="none", zero_diagonal=True):
        super().__init__()
        self.similarity = _check_choice("CosineSimilarity", "similarity", similarity, ["dot", "cosine"])
        self.reduction = _check_choice("CosineSimilarity", "reduction", reduction, ["none", "sum", "mean"])
        self.zero_diagonal = _check_type("CosineSimilarity", "zero_diagonal", zero_diagonal, (bool,))
        self.clear()

    def clear(self):
        self.sqr_mtx_res = 0
        self._is_update = False

    @rearrange_inputs
    def update(self, inputs):
        x = self._convert_data(inputs)
        if self.similarity == "cosine":
            x = x / np.linalg.norm(x, ord=2, axis=1, keepdims=True)
        self.sqr_mtx_res = x @ x.T
        self._is_update = True

    def eval(self):
        _not_updated(self)
        res = self.sqr_mtx_res
        if self.zero_diagonal:
            np.fill_diagonal(res, 0)
        if self.reduction == "mean":
            res = np.mean(res, axis=-1)
        elif self.reduction == "sum":
            res = np.sum(res, axis=-1)
        self.sqr_mtx_res = res
        return res


class Dice(Metric):
    """The Dice coefficient 2 <y_pred, y> / (|y_pred|^2 + |y|^2 + smooth) of each update, summed and divided by the
    number of samples seen."""

    def __init__(self, smooth=1e-5):
        super().__init__()
        self.smooth = _check_type("Dice", "smooth", smooth, (float,))
        if self.smooth <= 0:
            raise ValueError(f"For 'Dice', 'smooth' must be > 0, but got {smooth}.")
        self.clear()

    def clear(self):
        self._dice_coeff_sum = 0
        self._samples_num = 0

    @rearrange_inputs
    def update(self, *inputs):
        self._check_count(inputs, 2, "predicted value, true value")
        y_pred, y = self._convert_data(inputs[0]), self._convert_data(inputs[1])
        self._samples_num += y.shape[0]
        if y_pred.shape != y.shape:
            raise ValueError(f"For 'Dice.update', predicted value (input[0]) and true value (input[1]) should have "
                             f"same shape, but got {y_pred.shape} and {y.shape}.")  # fmt: skip
        a, b = y_pred.reshape(-1), y.reshape(-1)
        self._dice_coeff_sum += 2 * float(a @ b) / float(a @ a + b @ b + self.smooth)

    def eval(self):
        self._require_samples(self._samples_num)
        return self._dice_coeff_sum / float(self._samples_num)


# ---- ROC and AUC --------------------------------------------------------------------------------------------------


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
        self.class_num = class_num if class_num is None else _check_type("ROC", "class_num", class_num, (int,))
        self.pos_label = pos_label if pos_label is None else _check_type("ROC", "pos_label", pos_label, (int,))
        self.clear()

    def clear(self):
        self.y_pred = self.y = 0
        self.sample_weights = None
        self._is_update = False

    @rearrange_inputs
    def update(self, *inputs):
        self._check_count(inputs, 2, "predicted value, true value")
        y_pred, y = self._convert_data(inputs[0]), self._convert_data(inputs[1])
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
        _not_updated(self)
        return self._curve(np.squeeze(self.y_pred), np.squeeze(self.y), self.class_num, self.pos_label)


def auc(x, y, reorder=False):
    """Area under the curve (x, y) by the trapezoidal rule; x must be monotonic unless `reorder` sorts it."""
    if not isinstance(x, np.ndarray) or not isinstance(y, np.ndarray):
        raise TypeError(f"For 'auc', the argument 'x' and 'y' must all be np.ndarray, but got {type(x)}, {type(y)}.")
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


# ---- confusion-matrix metrics -------------------------------------------------------------------------------------

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
        self.skip_channel = _check_type("ConfusionMatrixMetric", "skip_channel", skip_channel, (bool,))
        self.calculation_method = _check_type("ConfusionMatrixMetric", "calculation_method", calculation_method,
                                              (bool,))  # fmt: skip
        self.metric_name = _check_type("ConfusionMatrixMetric", "metric_name", metric_name, (str,))
        self.decrease = _check_choice("ConfusionMatrixMetric", "decrease", decrease, self._DECREASE)
        self.clear()

    def clear(self):
        self._total_num = 0
        self._class_num = 0
        self._total = np.zeros(4)

    @rearrange_inputs
    def update(self, *inputs):
        self._check_count(inputs, 2, "predicted value, true value")
        y_pred, y = self._convert_data(inputs[0]), self._convert_data(inputs[1])
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


# ---- surface distances of segmentation masks ----------------------------------------------------------------------


def _erode(mask: np.ndarray) -> np.ndarray:
    """Binary erosion with the cross-shaped unit structuring element, outside the array counting as background."""
    out = mask.copy()
    for axis in range(mask.ndim):
        padded = np.pad(mask, [(1, 1) if a == axis else (0, 0) for a in range(mask.ndim)])
        lo = np.take(padded, range(0, mask.shape[axis]), axis=axis)
        hi = np.take(padded, range(2, mask.shape[axis] + 2), axis=axis)
        out &= lo & hi
    return out


def _edges(mask: np.ndarray) -> np.ndarray:
    return _erode(mask) ^ mask


def _surface_distance(from_edges: np.ndarray, to_edges: np.ndarray, metric: str) -> np.ndarray:
    """For each edge voxel of `from_edges`, the distance to the nearest edge voxel of `to_edges` (inf if none)."""
    src = np.argwhere(from_edges)
    if src.size == 0:
        return np.array([])
    dst = np.argwhere(to_edges)
    if dst.size == 0:
        return np.full(len(src), np.inf)
    out = np.empty(len(src))
    for start in range(0, len(src), 1024):
        d = np.abs(src[start : start + 1024, None, :] - dst[None, :, :]).astype(np.float64)
        if metric == "euclidean":
            dist = np.sqrt((d * d).sum(-1))
        elif metric == "taxicab":
            dist = d.sum(-1)
        else:
            dist = d.max(-1)
        out[start : start + 1024] = dist.min(axis=1)
    return out


class _SurfaceMetric(Metric):
    _METRICS = ["euclidean", "chessboard", "taxicab"]

    def _masks(self, inputs):
        name = type(self).__name__
        self._check_count(inputs, 3, "predicted value, true value, label index")
        y_pred, y, label_idx = self._convert_data(inputs[0]), self._convert_data(inputs[1]), inputs[2]
        if not isinstance(label_idx, (int, float)):
            raise TypeError(f"For '{name}.update', the label index (input[2]) must be int or float, but got "
                            f"{type(label_idx)}.")  # fmt: skip
        if label_idx not in y_pred and label_idx not in y:
            raise ValueError(f"For '{name}.update', the label index (input[2]) must be in the predicted value "
                             f"(input[0]) or the true value (input[1]), but {label_idx} is not.")  # fmt: skip
        if y_pred.size == 0 or y_pred.shape != y.shape:
            raise ValueError(f"For '{name}.update', the predicted value and the true value must be non-empty and of "
                             f"the same shape, but got {y_pred.shape} and {y.shape}.")  # fmt: skip
        y_pred = y_pred if y_pred.dtype == bool else y_pred == label_idx
        y = y if y.dtype == bool else y == label_idx
        return y_pred, y

    def clear(self):
        self._y_pred_edges = self._y_edges = 0
        self._is_update = False


class HausdorffDistance(_SurfaceMetric):
    """The Hausdorff distance between the edges of two label masks (or its `percentile`, or only `directed` from
    the prediction to the truth); `crop` restricts both to the bounding box of their union first."""

    def __init__(self, distance_metric="euclidean", percentile=None, directed=False, crop=True):
        super().__init__()
        self.distance_metric = _check_choice("HausdorffDistance", "distance_metric", distance_metric, self._METRICS)
        self.percentile = percentile if percentile is None else _check_type(
            "HausdorffDistance", "percentile", percentile, (float,))  # fmt: skip
        self.directed = _check_type("HausdorffDistance", "directed", directed, (bool,))
        self.crop = _check_type("HausdorffDistance", "crop", crop, (bool,))
        self.clear()

    @rearrange_inputs
    def update(self, *inputs):
        self._is_update = True
        y_pred, y = self._masks(inputs)
        if self.crop:
            union = y_pred | y
            if not union.any():
                self._y_pred_edges, self._y_edges = np.zeros_like(y_pred), np.zeros_like(y)
                return
            idx = np.nonzero(union)
            box = tuple(slice(int(i.min()), int(i.max()) + 1) for i in idx)
            y_pred, y = np.squeeze(y_pred[box]), np.squeeze(y[box])
        self._y_pred_edges, self._y_edges = _edges(y_pred), _edges(y)

    def _directed(self, a, b):
        d = _surface_distance(a, b, self.distance_metric)
        if d.shape == (0,):
            return np.inf
        if not self.percentile:
            return d.max()
        if 0 <= self.percentile <= 100:
            return np.percentile(d, self.percentile)
        raise ValueError(f"For 'HausdorffDistance', 'percentile' must be in [0, 100], but got {self.percentile}.")

    def eval(self):
        _not_updated(self)
        hd = self._directed(self._y_pred_edges, self._y_edges)
        return hd if self.directed else max(hd, self._directed(self._y_edges, self._y_pred_edges))


class MeanSurfaceDistance(_SurfaceMetric):
    """The mean distance from the prediction's edge voxels to the truth's edge (`symmetric`: the mean of both
    directions' means)."""

    def __init__(self, symmetric=False, distance_metric="euclidean"):
        super().__init__()
        self.distance_metric = _check_choice(type(self).__name__, "distance_metric", distance_metric, self._METRICS)
        self.symmetric = _check_type(type(self).__name__, "symmetric", symmetric, (bool,))
        self.clear()

    @rearrange_inputs
    def update(self, *inputs):
        y_pred, y = self._masks(inputs)
        self._y_pred_edges, self._y_edges = _edges(y_pred), _edges(y)
        self._is_update = True

    def _stat(self, d):
        return d.mean()

    def _combine(self, a, b):
        return np.mean((a, b))

    def eval(self):
        _not_updated(self)
        d = _surface_distance(self._y_pred_edges, self._y_edges, self.distance_metric)
        if d.shape == (0,):
            return np.inf
        forward = self._stat(d)
        if not self.symmetric:
            return forward
        back = _surface_distance(self._y_edges, self._y_pred_edges, self.distance_metric)
        if back.shape == (0,):
            return np.inf
        return self._combine(forward, self._stat(back))


class RootMeanSquareDistance(MeanSurfaceDistance):
    """The mean squared distance from the prediction's edge voxels to the truth's edge (`symmetric`: the square
    root of the mean of both directions' mean squares)."""

    def _stat(self, d):
        return (d**2).mean()

    def _combine(self, a, b):
        return np.sqrt(np.mean((a, b)))


# ---- occlusion sensitivity ----------------------------------------------------------------------------------------


class OcclusionSensitivity(Metric):
    """How much the model's score for `label` drops when a cube of half-width `margin` around each element of the
    (1, ...) input (or of the bounding box `b_box` = [min0, max0, min1, max1, ...]) is set to `pad_val`; the
    occluded images are run through the model `n_batch` at a time."""

    def __init__(self, pad_val=0.0, margin=2, n_batch=128, b_box=None):
        super().__init__()
        self.pad_val = _check_type("OcclusionSensitivity", "pad_val", pad_val, (float,))
        self.margin = _check_type("OcclusionSensitivity", "margin", margin, (int, list))
        self.n_batch = _check_type("OcclusionSensitivity", "n_batch", n_batch, (int,))
        self.b_box = b_box if b_box is None else _check_type("OcclusionSensitivity", "b_box", b_box, (list,))
        self.clear()

    def clear(self):
        self._baseline = 0
        self._sensitivity_im = 0
        self._is_update = False

    def _box(self, shape):
        if self.b_box is None:
            return None, None
        if len(self.b_box) != 2 * len(shape):
            raise ValueError(f"For 'OcclusionSensitivity', 'b_box' needs a lower and an upper bound for every "
                             f"dimension but the batch ({2 * len(shape)} values), got {len(self.b_box)}.")  # fmt: skip
        lo, hi = np.array(self.b_box[::2]), np.array(self.b_box[1::2])
        lo[lo < 0] = 0
        hi[hi < 0] = shape[hi < 0] - 1
        if np.any(hi >= shape):
            raise ValueError("For 'OcclusionSensitivity', the bounding box's maxima must be smaller than the image.")
        if np.any(lo > hi):
            raise ValueError("For 'OcclusionSensitivity', the bounding box's minima must not exceed its maxima.")
        return lo, hi

    @rearrange_inputs
    def update(self, *inputs):
        from kiln.nn.cell import Cell  # noqa: PLC0415

        self._check_count(inputs, 3, "classification model, predicted value, label")
        model, image = inputs[0], self._convert_data(inputs[1])
        label = self._convert_data(inputs[2])
        if not isinstance(model, Cell):
            raise TypeError(f"For 'OcclusionSensitivity.update', the model must be a Cell, but got {type(model)}.")
        if image.shape[0] > 1:
            raise RuntimeError(f"For 'OcclusionSensitivity.update', the batch size of the input must be 1, but got "
                               f"{image.shape[0]}.")  # fmt: skip
        if np.prod(label.shape) != image.shape[0]:
            raise RuntimeError(f"For 'OcclusionSensitivity.update', the label must have one element per image, but "
                               f"got {np.prod(label.shape)}.")  # fmt: skip
        shape = np.array(image.shape[1:])
        lo, hi = self._box(shape)
        self._baseline = model(Tensor(image)).asnumpy()[0, label].item()
        out_shape = shape if lo is None else hi - lo + 1
        total = int(np.prod(out_shape))
        scores, batch = [], []
        for i in range(total):
            idx = np.unravel_index(i, out_shape)
            if lo is not None:
                idx = tuple(np.asarray(idx) + lo)
            occluded = image.copy()
            window = tuple(slice(max(0, c - self.margin), min(n, c + self.margin)) for c, n in zip(idx, shape))
            occluded[(...,) + window] = self.pad_val
            batch.append(occluded)
            if len(batch) == self.n_batch or i == total - 1:
                out = model(Tensor(np.vstack(batch))).asnumpy()
                scores.append(out[:, int(np.asarray(label).reshape(-1)[0])])
                batch = []
        self._sensitivity_im = np.concatenate(scores).reshape(out_shape)
        self._is_update = True

    def eval(self):
        _not_updated(self)
        return self._baseline - np.squeeze(self._sensitivity_im)
