"""Loss, MAE and MSE."""

from __future__ import annotations

import numpy as np

from kiln.train.metrics.metric import Metric, rearrange_inputs


class Loss(Metric):
    """The mean of the loss values passed to `update(loss)` (each a scalar, or a 1-D batch of them)."""

    def __init__(self) -> None:
        super().__init__()
        self.clear()

    def clear(self) -> None:
        self._sum_loss = 0.0
        self._total_num = 0

    def update(self, *inputs) -> None:
        self._check_count(inputs, 1, "loss")
        loss = self._convert_data(inputs[0])
        if loss.ndim == 0:
            loss = loss.reshape(1)
        if loss.ndim != 1:
            raise ValueError(f"For 'Loss.update', the loss must be a scalar or 1-D, but got shape {loss.shape}.")
        self._sum_loss += float(loss.mean())
        self._total_num += 1

    def eval(self) -> float:
        """Returns: the average loss (a float).

        Raises:
            RuntimeError: update() was never called.
        """
        self._require_samples(self._total_num)
        return self._sum_loss / self._total_num


class _ErrorSum(Metric):
    def __init__(self) -> None:
        super().__init__()
        self.clear()

    def clear(self) -> None:
        self._error_sum = 0.0
        self._samples_num = 0

    @rearrange_inputs
    def update(self, *inputs) -> None:
        """`update(y_pred, y)`: predictions and targets with equal element counts; axis 0 is the batch."""
        self._check_count(inputs, 2, "predicted value, true value")
        y_pred, y = self._convert_data(inputs[0]), self._convert_data(inputs[1])
        if y.size != y_pred.size:
            raise ValueError(
                f"For '{type(self).__name__}', y_pred and y must have the same number of elements, "
                f"but got shapes {y_pred.shape} and {y.shape}."
            )
        diff = y.reshape(y_pred.shape).astype(np.float64) - y_pred.astype(np.float64)
        self._error_sum += float(self._error(diff).sum())
        self._samples_num += y.shape[0] if y.ndim else 1

    def eval(self) -> float:
        """Returns: the summed error per sample (a float); for 1-D data, the mean error.

        Raises:
            RuntimeError: no sample was seen.
        """
        self._require_samples(self._samples_num)
        return self._error_sum / self._samples_num


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
