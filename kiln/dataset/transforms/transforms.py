"""General transforms (`mindspore.dataset.transforms`): TypeCast, Compose, OneHot."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from kiln._core import dtype as mstype

__all__ = ["Compose", "OneHot", "TypeCast"]


class TypeCast:
    """Cast a column to another dtype.

    Args:
        data_type: a kiln dtype (e.g. `kiln.int32`), a NumPy dtype or a dtype name.

    Returns:
        A callable returning the cast NumPy array.
    """

    def __init__(self, data_type) -> None:
        self.data_type = data_type
        self._np = mstype.to_dtype(data_type).np

    def __call__(self, data) -> np.ndarray:
        return np.asarray(data).astype(self._np)

    batch_call = __call__  # elementwise: a stacked column is cast alike

    def __repr__(self) -> str:
        return f"TypeCast({self.data_type!r})"


class Compose:
    """Apply transforms in order; a tuple result is passed on as several arguments.

    Args:
        transforms: a non-empty list of callables.
    """

    def __init__(self, transforms: Sequence[Callable]) -> None:
        transforms = list(transforms)
        if not transforms:
            raise ValueError("Compose: transforms must not be empty.")
        for i, t in enumerate(transforms):
            if not callable(t):
                raise TypeError(f"Compose: transform {i} is not callable (got {type(t).__name__}).")
        self.transforms = transforms

    def __call__(self, *args):
        for t in self.transforms:
            out = t(*args)
            args = out if isinstance(out, tuple) else (out,)
        return args if len(args) > 1 else args[0]

    def __repr__(self) -> str:
        return f"Compose({self.transforms!r})"


class OneHot:
    """One-hot encode integer labels: shape (...) -> (..., num_classes).

    Args:
        num_classes: number of classes; labels must lie in [0, num_classes).
        smoothing_rate: label smoothing; the result is float32 when it is non-zero,
            else it keeps the label dtype (as MindSpore does).
    """

    def __init__(self, num_classes: int, smoothing_rate: float = 0.0) -> None:
        if isinstance(num_classes, bool) or not isinstance(num_classes, int) or num_classes < 1:
            raise ValueError(f"OneHot: num_classes must be a positive int, but got {num_classes!r}.")
        if not 0.0 <= smoothing_rate <= 1.0:
            raise ValueError(f"OneHot: smoothing_rate must be in [0, 1], but got {smoothing_rate}.")
        self.num_classes = num_classes
        self.smoothing_rate = float(smoothing_rate)

    def __call__(self, label) -> np.ndarray:
        label = np.asarray(label)
        if label.dtype.kind not in "iu":
            raise RuntimeError(f"OneHot: labels must be integers, but got dtype {label.dtype}.")
        if label.size and (label.min() < 0 or label.max() >= self.num_classes):
            raise RuntimeError(
                f"OneHot: labels must be in [0, {self.num_classes}), but got values in [{label.min()}, {label.max()}]."
            )
        hot = label[..., None] == np.arange(self.num_classes)
        if self.smoothing_rate:
            s = self.smoothing_rate
            return (hot * (1.0 - s) + s / self.num_classes).astype(np.float32)
        return hot.astype(label.dtype)

    def __repr__(self) -> str:
        return f"OneHot(num_classes={self.num_classes}, smoothing_rate={self.smoothing_rate})"
