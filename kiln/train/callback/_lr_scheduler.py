"""LearningRateScheduler: change the optimizer's learning rate after each step."""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

from kiln._core.tensor import Parameter, Tensor
from kiln.train.callback._callback import Callback


class LearningRateScheduler(Callback):
    """Set the learning rate to `learning_rate_function(lr, cur_step_num)` after every training step.

    Args:
        learning_rate_function: (current lr: float, step: int) -> new lr.
    """

    def __init__(self, learning_rate_function: Callable[[float, int], float]) -> None:
        super().__init__()
        if not callable(learning_rate_function):
            raise TypeError("LearningRateScheduler: 'learning_rate_function' must be callable.")
        self.learning_rate_function = learning_rate_function

    def step_end(self, run_context) -> None:
        cb_params = run_context.original_args()
        optimizer = cb_params.get("optimizer")
        lr_param = getattr(optimizer, "learning_rate", None)
        if not isinstance(lr_param, Parameter) or lr_param.size != 1:
            raise TypeError(
                "LearningRateScheduler needs an optimizer whose 'learning_rate' is a scalar Parameter "
                f"(a fixed learning rate), but got {type(lr_param).__name__}."
            )
        lr = float(np.asarray(lr_param.asnumpy()).reshape(()))
        new_lr = float(self.learning_rate_function(lr, cb_params.cur_step_num))
        if not math.isclose(lr, new_lr, rel_tol=1e-10):
            lr_param.set_data(Tensor(np.full(lr_param.shape, new_lr, dtype=lr_param.dtype.np)))
