"""Tensor indexing (`x[i, 1:3, None, mask]`) and assignment (`x[i] = v`).

The index is split into a static spec (ints, slices, None, Ellipsis) that
becomes a primitive attribute, and index tensors that become inputs, so one
compiled function serves every call with the same index shape.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable

import numpy as np

from kiln._compiler.ir import graph as G
from kiln._core import tensor as core_tensor
from kiln._core.tensor import Tensor
from kiln._prims import array as A
from kiln._pynative import tape
from kiln.ops import state
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
            # a scalar bool is NumPy's 0-d mask: a new axis of 1 (True) or 0 (False) entries, which broadcasts with
            # the index tensors as an advanced index would; the backend's indexing places it as NumPy does
            spec.append(("b", bool(item)))
        elif isinstance(item, (int, np.integer)):
            spec.append(("i", int(item)))
        elif isinstance(item, (float, np.floating)):
            raise IndexError(f"an index must be an int, slice, None, Ellipsis, bool, list or Tensor, not {item!r}.")
        else:
            t = item if isinstance(item, Tensor) else _list_index(item)
            if t.dtype.kind == "b":
                # A boolean mask selects a data-dependent number of entries: resolve it on the host.
                for coord in np.nonzero(t.asnumpy()):
                    spec.append(("t", len(tensors)))
                    tensors.append(Tensor(coord.astype(np.int64)))
                continue
            if t.dtype.kind not in "iu":
                raise IndexError(f"an index tensor must hold integers or booleans, but got {t.dtype}.")
            spec.append(("t", len(tensors)))
            tensors.append(t)
    if sum(item[0] == "e" for item in spec) > 1:
        raise IndexError("an index may hold at most one Ellipsis ('...').")
    return tuple(spec), tuple(tensors)


def _list_index(item) -> Tensor:
    """A list (or NumPy array) index as a Tensor; an empty one indexes with integers, as NumPy's does."""
    arr = np.asarray(item)
    if arr.size == 0 and arr.dtype.kind == "f":
        arr = arr.astype(np.int64)
    return Tensor(arr)


def _selects_nothing(index) -> bool:
    """A list index that selects no entry ([] or all False): MindSpore refuses it in a read."""
    items = index if isinstance(index, tuple) else (index,)
    return any(
        isinstance(item, list) and all(isinstance(v, (bool, np.bool_)) and not v for v in item) for item in items
    )


def _check_masks(index, shape: tuple) -> None:
    """A boolean mask indexes as many axes as it has, and must have their sizes (a shorter axis would be read as
    the first entries of a longer one, silently)."""
    items = index if isinstance(index, tuple) else (index,)
    masks = [_mask_shape(item) for item in items]
    if all(m is None for m in masks):
        return
    widths = [0 if item is None or item is Ellipsis or _is_scalar_bool(item) else 1 for item in items]
    widths = [len(m) if m is not None else w for m, w in zip(masks, widths, strict=True)]
    cut = next((k for k, item in enumerate(items) if item is Ellipsis), len(items))
    axis = 0
    for k, (mask, width) in enumerate(zip(masks, widths, strict=True)):
        if k == cut:
            axis = len(shape) - sum(widths[k + 1 :])
        if mask is not None and tuple(shape[axis : axis + width]) != mask:
            raise ValueError(
                f"a boolean mask of shape {list(mask)} indexes axes {axis}..{axis + width - 1} of a tensor of shape "
                f"{list(shape)}, whose sizes there are {list(shape[axis : axis + width])}: they must be equal."
            )
        axis += width


def _mask_shape(item) -> tuple | None:
    """The shape of a boolean mask index (a Tensor, array or list of bools of at least one axis), else None."""
    if isinstance(item, Tensor):
        return tuple(item.shape) if item.dtype.kind == "b" and item.ndim > 0 else None
    if isinstance(item, (list, np.ndarray)):
        arr = np.asarray(item)
        return arr.shape if arr.dtype.kind == "b" and arr.ndim > 0 else None
    return None


def _is_scalar_bool(item) -> bool:
    if isinstance(item, Tensor):
        return item.ndim == 0 and item.dtype.kind == "b"
    return isinstance(item, (bool, np.bool_))


def _check_int_bounds(spec: tuple, shape: tuple) -> None:
    """Integer indices are checked like Python sequences (the backend would clamp them)."""
    consuming = [item for item in spec if item[0] not in "nb"]
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


def _ints_as_inputs(spec: tuple, tensors: tuple) -> tuple[tuple, tuple]:
    """In PyNative, the integer items of an index made of ints, slices, None and Ellipsis only become inputs of the
    op (("d", k): the k-th input is a Python int), so that `x[i]` in a Python loop over `i` is one kernel and one
    lazy-window structure, not one per value of `i`. Left static while a graph is recorded (the compiler folds
    them) and next to index tensors (NumPy places an int among advanced indices as one of them)."""
    if tensors or G.current() is not None:
        return spec, tensors
    ints, out = [], []
    for item in spec:
        tag = item[0]
        if tag == "i":
            out.append(("d", len(ints)))
            ints.append(item[1])
        elif tag == "b":
            return spec, tensors
        else:
            out.append(item)
    return (tuple(out), tuple(ints)) if ints else (spec, tensors)


def getitem(x: Tensor, index) -> Tensor:
    """`x[index]`: NumPy's basic and advanced indexing."""
    if _selects_nothing(index):
        raise IndexError("a list index must select at least one entry, but it is empty or all False.")
    _check_masks(index, x.shape)
    spec, tensors = _encode(index)
    _check_int_bounds(spec, x.shape)
    out = _read(x, spec, tensors)
    if out is not x:
        # MindSpore's `x[i]` is a view of x: assigning into it (`x[i][j] = v`, `row = x[i]; row[j] = v`) writes x,
        # and (ints, slices, None, Ellipsis only) a later write into x is seen through it
        link_view(x, out, index, tracked=not tensors and G.current() is None)
    return out


class ViewKind:
    """A kind of view made by a shape op: `read(src, arg)` makes it, `write(src, view, arg)` is `src` with the
    view's entries put back. A view's step from its source is `(kind, arg)`; an index step is the index itself."""

    __slots__ = ("read", "write")

    def __init__(self, read: Callable, write: Callable) -> None:
        self.read, self.write = read, write


def link_view(x: Tensor, out: Tensor, step, *, tracked: bool = True) -> None:
    """Make `out`, read from `x` by `step` (an index or `(ViewKind, arg)`), a view of `x`'s entries: a write into
    `out` is written into `x` too, and (when `tracked`: PyNative only) a later write into `x` is seen in `out`.

    A view keeps the tensor at the root of its reads and the path of steps from it, not the tensor it was read from:
    a loop of `x = x[1:]` would otherwise keep every earlier x alive. The root keeps weak references to its views
    (in its `_view_of` slot, a list; a view's holds the (root, path) tuple), the dead ones dropped as it grows."""
    link = getattr(x, "_view_of", None)  # (a Tensor unpickled from before views: unset)
    if type(link) is tuple:
        root = link[0]
        out._view_of = (root, (*link[1], step))
        link = root._view_of
    else:
        root = x
        out._view_of = (x, (step,))
    if not tracked:
        return
    if link is None:
        root._view_of = [weakref.ref(out)]
        return
    link.append(weakref.ref(out))
    n = len(link)
    if n > 16 and n & (n - 1) == 0:  # at each power of two
        link[:] = [r for r in link if r() is not None]


def _is_view_step(step) -> bool:
    return type(step) is tuple and len(step) == 2 and type(step[0]) is ViewKind


def _read_step(src: Tensor, step) -> Tensor:
    if _is_view_step(step):
        return step[0].read(src, step[1])
    return _read(src, *_encode(step))


def _write_step(src: Tensor, step, region: Tensor) -> Tensor:
    """`src` with `region` (what `step` reads from it) written back."""
    if _is_view_step(step):
        return step[0].write(src, region, step[1])
    out = Tensor._wrap(src._buf)
    out._nodes = src._nodes
    _assign(out, step, region, whole_mask=False)
    return out


def _read_path(root: Tensor, path: tuple) -> Tensor:
    region = root
    for step in path:
        region = _read_step(region, step)
    return region


def _store(t: Tensor, value: Tensor) -> None:
    """`t` takes `value`'s array and history without the write being seen as the user's (no views are updated)."""
    core_tensor.STORAGE.__set__(t, value._buf)
    t._nodes = value._nodes


def view_written(t: Tensor) -> None:
    """After `t` was written in place in PyNative: a view writes its new entries into its root, and every other
    live view of that root reads them again (their values stay pending in the lazy window until read)."""
    link = t._view_of
    if type(link) is tuple:
        root, path = link
        regions = [root]
        for step in path[:-1]:
            regions.append(_read_step(regions[-1], step))
        new = t
        for k in range(len(path) - 1, -1, -1):
            new = _write_step(regions[k], path[k], new)
        _store(root, new)
        link = root._view_of
    else:
        root = t
    if type(link) is list:
        for ref in link:
            view = ref()
            if view is not None and view is not t and type(view._view_of) is tuple and view._view_of[0] is root:
                _store(view, _read_path(root, view._view_of[1]))


core_tensor.VIEW_WRITTEN.append(view_written)


def setitem(x: Tensor, index, value) -> None:
    """In-place assignment: `x` takes the new value and, under autograd, the new history. When `x` was read from
    another Tensor (`base[i]`, `base.reshape(...)[i]`, ...), the assignment is also made in that Tensor."""
    link = getattr(x, "_view_of", None)
    if type(link) is not tuple:
        _assign(x, index, value)
        return
    root, path = link
    if G.current() is None:
        # the view as its root holds it now (a write the root's views were not told of: a compiled graph's), then the
        # write, which view_written carries into the root and its other views
        _store(x, _read_path(root, path))
        _assign(x, index, value)
        return
    # while a graph is recorded: each region as the root holds it now, the new entries into the innermost, then
    # each region written back into the one it was read from
    regions = [root]
    for step in path:
        regions.append(_read_step(regions[-1], step))
    _assign(regions[-1], index, value)
    for k in range(len(path) - 1, -1, -1):
        step = path[k]
        if _is_view_step(step):
            _take(regions[k], step[0].write(regions[k], regions[k + 1], step[1]))
        else:
            _assign(regions[k], step, regions[k + 1], whole_mask=False)
    _take(x, regions[-1])


def _read(x: Tensor, spec, tensors) -> Tensor:
    """`x[index]` from `_encode(index)`'s spec and tensors, made no view of `x`."""
    spec, tensors = _ints_as_inputs(spec, tensors)
    return apply(A.GetItem, (x, *tensors), (spec,))


def _assign(x: Tensor, index, value, *, whole_mask: bool = True) -> None:
    """`x[index] = value`; `whole_mask`: a mask of x's shape writes one value where it is set (a region read through
    the mask is written back entry by entry instead)."""
    if whole_mask and isinstance(index, Tensor) and index.dtype.kind == "b" and index.shape == x.shape:
        out = apply(A.MaskedSet, (snapshot(x), index, value))
    else:
        _check_masks(index, x.shape)
        spec, tensors = _encode(index)
        _check_int_bounds(spec, x.shape)
        spec, tensors = _ints_as_inputs(spec, tensors)
        out = apply(A.SetItem, (snapshot(x), _value(value), *tensors), (spec,))
    _take(x, out)


def _take(x: Tensor, out: Tensor) -> None:
    """`x` takes `out`'s value and history; a Parameter only the value: it stays the leaf it was, so what reads it
    after the write sends its gradient to it, none to what was written (MindSpore 2.10, both modes)."""
    if state.assigned_in_graph(x, out):
        return
    if not isinstance(x, core_tensor.Parameter):
        x._nodes = out._nodes  # (first: a view's write into its root, made as `_data` is set, reads x's history)
    if G.current() is None:
        # PyNative: x takes the op's value as it is, pending in the lazy window if it waits there (reading `_data`
        # would run the window at every assignment: a loop writing x[i] then ran one program per trip)
        x._data = out._buf
    else:
        x._data = out._data


def _value(value):
    """A tuple or list of values holding Tensors is written as their stack (NumPy reads it as one array)."""
    if isinstance(value, (tuple, list)) and any(isinstance(v, Tensor) for v in value):
        parts = tuple(_value(v) if isinstance(v, (tuple, list)) else v for v in value)
        dtype = next(v.dtype for v in parts if isinstance(v, Tensor))
        return apply(A.Stack, tuple(v if isinstance(v, Tensor) else Tensor(v, dtype) for v in parts), (0,))
    return value


def snapshot(x: Tensor) -> Tensor:
    """A separate handle on x's current value and history, for the tape to keep (a plain Tensor's pending value in
    PyNative stays pending)."""
    if not tape.recording:
        return x
    plain = type(x) is Tensor and G.current() is None
    snap = Tensor._wrap(x._buf if plain else x._data)
    snap._nodes = x._nodes
    return snap
