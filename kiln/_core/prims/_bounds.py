"""Value checks (`Bounds`) for primitives whose indices or labels come from data.

Each `*_bounds` function below is a `Bounds` ready to pass to `PrimitiveDef(bounds=...)`.
They share one detail layout, built by `first_outside`:

    detail = [value, lo, hi, axis, *position]

the first offending value, the half-open range [lo, hi) it had to lie in, the axis of the
indexed tensor it addresses, and its position in the index tensor.
"""

from __future__ import annotations

from kiln._backend import jnp
from kiln._core.primitive import Bounds


def _i64(x):
    return jnp.asarray(x).astype(jnp.int64)


def first_outside(idx, lo, hi, axis, skip=None):
    """(ok, detail) for the first element of `idx` outside [lo, hi).

    `lo`, `hi` and `axis` are ints or arrays broadcastable to `idx` (GatherNd checks a different
    axis in each column). Elements where `skip` is True (an ignore_index) never fail.
    """
    idx = jnp.asarray(idx)
    lo_b, hi_b, axis_b = (jnp.broadcast_to(_i64(v), idx.shape) for v in (lo, hi, axis))
    bad = (idx < lo_b) | (idx >= hi_b)
    if skip is not None:
        bad = bad & ~skip
    if idx.size == 0:
        return jnp.asarray(True), jnp.zeros((4 + idx.ndim,), jnp.int64)
    flat = jnp.argmax(bad.reshape(-1))
    pick = lambda a: a.reshape(-1)[flat]  # noqa: E731
    pos = jnp.unravel_index(flat, idx.shape) if idx.ndim else ()
    detail = jnp.stack([_i64(pick(idx)), pick(lo_b), pick(hi_b), pick(axis_b), *(_i64(p) for p in pos)])
    return ~jnp.any(bad), detail


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
    return dt is not None and jnp.issubdtype(dt, jnp.integer)


def _no_detail(ok=True):
    return jnp.asarray(ok), jnp.zeros((4,), jnp.int64)


# ---- gather-like ----------------------------------------------------------------------------------
def _gather_test(x, indices, *, axis, batch_dims):
    ax = _axis(axis, jnp.ndim(x))
    n = jnp.shape(x)[ax]
    return first_outside(indices, -n, n, ax)


gather_bounds = Bounds(_gather_test, index_message("input_indices", "input_params"))


def _gather_d_test(x, index, *, dim):
    ax = _axis(dim, jnp.ndim(x))
    n = jnp.shape(x)[ax]
    return first_outside(index, -n, n, ax)


gather_d_bounds = Bounds(_gather_d_test, index_message("index", "input"))


def _nd_test(shape, indices):
    """Each column k of the last axis of `indices` addresses axis k of `shape`; negatives are refused."""
    indices = jnp.asarray(indices)
    k = indices.shape[-1] if indices.ndim else 0
    if k == 0:
        return _no_detail()
    hi = jnp.asarray(shape[:k], jnp.int64)
    return first_outside(indices, 0, hi, jnp.arange(k))


gather_nd_bounds = Bounds(lambda x, indices: _nd_test(jnp.shape(x), indices), index_message("indices", "input_x"))
scatter_nd_bounds = Bounds(
    lambda indices, updates, *, shape: _nd_test(tuple(shape), indices),
    index_message("indices", "shape", "axis {axis} of the output 'shape' has size {hi}"),
)
tensor_scatter_bounds = Bounds(
    lambda x, indices, updates: _nd_test(jnp.shape(x), indices), index_message("indices", "input_x")
)


def _scatter_elements_test(x, index, src, *, dim, reduce):
    ax = _axis(dim, jnp.ndim(x))
    n = jnp.shape(x)[ax]
    return first_outside(index, -n, n, ax)


scatter_elements_bounds = Bounds(_scatter_elements_test, index_message("indices", "input_x"))


def _one_hot_test(indices, on_value, off_value, *, depth, axis):
    return first_outside(indices, 0, depth, axis)


one_hot_bounds = Bounds(_one_hot_test, index_message("indices", "depth", "'depth' is {hi}"))


def _embedding_test(indices, weight, *, padding_idx):
    n = jnp.shape(weight)[0]
    return first_outside(indices, -n, n, 0)


embedding_bounds = Bounds(_embedding_test, index_message("input", "weight", "'weight' has {hi} rows"))


# ---- Tensor indexing ------------------------------------------------------------------------------
def _tensor_dims(spec: tuple, ndim: int, tensors: tuple) -> list[tuple[int, int]]:
    """(position in `tensors`, axis of the indexed tensor) for every integer index tensor in `spec`."""
    items = [it for it in spec if not (it[0] == "n" or (it[0] == "t" and not _integer(tensors[it[1]])))]
    if any(it[0] == "e" for it in items):
        cut = next(i for i, it in enumerate(items) if it[0] == "e")
        head, tail = items[:cut], items[cut + 1 :]
        placed = list(enumerate(head)) + [(ndim - len(tail) + i, it) for i, it in enumerate(tail)]
    else:
        placed = list(enumerate(items))
    return [(it[1], dim) for dim, it in placed if it[0] == "t" and 0 <= dim < ndim]


def _index_test(x, tensors: tuple, spec: tuple):
    shape = jnp.shape(x)
    checks = [first_outside(tensors[k], -shape[d], shape[d], d) for k, d in _tensor_dims(spec, len(shape), tensors)]
    if not checks:
        return _no_detail()
    ok, detail = checks[-1][0], checks[-1][1][:4]
    for k_ok, k_detail in reversed(checks[:-1]):  # the first failing index tensor wins
        detail = jnp.where(k_ok, detail, k_detail[:4])
        ok = ok & k_ok
    return ok, detail


def _index_message(detail, **_attrs) -> str:
    value, lo, hi, axis = detail[:4]
    return (
        f"index {value} is out of bounds for axis {axis} with size {hi}: "
        f"each index in an index tensor must be in [{lo}, {hi})."
    )


getitem_bounds = Bounds(lambda x, *idx, spec: _index_test(x, idx, spec), _index_message)
setitem_bounds = Bounds(lambda x, value, *idx, spec: _index_test(x, idx, spec), _index_message)


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


def _sparse_sce_test(logits, labels, *, is_grad):
    c = jnp.shape(logits)[-1]
    return first_outside(labels, 0, c, jnp.ndim(logits) - 1)


sparse_sce_bounds = Bounds(_sparse_sce_test, label_message("labels"), ValueError)


def _class_loss_test(x, target, weight, *, reduction, ignore_index, label_smoothing):
    if not _integer(target):  # class probabilities: nothing to check
        return _no_detail()
    c_axis = 1 if jnp.ndim(x) >= 2 else 0
    target = jnp.asarray(target)
    return first_outside(target, 0, jnp.shape(x)[c_axis], c_axis, skip=target == ignore_index)


class_loss_bounds = Bounds(_class_loss_test, label_message("target"), ValueError)
