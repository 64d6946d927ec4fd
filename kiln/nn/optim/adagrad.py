"""The Adagrad family (MindSpore's update rules and state names): Adagrad (ApplyAdagrad), Adadelta
(ApplyAdadelta) and ProximalAdagrad (ApplyProximalAdagrad, with l1/l2 regularization)."""

from __future__ import annotations

import numpy as np

from kiln._core.tensor import Tensor
from kiln._prims import state as S
from kiln.nn.optim.optimizer import PerParameterOptimizer, check_bool, check_float

__all__ = ["Adagrad", "Adadelta", "ProximalAdagrad"]


class Adagrad(PerParameterOptimizer):
    """Adagrad: accum += g²; param -= lr * g / sqrt(accum) (MindSpore's ApplyAdagrad).

    Args:
        params: parameters or parameter groups.
        accum (float): initial accumulator value (>= 0). Default: 0.1.
        learning_rate: Default: 0.001.
        update_slots (bool): update the accumulator. Default: True.
        loss_scale (float): Default: 1.0.
        weight_decay: Default: 0.0.
    """

    def __init__(self, params, accum=0.1, learning_rate=0.001, update_slots=True, loss_scale=1.0, weight_decay=0.0):
        super().__init__(learning_rate, params, weight_decay, loss_scale)
        check_float("Adagrad", "accum", accum, low=0.0, low_open=False)
        if not isinstance(update_slots, bool):
            raise TypeError(f"For 'Adagrad', 'update_slots' must be a bool, but got {type(update_slots).__name__}.")
        self.update_slots = update_slots
        self.accum = self._parameters.clone(prefix="accum", init=accum)

    def _update(self, i, param, grad, lr):
        self._apply_update(S.ApplyAdagrad, (param, self.accum[i]), (lr, grad), (self.update_slots,))


class Adadelta(PerParameterOptimizer):
    """Adadelta (MindSpore's ApplyAdadelta): accum = rho accum + (1 - rho) g²;
    update = sqrt(accum_update + eps) / sqrt(accum + eps) * g; accum_update = rho accum_update + (1 - rho) update²;
    param -= lr * update."""

    def __init__(self, params, learning_rate=1.0, rho=0.9, epsilon=1e-6, loss_scale=1.0, weight_decay=0.0):
        super().__init__(learning_rate, params, weight_decay, loss_scale)
        self.rho = check_float("Adadelta", "rho", rho, low=0.0, high=1.0, low_open=False, high_open=False)
        self.epsilon = check_float("Adadelta", "epsilon", epsilon, low=0.0)
        self.accum = self._parameters.clone(prefix="accum", init="zeros")
        self.accum_update = self._parameters.clone(prefix="accum_update", init="zeros")

    def _update(self, i, param, grad, lr):
        self._apply_update(S.ApplyAdadelta, (param, self.accum[i], self.accum_update[i]), (lr, self.rho, self.epsilon,
                                                                                           grad))  # fmt: skip


class ProximalAdagrad(PerParameterOptimizer):
    """accum += g^2; with the adapted rate a = lr / sqrt(accum): v = w - a g; w = sign(v) max(|v| - a l1, 0) /
    (1 + a l2) (ApplyProximalAdagrad)."""

    def __init__(self, params, accum=0.1, learning_rate=0.001, l1=0.0, l2=0.0, use_locking=False, loss_scale=1.0,
                 weight_decay=0.0):  # fmt: skip
        super().__init__(learning_rate, params, weight_decay, loss_scale)
        for name, v in (("accum", accum), ("l1", l1), ("l2", l2)):
            check_float("ProximalAdagrad", name, v, low=0.0, low_open=False)
        check_bool("ProximalAdagrad", use_locking=use_locking)
        self.accum = self._parameters.clone(prefix="accum", init=accum)
        self.l1, self.l2, self.use_locking = l1, l2, use_locking

    def _update(self, i, param, grad, lr):
        # l1 and l2 as float32 Tensors, as MindSpore passes them (a float16 Cell rounds them to float16)
        l1, l2 = Tensor(np.float32(self.l1)), Tensor(np.float32(self.l2))
        self._apply_update(S.ApplyProximalAdagrad, (param, self.accum[i]), (lr, l1, l2, grad))
