"""Loss-scale managers (MindSpore's `mindspore.amp` / `mindspore.train` `LossScaleManager`s): each gives the
update Cell that `TrainOneStepWithLossScaleCell` (and `Model`) use."""

from __future__ import annotations

from kiln.nn.wrap.loss_scale import DynamicLossScaleUpdateCell, FixedLossScaleUpdateCell

__all__ = ["DynamicLossScaleManager", "FixedLossScaleManager", "LossScaleManager"]


class LossScaleManager:
    """Base class of the loss-scale managers."""

    def get_loss_scale(self):
        raise NotImplementedError

    def update_loss_scale(self, overflow):
        raise NotImplementedError

    def get_update_cell(self):
        raise NotImplementedError


class FixedLossScaleManager(LossScaleManager):
    """A fixed scale; `drop_overflow_update` skips the optimizer step when a gradient overflows."""

    def __init__(self, loss_scale=128.0, drop_overflow_update=True) -> None:
        if not isinstance(loss_scale, (int, float)) or isinstance(loss_scale, bool) or loss_scale < 1:
            raise ValueError(f"FixedLossScaleManager: the loss scale is a number of at least 1; got {loss_scale!r}.")
        if not isinstance(drop_overflow_update, bool):
            raise TypeError(f"'drop_overflow_update' must be a bool, but got {type(drop_overflow_update).__name__}.")
        self._loss_scale = loss_scale
        self._drop_overflow_update = drop_overflow_update

    def get_loss_scale(self):
        return self._loss_scale

    def get_drop_overflow_update(self) -> bool:
        return self._drop_overflow_update

    def update_loss_scale(self, overflow) -> None:
        """Nothing changes: the scale is fixed."""

    def get_update_cell(self):
        return FixedLossScaleUpdateCell(self._loss_scale) if self._drop_overflow_update else None


class DynamicLossScaleManager(LossScaleManager):
    """A scale divided by `scale_factor` on overflow and multiplied by it after `scale_window` clean steps."""

    def __init__(self, init_loss_scale=2**24, scale_factor=2, scale_window=2000) -> None:
        if init_loss_scale < 1.0:
            raise ValueError(
                f"DynamicLossScaleManager: the initial loss scale must be at least 1; got {init_loss_scale}."
            )
        if not isinstance(scale_window, int) or scale_window <= 0:
            raise ValueError(
                f"DynamicLossScaleManager: 'scale_window' counts steps, so it is a positive int; got {scale_window!r}."
            )
        if scale_factor < 1:
            raise ValueError(
                f"DynamicLossScaleManager: a 'scale_factor' below 1 would invert the rule; got {scale_factor}."
            )
        self.loss_scale = init_loss_scale
        self.scale_factor = scale_factor
        self.scale_window = scale_window
        self.increase_ratio = scale_factor
        self.decrease_ratio = 1 / scale_factor
        self.cur_iter = 1
        self.last_overflow_iter = 0
        self.bad_step_max = 1000
        self.bad_step = 0

    def get_loss_scale(self):
        return self.loss_scale

    def update_loss_scale(self, overflow) -> None:
        """The host-side rule for one step: on overflow the scale is divided by `scale_factor` (never below 1);
        otherwise it is multiplied by `scale_factor` each time a multiple of `scale_window` steps has passed since
        the last overflow. More than `bad_step_max` overflows in a row is a RuntimeError."""
        step = self.cur_iter
        if not overflow:
            self.bad_step = 0
            if (step - self.last_overflow_iter) % self.scale_window == 0:
                self.loss_scale = self.loss_scale * self.increase_ratio
            self.cur_iter = step + 1
            return
        self.bad_step += 1
        self.last_overflow_iter = step
        self.loss_scale = max(1, self.loss_scale * self.decrease_ratio)
        if self.bad_step > self.bad_step_max:
            raise RuntimeError(
                f"DynamicLossScaleManager: {self.bad_step} steps in a row overflowed, so training is not making "
                "progress; check the data and the learning rate for infinities or NaNs."
            )
        self.cur_iter = step + 1

    def get_drop_overflow_update(self) -> bool:
        return True

    def get_update_cell(self):
        return DynamicLossScaleUpdateCell(self.loss_scale, self.scale_factor, self.scale_window)
