"""Surface distances between segmentation masks: HausdorffDistance, MeanSurfaceDistance and
RootMeanSquareDistance."""

from __future__ import annotations

import numpy as np

from kiln.train.metrics.metric import Metric, check_choice, check_type, check_updated, rearrange_inputs

__all__ = ["HausdorffDistance", "MeanSurfaceDistance", "RootMeanSquareDistance"]


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
            raise TypeError(f"{name}.update: the third input, the label index, is a {type(label_idx).__name__}; give a "
                            "number.")  # fmt: skip
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
        self.distance_metric = check_choice("HausdorffDistance", "distance_metric", distance_metric, self._METRICS)
        self.percentile = percentile if percentile is None else check_type(
            "HausdorffDistance", "percentile", percentile, (float,))  # fmt: skip
        self.directed = check_type("HausdorffDistance", "directed", directed, (bool,))
        self.crop = check_type("HausdorffDistance", "crop", crop, (bool,))
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
        check_updated(self)
        hd = self._directed(self._y_pred_edges, self._y_edges)
        return hd if self.directed else max(hd, self._directed(self._y_edges, self._y_pred_edges))


class MeanSurfaceDistance(_SurfaceMetric):
    """The mean distance from the prediction's edge voxels to the truth's edge (`symmetric`: the mean of both
    directions' means)."""

    def __init__(self, symmetric=False, distance_metric="euclidean"):
        super().__init__()
        self.distance_metric = check_choice(type(self).__name__, "distance_metric", distance_metric, self._METRICS)
        self.symmetric = check_type(type(self).__name__, "symmetric", symmetric, (bool,))
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
        check_updated(self)
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
