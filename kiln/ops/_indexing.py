"""Tensor indexing (`x[i, 1:3, None, mask]`) and assignment (`x[i] = v`).

The index is split into a static spec (ints, slices, None, Ellipsis) that
becomes a primitive attribute, and index tensors that become inputs, so one
compiled function serves every call with the same index shape.
"""

from __future__ import annotations

import numpy as np

from kiln._core.tensor import Tensor
from kiln._prims import array as A
from kiln._pynative import tape
from kiln.ops._helpers import apply


def _encode(index) -> tuple[tuple, tuple]:
    items = index if isinstance(index, tuple) else (index,)
    spec, tensors = [], []
    for item in items:
        if item is None:
            spec.append(("n",))
        elif item is Ellipsis:
            spec.append(("e",))
        elif isinstance(item, slice):
            parts = tuple(int(v) if isinstance(v, Tensor) else v for v in (item.start, item.stop, item.step))
            spec.append(("s", *parts))
        elif _is_scalar_bool(item):
            # A scalar bool adds an axis, as None does (NumPy): of size 1 for True, 0 for False.
            spec.append(("n",) if bool(item) else ("n0",))
        elif isinstance(item, (int, np.integer)):
            spec.append(("i", int(item)))
        else:
            t = item if isinstance(item, Tensor) else Tensor(np.asarray(item))
            if t.dtype.kind == "b":
                # A boolean mask selects a data-dependent number of entries: resolve it on the host.
                for coord in np.nonzero(t.asnumpy()):
                    spec.append(("t", len(tensors)))
                    tensors.append(Tensor(coord.astype(np.int64)))
                continue
            spec.append(("t", len(tensors)))
            tensors.append(t)
    return tuple(spec), tuple(tensors)


def _is_scalar_bool(item) -> bool:
    if isinstance(item, Tensor):
        return item.ndim == 0 and item.dtype.kind == "b"
    return isinstance(item, (bool, np.bool_))


def _check_int_bounds(spec: tuple, shape: tuple) -> None:
    """Integer indices are checked like Python sequences (the backend would clamp them)."""
    consuming = [item for item in spec if item[0] != "n"]
    if sum(item[0] != "e" for item in consuming) > len(shape):
        raise IndexError(f"too many indices for a tensor of shape {list(shape)}: {len(consuming)} were given.")
    dims = []
    if any(item[0] == "e" for item in consuming):
        cut = next(i for i, item in enumerate(consuming) if item[0] == "e")
        head, tail = consuming[:cut], consuming[cut + 1 :]
        dims = list(enumerate(head)) + [(len(shape) - len(tail) + i, item) for i, item in enumerate(tail)]
    else:
        dims = list(enumerate(consuming))
    for dim, item in dims:
        if item[0] == "i" and not -shape[dim] <= item[1] < shape[dim]:
            raise IndexError(
                f"index {item[1]} is out of bounds for axis {dim} with size {shape[dim]} (tensor shape {list(shape)})."
            )


def getitem(x: Tensor, index) -> Tensor:
    spec, tensors = _encode(index)
    _check_scalar_bools(index, spec)
    empty = [k for k, item in enumerate(spec) if item[0] == "n0"]
    if empty:
        spec = tuple(("n",) if item[0] == "n0" else item for item in spec)
    _check_int_bounds(spec, x.shape)
    out = apply(A.GetItem, (x, *tensors), (spec,))
    for k in empty:  # x[False]: the new axis holds nothing
        if tensors:
            raise IndexError("a False index together with index tensors is not supported; index in two steps.")
        axis = _output_axis(spec, k, x.ndim)
        out = getitem(out, (slice(None),) * axis + (slice(0, 0),))
    return out


def _check_scalar_bools(index, spec: tuple) -> None:
    """Scalar bools index as NumPy's advanced indices do; Kiln supports the cases where that is one new axis at
    the bool's place (one bool, next to the integers if any), and says so for the others."""
    items = index if isinstance(index, tuple) else (index,)
    bools = [k for k, item in enumerate(items) if _is_scalar_bool(item)]
    if not bools:
        return
    advanced = [k for k, item in enumerate(spec) if item[0] == "i" or k in bools]
    if len(bools) > 1 or advanced != list(range(advanced[0], advanced[0] + len(advanced))):
        raise IndexError(
            "indexing with several scalar booleans, or a scalar boolean apart from the integer indices, is not "
            "supported: index in two steps."
        )


def _output_axis(spec: tuple, k: int, ndim: int) -> int:
    """The axis of the result that basic index item `k` (a new axis) becomes."""
    consumed = sum(item[0] in "is" for item in spec)
    axis = 0
    for item in spec[:k]:
        if item[0] in ("n", "s"):
            axis += 1
        elif item[0] == "e":
            axis += ndim - consumed
    return axis


def setitem(x: Tensor, index, value) -> None:
    """In-place assignment: `x` takes the new value and, under autograd, the new history."""
    if isinstance(index, Tensor) and index.dtype.kind == "b" and index.shape == x.shape:
        out = apply(A.MaskedSet, (_snapshot(x), index, value))
    else:
        spec, tensors = _encode(index)
        _check_int_bounds(spec, x.shape)
        out = apply(A.SetItem, (_snapshot(x), value, *tensors), (spec,))
    x._data = out._data
    x._nodes = out._nodes


def _snapshot(x: Tensor) -> Tensor:
    """A separate handle on x's current value and history, for the tape to keep."""
    if not tape.recording:
        return x
    snap = Tensor._wrap(x._data)
    snap._nodes = x._nodes
    return snap
