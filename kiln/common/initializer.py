"""Weight initializers (MindSpore's `mindspore.common.initializer`).

An `Initializer` fills a NumPy array in place; `initializer(init, shape, dtype)`
turns a name, a number, an array, a Tensor or an Initializer into a Tensor.

Randomness: each fill draws from its own NumPy Generator. Its seed comes from
NumPy's global generator (which `kiln.set_seed` seeds, as MindSpore's
initializers do) mixed with Kiln's global seed when one is set: successive
fills differ, and re-seeding replays them exactly, in this run or the next.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Sequence

import numpy as np

from kiln._core import dtype as mstype
from kiln._core import random_state
from kiln._core import tensor as _tensor_module
from kiln._core.tensor import Tensor

__all__ = [
    "Constant",
    "HeNormal",
    "HeUniform",
    "Identity",
    "Initializer",
    "Normal",
    "One",
    "Orthogonal",
    "TruncatedNormal",
    "Uniform",
    "VarianceScaling",
    "XavierNormal",
    "XavierUniform",
    "Zero",
    "initializer",
]

_ALIASES: dict[str, type] = {}


def _register(*aliases: str):
    """Make a class reachable by its lower-cased name and the given aliases."""

    def add(cls):
        for name in (cls.__name__.lower(), *aliases):
            _ALIASES.setdefault(name, cls)
        return cls

    return add


def _generator(seed: int | None = None) -> np.random.Generator:
    """A fresh generator for one fill (see the module docstring)."""
    if seed is not None:
        return np.random.default_rng(seed)
    material = [int(np.random.randint(1, 2**63 - 1, dtype=np.int64))]
    kiln_seed = random_state.get_seed()
    if kiln_seed is not None:
        material.append(kiln_seed)
    return np.random.default_rng(np.random.SeedSequence(material))


def _fill(arr: np.ndarray, values) -> np.ndarray:
    """Write `values` into `arr` in place (casting to arr's dtype); works for 0-d arrays."""
    arr[...] = np.asarray(values).astype(arr.dtype, copy=False) if isinstance(values, np.ndarray) else values
    return arr


def _fan_in_and_fan_out(shape: Sequence[int]) -> tuple[int, int]:
    """(fan_in, fan_out) of a weight: (out, in) for dense, (out, in, *kernel) for conv."""
    if len(shape) < 2:
        raise ValueError(
            f"fan_in and fan_out need a weight with at least 2 dimensions, but got shape {list(shape)} "
            f"with {len(shape)} dimension(s)."
        )
    receptive = int(np.prod(shape[2:])) if len(shape) > 2 else 1
    return int(shape[1]) * receptive, int(shape[0]) * receptive


def _correct_fan(shape: Sequence[int], mode: str) -> int:
    mode = mode.lower()
    if mode not in ("fan_in", "fan_out"):
        raise ValueError(f"'mode' must be 'fan_in' or 'fan_out', but got '{mode}'.")
    fan_in, fan_out = _fan_in_and_fan_out(shape)
    return fan_in if mode == "fan_in" else fan_out


_LINEAR = ("linear", "conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d", "conv_transpose3d")


def _gain(nonlinearity: str, param=None) -> float:
    """The recommended gain of an activation (He / Kaiming initialisation)."""
    if nonlinearity in _LINEAR or nonlinearity == "sigmoid":
        return 1.0
    if nonlinearity == "tanh":
        return 5.0 / 3.0
    if nonlinearity == "relu":
        return math.sqrt(2.0)
    if nonlinearity == "leaky_relu":
        if param is None:
            slope = 0.01
        elif isinstance(param, numbers.Real) and not isinstance(param, bool):
            slope = float(param)
        else:
            raise ValueError(f"'negative_slope' must be an int or float, but got {type(param).__name__}: {param!r}.")
        return math.sqrt(2.0 / (1.0 + slope**2))
    raise ValueError(
        "'nonlinearity' must be one of 'linear', 'conv*', 'sigmoid', 'tanh', 'relu', 'leaky_relu', "
        f"but got '{nonlinearity}'."
    )


def _check_sigma(name: str, sigma: float) -> None:
    if sigma < 0:
        raise ValueError(f"For '{name}', 'sigma' must be non-negative, but got {sigma}.")


def _truncated_normal(gen: np.random.Generator, shape, a: float, b: float, mean: float, sigma: float) -> np.ndarray:
    """Normal(mean, sigma) samples restricted to the absolute interval [a, b] (resampling rejects)."""
    out = gen.normal(mean, sigma, size=shape)
    if sigma == 0:
        return np.clip(out, a, b)
    bad = (out < a) | (out > b)
    for _ in range(1000):
        n = int(bad.sum())
        if n == 0:
            return out
        out[bad] = gen.normal(mean, sigma, size=n)
        bad = (out < a) | (out > b)
    return np.clip(out, a, b)  # an interval far in the tail: clamp what is left


class Initializer:
    """Base class of the initializers: `init(arr)` fills the NumPy array `arr` in place.

    Args:
        **kwargs: the arguments of the concrete initializer (kept for `repr`).
    """

    def __init__(self, **kwargs) -> None:
        self._kwargs = kwargs
        self._seed: int | None = None

    @property
    def seed(self) -> int | None:
        """A fixed seed for this initializer, or None to follow the global generator."""
        return self._seed

    @seed.setter
    def seed(self, value: int | None) -> None:
        self._seed = value

    def _rng(self) -> np.random.Generator:
        return _generator(self._seed)

    def _initialize(self, arr: np.ndarray) -> None:
        raise NotImplementedError(f"{type(self).__name__} must override _initialize().")

    def __call__(self, arr: np.ndarray) -> np.ndarray:
        """Fill `arr` in place and return it.

        Args:
            arr (numpy.ndarray): the array to fill.

        Returns:
            numpy.ndarray, the same array.
        """
        self._initialize(arr)
        return arr

    def __repr__(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in self._kwargs.items())
        return f"{type(self).__name__}({args})"


@_register("zeros")
class Zero(Initializer):
    """Fill with 0."""

    def _initialize(self, arr: np.ndarray) -> None:
        _fill(arr, 0)


@_register("ones")
class One(Initializer):
    """Fill with 1."""

    def _initialize(self, arr: np.ndarray) -> None:
        _fill(arr, 1)


class Constant(Initializer):
    """Fill with a constant.

    Args:
        value (number | numpy.ndarray): the value; an array must broadcast to the filled shape.
    """

    def __init__(self, value) -> None:
        super().__init__(value=value)
        self.value = value

    def _initialize(self, arr: np.ndarray) -> None:
        _fill(arr, np.asarray(self.value) if not isinstance(self.value, numbers.Number) else self.value)


@_register()
class Identity(Initializer):
    """A 2-D identity matrix (ones on the main diagonal)."""

    def _initialize(self, arr: np.ndarray) -> None:
        if arr.ndim != 2:
            raise ValueError(f"For 'Identity', the initialized tensor must be 2-D, but got shape {list(arr.shape)}.")
        _fill(arr, np.eye(arr.shape[0], arr.shape[1]))


@_register()
class Normal(Initializer):
    """Samples from N(mean, sigma^2).

    Args:
        sigma (float): standard deviation. Default: 0.01.
        mean (float): mean. Default: 0.0.
    """

    def __init__(self, sigma: float = 0.01, mean: float = 0.0) -> None:
        super().__init__(sigma=sigma, mean=mean)
        _check_sigma("Normal", sigma)
        self.sigma = sigma
        self.mean = mean

    def _initialize(self, arr: np.ndarray) -> None:
        _fill(arr, self._rng().normal(self.mean, self.sigma, size=arr.shape))


@_register()
class Uniform(Initializer):
    """Samples from U(-scale, scale).

    Args:
        scale (float): the bound. Default: 0.07.
    """

    def __init__(self, scale: float = 0.07) -> None:
        super().__init__(scale=scale)
        self.scale = scale

    def _initialize(self, arr: np.ndarray) -> None:
        _fill(arr, self._rng().uniform(-self.scale, self.scale, size=arr.shape))


@_register()
class TruncatedNormal(Initializer):
    """Samples from N(mean, sigma^2) restricted to [a, b] (absolute bounds).

    Args:
        sigma (float): standard deviation. Default: 0.01.
        mean (float): mean. Default: 0.0.
        a (float): lower bound. Default: -2.0.
        b (float): upper bound. Default: 2.0.
    """

    def __init__(self, sigma: float = 0.01, mean: float = 0.0, a: float = -2.0, b: float = 2.0) -> None:
        super().__init__(sigma=sigma, mean=mean, a=a, b=b)
        _check_sigma("TruncatedNormal", sigma)
        if a >= b:
            raise ValueError(f"For 'TruncatedNormal', 'a' must be less than 'b', but got a={a}, b={b}.")
        self.sigma, self.mean, self.a, self.b = sigma, mean, a, b

    def _initialize(self, arr: np.ndarray) -> None:
        _fill(arr, _truncated_normal(self._rng(), arr.shape, self.a, self.b, self.mean, self.sigma))


class _Xavier(Initializer):
    """Glorot's initialisers: the scale gain * sqrt(k / (fan_in + fan_out)) of the subclass's distribution."""

    _k = 2.0

    def __init__(self, gain: float = 1) -> None:
        super().__init__(gain=gain)
        self.gain = gain

    def _scale(self, shape) -> float:
        fan_in, fan_out = _fan_in_and_fan_out(shape)
        return self.gain * math.sqrt(self._k / (fan_in + fan_out))


@_register("xavier_uniform")
class XavierUniform(_Xavier):
    """Glorot uniform: U(-b, b) with b = gain * sqrt(6 / (fan_in + fan_out)).

    Args:
        gain (float): scaling factor. Default: 1.
    """

    _k = 6.0

    def _initialize(self, arr: np.ndarray) -> None:
        bound = self._scale(arr.shape)
        _fill(arr, self._rng().uniform(-bound, bound, size=arr.shape))


@_register("xavier_normal")
class XavierNormal(_Xavier):
    """Glorot normal: N(0, s^2) with s = gain * sqrt(2 / (fan_in + fan_out)).

    Args:
        gain (float): scaling factor. Default: 1.
    """

    _k = 2.0

    def _initialize(self, arr: np.ndarray) -> None:
        _fill(arr, self._rng().normal(0.0, self._scale(arr.shape), size=arr.shape))


class _He(Initializer):
    def __init__(self, negative_slope=0, mode: str = "fan_in", nonlinearity: str = "leaky_relu") -> None:
        super().__init__(negative_slope=negative_slope, mode=mode, nonlinearity=nonlinearity)
        if str(mode).lower() not in ("fan_in", "fan_out"):
            raise ValueError(f"For '{type(self).__name__}', 'mode' must be 'fan_in' or 'fan_out', but got '{mode}'.")
        _gain(nonlinearity, negative_slope)  # validate now rather than at the first fill
        self.negative_slope = negative_slope
        self.mode = mode
        self.nonlinearity = nonlinearity

    def _std(self, shape) -> float:
        return _gain(self.nonlinearity, self.negative_slope) / math.sqrt(_correct_fan(shape, self.mode))


@_register("he_uniform")
class HeUniform(_He):
    """Kaiming uniform: U(-b, b) with b = sqrt(3) * gain / sqrt(fan).

    Args:
        negative_slope (float): slope of the leaky ReLU's negative part. Default: 0.
        mode (str): 'fan_in' or 'fan_out'. Default: 'fan_in'.
        nonlinearity (str): the activation the gain is computed for. Default: 'leaky_relu'.
    """

    def _initialize(self, arr: np.ndarray) -> None:
        bound = math.sqrt(3.0) * self._std(arr.shape)
        _fill(arr, self._rng().uniform(-bound, bound, size=arr.shape))


@_register("he_normal")
class HeNormal(_He):
    """Kaiming normal: N(0, s^2) with s = gain / sqrt(fan).

    Args:
        negative_slope (float): slope of the leaky ReLU's negative part. Default: 0.
        mode (str): 'fan_in' or 'fan_out'. Default: 'fan_in'.
        nonlinearity (str): the activation the gain is computed for. Default: 'leaky_relu'.
    """

    def _initialize(self, arr: np.ndarray) -> None:
        _fill(arr, self._rng().normal(0.0, self._std(arr.shape), size=arr.shape))


@_register()
class Orthogonal(Initializer):
    """A (semi-)orthogonal matrix; dimensions after the first are flattened.

    Args:
        gain (float): scaling factor. Default: 1.0.
    """

    def __init__(self, gain: float = 1.0) -> None:
        super().__init__(gain=gain)
        self.gain = gain

    def _initialize(self, arr: np.ndarray) -> None:
        if arr.ndim < 2:
            raise ValueError(
                f"For 'Orthogonal', the initialized tensor needs at least 2 dimensions, but got shape "
                f"{list(arr.shape)}."
            )
        rows = arr.shape[0]
        cols = arr.size // rows
        data = self._rng().normal(0.0, 1.0, size=(rows, cols))
        if rows < cols:
            data = data.T
        q, r = np.linalg.qr(data)
        q = q * np.sign(np.diag(r))  # makes the decomposition unique, so q is uniformly distributed
        if rows < cols:
            q = q.T
        _fill(arr, (q * self.gain).reshape(arr.shape))


@_register()
class VarianceScaling(Initializer):
    """Samples scaled by the fan: std = sqrt(scale / n), n from `mode`.

    Args:
        scale (float): scaling factor (> 0). Default: 1.0.
        mode (str): 'fan_in', 'fan_out' or 'fan_avg'. Default: 'fan_in'.
        distribution (str): 'truncated_normal', 'untruncated_normal' or 'uniform'. Default: 'truncated_normal'.
    """

    def __init__(self, scale: float = 1.0, mode: str = "fan_in", distribution: str = "truncated_normal") -> None:
        super().__init__(scale=scale, mode=mode, distribution=distribution)
        if scale <= 0:
            raise ValueError(f"For 'VarianceScaling', 'scale' must be greater than 0, but got {scale}.")
        if mode not in ("fan_in", "fan_out", "fan_avg"):
            raise ValueError(f"For 'VarianceScaling', 'mode' must be fan_in, fan_out or fan_avg, but got '{mode}'.")
        if distribution not in ("uniform", "truncated_normal", "untruncated_normal"):
            raise ValueError(
                "For 'VarianceScaling', 'distribution' must be uniform, truncated_normal or untruncated_normal, "
                f"but got '{distribution}'."
            )
        self.scale, self.mode, self.distribution = scale, mode, distribution

    def _initialize(self, arr: np.ndarray) -> None:
        fan_in, fan_out = _fan_in_and_fan_out(arr.shape)
        n = {"fan_in": fan_in, "fan_out": fan_out, "fan_avg": (fan_in + fan_out) / 2.0}[self.mode]
        scale = self.scale / max(1.0, n)
        gen = self._rng()
        if self.distribution == "truncated_normal":
            # 0.8796... is the std of a standard normal truncated to [-2, 2]; dividing restores sqrt(scale).
            std = math.sqrt(scale) / 0.87962566103423978
            data = _truncated_normal(gen, arr.shape, -2.0 * std, 2.0 * std, 0.0, std)
        elif self.distribution == "untruncated_normal":
            data = gen.normal(0.0, math.sqrt(scale), size=arr.shape)
        else:
            limit = math.sqrt(3.0 * scale)
            data = gen.uniform(-limit, limit, size=arr.shape)
        _fill(arr, data)


def _as_shape(shape) -> tuple[int, ...] | None:
    if shape is None:
        return None
    if isinstance(shape, numbers.Integral):
        shape = (shape,)
    if not isinstance(shape, (tuple, list)):
        raise TypeError(f"For 'initializer', 'shape' must be an int, tuple or list, but got {type(shape).__name__}.")
    for s in shape:
        if not isinstance(s, numbers.Integral) or isinstance(s, bool) or s < 0:
            raise ValueError(
                f"For 'initializer', every entry of 'shape' must be a non-negative int, but got {list(shape)}."
            )
    return tuple(int(s) for s in shape)


def _work_dtype(dtype: mstype.DType) -> np.dtype:
    """The NumPy dtype to fill before casting: floats below float32 fill in float32."""
    if dtype.is_floating and dtype.itemsize < 4 or dtype is mstype.bfloat16:
        return np.dtype(np.float32)
    return dtype.np


def initializer(init, shape=None, dtype=mstype.float32) -> Tensor:
    """Create a Tensor filled by an initializer.

    Args:
        init (Union[str, Initializer, numbers.Number, numpy.ndarray, Tensor]): a name ('normal', 'zeros',
            'ones', 'uniform', 'xavier_uniform', 'he_uniform', 'truncatednormal', ...), an Initializer, a
            constant, or the data itself (an array or Tensor, whose shape must equal `shape` when given).
        shape (Union[int, tuple[int], list[int]]): the shape; may be omitted when `init` is data.
        dtype (mindspore.dtype): the element type. Default: float32.

    Returns:
        Tensor of `shape` and `dtype`.
    """
    if not isinstance(init, (Tensor, np.ndarray, numbers.Number, str, Initializer)):
        raise TypeError(
            "For 'initializer', 'init' must be a str, Initializer, number, numpy.ndarray or Tensor, but got "
            f"{type(init).__name__}."
        )
    shape = _as_shape(shape)
    dtype = mstype.to_dtype(dtype) if dtype is not None else mstype.float32
    if isinstance(init, (Tensor, np.ndarray)):
        if shape is not None and tuple(init.shape) != shape:
            raise ValueError(
                f"For 'initializer', the shape of 'init' {list(init.shape)} must equal 'shape' {list(shape)}."
            )
        return init if isinstance(init, Tensor) else Tensor(init)
    if isinstance(init, str):
        cls = _ALIASES.get(init.lower())
        if cls is None:
            raise ValueError(f"For 'initializer', there is no initializer named '{init}'; known: {sorted(_ALIASES)}.")
        init = cls()
    elif isinstance(init, numbers.Number):
        init = Constant(init)
    if shape is None:
        raise ValueError(f"For 'initializer', 'shape' is required when 'init' is {init!r}.")
    arr = np.empty(shape, dtype=_work_dtype(dtype))
    init(arr)
    return Tensor(arr, dtype=dtype)


_tensor_module._INITIALIZERS[:] = [initializer]  # Tensor(shape=..., init=...) builds through this module


# MindSpore's private names for the helpers above, which zoo networks import to write their own initialisers.
_assignment = _fill
_calculate_fan_in_and_fan_out = _fan_in_and_fan_out
_calculate_correct_fan = _correct_fan
_calculate_gain = _gain
