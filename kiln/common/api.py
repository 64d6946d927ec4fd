"""Process-wide helpers of `mindspore.common.api`."""

from __future__ import annotations

import random

import numpy as np

from kiln._compiler.api import JitConfig, compile_cell, jit, mutable
from kiln._core import random_state
from kiln._core.random_state import get_seed
from kiln._core.tensor import Tensor
from kiln.common.runtime import synchronize
from kiln.dataset import config as dataset_config
from kiln.ops.multitype import constexpr as ops_constexpr

__all__ = [
    "JitConfig", "from_numpy", "get_seed", "is_tensor", "jit", "jit_class", "lazy_inline", "mutable", "no_inline",
    "recompute", "set_seed", "tensor", "constexpr", "swap_tensors",
]  # fmt: skip


def set_seed(seed: int) -> None:
    """Seed Kiln's generator, the data pipeline's, NumPy's and Python's, so runs repeat exactly."""
    random_state.set_seed(seed)
    dataset_config.set_seed(seed)
    np.random.seed(seed)
    random.seed(seed)


def jit_class(cls):
    """Mark class `cls` so that its instances may be used inside compiled functions (MindSpore's `jit_class`).

    Kiln's graph capture reads the attributes and calls the methods of any Python object, so the mark only
    validates its argument; `cls` comes back unchanged (with `__ms_class__` set, as MindSpore sets it).
    """
    if not isinstance(cls, type):
        raise TypeError(f"jit_class: the decorated object must be a class, but got {type(cls).__name__}.")
    if hasattr(cls, "construct") and any(c.__name__ == "Cell" for c in cls.__mro__):
        raise TypeError(f"jit_class: '{cls.__name__}' is a Cell, which graph mode already supports; do not mark it.")
    cls.__ms_class__ = True
    return cls


def tensor(input_data=None, dtype=None, shape=None, init=None, const_arg: bool = False, device=None):
    """A new Tensor (MindSpore's `mindspore.tensor`): the same as `Tensor(input_data, dtype, shape, init)`."""
    return Tensor(input_data, dtype=dtype, shape=shape, init=init, const_arg=const_arg)


def from_numpy(array):
    """A Tensor holding a copy of NumPy array `array` (with its dtype)."""
    if not isinstance(array, np.ndarray):
        raise TypeError(f"from_numpy: expected a numpy.ndarray, but got {type(array).__name__}.")
    return Tensor(array)


def is_tensor(obj) -> bool:
    """True when `obj` is a Tensor (or a Parameter)."""
    return isinstance(obj, Tensor)


def lazy_inline(fn=None, *, policy=None):
    """MindSpore's `lazy_inline` (for a Cell's `__init__`): a compile-time hint; Kiln's compiler inlines anyway."""
    if fn is None:
        return lambda f: f
    return fn


def no_inline(fn=None):
    """MindSpore's `no_inline` (keep a function as its own subgraph): a compile-time hint Kiln accepts."""
    if fn is None:
        return lambda f: f
    return fn


def recompute(block, *args, use_reentrant: bool = True, output_recompute: bool = False, **kwargs):
    """Call `block(*args, **kwargs)`, recomputing its forward pass during backward (MindSpore's `recompute`).

    PyNative keeps activations either way, as MindSpore does; in graph mode mark Cells with `Cell.recompute()`.
    """
    if not callable(block):
        raise TypeError(f"recompute: 'block' must be a Cell or a function, but got {type(block).__name__}.")
    return block(*args, **kwargs)


def constexpr(fn=None, get_instance: bool = True, name=None, reuse_result: bool = True, check: bool = True):
    """Mark `fn` as computed on constants at compile time (MindSpore's `constexpr`): the `ops.constexpr` mark.

    Kiln's graph capture evaluates Python functions of constant arguments while compiling, so the marked
    function is called as it is; eagerly it simply runs, and a gradient reusing a forward gets that forward's
    values (`ops.multitype.ConstExpr`). `@constexpr` and `@constexpr(...)` both work.
    """
    return ops_constexpr(fn)


def swap_tensors(t1, t2) -> None:
    """Exchange the contents (data, shape, dtype) of two Tensors in place."""
    if not (isinstance(t1, Tensor) and isinstance(t2, Tensor)):
        raise TypeError(
            f"swap_tensors: both arguments must be Tensors, but got {type(t1).__name__} and {type(t2).__name__}."
        )
    t1._data, t2._data = t2._data, t1._data


class _PynativeExecutorStandIn:
    """What test scripts use of MindSpore's private `mindspore.common.api._pynative_executor`: `sync()`."""

    def sync(self) -> None:
        """Wait until the device work queued so far has finished (`kiln.runtime.synchronize`)."""
        synchronize()


_pynative_executor = _PynativeExecutorStandIn()  # private, as in MindSpore: not in __all__


class _CellGraphExecutorStandIn:
    """What test scripts use of MindSpore's private `mindspore.common.api._cell_graph_executor`: `compile()`."""

    def compile(self, obj, *args, phase: str = "predict", **kwargs) -> str:
        """Compile Cell `obj`'s construct for `args` as GRAPH_MODE does, without running it; returns `phase`."""
        compile_cell(obj, args, kwargs)
        return phase


def _no_recursive(obj):
    """MindSpore's private `_no_recursive` mark (compile each called function on its own): Kiln inlines the
    functions a graph calls either way, with the same result, so `obj` comes back unchanged."""
    return obj


_cell_graph_executor = _CellGraphExecutorStandIn()  # private, as in MindSpore: not in __all__
