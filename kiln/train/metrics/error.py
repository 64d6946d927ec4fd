"""Loss, MAE and MSE."""

from __future__ import annotations

import numpy as np

from kiln.train.metrics.metric import _PerSampleMetric, rearrange_inputs


class Loss(_PerSampleMetric):
    """The mean of the loss values passed to `update(loss)` (each a scalar, or a 1-D batch of them)."""

    def update(self, *inputs) -> None:
        (loss,) = self._as_arrays(inputs, 1, "loss")
        if loss.ndim == 0:
            loss = loss.reshape(1)
        if loss.ndim != 1:
            raise ValueError(f"For 'Loss.update', the loss must be a scalar or 1-D, but got shape {loss.shape}.")
        self._sum += float(loss.mean())
        self._samples += 1  # a batch's mean counts once


class _ErrorSum(_PerSampleMetric):
    """The error summed over all elements, per sample (for 1-D data, the mean error)."""

    @rearrange_inputs
    def update(self, *inputs) -> None:
        """`update(y_pred, y)`: predictions and targets with equal element counts; axis 0 is the batch."""
        y_pred, y = self._as_arrays(inputs, 2)
        if y.size != y_pred.size:
            raise ValueError(
                f"For '{type(self).__name__}', y_pred and y must have the same number of elements, "
                f"but got shapes {y_pred.shape} and {y.shape}."
            )
        diff = y.reshape(y_pred.shape).astype(np.float64) - y_pred.astype(np.float64)
        self._sum += float(self._error(diff).sum())
        self._samples += y.shape[0] if y.ndim else 1


class MAE(_ErrorSum):
    """Mean absolute error: sum |y - y_pred| over all elements, divided by the number of samples."""

    @staticmethod
    def _error(diff):
        return np.abs(diff)


class MSE(_ErrorSum):
    """Mean squared error: sum (y - y_pred)^2 over all elements, divided by the number of samples."""

    @staticmethod
    def _error(diff):
        return diff * diff
