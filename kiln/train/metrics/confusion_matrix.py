"""The confusion matrix."""

from __future__ import annotations

import numpy as np

from kiln.train.metrics.metric import Metric, rearrange_inputs

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
        self._check_count(inputs, 2, "predicted value, true value")
        y_pred, y = self._convert_data(inputs[0]), self._convert_data(inputs[1])
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
