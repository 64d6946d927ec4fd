"""Learning-rate schedulers of `mindspore.experimental.optim` (PyTorch's rules, MindSpore's interface).

A scheduler holds its optimizer's per-group learning-rate Parameters; `step()` advances `last_epoch` and assigns
the new rates (chained: each rule scales the current rate, so schedulers compose). `get_last_lr()` gives the
current rates as Tensors. Constructing a scheduler takes the first step (epoch 0), as in MindSpore.

`last_epoch` is a Parameter and the rules of StepLR, MultiStepLR, ConstantLR, LinearLR, ExponentialLR,
PolynomialLR, LambdaLR, MultiplicativeLR, CosineAnnealingLR, CyclicLR (their `_lr_tensors`) and ReduceLROnPlateau
are Tensor expressions, so `scheduler.step()` also runs inside a graph-mode `construct` (each call of the compiled graph
advances the epoch); CosineAnnealingWarmRestarts and SequentialLR compute on the host (PyNative).
"""

from __future__ import annotations

import math
from collections import Counter

import numpy as np

from kiln import ops
from kiln._core import dtype as mstype
from kiln._core.tensor import Parameter, Tensor
from kiln.experimental.optim.optimizer import Optimizer

__all__ = [
    "ConstantLR", "CosineAnnealingLR", "CosineAnnealingWarmRestarts", "CyclicLR", "ExponentialLR", "LRScheduler",
    "LambdaLR", "LinearLR", "MultiStepLR", "MultiplicativeLR", "PolynomialLR", "ReduceLROnPlateau", "SequentialLR",
    "StepLR",
]  # fmt: skip


def _check_optimizer(optimizer) -> None:
    if not isinstance(optimizer, Optimizer):
        raise TypeError(f"{type(optimizer).__name__} is not an Optimizer")


def _check_total_iters(cls: str, total_iters) -> None:
    if not isinstance(total_iters, int):
        raise TypeError(f"{cls}: total_iters is a {type(total_iters).__name__}; give the step count as an int.")


class LRScheduler:
    """Base class: subclasses define `get_lr()` (the rates for the new `last_epoch`, from the current ones)."""

    def __init__(self, optimizer, last_epoch: int = -1) -> None:
        _check_optimizer(optimizer)
        if not isinstance(last_epoch, int) or isinstance(last_epoch, bool):
            raise TypeError(f"'last_epoch' must be an int, but got {type(last_epoch).__name__}.")
        if last_epoch < -1:
            raise ValueError(f"Invalid last_epoch: {last_epoch}")
        if last_epoch == -1:
            for group in optimizer.param_groups:
                group.setdefault("initial_lr", float(group["lr"].asnumpy()))
        else:
            missing = [i for i, group in enumerate(optimizer.param_groups) if "initial_lr" not in group]
            if missing:
                raise KeyError(
                    f"param_groups{missing} have no 'initial_lr': a scheduler resumed with last_epoch != -1 needs "
                    "the optimizer a scheduler wrote it into (create one with last_epoch=-1 first)"
                )
        self.base_lrs = [float(group["initial_lr"]) for group in optimizer.param_groups]
        self.optimizer = optimizer
        self._last_lr = list(optimizer.lrs)
        self.groups_num = len(optimizer.param_groups)
        self._epoch = Parameter(Tensor(np.int32(last_epoch)), name="last_epoch", requires_grad=False)
        self.step()

    @property
    def last_epoch(self) -> int:
        return int(self._epoch.asnumpy())

    @last_epoch.setter
    def last_epoch(self, value) -> None:
        ops.assign(self._epoch, Tensor(np.int32(int(value))))

    def _current(self) -> list[float]:
        return [float(lr.asnumpy()) for lr in self._last_lr]

    def _lr_tensors(self, e, cur):
        """The new rates as Tensors from the new epoch `e` (float32) and the current rates; None: host only."""
        return None

    def get_lr(self) -> list[float]:
        raise NotImplementedError

    def get_last_lr(self) -> list[Tensor]:
        """The current learning rate of each group."""
        return [lr.value() for lr in self._last_lr]

    def step(self, epoch=None) -> bool:
        """Advance one epoch (or jump to `epoch`) and assign the new rates."""
        if epoch is None and type(self)._lr_tensors is not LRScheduler._lr_tensors:
            ops.assign_add(self._epoch, Tensor(np.int32(1)))
            e = ops.cast(self._epoch, mstype.float32)
            cur = [ops.cast(lr, mstype.float32) for lr in self._last_lr]
            for param, value in zip(self._last_lr, self._lr_tensors(e, cur)):
                ops.assign(param, ops.cast(value, param.dtype))
            return True
        if epoch is None:
            self.last_epoch += 1
            values = self.get_lr()
        else:
            self.last_epoch = int(epoch)
            values = self._get_closed_form_lr() if hasattr(self, "_get_closed_form_lr") else self.get_lr()
        for param, value in zip(self._last_lr, values):
            ops.assign(param, Tensor(np.float32(float(value))))
        return True


class StepLR(LRScheduler):
    """Multiply the rate by `gamma` every `step_size` epochs."""

    def __init__(self, optimizer, step_size, gamma=0.1, last_epoch=-1) -> None:
        if not isinstance(step_size, int):
            raise TypeError(
                f"StepLR: step_size is a {type(step_size).__name__}; give the epochs between decays as an int."
            )
        if not isinstance(gamma, float):
            raise TypeError(f"StepLR: gamma is a {type(gamma).__name__}; give the decay factor as a float, e.g. 0.1.")
        self.step_size, self.gamma = step_size, gamma
        super().__init__(optimizer, last_epoch)

    def _lr_tensors(self, e, cur):
        keep = ops.logical_or(e == 0, ops.floor_mod(e, float(self.step_size)) != 0)
        return [ops.select(keep, lr, lr * self.gamma) for lr in cur]

    def get_lr(self):
        decays_now = self.last_epoch > 0 and self.last_epoch % self.step_size == 0
        return [lr * self.gamma for lr in self._current()] if decays_now else self._current()

    def _get_closed_form_lr(self):
        return [b * self.gamma ** (self.last_epoch // self.step_size) for b in self.base_lrs]


class MultiStepLR(LRScheduler):
    """Multiply the rate by `gamma` at each milestone epoch (repeated milestones multiply again)."""

    def __init__(self, optimizer, milestones, gamma=0.1, last_epoch=-1) -> None:
        if not isinstance(milestones, list) or any(not isinstance(m, int) for m in milestones):
            raise TypeError(f"For 'MultiStepLR', 'milestones' must be a list of ints, but got {milestones!r}.")
        self.milestones, self.gamma = Counter(milestones), gamma
        super().__init__(optimizer, last_epoch)

    def _lr_tensors(self, e, cur):
        times = sum(ops.cast(e == float(m), mstype.float32) * n for m, n in self.milestones.items())
        return [lr * ops.pow(Tensor(np.float32(self.gamma)), times) for lr in cur]

    def get_lr(self):
        times = self.milestones.get(self.last_epoch, 0)
        return [lr * self.gamma**times for lr in self._current()]

    def _get_closed_form_lr(self):
        passed = sum(n for m, n in self.milestones.items() if m <= self.last_epoch)
        return [b * self.gamma**passed for b in self.base_lrs]


class ConstantLR(LRScheduler):
    """`factor` times the rate until `total_iters`, then the rate itself."""

    def __init__(self, optimizer, factor=1.0 / 3, total_iters=5, last_epoch=-1) -> None:
        if factor > 1.0 or factor < 0:
            raise ValueError(f"ConstantLR: factor is {factor}; it scales the learning rate and must lie in [0, 1].")
        _check_total_iters("ConstantLR", total_iters)
        self.factor, self.total_iters = factor, total_iters
        super().__init__(optimizer, last_epoch)

    def _lr_tensors(self, e, cur):
        return [ops.select(e == 0, lr * self.factor, ops.select(e == float(self.total_iters), lr / self.factor, lr))
                for lr in cur]  # fmt: skip

    def get_lr(self):
        if self.last_epoch == 0:
            return [lr * self.factor for lr in self._current()]
        if self.last_epoch != self.total_iters:
            return self._current()
        return [lr / self.factor for lr in self._current()]

    def _get_closed_form_lr(self):
        return [b * (self.factor + (self.last_epoch >= self.total_iters) * (1 - self.factor)) for b in self.base_lrs]


class LinearLR(LRScheduler):
    """Scale the rate linearly from `start_factor` to `end_factor` over `total_iters` epochs."""

    def __init__(self, optimizer, start_factor=1.0 / 3, end_factor=1.0, total_iters=5, last_epoch=-1) -> None:
        if start_factor > 1.0 or start_factor <= 0:
            raise ValueError(
                f"LinearLR: start_factor is {start_factor}; it must lie in (0, 1] (0 would leave nothing to scale)."
            )
        if end_factor > 1.0 or end_factor < 0:
            raise ValueError(f"LinearLR: end_factor is {end_factor}; it must lie in [0, 1].")
        _check_total_iters("LinearLR", total_iters)
        self.start_factor, self.end_factor, self.total_iters = start_factor, end_factor, total_iters
        super().__init__(optimizer, last_epoch)

    def _lr_tensors(self, e, cur):
        d = self.end_factor - self.start_factor
        denom = self.total_iters * self.start_factor + (e - 1.0) * d
        factor = 1.0 + d / ops.select(denom == 0, ops.ones_like(denom), denom)
        return [ops.select(e == 0, lr * self.start_factor, ops.select(e > float(self.total_iters), lr, lr * factor))
                for lr in cur]  # fmt: skip

    def get_lr(self):
        if self.last_epoch == 0:
            return [lr * self.start_factor for lr in self._current()]
        if self.last_epoch > self.total_iters:
            return self._current()
        d = self.end_factor - self.start_factor
        factor = 1.0 + d / (self.total_iters * self.start_factor + (self.last_epoch - 1) * d)
        return [lr * factor for lr in self._current()]

    def _get_closed_form_lr(self):
        frac = min(self.total_iters, self.last_epoch) / self.total_iters
        return [b * (self.start_factor + (self.end_factor - self.start_factor) * frac) for b in self.base_lrs]


class ExponentialLR(LRScheduler):
    """Multiply the rate by `gamma` every epoch."""

    def __init__(self, optimizer, gamma, last_epoch=-1) -> None:
        if not isinstance(gamma, float):
            raise TypeError(f"ExponentialLR: gamma is a {type(gamma).__name__}; give the per-epoch factor as a float.")
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def _lr_tensors(self, e, cur):
        return [ops.select(e == 0, lr, lr * self.gamma) for lr in cur]

    def get_lr(self):
        if self.last_epoch == 0:
            return self._current()
        return [lr * self.gamma for lr in self._current()]

    def _get_closed_form_lr(self):
        return [b * self.gamma**self.last_epoch for b in self.base_lrs]


class PolynomialLR(LRScheduler):
    """Decay the rate as (1 - epoch / total_iters)^power, then keep it."""

    def __init__(self, optimizer, total_iters=5, power=1.0, last_epoch=-1) -> None:
        if not isinstance(power, float):
            raise TypeError(f"PolynomialLR: power is a {type(power).__name__}; give the exponent as a float, e.g. 1.0.")
        if power < 0:
            raise ValueError(f"PolynomialLR: power is {power}; a negative exponent would grow the rate: use 0 or more.")
        _check_total_iters("PolynomialLR", total_iters)
        self.total_iters, self.power = total_iters, power
        super().__init__(optimizer, last_epoch)

    def _lr_tensors(self, e, cur):
        n = float(self.total_iters)
        keep = ops.logical_or(e == 0, e > n)
        den = 1.0 - (e - 1.0) / n
        factor = ops.pow((1.0 - e / n) / ops.select(den == 0, ops.ones_like(den), den), self.power)
        return [ops.select(keep, lr, lr * factor) for lr in cur]

    def get_lr(self):
        t, n = self.last_epoch, self.total_iters
        if not 0 < t <= n:  # before the first step and after the last the rate holds
            return self._current()
        factor = ((1.0 - t / n) / (1.0 - (t - 1) / n)) ** self.power
        return [lr * factor for lr in self._current()]

    def _get_closed_form_lr(self):
        return [b * (1.0 - min(self.total_iters, self.last_epoch) / self.total_iters) ** self.power
                for b in self.base_lrs]  # fmt: skip


class LambdaLR(LRScheduler):
    """base rate * lr_lambda(epoch) (one function, or one per group)."""

    def __init__(self, optimizer, lr_lambda, last_epoch=-1) -> None:
        n = len(optimizer.param_groups)
        if isinstance(lr_lambda, (list, tuple)):
            if len(lr_lambda) != n:
                raise ValueError(f"Expected {n} lr_lambdas, but got {len(lr_lambda)}")
            self.lr_lambdas = list(lr_lambda)
        else:
            self.lr_lambdas = [lr_lambda] * n
        super().__init__(optimizer, last_epoch)

    def _lr_tensors(self, e, cur):
        epoch = ops.cast(self._epoch, mstype.int32)  # the lambdas see an int epoch, as in MindSpore
        return [b * ops.cast(f(epoch), mstype.float32) for f, b in zip(self.lr_lambdas, self.base_lrs)]

    def get_lr(self):
        return [b * f(self.last_epoch) for f, b in zip(self.lr_lambdas, self.base_lrs)]


class MultiplicativeLR(LambdaLR):
    """Multiply the rate by lr_lambda(epoch) every epoch after the first."""

    def _lr_tensors(self, e, cur):
        return [ops.select(e > 0, lr * ops.cast(f(e), mstype.float32), lr) for f, lr in zip(self.lr_lambdas, cur)]

    def get_lr(self):
        if self.last_epoch > 0:
            return [lr * f(self.last_epoch) for f, lr in zip(self.lr_lambdas, self._current())]
        return self._current()


class CosineAnnealingLR(LRScheduler):
    """Cosine annealing from the base rate to `eta_min` over `T_max` epochs (and back, periodically)."""

    def __init__(self, optimizer, T_max, eta_min=0.0, last_epoch=-1) -> None:  # noqa: N803  (MindSpore's name)
        if not isinstance(eta_min, (float, int)):
            raise TypeError(
                f"CosineAnnealingLR: eta_min is a {type(eta_min).__name__}; give the floor rate as a number."
            )
        if not isinstance(T_max, int):
            raise TypeError(
                f"CosineAnnealingLR: T_max is a {type(T_max).__name__}; give the half-period in steps as an int."
            )
        self.T_max, self.eta_min = T_max, eta_min
        super().__init__(optimizer, last_epoch)

    def _lr_tensors(self, e, cur):
        n, eta = float(self.T_max), self.eta_min
        restart = ops.floor_mod(e - 1.0 - n, 2.0 * n) == 0
        den = 1.0 + ops.cos(math.pi * (e - 1.0) / n)
        ratio = (1.0 + ops.cos(math.pi * e / n)) / ops.select(den == 0, ops.ones_like(den), den)
        out = []
        for b, lr in zip(self.base_lrs, cur):
            bumped = lr + (b - eta) * (1 - math.cos(math.pi / n)) / 2
            out.append(ops.select(e == 0, lr, ops.select(restart, bumped, ratio * (lr - eta) + eta)))
        return out

    def get_lr(self):
        t, n = self.last_epoch, self.T_max
        if t == 0:
            return self._current()
        if (t - 1 - n) % (2 * n) == 0:
            return [lr + (b - self.eta_min) * (1 - math.cos(math.pi / n)) / 2
                    for b, lr in zip(self.base_lrs, self._current())]  # fmt: skip
        ratio = (1 + math.cos(math.pi * t / n)) / (1 + math.cos(math.pi * (t - 1) / n))
        return [ratio * (lr - self.eta_min) + self.eta_min for lr in self._current()]

    def _get_closed_form_lr(self):
        return [self.eta_min + (b - self.eta_min) * (1 + math.cos(math.pi * self.last_epoch / self.T_max)) / 2
                for b in self.base_lrs]  # fmt: skip


class CosineAnnealingWarmRestarts(LRScheduler):
    """Cosine annealing restarted every T_0, T_0 T_mult, ... epochs."""

    def __init__(self, optimizer, T_0, T_mult=1, eta_min=0.0, last_epoch=-1) -> None:  # noqa: N803
        if not isinstance(T_0, int) or T_0 <= 0:
            raise ValueError(f"Expected positive integer T_0, but got {T_0}")
        if not isinstance(T_mult, int) or T_mult < 1:
            raise ValueError(f"Expected integer T_mult >= 1, but got {T_mult}")
        self.T_0, self.T_i, self.T_mult, self.eta_min = T_0, T_0, T_mult, eta_min
        self.T_cur = last_epoch
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        return [self.eta_min + (b - self.eta_min) * (1 + math.cos(math.pi * self.T_cur / self.T_i)) / 2
                for b in self.base_lrs]  # fmt: skip

    def step(self, epoch=None) -> bool:
        if epoch is None:
            epoch = self.last_epoch + 1
            self.T_cur += 1
            if self.T_cur >= self.T_i:
                self.T_cur -= self.T_i
                self.T_i *= self.T_mult
        else:
            if epoch < 0:
                raise ValueError(f"Expected non-negative epoch, but got {epoch}")
            if epoch >= self.T_0:
                if self.T_mult == 1:
                    self.T_cur = epoch % self.T_0
                else:
                    n = int(math.log(epoch / self.T_0 * (self.T_mult - 1) + 1, self.T_mult))
                    self.T_cur = epoch - self.T_0 * (self.T_mult**n - 1) / (self.T_mult - 1)
                    self.T_i = self.T_0 * self.T_mult**n
            else:
                self.T_i, self.T_cur = self.T_0, epoch
        self.last_epoch = math.floor(epoch)
        for param, value in zip(self._last_lr, self.get_lr()):
            ops.assign(param, Tensor(np.float32(value)))
        return True


class CyclicLR(LRScheduler):
    """Cycle the rate between base_lr and max_lr ('triangular', 'triangular2' or 'exp_range')."""

    def __init__(self, optimizer, base_lr, max_lr, step_size_up=2000, step_size_down=None, mode="triangular",
                 gamma=1.0, scale_fn=None, scale_mode="cycle", last_epoch=-1) -> None:  # fmt: skip
        n = len(optimizer.param_groups)
        base = list(base_lr) if isinstance(base_lr, (list, tuple)) else [base_lr] * n
        if last_epoch == -1:
            for lr, group, param in zip(base, optimizer.param_groups, optimizer.lrs):
                group["initial_lr"] = lr
                ops.assign(param, Tensor(np.float32(lr)))
        self.max_lrs = list(max_lr) if isinstance(max_lr, (list, tuple)) else [max_lr] * n
        up = float(step_size_up)
        down = float(step_size_down) if step_size_down is not None else up
        self.total_size, self.step_ratio = up + down, up / (up + down)
        if mode not in ("triangular", "triangular2", "exp_range") and scale_fn is None:
            raise ValueError("mode is invalid and scale_fn is None")
        self.mode, self.gamma = mode, gamma
        if scale_fn is None:
            self.scale_fn = {"triangular": lambda x: 1.0, "triangular2": lambda x: 1 / (2.0 ** (x - 1)),
                             "exp_range": lambda x: gamma**x}[mode]  # fmt: skip
            self.scale_mode = "cycle" if mode in ("triangular", "triangular2") else "iterations"
        else:
            self.scale_fn, self.scale_mode = scale_fn, scale_mode
        super().__init__(optimizer, last_epoch)
        self.base_lrs = base

    def _lr_tensors(self, e, cur):
        cycle = ops.floor(1.0 + e / self.total_size)
        x = 1.0 + e / self.total_size - cycle
        scale = ops.select(x <= self.step_ratio, x / self.step_ratio, (x - 1.0) / (self.step_ratio - 1.0))
        arg = cycle if self.scale_mode == "cycle" else e
        factor = ops.cast(self.scale_fn(arg), mstype.float32)
        return [b + (m - b) * scale * factor for b, m in zip(self.base_lrs, self.max_lrs)]

    def get_lr(self):
        cycle = math.floor(1 + self.last_epoch / self.total_size)
        x = 1.0 + self.last_epoch / self.total_size - cycle
        scale = x / self.step_ratio if x <= self.step_ratio else (x - 1) / (self.step_ratio - 1)
        arg = cycle if self.scale_mode == "cycle" else self.last_epoch
        return [b + (m - b) * scale * self.scale_fn(arg) for b, m in zip(self.base_lrs, self.max_lrs)]


class SequentialLR:
    """Run `schedulers` one after the other, switching at the `milestones` epochs."""

    def __init__(self, optimizer, schedulers, milestones, last_epoch=-1) -> None:
        _check_optimizer(optimizer)
        if len(milestones) != len(schedulers) - 1:
            raise ValueError(
                f"SequentialLR: {len(schedulers)} schedulers and {len(milestones)} milestones; each milestone "
                "hands over "
                "to the next scheduler, so pass one milestone fewer than schedulers."
            )
        for s in schedulers:
            if s.optimizer is not optimizer:
                raise ValueError("Sequential Schedulers expects all schedulers to belong to the same optimizer.")
        self.optimizer, self._schedulers, self._milestones = optimizer, list(schedulers), list(milestones)
        self.last_epoch = last_epoch + 1
        for group, base in zip(optimizer.param_groups, schedulers[0].base_lrs):
            ops.assign(group["lr"], Tensor(np.float32(base)))
        for s in self._schedulers:
            s.last_epoch -= 1
        self._schedulers[0]._initial = True
        self._schedulers[0].step()
        self._last_lr = schedulers[0]._last_lr

    def step(self) -> bool:
        self.last_epoch += 1
        idx = sum(1 for m in self._milestones if m <= self.last_epoch)
        scheduler = self._schedulers[idx]
        if idx > 0 and self._milestones[idx - 1] == self.last_epoch:
            scheduler.step(0)
        else:
            scheduler.step()
        return True

    def get_last_lr(self):
        return [lr.value() for lr in self._last_lr]


class ReduceLROnPlateau:
    """Multiply the rate by `factor` when a metric stops improving for `patience` epochs (its state, `best`,
    `num_bad_epochs`, `cooldown_counter` and `last_epoch`, is held in Parameters: `step` runs in graph mode too)."""

    def __init__(self, optimizer, mode="min", factor=0.1, patience=10, threshold=1e-4, threshold_mode="rel",
                 cooldown=0, min_lr=0, eps=1e-8) -> None:  # fmt: skip
        _check_optimizer(optimizer)
        if factor >= 1.0:
            raise ValueError("Factor should be < 1.0.")
        if mode not in ("min", "max") or threshold_mode not in ("rel", "abs"):
            raise ValueError(f"mode {mode!r} / threshold_mode {threshold_mode!r} is unknown.")
        n = len(optimizer.param_groups)
        self.min_lrs = list(min_lr) if isinstance(min_lr, (list, tuple)) else [min_lr] * n
        self.optimizer, self.mode, self.factor, self.patience = optimizer, mode, factor, patience
        self.threshold, self.threshold_mode, self.cooldown, self.eps = threshold, threshold_mode, cooldown, eps
        inf = np.float32(np.inf if mode == "min" else -np.inf)
        self._best = Parameter(Tensor(inf), name="best", requires_grad=False)
        self._bad = Parameter(Tensor(np.int32(0)), name="num_bad_epochs", requires_grad=False)
        self._cool = Parameter(Tensor(np.int32(0)), name="cooldown_counter", requires_grad=False)
        self._epoch = Parameter(Tensor(np.int32(0)), name="last_epoch", requires_grad=False)
        self._last_lr = list(optimizer.lrs)

    best = property(lambda self: float(self._best.asnumpy()))
    num_bad_epochs = property(lambda self: int(self._bad.asnumpy()))
    cooldown_counter = property(lambda self: int(self._cool.asnumpy()))
    last_epoch = property(lambda self: int(self._epoch.asnumpy()))

    def _better(self, a, best):
        if self.mode == "min":
            return a < (best * (1 - self.threshold) if self.threshold_mode == "rel" else best - self.threshold)
        return a > (best * (1 + self.threshold) if self.threshold_mode == "rel" else best + self.threshold)

    def step(self, metrics) -> bool:
        f32, i32 = mstype.float32, mstype.int32
        current = ops.cast(metrics if isinstance(metrics, Tensor) else Tensor(np.float32(metrics)), f32)
        ops.assign_add(self._epoch, Tensor(np.int32(1)))
        best = ops.cast(self._best, f32)
        better = self._better(current, best)
        ops.assign(self._best, ops.select(better, current, best))
        bad = ops.select(better, ops.zeros_like(self._bad), self._bad + 1)
        cool = ops.cast(self._cool, i32)
        cooling = cool > 0
        bad = ops.select(cooling, ops.zeros_like(bad), bad)
        cool = ops.select(cooling, cool - 1, cool)
        reduce = bad > self.patience
        for param, min_lr in zip(self._last_lr, self.min_lrs):
            old = ops.cast(param, f32)
            new = ops.maximum(old * self.factor, Tensor(np.float32(min_lr)))
            ops.assign(param, ops.cast(ops.select(ops.logical_and(reduce, old - new > self.eps), new, old),
                                       param.dtype))  # fmt: skip
        ops.assign(self._cool, ops.select(reduce, ops.full_like(cool, self.cooldown), cool))
        ops.assign(self._bad, ops.select(reduce, ops.zeros_like(bad), bad))
        return True

    def get_last_lr(self):
        return [lr.value() for lr in self._last_lr]
