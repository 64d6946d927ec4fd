"""LossMonitor: prints the loss in MindSpore's format and stops training on NaN/Inf."""

from __future__ import annotations

import math

from kiln.train.callback._callback import Callback, loss_value


class LossMonitor(Callback):
    """Print `epoch: E step: S, loss is L` every `per_print_times` steps.

    A NaN or infinite loss raises ValueError, which ends training at that step.
    In `Model.fit` it also prints `Eval result: epoch E, metrics: {...}` after each evaluation.

    Args:
        per_print_times: print every this many steps (0: never print the loss).
    """

    def __init__(self, per_print_times: int = 1) -> None:
        super().__init__()
        if isinstance(per_print_times, bool) or not isinstance(per_print_times, int) or per_print_times < 0:
            raise ValueError(f"LossMonitor: 'per_print_times' must be an int >= 0, but got {per_print_times!r}.")
        self._per_print_times = per_print_times
        self._last_print_time = 0

    def on_train_begin(self, run_context) -> None:
        self._last_print_time = run_context.original_args().get("cur_step_num", 0)
        self.begin(run_context)

    def step_end(self, run_context) -> None:
        """Check the step's loss and print it when due."""
        cb_params = run_context.original_args()
        epoch = cb_params.get("cur_epoch_num", 1)
        step = cb_params.cur_step_num
        batch_num = cb_params.get("batch_num") or 1
        step_in_epoch = (step - 1) % batch_num + 1
        loss = loss_value(cb_params.net_outputs)
        if loss is not None and not math.isfinite(loss):
            raise ValueError(
                f"LossMonitor: the loss became {loss} at epoch {epoch}, step {step_in_epoch}; training cannot "
                f"recover from a NaN or infinite loss and is stopped (lower the learning rate or check the data)."
            )
        if step <= self._last_print_time:  # a new run that restarted the step count
            self._last_print_time = 0
        if self._per_print_times and step - self._last_print_time >= self._per_print_times:
            self._last_print_time = step
            print(f"epoch: {epoch} step: {step_in_epoch}, loss is {loss}")

    def on_train_epoch_end(self, run_context) -> None:
        """After an evaluation of `Model.fit`, print its metrics."""
        cb_params = run_context.original_args()
        metrics = cb_params.get("metrics")
        if metrics:
            print(f"Eval result: epoch {cb_params.cur_epoch_num}, metrics: {metrics}")
        self.epoch_end(run_context)
