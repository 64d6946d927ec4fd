"""ProximalAdagrad, FTRL and LazyAdam with MindSpore's update rules (ApplyProximalAdagrad, ApplyFtrl) and state
names (`accum`, `moments`, `linear`); gradients are dense in Kiln, for which LazyAdam is Adam."""

from __future__ import annotations

from kiln import ops
from kiln._core import dtype as mstype
from kiln.nn.optim.adam import Adam
from kiln.nn.optim.extra import _float, _PerParameter

__all__ = ["FTRL", "AdamOffload", "LazyAdam", "ProximalAdagrad"]

F32 = mstype.float32


def _non_negative(cls: str, name: str, value) -> float:
    return _float(cls, name, value, low=0.0, low_open=False)


def _check_bool(cls: str, name: str, value) -> None:
    if not isinstance(value, bool):
        raise TypeError(f"For '{cls}', '{name}' must be a bool, but got {type(value).__name__}.")


class ProximalAdagrad(_PerParameter):
    """accum += g^2; with the adapted rate a = lr / sqrt(accum): v = w - a g; w = sign(v) max(|v| - a l1, 0) /
    (1 + a l2) (ApplyProximalAdagrad)."""

    def __init__(self, params, accum=0.1, learning_rate=0.001, l1=0.0, l2=0.0, use_locking=False, loss_scale=1.0,
                 weight_decay=0.0):  # fmt: skip
        super().__init__(learning_rate, params, weight_decay, loss_scale)
        for name, v in (("accum", accum), ("l1", l1), ("l2", l2)):
            _non_negative("ProximalAdagrad", name, v)
        _check_bool("ProximalAdagrad", "use_locking", use_locking)
        self.accum = self._parameters.clone(prefix="accum", init=accum)
        self.l1, self.l2, self.use_locking = l1, l2, use_locking

    def _update(self, i, param, grad, lr):
        g = ops.cast(grad, F32)
        acc = ops.cast(self.accum[i], F32) + g * g
        self._store(self.accum[i], acc)
        rate = lr / ops.sqrt(acc)
        v = ops.cast(param, F32) - rate * g
        shrunk = ops.maximum(ops.abs(v) - rate * self.l1, ops.zeros_like(v))
        self._store(param, ops.sign(v) * shrunk / (1.0 + rate * self.l2))


class FTRL(_PerParameter):
    """FTRL-Proximal (McMahan et al. 2013): n' = n + g^2; z += g - (n'^-p - n^-p) / lr * w; w = (sign(z) l1 - z) /
    (n'^-p / lr + 2 l2) where |z| > l1, else 0 (p = lr_power). Weight decay applies to every parameter. (MindSpore
    2.10's CPU kernel moves w away from 0 by l1 / quad where z < 0; Kiln follows the published rule.)"""

    def __init__(self, params, initial_accum=0.1, learning_rate=0.001, lr_power=-0.5, l1=0.0, l2=0.0,
                 use_locking=False, loss_scale=1.0, weight_decay=0.0):  # fmt: skip
        super().__init__(learning_rate, params, weight_decay, loss_scale=loss_scale)
        if self.dynamic_lr or self.is_group_lr:
            raise ValueError(f"For 'FTRL', dynamic learning rate and group learning rate are currently not supported "
                             f"in FTRL, they should all be false, but got dynamic learning rate {self.dynamic_lr} and"
                             f" group learning rate {self.is_group_lr}.")  # fmt: skip
        _non_negative("FTRL", "initial_accum", initial_accum)
        _float("FTRL", "lr_power", lr_power, high=0.0, high_open=False)
        _non_negative("FTRL", "l1", l1)
        _non_negative("FTRL", "l2", l2)
        _check_bool("FTRL", "use_locking", use_locking)
        self.moments = self._parameters.clone(prefix="moments", init=initial_accum)
        self.linear = self._parameters.clone(prefix="linear", init="zeros")
        self.l1, self.l2, self.lr_power, self.use_locking = l1, l2, lr_power, use_locking
        if not self.is_group:
            self.decay_flags = tuple(True for _ in self._parameters)
            self.exec_weight_decay = any(self.decay_flags) and (
                self.dynamic_weight_decay or any(w > 0 for w in self._weight_decays)
            )

    def _update(self, i, param, grad, lr):
        g, w = ops.cast(grad, F32), ops.cast(param, F32)
        n = ops.cast(self.moments[i], F32)
        n_new = n + g * g
        p = -self.lr_power
        z = ops.cast(self.linear[i], F32) + g - (ops.pow(n_new, p) - ops.pow(n, p)) / lr * w
        quad = ops.pow(n_new, p) / lr + 2.0 * self.l2
        new = ops.select(ops.abs(z) > self.l1, (ops.sign(z) * self.l1 - z) / quad, ops.zeros_like(z))
        self._store(self.moments[i], n_new)
        self._store(self.linear[i], z)
        self._store(param, new)


class LazyAdam(Adam):
    """Adam that, for sparse (RowTensor) gradients, updates only the touched rows; Kiln's gradients are dense, for
    which it is Adam (MindSpore's LazyAdam on dense gradients runs the Adam kernel)."""

    def __init__(self, params, learning_rate=1e-3, beta1=0.9, beta2=0.999, eps=1e-8, use_locking=False,
                 use_nesterov=False, weight_decay=0.0, loss_scale=1.0):  # fmt: skip
        super().__init__(params, learning_rate, beta1, beta2, eps, use_locking, use_nesterov, weight_decay,
                         loss_scale)  # fmt: skip


class AdamOffload(Adam):
    """Adam whose state MindSpore keeps in host memory (deprecated there in favour of nn.Adam); Kiln runs Adam."""

    def __init__(self, params, learning_rate=1e-3, beta1=0.9, beta2=0.999, eps=1e-8, use_locking=False,
                 use_nesterov=False, weight_decay=0.0, loss_scale=1.0):  # fmt: skip
        super().__init__(params, learning_rate, beta1, beta2, eps, use_locking, use_nesterov, weight_decay,
                         loss_scale)  # fmt: skip
