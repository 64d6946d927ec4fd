"""`ReduceLROnPlateau`: scale the learning rate down when a monitored metric stops improving."""

from __future__ import annotations

import numpy as np

from kiln import ops
from kiln._core.tensor import Parameter, Tensor
from kiln.train.callback._callback import check_bool
from kiln.train.callback._early_stop import _ImprovementWatcher, monitored_value

__all__ = ["ReduceLROnPlateau"]


def _non_negative_int(cls: str, name: str, v) -> int:
    if isinstance(v, bool) or not isinstance(v, int) or v < 0:
        raise ValueError(f"For '{cls}', '{name}' must be an int >= 0, but got {v!r}.")
    return v


class ReduceLROnPlateau(_ImprovementWatcher):
    """Multiply the optimizer's (fixed, ungrouped) learning rate by `factor` (not below `min_lr`) when `monitor`
    ("loss", "eval_loss" or a metric of `Model.fit`) has not improved by `min_delta` for `patience` epochs; then wait
    `cooldown` epochs before counting again."""

    def __init__(self, monitor="eval_loss", factor=0.1, patience=10, verbose=False, mode="auto", min_delta=1e-4,
                 cooldown=0, min_lr=0):  # fmt: skip
        super().__init__()
        if not isinstance(monitor, str):
            raise TypeError(f"For 'ReduceLROnPlateau', 'monitor' must be a str, but got {type(monitor).__name__}.")
        if not isinstance(factor, float) or not 0.0 < factor < 1.0:
            raise ValueError(f"For 'ReduceLROnPlateau', 'factor' must be a float in (0.0, 1.0), but got {factor!r}.")
        if mode not in ("auto", "min", "max"):
            raise ValueError(
                f"ReduceLROnPlateau: mode={mode!r}; use 'min', 'max' or 'auto' (guessed from the monitor's name)."
            )
        if isinstance(min_delta, bool) or not isinstance(min_delta, (int, float)):
            raise TypeError(f"For 'ReduceLROnPlateau', 'min_delta' must be a float or int, but got {min_delta!r}.")
        if isinstance(min_lr, bool) or not isinstance(min_lr, (int, float)):
            raise TypeError(f"For 'ReduceLROnPlateau', 'min_lr' must be a float or int, but got {min_lr!r}.")
        self.monitor, self.factor, self.mode = monitor, factor, mode
        self.patience = _non_negative_int("ReduceLROnPlateau", "patience", patience)
        self.verbose = check_bool("ReduceLROnPlateau", "verbose", verbose)
        self.cooldown = _non_negative_int("ReduceLROnPlateau", "cooldown", cooldown)
        self.min_delta, self.min_lr = abs(min_delta), min_lr
        self._watch(mode, monitor)

    def _reset(self) -> None:
        super()._reset()
        self.cooldown_counter = 0

    def is_improvement(self, current, best) -> bool:
        return self._improved(current, best)

    def on_train_begin(self, run_context):
        self._reset()

    def on_train_epoch_end(self, run_context):
        cb_params = run_context.original_args()
        lr = cb_params.optimizer.learning_rate
        if not isinstance(lr, Parameter) or lr.ndim != 0:
            raise ValueError(
                "ReduceLROnPlateau changes one fixed learning rate: the optimizer's is a schedule or per "
                "group; give it a single float."
            )
        current = monitored_value(cb_params, self.monitor, "ReduceLROnPlateau")
        if current is None:
            return
        if self.cooldown_counter > 0:
            self.cooldown_counter -= 1
            self.wait = 0
        if self.is_improvement(current, self.best):
            self.best = current
            self.wait = 0
        elif self.cooldown_counter <= 0:
            self.wait += 1
            if self.wait >= self.patience:
                old = float(lr.asnumpy())
                if old > self.min_lr:
                    new = max(old * self.factor, self.min_lr)
                    ops.assign(lr, Tensor(np.asarray(new, lr.asnumpy().dtype)))
                    if self.verbose:
                        print(f"Epoch {cb_params.cur_epoch_num:05d}: ReduceLROnPlateau reducing learning rate "
                              f"to {new}.")  # fmt: skip
                self.cooldown_counter = self.cooldown
                self.wait = 0
