"""Differences, integration, interpolation, convolution, polynomials, histograms and binning of `kiln.numpy`."""

from __future__ import annotations

import builtins
import math as _math

import numpy as np

from kiln import ops
from kiln._core import dtype as mstype
from kiln._core.tensor import Tensor
from kiln.numpy._utils import as_float, axis_of, cast, is_float, to_tensor, to_tensors

__all__ = [
    "diff", "ediff1d", "gradient", "trapz", "unwrap", "interp", "convolve", "correlate", "polyadd", "polysub",
    "polymul", "polyval", "polyint", "polyder", "histogram", "histogram2d", "histogramdd", "histogram_bin_edges",
    "bincount", "digitize", "searchsorted",
]  # fmt: skip


def _promote(a: Tensor, b: Tensor) -> tuple[Tensor, Tensor]:
    dt = mstype.promote(a.dtype, b.dtype)
    return cast(a, dt), cast(b, dt)


def _part(x: Tensor, axis: int, start: int, length: int) -> Tensor:
    return ops.narrow(x, axis, start, length)


def diff(a, n: int = 1, axis: int = -1, prepend=None, append=None) -> Tensor:
    """The `n`-th discrete difference along `axis` (x[i+1] - x[i], repeated).

    Args:
        a (Tensor | list): the input.
        n (int): how many times to take differences.
        axis (int): the axis.
        prepend, append: values joined to `a` along `axis` first (scalars are broadcast).

    Returns:
        Tensor, `n` shorter along `axis`.
    """
    a = to_tensor(a)
    axis = axis_of(axis, a.ndim)
    if int(n) == 0:
        return a
    parts = []
    for extra in (prepend, None, append):
        if extra is None:
            continue
        e = to_tensor(extra)
        if e.ndim == 0:
            shape = list(a.shape)
            shape[axis] = 1
            e = ops.broadcast_to(e, tuple(shape))
        parts.append(e)
    if prepend is not None or append is not None:
        seq = ([parts.pop(0)] if prepend is not None else []) + [a] + parts
        a = ops.concat(list(_promote_all(seq)), axis)
    for _ in range(int(n)):
        m = a.shape[axis]
        if m == 0:
            break
        hi, lo = _part(a, axis, 1, m - 1), _part(a, axis, 0, m - 1)
        a = ops.not_equal(hi, lo) if a.dtype == mstype.bool_ else ops.sub(hi, lo)
    return a


def _promote_all(ts):
    dt = ts[0].dtype
    for t in ts[1:]:
        dt = mstype.promote(dt, t.dtype)
    return [cast(t, dt) for t in ts]


def ediff1d(ary, to_end=None, to_begin=None) -> Tensor:
    """Differences of consecutive elements of `ary` flattened, with `to_begin`/`to_end` joined at the ends."""
    a = ops.reshape(to_tensor(ary), (-1,))
    d = diff(a)
    parts = []
    if to_begin is not None:
        parts.append(ops.reshape(cast(to_tensor(to_begin), d.dtype), (-1,)))
    parts.append(d)
    if to_end is not None:
        parts.append(ops.reshape(cast(to_tensor(to_end), d.dtype), (-1,)))
    return ops.concat(parts, 0) if len(parts) > 1 else d


def _coords(spacing, n: int) -> Tensor:
    """Coordinates of `n` samples: from a scalar spacing, or the given 1-D coordinates."""
    s = to_tensor(spacing)
    if s.ndim == 0:
        return ops.mul(ops.arange(0, n, 1, dtype=mstype.float32), as_float(s))
    if s.ndim != 1 or s.shape[0] != n:
        raise ValueError("kiln.numpy.gradient: coordinates must be 1-D with one value per sample.")
    return as_float(s)


def _gradient_1d(f: Tensor, x: Tensor, axis: int, edge_order: int) -> Tensor:
    n = f.shape[axis]
    if n < edge_order + 1:
        raise ValueError("kiln.numpy.gradient: too few samples along an axis for this 'edge_order'.")
    shape = [1] * f.ndim

    def at(t, start, length):
        return _part(t, axis, start, length)

    def coord(start, length):
        shape[axis] = length
        return ops.reshape(ops.narrow(x, 0, start, length), tuple(shape))

    pieces = []
    if edge_order == 1:
        pieces.append(ops.div(ops.sub(at(f, 1, 1), at(f, 0, 1)), ops.sub(coord(1, 1), coord(0, 1))))
    else:
        dx1, dx2 = ops.sub(coord(1, 1), coord(0, 1)), ops.sub(coord(2, 1), coord(1, 1))
        s = ops.add(dx1, dx2)
        ca = ops.neg(ops.div(ops.add(ops.mul(dx1, 2.0), dx2), ops.mul(dx1, s)))
        cb = ops.div(s, ops.mul(dx1, dx2))
        cc = ops.neg(ops.div(dx1, ops.mul(dx2, s)))
        pieces.append(ops.add(ops.add(ops.mul(ca, at(f, 0, 1)), ops.mul(cb, at(f, 1, 1))), ops.mul(cc, at(f, 2, 1))))
    if n > 2:
        hs = ops.sub(coord(1, n - 2), coord(0, n - 2))
        hd = ops.sub(coord(2, n - 2), coord(1, n - 2))
        num = ops.add(ops.sub(ops.mul(ops.square(hs), at(f, 2, n - 2)), ops.mul(ops.square(hd), at(f, 0, n - 2))),
                      ops.mul(ops.sub(ops.square(hd), ops.square(hs)), at(f, 1, n - 2)))  # fmt: skip
        pieces.append(ops.div(num, ops.mul(ops.mul(hs, hd), ops.add(hd, hs))))
    if edge_order == 1:
        pieces.append(ops.div(ops.sub(at(f, n - 1, 1), at(f, n - 2, 1)), ops.sub(coord(n - 1, 1), coord(n - 2, 1))))
    else:
        dx1, dx2 = ops.sub(coord(n - 2, 1), coord(n - 3, 1)), ops.sub(coord(n - 1, 1), coord(n - 2, 1))
        s = ops.add(dx1, dx2)
        ca = ops.div(dx2, ops.mul(dx1, s))
        cb = ops.neg(ops.div(s, ops.mul(dx1, dx2)))
        cc = ops.div(ops.add(ops.mul(dx2, 2.0), dx1), ops.mul(dx2, s))
        pieces.append(ops.add(ops.add(ops.mul(ca, at(f, n - 3, 1)), ops.mul(cb, at(f, n - 2, 1))),
                              ops.mul(cc, at(f, n - 1, 1))))  # fmt: skip
    return ops.concat(pieces, axis)


def gradient(f, *varargs, axis=None, edge_order: int = 1):
    """The gradient of sampled `f`: second-order central differences inside, one-sided ones at the ends.

    Args:
        f (Tensor | list): the samples (float32 for integer input).
        *varargs: the spacing: nothing (1), one scalar for all axes, or one scalar or coordinate array per axis.
        axis (int | tuple | None): the axes (all by default).
        edge_order (int): 1 or 2, the accuracy at the ends.

    Returns:
        Tensor for one axis, else a list of Tensors (one per axis).
    """
    f = as_float(to_tensor(f))
    if edge_order not in (1, 2):
        raise ValueError("kiln.numpy.gradient: 'edge_order' must be 1 or 2.")
    axes = list(range(f.ndim)) if axis is None else [axis_of(a, f.ndim) for a in ((axis,) if isinstance(axis, int)
                                                                                 else axis)]  # fmt: skip
    if not varargs:
        spacing = [1.0] * len(axes)
    elif len(varargs) == 1 and to_tensor(varargs[0]).ndim == 0:
        spacing = list(varargs) * len(axes)
    elif len(varargs) == len(axes):
        spacing = list(varargs)
    else:
        raise TypeError("kiln.numpy.gradient: give one spacing for all axes or one per axis.")
    out = [_gradient_1d(f, cast(_coords(s, f.shape[ax]), f.dtype), ax, edge_order)
           for s, ax in zip(spacing, axes, strict=True)]  # fmt: skip
    return out[0] if len(out) == 1 else out


def trapz(y, x=None, dx=1.0, axis: int = -1) -> Tensor:
    """The integral of `y` along `axis` by the trapezoidal rule.

    Args:
        y (Tensor | list): the samples.
        x (Tensor | list | None): the sample points (spacing `dx` when None).
        dx (float): the spacing.
        axis (int): the axis.

    Returns:
        Tensor.
    """
    y = as_float(to_tensor(y))
    axis = axis_of(axis, y.ndim)
    n = y.shape[axis]
    if x is None:
        d = to_tensor(float(dx)) if not isinstance(dx, Tensor) else dx
    else:
        xt = cast(to_tensor(x), y.dtype)
        if xt.ndim == 1:
            shape = [1] * y.ndim
            shape[axis] = n - 1
            d = ops.reshape(diff(xt), tuple(shape))
        else:
            d = diff(xt, axis=axis)
    mid = ops.div(ops.add(_part(y, axis, 1, n - 1), _part(y, axis, 0, n - 1)), 2.0)
    return ops.sum(ops.mul(mid, d), axis)


def unwrap(p, discont=_math.pi, axis: int = -1) -> Tensor:
    """`p` with jumps larger than `discont` between neighbours along `axis` replaced by their 2*pi complements."""
    p = as_float(to_tensor(p))
    axis = axis_of(axis, p.ndim)
    n = p.shape[axis]
    if n < 2:
        return p
    dd = diff(p, axis=axis)
    two_pi = 2.0 * _math.pi
    ddmod = ops.sub(ops.floor_mod(ops.add(dd, _math.pi), two_pi), _math.pi)
    at_pi = ops.logical_and(ops.equal(ddmod, -_math.pi), ops.greater(dd, 0))
    ddmod = ops.select(at_pi, ops.full_like(ddmod, _math.pi), ddmod)
    correct = ops.sub(ddmod, dd)
    correct = ops.select(ops.less(ops.abs(dd), discont), ops.zeros_like(correct), correct)
    shape = list(p.shape)
    shape[axis] = 1
    cum = ops.concat([ops.zeros(tuple(shape), p.dtype), ops.cumsum(correct, axis)], axis)
    return ops.add(p, cum)


def interp(x, xp, fp, left=None, right=None) -> Tensor:
    """Piecewise-linear interpolation of the points (xp, fp) at `x`.

    Args:
        x (Tensor | list): where to evaluate.
        xp (Tensor | list): increasing 1-D sample points.
        fp (Tensor | list): 1-D sample values.
        left, right (number): the value below xp[0] / above xp[-1] (fp[0] / fp[-1] by default).

    Returns:
        Tensor of the shape of `x` (float32).
    """
    x, xp, fp = (as_float(t) for t in to_tensors(x, xp, fp))
    xp, fp = cast(xp, x.dtype), cast(fp, x.dtype)
    n = xp.shape[0]
    if n == 1:
        return ops.broadcast_to(fp, tuple(x.shape))
    idx = ops.searchsorted(xp, x, right=True, out_int32=True)
    idx = ops.clamp(idx, 1, n - 1)
    x0, x1 = ops.gather(xp, ops.sub(idx, 1), 0), ops.gather(xp, idx, 0)
    y0, y1 = ops.gather(fp, ops.sub(idx, 1), 0), ops.gather(fp, idx, 0)
    out = ops.add(y0, ops.mul(ops.div(ops.sub(x, x0), ops.sub(x1, x0)), ops.sub(y1, y0)))
    lo = ops.narrow(fp, 0, 0, 1) if left is None else cast(to_tensor(left), x.dtype)
    hi = ops.narrow(fp, 0, n - 1, 1) if right is None else cast(to_tensor(right), x.dtype)
    out = ops.select(ops.less(x, ops.narrow(xp, 0, 0, 1)), ops.broadcast_to(lo, tuple(x.shape)), out)
    out = ops.select(ops.greater(x, ops.narrow(xp, 0, n - 1, 1)), ops.broadcast_to(hi, tuple(x.shape)), out)
    return ops.select(ops.equal(x, ops.narrow(xp, 0, n - 1, 1)), ops.broadcast_to(ops.narrow(fp, 0, n - 1, 1),
                                                                                 tuple(x.shape)), out)  # fmt: skip


def _convolve_full(a: Tensor, v: Tensor) -> Tensor:
    n, m = a.shape[0], v.shape[0]
    # out[k] = sum_i a[i] * v[k - i]: a @ M, with M[i, k] = v[k - i] (0 outside v) gathered by known indices.
    k = np.arange(n + m - 1)[None, :] - np.arange(n)[:, None]
    idx = np.where((k >= 0) & (k < m), k, m).astype(np.int32)
    v_ext = ops.concat([v, ops.zeros((1,), v.dtype)], 0)
    mat = ops.gather(v_ext, Tensor(idx), 0)
    if a.dtype == mstype.bool_:
        a, mat = cast(a, mstype.int32), cast(mat, mstype.int32)
    return ops.reshape(ops.matmul(ops.reshape(a, (1, n)), mat), (n + m - 1,))


def convolve(a, v, mode: str = "full") -> Tensor:
    """The discrete linear convolution of 1-D `a` and `v`.

    Args:
        a, v (Tensor | list): 1-D inputs.
        mode (str): 'full' (length n + m - 1), 'same' (max(n, m)) or 'valid' (max - min + 1).

    Returns:
        Tensor.
    """
    a, v = _promote(*to_tensors(a, v))
    a, v = ops.reshape(a, (-1,)), ops.reshape(v, (-1,))
    n, m = a.shape[0], v.shape[0]
    if n == 0 or m == 0:
        raise ValueError("kiln.numpy.convolve: the inputs must not be empty.")
    if m > n:
        a, v, n, m = v, a, m, n
    full = _convolve_full(a, v)
    if mode == "full":
        return full
    if mode == "same":
        return ops.narrow(full, 0, (m - 1) // 2, n)
    if mode == "valid":
        return ops.narrow(full, 0, m - 1, n - m + 1)
    raise ValueError(f"kiln.numpy.convolve: 'mode' must be 'full', 'same' or 'valid', but got {mode!r}.")


def correlate(a, v, mode: str = "valid") -> Tensor:
    """The cross-correlation of 1-D `a` and `v`: convolve(a, v reversed); see `convolve` for the modes."""
    a, v = _promote(*to_tensors(a, v))
    v = ops.reshape(v, (-1,))
    if np.issubdtype(v.dtype.np, np.complexfloating):
        v = ops.conj(v)
    a = ops.reshape(a, (-1,))
    n, m = a.shape[0], v.shape[0]
    if mode not in ("full", "same", "valid"):
        raise ValueError(f"kiln.numpy.correlate: 'mode' must be 'full', 'same' or 'valid', but got {mode!r}.")
    full = convolve(a, ops.flip(v, (0,)), "full")
    lo, hi = builtins.min(n, m), builtins.max(n, m)
    if mode == "full":
        return full
    if mode == "valid":
        return ops.narrow(full, 0, lo - 1, hi - lo + 1)
    # 'same': NumPy centres the window on the shorter input, counted from the end when `v` is the longer one.
    start = (lo - 1) // 2 if n >= m else (lo - 1) - (lo - 1) // 2
    return ops.narrow(full, 0, start, hi)


def _poly(p) -> Tensor:
    p = to_tensor(p)
    return ops.reshape(p, (-1,)) if p.ndim == 0 else p


def _pad_front(p: Tensor, n: int) -> Tensor:
    if p.shape[0] >= n:
        return p
    return ops.concat([ops.zeros((n - p.shape[0],), p.dtype), p], 0)


def polyadd(a1, a2) -> Tensor:
    """The sum of two polynomials (coefficients, highest power first)."""
    a, b = _promote(_poly(a1), _poly(a2))
    n = builtins.max(a.shape[0], b.shape[0])
    return ops.add(_pad_front(a, n), _pad_front(b, n))


def polysub(a1, a2) -> Tensor:
    """The difference of two polynomials (coefficients, highest power first)."""
    a, b = _promote(_poly(a1), _poly(a2))
    n = builtins.max(a.shape[0], b.shape[0])
    return ops.sub(_pad_front(a, n), _pad_front(b, n))


def polymul(a1, a2) -> Tensor:
    """The product of two polynomials (coefficients, highest power first)."""
    return convolve(_poly(a1), _poly(a2))


def polyval(p, x) -> Tensor:
    """The polynomial `p` (coefficients, highest power first) evaluated at `x`, by Horner's rule (float32)."""
    p = as_float(_poly(p))
    x = cast(to_tensor(x), p.dtype) if not is_float(to_tensor(x)) else to_tensor(x)
    out = ops.zeros_like(x)
    for i in range(p.shape[0]):
        out = ops.add(ops.mul(out, x), ops.narrow(p, 0, i, 1) if x.ndim else ops.reshape(ops.narrow(p, 0, i, 1), ()))
    return out


def polyder(p, m: int = 1) -> Tensor:
    """The `m`-th derivative of polynomial `p` (coefficients, highest power first)."""
    p = _poly(p)
    if m < 0:
        raise ValueError("kiln.numpy.polyder: the order must be non-negative.")
    for _ in range(int(m)):
        n = p.shape[0] - 1
        if n <= 0:
            return ops.zeros((1,), p.dtype)
        powers = Tensor(np.arange(n, 0, -1).astype(p.dtype.np))
        p = ops.mul(ops.narrow(p, 0, 0, n), powers)
    return p


def polyint(p, m: int = 1, k=None) -> Tensor:
    """The `m`-th antiderivative of polynomial `p`, with integration constants `k` (zeros by default)."""
    p = as_float(_poly(p))
    m = int(m)
    if m < 0:
        raise ValueError("kiln.numpy.polyint: the order must be non-negative.")
    consts = [0.0] * m if k is None else ([k] * m if np.ndim(k) == 0 and not isinstance(k, Tensor) else list(k))
    if len(consts) < m:
        raise ValueError("kiln.numpy.polyint: 'k' must hold one constant per integration.")
    for i in range(m):
        n = p.shape[0]
        divisors = Tensor(np.arange(n, 0, -1).astype(p.dtype.np))
        c = ops.reshape(cast(to_tensor(consts[i]), p.dtype), (1,))
        p = ops.concat([ops.div(p, divisors), c], 0)
    return p


def histogram_bin_edges(a, bins=10, range=None, weights=None) -> Tensor:  # noqa: A002
    """The edges of the bins `histogram` uses.

    Args:
        a (Tensor | list): the data (flattened).
        bins (int | sequence): the number of equal-width bins, or the edges themselves.
        range (tuple | None): (low, high) of the bins (the data's range by default).
        weights: unused (NumPy's signature).

    Returns:
        1-D float32 Tensor.
    """
    a = as_float(ops.reshape(to_tensor(a), (-1,)))
    if not isinstance(bins, (int, np.integer)):
        return cast(to_tensor(bins), a.dtype)
    if range is not None:
        lo, hi = (cast(to_tensor(v), a.dtype) for v in range)
    else:
        lo, hi = ops.amin(a), ops.amax(a)
    same = ops.equal(lo, hi)
    lo = ops.select(same, ops.sub(lo, 0.5), lo)
    hi = ops.select(same, ops.add(hi, 0.5), hi)
    return _linspace(lo, hi, int(bins) + 1)


def _linspace(lo: Tensor, hi: Tensor, num: int) -> Tensor:
    steps = ops.arange(0, num, 1, dtype=lo.dtype)
    out = ops.add(lo, ops.mul(steps, ops.div(ops.sub(hi, lo), num - 1)))
    last = ops.equal(ops.arange(0, num, 1, dtype=mstype.int32), num - 1)
    return ops.select(last, ops.broadcast_to(hi, (num,)), out)


def _bin_index(x: Tensor, edges: Tensor) -> Tensor:
    """The bin of each value (-1 outside the edges; the last bin includes its right edge)."""
    nb = edges.shape[0] - 1
    idx = ops.sub(ops.searchsorted(edges, x, right=True, out_int32=True), 1)
    last = ops.narrow(edges, 0, nb, 1)
    idx = ops.select(ops.equal(x, last), ops.full_like(idx, nb - 1), idx)
    outside = ops.logical_or(ops.less(x, ops.narrow(edges, 0, 0, 1)), ops.greater(x, last))
    return ops.select(outside, ops.full_like(idx, -1), idx)


def _count(idx: Tensor, nbins: int, weights: Tensor | None) -> Tensor:
    hits = ops.cast(ops.equal(ops.expand_dims(idx, -1), ops.arange(0, nbins, 1, dtype=mstype.int32)), mstype.float32)
    if weights is not None:
        hits = ops.mul(hits, ops.expand_dims(as_float(weights), -1))
    return ops.sum(hits, 0)


def histogram(a, bins=10, range=None, weights=None, density: bool = False) -> tuple:  # noqa: A002
    """The histogram of the data (flattened).

    Args:
        a (Tensor | list): the data.
        bins (int | sequence): the number of equal-width bins, or the edges.
        range (tuple | None): (low, high) of the bins.
        weights (Tensor | list | None): a weight per value.
        density (bool): normalise to a probability density.

    Returns:
        (counts as float32, edges).
    """
    a = as_float(ops.reshape(to_tensor(a), (-1,)))
    edges = histogram_bin_edges(a, bins, range)
    nb = edges.shape[0] - 1
    w = None if weights is None else ops.reshape(to_tensor(weights), (-1,))
    counts = _count(_bin_index(a, edges), nb, w)
    if density:
        widths = diff(edges)
        counts = ops.div(ops.div(counts, ops.sum(counts)), widths)
    return counts, edges


def histogramdd(sample, bins=10, range=None, weights=None, density: bool = False) -> tuple:  # noqa: A002
    """The multidimensional histogram of `sample` (N points of D coordinates, or a sequence of D arrays).

    Returns:
        (counts as float32 of one axis per dimension, list of edges).
    """
    if isinstance(sample, (list, tuple)):
        s = ops.stack([ops.reshape(to_tensor(c), (-1,)) for c in sample], 1)
    else:
        s = to_tensor(sample)
        s = ops.reshape(s, (-1, 1)) if s.ndim == 1 else s
    s = as_float(s)
    d = s.shape[1]
    if isinstance(bins, Tensor) and bins.ndim == 2:
        bins = list(ops.unstack(bins, 0))
    bins_list = list(bins) if isinstance(bins, (list, tuple)) and len(bins) == d else [bins] * d
    ranges = list(range) if range is not None else [None] * d
    edges, flat = [], None
    sizes = []
    valid = None
    for i in builtins.range(d):
        col = ops.narrow(s, 1, i, 1)
        col = ops.reshape(col, (-1,))
        e = histogram_bin_edges(col, bins_list[i], ranges[i])
        nb = e.shape[0] - 1
        idx = _bin_index(col, e)
        ok = ops.greater_equal(idx, 0)
        valid = ok if valid is None else ops.logical_and(valid, ok)
        flat = idx if flat is None else ops.add(ops.mul(flat, nb), idx)
        edges.append(e)
        sizes.append(nb)
    flat = ops.select(valid, flat, ops.full_like(flat, -1))
    w = None if weights is None else ops.reshape(to_tensor(weights), (-1,))
    counts = ops.reshape(_count(flat, int(np.prod(sizes)), w), tuple(sizes))
    if density:
        total = ops.sum(counts)
        vol = None
        for i, e in enumerate(edges):
            shape = [1] * d
            shape[i] = sizes[i]
            wd = ops.reshape(diff(e), tuple(shape))
            vol = wd if vol is None else ops.mul(vol, wd)
        counts = ops.div(ops.div(counts, total), vol)
    return counts, edges


def histogram2d(x, y, bins=10, range=None, weights=None, density: bool = False) -> tuple:  # noqa: A002
    """The 2-D histogram of points (x, y).

    Returns:
        (counts, x edges, y edges).
    """
    counts, edges = histogramdd([x, y], bins, range, weights, density)
    return counts, edges[0], edges[1]


def bincount(x, weights=None, minlength: int = 0, length=None) -> Tensor:
    """Counts (or summed `weights`) of each value of non-negative 1-D integer `x`.

    Args:
        x (Tensor | list): the values.
        weights (Tensor | list | None): a weight per value.
        minlength (int): the least number of bins.
        length (int | None): the number of bins (values beyond are dropped); without it, the number depends on
            the data (PyNative only).

    Returns:
        float32 Tensor (as MindSpore 2.10).
    """
    x = to_tensor(x)
    if length is not None:
        w = None if weights is None else to_tensor(weights)
        return _count(cast(x, mstype.int32), int(length), w)
    return ops.bincount(x, None if weights is None else to_tensor(weights), int(minlength))


def searchsorted(a, v, side: str = "left", sorter=None) -> Tensor:
    """Where `v` would be inserted into sorted 1-D `a` to keep it sorted (int32).

    Args:
        a (Tensor | list): sorted 1-D values (or any, with `sorter`).
        v (Tensor | list | number): the values to place.
        side (str): 'left' (first suitable position) or 'right' (last).
        sorter (Tensor | list | None): indices that sort `a`.

    Returns:
        Tensor of the shape of `v`.
    """
    if side not in ("left", "right"):
        raise ValueError(f"kiln.numpy.searchsorted: 'side' must be 'left' or 'right', but got {side!r}.")
    a, v = _promote(*to_tensors(a, v))
    if sorter is not None:
        a = ops.gather(a, cast(to_tensor(sorter), mstype.int32), 0)
    scalar = v.ndim == 0
    out = ops.searchsorted(a, ops.reshape(v, (1,)) if scalar else v, right=side == "right", out_int32=True)
    return ops.reshape(out, ()) if scalar else out


def digitize(x, bins, right: bool = False) -> Tensor:
    """The index of the bin of each value of `x` (bins increasing or decreasing).

    Args:
        x (Tensor | list): the values.
        bins (Tensor | list): 1-D monotonic bin edges.
        right (bool): bins include their right edge instead of the left one.

    Returns:
        int32 Tensor of the shape of `x`.
    """
    x, b = _promote(*to_tensors(x, bins))
    n = b.shape[0]
    up = ops.searchsorted(b, x, right=not right, out_int32=True)
    down = ops.sub(n, ops.searchsorted(ops.flip(b, (0,)), x, right=not right, out_int32=True))
    if n < 2:
        return up
    increasing = ops.less_equal(ops.narrow(b, 0, 0, 1), ops.narrow(b, 0, n - 1, 1))
    return ops.select(ops.broadcast_to(increasing, tuple(up.shape)), up, down)
