"""Shape and layout of `kiln.numpy`: reshaping, transposing, joining, splitting, flipping, padding, indexing and
selecting, and the set operations."""

from __future__ import annotations

import builtins

import numpy as np

from kiln import ops
from kiln._core import dtype as mstype
from kiln._core.tensor import Tensor
from kiln.numpy._utils import axes_of, axis_of, cast, finish, is_int, shape_of, to_tensor, to_tensors

__all__ = [
    "reshape", "ravel", "transpose", "swapaxes", "moveaxis", "rollaxis", "expand_dims", "squeeze", "broadcast_to",
    "broadcast_arrays", "concatenate", "stack", "hstack", "vstack", "dstack", "column_stack", "row_stack", "append",
    "split", "array_split", "hsplit", "vsplit", "dsplit", "flip", "fliplr", "flipud", "rot90", "roll", "repeat",
    "tile", "take", "take_along_axis", "choose", "select", "where", "pad", "atleast_1d", "atleast_2d", "atleast_3d",
    "diagonal", "trace", "unique", "unravel_index", "ravel_multi_index", "apply_along_axis", "apply_over_axes",
    "piecewise", "array_str", "isscalar", "argwhere", "intersect1d", "setdiff1d", "union1d", "nonzero",
    "flatnonzero", "compress", "sort", "argsort", "ndim", "shape",
]  # fmt: skip


def reshape(x, new_shape) -> Tensor:
    """`x` with shape `new_shape` (one entry may be -1).

    Args:
        x (Tensor | list): the input.
        new_shape (int | tuple): the new shape.

    Returns:
        Tensor.
    """
    return ops.reshape(to_tensor(x), shape_of(new_shape))


def ravel(x) -> Tensor:
    """`x` flattened to 1-D."""
    return ops.reshape(to_tensor(x), (-1,))


def transpose(a, axes=None) -> Tensor:
    """`a` with its axes permuted (reversed by default).

    Args:
        a (Tensor | list): the input.
        axes (tuple | None): the permutation.

    Returns:
        Tensor.
    """
    a = to_tensor(a)
    perm = tuple(range(a.ndim - 1, -1, -1)) if axes is None else tuple(axis_of(x, a.ndim) for x in axes)
    return ops.transpose(a, perm)


def swapaxes(x, axis1: int, axis2: int) -> Tensor:
    """`x` with axes `axis1` and `axis2` interchanged."""
    x = to_tensor(x)
    perm = list(range(x.ndim))
    i, j = axis_of(axis1, x.ndim), axis_of(axis2, x.ndim)
    perm[i], perm[j] = perm[j], perm[i]
    return ops.transpose(x, tuple(perm))


def moveaxis(a, source, destination) -> Tensor:
    """`a` with axes `source` (int or tuple) moved to positions `destination`."""
    a = to_tensor(a)
    src = (source,) if isinstance(source, int) else tuple(source)
    dst = (destination,) if isinstance(destination, int) else tuple(destination)
    if len(src) != len(dst):
        raise ValueError("kiln.numpy.moveaxis: 'source' and 'destination' must have the same number of elements.")
    src = tuple(axis_of(s, a.ndim) for s in src)
    dst = tuple(axis_of(d, a.ndim) for d in dst)
    rest = [i for i in range(a.ndim) if i not in src]
    for d, s in sorted(zip(dst, src, strict=True)):
        rest.insert(d, s)
    return ops.transpose(a, tuple(rest))


def rollaxis(x, axis: int, start: int = 0) -> Tensor:
    """`x` with `axis` moved to lie before position `start`."""
    x = to_tensor(x)
    n = x.ndim
    axis = axis_of(axis, n)
    if not -n <= start <= n:
        raise ValueError(f"kiln.numpy.rollaxis: 'start' must be in [{-n}, {n}], but got {start}.")
    start = start % (n + 1) if start < 0 else start
    if axis < start:
        start -= 1
    if axis == start:
        return x
    perm = [i for i in range(n) if i != axis]
    perm.insert(start, axis)
    return ops.transpose(x, tuple(perm))


def expand_dims(a, axis) -> Tensor:
    """`a` with new axes of length 1 at positions `axis` (int or tuple) of the result."""
    a = to_tensor(a)
    axes = (axis,) if isinstance(axis, int) else tuple(axis)
    nd = a.ndim + len(axes)
    axes = sorted(axis_of(x, nd) for x in axes)
    shape = list(a.shape)
    for ax in axes:
        shape.insert(ax, 1)
    return ops.reshape(a, tuple(shape))


def squeeze(a, axis=None) -> Tensor:
    """`a` without its axes of length 1 (or only those in `axis`)."""
    a = to_tensor(a)
    if axis is None:
        return ops.reshape(a, tuple(s for s in a.shape if s != 1))
    axes = axes_of(axis, a.ndim)
    for ax in axes:
        if a.shape[ax] != 1:
            raise ValueError(f"kiln.numpy.squeeze: axis {ax} has length {a.shape[ax]}, not 1.")
    return ops.reshape(a, tuple(s for i, s in enumerate(a.shape) if i not in axes))


def broadcast_to(array, shape) -> Tensor:
    """`array` broadcast to `shape`."""
    return ops.broadcast_to(to_tensor(array), shape_of(shape))


def broadcast_arrays(*args) -> list:
    """The inputs broadcast against each other (a list of Tensors)."""
    ts = to_tensors(*args)
    shape = tuple(np.broadcast_shapes(*(tuple(t.shape) for t in ts)))
    return [ops.broadcast_to(t, shape) for t in ts]


def _promoted(arrays) -> list[Tensor]:
    ts = [to_tensor(a) for a in arrays]
    if not ts:
        raise ValueError("kiln.numpy: need at least one array to join.")
    dt = ts[0].dtype
    for t in ts[1:]:
        dt = mstype.promote(dt, t.dtype)
    return [cast(t, dt) for t in ts]


def concatenate(arrays, axis: int | None = 0) -> Tensor:
    """The arrays joined along an existing `axis` (None: flattened first).

    Args:
        arrays (Tensor | list | tuple): the arrays; a single Tensor is split along its first axis.
        axis (int | None): the axis.

    Returns:
        Tensor.
    """
    if isinstance(arrays, Tensor):
        arrays = ops.unstack(arrays, 0)
    ts = _promoted(arrays)
    if axis is None:
        return ops.concat([ops.reshape(t, (-1,)) for t in ts], 0)
    return ops.concat(ts, axis_of(axis, ts[0].ndim))


def stack(arrays, axis: int = 0) -> Tensor:
    """The arrays joined along a new `axis` (a lone Tensor: its rows, as in NumPy and mindspore.numpy)."""
    if isinstance(arrays, Tensor):
        arrays = ops.unstack(arrays, 0)
    ts = _promoted(arrays)
    return ops.stack(ts, axis_of(axis, ts[0].ndim + 1))


def _atleast(a: Tensor, n: int) -> Tensor:
    if a.ndim >= n:
        return a
    if n == 3 and a.ndim == 2:
        return ops.reshape(a, (*a.shape, 1))
    if n == 3 and a.ndim == 1:
        return ops.reshape(a, (1, a.shape[0], 1))
    return ops.reshape(a, (1,) * (n - a.ndim) + tuple(a.shape))


def _atleast_fn(n: int):
    def f(*arys):
        out = [_atleast(to_tensor(a), n) for a in arys]
        return out[0] if len(out) == 1 else out

    f.__name__ = f.__qualname__ = f"atleast_{n}d"
    f.__doc__ = f"""The inputs viewed with at least {n} dimensions (one Tensor, or a list for several).

    Args:
        *arys: Tensors, numbers or lists.

    Returns:
        Tensor or list of Tensors.
    """
    return f


atleast_1d, atleast_2d, atleast_3d = _atleast_fn(1), _atleast_fn(2), _atleast_fn(3)


def hstack(tup) -> Tensor:
    """The arrays joined column-wise (along axis 1; axis 0 for 1-D inputs); a lone Tensor as it is."""
    if isinstance(tup, Tensor):
        return tup
    ts = [atleast_1d(t) for t in _seq(tup)]
    return concatenate(ts, 0 if ts[0].ndim == 1 else 1)


def vstack(tup) -> Tensor:
    """The arrays joined row-wise (1-D inputs become rows); a lone Tensor as it is."""
    if isinstance(tup, Tensor):
        return tup
    return concatenate([atleast_2d(t) for t in _seq(tup)], 0)


row_stack = vstack


def dstack(tup) -> Tensor:
    """The arrays joined along the third axis (inputs made at least 3-D); a lone Tensor as it is."""
    if isinstance(tup, Tensor):
        return tup
    return concatenate([atleast_3d(t) for t in _seq(tup)], 2)


def column_stack(tup) -> Tensor:
    """1-D inputs as columns of a 2-D Tensor (2-D inputs joined along axis 1); a lone Tensor as it is."""
    if isinstance(tup, Tensor):
        return tup
    ts = [to_tensor(t) for t in _seq(tup)]
    return concatenate([ops.reshape(t, (-1, 1)) if t.ndim < 2 else t for t in ts], 1)


def _seq(tup) -> list:
    return list(ops.unstack(tup, 0)) if isinstance(tup, Tensor) else list(tup)


def append(arr, values, axis: int | None = None) -> Tensor:
    """`values` appended to `arr` along `axis` (None: both flattened)."""
    return concatenate([arr, values], axis)


def _pieces(x: Tensor, bounds: list[int], axis: int) -> list[Tensor]:
    n = x.shape[axis]
    out = []
    edges = [0, *bounds, n]
    for lo, hi in zip(edges[:-1], edges[1:], strict=True):
        lo, hi = builtins.min(builtins.max(lo, 0), n), builtins.min(builtins.max(hi, 0), n)
        out.append(ops.narrow(x, axis, lo, builtins.max(hi - lo, 0)))
    return out


def _split(x, indices_or_sections, axis, even: bool) -> list:
    x = to_tensor(x)
    axis = axis_of(axis, x.ndim)
    n = x.shape[axis]
    if isinstance(indices_or_sections, (int, np.integer)):
        s = int(indices_or_sections)
        if s <= 0:
            raise ValueError("kiln.numpy.split: the number of sections must be positive.")
        if even and n % s:
            raise ValueError(f"kiln.numpy.split: an axis of length {n} does not split into {s} equal sections.")
        size, extra = divmod(n, s)
        bounds, pos = [], 0
        for i in range(s - 1):
            pos += size + (1 if i < extra else 0)
            bounds.append(pos)
    else:
        bounds = [int(b) + n if int(b) < 0 else int(b) for b in indices_or_sections]
    return _pieces(x, bounds, axis)


def split(x, indices_or_sections, axis: int = 0) -> list:
    """`x` split along `axis` into equal sections (an int) or at the given indices (a list).

    Args:
        x (Tensor | list): the input.
        indices_or_sections (int | list): the number of equal sections, or the split points.
        axis (int): the axis.

    Returns:
        A list of Tensors.
    """
    return _split(x, indices_or_sections, axis, True)


def array_split(x, indices_or_sections, axis: int = 0) -> list:
    """`split` that allows sections of unequal length (the first ones one longer)."""
    return _split(x, indices_or_sections, axis, False)


def hsplit(x, indices_or_sections) -> list:
    """`split` along axis 1 (axis 0 for 1-D input)."""
    x = to_tensor(x)
    return split(x, indices_or_sections, 0 if x.ndim == 1 else 1)


def vsplit(x, indices_or_sections) -> list:
    """`split` along axis 0 (input at least 2-D)."""
    x = to_tensor(x)
    if x.ndim < 2:
        raise ValueError("kiln.numpy.vsplit: the input must be at least 2-D.")
    return split(x, indices_or_sections, 0)


def dsplit(x, indices_or_sections) -> list:
    """`split` along axis 2 (input at least 3-D)."""
    x = to_tensor(x)
    if x.ndim < 3:
        raise ValueError("kiln.numpy.dsplit: the input must be at least 3-D.")
    return split(x, indices_or_sections, 2)


def flip(m, axis=None) -> Tensor:
    """`m` reversed along `axis` (None: every axis)."""
    m = to_tensor(m)
    axes = axes_of(axis, m.ndim)
    return ops.flip(m, axes) if axes else m


def fliplr(m) -> Tensor:
    """`m` reversed along axis 1."""
    return flip(m, 1)


def flipud(m) -> Tensor:
    """`m` reversed along axis 0."""
    return flip(m, 0)


def rot90(a, k: int = 1, axes=(0, 1)) -> Tensor:
    """`a` rotated by 90 degrees `k` times in the plane of `axes` (from the first axis toward the second)."""
    a = to_tensor(a)
    if len(axes) != 2:
        raise ValueError("kiln.numpy.rot90: 'axes' must hold two axes.")
    ax0, ax1 = axis_of(axes[0], a.ndim), axis_of(axes[1], a.ndim)
    if ax0 == ax1:
        raise ValueError("kiln.numpy.rot90: the two axes must differ.")
    k = int(k) % 4
    if k == 0:
        return a
    if k == 2:
        return ops.flip(a, (ax0, ax1))
    perm = list(range(a.ndim))
    perm[ax0], perm[ax1] = perm[ax1], perm[ax0]
    if k == 1:
        return ops.transpose(ops.flip(a, (ax1,)), tuple(perm))
    return ops.flip(ops.transpose(a, tuple(perm)), (ax1,))


def roll(a, shift, axis=None) -> Tensor:
    """`a` with its values shifted by `shift` along `axis` (None: of the flattened input), wrapping around."""
    a = to_tensor(a)
    if axis is None:
        return ops.reshape(ops.roll(ops.reshape(a, (-1,)), int(shift), 0), tuple(a.shape))
    axis = [axis] if isinstance(axis, int) else list(axis)
    shifts = [shift] if isinstance(shift, int) else list(shift)
    if len(shifts) != len(axis) and 1 not in (len(shifts), len(axis)):
        raise ValueError("kiln.numpy.roll: 'shift' and 'axis' must broadcast to one length.")
    n = builtins.max(len(shifts), len(axis))
    total = {}
    for s, ax in zip(shifts * (n // len(shifts)), axis * (n // len(axis)), strict=True):  # NumPy broadcasts them
        ax = axis_of(ax, a.ndim)
        total[ax] = total.get(ax, 0) + int(s)
    for ax, s in total.items():
        if a.shape[ax] and s % a.shape[ax]:
            a = ops.roll(a, s % a.shape[ax], ax)
    return a


def _along(a, axis: int | None) -> tuple[Tensor, int]:
    """`a` as a Tensor and `axis` made non-negative; for None, the flattened `a` and axis 0."""
    a = to_tensor(a)
    if axis is None:
        a, axis = ops.reshape(a, (-1,)), 0
    return a, axis_of(axis, a.ndim)


def repeat(a, repeats, axis: int | None = None) -> Tensor:
    """Each element of `a` repeated `repeats` times along `axis` (None: of the flattened input).

    Args:
        a (Tensor | list): the input.
        repeats (int | list): one count, or one per element along `axis`.
        axis (int | None): the axis.

    Returns:
        Tensor.
    """
    a, axis = _along(a, axis)
    if isinstance(repeats, (int, np.integer)) or (isinstance(repeats, (list, tuple)) and len(repeats) == 1):
        r = int(repeats if isinstance(repeats, (int, np.integer)) else repeats[0])
        return ops.repeat_interleave(a, r, axis)
    counts = [int(r) for r in repeats]
    if len(counts) != a.shape[axis]:
        raise ValueError("kiln.numpy.repeat: 'repeats' must have one count per element along 'axis'.")
    index = np.repeat(np.arange(a.shape[axis], dtype=np.int32), counts)  # from Python counts: known values
    return ops.gather(a, Tensor(index), axis)


def tile(a, reps) -> Tensor:
    """`a` repeated `reps` times along each axis (more reps than axes prepends axes)."""
    a = to_tensor(a)
    reps = shape_of(reps)
    if len(reps) < a.ndim:
        reps = (1,) * (a.ndim - len(reps)) + reps
    return ops.tile(a, reps)


def _fix_index(idx: Tensor, n: int, mode: str) -> Tensor:
    idx = cast(idx, mstype.int32) if idx.dtype != mstype.int64 else idx
    if mode == "wrap":
        return ops.floor_mod(idx, n)
    if mode in ("clip", "raise"):
        return ops.clamp(idx, 0, n - 1)
    raise ValueError(f"kiln.numpy: 'mode' must be 'clip', 'wrap' or 'raise', but got {mode!r}.")


def take(a, indices, axis: int | None = None, mode: str = "clip") -> Tensor:
    """The elements of `a` at `indices` along `axis` (None: of the flattened input).

    Args:
        a (Tensor | list): the input.
        indices (Tensor | list | int): the indices.
        axis (int | None): the axis.
        mode (str): out-of-range indices: 'clip' (indices in [-n, n) count as Python's, the others go to the nearer
            end, as mindspore.numpy; also for 'raise') or 'wrap'.

    Returns:
        Tensor.
    """
    if mode not in ("clip", "wrap", "raise"):
        raise ValueError(f"kiln.numpy: 'mode' must be 'clip', 'wrap' or 'raise', but got {mode!r}.")
    idx = to_tensor(indices)
    idx = cast(idx, mstype.int32) if idx.dtype != mstype.int64 else idx
    return to_tensor(a).take(idx, axis, "wrap" if mode == "wrap" else "clip")


def take_along_axis(arr, indices, axis) -> Tensor:
    """Values of `arr` at `indices` along `axis`, the other axes matched (NumPy's take_along_axis).

    Args:
        arr (Tensor | list): the input.
        indices (Tensor | list): integer indices of the rank of `arr`.
        axis (int | None): the axis (None: of the flattened input).

    Returns:
        Tensor.
    """
    arr, idx = to_tensors(arr, indices)
    if axis is None:
        arr, axis = ops.reshape(arr, (-1,)), 0
    axis = axis_of(axis, arr.ndim)
    if idx.ndim != arr.ndim:
        raise ValueError("kiln.numpy.take_along_axis: 'indices' must have the rank of 'arr'.")
    shape = list(np.broadcast_shapes(tuple(s if i != axis else 1 for i, s in enumerate(arr.shape)),
                                     tuple(s if i != axis else 1 for i, s in enumerate(idx.shape))))  # fmt: skip
    idx_shape = list(shape)
    idx_shape[axis] = idx.shape[axis]
    arr_shape = list(shape)
    arr_shape[axis] = arr.shape[axis]
    idx = _fix_index(ops.broadcast_to(idx, tuple(idx_shape)), arr.shape[axis], "wrap")
    return ops.gather_elements(ops.broadcast_to(arr, tuple(arr_shape)), axis, idx)


def choose(a, choices, mode: str = "clip") -> Tensor:
    """For each element of integer `a`, the element of `choices[a]` at the same position (all broadcast).

    Args:
        a (Tensor | list): integer indices into `choices`.
        choices (sequence): the arrays to choose from.
        mode (str): out-of-range indices: 'clip' (also for 'raise') or 'wrap'.

    Returns:
        Tensor.
    """
    a = to_tensor(a)
    cs = _promoted(_seq(choices))
    shape = tuple(np.broadcast_shapes(tuple(a.shape), *(tuple(c.shape) for c in cs)))
    stacked = ops.stack([ops.broadcast_to(c, shape) for c in cs], 0)
    idx = _fix_index(ops.broadcast_to(a, shape), len(cs), mode)
    return ops.reshape(ops.gather_elements(stacked, 0, ops.expand_dims(idx, 0)), shape)


def where(condition, x=None, y=None):
    """Elements of `x` where `condition` holds and of `y` elsewhere (all broadcast); with `condition` only, the
    indices of its non-zero elements (PyNative only: their number depends on the values).

    Returns:
        Tensor, or a tuple of index Tensors.
    """
    cond = to_tensor(condition)
    if x is None and y is None:
        return nonzero(cond)
    if x is None or y is None:
        raise ValueError("kiln.numpy.where: give both 'x' and 'y', or neither.")
    cond = cast(cond, mstype.bool_)
    xs, ys = _promoted([x, y])
    shape = tuple(np.broadcast_shapes(tuple(cond.shape), tuple(xs.shape), tuple(ys.shape)))
    return ops.select(ops.broadcast_to(cond, shape), ops.broadcast_to(xs, shape), ops.broadcast_to(ys, shape))


def select(condlist, choicelist, default=0) -> Tensor:
    """For each position, the element of the first choice whose condition holds (`default` if none does).

    Args:
        condlist (sequence): boolean arrays.
        choicelist (sequence): arrays, one per condition.
        default (number | Tensor): the value where no condition holds.

    Returns:
        Tensor.
    """
    conds, choices = _seq(condlist), _seq(choicelist)
    if len(conds) != len(choices):
        raise ValueError("kiln.numpy.select: 'condlist' and 'choicelist' must have the same length.")
    out = default
    for c, v in zip(reversed(conds), reversed(choices), strict=True):
        out = where(c, v, out)
    return to_tensor(out)


def _pad_pairs(pad_width, ndim: int) -> list[tuple[int, int]]:
    pw = np.asarray(pad_width, dtype=np.int64)
    pw = np.broadcast_to(pw.reshape(-1, 2) if pw.size > 1 else pw.reshape(1, 1), (ndim, 2))
    if (pw < 0).any():
        raise ValueError("kiln.numpy.pad: pad widths must be non-negative.")
    return [(int(b), int(a)) for b, a in pw]


def _pair_values(values, ndim: int) -> list[tuple]:
    if isinstance(values, Tensor):
        return [(values, values)] * ndim
    arr = np.asarray(values, dtype=object)
    arr = np.broadcast_to(arr.reshape(-1, 2) if arr.size > 1 else arr.reshape(1, 1), (ndim, 2))
    return [(b, a) for b, a in arr]


def _slc(x: Tensor, axis: int, start: int, length: int) -> Tensor:
    return ops.narrow(x, axis, start, length)


def _edge_block(x: Tensor, axis: int, index: int, count: int) -> Tensor:
    shape = list(x.shape)
    shape[axis] = count
    return ops.broadcast_to(_slc(x, axis, index, 1), tuple(shape))


def _stat_block(x: Tensor, axis: int, before: bool, count: int, mode: str, stat_len) -> Tensor:
    n = x.shape[axis]
    k = n if stat_len is None else builtins.max(1, builtins.min(int(stat_len), n))
    part = _slc(x, axis, 0 if before else n - k, k)
    if mode == "maximum":
        v = ops.amax(part, axis, True)
    elif mode == "minimum":
        v = ops.amin(part, axis, True)
    elif mode == "mean":
        v = (
            ops.mean(part, axis, True)
            if not np.issubdtype(x.dtype.np, np.integer)
            else cast(ops.round(ops.mean(cast(part, mstype.float32), axis, True)), x.dtype)
        )
    else:  # median
        srt = ops.sort(part, axis)[0]
        lo, hi = (k - 1) // 2, k // 2
        v = ops.div(ops.add(_slc(srt, axis, lo, 1), _slc(srt, axis, hi, 1)), 2)
        v = cast(v, x.dtype) if np.issubdtype(x.dtype.np, np.integer) else v
    shape = list(x.shape)
    shape[axis] = count
    return ops.broadcast_to(v, tuple(shape))


def _ramp(x: Tensor, axis: int, before: bool, count: int, end_value) -> Tensor:
    edge = _slc(x, axis, 0 if before else x.shape[axis] - 1, 1)
    ef = cast(edge, mstype.float32) if not np.issubdtype(x.dtype.np, np.floating) else edge
    end = cast(to_tensor(end_value), ef.dtype)
    shape = [1] * x.ndim
    shape[axis] = count
    # `count` steps from the end value toward the edge, the edge itself excluded.
    frac = ops.reshape(ops.div(ops.arange(0, count, 1, dtype=ef.dtype), float(count)), tuple(shape))
    vals = ops.add(end, ops.mul(frac, ops.sub(ef, end)))
    if not before:
        vals = ops.flip(vals, (axis,))
    if np.issubdtype(x.dtype.np, np.integer):
        vals = cast(ops.trunc(vals), x.dtype)
    return vals


def _mirror(x: Tensor, axis: int, before: bool, count: int, mode: str, odd: bool) -> Tensor:
    """`count` values mirrored at one end (reflect: the edge not repeated; symmetric: repeated)."""
    cur = x
    remaining = count
    while remaining > 0:
        n = cur.shape[axis]
        period = n - 1 if mode == "reflect" else n
        if period <= 0:
            block = _edge_block(cur, axis, 0, remaining)
            cur = ops.concat([block, cur] if before else [cur, block], axis)
            break
        take = builtins.min(remaining, period)
        off = 1 if mode == "reflect" else 0
        if before:
            part = ops.flip(_slc(cur, axis, off, take), (axis,))
            if odd:
                part = ops.sub(ops.mul(_slc(cur, axis, 0, 1), 2), part)
            cur = ops.concat([part, cur], axis)
        else:
            part = ops.flip(_slc(cur, axis, n - off - take, take), (axis,))
            if odd:
                part = ops.sub(ops.mul(_slc(cur, axis, n - 1, 1), 2), part)
            cur = ops.concat([cur, part], axis)
        remaining -= take
    return cur


def pad(arr, pad_width, mode: str = "constant", stat_length=None, constant_values=0, end_values=0,
        reflect_type: str = "even", **kwargs) -> Tensor:  # fmt: skip
    """`arr` padded along each axis (NumPy's pad).

    Args:
        arr (Tensor | list): the input.
        pad_width (int | sequence): (before, after) per axis, one pair for all, or one int for all.
        mode (str): 'constant', 'edge', 'linear_ramp', 'maximum', 'minimum', 'mean', 'median', 'reflect',
            'symmetric', 'wrap', 'empty', or a function `f(vector, iaxis_pad_width, iaxis, kwargs)` returning the
            padded vector.
        stat_length: how many edge values 'maximum'/'minimum'/'mean'/'median' look at (all by default).
        constant_values: the values for 'constant' (per axis and side like `pad_width`).
        end_values: the end values for 'linear_ramp'.
        reflect_type (str): 'even' or 'odd' ('reflect'/'symmetric').

    Returns:
        Tensor.
    """
    x = to_tensor(arr)
    pairs = _pad_pairs(pad_width, x.ndim)
    if callable(mode):
        return _pad_with_function(x, pairs, mode, kwargs)
    modes = ("constant", "edge", "linear_ramp", "maximum", "minimum", "mean", "median", "reflect", "symmetric",
             "wrap", "empty")  # fmt: skip
    if mode not in modes:
        raise ValueError(f"kiln.numpy.pad: unsupported mode {mode!r}.")
    if reflect_type not in ("even", "odd"):
        raise ValueError(f"kiln.numpy.pad: 'reflect_type' must be 'even' or 'odd', but got {reflect_type!r}.")
    cvals = _pair_values(constant_values, x.ndim)
    evals = _pair_values(end_values, x.ndim)
    stats = [(None, None)] * x.ndim if stat_length is None else _pair_values(stat_length, x.ndim)
    for axis, (b, a) in enumerate(pairs):
        if b == 0 and a == 0:
            continue
        if mode in ("reflect", "symmetric"):
            x = _mirror(x, axis, True, b, mode, reflect_type == "odd")
            x = _mirror(x, axis, False, a, mode, reflect_type == "odd")
            continue
        if mode == "wrap":
            n = x.shape[axis]
            reps = -(-builtins.max(b, a) // n) + 1
            tiled = ops.concat([x] * (2 * reps + 1), axis)
            x = _slc(tiled, axis, reps * n - b, b + n + a)
            continue
        blocks = []
        for before, count in ((True, b), (False, a)):
            if count == 0:
                blocks.append(None)
                continue
            shape = list(x.shape)
            shape[axis] = count
            if mode in ("constant", "empty"):
                v = 0 if mode == "empty" else cvals[axis][0 if before else 1]
                blk = ops.broadcast_to(cast(to_tensor(v), x.dtype), tuple(shape))
            elif mode == "edge":
                blk = _edge_block(x, axis, 0 if before else x.shape[axis] - 1, count)
            elif mode == "linear_ramp":
                blk = _ramp(x, axis, before, count, evals[axis][0 if before else 1])
            else:
                blk = _stat_block(x, axis, before, count, mode, stats[axis][0 if before else 1])
            blocks.append(cast(blk, x.dtype))
        parts = [p for p in (blocks[0], x, blocks[1]) if p is not None]
        x = ops.concat(parts, axis)
    return x


def _pad_with_function(x: Tensor, pairs, fn, kwargs) -> Tensor:
    out = pad(x, pairs, "constant")
    for axis, (b, a) in enumerate(pairs):
        moved = ops.moveaxis(out, axis, -1)
        lead = tuple(moved.shape[:-1])
        rows = ops.reshape(moved, (-1, moved.shape[-1]))
        vecs = [fn(r, (b, a), axis, kwargs) for r in ops.unstack(rows, 0)] if rows.shape[0] else []
        rows = ops.stack([to_tensor(v) for v in vecs], 0) if vecs else rows
        out = ops.moveaxis(ops.reshape(rows, (*lead, moved.shape[-1])), -1, axis)
    return out


def diagonal(a, offset: int = 0, axis1: int = 0, axis2: int = 1) -> Tensor:
    """Diagonal `offset` of the matrices formed by `axis1` and `axis2`, as the last axis."""
    a = to_tensor(a)
    if a.ndim < 2:
        raise ValueError("kiln.numpy.diagonal: the input must be at least 2-D.")
    return ops.diagonal(a, int(offset), axis_of(axis1, a.ndim), axis_of(axis2, a.ndim))


def trace(a, offset: int = 0, axis1: int = 0, axis2: int = 1, dtype=None) -> Tensor:
    """Sum along diagonal `offset` of the matrices formed by `axis1` and `axis2` (an integer sum is int64 unless
    `dtype` says otherwise, as in NumPy and mindspore.numpy)."""
    d = diagonal(a, offset, axis1, axis2)
    wide = mstype.int64 if dtype is None and is_int(d) else d.dtype
    return finish(ops.sum(d, -1, dtype=wide), dtype)


def unique(x, return_inverse: bool = False):
    """The distinct values of `x` (flattened) in the order they first appear (as mindspore.numpy 2.10 gives
    them), and optionally the index of each element of `x` in them.

    PyNative only: the number of values depends on the data.

    Returns:
        Tensor, or (Tensor, int32 Tensor of the shape of `x` flattened).
    """
    values, inverse = ops.unique(ops.reshape(to_tensor(x), (-1,)))
    return (values, inverse) if return_inverse else values


def _sorted_unique(x: Tensor) -> Tensor:
    return ops.sort(ops.unique(ops.reshape(x, (-1,)))[0], 0)[0]


def unravel_index(indices, shape, order: str = "C") -> tuple:
    """The coordinates in an array of `shape` of flat `indices` (a tuple of int32 Tensors)."""
    idx = cast(to_tensor(indices), mstype.int32)
    dims = shape_of(shape)
    size = int(np.prod(dims))
    idx = ops.select(ops.less(idx, 0), ops.add(idx, size), idx)
    order_dims = list(reversed(range(len(dims)))) if order == "C" else list(range(len(dims)))
    out = [None] * len(dims)
    for i in order_dims:
        out[i] = ops.floor_mod(idx, dims[i])
        idx = ops.floor_divide(idx, dims[i])
    return tuple(out)


def ravel_multi_index(multi_index, dims, mode: str = "clip", order: str = "C") -> Tensor:
    """The flat indices of coordinates `multi_index` in an array of shape `dims` (int32).

    Args:
        multi_index (sequence | Tensor): one integer array per dimension.
        dims (tuple): the array's shape.
        mode (str): out-of-range coordinates: 'clip' (also for 'raise') or 'wrap'.
        order (str): 'C' (row-major) or 'F' (column-major).

    Returns:
        Tensor.
    """
    dims = shape_of(dims)
    coords = _seq(multi_index)
    if len(coords) != len(dims):
        raise ValueError("kiln.numpy.ravel_multi_index: one coordinate array per dimension is needed.")
    axes = range(len(dims)) if order == "C" else reversed(range(len(dims)))
    out = None
    for i in axes:
        c = _fix_index(cast(to_tensor(coords[i]), mstype.int32), dims[i], mode)
        out = c if out is None else ops.add(ops.mul(out, dims[i]), c)
    return out


def apply_along_axis(func1d, axis: int, arr, *args, **kwargs) -> Tensor:
    """`func1d` applied to each 1-D slice of `arr` along `axis`; its results replace that axis."""
    arr = to_tensor(arr)
    axis = axis_of(axis, arr.ndim)
    moved = ops.moveaxis(arr, axis, -1)
    lead = tuple(moved.shape[:-1])
    rows = ops.unstack(ops.reshape(moved, (-1, moved.shape[-1])), 0)
    results = [to_tensor(func1d(r, *args, **kwargs)) for r in rows]
    out = ops.reshape(ops.stack(results, 0), lead + tuple(results[0].shape))
    if results[0].ndim == 0:
        return out
    n_res = results[0].ndim
    perm = list(range(len(lead)))
    return ops.transpose(out, tuple(perm[:axis] + list(range(len(lead), len(lead) + n_res)) + perm[axis:]))


def apply_over_axes(func, a, axes) -> Tensor:
    """`func(a, axis)` applied for each axis in turn; a result with one axis fewer gets it back with length 1."""
    a = to_tensor(a)
    for ax in (axes,) if isinstance(axes, int) else tuple(axes):
        ax = axis_of(ax, a.ndim)
        res = to_tensor(func(a, ax))
        if res.ndim == a.ndim - 1:
            res = ops.expand_dims(res, ax)
        elif res.ndim != a.ndim:
            raise ValueError("kiln.numpy.apply_over_axes: 'func' must keep the rank or remove one axis.")
        a = res
    return a


def piecewise(x, condlist, funclist, *args, **kw) -> Tensor:
    """Values of `x` mapped by the function (or constant) of the condition that holds there.

    Args:
        x (Tensor | list): the input.
        condlist: boolean arrays (or one), one per function.
        funclist: functions or constants; one more than the conditions gives the value where none holds.

    Returns:
        Tensor of the shape and dtype of `x`.
    """
    x = to_tensor(x)
    if isinstance(condlist, (bool, np.bool_)) or (
        isinstance(condlist, Tensor) and condlist.ndim == x.ndim and condlist.dtype == mstype.bool_
    ):
        condlist = [condlist]
    conds = [ops.broadcast_to(cast(to_tensor(c), mstype.bool_), tuple(x.shape)) for c in _seq(condlist)]
    funcs = list(funclist)
    if len(funcs) == len(conds) + 1:
        otherwise = ops.logical_not(_any_of(conds, x))
        conds.append(otherwise)
    elif len(funcs) != len(conds):
        raise ValueError("kiln.numpy.piecewise: one function per condition, plus an optional default, is needed.")
    out = ops.zeros_like(x)
    for c, f in zip(conds, funcs, strict=True):
        val = f(x, *args, **kw) if callable(f) else f
        val = ops.broadcast_to(cast(to_tensor(val), x.dtype), tuple(x.shape))
        out = ops.select(c, val, out)
    return out


def _any_of(conds, x) -> Tensor:
    out = ops.zeros(tuple(x.shape), mstype.bool_)
    for c in conds:
        out = ops.logical_or(out, c)
    return out


def array_str(a) -> str:
    """The values of `a` as NumPy prints them."""
    return str(to_tensor(a))


def isscalar(element) -> bool:
    """Whether `element` is a Python or NumPy scalar (a Tensor is not)."""
    return isinstance(element, (bool, int, float, complex, str, bytes, np.generic))


def ndim(a) -> int:
    """Number of dimensions of `a`."""
    return to_tensor(a).ndim


def shape(a) -> tuple:
    """The shape of `a`."""
    return tuple(to_tensor(a).shape)


def nonzero(a) -> tuple:
    """Indices of the non-zero elements, one int64 Tensor per axis (PyNative only)."""
    return ops.nonzero(to_tensor(a), as_tuple=True)


def flatnonzero(a) -> Tensor:
    """Indices of the non-zero elements of `a` flattened (PyNative only)."""
    return nonzero(ravel(a))[0]


def argwhere(a) -> Tensor:
    """The (n, ndim) int64 indices of the non-zero elements (PyNative only)."""
    return ops.argwhere(to_tensor(a))


def compress(condition, a, axis: int | None = None) -> Tensor:
    """The slices of `a` along `axis` where 1-D `condition` holds (PyNative only)."""
    a = to_tensor(a)
    if axis is None:
        a, axis = ravel(a), 0
    idx = nonzero(condition)[0]
    return ops.gather(a, idx, axis_of(axis, a.ndim))


def sort(a, axis: int | None = -1) -> Tensor:
    """`a` sorted along `axis` (None: flattened)."""
    a = to_tensor(a)
    if axis is None:
        a, axis = ravel(a), 0
    return ops.sort(a, axis_of(axis, a.ndim))[0]


def argsort(a, axis: int | None = -1) -> Tensor:
    """The indices that sort `a` along `axis` (None: flattened)."""
    a = to_tensor(a)
    if axis is None:
        a, axis = ravel(a), 0
    return ops.sort(a, axis_of(axis, a.ndim))[1]


def _isin_mask(element: Tensor, test: Tensor) -> Tensor:
    flat = ops.reshape(test, (-1,))
    if flat.shape[0] == 0:
        return ops.zeros(tuple(element.shape), mstype.bool_)
    eq = ops.equal(ops.expand_dims(element, -1), flat)
    return ops.any(eq, -1)


def intersect1d(ar1, ar2, assume_unique: bool = False, return_indices: bool = False):
    """The sorted values found in both inputs (PyNative only: the count depends on the data).

    Args:
        ar1, ar2: the inputs (flattened).
        assume_unique (bool): the inputs hold no repeated values.
        return_indices (bool): also return the first index of each value in each input.

    Returns:
        Tensor, or (values, indices in ar1, indices in ar2).
    """
    _check_set_args("intersect1d", ar1, ar2, assume_unique, return_indices)
    a, b = to_tensors(ar1, ar2)
    a, b = _promoted([ravel(a), ravel(b)])
    ua = _sorted_unique(a)
    both = ops.masked_select(ua, _isin_mask(ua, b))
    if not return_indices:
        return both
    return both, _first_index(both, a), _first_index(both, b)


def _check_set_args(name: str, ar1, ar2, *flags) -> None:
    for a in (ar1, ar2):
        if a is None:
            raise TypeError(f"kiln.numpy.{name}: the inputs must be arrays, but got None.")
    for f in flags:
        if not isinstance(f, (bool, np.bool_)):
            raise TypeError(f"kiln.numpy.{name}: 'assume_unique' and 'return_indices' must be bools.")


def _first_index(values: Tensor, arr: Tensor) -> Tensor:
    eq = ops.equal(ops.expand_dims(values, -1), arr)
    return cast(ops.argmax(cast(eq, mstype.int32), -1), mstype.int32)


def setdiff1d(ar1, ar2, assume_unique: bool = False) -> Tensor:
    """The sorted distinct values of `ar1` not in `ar2` (PyNative only)."""
    _check_set_args("setdiff1d", ar1, ar2, assume_unique, False)
    a, b = to_tensors(ar1, ar2)
    a, b = _promoted([ravel(a), ravel(b)])
    ua = a if assume_unique else _sorted_unique(a)
    return ops.masked_select(ua, ops.logical_not(_isin_mask(ua, b)))


def union1d(ar1, ar2) -> Tensor:
    """The sorted distinct values of both inputs (PyNative only)."""
    return _sorted_unique(concatenate([ravel(to_tensor(ar1)), ravel(to_tensor(ar2))]))
