"""`Perplexity`: exp of the mean negative log-likelihood of the labels under the predicted probabilities."""

from __future__ import annotations

import math

import numpy as np

from kiln.train.metrics.metric import _PerSampleMetric, check_type, rearrange_inputs

__all__ = ["Perplexity"]


class Perplexity(_PerSampleMetric):
    """exp of the mean negative log probability of the labels (`preds` holds probabilities, shape (..., C)); labels
    equal to `ignore_label` are left out."""

    def __init__(self, ignore_label=None):
        super().__init__()
        self.ignore_label = ignore_label if ignore_label is None else check_type(
            "Perplexity", "ignore_label", ignore_label, (int,))  # fmt: skip

    @rearrange_inputs
    def update(self, *inputs):
        pred, label = self._as_arrays(inputs, 2, "predicted value, label")
        if label.size != pred.size / pred.shape[-1]:
            raise RuntimeError(f"Perplexity.update: {label.size} labels for predictions of shape {pred.shape}; "
                               f"give one label per row of the predictions (labels {label.shape}).")  # fmt: skip
        label = label.reshape(-1)
        prob = pred.reshape(-1, pred.shape[-1])[np.arange(label.size), label.astype(int)]
        num = prob.size
        if self.ignore_label is not None:
            ignore = (label == self.ignore_label).astype(prob.dtype)
            num -= np.sum(ignore)
            prob = prob * (1 - ignore) + ignore
        self._sum -= np.sum(np.log(np.maximum(1e-10, prob)))
        self._samples += num

    def eval(self):
        return math.exp(super().eval())
