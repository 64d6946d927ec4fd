"""`Dice`: the Dice coefficient (overlap) of predicted and target masks."""

from __future__ import annotations

from kiln.train.metrics.metric import Metric, check_type, rearrange_inputs

__all__ = ["Dice"]


class Dice(Metric):
    """The Dice coefficient 2 <y_pred, y> / (|y_pred|^2 + |y|^2 + smooth) of each update, summed and divided by the
    number of samples seen."""

    def __init__(self, smooth=1e-5):
        super().__init__()
        self.smooth = check_type("Dice", "smooth", smooth, (float,))
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
