"""`nn.Momentum`: SGD with (Nesterov) momentum, MindSpore's ApplyMomentum rule."""

from __future__ import annotations

import numpy as np

from kiln._core.tensor import Parameter, Tensor
from kiln._prims import state as S
from kiln.nn.optim.optimizer import Optimizer

__all__ = ["Momentum"]


class Momentum(Optimizer):
    """Momentum optimizer.

    With g the gradient (plus weight_decay * param for decayed parameters, divided by loss_scale):
    moments = momentum * moments + g, then param -= lr * moments, or with Nesterov
    param -= lr * (g + momentum * moments).

    Args:
        params (Union[list[Parameter], list[dict]]): parameters or parameter groups (see `Optimizer`).
        learning_rate (Union[float, int, Tensor, Iterable, LearningRateSchedule]): the learning rate.
        momentum (float): momentum factor (>= 0).
        weight_decay (Union[float, int, Cell]): L2 penalty. Default: 0.0.
        loss_scale (float): gradient loss scale. Default: 1.0.
        use_nesterov (bool): Nesterov momentum. Default: False.

    Inputs:
        gradients (tuple[Tensor]): one per parameter.

    Outputs:
        tuple[bool], True per parameter.
    """

    def __init__(
        self, params, learning_rate, momentum: float, weight_decay=0.0, loss_scale: float = 1.0, use_nesterov=False
    ) -> None:
        super().__init__(learning_rate, params, weight_decay, loss_scale)
        if not isinstance(momentum, float):
            raise TypeError(f"For 'Momentum', 'momentum' must be a float, but got {type(momentum).__name__}.")
        if momentum < 0.0:
            raise ValueError(f"For 'Momentum', 'momentum' must be at least 0.0, but got {momentum}.")
        if not isinstance(use_nesterov, bool):
            raise TypeError(f"For 'Momentum', 'use_nesterov' must be a bool, but got {type(use_nesterov).__name__}.")
        self.momentum = Parameter(Tensor(np.float32(momentum)), name="momentum")
        object.__setattr__(self, "params", self._parameters)  # MindSpore's alias, not a second registration
        self.use_nesterov = use_nesterov
        self.moments = self._parameters.clone(prefix="moments", init="zeros")

    def construct(self, gradients):
        return self._fused_step(S.FusedMomentum, gradients, (self.moments,), (self.momentum,), (self.use_nesterov,))
