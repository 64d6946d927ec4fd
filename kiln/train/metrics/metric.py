"""The `Metric` base class: `clear`, `update`, `eval`, and `indexes` to pick the network outputs a metric reads;
the argument checks the metrics share."""

from __future__ import annotations

import functools
from abc import ABCMeta, abstractmethod

import numpy as np

from kiln._core.tensor import Tensor

_EVAL_TYPES = ("classification", "multilabel")


def rearrange_inputs(func):
    """Decorator for `update`: pass only the inputs selected by `self.indexes` (when set), in that order."""

    @functools.wraps(func)
    def wrapper(self, *inputs):
        indexes = self.indexes
        if indexes:
            if max(indexes) >= len(inputs):
                raise ValueError(
                    f"For '{type(self).__name__}.update', indexes {indexes} select more inputs than the "
                    f"{len(inputs)} given."
                )
            inputs = tuple(inputs[i] for i in indexes)
        return func(self, *inputs)

    return wrapper


class Metric(metaclass=ABCMeta):
    """Base class of metrics: accumulate with `update(*outputs)`, read with `eval()`, reset with `clear()`.

    Calling a metric (`metric(y_pred, y)`) clears it, updates it once and returns `eval()`.
    """

    def __init__(self) -> None:
        self._indexes = None

    def _convert_data(self, data) -> np.ndarray:
        """A NumPy array from a Tensor, list or NumPy array."""
        if isinstance(data, Tensor):
            return data.asnumpy()
        if isinstance(data, (list, tuple)):
            return np.array(data)
        if isinstance(data, np.ndarray):
            return data
        raise TypeError(
            f"For '{type(self).__name__}', the inputs must be Tensors, lists or NumPy arrays, "
            f"but got {type(data).__name__}."
        )

    @property
    def indexes(self):
        """The positions of the network outputs passed to `update` (None: all, in order)."""
        return getattr(self, "_indexes", None)

    def set_indexes(self, indexes: list[int]) -> Metric:
        """Select which outputs `update` receives, e.g. `[0, 2]`; returns the metric.

        Raises:
            ValueError: `indexes` is not a list of ints.
        """
        if not isinstance(indexes, list) or not all(isinstance(i, int) and i >= 0 for i in indexes):
            raise ValueError(f"For 'set_indexes', 'indexes' must be a list of non-negative ints, but got {indexes!r}.")
        self._indexes = indexes
        return self

    def __call__(self, *inputs):
        self.clear()
        self.update(*inputs)
        return self.eval()

    @abstractmethod
    def clear(self) -> None:
        """Reset the accumulated state."""

    @abstractmethod
    def update(self, *inputs) -> None:
        """Accumulate one batch of outputs."""

    @abstractmethod
    def eval(self):
        """The metric over everything accumulated since `clear()`."""

    def _check_count(self, inputs: tuple, n: int, what: str) -> None:
        if len(inputs) != n:
            raise ValueError(
                f"For '{type(self).__name__}.update', it needs {n} inputs ({what}), but got {len(inputs)}."
            )

    def _require_samples(self, count) -> None:
        if count == 0:
            raise RuntimeError(
                f"'{type(self).__name__}' cannot be computed: no samples were seen (call update() before eval())."
            )

    def _as_arrays(self, inputs: tuple, n: int, what: str = "predicted value, true value") -> list[np.ndarray]:
        """The `n` inputs of `update` (`what` names them, for the message when their count is wrong) as NumPy
        arrays."""
        self._check_count(inputs, n, what)
        return [self._convert_data(x) for x in inputs]


class _PerSampleMetric(Metric):
    """A metric that sums a value over the batches (`_sum`) and divides it by the samples seen (`_samples`)."""

    def __init__(self) -> None:
        super().__init__()
        self.clear()

    def clear(self) -> None:
        self._sum = 0
        self._samples = 0

    def eval(self) -> float:
        """Returns: the summed value per sample (a float).

        Raises:
            RuntimeError: no sample was seen.
        """
        self._require_samples(self._samples)
        return self._sum / self._samples


class EvaluationBase(Metric):
    """A classification metric: `eval_type` is 'classification' (one label per sample) or 'multilabel'."""

    def __init__(self, eval_type: str) -> None:
        super().__init__()
        if eval_type not in _EVAL_TYPES:
            raise TypeError(f"'eval_type' must be 'classification' or 'multilabel', but got {eval_type!r}.")
        self._type = eval_type

    def _labels(self, y_pred: np.ndarray, y: np.ndarray) -> np.ndarray:
        """Class indices from `y` (indices or one-hot), checked against scores `y_pred` of shape (N, C, ...)."""
        if y.ndim == y_pred.ndim and _is_one_hot(y):
            y = y.argmax(axis=1)
        if y_pred.ndim != y.ndim + 1 or y.shape != (y_pred.shape[0],) + y_pred.shape[2:]:
            raise ValueError(
                f"For '{type(self).__name__}', in the classification case y must have the shape of y_pred without "
                f"axis 1 (or be one-hot like y_pred), but got y_pred shape {y_pred.shape} and y shape {y.shape}."
            )
        return y

    def _check_multilabel(self, y_pred: np.ndarray, y: np.ndarray) -> None:
        if y_pred.shape != y.shape:
            raise ValueError(
                f"For '{type(self).__name__}', in the multilabel case y_pred and y must have the same shape, "
                f"but got {y_pred.shape} and {y.shape}."
            )
        if not (np.isin(y_pred, (0, 1)).all() and np.isin(y, (0, 1)).all()):
            raise ValueError(f"For '{type(self).__name__}', in the multilabel case every value must be 0 or 1.")


def _is_one_hot(y: np.ndarray) -> bool:
    return y.ndim > 1 and np.isin(y, (0, 1)).all() and (y.sum(axis=1) == 1).all()


def check_type(cls: str, name: str, value, types):
    """`value`, which must be an instance of `types` (a bool only where `types` names bool); TypeError otherwise."""
    if not isinstance(value, types) or (isinstance(value, bool) and bool not in types):
        raise TypeError(f"For '{cls}', the type of '{name}' must be {types}, but got {type(value).__name__}.")
    return value


def check_choice(cls: str, name: str, value, choices):
    """`value`, which must be a str among `choices`; TypeError or ValueError otherwise."""
    check_type(cls, name, value, (str,))
    if value not in choices:
        raise ValueError(f"For '{cls}', '{name}' must be one of {choices}, but got '{value}'.")
    return value


def check_updated(metric) -> None:
    """RuntimeError when `metric.eval()` is called before any `update`."""
    if not metric._is_update:
        raise RuntimeError(f"For '{type(metric).__name__}', call 'update' before 'eval'.")
