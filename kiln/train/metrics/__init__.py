"""Metrics for `Model.eval` and `Model.fit` (MindSpore's `mindspore.train.metrics`)."""

from __future__ import annotations

from kiln.train.metrics.accuracy import (
    Accuracy,
    Top1CategoricalAccuracy,
    Top5CategoricalAccuracy,
    TopKCategoricalAccuracy,
)
from kiln.train.metrics.bleu_score import BleuScore
from kiln.train.metrics.confusion_matrix import ConfusionMatrix, ConfusionMatrixMetric
from kiln.train.metrics.cosine_similarity import CosineSimilarity
from kiln.train.metrics.dice import Dice
from kiln.train.metrics.error import MAE, MSE, Loss
from kiln.train.metrics.metric import EvaluationBase, Metric, rearrange_inputs
from kiln.train.metrics.occlusion_sensitivity import OcclusionSensitivity
from kiln.train.metrics.perplexity import Perplexity
from kiln.train.metrics.precision_recall import F1, Fbeta, Precision, Recall
from kiln.train.metrics.roc import ROC, auc
from kiln.train.metrics.surface_distance import HausdorffDistance, MeanSurfaceDistance, RootMeanSquareDistance

__all__ = [
    "F1",
    "MAE",
    "MSE",
    "ROC",
    "Accuracy",
    "BleuScore",
    "ConfusionMatrix",
    "ConfusionMatrixMetric",
    "CosineSimilarity",
    "Dice",
    "HausdorffDistance",
    "MeanSurfaceDistance",
    "OcclusionSensitivity",
    "Perplexity",
    "RootMeanSquareDistance",
    "auc",
    "EvaluationBase",
    "Fbeta",
    "Loss",
    "Metric",
    "Precision",
    "Recall",
    "Top1CategoricalAccuracy",
    "Top5CategoricalAccuracy",
    "TopKCategoricalAccuracy",
    "get_metric_fn",
    "get_metrics",
    "names",
    "rearrange_inputs",
]

_BY_NAME = {
    "accuracy": Accuracy,
    "acc": Accuracy,
    "precision": Precision,
    "recall": Recall,
    "F1": F1,
    "topk": TopKCategoricalAccuracy,
    "top_1_accuracy": Top1CategoricalAccuracy,
    "top_5_accuracy": Top5CategoricalAccuracy,
    "mae": MAE,
    "mse": MSE,
    "loss": Loss,
    "confusion_matrix": ConfusionMatrix,
    "dice": Dice,
    "roc": ROC,
    "auc": auc,
    "bleu_score": BleuScore,
    "cosine_similarity": CosineSimilarity,
    "occlusion_sensitivity": OcclusionSensitivity,
    "hausdorff_distance": HausdorffDistance,
    "mean_surface_distance": MeanSurfaceDistance,
    "root_mean_square_distance": RootMeanSquareDistance,
    "perplexity": Perplexity,
    "confusion_matrix_metric": ConfusionMatrixMetric,
}


def names() -> list[str]:
    """The metric names accepted by `get_metric_fn` and by `Model(metrics={"accuracy", ...})`."""
    return sorted(_BY_NAME)


def get_metric_fn(name: str, *args, **kwargs) -> Metric:
    """A new metric from its name, e.g. `get_metric_fn("accuracy")`.

    Raises:
        KeyError: an unknown name (the message lists the known ones).
    """
    if name not in _BY_NAME:
        raise KeyError(f"Unknown metric '{name}'. Known metrics: {names()}.")
    return _BY_NAME[name](*args, **kwargs)


def get_metrics(metrics) -> dict[str, Metric] | None:
    """Normalise `Model`'s `metrics` argument: a set of names or a dict {name: Metric} -> {name: Metric} (a list,
    tuple or str is a TypeError, as in MindSpore).

    Raises:
        TypeError: `metrics` is neither a set nor a dict, or a dict value is not a Metric.
    """
    if metrics is None:
        return None
    if isinstance(metrics, dict):
        for key, value in metrics.items():
            if not isinstance(value, Metric):
                raise TypeError(f"metrics['{key}'] must be a Metric, but got {type(value).__name__}.")
        return dict(metrics)
    if isinstance(metrics, set):
        return {name: get_metric_fn(name) for name in metrics}
    raise TypeError(f"'metrics' must be a dict {{name: Metric}} or a set of names, but got {type(metrics).__name__}.")
