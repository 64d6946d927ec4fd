"""Functional array ops: shapes, joins and splits, gather/scatter, creation."""

from __future__ import annotations

import builtins
import math

import numpy as np

from kiln._core import dtype as mstype
from kiln._core.tensor import Tensor
from kiln._prims import array as A
from kiln.ops._helpers import REGISTRY, apply, as_np_dtype, as_shape, op_error

__all__ = [
    "reshape", "view", "transpose", "permute", "swapaxes", "moveaxis", "expand_dims", "unsqueeze", "squeeze",
    "flatten", "concat", "cat", "stack", "split", "chunk", "unstack", "unbind", "tile", "broadcast_to", "gather",
    "gather_elements", "gather_d", "gather_nd", "scatter_nd", "tensor_scatter_update", "tensor_scatter_add",
    "tensor_scatter_max", "tensor_scatter_min", "tensor_scatter_elements", "scatter", "scatter_add", "slice",
    "select", "where", "masked_fill", "one_hot", "flip", "roll", "pad", "zeros", "ones", "full", "fill",
    "zeros_like", "ones_like", "full_like", "eye", "arange", "range", "linspace", "tril", "triu", "meshgrid",
    "narrow", "numel", "size", "shape", "rank", "repeat_interleave", "masked_select", "nonzero", "unique",
    "index_select", "hstack", "vstack",
]  # fmt: skip


def reshape(input, shape) -> Tensor:
    """A tensor with the same data and a new `shape` (one entry may be -1)."""
    return apply(A.Reshape, (input,), (as_shape("Reshape", shape),))


def view(input, *shape) -> Tensor:
    """`reshape` with the shape given as arguments or as one tuple."""
    if len(shape) == 1 and not isinstance(shape[0], int):
        shape = shape[0]
    return reshape(input, shape)


def transpose(input, input_perm) -> Tensor:
    """Permute the axes of `input` by `input_perm`."""
    return apply(A.Transpose, (input,), (tuple(int(p) for p in input_perm),))


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
    """Insert a size-1 axis at `axis`."""
    return apply(A.ExpandDims, (input_x,), (axis,))


unsqueeze = expand_dims


def squeeze(input, axis=None) -> Tensor:
    """Remove size-1 axes (all of them, or those in `axis`; listed axes of another size stay, as in MindSpore)."""
    axes = () if axis is None else ((axis,) if isinstance(axis, int) else tuple(axis))
    if axes:
        nd, shape = input.ndim, input.shape
        axes = tuple(a for a in axes if not -nd <= a < nd or shape[a] == 1)  # bad axes still reach the check
        if not axes:
            return reshape(input, shape)
    return apply(A.Squeeze, (input,), (axes,))


def flatten(input, order: str = "C", *, start_dim: int = 1, end_dim: int = -1) -> Tensor:
    """Merge axes start_dim..end_dim into one (MindSpore's default keeps the batch axis)."""
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
    """Join a tuple of same-shaped tensors along a new axis."""
    return apply(A.Stack, tuple(tensors), (axis,))


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
    return apply(A.Split, (tensor,), (axis, tuple(sections)))


def chunk(input, chunks: int, axis: int = 0) -> tuple:
    """Split into `chunks` nearly equal parts."""
    return split(input, -(-input.shape[axis] // chunks), axis)


def unstack(input_x, axis: int = 0) -> tuple:
    """Split along `axis` into tensors with that axis removed."""
    return apply(A.Unstack, (input_x,), (axis,))


unbind = unstack


def tile(input, dims) -> Tensor:
    """Repeat `input` `dims[i]` times along axis i."""
    return apply(A.Tile, (input,), (tuple(int(d) for d in dims),))


def broadcast_to(input, shape) -> Tensor:
    """Broadcast to `shape` (-1 keeps the input's size)."""
    return apply(A.BroadcastTo, (input,), (as_shape("BroadcastTo", shape),))


def gather(input_params, input_indices, axis: int, batch_dims: int = 0) -> Tensor:
    """Take slices of `input_params` along `axis` at `input_indices`."""
    return apply(A.Gather, (input_params, input_indices), (axis, batch_dims))


def index_select(input, axis: int, index) -> Tensor:
    """Select entries along `axis` by a 1-D index tensor."""
    return gather(input, index, axis)


def gather_elements(input, dim: int, index) -> Tensor:
    """out[i][j] = input[index[i][j]][j] for dim 0 (and likewise for other dims)."""
    return apply(A.GatherD, (input, index), (dim,))


def gather_d(x, dim: int, index) -> Tensor:
    """Alias of `gather_elements`."""
    return gather_elements(x, dim, index)


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
    return apply(A.GetItem, (input,), (spec,))


def select(cond, x, y) -> Tensor:
    """Elementwise `x` where `cond` is true, else `y`."""
    return apply(A.Select, (cond, x, y))


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
        dtype = mstype.pytype_to_dtype(fill_value) if not isinstance(fill_value, Tensor) else fill_value.dtype
    return apply(A.Fill, (fill_value,), (as_shape("Full", size), as_np_dtype(dtype)))


def fill(type, shape, value) -> Tensor:
    """MindSpore's `fill(type, shape, value)`."""
    return apply(A.Fill, (value,), (as_shape("Fill", shape), as_np_dtype(type)))


def _cast(x, dtype):
    if isinstance(x, Tensor) and x._data.dtype == as_np_dtype(dtype):
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


def range(start, end, step) -> Tensor:
    """MindSpore's `range(start, end, step)` (same as `arange`)."""
    return arange(start, end, step)


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
    return input_x.shape


def rank(input_x) -> int:
    """Number of axes."""
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


def unique(input):
    """The distinct values of `input` in the order they first appear (1-D), and for each element of `input` the
    position of its value in that list (shaped as `input`; int64 for int64 input, else int32, as MindSpore)."""
    data = np.asarray(input.asnumpy()).reshape(-1)
    _, first, inv = np.unique(data, return_index=True, return_inverse=True)
    order = np.argsort(first, kind="stable")  # sorted values -> first-appearance order
    rank = np.empty_like(order)
    rank[order] = np.arange(order.size)
    idx_dtype = np.int64 if data.dtype == np.int64 else np.int32
    out = Tensor(data[np.sort(first)])
    return out, Tensor(rank[inv.reshape(-1)].reshape(input.shape).astype(idx_dtype))
