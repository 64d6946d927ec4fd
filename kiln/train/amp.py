"""Mixed precision (MindSpore's `mindspore.train.amp`, also `mindspore.amp`): loss scalers, `all_finite`,
`auto_mixed_precision` and `build_train_network`.

`auto_mixed_precision` marks Cells with `Cell.to_float` as MindSpore's levels say: O1 the white-list layers
(convolutions, Dense, RNN cells), each returning float32 again, as MindSpore's cast-inserting pass makes them;
O2 the whole network except the black-list normalisations, O3 everything, both with the network's outputs cast
back to float32. Inside a marked Cell every op casts its floating-point inputs (Parameters included) to the
innermost marked Cell's dtype, as MindSpore's PyNative does (`Cell.to_float`). O1 also casts each call of a listed
primitive (ReLU, MatMul, BatchMatMul, the convolutions, PReLU: `PrimitiveDef.amp_o1`) made while the network runs,
whichever face calls it: its inputs to the low-precision dtype, its outputs back to float32, as MindSpore's
`rewrite` pass does to the network's source (`custom_mixed_precision` does so for the Primitive classes of its
white list).

Level "auto" is MindSpore's op-level strategy, not O1: while the network's construct runs (both modes), each op
of its white list (convolutions, matrix products, Dense) casts its floating-point inputs to the low-precision
dtype and returns that dtype, each of its black list (exp, log, softmax, the normalisations, several losses)
casts half-precision inputs to float32, each of its promote list (BiasAdd, Concat, AddN, ...) casts to the widest
float dtype among its inputs, and every other op runs on its inputs as given (kiln/_prims/amp_auto.py).
"""

from __future__ import annotations

import functools
import numbers
import warnings

import numpy as np

from kiln import nn, ops
from kiln._core import dtype as mstype
from kiln._core.primitive import REGISTRY
from kiln._core.tensor import Parameter, Tensor
from kiln._pynative.dispatch import Listed, auto_precision
from kiln.nn.cell import Cell
from kiln.nn.wrap.loss_scale import TrainOneStepWithLossScaleCell
from kiln.ops.primitive import Primitive
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


class _OutputCast:
    """A forward hook casting a cell's floating-point outputs to `dtype`."""

    def __init__(self, dtype) -> None:
        self.dtype = dtype

    def __call__(self, cell, inputs, output):
        return _cast_tree(output, self.dtype)


def _mark(network: Cell, dtype, white=None, black=None) -> None:
    """to_float(dtype) on the cells of `white`, each returning float32 again; or on everything but `black`,
    whose cells run in float32 and return `dtype` again (MindSpore's casts around the listed layers)."""
    if white is not None:
        for _, cell in network.cells_and_names():
            if isinstance(cell, tuple(white)):
                cell.to_float(dtype)
                cell.register_forward_hook(_OutputCast(mstype.float32))
    if black is not None:
        network.to_float(dtype)
        for _, cell in network.cells_and_names():
            if isinstance(cell, tuple(black)):
                cell.to_float(mstype.float32)
                cell.register_forward_hook(_OutputCast(dtype))


class _AutoPrecision:
    """A function run at amp level 'auto' (MindSpore's decorator of a function given that level)."""

    def __init__(self, fn, dtype) -> None:
        self.__wrapped__ = fn
        self._amp_auto = dtype
        self._amp_level = "auto"
        functools.update_wrapper(self, fn)

    def __call__(self, *args, **kwargs):
        with auto_precision(self._amp_auto):
            return self.__wrapped__(*args, **kwargs)


def auto_mixed_precision(network, amp_level: str = "O0", dtype=mstype.float16):
    """Run `network` in mixed precision at `amp_level` ("O0" none, "O1" white list, "O2" all but the black list,
    "O3" all, "auto" MindSpore's op-level lists: see the module's docstring) with low-precision `dtype` (float16
    or bfloat16). Returns the network to use: the Cell itself at "O1" and "auto", a wrapper at "O2"/"O3", and at
    "auto" a function given in place of a Cell is returned wrapped."""
    if not isinstance(amp_level, str) or amp_level not in _LEVELS:
        raise ValueError(f"The amp level {amp_level!r} is not supported: use one of {list(_LEVELS)}.")
    if not isinstance(network, Cell) and amp_level != "auto":
        raise TypeError(
            f"auto_mixed_precision(amp_level={amp_level!r}) marks the layers of a Cell; got a "
            f"{type(network).__name__} (only 'auto' also takes a function)."
        )
    dtype = mstype.to_dtype(dtype)
    if dtype not in (mstype.float16, mstype.bfloat16):
        raise ValueError(f"auto_mixed_precision: the low-precision dtype is float16 or bfloat16, not {dtype}.")
    if amp_level == "O0":
        return network
    if amp_level == "auto":
        if not isinstance(network, Cell):
            return _AutoPrecision(network, dtype)
        network.__dict__["_amp_auto"] = dtype  # read by Cell._call (PyNative) and calls.call_cell (GRAPH_MODE)
    elif amp_level == "O1":
        _mark(network, dtype, white=get_white_list())
        # read by Cell._call (PyNative) and calls.call_cell (GRAPH_MODE), as level 'auto's dtype
        network.__dict__["_amp_auto"] = Listed(dtype, frozenset(n for n, p in REGISTRY.items() if p.amp_o1))
    elif amp_level == "O2":
        _mark(network, dtype, black=get_black_list())
        network = _OutputTo32(network)
    else:
        network.to_float(dtype)
        network = _OutputTo32(network)
    network.__dict__["_amp_level"] = amp_level
    return network


def _check_list(classes, name: str) -> None:
    """The checks of a custom list: a list of classes, Cells or Primitives in a white list, Cells only in a black
    list (one warning naming the default black list's normalisations it leaves out)."""
    if not isinstance(classes, list):
        kind = type(classes).__name__
        raise TypeError(f"custom_mixed_precision: '{name}' must be a list of classes, but got a {kind}.")
    for c in classes:
        if not isinstance(c, type):
            raise TypeError(
                f"custom_mixed_precision: '{name}' holds {c!r}, which is not a class (list the class, not an instance)."
            )
        kinds = (Cell, Primitive) if name == "white_list" else (Cell,)
        if not issubclass(c, kinds):
            allowed = "Cell or Primitive classes" if name == "white_list" else "Cell classes"
            raise TypeError(f"custom_mixed_precision: '{name}' takes {allowed}, but holds {c.__name__}.")
    if name == "black_list":
        left_out = [c.__name__ for c in get_black_list() if c not in classes]
        if left_out:
            warnings.warn(
                f"custom_mixed_precision: your black_list leaves out {', '.join(left_out)}, which the default black "
                "list keeps in float32; they will run in the low-precision dtype.",
                stacklevel=3,
            )


def _declarations(classes) -> frozenset:
    """The names of the declarations of the Primitive classes in `classes`; one with none warns and is not cast."""
    prims = set()
    for c in classes:
        if not issubclass(c, Primitive):
            continue
        if c.__name__ in REGISTRY:
            prims.add(c.__name__)
        else:
            warnings.warn(
                f"custom_mixed_precision: Kiln has no primitive named {c.__name__!r} (a Primitive class of your own "
                "or one Kiln composes from others); its calls are not cast.",
                stacklevel=3,
            )
    return frozenset(prims)


def custom_mixed_precision(network, *, white_list=None, black_list=None, dtype=mstype.float16):
    """Mixed precision with your own lists: the Cells of `white_list` in `dtype` (each returning float32) and each
    call of its Primitive classes cast as amp level O1 casts its listed primitives; or everything but the Cells of
    `black_list` in `dtype`, the network's outputs cast back to float32."""
    if not isinstance(network, Cell):
        raise TypeError(f"custom_mixed_precision: the network must be a Cell, but got {type(network).__name__}.")
    if white_list is None and black_list is None:
        raise ValueError("custom_mixed_precision: give a white_list or a black_list.")
    if white_list is not None and black_list is not None:
        raise ValueError("custom_mixed_precision: give a white_list or a black_list, not both.")
    dtype = mstype.to_dtype(dtype)
    if dtype not in (mstype.float16, mstype.bfloat16):
        raise ValueError(f"custom_mixed_precision: 'dtype' must be float16 or bfloat16, but got {dtype}.")
    if white_list is not None:
        _check_list(white_list, "white_list")
        _mark(network, dtype, white=[c for c in white_list if issubclass(c, Cell)])
        prims = _declarations(white_list)
        if prims:
            network.__dict__["_amp_auto"] = Listed(dtype, prims)
        return network
    _check_list(black_list, "black_list")
    _mark(network, dtype, black=black_list)
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
        """`inputs` (a Tensor or a tuple of them) multiplied by the loss scale."""
        raise NotImplementedError

    def unscale(self, inputs):
        """`inputs` (a Tensor or a tuple of them) divided by the loss scale."""
        raise NotImplementedError

    def adjust(self, grads_finite):
        """Update the loss scale after a step whose gradients were finite (`grads_finite` True) or not."""
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
            raise ValueError(f"A loss scale below 1 would shrink the loss; 'scale_value' is {scale_value}.")
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


# Per level: (keep_batchnorm_fp32, cast_model_type, whether a DynamicLossScaleManager is the default manager).
_LEVEL_CONFIG = {
    "O0": (False, mstype.float32, False),
    "O1": (False, mstype.float32, False),
    "O2": (True, mstype.float16, True),
    "O3": (False, mstype.float16, False),
    "auto": (False, mstype.float32, False),
}
_BUILD_KWARGS = ("cast_model_type", "keep_batchnorm_fp32", "loss_scale_manager")


class _LossInFloat32(Cell):
    """`loss_fn(backbone(data), label)` with the network's output and the label cast to float32 first, so that a
    low-precision network's loss (and the loss scale's product with it) is computed in float32."""

    def __init__(self, backbone: Cell, loss_fn) -> None:
        super().__init__(auto_prefix=False)
        self._backbone = backbone
        self._loss_fn = loss_fn

    def construct(self, data, label):
        out = _cast_tree(self._backbone(data), mstype.float32)
        return self._loss_fn(out, _cast_tree(label, mstype.float32))


# MindSpore's build_train_network names its float32 loss wrapper `WithLossCell` (a class of its own, not
# nn.WithLossCell): the printed training cell and `network.cls_name` show that name.
_LossInFloat32.__name__ = _LossInFloat32.__qualname__ = "WithLossCell"


def _build_config(level, boost_level, kwargs: dict) -> tuple:
    """(keep_batchnorm_fp32, cast_model_type, loss_scale_manager) for `level`, overridden by `kwargs`."""
    if not isinstance(level, str):
        raise TypeError(f"build_train_network: 'level' must be a str, but got {type(level).__name__}.")
    if level not in _LEVELS:
        raise ValueError(f"build_train_network: 'level' must be one of {list(_LEVELS)}, but got {level!r}.")
    if boost_level not in ("O0", "O1", "O2"):
        raise ValueError(f"build_train_network: 'boost_level' must be 'O0', 'O1' or 'O2', but got {boost_level!r}.")
    unknown = sorted(set(kwargs) - set(_BUILD_KWARGS))
    if unknown:
        raise ValueError(f"build_train_network: unknown keyword(s) {unknown}; it takes {list(_BUILD_KWARGS)}.")
    keep_bn, cast_type, dynamic_default = _LEVEL_CONFIG[level]
    keep_bn = kwargs.get("keep_batchnorm_fp32", keep_bn)
    if not isinstance(keep_bn, bool):
        raise TypeError(f"build_train_network: 'keep_batchnorm_fp32' must be a bool, but got {type(keep_bn).__name__}.")
    cast_type = mstype.to_dtype(kwargs.get("cast_model_type", cast_type))
    if cast_type not in (mstype.float16, mstype.float32):
        raise TypeError(f"build_train_network: 'cast_model_type' must be float16 or float32, but got {cast_type}.")
    if "loss_scale_manager" in kwargs:
        manager = kwargs["loss_scale_manager"]
    else:
        manager = DynamicLossScaleManager() if dynamic_default else None
    if manager is not None and not isinstance(manager, LossScaleManager):
        raise TypeError(
            f"build_train_network: 'loss_scale_manager' must be a LossScaleManager or None, but got "
            f"{type(manager).__name__}."
        )
    return keep_bn, cast_type, manager


def _apply_precision(network: Cell, level: str, keep_bn: bool, cast_type):
    """The network with the precision `level` and its overrides give it: a float16 cast of every Cell (the
    normalisations kept in float32 with `keep_bn`), or `auto_mixed_precision`'s lists for the other levels."""
    if cast_type == mstype.float16:
        _mark(network, mstype.float16, black=get_black_list() if keep_bn else [])
        return network
    if level == "O2" and not keep_bn:
        network.to_float(mstype.float16)
        return network
    if level in ("O2", "O3"):
        return network  # cast_model_type=float32 overrides the level's float16 cast
    return auto_mixed_precision(network, level)


def build_train_network(network, optimizer, loss_fn=None, level="O0", boost_level="O0", **kwargs) -> Cell:
    """A training Cell for `network`: mixed precision at `level`, the loss, and the optimizer step.

    Args:
        network: the network (its output goes to `loss_fn`), or a Cell returning the loss when `loss_fn` is None.
        optimizer: the optimizer of the network's parameters.
        loss_fn: the loss, `loss_fn(logits, label)`; with a float16 cast it runs in float32.
        level: "O0" (none), "O1" (the white-list Cells in float16), "O2" (all but the normalisations in
            float16, a DynamicLossScaleManager), "O3" (all in float16), "auto" (MindSpore's op lists, see
            `auto_mixed_precision`).
        boost_level: "O0", "O1" or "O2". Kiln has no boost algorithms: "O1"/"O2" warn and train as "O0".
        **kwargs: `cast_model_type` (float16 or float32), `keep_batchnorm_fp32` (bool) and `loss_scale_manager`
            (a LossScaleManager or None), each overriding what `level` sets.

    Returns:
        Cell: `TrainOneStepWithLossScaleCell` when the manager has an update Cell (an overflowing step is skipped),
        else `TrainOneStepCell` with the manager's loss scale as the gradient sensitivity (1 without a manager).
    """
    keep_bn, cast_type, manager = _build_config(level, boost_level, kwargs)
    if boost_level != "O0":
        warnings.warn(
            f"build_train_network(boost_level={boost_level!r}): Kiln has no boost algorithms; the step trains as "
            "boost_level='O0'.",
            stacklevel=2,
        )
    network = _apply_precision(network, level, keep_bn, cast_type)
    if loss_fn is not None:
        low_precision = cast_type == mstype.float16 or network.__dict__.get("_amp_level") in ("O2", "O3", "auto")
        network = _LossInFloat32(network, loss_fn) if low_precision else nn.WithLossCell(network, loss_fn)
    if manager is None:
        return nn.TrainOneStepCell(network, optimizer).set_train()
    update_cell = manager.get_update_cell()
    if update_cell is None:
        # The optimizer divides by its own loss_scale; the sensitivity makes the gradients carry the scale.
        return nn.TrainOneStepCell(network, optimizer, sens=manager.get_loss_scale()).set_train()
    return TrainOneStepWithLossScaleCell(network, optimizer, scale_sense=update_cell).set_train()
