"""PyTorch-style optimizers of `mindspore.experimental.optim`.

`Optimizer(params, defaults)` keeps `param_groups` (dicts with `params`, `lr` and the algorithm's options); each
group's learning rate is a scalar Parameter (`learning_rate_group_{i}`) that the schedulers of `lr_scheduler`
assign. Calling the optimizer with one gradient per parameter (in `parameters` order) updates the parameters in
place with PyTorch's rules (MindSpore's own, for SGD and Adam: the first SGD step takes the gradient as the
momentum buffer; Adam's bias correction is folded into the step size).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable

import numpy as np

from kiln import ops
from kiln._core import dtype as mstype
from kiln._core.tensor import Parameter, ParameterTuple, Tensor
from kiln.nn.cell import Cell
from kiln.ops.multitype import HyperMap, Map

__all__ = [
    "ASGD",
    "SGD",
    "Adadelta",
    "Adagrad",
    "Adam",
    "AdamW",
    "Adamax",
    "NAdam",
    "Optimizer",
    "RAdam",
    "RMSprop",
    "Rprop",
]

F32 = mstype.float32


class Optimizer(Cell):
    """Base class: parameter groups with per-group options; subclasses define `construct(gradients)`."""

    def __init__(self, params, defaults: dict) -> None:
        super().__init__(auto_prefix=False)
        groups = self._parameters_base_check(params, "params")
        self.defaults = defaults
        self.state = defaultdict(dict)
        self.param_groups: list[dict] = []
        self.lrs: list[Parameter] = []
        self.group_start_id = [0]
        self.map_, self.hyper_map = Map(), HyperMap()
        params_all: list[Parameter] = []
        if not isinstance(groups[0], dict):
            groups = [{"params": groups}]
        for group in groups:
            params_all += self._add_group(group)
        object.__setattr__(self, "_lr_list", ParameterTuple(self.lrs))
        self.parameters = ParameterTuple(params_all)

    @staticmethod
    def _parameters_base_check(parameters, what: str) -> list:
        if parameters is None:
            raise ValueError(f"For 'Optimizer', the argument {what} can not be None.")
        if not isinstance(parameters, Iterable):
            raise TypeError(f"For 'Optimizer', the argument {what} must be Iterable type, but got {type(parameters)}.")
        parameters = list(parameters)
        if not parameters:
            raise ValueError(f"For 'Optimizer', the argument {what} must not be empty.")
        return parameters

    def _add_group(self, group: dict) -> list:
        if not isinstance(group, dict):
            raise TypeError("Param group must be a dict.")
        params = group["params"]
        params = [params] if isinstance(params, Parameter) else params
        if isinstance(params, set):
            raise TypeError("Optimizer parameters need to be organized in ordered collections; use a list.")
        params = list(params)
        for p in params:
            if not isinstance(p, Parameter):
                raise TypeError(
                    f"a parameter group holds a {type(p).__name__}; optimizers update Parameter objects only."
                )
        seen = {id(p) for g in self.param_groups for p in g["params"]}
        if any(id(p) in seen for p in params):
            raise ValueError("a Parameter of this group is already in another group; give each Parameter to one group.")
        group = dict(group, params=params)
        for name, default in self.defaults.items():
            group.setdefault(name, default)
        group_id = len(self.param_groups)
        lr = group["lr"]
        if isinstance(lr, Tensor):
            if lr.ndim != 0:
                raise ValueError(
                    f"the learning rate Tensor has shape {lr.shape}; pass a 0-d Tensor (one rate per group)."
                )
            lr = float(lr.asnumpy())
        if not isinstance(lr, (int, float)) or isinstance(lr, bool) or lr < 0:
            raise TypeError(f"For 'Optimizer', the argument 'learning_rate' must be a non-negative int, float or "
                            f"Tensor, but got {lr!r}.")  # fmt: skip
        group["lr"] = Parameter(Tensor(np.float32(lr)), name=f"learning_rate_group_{group_id}")
        wd = group.get("weight_decay", 0.0)
        if not isinstance(wd, (int, float)) or isinstance(wd, bool) or wd < 0:
            raise TypeError(f"For 'Optimizer', the argument 'weight_decay' must be a non-negative int or float, "
                            f"but got {wd!r}.")  # fmt: skip
        group["weight_decay"] = float(wd)
        self.lrs.append(group["lr"])
        self.param_groups.append(group)
        self.group_start_id.append(self.group_start_id[-1] + len(params))
        return params

    def add_param_group(self, param_group: dict) -> None:
        """Add a group of parameters with its own options (its state starts at zero)."""
        params = self._add_group(param_group)
        object.__setattr__(self, "_lr_list", ParameterTuple(self.lrs))
        self.parameters = ParameterTuple(list(self.parameters) + params)
        self._init_group_state(len(self.param_groups) - 1)

    def _init_group_state(self, group_id: int) -> None:
        """Subclasses with per-parameter state extend it for a group added later."""

    def __repr__(self) -> str:
        lines = [type(self).__name__ + " ("]
        for i, group in enumerate(self.param_groups):
            lines.append(f"Parameter Group {i}")
            for key in sorted(k for k in group if k != "params"):
                v = group[key]
                lines.append(f"    {key}: {float(v.asnumpy()) if isinstance(v, Parameter) else v}")
        return "\n".join(lines) + "\n)"

    # -- the step, per parameter --------------------------------------------------------------------------------
    def _grads(self, gradients) -> tuple:
        gradients = (gradients,) if isinstance(gradients, Tensor) else tuple(gradients)
        if len(gradients) != len(self.parameters):
            raise ValueError(f"For '{type(self).__name__}', got {len(gradients)} gradients for "
                             f"{len(self.parameters)} parameters.")  # fmt: skip
        return gradients

    def construct(self, gradients):
        gradients = self._grads(gradients)
        self._begin_step()
        for gid, group in enumerate(self.param_groups):
            lr = ops.cast(group["lr"], F32)
            for k in range(self.group_start_id[gid], self.group_start_id[gid + 1]):
                p = self.parameters[k]
                g = ops.cast(gradients[k], F32)
                if group.get("maximize", False):
                    g = -g
                self._update(k, p, g, ops.cast(p, F32), lr, group)
        return True

    def _begin_step(self) -> None:
        if hasattr(self, "state_step"):
            ops.assign_add(self.state_step, Tensor(np.int32(1)))

    def _step_f32(self):
        return ops.cast(self.state_step, F32)

    def _zero_states(self, *prefixes: str) -> tuple:
        """One zero-filled copy of the parameters per prefix (the optimizer's state, named `<prefix>.<param>`)."""
        return tuple(self.parameters.clone(prefix=prefix, init="zeros") for prefix in prefixes)

    def _update(self, k, p, g, p32, lr, group) -> None:
        raise NotImplementedError(f"{type(self).__name__} must define its update.")

    @staticmethod
    def _l2(g, p32, group):
        """The gradient with the group's L2 weight decay (weight_decay * param) added, where it has one."""
        return g + group["weight_decay"] * p32 if group["weight_decay"] else g

    @staticmethod
    def _store(target, value) -> None:
        ops.assign(target, ops.cast(value, target.dtype))

    @staticmethod
    def _running_average(decay, state, *factors):
        """decay * state + (1 - decay) * factors[0] * factors[1] ... in float32: the running means of g and g^2."""
        new = 1 - decay
        for factor in factors:
            new = new * factor
        return decay * ops.cast(state, F32) + new


class SGD(Optimizer):
    """SGD with momentum, dampening, Nesterov, weight decay and `maximize` (the first step's buffer is g)."""

    def __init__(self, params, lr, momentum=0, dampening=0, weight_decay=0.0, nesterov=False, *, maximize=False):
        if not isinstance(lr, (int, float, Tensor)) or (isinstance(lr, (int, float)) and lr < 0.0):
            raise ValueError(f"Invalid learning rate: {lr}")
        if not isinstance(momentum, (int, float)) or momentum < 0.0:
            raise ValueError(f"Invalid momentum value: {momentum}")
        for name, v in (("nesterov", nesterov), ("maximize", maximize)):
            if not isinstance(v, bool):
                raise TypeError(f"For 'SGD', the type of '{name}' must be bool, but got {type(v).__name__}.")
        super().__init__(params, dict(lr=lr, momentum=float(momentum), dampening=float(dampening),
                                      weight_decay=weight_decay, nesterov=nesterov, maximize=maximize))  # fmt: skip
        if nesterov and not (momentum > 0.0 and dampening == 0.0):
            raise ValueError(
                f"SGD(nesterov=True) needs momentum > 0 and dampening == 0; got momentum={momentum}, "
                f"dampening={dampening}"
            )
        self.accum = self.parameters.clone(prefix="accum", init="zeros")
        self.stat = self.parameters.clone(prefix="stat", init="ones")

    def _update(self, k, p, g, p32, lr, group):
        g = self._l2(g, p32, group)
        momentum = group["momentum"]
        if momentum > 0:
            first = ops.cast(self.stat[k], F32)  # 1 before the first step
            buf = ops.cast(self.accum[k], F32)
            buf = first * g + (1 - first) * (momentum * buf + (1 - group["dampening"]) * g)
            self._store(self.accum[k], buf)
            self._store(self.stat[k], ops.zeros_like(first))
            g = g + momentum * buf if group["nesterov"] else buf
        self._store(p, p32 - lr * g)


class Adam(Optimizer):
    """Adam (L2 weight decay added to the gradient): m, v moments; p -= lr sqrt(1 - b2^t) / (1 - b1^t) m /
    (sqrt(v) + eps); with `amsgrad` the denominator uses the running maximum of v (and eps-hat is bias-corrected)."""

    _decoupled = False

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0.0, amsgrad=False, *,
                 maximize=False):  # fmt: skip
        if isinstance(lr, (int, float)) and lr < 0.0:
            raise ValueError(f"Invalid learning rate: {lr}")
        if eps < 0.0:
            raise ValueError(f"Invalid epsilon value: {eps}")
        for i in (0, 1):
            if not 0.0 <= betas[i] < 1.0:
                raise ValueError(f"Invalid beta parameter at index {i}: {betas[i]}")
        if weight_decay < 0.0:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        super().__init__(params, dict(lr=lr, betas=tuple(betas), eps=eps, weight_decay=weight_decay,
                                      amsgrad=amsgrad, maximize=maximize))  # fmt: skip
        self.exp_avg, self.exp_avg_sq, self.max_exp_avg_sq = self._zero_states(
            "exp_avg", "exp_avg_sq", "max_exp_avg_sq"
        )
        self.state_step = Parameter(Tensor(np.int32(0)), name="state_step")

    def _update(self, k, p, g, p32, lr, group):
        beta1, beta2 = group["betas"]
        wd = group["weight_decay"]
        if wd and not self._decoupled:
            g = g + wd * p32
        if wd and self._decoupled:
            p32 = p32 * (1 - lr * wd)
        t = self._step_f32()
        m = self._running_average(beta1, self.exp_avg[k], g)
        v = self._running_average(beta2, self.exp_avg_sq[k], g, g)
        self._store(self.exp_avg[k], m)
        self._store(self.exp_avg_sq[k], v)
        bc1, bc2 = 1 - ops.pow(beta1, t), 1 - ops.pow(beta2, t)
        if group["amsgrad"]:
            v = ops.maximum(ops.cast(self.max_exp_avg_sq[k], F32), v)
            self._store(self.max_exp_avg_sq[k], v)
        if group["amsgrad"] or self._decoupled:
            new = p32 - lr / bc1 * m / (ops.sqrt(v) / ops.sqrt(bc2) + group["eps"])
        else:
            new = p32 - lr * ops.sqrt(bc2) / bc1 * m / (ops.sqrt(v) + group["eps"])
        self._store(p, new)


class AdamW(Adam):
    """Adam with decoupled weight decay: p *= 1 - lr wd, then the bias-corrected Adam step."""

    _decoupled = True

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=1e-2, amsgrad=False, *,
                 maximize=False):  # fmt: skip
        super().__init__(params, lr, betas, eps, weight_decay, amsgrad, maximize=maximize)


class Adamax(Optimizer):
    """Adamax: m = b1 m + (1 - b1) g; u = max(b2 u, |g| + eps); p -= lr / (1 - b1^t) m / u."""

    def __init__(self, params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0.0, *, maximize=False):
        if isinstance(lr, (int, float)) and lr < 0.0:
            raise ValueError(f"Invalid learning rate: {lr}")
        super().__init__(params, dict(lr=lr, betas=tuple(betas), eps=eps, weight_decay=weight_decay,
                                      maximize=maximize))  # fmt: skip
        self.exp_avg, self.exp_inf = self._zero_states("exp_avg", "exp_inf")
        self.state_step = Parameter(Tensor(np.int32(0)), name="state_step")

    def _update(self, k, p, g, p32, lr, group):
        beta1, beta2 = group["betas"]
        g = self._l2(g, p32, group)
        m = self._running_average(beta1, self.exp_avg[k], g)
        u = ops.maximum(beta2 * ops.cast(self.exp_inf[k], F32), ops.abs(g) + group["eps"])
        self._store(self.exp_avg[k], m)
        self._store(self.exp_inf[k], u)
        self._store(p, p32 - lr / (1 - ops.pow(beta1, self._step_f32())) * m / u)


class Adagrad(Optimizer):
    """Adagrad: sum += g^2; p -= lr / (1 + (t - 1) lr_decay) g / (sqrt(sum) + eps)."""

    def __init__(self, params, lr=1e-2, lr_decay=0.0, weight_decay=0.0, initial_accumulator_value=0.0, eps=1e-10,
                 *, maximize=False):  # fmt: skip
        if isinstance(lr, (int, float)) and lr < 0.0:
            raise ValueError(f"Invalid learning rate: {lr}")
        defaults = dict(lr=lr, lr_decay=lr_decay, weight_decay=weight_decay, eps=eps,
                        initial_accumulator_value=initial_accumulator_value, maximize=maximize)  # fmt: skip
        super().__init__(params, defaults)
        self.accum = self.parameters.clone(prefix="accum", init=float(initial_accumulator_value))
        self.state_step = Parameter(Tensor(np.int32(0)), name="state_step")

    def _update(self, k, p, g, p32, lr, group):
        g = self._l2(g, p32, group)
        clr = lr / (1 + (self._step_f32() - 1) * group["lr_decay"])
        acc = ops.cast(self.accum[k], F32) + g * g
        self._store(self.accum[k], acc)
        self._store(p, p32 - clr * g / (ops.sqrt(acc) + group["eps"]))


class Adadelta(Optimizer):
    """Adadelta: v = rho v + (1 - rho) g^2; d = sqrt(u + eps) / sqrt(v + eps) g; u = rho u + (1 - rho) d^2;
    p -= lr d."""

    def __init__(self, params, lr=1.0, rho=0.9, eps=1e-6, weight_decay=0.0, *, maximize=False):
        if not 0.0 <= rho <= 1.0:
            raise ValueError(f"Invalid rho value: {rho}")
        super().__init__(params, dict(lr=lr, rho=rho, eps=eps, weight_decay=weight_decay, maximize=maximize))
        self.accum, self.accum_update = self._zero_states("accum", "accum_update")

    def _update(self, k, p, g, p32, lr, group):
        rho, eps = group["rho"], group["eps"]
        g = self._l2(g, p32, group)
        v = self._running_average(rho, self.accum[k], g, g)
        u = ops.cast(self.accum_update[k], F32)
        delta = ops.sqrt(u + eps) / ops.sqrt(v + eps) * g
        self._store(self.accum[k], v)
        self._store(self.accum_update[k], rho * u + (1 - rho) * delta * delta)
        self._store(p, p32 - lr * delta)


class RMSprop(Optimizer):
    """RMSprop: v = alpha v + (1 - alpha) g^2 (centered: minus the squared running mean of g);
    with momentum b = m b + g / (sqrt(v) + eps), p -= lr b; else p -= lr g / (sqrt(v) + eps)."""

    def __init__(self, params, lr=1e-2, alpha=0.99, eps=1e-8, weight_decay=0.0, momentum=0.0, centered=False, *,
                 maximize=False):  # fmt: skip
        if isinstance(lr, (int, float)) and lr < 0.0:
            raise ValueError(f"Invalid learning rate: {lr}")
        super().__init__(params, dict(lr=lr, alpha=alpha, eps=eps, weight_decay=weight_decay, momentum=momentum,
                                      centered=centered, maximize=maximize))  # fmt: skip
        self.square_avg, self.grad_avg, self.momentum_buffer = self._zero_states(
            "square_avg", "grad_avg", "momentum_buffer"
        )

    def _update(self, k, p, g, p32, lr, group):
        alpha, eps = group["alpha"], group["eps"]
        g = self._l2(g, p32, group)
        v = self._running_average(alpha, self.square_avg[k], g, g)
        self._store(self.square_avg[k], v)
        if group["centered"]:
            ga = self._running_average(alpha, self.grad_avg[k], g)
            self._store(self.grad_avg[k], ga)
            avg = ops.sqrt(v - ga * ga) + eps
        else:
            avg = ops.sqrt(v) + eps
        if group["momentum"] > 0:
            buf = group["momentum"] * ops.cast(self.momentum_buffer[k], F32) + g / avg
            self._store(self.momentum_buffer[k], buf)
            self._store(p, p32 - lr * buf)
        else:
            self._store(p, p32 - lr * g / avg)


# ---- ASGD, NAdam, RAdam, Rprop: their step counter is MindSpore's `step_t` ------------------------------------------


class _StepT(Optimizer):
    def _make_step_t(self) -> None:
        self.step_t = Parameter(Tensor(np.int32(0)), name="step_t")

    def _begin_step(self) -> None:
        ops.assign_add(self.step_t, Tensor(np.int32(1)))

    def _step_f32(self):
        return ops.cast(self.step_t, F32)


def _positive(cls: str, name: str, value, low: float = 0.0) -> None:
    if isinstance(value, (int, float)) and not isinstance(value, bool) and value < low:
        raise ValueError(f"For '{cls}', the '{name}' must be at least {low}, but got {value}.")


def _betas(cls: str, betas) -> tuple:
    for i in (0, 1):
        if not isinstance(betas[i], float) or not 0.0 <= betas[i] < 1.0:
            raise ValueError(f"For '{cls}', 'betas[{i}]' must be a float in [0.0, 1.0), but got {betas[i]!r}.")
    return tuple(betas)


class ASGD(_StepT):
    """Averaged SGD: p = p (1 - lambd eta) - eta g; `ax` averages the parameters from step t0 on; eta starts at lr and
    becomes lr / (1 + lambd lr t)^alpha, mu = 1 / max(1, t - t0) (state `eta_*`, `mu_*`, `ax`)."""

    def __init__(self, params, lr=1e-2, lambd=1e-4, alpha=0.75, t0=1e6, weight_decay=0.0, maximize=False):
        _positive("ASGD", "lr", lr)
        _positive("ASGD", "weight_decay", weight_decay)
        if not isinstance(lambd, float):
            raise TypeError(f"ASGD: lambd is a {type(lambd).__name__}; give the decay term as a float.")
        if not isinstance(t0, float):
            raise TypeError(f"ASGD: t0 is a {type(t0).__name__}; give the averaging start point as a float.")
        super().__init__(params, dict(lr=lr, lambd=lambd, alpha=alpha, t0=t0, weight_decay=weight_decay,
                                      maximize=maximize))  # fmt: skip
        self.mu = ParameterTuple(Parameter(Tensor(np.float32(1.0)), name="mu_" + p.name) for p in self.parameters)
        self.eta = ParameterTuple(Parameter(Tensor(np.float32(0.0)), name="eta_" + p.name) for p in self.parameters)
        self.ax = self.parameters.clone(prefix="ax", init="zeros")
        self._make_step_t()

    def _update(self, k, p, g, p32, lr, group):
        lambd, alpha, t0 = group["lambd"], group["alpha"], group["t0"]
        g = self._l2(g, p32, group)
        t = self._step_f32()
        eta = ops.select(t == 1.0, lr, ops.cast(self.eta[k], F32))
        new = ops.cast(p32 * (1.0 - lambd * eta) - eta * g, p.dtype)
        self._store(p, new)
        new32, ax = ops.cast(new, F32), ops.cast(self.ax[k], F32)
        mu = ops.cast(self.mu[k], F32)
        self._store(self.ax[k], ops.select(ops.broadcast_to(mu != 1.0, ax.shape), ax + (new32 - ax) * mu, new32))
        self._store(self.eta[k], lr / ops.pow(1.0 + lambd * lr * t, alpha))
        self._store(self.mu[k], 1.0 / ops.maximum(Tensor(np.float32(1.0)), t - t0))


class NAdam(_StepT):
    """NAdam (Adam with Nesterov momentum, Dozat 2016): mu_t = b1 (1 - 0.5 * 0.96^(t psi)); the step combines the
    gradient, weighted by (1 - mu_t) / (1 - prod mu), and the moment, by mu_{t+1} / (1 - prod mu * mu_{t+1}), over
    sqrt(v / (1 - b2^t)) + eps (state `exp_avg`, `exp_avg_sq`, `mu_product_*`)."""

    def __init__(self, params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0.0, momentum_decay=4e-3):
        _positive("NAdam", "lr", lr)
        _positive("NAdam", "eps", eps)
        _positive("NAdam", "weight_decay", weight_decay)
        _positive("NAdam", "momentum_decay", momentum_decay)
        betas = _betas("NAdam", betas)
        super().__init__(params, dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay,
                                      momentum_decay=momentum_decay))  # fmt: skip
        self._make_step_t()
        self.exp_avg, self.exp_avg_sq = self._zero_states("exp_avg", "exp_avg_sq")
        self.mu_product = ParameterTuple(
            Parameter(Tensor(np.float32(1.0)), name="mu_product_" + p.name) for p in self.parameters
        )

    def _update(self, k, p, g, p32, lr, group):
        beta1, beta2 = group["betas"]
        psi, eps = group["momentum_decay"], group["eps"]
        g = self._l2(g, p32, group)
        t = self._step_f32()
        bc2 = 1.0 - ops.pow(beta2, t)
        mu = beta1 * (1.0 - 0.5 * ops.pow(0.96, t * psi))
        mu_next = beta1 * (1.0 - 0.5 * ops.pow(0.96, (t + 1.0) * psi))
        prod = ops.cast(self.mu_product[k], F32) * mu
        m = self._running_average(beta1, self.exp_avg[k], g)
        v = self._running_average(beta2, self.exp_avg_sq[k], g, g)
        self._store(self.mu_product[k], prod)
        self._store(self.exp_avg[k], m)
        self._store(self.exp_avg_sq[k], v)
        denom = ops.sqrt(v / bc2) + eps
        new = p32 - lr * (1.0 - mu) / (1.0 - prod) * g / denom
        self._store(p, new - lr * mu_next / (1.0 - prod * mu_next) * m / denom)


class RAdam(_StepT):
    """Rectified Adam (Liu et al. 2019): with rho_inf = 2 / (1 - b2) - 1 and rho_t = rho_inf - 2 t b2^t / (1 - b2^t),
    the step is lr m^ r_t sqrt(1 - b2^t) / (sqrt(v) + eps) when rho_t > 5, else lr m^ (m^ = m / (1 - b1^t))."""

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0.0):
        _positive("RAdam", "lr", lr)
        _positive("RAdam", "weight_decay", weight_decay)
        _positive("RAdam", "eps", eps)
        betas = _betas("RAdam", betas)
        super().__init__(params, dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay))
        self._make_step_t()
        self.exp_avg, self.exp_avg_sq = self._zero_states("exp_avg", "exp_avg_sq")

    def _update(self, k, p, g, p32, lr, group):
        beta1, beta2 = group["betas"]
        g = self._l2(g, p32, group)
        t = self._step_f32()
        bc1, b2t = 1.0 - ops.pow(beta1, t), ops.pow(beta2, t)
        bc2 = 1.0 - b2t
        rho_inf = 2.0 / (1.0 - beta2) - 1.0
        rho_t = rho_inf - 2.0 * t * b2t / bc2
        m = self._running_average(beta1, self.exp_avg[k], g)
        v = self._running_average(beta2, self.exp_avg_sq[k], g, g)
        self._store(self.exp_avg[k], m)
        self._store(self.exp_avg_sq[k], v)
        m_hat = m / bc1
        safe_rho = ops.maximum(rho_t, Tensor(np.float32(5.0)))  # the rectifier is only read where rho_t > 5
        rect = ops.sqrt((safe_rho - 4) * (safe_rho - 2) * rho_inf / ((rho_inf - 4) * (rho_inf - 2) * safe_rho))
        adaptive = ops.sqrt(bc2) / (ops.sqrt(v) + group["eps"])
        step = ops.select(ops.broadcast_to(rho_t > 5.0, m.shape), m_hat * lr * adaptive * rect, m_hat * lr)
        self._store(p, p32 - step)


class Rprop(_StepT):
    """Rprop: per element the step size (lr at the first step) is multiplied by etaplus while the gradient keeps its
    sign, by etaminus when it flips (that element's gradient then counts as 0), clipped to step_sizes; p -= sign(g)
    step (state `prev`, `step_size`)."""

    def __init__(self, params, lr=1e-2, etas=(0.5, 1.2), step_sizes=(1e-6, 50), *, maximize=False):
        _positive("Rprop", "lr", lr)
        if not etas[1] > 1.0:
            raise ValueError(f"For 'Rprop', the 'etas[1]' must be greater than 1.0, but got {etas[1]}.")
        if not isinstance(etas[0], float) or not 0.0 < etas[0] < 1.0:
            raise ValueError(f"For 'Rprop', 'etas[0]' must be a float in (0.0, 1.0), but got {etas[0]!r}.")
        super().__init__(params, dict(lr=lr, etas=tuple(etas), step_sizes=tuple(step_sizes), maximize=maximize))
        self.prev, self.step_size = self._zero_states("prev", "step_size")
        self._make_step_t()

    def _update(self, k, p, g, p32, lr, group):
        etaminus, etaplus = group["etas"]
        lo, hi = group["step_sizes"]
        size = ops.cast(self.step_size[k], F32)
        size = ops.select(ops.broadcast_to(self._step_f32() == 1.0, size.shape), ops.ones_like(size) * lr, size)
        sign = ops.sign(g * ops.cast(self.prev[k], F32))
        factor = ops.select(sign > 0, ops.full_like(sign, etaplus), sign)
        factor = ops.select(factor < 0, ops.full_like(sign, etaminus), factor)
        factor = ops.select(factor == 0, ops.ones_like(sign), factor)
        size = ops.clip_by_value(size * factor, float(lo), float(hi))
        g = ops.select(factor == etaminus, ops.zeros_like(g), g)
        self._store(self.step_size[k], size)
        self._store(self.prev[k], g)
        self._store(p, p32 - ops.sign(g) * size)
