"""Small helpers shared by the functional ops."""

from __future__ import annotations

import threading
from collections.abc import Sequence

import numpy as np

from kiln._backend import is_symbolic_dim
from kiln._compiler.ir import graph as G
from kiln._core import dtype as mstype
from kiln._core.primitive import REGISTRY, op_error
from kiln._core.tensor import Parameter, Pending, Tensor, store_value, stored_value
from kiln._prims import state as S
from kiln._pynative.dispatch import apply, running_in

__all__ = [
    "REGISTRY",
    "Tensor",
    "apply",
    "as_axes",
    "sequence_tensor",
    "as_np_dtype",
    "batched_writes",
    "make_binary",
    "make_unary",
    "numpy_scalars_as_numbers",
    "op_error",
    "prim",
    "write_back",
]


def prim(name: str):
    """The declaration registered under `name`."""
    return REGISTRY[name]


def as_axes(axis) -> tuple[int, ...] | None:
    """MindSpore reductions take an int, a tuple/list of ints, () or None (= all axes)."""
    if axis is None:
        return None
    if isinstance(axis, int):
        return (axis,)
    if isinstance(axis, Tensor):
        return tuple(int(a) for a in axis.asnumpy().reshape(-1))
    axes = tuple(int(a) for a in axis)
    return axes if axes else None


def as_np_dtype(dtype):
    return None if dtype is None else mstype.to_dtype(dtype).np


def as_shape(op: str, shape) -> tuple[int, ...]:
    if isinstance(shape, int):
        return (shape,)
    if isinstance(shape, Tensor):
        # A size Tensor is a scalar or a 1-D list of ints, as MindSpore converts it; flattening a 2-D one or
        # truncating floats would give another shape without a word.
        if shape.ndim > 1 or not np.issubdtype(shape.dtype.np, np.integer):
            raise op_error(op, f"a size Tensor must be a 0-D or 1-D Tensor of ints, but got shape "
                               f"{tuple(shape.shape)} and dtype {shape.dtype}.", TypeError)  # fmt: skip
        return tuple(int(s) for s in shape.asnumpy().reshape(-1))
    if not isinstance(shape, Sequence):
        raise op_error(op, f"'shape' must be a tuple or list of ints, but got {type(shape).__name__}.", TypeError)
    for s in shape:
        if isinstance(s, (float, np.floating)):  # int() would truncate it silently
            raise op_error(op, f"'shape' must hold ints, but {list(shape)} holds the float {s!r}.", TypeError)
    return tuple(s if is_symbolic_dim(s) else int(s) for s in shape)


def make_unary(prim_name: str, public_name: str):
    p = REGISTRY[prim_name]

    def op(input):
        return apply(p, (input,))

    op.__name__ = op.__qualname__ = public_name
    op.__doc__ = f"""Elementwise `{prim_name}` of `input`.

    Args:
        input (Tensor): the input tensor.

    Returns:
        Tensor of the same shape.
    """
    return op


def sequence_tensor(value):
    """A tuple or list operand (of numbers, Tensors, or such sequences) as the Tensor it spells, stacked along a
    new first axis (NumPy's and MindSpore's reading of `t + (a, b)`); any other value as it is.

    Args:
        value: an operand.

    Returns:
        A Tensor for a tuple or list, else `value`.
    """
    if not isinstance(value, (tuple, list)):
        return value
    items = [sequence_tensor(x) for x in value]
    if not any(isinstance(x, Tensor) for x in items):
        return Tensor(value)
    return apply(REGISTRY["Stack"], tuple(x if isinstance(x, Tensor) else Tensor(x) for x in items), (0,))


def numpy_scalars_as_numbers(*operands) -> tuple:
    """`operands` with each NumPy scalar replaced by the Python number it holds.

    A NumPy scalar (`1.0 / np.sqrt(d)`, `x / np.power(d, 0.5)`) is a number to MindSpore, as a Python float is: it
    takes the Tensor's dtype instead of promoting a float32 Tensor to its own float64.
    """
    return tuple(v.item() if isinstance(v, np.generic) else v for v in operands)


_HALF = (mstype.float16, mstype.bfloat16)


def make_binary(prim_name: str, public_name: str, *, float_in_tensor_dtype: bool = False):
    """The functional face of the elementwise primitive `prim_name`. `float_in_tensor_dtype`: a Python float
    beside a float16/bfloat16 Tensor is first rounded to that dtype (MindSpore 2.10's `*` and `/` operators and
    Tensor.mul/div convert it; its Mul and Div primitives compute with it in float32)."""
    p = REGISTRY[prim_name]

    def op(input, other):
        if float_in_tensor_dtype:
            if type(other) is float and isinstance(input, Tensor) and input.dtype in _HALF:
                other = Tensor(other, input.dtype)
            elif type(input) is float and isinstance(other, Tensor) and other.dtype in _HALF:
                input = Tensor(input, other.dtype)
        if isinstance(other, (tuple, list)) or isinstance(input, (tuple, list)):
            # a sequence is stacked into a Tensor only beside one: two sequences (or a sequence and a number)
            # have no elementwise meaning (Python's `+` of two lists concatenates them)
            if not any(isinstance(v, Tensor) for v in (input, other)):
                raise TypeError(
                    f"ops.{public_name} takes a list or tuple only beside a Tensor, but got "
                    f"{type(input).__name__} and {type(other).__name__}."
                )
            input, other = sequence_tensor(input), sequence_tensor(other)
        return apply(p, numpy_scalars_as_numbers(input, other))

    op.__name__ = op.__qualname__ = public_name
    op.__doc__ = f"""Elementwise `{prim_name}` of `input` and `other`, with NumPy broadcasting.

    Args:
        input (Tensor | number): the first operand.
        other (Tensor | number): the second operand.

    Returns:
        Tensor with the broadcast shape of the inputs.
    """
    return op


def write_back(targets: Sequence[Parameter], values: Sequence[Tensor], *, wait: bool = False) -> None:
    """Store `values[i]` into Parameter `targets[i]` in place.

    Eagerly this is a plain buffer swap (no dispatch). While a graph is being
    traced the values are symbolic, so each store goes through the `Assign`
    primitive, where the compiler sees it as a state update; so does a value of
    another dtype (BatchNorm's statistics computed in a `to_float` Cell's float16),
    as Assign keeps the Parameter's dtype. The store is Kiln's, not one of the user's
    ops: inside a `to_float` Cell the value is not cast to the Cell's dtype first
    (an optimizer's float32 update would be rounded to float16 on its way in).

    With `wait`, a value PyNative's lazy window has not computed yet is stored as it is (the Parameter runs the
    window when it is read): BatchNorm's moving statistics, which ran the window at every BatchNorm otherwise.
    Without it the window runs here, so an optimizer step whose window fails raises at its call and writes nothing;
    inside `batched_writes` it runs once at the block's end, with the same outcome.
    """
    if not G._TRACES or G._TRACES[-1] is None:  # no graph recorded (an optimizer's step in PyNative): a target is
        batch = _BATCH.saved  # checked by its own slot, not read through `_data`
        for target, value in zip(targets, values, strict=True):
            data, buf = value._buf if wait or batch is not None else value._data, target._buf
            if batch is not None and id(target) not in batch:
                batch[id(target)] = (target, buf)
            if type(data) is G.Var or type(buf) is G.Var or data.dtype != buf.dtype:
                with running_in(None):
                    apply(S.Assign, (target, value))  # (Assign keeps the Parameter's dtype: a float16 value is cast)
            else:
                target._data = data
        return
    for target, value in zip(targets, values, strict=True):
        data = value._data
        if G.is_symbolic(data) or G.is_symbolic(target._data) or data.dtype != target._buf.dtype:
            with running_in(None):
                apply(S.Assign, (target, value))
        else:
            target._data = data


class _Batch(threading.local):
    # inside `batched_writes` (per thread): id(target) -> (target, the value it held before its first write there)
    saved: dict | None = None


_BATCH = _Batch()


class batched_writes:  # noqa: N801  (a context manager, used as `with batched_writes():`)
    """`with batched_writes():` PyNative's `write_back`s inside store the lazy window's pending values as they are and
    the window runs once at the end of the block: an optimizer's per-parameter updates become one program (each
    write ran the window, one program per parameter). When that run fails, every target written in the block gets
    back the value it had before and the error is raised, so nothing is written, as before. A block that raises
    leaves the writes made so far in place, their values still pending (computed, or their op's error raised, when
    read). Nested blocks run at the outermost end; while a graph is recorded `write_back` does not look at it."""

    __slots__ = ("outer",)

    def __enter__(self) -> None:
        self.outer = _BATCH.saved
        _BATCH.saved = {} if self.outer is None else self.outer

    def __exit__(self, kind, err, tb) -> None:
        saved, _BATCH.saved = _BATCH.saved, self.outer
        if self.outer is not None or kind is not None or not saved:
            return
        try:
            for target, _ in saved.values():
                d = stored_value(target)
                if type(d) is Pending:  # the first one runs the window
                    store_value(target, d.resolve())
        except BaseException:
            for target, old in saved.values():
                store_value(target, old)
            raise
