"""Array creation of `kiln.numpy`: from data, ranges, filled arrays, identity and triangle matrices, grids,
index helpers, window functions and random arrays."""

from __future__ import annotations

import builtins
import math as _math

import numpy as np

from kiln import ops
from kiln._core import dtype as mstype
from kiln._core.tensor import Tensor
from kiln.numpy._utils import cast, finish, is_float, shape_of, to_tensor

__all__ = [
    "array", "asarray", "asfarray", "copy", "arange", "linspace", "logspace", "geomspace", "zeros", "ones", "empty",
    "full", "zeros_like", "ones_like", "empty_like", "full_like", "eye", "identity", "tri", "tril", "triu", "diag",
    "diagflat", "diag_indices", "tril_indices", "triu_indices", "tril_indices_from", "triu_indices_from", "indices",
    "ix_", "meshgrid", "mgrid", "ogrid", "vander", "bartlett", "blackman", "hamming", "hanning", "rand", "randn",
    "randint",
]  # fmt: skip


def _dtype(dtype, default=mstype.float32):
    return mstype.to_dtype(default if dtype is None else dtype)


def array(obj, dtype=None, copy: bool = True, ndmin: int = 0) -> Tensor:
    """A Tensor from `obj` (Tensor, number, nested list/tuple, NumPy array).

    Args:
        obj: the data; Python ints become int32 and floats float32.
        dtype: the result's dtype.
        copy (bool): return a new Tensor even when `obj` is one with the right dtype.
        ndmin (int): the least number of dimensions (ones are prepended).

    Returns:
        Tensor.
    """
    out = to_tensor(obj, dtype)
    if copy and out is obj:
        out = ops.identity(out)
    if out.ndim < ndmin:
        out = ops.reshape(out, (1,) * (ndmin - out.ndim) + tuple(out.shape))
    return out


def asarray(a, dtype=None) -> Tensor:
    """`a` as a Tensor (itself when it is one of the right dtype); see `array`."""
    return to_tensor(a, dtype)


def asfarray(a, dtype=mstype.float32) -> Tensor:
    """`a` as a floating-point Tensor (`dtype` float32 unless a float dtype is given).

    Args:
        a: the data.
        dtype: a float dtype; an integer one is replaced by float32.

    Returns:
        Tensor.
    """
    dt = mstype.to_dtype(dtype)
    if not np.issubdtype(np.dtype(dt.np), np.floating):
        dt = mstype.float32
    return to_tensor(a, dt)


def copy(a) -> Tensor:
    """A new Tensor with the values of `a`."""
    return ops.identity(to_tensor(a))


def arange(start, stop=None, step=None, dtype=None) -> Tensor:
    """Evenly spaced values in [start, stop) with `step`.

    Args:
        start (number): the first value (the stop when `stop` is None).
        stop (number): the end, excluded.
        step (number): the spacing (default 1).
        dtype: int32 for int arguments and float32 otherwise, unless given.

    Returns:
        1-D Tensor.
    """
    if stop is None:
        start, stop = 0, start
    if step is None:
        step = 1
    # A Tensor bound decides the length, so its value is read on the host (PyNative only), as ops.arange does.
    vals = [v.item() if isinstance(v, Tensor) else v for v in (start, stop, step)]
    if step == 0:
        raise ValueError("kiln.numpy.arange: 'step' must not be 0.")
    is_f = builtins.any(isinstance(v, (float, np.floating)) for v in vals)
    default = mstype.float32 if is_f else mstype.int32
    if dtype is not None and not np.issubdtype(np.dtype(_dtype(dtype).np), np.floating) and is_f:
        return cast(ops.arange(*vals, dtype=mstype.float32), dtype)
    return ops.arange(*vals, dtype=_dtype(dtype, default))


def linspace(start, stop, num: int = 50, endpoint: bool = True, retstep: bool = False, dtype=None, axis: int = 0):
    """`num` evenly spaced values from `start` to `stop`.

    Args:
        start, stop (number | Tensor | list): the ends (arrays broadcast, giving one sequence per element).
        num (int): how many values.
        endpoint (bool): include `stop`.
        retstep (bool): also return the spacing.
        dtype: the result's dtype (float32 by default).
        axis (int): where the new axis goes when the ends are arrays.

    Returns:
        Tensor, or (Tensor, step).
    """
    num = int(num)
    if num < 0:
        raise ValueError(f"kiln.numpy.linspace: 'num' must be non-negative, but got {num}.")
    lo = to_tensor(start)
    hi = to_tensor(stop)
    lo = lo if is_float(lo) else cast(lo, mstype.float32)
    hi = hi if is_float(hi) else cast(hi, mstype.float32)
    bshape = tuple(np.broadcast_shapes(tuple(lo.shape), tuple(hi.shape)))
    div = (num - 1) if endpoint else num
    delta = ops.sub(hi, lo)
    step = ops.div(delta, div) if div > 0 else ops.full_like(delta, float("nan"))
    idx = ops.reshape(ops.arange(0, num, 1, dtype=lo.dtype), (num,) + (1,) * len(bshape))
    out = ops.add(lo, ops.mul(idx, step)) if div > 0 else ops.add(lo, ops.mul(idx, delta))
    out = ops.broadcast_to(out, (num, *bshape))
    if endpoint and num > 1:
        last = ops.reshape(ops.equal(idx, num - 1), (num,) + (1,) * len(bshape))
        out = ops.select(ops.broadcast_to(last, (num, *bshape)), ops.broadcast_to(hi, (num, *bshape)), out)
    if bshape and axis != 0:
        out = ops.moveaxis(out, 0, axis % (len(bshape) + 1))
    out = finish(out, dtype)
    return (out, step) if retstep else out


def logspace(start, stop, num: int = 50, endpoint: bool = True, base=10.0, dtype=None, axis: int = 0) -> Tensor:
    """`base` raised to `num` evenly spaced exponents from `start` to `stop`; see `linspace`."""
    exps = linspace(start, stop, num, endpoint, False, None, axis)
    return finish(ops.pow(to_tensor(float(base)) if not isinstance(base, Tensor) else base, exps), dtype)


def geomspace(start, stop, num: int = 50, endpoint: bool = True, dtype=None, axis: int = 0) -> Tensor:
    """`num` values from `start` to `stop` spaced evenly on a log scale (a geometric sequence); see `linspace`.

    The ends must be non-zero and of one sign.
    """
    lo = to_tensor(start)
    hi = to_tensor(stop)
    lo = lo if is_float(lo) else cast(lo, mstype.float32)
    hi = hi if is_float(hi) else cast(hi, mstype.float32)
    sign = ops.sign(lo)
    exps = linspace(ops.log10(ops.abs(lo)), ops.log10(ops.abs(hi)), num, endpoint, False, None, axis)
    out = ops.pow(10.0, exps)
    bshape = tuple(np.broadcast_shapes(tuple(lo.shape), tuple(hi.shape)))
    ax = axis % (len(bshape) + 1) if bshape else 0
    pos = ops.arange(0, num, 1, dtype=mstype.int32)
    shape = [1] * (len(bshape) + 1)
    shape[ax] = num
    pos = ops.reshape(pos, tuple(shape))
    ends = ops.expand_dims(ops.broadcast_to(ops.abs(lo), bshape), ax) if bshape else ops.abs(lo)
    out = ops.select(ops.broadcast_to(ops.equal(pos, 0), tuple(out.shape)), ops.broadcast_to(ends, out.shape), out)
    if endpoint and num > 1:
        ends = ops.expand_dims(ops.broadcast_to(ops.abs(hi), bshape), ax) if bshape else ops.abs(hi)
        is_last = ops.broadcast_to(ops.equal(pos, num - 1), tuple(out.shape))
        out = ops.select(is_last, ops.broadcast_to(ends, out.shape), out)
    sign = ops.expand_dims(ops.broadcast_to(sign, bshape), ax) if bshape else sign
    return finish(ops.mul(out, sign), dtype)


def zeros(shape, dtype=mstype.float32) -> Tensor:
    """A Tensor of zeros.

    Args:
        shape (int | tuple): the shape.
        dtype: the dtype (float32).

    Returns:
        Tensor.
    """
    return ops.zeros(shape_of(shape), _dtype(dtype))


def ones(shape, dtype=mstype.float32) -> Tensor:
    """A Tensor of ones; see `zeros`."""
    return ops.ones(shape_of(shape), _dtype(dtype))


def empty(shape, dtype=mstype.float32) -> Tensor:
    """An uninitialised Tensor (Kiln's holds zeros); see `zeros`."""
    return zeros(shape, dtype)


def _fill_dtype(value):
    if isinstance(value, Tensor):
        return value.dtype
    if isinstance(value, (bool, np.bool_)):
        return mstype.bool_
    if isinstance(value, (int, np.integer)):
        return mstype.int32
    if isinstance(value, (float, np.floating)):
        return mstype.float32
    return to_tensor(value).dtype


def full(shape, fill_value, dtype=None) -> Tensor:
    """A Tensor of `shape` holding `fill_value` (a scalar, or an array broadcast to `shape`).

    Args:
        shape (int | tuple): the shape.
        fill_value (number | Tensor | list): the value.
        dtype: the dtype (from the value by default: int32, float32 or bool).

    Returns:
        Tensor.
    """
    dt = _dtype(dtype, _fill_dtype(fill_value))
    if isinstance(fill_value, (bool, int, float, np.generic)):
        return ops.full(shape_of(shape), fill_value, dtype=dt)
    return ops.broadcast_to(to_tensor(fill_value, dt), shape_of(shape))


def _like(a, dtype, shape):
    a = to_tensor(a) if not hasattr(a, "shape") else a
    dt = _dtype(dtype, a.dtype if isinstance(a, Tensor) else mstype.from_np(a.dtype))
    return dt, (tuple(a.shape) if shape is None else shape_of(shape))


def zeros_like(a, dtype=None, shape=None) -> Tensor:
    """Zeros of the shape and dtype of `a` (unless `shape`/`dtype` are given)."""
    dt, shp = _like(a, dtype, shape)
    return ops.zeros(shp, dt)


def ones_like(a, dtype=None, shape=None) -> Tensor:
    """Ones of the shape and dtype of `a` (unless `shape`/`dtype` are given)."""
    dt, shp = _like(a, dtype, shape)
    return ops.ones(shp, dt)


def empty_like(prototype, dtype=None, shape=None) -> Tensor:
    """A Tensor of the shape and dtype of `prototype` (zeros in Kiln)."""
    return zeros_like(prototype, dtype, shape)


def full_like(a, fill_value, dtype=None, shape=None) -> Tensor:
    """`fill_value` in the shape and dtype of `a` (unless `shape`/`dtype` are given)."""
    dt, shp = _like(a, dtype, shape)
    return full(shp, fill_value, dt)


def _grid2(n: int, m: int) -> tuple[Tensor, Tensor]:
    rows = ops.reshape(ops.arange(0, n, 1, dtype=mstype.int32), (n, 1))
    cols = ops.reshape(ops.arange(0, m, 1, dtype=mstype.int32), (1, m))
    return rows, cols


def eye(N: int, M: int | None = None, k: int = 0, dtype=mstype.float32) -> Tensor:
    """A 2-D Tensor with ones on diagonal `k` and zeros elsewhere.

    Args:
        N (int): rows.
        M (int): columns (N by default).
        k (int): the diagonal (0: main, > 0: above, < 0: below).
        dtype: the dtype (float32).

    Returns:
        Tensor of (N, M).
    """
    M = N if M is None else M
    rows, cols = _grid2(int(N), int(M))
    return cast(ops.equal(ops.add(rows, int(k)), cols), _dtype(dtype))


def identity(n: int, dtype=mstype.float32) -> Tensor:
    """The n x n identity matrix."""
    return eye(n, n, 0, dtype)


def tri(N: int, M: int | None = None, k: int = 0, dtype=mstype.float32) -> Tensor:
    """A 2-D Tensor with ones at and below diagonal `k`; see `eye`."""
    M = N if M is None else M
    rows, cols = _grid2(int(N), int(M))
    return cast(ops.less_equal(cols, ops.add(rows, int(k))), _dtype(dtype))


def _triangle(m, k: int, lower: bool) -> Tensor:
    m = to_tensor(m)
    if m.ndim < 2:
        m = ops.broadcast_to(ops.reshape(m, (1, -1)), (m.shape[0], m.shape[0]) if m.ndim == 1 else (1, 1))
    mask = tri(m.shape[-2], m.shape[-1], k if lower else k - 1, mstype.bool_)
    if not lower:
        mask = ops.logical_not(mask)
    return ops.select(ops.broadcast_to(mask, tuple(m.shape)), m, ops.zeros_like(m))


def tril(m, k: int = 0) -> Tensor:
    """`m` with the values above diagonal `k` of its last two axes set to zero (1-D input becomes a matrix).

    Args:
        m (Tensor | list): the input.
        k (int): the diagonal.

    Returns:
        Tensor.
    """
    return _triangle(m, int(k), True)


def triu(m, k: int = 0) -> Tensor:
    """`m` with the values below diagonal `k` of its last two axes set to zero; see `tril`."""
    return _triangle(m, int(k), False)


def diag(v, k: int = 0) -> Tensor:
    """The diagonal `k` of a 2-D input, or a 2-D Tensor with the 1-D input on diagonal `k`.

    Args:
        v (Tensor | list): a 1-D or 2-D input.
        k (int): the diagonal.

    Returns:
        Tensor.
    """
    v = to_tensor(v)
    k = int(k)
    if v.ndim == 1:
        n = v.shape[0] + builtins.abs(k)
        padded = ops.concat([v, ops.zeros((builtins.abs(k),), v.dtype)], 0) if k else v
        vals = ops.reshape(padded, (n, 1)) if k >= 0 else ops.reshape(padded, (1, n))
        mask = eye(n, n, k, mstype.bool_)
        return ops.select(mask, ops.broadcast_to(vals, (n, n)), ops.zeros((n, n), v.dtype))
    if v.ndim == 2:
        return ops.diagonal(v, k, 0, 1)
    raise ValueError("kiln.numpy.diag: the input must be 1-D or 2-D.")


def diagflat(v, k: int = 0) -> Tensor:
    """A 2-D Tensor with the flattened input on diagonal `k`; see `diag`."""
    return diag(ops.reshape(to_tensor(v), (-1,)), k)


def diag_indices(n: int, ndim: int = 2) -> tuple:
    """The indices of the main diagonal of an `ndim`-dimensional array of side `n`: `ndim` int32 Tensors."""
    idx = ops.arange(0, int(n), 1, dtype=mstype.int32)
    return tuple(idx for _ in range(int(ndim)))


def _tri_indices(n: int, k: int, m: int | None, lower: bool) -> tuple:
    mask = np.tri(n, m, k, dtype=bool) if lower else ~np.tri(n, m, k - 1, dtype=bool)
    rows, cols = np.nonzero(mask)  # from the shape only: the values are known before running
    return Tensor(rows.astype(np.int32)), Tensor(cols.astype(np.int32))


def tril_indices(n: int, k: int = 0, m: int | None = None) -> tuple:
    """Row and column indices (int32) of the lower triangle (at and below diagonal `k`) of an n x m array."""
    return _tri_indices(int(n), int(k), None if m is None else int(m), True)


def triu_indices(n: int, k: int = 0, m: int | None = None) -> tuple:
    """Row and column indices (int32) of the upper triangle (at and above diagonal `k`) of an n x m array."""
    return _tri_indices(int(n), int(k), None if m is None else int(m), False)


def tril_indices_from(arr, k: int = 0) -> tuple:
    """`tril_indices` for the shape of 2-D `arr`."""
    arr = to_tensor(arr)
    if arr.ndim != 2:
        raise ValueError("kiln.numpy.tril_indices_from: the input must be 2-D.")
    return tril_indices(arr.shape[0], k, arr.shape[1])


def triu_indices_from(arr, k: int = 0) -> tuple:
    """`triu_indices` for the shape of 2-D `arr`."""
    arr = to_tensor(arr)
    if arr.ndim != 2:
        raise ValueError("kiln.numpy.triu_indices_from: the input must be 2-D.")
    return triu_indices(arr.shape[0], k, arr.shape[1])


def indices(dimensions, dtype=mstype.int32, sparse: bool = False):
    """For each axis of a grid of shape `dimensions`, the index along that axis of every point.

    Args:
        dimensions (tuple): the grid's shape.
        dtype: the dtype (int32).
        sparse (bool): shapes broadcastable to the grid instead of full ones.

    Returns:
        A tuple (sparse) or list of Tensors, one per axis (as mindspore.numpy).
    """
    dims = shape_of(dimensions)
    grids = ix_(*[ops.arange(0, d, 1, dtype=_dtype(dtype)) for d in dims])
    if sparse:
        return grids
    return [ops.broadcast_to(g, dims) for g in grids]


def ix_(*args) -> tuple:
    """Open-mesh index arrays from 1-D sequences: the i-th is reshaped to lie along axis i."""
    out = []
    n = len(args)
    for i, a in enumerate(args):
        a = to_tensor(a)
        if a.ndim != 1:
            raise ValueError("kiln.numpy.ix_: each argument must be 1-D.")
        shape = [1] * n
        shape[i] = a.shape[0]
        out.append(ops.reshape(a, tuple(shape)))
    return tuple(out)


def meshgrid(*xi, sparse: bool = False, indexing: str = "xy") -> tuple:
    """Coordinate grids from 1-D inputs.

    Args:
        *xi: 1-D Tensors or lists.
        sparse (bool): shapes broadcastable to the grid instead of full ones.
        indexing (str): 'xy' (Cartesian: the first two axes swapped) or 'ij' (matrix).

    Returns:
        A tuple of Tensors.
    """
    if indexing not in ("xy", "ij"):
        raise ValueError(f"kiln.numpy.meshgrid: 'indexing' must be 'xy' or 'ij', but got {indexing!r}.")
    arrs = [ops.reshape(to_tensor(x), (-1,)) for x in xi]
    if not sparse:
        return ops.meshgrid(*arrs, indexing=indexing)
    # sparse: input i lies along grid axis i (axes 0 and 1 swapped for 'xy'), with length 1 on the others
    n = len(arrs)
    grid_axis = [1, 0, *range(2, n)] if indexing == "xy" and n >= 2 else list(range(n))
    return tuple(
        ops.reshape(a, tuple(a.shape[0] if d == grid_axis[i] else 1 for d in range(n))) for i, a in enumerate(arrs)
    )


def _slice_values(s) -> Tensor:
    if not isinstance(s, builtins.slice):
        raise TypeError("kiln.numpy.mgrid/ogrid: the index must be slices.")
    start = 0 if s.start is None else s.start
    step = 1 if s.step is None else s.step
    if isinstance(step, complex):  # a complex step is a number of points, both ends included
        return linspace(start, s.stop, int(builtins.abs(step)))
    return arange(start, s.stop, step)


class _Grid:
    """`mgrid[...]` (dense) and `ogrid[...]` (open) index grids from slices."""

    def __init__(self, sparse: bool) -> None:
        self._sparse = sparse

    def __getitem__(self, keys):
        if not isinstance(keys, tuple):
            return _slice_values(keys)
        vals = [_slice_values(k) for k in keys]
        if builtins.any(is_float(v) for v in vals):
            vals = [cast(v, mstype.float32) for v in vals]
        grids = meshgrid(*vals, sparse=self._sparse, indexing="ij")
        return list(grids) if self._sparse else ops.stack(list(grids), 0)


mgrid = _Grid(False)
ogrid = _Grid(True)


def vander(x, N: int | None = None, increasing: bool = False) -> Tensor:
    """The Vandermonde matrix of 1-D `x`: its columns are powers of `x`.

    Args:
        x (Tensor | list): 1-D input.
        N (int): number of columns (len(x) by default).
        increasing (bool): powers increase from left to right.

    Returns:
        Tensor of (len(x), N).
    """
    x = to_tensor(x)
    if x.ndim != 1:
        raise ValueError("kiln.numpy.vander: the input must be 1-D.")
    N = x.shape[0] if N is None else int(N)
    powers = ops.arange(0, N, 1, dtype=mstype.int32)
    if not increasing:
        powers = ops.flip(powers, (0,))
    base = ops.reshape(x, (-1, 1))
    return ops.pow(base, cast(ops.reshape(powers, (1, -1)), x.dtype))


def _window(M: int, terms) -> Tensor:
    M = int(M)
    if M < 1:
        return ops.zeros((0,), mstype.float32)
    if M == 1:
        return ops.ones((1,), mstype.float32)
    n = ops.arange(0, M, 1, dtype=mstype.float32)
    return terms(n, M)


def _cosine_window(coeffs):
    def terms(n, M):
        out = ops.full((M,), coeffs[0], dtype=mstype.float32)
        for j, c in enumerate(coeffs[1:], start=1):
            out = ops.add(out, ops.mul(c * (-1) ** j, ops.cos(ops.mul(n, 2.0 * j * _math.pi / (M - 1)))))
        return out

    return terms


def hanning(M: int) -> Tensor:
    """The Hann window of `M` points (float32)."""
    return _window(M, _cosine_window((0.5, 0.5)))


def hamming(M: int) -> Tensor:
    """The Hamming window of `M` points (float32)."""
    return _window(M, _cosine_window((0.54, 0.46)))


def blackman(M: int) -> Tensor:
    """The Blackman window of `M` points (float32)."""
    return _window(M, _cosine_window((0.42, 0.5, 0.08)))


def bartlett(M: int) -> Tensor:
    """The Bartlett (triangular) window of `M` points (float32)."""
    return _window(M, lambda n, m: ops.sub(1.0, ops.abs(ops.sub(ops.mul(n, 2.0 / (m - 1)), 1.0))))


def _rand_shape(name: str, shape) -> tuple:
    if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
        shape = tuple(shape[0])
    for s in shape:
        if not isinstance(s, (int, np.integer)) or isinstance(s, bool):
            raise TypeError(f"kiln.numpy.{name}: the shape must hold ints, but got {type(s).__name__}.")
    return tuple(int(s) for s in shape)


def _kind_dtype(name: str, dtype, kind) -> mstype.DType:
    dt = mstype.to_dtype(dtype)
    if not np.issubdtype(np.dtype(dt.np), kind):
        what = "a float" if kind is np.floating else "an integer"
        raise ValueError(f"kiln.numpy.{name}: 'dtype' must be {what} type, but got {dt}.")
    return dt


def rand(*shape, dtype=mstype.float32) -> Tensor:
    """Samples from U[0, 1) (Kiln's global generator).

    Args:
        *shape (int | tuple): the shape.
        dtype: a float dtype (float32).

    Returns:
        Tensor.
    """
    return ops.rand(*_rand_shape("rand", shape), dtype=_kind_dtype("rand", dtype, np.floating))


def randn(*shape, dtype=mstype.float32) -> Tensor:
    """Samples from N(0, 1) (Kiln's global generator); see `rand`."""
    return ops.randn(*_rand_shape("randn", shape), dtype=_kind_dtype("randn", dtype, np.floating))


def randint(minval, maxval=None, shape=None, dtype=mstype.int32) -> Tensor:
    """Integers drawn uniformly from [minval, maxval) ([0, minval) when `maxval` is None).

    Args:
        minval (int): the low end (or the high end with no `maxval`).
        maxval (int): the high end, excluded.
        shape (int | tuple): the shape (a scalar by default).
        dtype: an integer dtype (int32).

    Returns:
        Tensor.
    """
    for v in (minval, maxval):
        if v is not None and (not isinstance(v, (int, np.integer)) or isinstance(v, bool)):
            raise TypeError(f"kiln.numpy.randint: the bounds must be ints, but got {type(v).__name__}.")
    dt = _kind_dtype("randint", dtype, np.integer)
    if maxval is None:
        minval, maxval = 0, minval
    if int(maxval) <= int(minval):
        raise ValueError("kiln.numpy.randint: 'maxval' must be larger than 'minval'.")
    shp = () if shape is None else shape_of(shape)
    return ops.randint(int(minval), int(maxval), shp, dtype=dt)
