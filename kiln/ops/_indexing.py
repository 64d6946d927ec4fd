"""Tensor indexing (`x[i, 1:3, None, mask]`) and assignment (`x[i] = v`).

The index is split into a static spec (ints, slices, None, Ellipsis) that
becomes a primitive attribute, and index tensors that become inputs, so one
compiled function serves every call with the same index shape.
"""

from __future__ import annotations

import numpy as np

from kiln._core.prims import array as A
from kiln._core.tensor import Tensor
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
        elif isinstance(item, (bool, np.bool_)):
            spec.append(("t", len(tensors)))
            tensors.append(Tensor(np.asarray(item)))
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


def getitem(x: Tensor, index) -> Tensor:
    spec, tensors = _encode(index)
    return apply(A.GetItem, (x, *tensors), (spec,))


def setitem(x: Tensor, index, value) -> None:
    """In-place assignment: `x` takes the new value and, under autograd, the new history."""
    if isinstance(index, Tensor) and index.dtype.kind == "b" and index.shape == x.shape:
        out = apply(A.MaskedSet, (_snapshot(x), index, value))
    else:
        spec, tensors = _encode(index)
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
