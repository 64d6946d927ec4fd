"""`nn.FTRL`: follow-the-regularized-leader with MindSpore's update rule (ApplyFtrl) and state names (`moments`,
`linear`)."""

from __future__ import annotations

from kiln._prims import state as S
from kiln.nn.optim.optimizer import PerParameterOptimizer, check_bool, check_float, warn_dense_rows

__all__ = ["FTRL"]


class FTRL(PerParameterOptimizer):
    """FTRL-Proximal (McMahan et al. 2013): n' = n + g^2; z += g - (n'^-p - n^-p) / lr * w; w = (sign(z) l1 - z) /
    (n'^-p / lr + 2 l2) where |z| > l1, else 0 (p = lr_power). Weight decay applies to every parameter. Rounded as
    MindSpore 2.10's CPU kernel, which moves w away from 0 by l1 / quad where z < 0; Kiln keeps the published sign."""

    def __init__(self, params, initial_accum=0.1, learning_rate=0.001, lr_power=-0.5, l1=0.0, l2=0.0,
                 use_locking=False, loss_scale=1.0, weight_decay=0.0):  # fmt: skip
        super().__init__(learning_rate, params, weight_decay=weight_decay, loss_scale=loss_scale)
        warn_dense_rows(self)
        if self.dynamic_lr or self.is_group_lr:
            kind = "a learning-rate schedule" if self.dynamic_lr else "per-group learning rates"
            raise ValueError(f"FTRL keeps one fixed learning rate and got {kind}; pass a single float.")
        # initial_accum, l1 and l2 are >= 0; lr_power is <= 0 (the accumulator's root shrinks the step).
        for name, value in (("initial_accum", initial_accum), ("l1", l1), ("l2", l2)):
            check_float("FTRL", name, value, low=0.0, low_open=False)
        check_float("FTRL", "lr_power", lr_power, high=0.0, high_open=False)
        check_bool("FTRL", use_locking=use_locking)
        self.moments = self._parameters.clone(prefix="moments", init=initial_accum)
        self.linear = self._parameters.clone(prefix="linear", init="zeros")
        self.l1, self.l2, self.lr_power, self.use_locking = l1, l2, lr_power, use_locking
        if not self.is_group:
            self.decay_flags = tuple(True for _ in self._parameters)
            self.exec_weight_decay = any(self.decay_flags) and (
                self.dynamic_weight_decay or any(w > 0 for w in self._weight_decays)
            )

    def _update(self, i, param, grad, lr):
        self._apply_update(S.ApplyFtrl, (param, self.moments[i], self.linear[i]), (grad, lr, self.l1, self.l2,
                                                                                   self.lr_power))  # fmt: skip
