"""Value checks (`Bounds`) for primitives whose indices or labels come from data.

Each `*_bounds` below is a `Bounds` ready to pass to `PrimitiveDef(bounds=...)`. The tests are
written against an array namespace `xp`: `jnp` (the default) when a compiled graph traces them,
NumPy when PyNative checks concrete index values on the host. They share one detail layout,
built by `first_outside`:

    detail = [value, lo, hi, axis, *position]

the first offending value, the half-open range [lo, hi) it had to lie in, the axis of the
indexed tensor it addresses, and its position in the index tensor.
"""

from __future__ import annotations

import numpy as np

from kiln._backend import jnp
from kiln._core.primitive import Bounds, IndexValueError

_SMALL = 64  # index arrays up to this size are checked with Python comparisons (NumPy's per-call cost is higher)


def _all_inside(idx: np.ndarray, lo, hi, ignore) -> bool:
    """Host fast path: every value of `idx` in [lo, hi) (or equal to `ignore`)?"""
    if idx.size == 0:
        return True
    if type(lo) is not int or type(hi) is not int:  # per-column bounds (GatherNd)
        bad = (idx < lo) | (idx >= hi)
        return not (bad if ignore is None else bad & (idx != ignore)).any()
    if idx.size <= _SMALL:
        values = idx.ravel().tolist()
        if ignore is None:
            return lo <= min(values) and max(values) < hi
        return all(lo <= v < hi or v == ignore for v in values)
    if ignore is None:
        return bool(idx.min() >= lo and idx.max() < hi)
    return not (((idx < lo) | (idx >= hi)) & (idx != ignore)).any()


def first_outside(idx, lo, hi, axis, ignore=None, xp=jnp):
    """(ok, detail) for the first element of `idx` outside [lo, hi).

    `lo`, `hi` and `axis` are ints or arrays broadcastable to `idx` (GatherNd checks a different
    axis in each column). Elements equal to `ignore` (an ignore_index) never fail. With NumPy
    inputs (`xp=np`) the detail is only built when something is out of range (else it is None).
    """
    idx = xp.asarray(idx)
    if xp is np and _all_inside(idx, lo, hi, ignore):
        return True, None
    i64 = lambda v: xp.asarray(v).astype(xp.int64)  # noqa: E731
    lo_b, hi_b, axis_b = (xp.broadcast_to(i64(v), idx.shape) for v in (lo, hi, axis))
    bad = (idx < lo_b) | (idx >= hi_b)
    if ignore is not None:
        bad = bad & (idx != ignore)
    if idx.size == 0:
        return xp.asarray(True), xp.zeros((4 + idx.ndim,), xp.int64)
    flat = xp.argmax(bad.reshape(-1))
    pick = lambda a: a.reshape(-1)[flat]  # noqa: E731
    pos = xp.unravel_index(flat, idx.shape) if idx.ndim else ()
    detail = xp.stack([i64(pick(idx)), pick(lo_b), pick(hi_b), pick(axis_b), *(i64(p) for p in pos)])
    return ~xp.any(bad), detail


def _no_detail(xp):
    return (True, None) if xp is np else (xp.asarray(True), xp.zeros((4,), xp.int64))


def _where(position) -> str:
    return f"[{', '.join(str(p) for p in position)}]" if position else ""


def index_message(index_name: str, source: str, what: str = "axis {axis} of '{source}' has size {hi}"):
    """A message builder for the common layout: names the bad value, where it sits, the bound and the axis."""

    def message(detail, **_attrs) -> str:
        value, lo, hi, axis, *position = detail
        where = what.format(axis=axis, source=source, hi=hi)
        return (
            f"the index {value} at {index_name}{_where(position)} is out of range: {where}, "
            f"so each index must be in [{lo}, {hi})."
        )

    return message


def _axis(axis: int, ndim: int) -> int:
    return axis % max(ndim, 1)


def _integer(x) -> bool:
    dt = getattr(x, "dtype", None)
    return dt is not None and np.issubdtype(np.dtype(dt), np.integer)


# ---- gather-like ----------------------------------------------------------------------------------
def _gather_test(x, indices, *, axis, batch_dims, xp=jnp):
    ax = _axis(axis, len(x.shape))
    n = x.shape[ax]
    return first_outside(indices, -n, n, ax, xp=xp)


gather_bounds = Bounds(_gather_test, index_message("input_indices", "input_params"), reads=(1,))


def _gather_d_test(x, index, *, dim, xp=jnp):
    ax = _axis(dim, len(x.shape))
    n = x.shape[ax]
    return first_outside(index, -n, n, ax, xp=xp)


gather_d_bounds = Bounds(_gather_d_test, index_message("index", "input"), reads=(1,))


def _nd_test(shape, indices, xp):
    """Each column k of the last axis of `indices` addresses axis k of `shape`; negatives are refused."""
    indices = xp.asarray(indices)
    k = indices.shape[-1] if indices.ndim else 0
    if k == 0:
        return _no_detail(xp)
    hi = xp.asarray(shape[:k], xp.int64)
    return first_outside(indices, 0, hi, xp.arange(k), xp=xp)


gather_nd_bounds = Bounds(
    lambda x, indices, xp=jnp: _nd_test(x.shape, indices, xp), index_message("indices", "input_x"), reads=(1,)
)
scatter_nd_bounds = Bounds(
    lambda indices, updates, *, shape, xp=jnp: _nd_test(tuple(shape), indices, xp),
    index_message("indices", "shape", "axis {axis} of the output 'shape' has size {hi}"),
    reads=(0,),
)
tensor_scatter_bounds = Bounds(
    lambda x, indices, updates, xp=jnp: _nd_test(x.shape, indices, xp),
    index_message("indices", "input_x"),
    reads=(1,),
)
# TensorScatterUpdate (and ScatterNdUpdate, ScatterUpdate, which Kiln runs through it): MindSpore 2.10 raises
# ValueError (probed; RuntimeError for the other tensor scatters), which IndexValueError also is
tensor_scatter_update_bounds = Bounds(
    tensor_scatter_bounds.test, tensor_scatter_bounds.message, IndexValueError, reads=tensor_scatter_bounds.reads
)


def _scatter_elements_test(x, index, src, *, dim, reduce, xp=jnp):
    ax = _axis(dim, len(x.shape))
    n = x.shape[ax]
    return first_outside(index, -n, n, ax, xp=xp)


scatter_elements_bounds = Bounds(_scatter_elements_test, index_message("indices", "input_x"), reads=(1,))


def _embedding_test(indices, weight, *, padding_idx, xp=jnp):
    n = weight.shape[0]
    return first_outside(indices, -n, n, 0, xp=xp)


embedding_bounds = Bounds(_embedding_test, index_message("input", "weight", "'weight' has {hi} rows"), reads=(0,))


# ---- Tensor indexing ------------------------------------------------------------------------------
def _tensor_dims(spec: tuple, ndim: int, tensors: tuple) -> list[tuple[int, int]]:
    """(position in `tensors`, axis of the indexed tensor) for every integer index tensor in `spec`."""
    items = [it for it in spec if not (it[0] in "nb" or (it[0] == "t" and not _integer(tensors[it[1]])))]
    if any(it[0] == "e" for it in items):
        cut = next(i for i, it in enumerate(items) if it[0] == "e")
        head, tail = items[:cut], items[cut + 1 :]
        placed = list(enumerate(head)) + [(ndim - len(tail) + i, it) for i, it in enumerate(tail)]
    else:
        placed = list(enumerate(items))
    return [(it[1], dim) for dim, it in placed if it[0] == "t" and 0 <= dim < ndim]


def _index_test(x, tensors: tuple, spec: tuple, xp):
    shape = tuple(x.shape)
    dims = _tensor_dims(spec, len(shape), tensors)
    checks = [first_outside(tensors[k], -shape[d], shape[d], d, xp=xp) for k, d in dims]
    if xp is np:
        return next(((ok, detail) for ok, detail in checks if not ok), (True, None))
    if not checks:
        return _no_detail(xp)
    ok, detail = checks[-1][0], checks[-1][1][:4]
    for k_ok, k_detail in reversed(checks[:-1]):  # the first failing index tensor wins
        detail = xp.where(k_ok, detail, k_detail[:4])
        ok = ok & k_ok
    return ok, detail


def _index_message(detail, **_attrs) -> str:
    value, lo, hi, axis = detail[:4]
    return (
        f"index {value} is out of bounds for axis {axis} with size {hi}: "
        f"each index in an index tensor must be in [{lo}, {hi})."
    )


_ALL_FROM = 1 << 16  # "every input from this position on": the index tensors of getitem / setitem


def _no_index_tensor(spec: tuple) -> bool:
    """An index of ints (checked before dispatch, kiln/ops/_indexing.py), slices, None and Ellipsis only."""
    return not any(item[0] == "t" for item in spec)


getitem_bounds = Bounds(
    lambda x, *idx, spec, xp=jnp: _index_test(x, idx, spec, xp),
    _index_message,
    reads=range(1, _ALL_FROM),
    idle=_no_index_tensor,
)
setitem_bounds = Bounds(
    lambda x, value, *idx, spec, xp=jnp: _index_test(x, idx, spec, xp),
    _index_message,
    reads=range(2, _ALL_FROM),
    idle=_no_index_tensor,
)


# ---- class labels ---------------------------------------------------------------------------------
def label_message(label_name: str):
    """A message builder for class labels: the bad label, where it sits, and the number of classes."""

    def message(detail, **attrs) -> str:
        value, lo, hi, _axis_, *position = detail
        ignore = attrs.get("ignore_index")
        also = f" (or equal to 'ignore_index', {ignore})" if ignore is not None else ""
        return (
            f"the label {value} at {label_name}{_where(position)} is out of range: the logits have {hi} classes, "
            f"so each label must be in [{lo}, {hi}){also}."
        )

    return message


def _one_hot_message(detail, **attrs) -> str:
    value, lo, hi, _axis_, *position = detail
    return (
        f"the class value {value} at tensor{_where(position)} is out of range: num_classes is {hi}, so each class "
        f"value must be in [{lo}, {hi})."
    )


# mint's one_hot (PyTorch's): an index outside [0, num_classes) is an error (ops.one_hot gives a row of off_value)
one_hot_ext_bounds = Bounds(
    lambda indices, *, num_classes, xp=jnp: first_outside(indices, 0, num_classes, 0, xp=xp),
    _one_hot_message,
    RuntimeError,
    reads=(0,),
)


def _sparse_sce_test(logits, labels, *, is_grad, xp=jnp):
    c = logits.shape[-1]
    return first_outside(labels, 0, c, len(logits.shape) - 1, xp=xp)


sparse_sce_bounds = Bounds(_sparse_sce_test, label_message("labels"), ValueError, reads=(1,))


def _class_loss_test(x, target, weight, *, reduction, ignore_index, label_smoothing, xp=jnp):
    if not _integer(target):  # class probabilities: nothing to check
        return _no_detail(xp)
    c_axis = 1 if len(x.shape) >= 2 else 0
    return first_outside(target, 0, x.shape[c_axis], c_axis, ignore=ignore_index, xp=xp)


class_loss_bounds = Bounds(_class_loss_test, label_message("target"), ValueError, reads=(1,))


# ---- sequence losses --------------------------------------------------------------------------------
def _ctc_test(log_probs, targets, input_lengths, target_lengths, *, blank, zero_infinity, xp=jnp):
    """Each label within its sample's target length must be a class of log_probs (padding is not read)."""
    t = xp.asarray(targets)
    used = xp.arange(t.shape[-1])[None, :] < xp.asarray(target_lengths).reshape(-1, 1)
    return first_outside(xp.where(used, t, 0), 0, log_probs.shape[-1], 2, xp=xp)


ctc_bounds = Bounds(
    _ctc_test,
    index_message("targets", "log_probs", "'log_probs' has {hi} classes (axis {axis})"),
    reads=(1, 3),
)
