"""`nn.RMSProp`: plain and centered RMSProp with MindSpore's update rules (ApplyRMSProp /
ApplyCenteredRMSProp) and state names (`mean_square`, `mean_grad`, `moment`)."""

from __future__ import annotations

from kiln._prims import state as S
from kiln.nn.optim.optimizer import PerParameterOptimizer, check_float

__all__ = ["RMSProp"]


class RMSProp(PerParameterOptimizer):
    """RMSProp (MindSpore's ApplyRMSProp / ApplyCenteredRMSProp): ms = decay ms + (1 - decay) g²;
    moment = momentum moment + lr g / sqrt(ms - mg² (centered) + eps); param -= moment."""

    def __init__(self, params, learning_rate=0.1, decay=0.9, momentum=0.0, epsilon=1e-10, use_locking=False,
                 centered=False, loss_scale=1.0, weight_decay=0.0):  # fmt: skip
        super().__init__(learning_rate, params, weight_decay, loss_scale)
        self.decay = check_float("RMSProp", "decay", decay, low=0.0, low_open=False)
        self.momentum = check_float("RMSProp", "momentum", momentum, low=0.0, low_open=False)
        self.epsilon = check_float("RMSProp", "epsilon", epsilon, low=0.0)
        for name, v in (("use_locking", use_locking), ("centered", centered)):
            if not isinstance(v, bool):
                raise TypeError(f"For 'RMSProp', '{name}' must be a bool, but got {type(v).__name__}.")
        self.centered = centered
        if centered:
            self.mg = self._parameters.clone(prefix="mean_grad", init="zeros")
        self.ms = self._parameters.clone(prefix="mean_square", init="ones")
        self.moment = self._parameters.clone(prefix="moment", init="zeros")

    def _update(self, i, param, grad, lr):
        hyper = (self.decay, self.momentum, self.epsilon)
        if self.centered:
            state = (param, self.mg[i], self.ms[i], self.moment[i])
            self._apply_update(S.ApplyCenteredRMSProp, state, (grad, lr, *hyper))
        else:
            self._apply_update(S.ApplyRMSProp, (param, self.ms[i], self.moment[i]), (lr, grad, *hyper))
