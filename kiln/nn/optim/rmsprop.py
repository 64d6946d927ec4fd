"""`nn.RMSProp`: plain and centered RMSProp with MindSpore's update rules (ApplyRMSProp /
ApplyCenteredRMSProp) and state names (`mean_square`, `mean_grad`, `moment`)."""

from __future__ import annotations

from kiln import ops
from kiln._core import dtype as mstype
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
        g = ops.cast(grad, mstype.float32)
        ms = self.decay * ops.cast(self.ms[i], mstype.float32) + (1 - self.decay) * g * g
        denom = ms
        if self.centered:
            mg = self.decay * ops.cast(self.mg[i], mstype.float32) + (1 - self.decay) * g
            self._store(self.mg[i], mg)
            denom = ms - mg * mg
        # The documented sqrt(ms + eps). MindSpore 2.10's CPU ApplyRMSProp computes sqrt(ms) + eps in its 8-wide
        # vector loop and sqrt(ms + eps) only on the tail elements (measured): not followed.
        mom = self.momentum * ops.cast(self.moment[i], mstype.float32) + lr * g / ops.sqrt(denom + self.epsilon)
        self._store(self.ms[i], ms)
        self._store(self.moment[i], mom)
        self._store(param, ops.cast(param, mstype.float32) - mom)
