"""Mixed precision (MindSpore's `mindspore.amp`, also `mindspore.train.amp`): loss scalers, `all_finite`,
`auto_mixed_precision` and `build_train_network`.

`auto_mixed_precision` marks Cells with `Cell.to_float` as MindSpore's levels say: O1 the white-list layers
(convolutions, Dense, RNN cells), O2 the whole network except the black-list normalisations, O3 everything;
O2 and O3 also cast the network's outputs back to float32. A marked Cell casts its floating-point inputs to the
low-precision dtype; the arithmetic then follows the inputs' and parameters' dtypes (Kiln does not rewrite
individual operators as MindSpore's `rewrite` pass does).
"""

from __future__ import annotations

import numbers

import numpy as np

from kiln import nn, ops
from kiln._core import dtype as mstype
from kiln._core.tensor import Parameter, Tensor
from kiln.nn.cell import Cell
from kiln.nn.wrap.loss_scale import TrainOneStepWithLossScaleCell
from kiln.train.loss_scale_manager import DynamicLossScaleManager, FixedLossScaleManager, LossScaleManager

__all__ = [
    "DynamicLossScaleManager", "DynamicLossScaler", "FixedLossScaleManager", "LossScaleManager", "LossScaler",
    "StaticLossScaler", "all_finite", "auto_mixed_precision", "build_train_network", "custom_mixed_precision",
    "get_black_list", "get_white_list", "init_status",
]  # fmt: skip

_WHITE_NAMES = ("Conv1d", "Conv2d", "Conv3d", "Conv1dTranspose", "Conv2dTranspose", "Conv3dTranspose", "Dense",
                "LSTMCell", "RNNCell", "GRUCell")  # fmt: skip
_BLACK_NAMES = ("BatchNorm1d", "BatchNorm2d", "BatchNorm3d", "LayerNorm")
_LEVELS = ("O0", "O1", "O2", "O3", "auto")


def get_white_list() -> list:
    """The Cell classes that amp level O1 runs in low precision (a copy)."""
    return [getattr(nn, n) for n in _WHITE_NAMES if hasattr(nn, n)]


def get_black_list() -> list:
    """The Cell classes that amp level O2 keeps in float32 (a copy)."""
    return [getattr(nn, n) for n in _BLACK_NAMES if hasattr(nn, n)]


class _OutputTo32(Cell):
    """The wrapped network with its floating-point outputs cast to float32."""

    def __init__(self, backbone: Cell) -> None:
        super().__init__(auto_prefix=False)
        self._backbone = backbone

    def construct(self, *args, **kwargs):
        return _cast_tree(self._backbone(*args, **kwargs), mstype.float32)


class _OutputTo16(Cell):
    """The wrapped Cell with its floating-point outputs cast to `dtype` (float16 by default)."""

    def __init__(self, backbone: Cell, dtype=mstype.float16) -> None:
        super().__init__(auto_prefix=False)
        self._backbone = backbone
        self.dtype = dtype

    def construct(self, *args, **kwargs):
        return _cast_tree(self._backbone(*args, **kwargs), self.dtype)


def _cast_tree(value, dtype):
    if isinstance(value, Tensor):
        return ops.cast(value, dtype) if value.dtype.is_floating else value
    if isinstance(value, (tuple, list)):
        return type(value)(_cast_tree(v, dtype) for v in value)
    return value


def _mark(network: Cell, dtype, white=None, black=None) -> None:
    """to_float(dtype) on the cells of `white` (or on everything but `black`), recursively."""
    for _, cell in network.cells_and_names():
        if white is not None and isinstance(cell, tuple(white)):
            cell.to_float(dtype)
    if black is not None:
        network.to_float(dtype)
        for _, cell in network.cells_and_names():
            if isinstance(cell, tuple(black)):
                cell.to_float(mstype.float32)


def auto_mixed_precision(network, amp_level: str = "O0", dtype=mstype.float16):
    """Run `network` in mixed precision at `amp_level` ("O0" none, "O1" white list, "O2" all but the black list,
    "O3" all, "auto" as O1) with low-precision `dtype` (float16 or bfloat16). Returns the network to use."""
    if not isinstance(amp_level, str) or amp_level not in _LEVELS:
        raise ValueError(f"The amp level {amp_level!r} is not supported: use one of {list(_LEVELS)}.")
    if not isinstance(network, Cell) and amp_level != "auto":
        raise TypeError(f"For amp_level '{amp_level}', the network type should be Cell.")
    dtype = mstype.to_dtype(dtype)
    if dtype not in (mstype.float16, mstype.bfloat16):
        raise ValueError(f"The dtype should be one of (mstype.float16, mstype.bfloat16), but got {dtype}.")
    if amp_level == "O0" or not isinstance(network, Cell):
        return network
    if amp_level in ("O1", "auto"):
        _mark(network, dtype, white=get_white_list())
    elif amp_level == "O2":
        _mark(network, dtype, black=get_black_list())
        network = _OutputTo32(network)
    else:
        network.to_float(dtype)
        network = _OutputTo32(network)
    network.__dict__["_amp_level"] = amp_level
    return network


def custom_mixed_precision(network, *, white_list=None, black_list=None, dtype=mstype.float16):
    """Mixed precision with your own lists: the Cells of `white_list` in `dtype`, or everything but `black_list`."""
    if (white_list is None) == (black_list is None):
        raise ValueError("custom_mixed_precision: give exactly one of 'white_list' and 'black_list'.")
    dtype = mstype.to_dtype(dtype)
    if white_list is not None:
        _mark(network, dtype, white=[c for c in white_list if isinstance(c, type) and issubclass(c, Cell)])
        return network
    _mark(network, dtype, black=[c for c in black_list if isinstance(c, type) and issubclass(c, Cell)])
    return _OutputTo32(network)


def all_finite(inputs, status=None) -> Tensor:
    """True (a bool scalar Tensor) when no element of the Tensors in `inputs` is inf or NaN."""
    tensors = [inputs] if isinstance(inputs, Tensor) else list(inputs)
    if not tensors:
        return Tensor(True)
    flags = [ops.all(ops.isfinite(t)) for t in tensors]
    return ops.all(ops.stack(flags))


def init_status() -> Tensor:
    """The overflow-status buffer of Ascend's float status registers: zeros (8,) float32 (unused elsewhere)."""
    return Tensor(np.zeros(8, np.float32))


class LossScaler:
    """Base class of the loss scalers: `scale`, `unscale` and `adjust`."""

    def scale(self, inputs):
        raise NotImplementedError

    def unscale(self, inputs):
        raise NotImplementedError

    def adjust(self, grads_finite):
        raise NotImplementedError


def _map(inputs, fn):
    if isinstance(inputs, (tuple, list)):
        return tuple(fn(t) for t in inputs)
    return fn(inputs)


class StaticLossScaler(LossScaler):
    """Scale losses and unscale gradients by a fixed `scale_value`."""

    def __init__(self, scale_value) -> None:
        if not isinstance(scale_value, numbers.Real) or isinstance(scale_value, bool):
            raise TypeError(f"'scale_value' must be a float or int, but got {type(scale_value).__name__}.")
        if scale_value < 1.0:
            raise ValueError(f"The argument 'scale_value' must be > 1, but got {scale_value}")
        self.scale_value = Parameter(Tensor(np.float32(scale_value)), name="scale_value")

    def scale(self, inputs):
        return _map(inputs, lambda t: t * ops.cast(self.scale_value, t.dtype))

    def unscale(self, inputs):
        return _map(inputs, lambda t: t / ops.cast(self.scale_value, t.dtype))

    def adjust(self, grads_finite):
        return False


class DynamicLossScaler(StaticLossScaler):
    """A loss scale that is divided by `scale_factor` (not below 1) after a non-finite step and multiplied by it
    after `scale_window` finite steps in a row."""

    def __init__(self, scale_value, scale_factor, scale_window) -> None:
        super().__init__(scale_value)
        for name, v in (("scale_window", scale_window), ("scale_factor", scale_factor)):
            if not isinstance(v, int) or isinstance(v, bool) or v <= 0:
                raise ValueError(f"'{name}' must be a positive int, but got {v!r}.")
        self.scale_window, self.scale_factor = scale_window, scale_factor
        self.counter = Parameter(Tensor(np.int32(0)), name="counter")

    def adjust(self, grads_finite):
        one = ops.ones((), self.scale_value.dtype)
        grown = self.scale_value * self.scale_factor
        value = ops.select(
            grads_finite,
            ops.select(self.counter == (self.scale_window - 1),
                       ops.select(ops.isfinite(grown), grown, self.scale_value), self.scale_value),
            ops.maximum(one, self.scale_value / self.scale_factor),
        )  # fmt: skip
        ops.assign(self.scale_value, value)
        ops.assign(self.counter, ((self.counter + 1) % self.scale_window) * ops.cast(grads_finite, mstype.int32))
        return True


def build_train_network(network, optimizer, loss_fn=None, level="O0", boost_level="O0", **kwargs):
    """A training Cell: `network` (with `loss_fn`), mixed precision at `level`, and the optimizer step; with a
    `loss_scale_manager` (keyword; O2 uses a DynamicLossScaleManager by default) a loss-scaled step."""
    if level not in _LEVELS:
        raise ValueError(f"The argument 'level' must be one of {list(_LEVELS)}, but got {level!r}.")
    if boost_level not in ("O0", "O1", "O2"):
        raise ValueError(f"The argument 'boost_level' must be 'O0', 'O1' or 'O2', but got {boost_level!r}.")
    unknown = set(kwargs) - {"keep_batchnorm_fp32", "cast_model_type", "loss_scale_manager"}
    if unknown:
        raise ValueError(f"build_train_network got unsupported keyword(s) {sorted(unknown)}.")
    manager = kwargs.get("loss_scale_manager", DynamicLossScaleManager() if level == "O2" else None)
    network = auto_mixed_precision(network, level if level != "O0" else "O0")
    if loss_fn is not None:
        network = nn.WithLossCell(network, loss_fn)
    if manager is None:
        return nn.TrainOneStepCell(network, optimizer)
    if isinstance(manager, FixedLossScaleManager) and not manager.get_drop_overflow_update():
        return nn.TrainOneStepCell(network, optimizer, sens=manager.get_loss_scale())
    return TrainOneStepWithLossScaleCell(network, optimizer, scale_sense=manager.get_update_cell())
