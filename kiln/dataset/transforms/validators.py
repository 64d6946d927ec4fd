"""Argument checks of the transforms that take a list of transforms (MindSpore's `dataset.transforms.validators`)."""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable

__all__ = ["check_random_transform_ops"]


def check_random_transform_ops(method: Callable) -> Callable:
    """Check the arguments of a `__init__(self, transforms[, prob])` (Compose, RandomApply, RandomChoice style).

    `transforms` must be a non-empty list of callables; `prob`, when the method takes it, a number in [0, 1].

    Args:
        method: the `__init__` to wrap.

    Returns:
        The wrapped method, which raises TypeError or ValueError before calling `method` with bad arguments.
    """
    signature = inspect.signature(method)

    @functools.wraps(method)
    def checked(self, *args, **kwargs):
        bound = signature.bind(self, *args, **kwargs)
        bound.apply_defaults()
        values = list(bound.arguments.values())[1:]
        transforms = values[0] if values else None
        if not isinstance(transforms, list):
            raise TypeError(f"{method.__qualname__}: 'transforms' must be a list, but got {type(transforms).__name__}.")
        if not transforms:
            raise ValueError(f"{method.__qualname__}: 'transforms' must not be empty.")
        for index, op in enumerate(transforms):
            if not callable(op):
                raise TypeError(f"{method.__qualname__}: transforms[{index}] is not callable: {op!r}.")
        if len(values) > 1:
            prob = values[1]
            if isinstance(prob, bool) or not isinstance(prob, (int, float)):
                raise TypeError(f"{method.__qualname__}: 'prob' must be a number, but got {type(prob).__name__}.")
            if not 0 <= prob <= 1:
                raise ValueError(f"{method.__qualname__}: 'prob' must be in [0, 1], but got {prob}.")
        return method(self, *args, **kwargs)

    return checked
