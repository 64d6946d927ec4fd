"""The Adagrad family (MindSpore's update rules and state names): Adagrad (ApplyAdagrad), Adadelta
(ApplyAdadelta) and ProximalAdagrad (ApplyProximalAdagrad, with l1/l2 regularization)."""

from __future__ import annotations

from kiln import ops
from kiln._core import dtype as mstype
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
        accum = self.accum[i]
        g = ops.cast(grad, mstype.float32)
        acc = ops.cast(accum, mstype.float32)
        if self.update_slots:
            acc = acc + g * g
            self._store(accum, acc)
        self._store(param, ops.cast(param, mstype.float32) - lr * g / ops.sqrt(acc))


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
        g = ops.cast(grad, mstype.float32)
        acc = self.rho * ops.cast(self.accum[i], mstype.float32) + (1 - self.rho) * g * g
        acc_up = ops.cast(self.accum_update[i], mstype.float32)
        update = ops.sqrt(acc_up + self.epsilon) / ops.sqrt(acc + self.epsilon) * g
        self._store(self.accum[i], acc)
        self._store(self.accum_update[i], self.rho * acc_up + (1 - self.rho) * update * update)
        self._store(param, ops.cast(param, mstype.float32) - lr * update)


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
        g = ops.cast(grad, mstype.float32)
        acc = ops.cast(self.accum[i], mstype.float32) + g * g
        self._store(self.accum[i], acc)
        rate = lr / ops.sqrt(acc)
        v = ops.cast(param, mstype.float32) - rate * g
        shrunk = ops.maximum(ops.abs(v) - rate * self.l1, ops.zeros_like(v))
        self._store(param, ops.sign(v) * shrunk / (1.0 + rate * self.l2))
