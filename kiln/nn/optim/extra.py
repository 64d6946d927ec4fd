"""More of MindSpore's optimizers: Adagrad, Adadelta, AdaMax, RMSProp, Rprop, ASGD.

Each step is written with Kiln's ops and `assign`s, per parameter, with MindSpore's update rules, state names
(`accum`, `moment1`, `mean_square`, `prev`, `ax`, ...) and hyper-parameter checks; the gradient transforms
(weight decay, centralization, loss scale) are the base class's.
"""

from __future__ import annotations

import numpy as np

from kiln import ops
from kiln._core import dtype as mstype
from kiln._core.tensor import Parameter, ParameterTuple, Tensor
from kiln.nn.optim.optimizer import Optimizer

__all__ = ["ASGD", "AdaMax", "Adadelta", "Adagrad", "RMSProp", "Rprop"]


def _float(cls: str, name: str, value, *, low=None, high=None, low_open=True, high_open=True) -> float:
    if not isinstance(value, float) or isinstance(value, bool):
        raise TypeError(f"For '{cls}', '{name}' must be a float, but got {type(value).__name__}.")
    if low is not None and (value <= low if low_open else value < low):
        raise ValueError(f"For '{cls}', '{name}' must be {'>' if low_open else '>='} {low}, but got {value}.")
    if high is not None and (value >= high if high_open else value > high):
        raise ValueError(f"For '{cls}', '{name}' must be {'<' if high_open else '<='} {high}, but got {value}.")
    return value


class _PerParameter(Optimizer):
    """An optimizer whose step is `_update(index, param, grad, lr)` for each parameter, MindSpore's way."""

    def construct(self, gradients):
        gradients = self._check_gradients(gradients)
        gradients = self.decay_weight(gradients)
        gradients = self.gradients_centralization(gradients)
        gradients = self.scale_grad(gradients)
        lrs = self.get_lr()
        ops.assign_add(self.global_step, Tensor(np.array([1], np.int32)))
        for i, (param, grad) in enumerate(zip(self._parameters, gradients)):
            lr = lrs[i] if self.is_group_lr else lrs
            self._update(i, param, grad, ops.cast(lr, mstype.float32))
        return True

    def _update(self, i: int, param, grad, lr) -> None:
        raise NotImplementedError

    @staticmethod
    def _store(target, value) -> None:
        ops.assign(target, ops.cast(value, target.dtype))


class Adagrad(_PerParameter):
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
        _float("Adagrad", "accum", accum, low=0.0, low_open=False)
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


class Adadelta(_PerParameter):
    """Adadelta (MindSpore's ApplyAdadelta): accum = rho accum + (1 - rho) g²;
    update = sqrt(accum_update + eps) / sqrt(accum + eps) * g; accum_update = rho accum_update + (1 - rho) update²;
    param -= lr * update."""

    def __init__(self, params, learning_rate=1.0, rho=0.9, epsilon=1e-6, loss_scale=1.0, weight_decay=0.0):
        super().__init__(learning_rate, params, weight_decay, loss_scale)
        self.rho = _float("Adadelta", "rho", rho, low=0.0, high=1.0, low_open=False, high_open=False)
        self.epsilon = _float("Adadelta", "epsilon", epsilon, low=0.0)
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


class AdaMax(_PerParameter):
    """AdaMax (MindSpore's ApplyAdaMax): m = b1 m + (1 - b1) g; v = max(b2 v, |g|);
    param -= lr / (1 - b1^t) * m / (v + eps)."""

    def __init__(self, params, learning_rate=0.001, beta1=0.9, beta2=0.999, eps=1e-08, weight_decay=0.0,
                 loss_scale=1.0):  # fmt: skip
        super().__init__(learning_rate, params, weight_decay, loss_scale)
        self.beta1 = _float("AdaMax", "beta1", beta1, low=0.0, high=1.0)
        self.beta2 = _float("AdaMax", "beta2", beta2, low=0.0, high=1.0)
        self.eps = _float("AdaMax", "eps", eps, low=0.0)
        self.beta1_power = Parameter(Tensor(np.ones([1], np.float32)), name="beta1_power")
        self.moment1 = self._parameters.clone(prefix="moment1", init="zeros")
        self.moment2 = self._parameters.clone(prefix="moment2", init="zeros")

    def construct(self, gradients):
        ops.assign(self.beta1_power, self.beta1_power * self.beta1)
        return super().construct(gradients)

    def _update(self, i, param, grad, lr):
        g = ops.cast(grad, mstype.float32)
        m = self.beta1 * ops.cast(self.moment1[i], mstype.float32) + (1 - self.beta1) * g
        v = ops.maximum(self.beta2 * ops.cast(self.moment2[i], mstype.float32), ops.abs(g))
        self._store(self.moment1[i], m)
        self._store(self.moment2[i], v)
        step = lr / (1 - ops.reshape(self.beta1_power, ())) * m / (v + self.eps)
        self._store(param, ops.cast(param, mstype.float32) - step)


class RMSProp(_PerParameter):
    """RMSProp (MindSpore's ApplyRMSProp / ApplyCenteredRMSProp): ms = decay ms + (1 - decay) g²;
    moment = momentum moment + lr g / sqrt(ms - mg² (centered) + eps); param -= moment."""

    def __init__(self, params, learning_rate=0.1, decay=0.9, momentum=0.0, epsilon=1e-10, use_locking=False,
                 centered=False, loss_scale=1.0, weight_decay=0.0):  # fmt: skip
        super().__init__(learning_rate, params, weight_decay, loss_scale)
        self.decay = _float("RMSProp", "decay", decay, low=0.0, low_open=False)
        self.momentum = _float("RMSProp", "momentum", momentum, low=0.0, low_open=False)
        self.epsilon = _float("RMSProp", "epsilon", epsilon, low=0.0)
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
        mom = self.momentum * ops.cast(self.moment[i], mstype.float32) + lr * g / ops.sqrt(denom + self.epsilon)
        self._store(self.ms[i], ms)
        self._store(self.moment[i], mom)
        self._store(param, ops.cast(param, mstype.float32) - mom)


class Rprop(_PerParameter):
    """Resilient backpropagation: per element, the step size grows by etaplus while the gradient keeps its sign and
    shrinks by etaminus when it flips (then that element's gradient counts as 0); param -= sign(g) * step size."""

    def __init__(self, params, learning_rate=0.1, etas=(0.5, 1.2), step_sizes=(1e-6, 50.0), weight_decay=0.0):
        super().__init__(learning_rate, params, weight_decay)
        for name, v in (("etas", etas), ("step_sizes", step_sizes)):
            if not isinstance(v, tuple):
                raise TypeError(f"For Rprop, {name} must be a tuple, but got {type(v)}.")
            if len(v) != 2:
                raise ValueError(f"For Rprop, {name} must be a tuple with the size of 2, but got {len(v)}.")
        if step_sizes[0] > step_sizes[1]:
            raise ValueError(
                "For Rprop, maximal step size should not be less than minimal step size, "
                f"but got {step_sizes[0]} > {step_sizes[1]}."
            )
        _float("Rprop", "etaminus", etas[0], low=0.0, high=1.0)
        _float("Rprop", "etaplus", etas[1])
        if etas[1] <= 1.0:
            raise ValueError(f"For Rprop, etaplus must be greater than 1.0, but got etaplus {etas[1]}.")
        _float("Rprop", "min_step_sizes", step_sizes[0])
        _float("Rprop", "max_step_sizes", step_sizes[1])
        self.etaminus, self.etaplus = etas
        self.step_size_min, self.step_size_max = step_sizes
        self.prev = self._parameters.clone(prefix="prev", init="zeros")
        self.step_size = self._parameters.clone(prefix="step_size", init="zeros")

    def _update(self, i, param, grad, lr):
        prev, step_size = self.prev[i], self.step_size[i]
        dt = param.dtype if param.dtype in (mstype.float16, mstype.bfloat16) else mstype.float32
        first = ops.reshape(self.global_step, ()) == 1  # the first step starts from step size lr
        size = ops.select(ops.broadcast_to(first, step_size.shape), ops.ones(step_size.shape, dt) * ops.cast(lr, dt),
                          ops.cast(step_size, dt))  # fmt: skip
        g = ops.cast(grad, dt)
        sign = ops.sign(g * ops.cast(prev, dt))
        factor = ops.select(sign > 0, ops.full_like(sign, self.etaplus), sign)
        factor = ops.select(factor < 0, ops.full_like(sign, self.etaminus), factor)
        factor = ops.select(factor == 0, ops.ones_like(sign), factor)
        size = ops.clip_by_value(size * factor, self.step_size_min, self.step_size_max)
        g = ops.select(factor == self.etaminus, ops.zeros_like(g), g)
        self._store(param, ops.cast(param, dt) - ops.sign(g) * size)
        self._store(prev, g)
        self._store(step_size, size)


class ASGD(_PerParameter):
    """Averaged SGD: param = param (1 - lambd eta) - eta g; ax averages the parameters after step t0; eta and mu
    follow MindSpore's schedule (eta = lr / (1 + lambd lr t)^alpha, mu = 1 / max(1, t - t0))."""

    def __init__(self, params, learning_rate=0.1, lambd=1e-4, alpha=0.75, t0=1e6, weight_decay=0.0):
        super().__init__(learning_rate, params, weight_decay)
        self.lambd = _float("ASGD", "lambd", lambd)
        self.alpha = _float("ASGD", "alpha", alpha)
        self.t0 = _float("ASGD", "t0", t0)
        self.mu = ParameterTuple(Parameter(Tensor(np.float32(1.0)), name=f"mu_{p.name}") for p in self._parameters)
        self.eta = ParameterTuple(Parameter(Tensor(np.float32(0.0)), name=f"eta_{p.name}") for p in self._parameters)
        self.lens = len(self._parameters)
        self.ax = self._parameters.clone(prefix="ax_", init="zeros")

    def _update(self, i, param, grad, lr):
        mu, eta, ax = self.mu[i], self.eta[i], self.ax[i]
        lr = ops.reshape(lr, ())
        step = ops.cast(ops.reshape(self.global_step, ()), mstype.float32)
        eta_now = ops.select(step == 1.0, lr, ops.cast(eta, mstype.float32))  # the first step starts from lr
        p32 = ops.cast(param, mstype.float32) * (1.0 - self.lambd * eta_now) - eta_now * ops.cast(grad, mstype.float32)
        self._store(param, p32)
        ax32 = ops.cast(ax, mstype.float32)
        averaged = ops.select(ops.broadcast_to(mu != 1.0, ax.shape), ax32 + (p32 - ax32) * mu,
                              ops.cast(ops.cast(p32, param.dtype), mstype.float32))  # fmt: skip
        self._store(ax, averaged)
        ops.assign(eta, lr / ops.pow(1.0 + self.lambd * lr * step, self.alpha))
        ops.assign(mu, 1.0 / ops.maximum(Tensor(np.float32(1.0)), step - self.t0))
