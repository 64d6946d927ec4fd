"""Functional array ops: shapes, joins and splits, gather/scatter, indexing, creation, diagonals and memory layout.

Kiln's arrays are always dense and never views, so `contiguous` returns its input.
"""

from __future__ import annotations

import builtins
import itertools
import math
import operator

import numpy as np

from kiln._compiler.ir import graph as G
from kiln._core import dtype as mstype
from kiln._core.tensor import Parameter, Tensor
from kiln._prims import array as A
from kiln._prims import array as prims_array
from kiln.ops import state
from kiln.ops._helpers import REGISTRY, apply, as_np_dtype, as_shape, op_error
from kiln.ops._indexing import ViewKind, link_view
from kiln.ops.faces import functional

__all__ = [
    "matrix_set_diag",
    "switch",
    "reshape",
    "view",
    "transpose",
    "permute",
    "swapaxes",
    "moveaxis",
    "expand_dims",
    "unsqueeze",
    "squeeze",
    "flatten",
    "concat",
    "cat",
    "stack",
    "split",
    "chunk",
    "unstack",
    "unbind",
    "tile",
    "broadcast_to",
    "gather",
    "gather_elements",
    "gather_d",
    "gather_nd",
    "scatter_nd",
    "tensor_scatter_update",
    "tensor_scatter_add",
    "tensor_scatter_max",
    "tensor_scatter_min",
    "tensor_scatter_sub",
    "tensor_scatter_mul",
    "tensor_scatter_div",
    "scatter_nd_sub",
    "scatter_nd_mul",
    "scatter_nd_div",
    "scatter_nd_max",
    "scatter_nd_min",
    "scatter_max",
    "scatter_min",
    "scatter_mul",
    "scatter_div",
    "expand_as",
    "view_as",
    "type_as",
    "unique_with_pad",
    "tensor_scatter_elements",
    "scatter",
    "scatter_add",
    "slice",
    "select",
    "where",
    "masked_fill",
    "one_hot",
    "flip",
    "roll",
    "pad",
    "zeros",
    "ones",
    "full",
    "fill",
    "zeros_like",
    "ones_like",
    "full_like",
    "eye",
    "arange",
    "range",
    "linspace",
    "tril",
    "triu",
    "meshgrid",
    "narrow",
    "numel",
    "size",
    "shape",
    "rank",
    "repeat_interleave",
    "masked_select",
    "nonzero",
    "unique",
    "index_select",
    "hstack",
    "vstack",
    "contiguous",
    "diagonal",
    "make_tuple",
    "argwhere",
    "fliplr",
    "flipud",
    "column_stack",
    "row_stack",
    "t",
    "atleast_1d",
    "atleast_2d",
    "atleast_3d",
    "cartesian_prod",
    "diag_embed",
    "diagflat",
    "dsplit",
    "hsplit",
    "vsplit",
    "tensor_split",
    "dstack",
    "expand",
    "movedim",
    "swapdims",
    "ravel",
    "repeat_elements",
    "reverse",
    "rot90",
    "take",
    "tril_indices",
    "triu_indices",
    "fills",
    "index_add",
    "inplace_index_add",
    "slice_scatter",
    "select_scatter",
    "scatter_nd_add",
    "scatter_nd_update",
    "scatter_update",
    "combinations",
    "mirror_pad",
    "strided_slice",
    "tensor_slice",
    "space_to_batch_nd",
    "batch_to_space_nd",
    "put_",
    "reshape_",
    "tensor_range",
    "unique_consecutive",
    "matrix_diag",
    "matrix_diag_part",
    "move_to",
]


def reshape(input, shape) -> Tensor:
    """A tensor with the same data and a new `shape` (one entry may be -1); in PyNative a view of `input`, as
    MindSpore's (a write into either is seen in the other)."""
    shape = as_shape("Reshape", shape)
    return _viewed(input, apply(A.Reshape, (input,), (shape,)), RESHAPED, shape)


def _viewed(input, out: Tensor, kind: ViewKind, arg) -> Tensor:
    """`out`, made from `input` by a shape op, as a view of it in PyNative (`kind` and `arg`: its read and write)."""
    if (not G._TRACES or G._TRACES[-1] is None) and isinstance(input, Tensor):
        link_view(input, out, (kind, arg))
    return out


def _reshape_back(src: Tensor, view: Tensor, shape) -> Tensor:
    return apply(A.Reshape, (view,), (tuple(src.shape),))


def _transpose_back(src: Tensor, view: Tensor, perm) -> Tensor:
    nd = max(src.ndim, 1)
    return apply(A.Transpose, (view,), (tuple(int(p) for p in np.argsort([p % nd for p in perm])),))


# the kinds of shape-op view: reshape (also squeeze and expand_dims, read as a reshape to their result's shape) and
# transpose
RESHAPED = ViewKind(lambda src, shape: apply(A.Reshape, (src,), (shape,)), _reshape_back)
TRANSPOSED = ViewKind(lambda src, perm: apply(A.Transpose, (src,), (perm,)), _transpose_back)


def view(input, *shape) -> Tensor:
    """`reshape` with the shape given as arguments or as one tuple."""
    if len(shape) == 1 and not isinstance(shape[0], int):
        shape = shape[0]
    return reshape(input, shape)


def transpose(input, input_perm) -> Tensor:
    """Permute the axes of `input` by `input_perm` (integers: a float axis is a TypeError, as in NumPy); in PyNative
    a view of `input`."""
    perm = tuple(operator.index(p) for p in input_perm)
    return _viewed(input, apply(A.Transpose, (input,), (perm,)), TRANSPOSED, perm)


def permute(input, axis) -> Tensor:
    """Alias of `transpose` (MindSpore 2.x spelling)."""
    return transpose(input, axis)


def swapaxes(input, axis0: int, axis1: int) -> Tensor:
    """Exchange two axes."""
    perm = list(builtins.range(input.ndim))
    perm[axis0], perm[axis1] = perm[axis1], perm[axis0]
    return transpose(input, perm)


def moveaxis(x, source: int, destination: int) -> Tensor:
    """Move axis `source` to position `destination`."""
    perm = list(builtins.range(x.ndim))
    perm.insert(destination % x.ndim, perm.pop(source % x.ndim))
    return transpose(x, perm)


def expand_dims(input_x, axis: int) -> Tensor:
    """Insert a size-1 axis at `axis` (in PyNative a view of `input_x`)."""
    out = apply(A.ExpandDims, (input_x,), (axis,))
    return _viewed(input_x, out, RESHAPED, out.shape)


def unsqueeze(input, dim: int) -> Tensor:
    """Insert a size-1 axis at `dim` (`expand_dims` under MindSpore's other argument name)."""
    return expand_dims(input, dim)


def squeeze(input, axis=None) -> Tensor:
    """Remove size-1 axes (all of them, or those in `axis`; listed axes of another size stay, as in MindSpore)."""
    axes = () if axis is None else ((axis,) if isinstance(axis, int) else tuple(axis))
    if axes:
        nd, shape = input.ndim, input.shape
        axes = tuple(a for a in axes if not -nd <= a < nd or shape[a] == 1)  # bad axes still reach the check
        if not axes:
            return reshape(input, shape)
    out = apply(A.Squeeze, (input,), (axes,))
    return _viewed(input, out, RESHAPED, out.shape)


def flatten(input, order: str = "C", *, start_dim: int = 1, end_dim: int = -1) -> Tensor:
    """Merge axes start_dim..end_dim into one (MindSpore's default keeps the batch axis).

    Args:
        input: the Tensor.
        order: "C" merges in row-major order; "F" (column-major) reverses the axes first, as NumPy's
            `flatten(order="F")` reads them.
        start_dim: the first axis merged.
        end_dim: the last axis merged.

    Returns:
        The Tensor with axes start_dim..end_dim merged.
    """
    if not isinstance(order, str):
        raise op_error("Flatten", f"'order' must be a str, but got {type(order).__name__}.", TypeError)
    if order not in ("C", "F"):
        raise op_error("Flatten", f"'order' must be 'C' or 'F', but got {order!r}.", ValueError)
    if order == "F" and input.ndim > 1:
        input = transpose(input, tuple(builtins.range(input.ndim - 1, -1, -1)))
    shape = input.shape
    if not shape:
        return reshape(input, (1,))
    s, e = start_dim % len(shape), end_dim % len(shape)
    if s > e:
        raise op_error("Flatten", f"'start_dim' {start_dim} must not come after 'end_dim' {end_dim}.")
    return reshape(input, shape[:s] + (math.prod(shape[s : e + 1]),) + shape[e + 1 :])


def concat(tensors, axis: int = 0) -> Tensor:
    """Join a tuple of tensors along an existing axis."""
    if not isinstance(tensors, (list, tuple)):
        raise op_error("Concat", f"the input must be a tuple or list of tensors, but got {type(tensors).__name__}.")
    return apply(A.Concat, tuple(tensors), (axis,))


cat = concat


def hstack(tensors) -> Tensor:
    """Concatenate along axis 1 (axis 0 for 1-D inputs)."""
    return concat(tensors, 0 if tensors[0].ndim == 1 else 1)


def vstack(tensors) -> Tensor:
    """Stack 1-D inputs as rows, or concatenate along axis 0."""
    return concat([reshape(t, (1, -1)) if t.ndim == 1 else t for t in tensors], 0)


def stack(tensors, axis: int = 0) -> Tensor:
    """Join a tuple of same-shaped tensors along a new axis. A lone Tensor is a tuple of one, as MindSpore 2.10
    takes it (its shape gains an axis of size 1), not a sequence of its rows."""
    return apply(A.Stack, (tensors,) if isinstance(tensors, Tensor) else tuple(tensors), (axis,))


def split(tensor, split_size_or_sections, axis: int = 0) -> tuple:
    """Split into chunks of a given size (int) or of the given sizes (list)."""
    n = tensor.shape[axis]
    if isinstance(split_size_or_sections, int):
        size = split_size_or_sections
        if size <= 0:
            raise op_error("Split", f"'split_size_or_sections' must be positive, but got {size}.")
        sections = [size] * (n // size) + ([n % size] if n % size else [])
    else:
        sections = [int(s) for s in split_size_or_sections]
        if builtins.sum(sections) != n:
            raise op_error("Split", f"the sections {sections} must add up to the axis size {n}.")
    parts = apply(A.Split, (tensor,), (axis, tuple(sections)))
    if G.current() is None:  # each part a view of `tensor`, as `tensor[:, start:stop]` is
        lead, start = (builtins.slice(None),) * (axis % tensor.ndim), 0
        for part, size in zip(parts, sections, strict=True):
            link_view(tensor, part, (*lead, builtins.slice(start, start + size)))
            start += size
    return parts


def chunk(input, chunks: int, axis: int = 0) -> tuple:
    """Split into `chunks` nearly equal parts."""
    return split(input, -(-input.shape[axis] // chunks), axis)


def unstack(input_x, axis: int = 0) -> tuple:
    """Split along `axis` into tensors with that axis removed (in PyNative each a view of `input_x`)."""
    parts = apply(A.Unstack, (input_x,), (axis,))
    if G.current() is None and isinstance(input_x, Tensor):
        lead = (builtins.slice(None),) * (axis % input_x.ndim)
        for k, part in enumerate(parts):
            link_view(input_x, part, (*lead, k))
    return parts


def tile(input, dims) -> Tensor:
    """Repeat `input` `dims[i]` times along axis i."""
    return apply(A.Tile, (input,), (tuple(int(d) for d in dims),))


def broadcast_to(input, shape) -> Tensor:
    """Broadcast to `shape` (-1 keeps the input's size)."""
    return apply(A.BroadcastTo, (input,), (as_shape("BroadcastTo", shape),))


# faces table
gather = functional("gather")
gather_elements = functional("gather_elements")
gather_d = functional("gather_d")


def index_select(input, axis: int, index) -> Tensor:
    """Select entries along `axis` by a 1-D index tensor."""
    return gather(input, index, axis)


def gather_nd(input_x, indices) -> Tensor:
    """Gather slices addressed by the last axis of `indices`."""
    return apply(A.GatherNd, (input_x, indices))


def scatter_nd(indices, updates, shape) -> Tensor:
    """Zeros of `shape` with `updates` added at `indices`."""
    return apply(A.ScatterNd, (indices, updates), (as_shape("ScatterNd", shape),))


def tensor_scatter_update(input_x, indices, updates) -> Tensor:
    """A copy of `input_x` with the slices at `indices` replaced by `updates`."""
    return apply(A.TensorScatterUpdate, (input_x, indices, updates))


def tensor_scatter_add(input_x, indices, updates) -> Tensor:
    """A copy of `input_x` with `updates` added at `indices`."""
    return apply(A.TensorScatterAdd, (input_x, indices, updates))


def tensor_scatter_max(input_x, indices, updates) -> Tensor:
    """Elementwise max of `input_x` and `updates` at `indices`."""
    return apply(A.TensorScatterMax, (input_x, indices, updates))


def tensor_scatter_min(input_x, indices, updates) -> Tensor:
    """Elementwise min of `input_x` and `updates` at `indices`."""
    return apply(A.TensorScatterMin, (input_x, indices, updates))


def tensor_scatter_sub(input_x, indices, updates) -> Tensor:
    """A copy of `input_x` with `updates` subtracted at `indices` (repeated indices subtract each of theirs)."""
    return apply(A.TensorScatterSub, (input_x, indices, updates))


def tensor_scatter_mul(input_x, indices, updates) -> Tensor:
    """A copy of `input_x` multiplied by `updates` at `indices` (repeated indices multiply by each of theirs)."""
    return apply(A.TensorScatterMul, (input_x, indices, updates))


def tensor_scatter_div(input_x, indices, updates) -> Tensor:
    """A copy of `input_x` divided by `updates` at `indices` (repeated indices divide by each of theirs; integer
    division truncates)."""
    return apply(A.TensorScatterDiv, (input_x, indices, updates))


def expand_as(input, other) -> Tensor:
    """`input` broadcast to the shape of `other`."""
    return broadcast_to(input, other.shape)


def view_as(input, other) -> Tensor:
    """`input` reshaped to the shape of `other` (the same number of elements)."""
    return reshape(input, other.shape)


def type_as(input, other) -> Tensor:
    """`input` cast to the dtype of `other`."""
    return _cast(input, other.dtype)


def tensor_scatter_elements(input_x, indices, updates, axis: int = 0, reduction: str = "none") -> Tensor:
    """Write `updates` into `input_x` along `axis` at per-element `indices`."""
    return apply(A.ScatterElements, (input_x, indices, updates), (axis, reduction))


def scatter(input, axis: int, index, src) -> Tensor:
    """out[index[i][j]][j] = src[i][j] for axis 0 (and likewise for other axes)."""
    return tensor_scatter_elements(input, index, src, axis)


def scatter_add(input, dim: int, index, src) -> Tensor:
    """Like `scatter`, adding instead of replacing."""
    return tensor_scatter_elements(input, index, src, dim, "add")


def slice(input_x, begin, size) -> Tensor:
    """The block starting at `begin` with extent `size` (-1: to the end)."""
    spec = tuple(("s", b, None if s == -1 else b + s, None) for b, s in zip(begin, size, strict=True))
    return apply(A.GetItem, (input_x,), (spec,))


def narrow(input, axis: int, start: int, length: int) -> Tensor:
    """`length` entries of `input` along `axis` from `start`."""
    spec = (("s", None, None, None),) * (axis % input.ndim) + (("s", start, start + length, None),)
    out = apply(A.GetItem, (input,), (spec,))
    if G.current() is None:  # a view of `input`, as `input[:, start:start + length]` is
        link_view(input, out, (*(builtins.slice(None),) * (axis % input.ndim), builtins.slice(start, start + length)))
    return out


def select(cond, x, y) -> Tensor:
    """Elementwise `x` where `cond` is true, else `y`."""
    return apply(A.Select, (cond, x, y))


def switch(cond, true_value, false_value):
    """`true_value` if `cond` holds, else `false_value` (MindSpore's `F.switch`).

    Args:
        cond: a Python bool or a one-element bool Tensor (its value may be known only when a graph runs).
        true_value, false_value: the two candidates; Tensors (or numbers) when `cond` is a run-time Tensor.

    Returns:
        The chosen value; for a run-time `cond`, a Tensor selected when the graph runs.
    """
    if not isinstance(cond, Tensor):
        return true_value if cond else false_value
    if isinstance(true_value, Tensor | int | float) and isinstance(false_value, Tensor | int | float):
        return select(cond.reshape(()), true_value, false_value)
    return true_value if bool(cond) else false_value


def where(condition, x=None, y=None):
    """`select(condition, x, y)`; with one argument, the indices of true entries (PyNative only)."""
    if x is None and y is None:
        return nonzero(condition, as_tuple=True)
    return select(condition, x, y)


def masked_fill(input_x, mask, value) -> Tensor:
    """`input_x` with entries where `mask` is true set to `value`."""
    return apply(A.MaskedFill, (input_x, mask, value))


def one_hot(indices, depth: int, on_value=1, off_value=0, axis: int = -1) -> Tensor:
    """One-hot encoding along a new axis of size `depth`."""
    if isinstance(depth, Tensor):
        depth = int(depth)
    return apply(A.OneHot, (indices, on_value, off_value), (int(depth), axis))


def flip(input, dims) -> Tensor:
    """Reverse the order along `dims`."""
    dims = (dims,) if isinstance(dims, int) else tuple(dims)
    return apply(A.Flip, (input,), (dims,))


def roll(input, shifts, dims=None) -> Tensor:
    """Rotate entries along `dims` by `shifts`."""
    key = lambda v: v if v is None or isinstance(v, int) else tuple(v)
    return apply(A.Roll, (input,), (key(shifts), key(dims)))


def pad(input_x, padding, mode: str = "constant", value=None) -> Tensor:
    """Pad the last axes: `padding` lists (left, right) pairs from the last axis backwards."""
    padding = tuple(int(p) for p in padding)
    if len(padding) % 2 or len(padding) // 2 > input_x.ndim:
        raise op_error("Pad", f"'padding' must hold pairs for at most {input_x.ndim} axes, but got {list(padding)}.")
    if mode not in ("constant", "reflect", "replicate", "circular"):
        raise op_error("Pad", f"'mode' must be constant, reflect, replicate or circular, but got {mode!r}.")
    pairs = [(0, 0)] * input_x.ndim
    for i in builtins.range(len(padding) // 2):
        pairs[input_x.ndim - 1 - i] = (padding[2 * i], padding[2 * i + 1])
    if builtins.any(lo < 0 or hi < 0 for lo, hi in pairs):
        spec = tuple(("s", -lo if lo < 0 else None, hi if hi < 0 else None, None) for lo, hi in pairs)
        input_x = apply(A.GetItem, (input_x,), (spec,))
        pairs = [(builtins.max(lo, 0), builtins.max(hi, 0)) for lo, hi in pairs]
    return apply(A.Pad, (input_x,), (tuple(pairs), mode, 0 if value is None else value))


def _creation_dtype(dtype, default=mstype.float32):
    return as_np_dtype(dtype if dtype is not None else default)


def zeros(size, dtype=None) -> Tensor:
    """A tensor of zeros (float32 unless `dtype`)."""
    return apply(A.Fill, (0,), (as_shape("Zeros", size), _creation_dtype(dtype)))


def ones(shape, dtype=None) -> Tensor:
    """A tensor of ones (float32 unless `dtype`)."""
    return apply(A.Fill, (1,), (as_shape("Ones", shape), _creation_dtype(dtype)))


def full(size, fill_value, *, dtype=None) -> Tensor:
    """A tensor of `size` filled with `fill_value` (dtype inferred from the value)."""
    if dtype is None:
        dtype = mstype.scalar_dtype(fill_value) if not isinstance(fill_value, Tensor) else fill_value.dtype
    return apply(A.Fill, (fill_value,), (as_shape("Full", size), as_np_dtype(dtype)))


def fill(type, shape, value) -> Tensor:
    """MindSpore's `fill(type, shape, value)`."""
    return apply(A.Fill, (value,), (as_shape("Fill", shape), as_np_dtype(type)))


def _cast(x, dtype):
    """`x` as `dtype`; `x` itself when it has that dtype already (`ops.cast`'s rule)."""
    if isinstance(x, Tensor) and x.dtype.np == as_np_dtype(dtype):  # (reads no pending value)
        return x
    return apply(REGISTRY["Cast"], (x,), (as_np_dtype(dtype),))


def zeros_like(input, *, dtype=None) -> Tensor:
    """Zeros with the shape (and dtype, unless given) of `input`."""
    out = apply(A.ZerosLike, (input,))
    return out if dtype is None else _cast(out, dtype)


def ones_like(input, *, dtype=None) -> Tensor:
    """Ones with the shape (and dtype, unless given) of `input`."""
    out = apply(A.OnesLike, (input,))
    return out if dtype is None else _cast(out, dtype)


def full_like(input, fill_value, *, dtype=None) -> Tensor:
    """`fill_value` with the shape (and dtype, unless given) of `input`."""
    out = apply(A.FullLike, (input, fill_value))
    return out if dtype is None else _cast(out, dtype)


def eye(n: int, m: int | None = None, dtype=None) -> Tensor:
    """An identity matrix of n rows and m (default n) columns."""
    return apply(A.Eye, (), (int(n), None if m is None else int(m), _creation_dtype(dtype)))


def arange(start=0, end=None, step=1, *, dtype=None) -> Tensor:
    """Evenly spaced values in [start, end); int64 for int arguments, float32 otherwise."""
    if end is None:
        start, end = 0, start
    vals = [v.item() if isinstance(v, Tensor) else v for v in (start, end, step)]
    if dtype is None:
        dtype = mstype.float32 if builtins.any(isinstance(v, float) for v in vals) else mstype.int64
    return apply(A.Range, (), (*vals, as_np_dtype(dtype)))


def _range_kind(value) -> str:
    """'int' or 'float': the kind of a Range bound (a Python number or a one-element Tensor)."""
    if isinstance(value, Tensor):
        return "float" if np.dtype(as_np_dtype(value.dtype)).kind == "f" else "int"
    return "float" if isinstance(value, float) else "int"


def range(start, end, step, maxlen: int = 1000000) -> Tensor:
    """MindSpore's `range`: start, start + step, ... before `end`; int64 when all three are integers, float32 when
    all three are floating-point, and an error when they mix (MindSpore's Range refuses that too) or when `step` is
    0 or points away from `end`. `maxlen` is the output size MindSpore's kernel allocates for; Kiln knows the size
    exactly, so it only checks that `maxlen` is a positive int (MindSpore's CPU returns longer ranges whole too)."""
    names = ("start", "end", "step")
    kinds = [_range_kind(v) for v in (start, end, step)]
    if len(set(kinds)) > 1:
        got = ", ".join(f"{n}={v!r} ({k})" for n, v, k in zip(names, (start, end, step), kinds, strict=True))
        raise op_error(
            "Range", f"'start', 'end' and 'step' must be all integers or all floats, but got {got}.", TypeError
        )
    if not isinstance(maxlen, int) or isinstance(maxlen, bool) or maxlen <= 0:
        raise op_error("Range", f"'maxlen' must be a positive int, but got {maxlen!r}.", ValueError)
    first, last, delta = (v.item() if isinstance(v, Tensor) else v for v in (start, end, step))
    if delta == 0:
        raise op_error("Range", f"'step' must not be 0 (start={first}, end={last}).", ValueError)
    if (last - first) * delta < 0:
        raise op_error(
            "Range",
            f"'step' {delta} leads away from 'end' {last} (start {first}): it must share the sign of end - start.",
            ValueError,
        )
    dtype = mstype.float32 if kinds[0] == "float" else mstype.int64
    return apply(A.Range, (), (first, last, delta, as_np_dtype(dtype)))


def linspace(start, end, steps: int) -> Tensor:
    """`steps` evenly spaced float32 values from `start` to `end` inclusive."""
    return apply(A.LinSpace, (start, end), (int(steps),))


def tril(input, diagonal: int = 0) -> Tensor:
    """Lower triangle of the last two axes."""
    return apply(A.Tril, (input,), (diagonal,))


def triu(input, diagonal: int = 0) -> Tensor:
    """Upper triangle of the last two axes."""
    return apply(A.Triu, (input,), (diagonal,))


def meshgrid(*inputs, indexing: str = "xy") -> tuple:
    """Coordinate grids from 1-D tensors."""
    if len(inputs) == 1 and isinstance(inputs[0], (list, tuple)):
        inputs = tuple(inputs[0])
    n = len(inputs)
    sizes = [t.shape[0] for t in inputs]
    out = []
    for i, t in enumerate(inputs):
        shape = [1] * n
        shape[i] = sizes[i]
        if indexing == "xy" and n >= 2 and i < 2:
            shape[0], shape[1] = shape[1], shape[0]
        full_shape = list(sizes)
        if indexing == "xy" and n >= 2:
            full_shape[0], full_shape[1] = full_shape[1], full_shape[0]
        out.append(broadcast_to(reshape(t, shape), full_shape))
    return tuple(out)


def repeat_interleave(input, repeats: int, axis: int | None = None) -> Tensor:
    """Repeat each element `repeats` times along `axis` (flattened when None)."""
    if axis is None:
        input, axis = reshape(input, (-1,)), 0
    axis %= input.ndim
    expanded = expand_dims(input, axis + 1)
    reps = [1] * expanded.ndim
    reps[axis + 1] = int(repeats)
    out = tile(expanded, reps)
    shape = list(input.shape)
    shape[axis] *= int(repeats)
    return reshape(out, shape)


def numel(input) -> int:
    """Number of elements."""
    return input.size


def size(input_x) -> int:
    """Number of elements."""
    return input_x.size


def shape(input_x) -> tuple:
    """The shape as a tuple of ints."""
    if not isinstance(input_x, Tensor):
        raise op_error("Shape", f"only a Tensor has a shape here; {type(input_x).__name__} was given.", TypeError)
    return input_x.shape


def rank(input_x) -> int:
    """Number of axes."""
    if not isinstance(input_x, Tensor):
        raise op_error("Rank", f"only a Tensor has a rank here; {type(input_x).__name__} was given.", TypeError)
    return input_x.ndim


# ---- data-dependent shapes: PyNative only, they read values on the host -----------
def nonzero(input, as_tuple: bool = False):
    """Indices of non-zero entries: an (n, ndim) int64 tensor, or a tuple of 1-D tensors."""
    idx = np.nonzero(np.asarray(input.asnumpy()))
    if as_tuple:
        return tuple(Tensor(i.astype(np.int64)) for i in idx)
    return Tensor(np.stack(idx, axis=-1).astype(np.int64))


def masked_select(input, mask) -> Tensor:
    """The 1-D tensor of entries of `input` where `mask` is true."""
    data, m = np.broadcast_arrays(input.asnumpy(), np.asarray(mask.asnumpy(), bool))
    flat = np.flatnonzero(m)
    return gather(reshape(broadcast_to(input, data.shape), (-1,)), Tensor(flat.astype(np.int64)), 0)


def unique_with_pad(x, pad_num) -> tuple[Tensor, Tensor]:
    """`unique` of a 1-D `x`, its values padded with `pad_num` to the length of `x`.

    Args:
        x: a 1-D Tensor.
        pad_num: the value of the padding (of x's dtype).

    Returns:
        (the distinct values in first-appearance order then the padding, each element's position in them).
    """
    if x.ndim != 1:
        raise op_error("UniqueWithPad", f"'x' must be 1-D, but got shape {tuple(x.shape)}.")
    values, idx = unique(x)
    pad = full((x.shape[0] - values.shape[0],), pad_num, dtype=values.dtype)
    return concat((values, pad), 0), idx


def unique(input):
    """The distinct values of `input` in the order they first appear (1-D), and for each element of `input` the
    position of its value in that list (shaped as `input`; int64 for int64 input, else int32, as MindSpore)."""
    data = np.asarray(input.asnumpy()).reshape(-1)
    _, first, inv = np.unique(data, return_index=True, return_inverse=True)
    order = np.argsort(first, kind="stable")  # sorted values -> first-appearance order
    rank = np.empty_like(order)
    rank[order] = np.arange(order.size)
    idx_dtype = np.int64 if data.dtype == np.int64 else np.int32
    # the values gathered from the input (not a constant): a gradient reaches each value's first occurrence
    out = gather(reshape(input, (-1,)), Tensor(np.sort(first).astype(np.int64)), 0)
    return out, Tensor(rank[inv.reshape(-1)].reshape(input.shape).astype(idx_dtype))


def contiguous(input) -> Tensor:
    """`input` in contiguous memory: Kiln's Tensors always are, so `input` itself."""
    return input


def unbind(input, dim: int = 0) -> tuple:
    """The slices of `input` along `dim`, that axis removed."""
    return unstack(input, dim)


def diagonal(input, offset: int = 0, dim1: int = 0, dim2: int = 1) -> Tensor:
    """The diagonal (shifted by `offset`) of each matrix formed by axes `dim1` and `dim2`, as the last axis."""
    return apply(prims_array.Diagonal, (input,), (int(offset), int(dim1), int(dim2)))


def make_tuple(*args) -> tuple:
    """The tuple of the arguments (MindSpore's MakeTuple)."""
    return tuple(args)


def argwhere(input) -> Tensor:
    """The (n, ndim) int64 indices of the non-zero elements (PyNative only: the count depends on values)."""
    return nonzero(input)


def flipud(input) -> Tensor:
    """Reverse axis 0."""
    return flip(input, (0,))


def fliplr(input) -> Tensor:
    """Reverse axis 1."""
    return flip(input, (1,))


def t(input) -> Tensor:
    """The transpose of a matrix (a 0-D or 1-D input comes back as it is)."""
    return input if input.ndim < 2 else transpose(input, (1, 0))


def row_stack(tensors) -> Tensor:
    """Stack tensors vertically (1-D ones become rows)."""
    return concat([reshape(x, (1, -1)) if x.ndim < 2 else x for x in tensors], 0)


def column_stack(tensors) -> Tensor:
    """Stack tensors as columns (1-D ones become columns)."""
    return concat([reshape(x, (-1, 1)) if x.ndim < 2 else x for x in tensors], 1)


def _t(x):
    return x if isinstance(x, Tensor) else Tensor(x)


def _atleast(n):
    def one(x):
        x = _t(x)
        if x.ndim >= n:
            return x
        shape = {0: (1,) * n, 1: ((1, x.shape[0], 1) if n == 3 else (1, x.shape[0])) if x.ndim == 1 else None}
        return reshape(x, shape[x.ndim]) if x.ndim < 2 else expand_dims(x, -1)

    def op(inputs):
        if isinstance(inputs, (list, tuple)):
            return tuple(one(x) for x in inputs)
        return one(inputs)

    op.__name__ = op.__qualname__ = f"atleast_{n}d"
    op.__doc__ = f"""`inputs` (a Tensor or a sequence of them) with at least {n} dimensions each.

    Args:
        inputs (Tensor | sequence of Tensor): the inputs.

    Returns:
        Tensor, or a tuple of Tensors for a sequence.
    """
    return op


atleast_1d, atleast_2d, atleast_3d = _atleast(1), _atleast(2), _atleast(3)


def cartesian_prod(*inputs) -> Tensor:
    """Cartesian product of 1-D tensors: one row per combination.

    Returns:
        Tensor of shape (prod of lengths, len(inputs)) (1-D for one input).
    """
    if len(inputs) == 1:
        return inputs[0]
    grids = meshgrid(*inputs, indexing="ij")
    return stack([reshape(g, (-1,)) for g in grids], 1)


def diag_embed(input, offset=0, dim1=-2, dim2=-1) -> Tensor:
    """Tensor whose diagonals (in dims `dim1`, `dim2`) are the last dimension of `input`.

    Args:
        input (Tensor): (..., n).
        offset (int): which diagonal (> 0 above the main one).
        dim1, dim2 (int): the dimensions of the output that hold the matrices.

    Returns:
        Tensor with one more dimension, (n + |offset|) square in `dim1`, `dim2`.
    """
    n = input.shape[-1]
    m = n + builtins.abs(offset)
    v = pad(input, (builtins.max(offset, 0), builtins.max(-offset, 0))) if offset else input
    mask = Tensor(np.eye(m, k=offset, dtype=bool))
    shape = (*input.shape[:-1], m, m)
    vals = broadcast_to(expand_dims(v, -2), shape)
    out = select(broadcast_to(mask, shape), vals, zeros(shape, input.dtype))
    nd = out.ndim
    d1, d2 = dim1 % nd, dim2 % nd
    order = [None] * nd
    order[d1], order[d2] = nd - 2, nd - 1
    rest = iter(builtins.range(nd - 2))
    order = [next(rest) if o is None else o for o in order]
    return transpose(out, tuple(order))


def diagflat(input, offset=0) -> Tensor:
    """2-D tensor with the flattened input on diagonal `offset`."""
    return diag_embed(reshape(input, (-1,)), offset)


def tensor_split(input, indices_or_sections, axis=0):
    """Split into `indices_or_sections` near-equal parts, or at the given indices (as NumPy's array_split).

    Returns:
        tuple of Tensors.
    """
    n = input.shape[axis]
    if isinstance(indices_or_sections, int):
        k = indices_or_sections
        if k <= 0:
            raise op_error("tensor_split", f"the number of sections must be positive, but got {k}.")
        q, r = divmod(n, k)
        sizes = [q + 1] * r + [q] * (k - r)
        bounds = np.cumsum([0, *sizes]).tolist()
    else:
        idx = [builtins.min(builtins.max(int(i) if i >= 0 else n + int(i), 0), n) for i in indices_or_sections]
        bounds = [0, *idx, n]
    out = []
    for lo, hi in zip(bounds[:-1], bounds[1:]):
        hi = builtins.max(hi, lo)
        out.append(narrow(input, axis, lo, hi - lo) if hi > lo else _empty_along(input, axis))
    return tuple(out)


def _empty_along(x, axis):
    shape = list(x.shape)
    shape[axis] = 0
    return zeros(tuple(shape), x.dtype)


def _split_dim(name, dim, min_rank):
    def op(input, indices_or_sections):
        if input.ndim < min_rank:
            raise op_error(name, f"the input must have at least {min_rank} dimensions, but got {input.ndim}.")
        return tensor_split(input, indices_or_sections, dim)

    op.__name__ = op.__qualname__ = name
    op.__doc__ = f"""Split along dimension {dim} into parts, or at indices.

    Args:
        input (Tensor): the input.
        indices_or_sections (int | sequence of int): the number of parts (sizes differing by at most one, the first
            ones larger, as MindSpore 2.10 splits where NumPy's `{name}` would refuse), or the split indices.

    Returns:
        tuple of Tensors.
    """
    return op


vsplit = _split_dim("vsplit", 0, 2)

dsplit = _split_dim("dsplit", 2, 3)


def hsplit(input, indices_or_sections):
    """Split along dimension 1 (dimension 0 for 1-D input).

    Returns:
        tuple of Tensors.
    """
    dim = 0 if input.ndim == 1 else 1
    return _split_dim("hsplit", dim, 1)(input, indices_or_sections)


def dstack(tensors) -> Tensor:
    """Stack along the third dimension (inputs made at least 3-D)."""
    return concat(atleast_3d(tuple(tensors)), 2)


def expand(input_x, size) -> Tensor:
    """Broadcast `input_x` to `size` (-1 keeps a dimension)."""
    if isinstance(size, Tensor):
        size = tuple(int(s) for s in size.asnumpy().reshape(-1))
    return broadcast_to(input_x, tuple(size))


def movedim(x, source, destination) -> Tensor:
    """Move dimensions `source` to `destination`."""
    return moveaxis(x, source, destination)


def swapdims(input, dim0, dim1) -> Tensor:
    """Swap two dimensions."""
    return swapaxes(input, dim0, dim1)


def ravel(input) -> Tensor:
    """Flatten to 1-D."""
    return reshape(input, (-1,))


def repeat_elements(x, rep, axis=0) -> Tensor:
    """Repeat each element `rep` times along `axis`."""
    return repeat_interleave(x, rep, axis)


def reverse(x, axis) -> Tensor:
    """Reverse along the dimensions in `axis`."""
    return flip(x, tuple(axis) if isinstance(axis, (list, tuple)) else (axis,))


def rot90(input, k, dims) -> Tensor:
    """Rotate by 90 degrees `k` times in the plane `dims` (from the first towards the second)."""
    d0, d1 = (d % input.ndim for d in dims)
    k = k % 4
    if k == 0:
        return input
    if k == 2:
        return flip(input, (d0, d1))
    if k == 1:
        return swapaxes(flip(input, (d1,)), d0, d1)
    return flip(swapaxes(input, d0, d1), (d1,))


def take(input, index) -> Tensor:
    """Elements of the flattened input at `index` (negative indices count from the end)."""
    flat = reshape(input, (-1,))
    idx = select(index < 0, index + input.size, index)
    return gather(flat, idx, 0)


def _tri_indices(row, col, offset, lower):
    r, c = np.tril_indices(row, offset, col) if lower else np.triu_indices(row, offset, col)
    return np.stack([r, c])


def tril_indices(row, col, offset=0, *, dtype=mstype.int64) -> Tensor:
    """(2, N) row and column indices of the lower triangle of a row x col matrix (diagonal `offset`)."""
    return Tensor(_tri_indices(row, col, offset, True), dtype)


def triu_indices(row, col, offset=0, *, dtype=mstype.int64) -> Tensor:
    """(2, N) row and column indices of the upper triangle of a row x col matrix (diagonal `offset`)."""
    return Tensor(_tri_indices(row, col, offset, False), dtype)


def fills(x, value) -> Tensor:
    """A tensor like `x` filled with `value`."""
    return full_like(x, value.asnumpy().item() if isinstance(value, Tensor) else value)


def index_add(x, indices, y, axis, use_lock=True, check_index_bound=True) -> Tensor:
    """`x` with the slices of `y` added at `indices` along `axis`."""
    axis = axis % x.ndim
    xt = moveaxis(x, axis, 0)
    yt = moveaxis(y, axis, 0)
    out = tensor_scatter_add(xt, expand_dims(indices, -1), yt)
    return moveaxis(out, 0, axis)


def inplace_index_add(var, indices, updates, axis) -> Tensor:
    """`var[..., indices, ...] += updates` along `axis`, written into the Parameter `var`."""

    return state.store(var, index_add(var, indices, updates, axis))


def slice_scatter(input, src, axis=0, start=None, end=None, step=1) -> Tensor:
    """`input` with the slice `start:end:step` along `axis` replaced by `src`."""
    n = input.shape[axis]
    positions = np.arange(n)[builtins.slice(start, end, step)]
    xt = moveaxis(input, axis, 0)
    st = moveaxis(src, axis, 0)
    out = tensor_scatter_update(xt, Tensor(positions.reshape(-1, 1).astype(np.int64)), st)
    return moveaxis(out, 0, axis)


def select_scatter(input, src, axis, index) -> Tensor:
    """`input` with the slice at `index` along `axis` replaced by `src`."""
    return slice_scatter(input, expand_dims(src, axis), axis, index, index + 1 if index != -1 else None)


def _param_update(var, value):
    """`value` written into `var` where it is a Parameter (MindSpore's in-place scatter ops), and returned."""
    if isinstance(var, Parameter):
        return state.store(var, value)
    return value


def scatter_nd_add(input_x, indices, updates, use_locking=False) -> Tensor:
    """Add `updates` at `indices` into the Parameter `input_x` (in place); returns the new value."""
    return _param_update(input_x, tensor_scatter_add(input_x, indices, updates))


def scatter_nd_update(input_x, indices, updates, use_locking=True) -> Tensor:
    """Write `updates` at `indices` into the Parameter `input_x` (in place); returns the new value."""
    return _param_update(input_x, tensor_scatter_update(input_x, indices, updates))


def scatter_nd_sub(input_x, indices, updates, use_locking: bool = False) -> Tensor:
    """Subtract `updates` at `indices` from the Parameter `input_x` (in place); returns the new value."""
    return _param_update(input_x, tensor_scatter_sub(input_x, indices, updates))


def scatter_nd_mul(input_x, indices, updates, use_locking: bool = False) -> Tensor:
    """Multiply the Parameter `input_x` by `updates` at `indices` (in place); returns the new value."""
    return _param_update(input_x, tensor_scatter_mul(input_x, indices, updates))


def scatter_nd_div(input_x, indices, updates, use_locking: bool = False) -> Tensor:
    """Divide the Parameter `input_x` by `updates` at `indices` (in place); returns the new value."""
    return _param_update(input_x, tensor_scatter_div(input_x, indices, updates))


def scatter_nd_max(input_x, indices, updates, use_locking: bool = False) -> Tensor:
    """The elementwise max of the Parameter `input_x` and `updates` at `indices` (in place); returns the new value."""
    return _param_update(input_x, tensor_scatter_max(input_x, indices, updates))


def scatter_nd_min(input_x, indices, updates, use_locking: bool = False) -> Tensor:
    """The elementwise min of the Parameter `input_x` and `updates` at `indices` (in place); returns the new value."""
    return _param_update(input_x, tensor_scatter_min(input_x, indices, updates))


def scatter_max(input_x, indices, updates) -> Tensor:
    """The elementwise max of the rows `indices` of the Parameter `input_x` and `updates` (in place)."""
    return _param_update(input_x, tensor_scatter_max(input_x, expand_dims(indices, -1), updates))


def scatter_min(input_x, indices, updates) -> Tensor:
    """The elementwise min of the rows `indices` of the Parameter `input_x` and `updates` (in place)."""
    return _param_update(input_x, tensor_scatter_min(input_x, expand_dims(indices, -1), updates))


def scatter_mul(input_x, indices, updates) -> Tensor:
    """Multiply the rows `indices` of the Parameter `input_x` by `updates` (in place; a repeated row by each)."""
    return _param_update(input_x, tensor_scatter_mul(input_x, expand_dims(indices, -1), updates))


def scatter_div(input_x, indices, updates) -> Tensor:
    """Divide the rows `indices` of the Parameter `input_x` by `updates` (in place; a repeated row by each)."""
    return _param_update(input_x, tensor_scatter_div(input_x, expand_dims(indices, -1), updates))


def scatter_update(input_x, indices, updates) -> Tensor:
    """Write `updates` into the rows `indices` of the Parameter `input_x` (in place); returns the new value."""
    return _param_update(input_x, tensor_scatter_update(input_x, expand_dims(indices, -1), updates))


def combinations(input, r=2, with_replacement=False) -> Tensor:
    """All length-`r` combinations of the elements of a 1-D tensor, one per row."""

    n = input.shape[0]
    gen = itertools.combinations_with_replacement if with_replacement else itertools.combinations
    idx = np.asarray(list(gen(builtins.range(n), r)), np.int64).reshape(-1, r)
    if idx.size == 0:
        return zeros((0,), input.dtype) if r != 1 else input
    return reshape(gather(input, Tensor(idx.reshape(-1)), 0), idx.shape)


def mirror_pad(input_x, paddings, mode) -> Tensor:
    """Pad with reflections: `mode` 'REFLECT' (edge not repeated) or 'SYMMETRIC' (edge repeated).

    Args:
        input_x (Tensor): the input.
        paddings (Tensor | sequence): (ndim, 2) before/after amounts per dimension.
        mode (str): 'REFLECT' or 'SYMMETRIC'.

    Returns:
        Tensor.
    """
    pads = paddings.asnumpy().tolist() if isinstance(paddings, Tensor) else [list(p) for p in paddings]
    out = input_x
    for axis, (before, after) in enumerate(pads):
        n = out.shape[axis]
        if before == 0 and after == 0:
            continue
        if mode.upper() == "REFLECT":
            left = [before - i for i in builtins.range(before)]
            right = [n - 2 - i for i in builtins.range(after)]
        else:
            left = [before - 1 - i for i in builtins.range(before)]
            right = [n - 1 - i for i in builtins.range(after)]
        idx = np.asarray(left + list(builtins.range(n)) + right, np.int64)
        out = gather(out, Tensor(idx), axis)
    return out


def strided_slice(input_x, begin, end, strides, begin_mask=0, end_mask=0, ellipsis_mask=0, new_axis_mask=0,
                  shrink_axis_mask=0) -> Tensor:  # fmt: skip
    """`input_x[begin:end:strides]` with MindSpore's bit masks (bit i concerns slice entry i).

    Args:
        input_x (Tensor): the input.
        begin, end, strides (tuple of int): the slice, one entry per indexed dimension.
        begin_mask, end_mask: bit i set: ignore begin[i] / end[i] (take the whole range).
        ellipsis_mask: bit i set: entry i is an ellipsis.
        new_axis_mask: bit i set: entry i inserts a new dimension of size 1.
        shrink_axis_mask: bit i set: entry i indexes a single element and drops the dimension.

    Returns:
        Tensor.
    """
    key = []
    for i, (b, e, s) in enumerate(zip(begin, end, strides)):
        bit = 1 << i
        if ellipsis_mask & bit:
            key.append(Ellipsis)
        elif new_axis_mask & bit:
            key.append(None)
        elif shrink_axis_mask & bit:
            key.append(int(b))
        else:
            key.append(builtins.slice(None if begin_mask & bit else int(b), None if end_mask & bit else int(e),
                                      int(s)))  # fmt: skip
    return input_x[tuple(key)]


def tensor_slice(input, begin, size) -> Tensor:
    """`ops.slice`: the block starting at `begin` with `size` (-1: to the end)."""
    return slice(input, begin, size)


def space_to_batch_nd(input_x, block_size, paddings) -> Tensor:
    """Move blocks of the spatial dimensions (after N, C for NCHW) into the batch dimension.

    Args:
        input_x (Tensor): (N, C, *spatial).
        block_size (int | sequence of int): block per spatial dimension.
        paddings (sequence of (before, after)): zero padding per spatial dimension.

    Returns:
        Tensor (N * prod(block), C, *(padded spatial / block)).
    """
    m = len(paddings)
    blocks = [block_size] * m if isinstance(block_size, int) else list(block_size)
    widths = []
    for before, after in reversed([tuple(p) for p in paddings]):
        widths += [int(before), int(after)]
    x = pad(input_x, tuple(widths)) if builtins.any(widths) else input_x
    n, c = x.shape[:2]
    spatial = x.shape[2:]
    shape = [n, c]
    for s, b in zip(spatial, blocks):
        shape += [s // b, b]
    x = reshape(x, tuple(shape))
    block_axes = [3 + 2 * i for i in builtins.range(m)]
    grid_axes = [2 + 2 * i for i in builtins.range(m)]
    x = transpose(x, (*block_axes, 0, 1, *grid_axes))
    return reshape(x, (n * int(np.prod(blocks)), c, *(s // b for s, b in zip(spatial, blocks))))


def batch_to_space_nd(input_x, block_shape, crops) -> Tensor:
    """The inverse of `space_to_batch_nd`: move batch blocks back into the spatial dimensions, then crop."""
    m = len(crops)
    blocks = [block_shape] * m if isinstance(block_shape, int) else list(block_shape)
    nb, c = input_x.shape[:2]
    spatial = input_x.shape[2:]
    n = nb // int(np.prod(blocks))
    x = reshape(input_x, (*blocks, n, c, *spatial))
    order = [m, m + 1]
    for i in builtins.range(m):
        order += [m + 2 + i, i]
    x = transpose(x, tuple(order))
    x = reshape(x, (n, c, *(s * b for s, b in zip(spatial, blocks))))
    for i, (lo, hi) in enumerate(crops):
        size = x.shape[2 + i] - int(lo) - int(hi)
        x = narrow(x, 2 + i, int(lo), size)
    return x


def put_(input, index, source, accumulate=False) -> Tensor:
    """Write (or add) `source` at the flat positions `index` of `input`, in place."""
    flat = reshape(input, (-1,))
    idx = reshape(select(index < 0, index + input.size, index), (-1, 1))
    src = reshape(source, (-1,))
    out = tensor_scatter_add(flat, idx, src) if accumulate else tensor_scatter_update(flat, idx, src)
    return input.assign_value(reshape(out, input.shape))


def reshape_(input, shape) -> Tensor:
    """Reshape `input` in place."""
    return input.assign_value(reshape(input, shape))


def tensor_range(start, end, step) -> Tensor:
    """`ops.range`."""
    return range(start, end, step)


def unique_consecutive(input, return_inverse=False, return_counts=False, dim=None):
    """Collapse runs of equal consecutive elements (of the flattened input when `dim` is None, else of slices
    along `dim`). The output's length depends on the values: PyNative only.

    Returns:
        Tensor, or a tuple with the inverse indices and/or the run lengths.
    """
    x = input.asnumpy()
    if dim is None:
        flat = x.reshape(-1)
        change = np.ones(flat.shape[0], bool)
        change[1:] = flat[1:] != flat[:-1]
        inverse = (np.cumsum(change) - 1).reshape(x.shape)
    else:
        moved = np.moveaxis(x, dim, 0)
        change = np.ones(moved.shape[0], bool)
        change[1:] = np.any((moved[1:] != moved[:-1]).reshape(moved.shape[0] - 1, -1), axis=1)
        inverse = np.cumsum(change) - 1
    starts = np.nonzero(change)[0]
    counts = np.diff(np.append(starts, change.shape[0]))
    # the kept values gathered from the input (not a constant): a gradient reaches the first of each run
    kept = Tensor(starts.astype(np.int64))
    res = [gather(reshape(input, (-1,)), kept, 0) if dim is None else gather(input, kept, dim)]
    if return_inverse:
        res.append(Tensor(inverse.astype(np.int64)))
    if return_counts:
        res.append(Tensor(counts.astype(np.int64)))
    return res[0] if len(res) == 1 else tuple(res)


def invert_permutation(input_x) -> Tensor:
    """The inverse of a permutation of 0..n-1."""
    n = input_x.shape[0]
    return tensor_scatter_update(zeros((n,), input_x.dtype), expand_dims(input_x, -1),
                                       arange(0, n, dtype=input_x.dtype))  # fmt: skip


def depth_to_space(x, block_size) -> Tensor:
    """NCHW: move blocks of channels into (block_size x block_size) spatial blocks."""
    n, c, h, w = x.shape
    b = block_size
    x = reshape(x, (n, b, b, c // (b * b), h, w))
    x = transpose(x, (0, 3, 4, 1, 5, 2))
    return reshape(x, (n, c // (b * b), h * b, w * b))


def space_to_depth(x, block_size) -> Tensor:
    """NCHW: move (block_size x block_size) spatial blocks into channels (the inverse of depth_to_space)."""
    n, c, h, w = x.shape
    b = block_size
    x = reshape(x, (n, c, h // b, b, w // b, b))
    x = transpose(x, (0, 3, 5, 1, 2, 4))
    return reshape(x, (n, c * b * b, h // b, w // b))


def matrix_diag(x, k=0, num_rows=-1, num_cols=-1, padding_value=0, align="RIGHT_LEFT") -> Tensor:
    """Matrices with `x`'s last dimension on diagonal `k` (or its rows on the band k = (lo, hi)) and `padding_value`
    elsewhere.

    Args:
        x (Tensor): (..., n) diagonals; for a band k = (lo, hi), (..., hi - lo + 1, n), diagonal hi first.
        k (int | Tensor): the diagonal (> 0 above the main one), or a band (lo, hi).
        num_rows, num_cols (int | Tensor): the matrix size (-1: the smallest that holds the diagonals; square when
            both are -1).
        padding_value (number | Tensor): the value off the diagonals.
        align (str): how a band's shorter diagonals sit in their rows of `x` (see `matrix_set_diag`).

    Returns:
        Tensor (..., num_rows, num_cols).
    """
    lo, hi = _diagonal_band("MatrixDiagV3", k)
    rows = int(num_rows.asnumpy()) if isinstance(num_rows, Tensor) else int(num_rows)
    cols = int(num_cols.asnumpy()) if isinstance(num_cols, Tensor) else int(num_cols)
    if lo != hi:
        return _band_matrix(x, lo, hi, rows, cols, padding_value, align)
    k = lo
    n = x.shape[-1]
    rows = n + builtins.abs(k) if rows == -1 else rows
    cols = n + builtins.abs(k) if cols == -1 else cols
    i, j = np.arange(rows)[:, None], np.arange(cols)[None, :]
    on = np.broadcast_to(j - i == k, (rows, cols))
    pos = np.where(on, np.minimum(np.broadcast_to(i if k >= 0 else j, (rows, cols)), n - 1), 0).astype(np.int64)
    vals = reshape(gather(x, Tensor(pos.reshape(-1)), x.ndim - 1), (*x.shape[:-1], rows, cols))
    pad = padding_value.astype(x.dtype) if isinstance(padding_value, Tensor) else Tensor(padding_value, x.dtype)
    return select(broadcast_to(Tensor(on), vals.shape), vals, broadcast_to(pad, vals.shape))


def matrix_diag_part(x, k, padding_value, align="RIGHT_LEFT") -> Tensor:
    """Diagonal `k` of the matrices `x` (..., M, N), or the band of diagonals k = (lo, hi).

    Args:
        x (Tensor): the matrices.
        k (int | Tensor): the diagonal (> 0 above the main one), or a band (lo, hi).
        padding_value (number | Tensor): what fills a band's shorter diagonals.
        align (str): where a band's shorter diagonals sit in their rows (see `matrix_set_diag`).

    Returns:
        Tensor (..., length of the diagonal); for a band (..., hi - lo + 1, longest length), diagonal hi first.
    """
    lo, hi = _diagonal_band("MatrixDiagPartV3", k)
    if lo == hi:
        return diagonal(x, lo, -2, -1)
    if align not in _ALIGNS:
        raise op_error("MatrixDiagPartV3", f"align must be one of {list(_ALIGNS)}, got {align!r}.")
    rows, cols = x.shape[-2], x.shape[-1]
    if not (-rows < lo and hi < cols):
        raise op_error("MatrixDiagPartV3", f"k = ({lo}, {hi}) must lie in ({-rows}, {cols}) for matrices of shape "
                       f"({rows}, {cols}).")  # fmt: skip
    on, src, max_len = _band_positions(rows, cols, lo, hi, align)
    count = hi - lo + 1
    where = np.full(count * max_len, -1, np.int64)  # each slot of the result: its matrix element, or -1 (padding)
    where[src[on]] = np.flatnonzero(on.reshape(-1))
    flat = reshape(x, (*x.shape[:-2], rows * cols))
    picked = gather(flat, Tensor(np.maximum(where, 0)), flat.ndim - 1)
    pad = padding_value.astype(x.dtype) if isinstance(padding_value, Tensor) else Tensor(padding_value, x.dtype)
    out = select(broadcast_to(Tensor(where >= 0), picked.shape), picked, broadcast_to(pad, picked.shape))
    return reshape(out, (*x.shape[:-2], count, max_len))


def move_to(input, to="CPU", blocking=True) -> Tensor:
    """`input` on device `to`: Kiln keeps every tensor on the one device of the context, so `input` itself."""
    if to not in ("CPU", "GPU", "Ascend", "cpu", "gpu"):
        raise ValueError(f"move_to: 'to' must be 'CPU', 'GPU' or 'Ascend', but got {to!r}.")
    return input


_ALIGNS = ("RIGHT_LEFT", "LEFT_RIGHT", "LEFT_LEFT", "RIGHT_RIGHT")


def _diagonal_band(op: str, k) -> tuple[int, int]:
    """(lowest, highest) diagonal of `k`: an int, or a Tensor/sequence of one or two ints."""
    whole = (int, np.integer)
    ks = k.asnumpy().reshape(-1).tolist() if isinstance(k, Tensor) else [k] if isinstance(k, whole) else list(k)
    if not 1 <= len(ks) <= 2 or not builtins.all(isinstance(v, whole) and not isinstance(v, bool) for v in ks):
        raise op_error(op, f"k must be an int or one or two ints (a diagonal band), got {ks}.")
    lo, hi = int(ks[0]), int(ks[-1])
    if lo > hi:
        raise op_error(op, f"k[0] must not exceed k[1], got k = {ks}.")
    return lo, hi


def _band_positions(rows: int, cols: int, lo: int, hi: int, align: str) -> tuple[np.ndarray, np.ndarray, int]:
    """For a (rows, cols) matrix and diagonals lo..hi: which elements lie on them (bool (rows, cols)), each one's
    flat index into the (hi - lo + 1, max_len) diagonals array (diagonal hi first), and max_len. `align` says how
    a diagonal shorter than max_len sits in its row: superdiagonals by its first word, subdiagonals by its second."""
    max_len = builtins.min(rows + builtins.min(hi, 0), cols - builtins.max(lo, 0))
    on = np.zeros((rows, cols), bool)
    src = np.zeros((rows, cols), np.int64)
    super_left, sub_left = (word == "LEFT" for word in align.split("_"))
    for d in builtins.range(lo, hi + 1):
        length = builtins.min(rows + builtins.min(d, 0), cols - builtins.max(d, 0))
        if length <= 0:
            continue
        left = super_left if d >= 0 else sub_left
        p = np.arange(length)
        i, j = p + builtins.max(-d, 0), p + builtins.max(d, 0)
        on[i, j] = True
        src[i, j] = (hi - d) * max_len + p + (0 if left else max_len - length)
    return on, src, max_len


def matrix_set_diag(x, diagonal, k=0, align: str = "RIGHT_LEFT") -> Tensor:
    """`x` with diagonal `k` (or the band of diagonals k[0]..k[1]) of its matrices replaced by `diagonal`.

    Args:
        x (Tensor): (..., M, N) matrices.
        diagonal (Tensor): (..., max_len) for one diagonal, (..., k[1] - k[0] + 1, max_len) for a band
            (highest diagonal first), max_len = min(M + min(k[1], 0), N - max(k[0], 0)).
        k (int | Tensor): the diagonal (> 0 above the main one), or a pair (lowest, highest).
        align (str): how a diagonal shorter than max_len sits in its row of `diagonal`: "RIGHT_LEFT" (superdiagonals
            right, subdiagonals left), "LEFT_RIGHT", "LEFT_LEFT" or "RIGHT_RIGHT".

    Returns:
        Tensor of x's shape, in the dtype x and diagonal promote to.
    """
    op = "MatrixSetDiagV3"
    if not isinstance(x, Tensor) or not isinstance(diagonal, Tensor):
        raise op_error(op, "x and diagonal must be Tensors.", TypeError)
    if align not in _ALIGNS:
        raise op_error(op, f"align must be one of {list(_ALIGNS)}, got {align!r}.")
    if x.ndim < 2:
        raise op_error(op, f"x must have at least 2 dimensions (matrices), got shape {tuple(x.shape)}.")
    if diagonal.dtype != x.dtype:  # the two promote to one dtype, as a binary op's operands
        common = mstype.promote(x.dtype, diagonal.dtype)
        x, diagonal = x.astype(common), diagonal.astype(common)
    rows, cols = x.shape[-2], x.shape[-1]
    lo, hi = _diagonal_band(op, k)
    if not (-rows < lo and hi < cols):
        raise op_error(op, f"k = ({lo}, {hi}) must lie in ({-rows}, {cols}) for matrices of shape ({rows}, {cols}).")
    on, src, max_len = _band_positions(rows, cols, lo, hi, align)
    count = hi - lo + 1
    want = (*x.shape[:-2], *((count,) if count > 1 else ()), max_len)
    if tuple(diagonal.shape) != want:
        raise op_error(op, f"diagonal must have shape {want} for x of shape {tuple(x.shape)} and k = ({lo}, {hi}), "
                       f"got {tuple(diagonal.shape)}.")  # fmt: skip
    flat = reshape(diagonal, (*x.shape[:-2], count * max_len))
    values = reshape(gather(flat, Tensor(src.reshape(-1)), flat.ndim - 1), x.shape)
    return select(broadcast_to(Tensor(on), x.shape), values, x)


def _band_matrix(x, lo: int, hi: int, rows: int, cols: int, padding_value, align: str) -> Tensor:
    """matrix_diag of a band of diagonals lo..hi: `x` (..., hi - lo + 1, max_len) written onto matrices."""
    op = "MatrixDiagV3"
    if align not in _ALIGNS:
        raise op_error(op, f"align must be one of {list(_ALIGNS)}, got {align!r}.")
    count, max_len = hi - lo + 1, x.shape[-1]
    if x.ndim < 2 or x.shape[-2] != count:
        raise op_error(op, f"a band k = ({lo}, {hi}) needs x of shape (..., {count}, n), got {tuple(x.shape)}.")
    least_rows, least_cols = max_len - builtins.min(hi, 0), max_len + builtins.max(lo, 0)
    if rows == -1 and cols == -1:
        rows = cols = builtins.max(least_rows, least_cols)
    rows, cols = least_rows if rows == -1 else rows, least_cols if cols == -1 else cols
    on, src, want = _band_positions(rows, cols, lo, hi, align)
    if want != max_len:
        raise op_error(op, f"the band k = ({lo}, {hi}) of ({rows}, {cols}) matrices has diagonals of at most {want} "
                       f"entries, but x gives {max_len}.")  # fmt: skip
    flat = reshape(x, (*x.shape[:-2], count * max_len))
    values = reshape(gather(flat, Tensor(src.reshape(-1)), flat.ndim - 1), (*x.shape[:-2], rows, cols))
    pad = padding_value.astype(x.dtype) if isinstance(padding_value, Tensor) else Tensor(padding_value, x.dtype)
    return select(broadcast_to(Tensor(on), values.shape), values, broadcast_to(pad, values.shape))
