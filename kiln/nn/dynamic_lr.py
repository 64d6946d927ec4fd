"""Precomputed learning-rate lists (MindSpore's `nn.dynamic_lr`): one float per training step.

Pass the list as an optimizer's `learning_rate`; step `i` uses element `i`.
"""

from __future__ import annotations

import math
import numbers

from kiln.nn._checks import finite_float

__all__ = [
    "cosine_decay_lr",
    "exponential_decay_lr",
    "inverse_decay_lr",
    "natural_exp_decay_lr",
    "piecewise_constant_lr",
    "polynomial_decay_lr",
    "warmup_lr",
]


def _positive_int(op: str, name: str, value) -> None:
    if not isinstance(value, numbers.Integral) or isinstance(value, bool):
        raise TypeError(f"For '{op}', '{name}' must be a positive int, but got {type(value).__name__} {value!r}.")
    if value <= 0:
        raise ValueError(f"For '{op}', '{name}' must be a positive int, but got {value!r}.")


def _check_decay(op, learning_rate, decay_rate, total_step, step_per_epoch, decay_epoch, is_stair) -> None:
    for name, v in (("total_step", total_step), ("step_per_epoch", step_per_epoch), ("decay_epoch", decay_epoch)):
        _positive_int(op, name, v)
    finite_float(op, "learning_rate", learning_rate, positive=True)
    finite_float(op, "decay_rate", decay_rate, positive=True)
    if not isinstance(is_stair, bool):
        raise TypeError(f"For '{op}', 'is_stair' must be a bool, but got {type(is_stair).__name__}.")


def piecewise_constant_lr(milestone, learning_rates) -> list[float]:
    """learning_rates[i] for the steps before milestone[i] (and after milestone[i-1]).

    Args:
        milestone (Union[list[int], tuple[int]]): increasing step boundaries; the last is the total step count.
        learning_rates (Union[list[float], tuple[float]]): one rate per segment.

    Returns:
        list[float] of length milestone[-1].
    """
    op = "piecewise_constant_lr"
    if not isinstance(milestone, (list, tuple)) or not isinstance(learning_rates, (list, tuple)):
        raise TypeError(f"For '{op}', 'milestone' and 'learning_rates' must be lists or tuples.")
    if not milestone:  # an empty schedule gives an optimizer nothing to read at its first step
        raise ValueError(
            f"For '{op}', 'milestone' and 'learning_rates' must hold at least one segment, but got "
            f"milestone={milestone!r}, learning_rates={learning_rates!r}."
        )
    if len(milestone) != len(learning_rates):
        raise ValueError(
            f"For '{op}', 'milestone' and 'learning_rates' must have the same length, but got "
            f"{len(milestone)} and {len(learning_rates)}."
        )
    out: list[float] = []
    last = 0
    for i, (edge, rate) in enumerate(zip(milestone, learning_rates)):
        _positive_int(op, f"milestone[{i}]", edge)
        if not isinstance(rate, float):
            raise TypeError(f"For '{op}', 'learning_rates[{i}]' must be a float, but got {type(rate).__name__}.")
        if not math.isfinite(rate):
            raise ValueError(f"For '{op}', 'learning_rates[{i}]' must be a finite float, but got {rate}.")
        if edge < last:
            raise ValueError(f"For '{op}', 'milestone' must be increasing, but milestone[{i}]={edge} < {last}.")
        out.extend([rate] * (edge - last))
        last = edge
    return out


def _decay_lr(op: str, formula, learning_rate, decay_rate, total_step, step_per_epoch, decay_epoch, is_stair):
    """The list of `formula(learning_rate, decay_rate, epoch)` over the steps, after the common checks."""
    _check_decay(op, learning_rate, decay_rate, total_step, step_per_epoch, decay_epoch, is_stair)
    return [formula(learning_rate, decay_rate, i // step_per_epoch) for i in range(total_step)]


def _periods(epoch: int, decay_epoch: int, is_stair: bool) -> float:
    """Elapsed decay periods: epoch / decay_epoch, rounded down when `is_stair`."""
    p = epoch / decay_epoch
    return math.floor(p) if is_stair else p


def exponential_decay_lr(learning_rate, decay_rate, total_step, step_per_epoch, decay_epoch, is_stair=False):
    """lr * decay_rate ** (epoch / decay_epoch), epoch = floor(step / step_per_epoch).

    Args:
        learning_rate (float): initial rate.
        decay_rate (float): decay factor.
        total_step (int): length of the list.
        step_per_epoch (int): steps in one epoch.
        decay_epoch (int): epochs per decay period.
        is_stair (bool): decay in whole periods. Default: False.

    Returns:
        list[float] of length total_step.
    """

    def formula(lr, rate, epoch):
        return lr * rate ** _periods(epoch, decay_epoch, is_stair)

    return _decay_lr("exponential_decay_lr", formula, learning_rate, decay_rate, total_step, step_per_epoch,
                     decay_epoch, is_stair)  # fmt: skip


def natural_exp_decay_lr(learning_rate, decay_rate, total_step, step_per_epoch, decay_epoch, is_stair=False):
    """lr * e ** (-decay_rate * epoch); with is_stair the epoch is rounded down to a multiple of decay_epoch.

    Args and Returns: as for `exponential_decay_lr` (`decay_epoch` is used with `is_stair` only).
    """

    def formula(lr, rate, epoch):
        if is_stair:
            epoch = (epoch // decay_epoch) * decay_epoch
        return lr * math.e ** (-rate * epoch)

    return _decay_lr("natural_exp_decay_lr", formula, learning_rate, decay_rate, total_step, step_per_epoch,
                     decay_epoch, is_stair)  # fmt: skip


def inverse_decay_lr(learning_rate, decay_rate, total_step, step_per_epoch, decay_epoch, is_stair=False):
    """lr / (1 + decay_rate * epoch / decay_epoch).

    Args and Returns: as for `exponential_decay_lr`.
    """

    def formula(lr, rate, epoch):
        return lr / (1 + rate * _periods(epoch, decay_epoch, is_stair))

    return _decay_lr("inverse_decay_lr", formula, learning_rate, decay_rate, total_step, step_per_epoch, decay_epoch,
                     is_stair)  # fmt: skip


def cosine_decay_lr(min_lr, max_lr, total_step, step_per_epoch, decay_epoch) -> list[float]:
    """min_lr + (max_lr - min_lr) / 2 * (1 + cos(pi * min(epoch, decay_epoch) / decay_epoch)).

    Args:
        min_lr (float): the final rate.
        max_lr (float): the initial rate (> min_lr).
        total_step (int): length of the list.
        step_per_epoch (int): steps in one epoch.
        decay_epoch (int): epochs of the decay.

    Returns:
        list[float] of length total_step.
    """
    op = "cosine_decay_lr"
    finite_float(op, "min_lr", min_lr, positive=False)
    finite_float(op, "max_lr", max_lr, positive=True)
    for name, v in (("total_step", total_step), ("step_per_epoch", step_per_epoch), ("decay_epoch", decay_epoch)):
        _positive_int(op, name, v)
    if min_lr >= max_lr:
        raise ValueError(
            f"For '{op}', 'max_lr' must be greater than 'min_lr', but got max_lr={max_lr}, min_lr={min_lr}."
        )
    half = 0.5 * (max_lr - min_lr)
    return [
        min_lr + half * (1 + math.cos(math.pi * min(i // step_per_epoch, decay_epoch) / decay_epoch))
        for i in range(total_step)
    ]


def polynomial_decay_lr(
    learning_rate, end_learning_rate, total_step, step_per_epoch, decay_epoch, power, update_decay_epoch=False
) -> list[float]:
    """(lr - end_lr) * (1 - epoch / decay_epoch) ** power + end_lr.

    Without update_decay_epoch the epoch stops at decay_epoch; with it, decay_epoch grows to the
    next multiple of itself that covers the current epoch (a restarting schedule).

    Args:
        learning_rate, total_step, step_per_epoch: as for `exponential_decay_lr`.
        end_learning_rate (float): final rate.
        decay_epoch (int): epochs of the decay.
        power (float): polynomial power (> 0).
        update_decay_epoch (bool): restart the decay. Default: False.

    Returns:
        list[float] of length total_step.
    """
    op = "polynomial_decay_lr"
    finite_float(op, "learning_rate", learning_rate, positive=True)
    finite_float(op, "end_learning_rate", end_learning_rate, positive=False)
    finite_float(op, "power", power, positive=True)
    for name, v in (("total_step", total_step), ("step_per_epoch", step_per_epoch), ("decay_epoch", decay_epoch)):
        _positive_int(op, name, v)
    if not isinstance(update_decay_epoch, bool):
        raise TypeError(f"For '{op}', 'update_decay_epoch' must be a bool, but got {type(update_decay_epoch)}.")
    delta = learning_rate - end_learning_rate
    out = []
    for i in range(total_step):
        epoch = i // step_per_epoch
        if update_decay_epoch:
            period = decay_epoch * max(math.ceil(epoch / decay_epoch), 1)
        else:
            period, epoch = decay_epoch, min(epoch, decay_epoch)
        out.append(delta * (1 - epoch / period) ** power + end_learning_rate)
    return out


def warmup_lr(learning_rate, total_step, step_per_epoch, warmup_epoch) -> list[float]:
    """lr * min(epoch, warmup_epoch) / warmup_epoch.

    Args:
        learning_rate (float): the rate reached after warm-up.
        total_step (int): length of the list.
        step_per_epoch (int): steps in one epoch.
        warmup_epoch (int): epochs of the warm-up.

    Returns:
        list[float] of length total_step.
    """
    op = "warmup_lr"
    finite_float(op, "learning_rate", learning_rate, positive=False)
    for name, v in (("total_step", total_step), ("step_per_epoch", step_per_epoch), ("warmup_epoch", warmup_epoch)):
        _positive_int(op, name, v)
    return [learning_rate * min(i // step_per_epoch, warmup_epoch) / warmup_epoch for i in range(total_step)]
