"""How the Primitive-class families build their classes from rows, and the helpers several families share."""

from __future__ import annotations

import sys
from collections.abc import Callable

import numpy as np

from kiln._compiler.ir import graph as G
from kiln._core.tensor import Parameter, Tensor
from kiln.ops import array, state
from kiln.ops import nn as nn_ops
from kiln.ops.primitive import Primitive, WithAttrs


def _caller_module() -> str:
    # the family module that builds the class (as collections.namedtuple does): it is where the class lives, so
    # `cls.__module__` names it and pickling finds the class there
    return sys._getframe(2).f_globals["__name__"]


def simple_class(name: str, call: Callable, doc: str | None = None) -> type:
    """A Primitive class `name` whose instances take no attributes and whose call is `call(*inputs)`.

    Args:
        name: the class name (MindSpore's).
        call: the functional op it is a face of.
        doc: the class docstring; by default it names the class.

    Returns:
        The class.
    """
    # a static `__call__`: an instance call is `call(*inputs)` with no forwarding frame (as kiln.ops.faces' classes)
    cls = type(name, (Primitive,), {
        "__call__": staticmethod(call), "__module__": _caller_module(),
        "__doc__": doc or f"Primitive {name}.",
    })  # fmt: skip
    cls.__init__ = lambda self: Primitive.__init__(self, name)
    return cls


def attr_class(name: str, defaults: dict, call: Callable, doc: str | None = None) -> type:
    """A Primitive class `name` whose `__init__` takes the attributes `defaults` (MindSpore's order and defaults)
    and whose call is `call(self, *inputs)`, ending in a functional op.

    Args:
        name: the class name (MindSpore's).
        defaults: attribute name -> default value, in the order of MindSpore's `__init__`.
        call: `call(instance, *inputs)`; it reads the attributes from the instance.
        doc: the class docstring; by default it names the class.

    Returns:
        The class.
    """
    return type(name, (WithAttrs,), {
        "_defaults": defaults, "__call__": call, "__module__": _caller_module(),
        "__doc__": doc or f"Primitive {name}: the class face of its functional op.",
    })  # fmt: skip


def as_int(v):
    return int(v.asnumpy().reshape(-1)[0]) if isinstance(v, Tensor) else int(v)


def as_ints(v):
    if isinstance(v, Tensor):
        return tuple(int(i) for i in v.asnumpy().reshape(-1))
    return (int(v),) if isinstance(v, int) else tuple(int(i) for i in v)


def assign_if_parameter(var, value):
    return state.store(var, value) if isinstance(var, Parameter) else value


def resize_call(mode):
    def call(s, image, size):
        hw = as_ints(size)
        if mode == "nearest":
            return nearest_resize(image, hw, s.align_corners, s.half_pixel_centers)
        if s.align_corners:
            return nn_ops.interpolate(image, hw, mode=mode, align_corners=True)
        if s.half_pixel_centers:
            return nn_ops.interpolate(image, hw, mode=mode, align_corners=False)
        return asymmetric_linear(image, hw)

    return call


def nearest_resize(image, hw, align_corners, half_pixel_centers):
    """Nearest-neighbour resize of the last two dims with TensorFlow's index rules (MindSpore's V2 resize)."""
    out = image
    for axis, n_out in zip((image.ndim - 2, image.ndim - 1), hw):
        n_in = image.shape[axis]
        i = np.arange(n_out, dtype=np.float64)
        scale = (n_in - 1) / (n_out - 1) if align_corners and n_out > 1 else n_in / n_out
        if half_pixel_centers:
            src = np.floor((i + 0.5) * scale) if not align_corners else np.round((i + 0.5) * scale - 0.5)
        else:
            src = np.round(i * scale) if align_corners else np.floor(i * scale)
        src = np.clip(src, 0, n_in - 1).astype(np.int64)
        out = array.gather(out, Tensor(src), axis)
    return out


def asymmetric_linear(image, hw):
    """Linear resize with source coordinate = out * in / out (no half-pixel offset), TensorFlow's legacy rule."""
    out = image
    for axis, n_out in zip((image.ndim - 2, image.ndim - 1), hw):
        n_in = image.shape[axis]
        src = np.arange(n_out) * (n_in / n_out)
        lo = np.floor(src).astype(np.int64)
        hi = np.minimum(lo + 1, n_in - 1)
        frac = (src - lo).astype(np.float32)
        shape = [1] * image.ndim
        shape[axis] = n_out
        f = Tensor(frac.reshape(shape), out.dtype)
        out = (
            array.gather(out, Tensor(np.minimum(lo, n_in - 1)), axis) * (1 - f)
            + array.gather(out, Tensor(hi), axis) * f
        )
    return out


def scalar_value(v):
    return float(v.asnumpy()) if isinstance(v, Tensor) else float(v)


def host_array(t, op: str) -> np.ndarray:
    if isinstance(t, Tensor):
        if G.is_symbolic(t._data):
            raise RuntimeError(f"{op}: its output size depends on the input values, so it runs in PyNative mode only.")
        return t.asnumpy()
    return np.asarray(t)
