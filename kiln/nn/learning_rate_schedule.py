"""Learning-rate schedules (MindSpore's `nn.learning_rate_schedule`): Cells mapping the step to a rate.

An optimizer built with a schedule calls it with its `global_step` before
each update. Each built-in schedule is one `LRSchedule` primitive call, so it
costs one dispatch in PyNative and one node in a compiled graph.
"""

from __future__ import annotations

from kiln._core.tensor import Tensor
from kiln._prims import state as _state
from kiln.nn._checks import finite_float, positive_int
from kiln.nn.cell import Cell
from kiln.ops._helpers import apply

_LR_SCHEDULE = _state.LRSchedule

__all__ = [
    "CosineDecayLR",
    "ExponentialDecayLR",
    "InverseDecayLR",
    "LearningRateSchedule",
    "NaturalExpDecayLR",
    "PolynomialDecayLR",
    "WarmUpLR",
]


class LearningRateSchedule(Cell):
    """Base class: subclasses define `construct(global_step) -> Tensor` (a float32 scalar)."""

    def construct(self, global_step: Tensor) -> Tensor:
        raise NotImplementedError(f"{type(self).__name__} must define construct(global_step).")


def _bool(cls: str, name: str, value) -> None:
    if not isinstance(value, bool):
        raise TypeError(f"For '{cls}', '{name}' must be a bool, but got {type(value).__name__}.")


def _schedule(global_step, kind: str, args: tuple) -> Tensor:
    """One dispatch of the `LRSchedule` primitive (the formulas live in kiln/_prims/state.py)."""
    if not isinstance(global_step, Tensor):
        global_step = Tensor(global_step)
    return apply(_LR_SCHEDULE, (global_step,), (kind, args))


class _Decay(LearningRateSchedule):
    def __init__(self, learning_rate: float, decay_rate: float, decay_steps: int, is_stair: bool = False) -> None:
        super().__init__()
        name = type(self).__name__
        positive_int(name, "decay_steps", decay_steps)
        finite_float(name, "learning_rate", learning_rate, positive=True)
        finite_float(name, "decay_rate", decay_rate, positive=True)
        _bool(name, "is_stair", is_stair)
        self.learning_rate = learning_rate
        self.decay_rate = decay_rate
        self.decay_steps = decay_steps
        self.is_stair = is_stair

    def _args(self) -> tuple:
        return (self.learning_rate, self.decay_rate, float(self.decay_steps), self.is_stair)


class ExponentialDecayLR(_Decay):
    """lr * decay_rate ** p, p = step / decay_steps (rounded down when is_stair).

    Args:
        learning_rate (float): initial rate.
        decay_rate (float): decay factor.
        decay_steps (int): steps per decay period.
        is_stair (bool): decay in whole periods. Default: False.
    """

    def construct(self, global_step) -> Tensor:
        return _schedule(global_step, "exponential", self._args())


class NaturalExpDecayLR(_Decay):
    """lr * e ** (-decay_rate * p), p = step (rounded down to a multiple of decay_steps when is_stair).

    This follows MindSpore's computation, whose non-stair exponent uses the raw step.

    Args: as for `ExponentialDecayLR`.
    """

    def construct(self, global_step) -> Tensor:
        return _schedule(global_step, "natural_exp", self._args())


class InverseDecayLR(_Decay):
    """lr / (1 + decay_rate * p), p = step / decay_steps (rounded down when is_stair).

    Args: as for `ExponentialDecayLR`.
    """

    def construct(self, global_step) -> Tensor:
        return _schedule(global_step, "inverse", self._args())


class CosineDecayLR(LearningRateSchedule):
    """min_lr + (max_lr - min_lr) / 2 * (1 + cos(pi * min(step, decay_steps) / decay_steps)).

    Args:
        min_lr (float): the final rate.
        max_lr (float): the initial rate (> min_lr).
        decay_steps (int): steps of the decay.
    """

    def __init__(self, min_lr: float, max_lr: float, decay_steps: int) -> None:
        super().__init__()
        finite_float("CosineDecayLR", "min_lr", min_lr, positive=False)
        finite_float("CosineDecayLR", "max_lr", max_lr, positive=True)
        positive_int("CosineDecayLR", "decay_steps", decay_steps)
        if min_lr >= max_lr:
            raise ValueError(
                f"For 'CosineDecayLR', 'max_lr' must be greater than 'min_lr', but got max_lr={max_lr}, "
                f"min_lr={min_lr}."
            )
        self.min_lr, self.max_lr, self.decay_steps = min_lr, max_lr, decay_steps
        self.delta = 0.5 * (max_lr - min_lr)

    def construct(self, global_step) -> Tensor:
        return _schedule(global_step, "cosine", (self.min_lr, self.max_lr, float(self.decay_steps)))


class PolynomialDecayLR(LearningRateSchedule):
    """(lr - end_lr) * (1 - step / decay_steps) ** power + end_lr.

    Without update_decay_steps the step stops at decay_steps; with it, decay_steps grows to the
    next multiple of itself covering the step.

    Args:
        learning_rate (float): initial rate.
        end_learning_rate (float): final rate.
        decay_steps (int): steps of the decay.
        power (float): polynomial power (> 0).
        update_decay_steps (bool): restart the decay. Default: False.
    """

    def __init__(
        self,
        learning_rate: float,
        end_learning_rate: float,
        decay_steps: int,
        power: float,
        update_decay_steps: bool = False,
    ) -> None:
        super().__init__()
        cls = "PolynomialDecayLR"
        finite_float(cls, "learning_rate", learning_rate, positive=True)
        finite_float(cls, "end_learning_rate", end_learning_rate, positive=False)
        positive_int(cls, "decay_steps", decay_steps)
        _bool(cls, "update_decay_steps", update_decay_steps)
        finite_float(cls, "power", power, positive=True)
        self.start_learning_rate, self.end_learning_rate = learning_rate, end_learning_rate
        self.decay_steps, self.power, self.update_decay_steps = decay_steps, power, update_decay_steps
        self.diff_learning_rate = learning_rate - end_learning_rate

    def construct(self, global_step) -> Tensor:
        args = (self.start_learning_rate, self.end_learning_rate, float(self.decay_steps), self.power,
                self.update_decay_steps)  # fmt: skip
        return _schedule(global_step, "polynomial", args)


class WarmUpLR(LearningRateSchedule):
    """lr * min(step, warmup_steps) / warmup_steps.

    Args:
        learning_rate (float): the rate reached after warm-up.
        warmup_steps (int): steps of the warm-up.
    """

    def __init__(self, learning_rate: float, warmup_steps: int) -> None:
        super().__init__()
        finite_float("WarmUpLR", "learning_rate", learning_rate, positive=False)
        positive_int("WarmUpLR", "warmup_steps", warmup_steps)
        self.learning_rate, self.warmup_steps = learning_rate, warmup_steps

    def construct(self, global_step) -> Tensor:
        return _schedule(global_step, "warmup", (self.learning_rate, float(self.warmup_steps)))
