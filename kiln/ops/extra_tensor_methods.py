"""More of MindSpore's Tensor and Parameter methods, installed onto the classes when `kiln.ops` is imported.

Most are the method face of a functional op (`t.bincount()` is `ops.bincount(t)`): those come from the list
`FROM_OPS`, each installed only where the class has no method of that name yet.
"""

from __future__ import annotations

import numpy as np

from kiln._core import dtype as mstype
from kiln._core.tensor import Parameter, Tensor
from kiln.ops import linalg

# MindSpore Tensor methods that are `ops.<name>(self, ...)`.
FROM_OPS = (
    "absolute", "acosh", "arccosh", "arcsinh", "arctan2", "arctanh", "asinh", "atanh", "bernoulli", "bincount",
    "bitwise_left_shift", "bitwise_right_shift", "bmm", "cummax", "cummin", "diag", "digamma", "divide", "dot",
    "erfinv", "gather_nd", "hardshrink", "inner", "inverse", "lgamma", "mm", "multinomial", "outer", "searchsorted",
    "trace", "unique", "xdivy", "diagonal", "frac", "baddbmm", "addbmm", "addmm", "addmv", "addr", "heaviside",
    "isposinf", "isneginf", "det", "slogdet", "logdet", "msort", "fliplr", "flipud", "argwhere", "nextafter",
    "adjoint", "angle", "cholesky", "cholesky_inverse", "cholesky_solve", "copysign", "cov", "cross", "diagflat",
    "diagonal_scatter", "diff", "dsplit", "hsplit", "vsplit", "tensor_split", "eigvals", "fills", "float_power",
    "fmax", "fmin", "gcd", "lcm", "geqrf", "histc", "i0", "igamma", "igammac", "index_fill", "inplace_update", "inv",
    "invert", "isreal", "ldexp", "logaddexp", "logaddexp2", "logcumsumexp", "logit", "lstsq", "lu_solve",
    "masked_scatter", "matrix_determinant", "log_matrix_determinant", "matrix_power", "mvlgamma", "nan_to_num",
    "nanmean", "nanmedian", "median", "orgqr", "ormqr", "renorm", "reverse", "reverse_sequence", "rot90",
    "select_scatter", "slice_scatter", "sgn", "signbit", "sinc", "soft_shrink", "svd", "take", "top_k",
    "unique_consecutive", "unsorted_segment_max", "unsorted_segment_min", "unsorted_segment_prod", "addcmul",
    "aminmax", "unfold",
)  # fmt: skip


def _method(fn, name: str):
    def method(self, *args, **kwargs):
        return fn(self, *args, **kwargs)

    method.__name__ = method.__qualname__ = name
    method.__doc__ = f"`ops.{name}(self, ...)`."
    return method


def _more_linalg():

    return linalg


def _not_2d(name):
    raise ValueError(f"Tensor.{name} is defined for 2-D tensors only; use Tensor.mH for batches of matrices.")


def _set_data(self, value):
    self.assign_value(value)


def _requires_grad_(self, requires_grad=True):
    """A Parameter's `requires_grad` flag set; a plain Tensor has none in Kiln (gradients are taken by position)."""
    if isinstance(self, Parameter):
        self.requires_grad = requires_grad
    return self


def _set_dtype(self, dtype):
    """Change the Parameter's dtype in place (its values cast)."""
    self._data = self._data.astype(mstype.to_dtype(dtype).np)
    return self


def _inplace(fn):
    """A method `t.op_(...)`: `t` takes the value of `fn(t, ...)` (its dtype kept) and is returned."""

    def method(self, *args, **kwargs):
        out = fn(self, *args, **kwargs)
        return self.assign_value(out.astype(self.dtype) if out.dtype != self.dtype else out)

    return method


def _index_put(self, indices, values, accumulate=False):
    """`self` with `values` written (or added) at the positions given by a tuple of index Tensors."""
    from kiln import ops  # noqa: PLC0415

    shape = np.broadcast_shapes(*(tuple(i.shape) for i in indices))
    idx = ops.stack([ops.broadcast_to(ops.cast(i, mstype.int64), shape) for i in indices], -1)
    vals = ops.broadcast_to(ops.cast(values, self.dtype), idx.shape[:-1] + self.shape[len(indices) :])
    if accumulate:
        return ops.tensor_scatter_add(self, idx, vals)
    return ops.tensor_scatter_update(self, idx, vals)


def _quantile(self, q, axis=None, keepdims=False, *, ignore_nan=False):
    """Quantiles `q` (a float or a 1-D Tensor in [0, 1]) with linear interpolation, along `axis` (None: all)."""
    from kiln import ops  # noqa: PLC0415

    x = ops.reshape(self, (-1,)) if axis is None else self
    ax = 0 if axis is None else axis % x.ndim
    scalar_q = not isinstance(q, Tensor)
    qt = Tensor([float(q)], x.dtype) if scalar_q else ops.reshape(ops.cast(q, x.dtype), (-1,))
    values = ops.sort(x, ax)[0]
    n = x.shape[ax]
    if ignore_nan:
        count = ops.sum(ops.cast(ops.logical_not(ops.isnan(x)), x.dtype), ax, True)
    else:
        count = Tensor(float(n), x.dtype)
    pos = qt.reshape((-1,) + (1,) * x.ndim) * (count - 1)  # (Q, ...)
    lo = ops.floor(pos)
    hi = ops.minimum(ops.ceil(pos), ops.maximum(count - 1, 0))
    frac = pos - lo
    vals = ops.broadcast_to(ops.expand_dims(values, 0), (qt.shape[0], *values.shape))

    def take(p):
        idx = ops.cast(ops.maximum(p, 0), mstype.int64)
        idx = ops.broadcast_to(idx, (qt.shape[0],) + tuple(1 if i == ax else s for i, s in enumerate(x.shape)))
        return ops.gather_elements(vals, ax + 1, idx)

    out = take(lo) + (take(hi) - take(lo)) * frac.broadcast_to(take(lo).shape)
    if not ignore_nan:
        has_nan = ops.any(ops.isnan(x), ax, True)
        out = ops.select(
            ops.broadcast_to(ops.expand_dims(has_nan, 0), out.shape), ops.full_like(out, float("nan")), out
        )
    if axis is None:
        out = ops.reshape(out, (qt.shape[0],) + ((1,) * self.ndim if keepdims else ()))
    elif not keepdims:
        out = ops.squeeze(out, ax + 1)
    return out[0] if scalar_q else out


def _stride(self, dim=None):
    strides = tuple(int(np.prod(self.shape[i + 1 :])) for i in range(self.ndim))
    return strides if dim is None else strides[dim]


def _sum_to_size(self, *size):
    from kiln import ops  # noqa: PLC0415

    size = tuple(size[0]) if len(size) == 1 and not isinstance(size[0], int) else tuple(size)
    lead = self.ndim - len(size)
    out = ops.sum(self, tuple(range(lead)), False) if lead > 0 else self
    axes = tuple(i for i, s in enumerate(size) if s == 1 and out.shape[i] != 1)
    return ops.sum(out, axes, True) if axes else out


def _unique_with_pad(self, pad_num):
    from kiln import ops  # noqa: PLC0415

    values, idx = ops.unique(self)
    n = self.shape[0]
    pad = ops.full((n - values.shape[0],), pad_num, dtype=values.dtype)
    return ops.concat((values, pad), 0), idx


def _choose(self, choices, mode="clip"):
    from kiln import ops  # noqa: PLC0415

    stacked = ops.stack([c if isinstance(c, Tensor) else Tensor(c) for c in choices], 0)
    n = stacked.shape[0]
    idx = ops.clamp(self, 0, n - 1) if mode == "clip" else (ops.floor_mod(self, n) if mode == "wrap" else self)
    shape = np.broadcast_shapes(tuple(idx.shape), tuple(stacked.shape[1:]))
    idx = ops.broadcast_to(ops.cast(idx, mstype.int64), shape)
    stacked = ops.broadcast_to(stacked, (n, *shape))
    return ops.squeeze(ops.gather_elements(stacked, 0, ops.expand_dims(idx, 0)), 0)


def _type(self, dtype=None):
    if dtype is None:
        return str(self.dtype)
    return self.astype(dtype)


def _resize(self, *new_shape):
    from kiln import ops  # noqa: PLC0415

    shape = tuple(new_shape[0]) if len(new_shape) == 1 and not isinstance(new_shape[0], int) else tuple(new_shape)
    flat = ops.reshape(self, (-1,))
    size = int(np.prod(shape)) if shape else 1
    if size > flat.shape[0]:
        flat = ops.concat((flat, ops.zeros((size - flat.shape[0],), self.dtype)), 0)
    return ops.reshape(flat[:size], shape)


def _itemset(self, *args):
    """A copy with one element set (`t.itemset(value)` for one element, `t.itemset(flat_index, value)`,
    `t.itemset((i, j), value)`); `self` is unchanged, as MindSpore."""
    value = args[-1]
    arr = self.asnumpy().copy()
    if len(args) == 1:
        arr.reshape(-1)[0] = value
    elif len(args) == 2 and isinstance(args[0], int):
        arr.reshape(-1)[args[0]] = value
    else:
        arr[tuple(args[0])] = value
    return Tensor(arr, self.dtype)


def install() -> None:
    from kiln import ops  # noqa: PLC0415  (called at the end of kiln.ops' own import)

    for name in FROM_OPS:
        if not hasattr(Tensor, name) and callable(getattr(ops, name, None)):
            setattr(Tensor, name, _method(getattr(ops, name), name))
    extra = {
        "type_as": lambda self, other: self.astype(other.dtype),
        "new_zeros": lambda self, size, dtype=None: ops.zeros(size, dtype or self.dtype),
        "new_ones": lambda self, size, dtype=None: ops.ones(size, dtype or self.dtype),
        "new_full": lambda self, size, fill_value, dtype=None: ops.full(size, fill_value, dtype=dtype or self.dtype),
        "new_empty": lambda self, size, dtype=None, device=None: ops.zeros(size, dtype or self.dtype),
        "swapdims": lambda self, dim0, dim1: ops.swapaxes(self, dim0, dim1),
        "movedim": lambda self, source, destination: ops.moveaxis(self, source, destination),
        "t": lambda self: self if self.ndim < 2 else ops.transpose(self, (1, 0)),
        "positive": lambda self: self,
        "deg2rad": lambda self: self * np.float32(np.pi / 180),
        "rad2deg": lambda self: self * np.float32(180 / np.pi),
        "is_floating_point": lambda self: self.dtype.is_floating,
        "is_complex": lambda self: self.dtype.is_complex,
        "is_signed": lambda self: self.dtype.kind in "fic",
        "expand": lambda self, size: ops.broadcast_to(self, tuple(size) if not isinstance(size, int) else (size,)),
        "ger": lambda self, vec2: ops.outer(self, vec2),
        "ptp": lambda self, axis=None, keepdims=False: ops.amax(self, axis, keepdims) - ops.amin(self, axis, keepdims),
        "clip_by_value": lambda self, clip_value_min=None, clip_value_max=None: ops.clip_by_value(
            self, clip_value_min, clip_value_max
        ),
        "approximate_equal": lambda self, other, tolerance=1e-05: ops.abs(self - other) < tolerance,
        "argmax_with_value": lambda self, axis=0, keep_dims=False: ops.ArgMaxWithValue(axis, keep_dims)(self)[::-1],
        "argmin_with_value": lambda self, axis=0, keep_dims=False: ops.ArgMinWithValue(axis, keep_dims)(self)[::-1],
        "byte": lambda self: self.astype(mstype.uint8),
        "short": lambda self: self.astype(mstype.int16),
        "bfloat16": lambda self: self.astype(mstype.bfloat16),
        "fill": lambda self, value: ops.full_like(self, value),
        "index_add": lambda self, dim, index, source, *, alpha=1: ops.index_add(self, index, source * alpha, dim),
        "index_put": _index_put,
        "qr": lambda self, some=True: ops.qr(self, "reduced" if some else "complete"),
        "quantile": lambda self, q, axis=None, keepdims=False: _quantile(self, q, axis, keepdims),
        "nanquantile": lambda self, q, axis=None, keepdims=False: _quantile(self, q, axis, keepdims, ignore_nan=True),
        "random_categorical": lambda self, num_sample, seed=0, dtype=mstype.int64: ops.RandomCategorical(dtype)(
            self, num_sample, seed
        ),
        "scatter_sub": lambda self, indices, updates: ops.tensor_scatter_add(self, indices, -updates),
        "scatter_mul": lambda self, indices, updates: ops.tensor_scatter_update(
            self, indices, ops.gather_nd(self, indices) * updates
        ),
        "scatter_div": lambda self, indices, updates: ops.tensor_scatter_update(
            self, indices, ops.gather_nd(self, indices) / updates
        ),
        "scatter_max": lambda self, indices, updates: ops.tensor_scatter_max(self, indices, updates),
        "scatter_min": lambda self, indices, updates: ops.tensor_scatter_min(self, indices, updates),
        "triangular_solve": lambda self, A, upper=True, transpose=False, unitriangular=False: (
            _more_linalg().triangular_solve(self, A, upper, transpose, unitriangular)
        ),
        "stride": _stride,
        "storage_offset": lambda self: 0,
        "sum_to_size": _sum_to_size,
        "unique_with_pad": _unique_with_pad,
        "choose": _choose,
        "type": _type,
        "resize": _resize,
        "itemset": _itemset,
        "value": lambda self: self,
        "data_ptr": lambda self: id(self._data),
        "is_shared": lambda self: False,
        "is_pinned": lambda self: False,
        "pin_memory": lambda self: self,
        "to_": lambda self, device=None, non_blocking=False: self,
        "requires_grad_": _requires_grad_,
        "add_": _inplace(lambda self, other, *, alpha=1: ops.add(self, other * alpha if alpha != 1 else other)),
        "sub_": _inplace(lambda self, other, *, alpha=1: ops.sub(self, other * alpha if alpha != 1 else other)),
        "div_": _inplace(lambda self, value, *, rounding_mode=None: ops.div(self, value, rounding_mode=rounding_mode)),
        "addmm_": _inplace(
            lambda self, mat1, mat2, *, beta=1, alpha=1: ops.addmm(self, mat1, mat2, beta=beta, alpha=alpha)
        ),
        "clamp_": _inplace(lambda self, min=None, max=None: ops.clamp(self, min, max)),
        "masked_fill_": _inplace(lambda self, mask, value: ops.masked_fill(self, mask, value)),
        "erfinv_": _inplace(lambda self: ops.erfinv(self)),
        "exp_": _inplace(lambda self: ops.exp(self)),
        "floor_": _inplace(lambda self: ops.floor(self)),
        "log_": _inplace(lambda self: ops.log(self)),
        "sigmoid_": _inplace(lambda self: ops.sigmoid(self)),
        "sign_": _inplace(lambda self: ops.sign(self)),
    }
    for name, fn in extra.items():
        if not hasattr(Tensor, name):
            fn.__name__ = fn.__qualname__ = name
            setattr(Tensor, name, fn)
    for name, prop in {
        "H": property(lambda self: ops.adjoint(self) if self.ndim == 2 else _not_2d("H")),
        "mH": property(lambda self: ops.adjoint(self)),
        "data": property(lambda self: self, _set_data),
    }.items():
        if not hasattr(Tensor, name):
            setattr(Tensor, name, prop)
    if not hasattr(Tensor, "set_dtype"):
        Tensor.set_dtype = _set_dtype
    if not hasattr(Tensor, "from_numpy"):
        Tensor.from_numpy = staticmethod(lambda array: Tensor(np.asarray(array)))
    if not hasattr(Parameter, "set_dtype"):
        Parameter.set_dtype = _set_dtype
