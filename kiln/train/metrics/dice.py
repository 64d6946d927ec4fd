"""`Dice`: the Dice coefficient (overlap) of predicted and target masks."""

from __future__ import annotations

from kiln.train.metrics.metric import _PerSampleMetric, check_type, rearrange_inputs

__all__ = ["Dice"]


class Dice(_PerSampleMetric):
    """The Dice coefficient 2 <y_pred, y> / (|y_pred|^2 + |y|^2 + smooth) of each update, summed and divided by the
    number of samples seen."""

    def __init__(self, smooth=1e-5):
        super().__init__()
        self.smooth = check_type("Dice", "smooth", smooth, (float,))
        if self.smooth <= 0:
            raise ValueError(f"For 'Dice', 'smooth' must be > 0, but got {smooth}.")

    @rearrange_inputs
    def update(self, *inputs):
        y_pred, y = self._as_arrays(inputs, 2)
        self._samples += y.shape[0]
        if y_pred.shape != y.shape:
            raise ValueError(f"For 'Dice.update', predicted value (input[0]) and true value (input[1]) should have "
                             f"same shape, but got {y_pred.shape} and {y.shape}.")  # fmt: skip
        a, b = y_pred.reshape(-1), y.reshape(-1)
        self._sum += 2 * float(a @ b) / float(a @ a + b @ b + self.smooth)
