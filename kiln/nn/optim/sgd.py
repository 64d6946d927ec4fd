"""The SGD family: `nn.SGD` (stochastic gradient descent with momentum, dampening and Nesterov) and `nn.ASGD`
(averaged SGD)."""

from __future__ import annotations

import numpy as np

from kiln import ops
from kiln._core import dtype as mstype
from kiln._core.tensor import Parameter, ParameterTuple, Tensor
from kiln._prims import state as S
from kiln.nn.cell import Cell
from kiln.nn.optim.optimizer import Optimizer, PerParameterOptimizer, check_float

__all__ = ["SGD", "ASGD"]


def _as_float(name: str, value) -> float:
    if isinstance(value, int) and not isinstance(value, bool):
        value = float(value)
    if not isinstance(value, float):
        raise TypeError(f"For 'SGD', '{name}' must be a float, but got {type(value).__name__}.")
    if value < 0.0:
        raise ValueError(f"For 'SGD', '{name}' must be at least 0.0, but got {value}.")
    return value


class SGD(Optimizer):
    """SGD optimizer.

    With g the gradient (plus weight_decay * param, divided by loss_scale) and momentum > 0:
    the first step sets accum = g, later steps accum = momentum * accum + (1 - dampening) * g;
    the step is accum, or g + momentum * accum with Nesterov. param -= lr * step.

    Args:
        params (Union[list[Parameter], list[dict]]): parameters or parameter groups (see `Optimizer`).
        learning_rate (Union[float, int, Tensor, Iterable, LearningRateSchedule]): Default: 0.1.
        momentum (float): momentum factor (>= 0). Default: 0.0.
        dampening (float): dampening of the momentum (>= 0). Default: 0.0.
        weight_decay (Union[float, int]): L2 penalty. Default: 0.0.
        nesterov (bool): Nesterov momentum (needs momentum > 0 and dampening 0). Default: False.
        loss_scale (float): gradient loss scale. Default: 1.0.

    Inputs:
        gradients (tuple[Tensor]): one per parameter.

    Outputs:
        tuple[bool], True per parameter.
    """

    def __init__(self, params, learning_rate=0.1, momentum: float = 0.0, dampening: float = 0.0, weight_decay=0.0,
                 nesterov: bool = False, loss_scale: float = 1.0) -> None:  # fmt: skip
        groups = params if isinstance(params, list) and params and isinstance(params[0], dict) else []
        if isinstance(weight_decay, Cell) or any(isinstance(g.get("weight_decay"), Cell) for g in groups):
            raise TypeError(
                "SGD takes a fixed weight decay: a Cell schedule was given (as weight_decay or in a parameter "
                "group); pass a float or an int."
            )
        super().__init__(learning_rate, params, weight_decay, loss_scale)
        momentum = _as_float("momentum", momentum)
        self.dampening = _as_float("dampening", dampening)
        if not isinstance(nesterov, bool):
            raise TypeError(f"For 'SGD', 'nesterov' must be a bool, but got {type(nesterov).__name__}.")
        if nesterov and (momentum <= 0.0 or self.dampening != 0.0):
            raise ValueError(
                f"For 'SGD', Nesterov momentum needs 'momentum' > 0 and 'dampening' = 0, but got momentum={momentum}, "
                f"dampening={self.dampening}."
            )
        if any(isinstance(w, Cell) for w in self._weight_decays):
            raise TypeError("For 'SGD', a dynamic (Cell) weight decay is not supported; use a float.")
        self.nesterov = nesterov
        self.momentum = Parameter(Tensor(np.float32(momentum)), name="momentum")
        self.accum = self._parameters.clone(prefix="accum", init="zeros")
        self.stat = self._parameters.clone(prefix="stat", init="ones")

    def construct(self, gradients):
        return self._fused_step(
            S.FusedSGD, gradients, (self.accum, self.stat), (self.momentum,), (self.dampening, self.nesterov)
        )


class ASGD(PerParameterOptimizer):
    """Averaged SGD: param = param (1 - lambd eta) - eta g; ax averages the parameters after step t0; eta and mu
    follow MindSpore's schedule (eta = lr / (1 + lambd lr t)^alpha, mu = 1 / max(1, t - t0))."""

    def __init__(self, params, learning_rate=0.1, lambd=1e-4, alpha=0.75, t0=1e6, weight_decay=0.0):
        super().__init__(learning_rate, params, weight_decay)
        self.lambd = check_float("ASGD", "lambd", lambd)
        self.alpha = check_float("ASGD", "alpha", alpha)
        self.t0 = check_float("ASGD", "t0", t0)
        self.mu = ParameterTuple(Parameter(Tensor(np.float32(1.0)), name=f"mu_{p.name}") for p in self._parameters)
        self.eta = ParameterTuple(Parameter(Tensor(np.float32(0.0)), name=f"eta_{p.name}") for p in self._parameters)
        self.lens = len(self._parameters)
        self.ax = self._parameters.clone(prefix="ax_", init="zeros")

    def _update(self, i, param, grad, lr):
        step = ops.cast(ops.reshape(self.global_step, ()), mstype.float32)
        self._apply_update(S.ASGDUpdate, (param, self.ax[i], self.eta[i], self.mu[i]),
                           (ops.cast(grad, mstype.float32), ops.reshape(lr, ()), step),
                           (self.lambd, self.alpha, self.t0))  # fmt: skip
