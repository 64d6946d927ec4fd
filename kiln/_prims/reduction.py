"""Reductions, scans (cumulative log-sum-exp too), sorting and unsorted segment reductions."""

from __future__ import annotations

from kiln._backend import jax, jnp, lax
from kiln._core.primitive import PrimitiveDef, op_error
from kiln._prims._checks import normalize_axis
from kiln._prims._division import true_divide
from kiln._prims._low_precision import HALF_DTYPES, rounds_once_from_float32
from kiln._prims.math import float_of


def _check_axes(op):
    def check(x, axis=None, **_):
        nd = len(getattr(x, "shape", ()))
        for a in axis or ():
            normalize_axis(op, a, nd)

    return check


def _reduce(fn, *, as_float=False):
    def impl(x, axis, keep_dims):
        x = jnp.asarray(x)
        if as_float and not jnp.issubdtype(x.dtype, jnp.inexact):
            x = x.astype(jnp.float32)
        return fn(x, axis=axis, keepdims=keep_dims)

    return impl


def _accumulated(fn):
    """`fn` with float16/bfloat16 inputs accumulated in float32 and the result cast back: a float16 running sum
    of 3,000 x 0.1 stalls at 299 (float16 has 11 bits of mantissa), NumPy and MindSpore give 300."""

    def wrapped(x, axis, keepdims):
        if x.dtype in HALF_DTYPES:
            return fn(x.astype(jnp.float32), axis, keepdims).astype(x.dtype)
        return fn(x, axis, keepdims)

    return wrapped


@_accumulated
def _sum(x, axis, keepdims):
    # Sums keep the input's dtype, as MindSpore does (NumPy would widen int32 to int64).
    dt = x.dtype if x.dtype != jnp.bool_ else jnp.int64
    return jnp.sum(x, axis=axis, keepdims=keepdims, dtype=dt)


@_accumulated
def _prod(x, axis, keepdims):
    return jnp.prod(x, axis=axis, keepdims=keepdims, dtype=x.dtype if x.dtype != jnp.bool_ else jnp.int64)


def _mean(x, axis, keepdims):
    # float16/bfloat16: the float32 sum divided by the count as a division rounded once, then rounded to the input's
    # dtype (jnp.mean's division becomes a product by 1/count on XLA, which can move the result by one ulp, where
    # MindSpore divides); float32 keeps jnp.mean (one float32 ulp at most, and no barrier's cost)
    if x.dtype not in HALF_DTYPES:
        return jnp.mean(x, axis=axis, keepdims=keepdims)
    total = jnp.sum(x.astype(jnp.float32), axis=axis, keepdims=keepdims)
    count = x.size // total.size if total.size else 1
    return true_divide(total, jnp.asarray(count, total.dtype), exact=True).astype(x.dtype)


_REDUCE_ATTRS = {"axis": None, "keep_dims": False}
ReduceSum = PrimitiveDef("ReduceSum", _reduce(_sum), attrs=_REDUCE_ATTRS, check=_check_axes("ReduceSum"))
ReduceMean = PrimitiveDef(
    "ReduceMean", _reduce(_mean, as_float=True), attrs=_REDUCE_ATTRS, check=_check_axes("ReduceMean")
)


def _chooser_vjp(pick):
    """The derivative of a max/min reduction: `dout` split equally among the elements equal to the result (ties
    share it, as MindSpore's and the backend's rules do). `x` passes an optimization barrier and the result is
    taken again from it: in a compiled graph the backend may otherwise compute `x` twice, in the reduction's
    fusion and in the comparison's, and a last-bit difference between the two leaves no element equal to the
    result: 0/0 = NaN (the zoo's CBAM attention in GRAPH_MODE)."""

    def vjp(x, out, dout, axis, keep_dims):
        x = lax.optimization_barrier(x)
        picked = pick(x, axis=axis, keepdims=True)
        mask = x == picked
        dout = dout if keep_dims else jnp.reshape(dout, picked.shape)
        return (jnp.where(mask, dout / jnp.sum(mask, axis=axis, keepdims=True, dtype=x.dtype), 0).astype(x.dtype),)

    return vjp


ReduceMax = PrimitiveDef(
    "ReduceMax", _reduce(jnp.max), attrs=_REDUCE_ATTRS, check=_check_axes("ReduceMax"), vjp=_chooser_vjp(jnp.max)
)
ReduceMin = PrimitiveDef(
    "ReduceMin", _reduce(jnp.min), attrs=_REDUCE_ATTRS, check=_check_axes("ReduceMin"), vjp=_chooser_vjp(jnp.min)
)
ReduceProd = PrimitiveDef("ReduceProd", _reduce(_prod), attrs=_REDUCE_ATTRS, check=_check_axes("ReduceProd"))
ReduceAll = PrimitiveDef("ReduceAll", _reduce(jnp.all), attrs=_REDUCE_ATTRS, check=_check_axes("ReduceAll"))
ReduceAny = PrimitiveDef("ReduceAny", _reduce(jnp.any), attrs=_REDUCE_ATTRS, check=_check_axes("ReduceAny"))
ReduceLogSumExp = PrimitiveDef(
    "ReduceLogSumExp",
    _reduce(jax.scipy.special.logsumexp, as_float=True),
    attrs=_REDUCE_ATTRS,
    check=_check_axes("ReduceLogSumExp"),
)


def _var(x, axis, keep_dims, correction):
    x = jnp.asarray(x)
    if not jnp.issubdtype(x.dtype, jnp.inexact):
        x = x.astype(jnp.float32)
    return jnp.var(x, axis=axis, keepdims=keep_dims, ddof=correction)


Var = PrimitiveDef("Var", _var, attrs={"axis": None, "keep_dims": False, "correction": 1})


def _check_one_axis(op):
    def check(x, axis=0, **_):
        if axis is not None:
            normalize_axis(op, axis, len(getattr(x, "shape", ())))

    return check


def _arg_extremum(arg):
    def impl(x, axis, keep_dims, output_type):
        if jnp.ndim(x) == 0 and axis in (0, -1):  # a 0-d input: index 0 (as torch, MindSpore)
            return jnp.zeros((), output_type)
        return arg(x, axis=axis, keepdims=keep_dims).astype(output_type)

    return impl


Argmax = PrimitiveDef(
    "Argmax",
    _arg_extremum(jnp.argmax),
    attrs={"axis": -1, "keep_dims": False, "output_type": jnp.int64},
    check=_check_one_axis("Argmax"),
)
Argmin = PrimitiveDef(
    "Argmin",
    _arg_extremum(jnp.argmin),
    attrs={"axis": -1, "keep_dims": False, "output_type": jnp.int64},
    check=_check_one_axis("Argmin"),
)


def first_extreme(x: jax.Array, axis: int, keepdims: bool = False, lowest: bool = False) -> tuple[jax.Array, jax.Array]:
    """(value, index) of the maximum (the minimum when `lowest`) of `x` over `axis`, at its first occurrence.

    The value is read at the index, so that its gradient goes to that one element, as MindSpore's does; a max/min
    reduction's derivative would share it among tied elements (PointNet's max over points, the zeros after a ReLU).
    """
    index = (jnp.argmin if lowest else jnp.argmax)(x, axis=axis, keepdims=True)
    value = jnp.take_along_axis(x, index, axis=axis)
    if not keepdims:
        value, index = jnp.squeeze(value, axis), jnp.squeeze(index, axis)
    return value, index


def _max_with_index(lowest: bool):
    def impl(x, axis, keep_dims):
        if jnp.ndim(x) == 0 and axis in (0, -1):  # a 0-d input is its own extreme, at index 0 (as torch, MindSpore)
            return x, jnp.zeros((), jnp.int64)
        value, index = first_extreme(x, axis, keep_dims, lowest)
        return value, index.astype(jnp.int64)

    return impl


def _index_with_value(name: str, lowest: bool) -> PrimitiveDef:
    """ArgMaxWithValue / ArgMinWithValue: (index, value) along one checked axis."""
    value_and_index = _max_with_index(lowest)
    return PrimitiveDef(
        name,
        lambda x, axis, keep_dims: value_and_index(x, axis, keep_dims)[::-1],
        attrs={"axis": 0, "keep_dims": False},
        multiple_results=True,
        check=_check_one_axis(name),
    )


ArgMaxWithValue = _index_with_value("ArgMaxWithValue", lowest=False)
ArgMinWithValue = _index_with_value("ArgMinWithValue", lowest=True)
MaxDim = PrimitiveDef("MaxDim", _max_with_index(False), attrs={"axis": 0, "keep_dims": False}, multiple_results=True)
MinDim = PrimitiveDef("MinDim", _max_with_index(True), attrs={"axis": 0, "keep_dims": False}, multiple_results=True)


def _cumsum(x, axis, exclusive, reverse):
    x = jnp.asarray(x)
    if reverse:
        x = jnp.flip(x, axis)
    acc = jnp.float32 if x.dtype in HALF_DTYPES else x.dtype  # as _accumulated: float16 partial sums stall
    out = jnp.cumsum(x, axis=axis, dtype=acc)
    if exclusive:
        out = out - x.astype(acc)
    out = out.astype(x.dtype)
    return jnp.flip(out, axis) if reverse else out


def _cumprod(x, axis, exclusive, reverse):
    x = jnp.asarray(x)
    if reverse:
        x = jnp.flip(x, axis)
    out = jnp.cumprod(x, axis=axis, dtype=x.dtype)
    if exclusive:
        pad = [(0, 0)] * x.ndim
        pad[axis] = (1, 0)
        out = lax.slice_in_dim(jnp.pad(out, pad, constant_values=1), 0, x.shape[axis], axis=axis)
    return jnp.flip(out, axis) if reverse else out


_SCAN_ATTRS = {"axis": 0, "exclusive": False, "reverse": False}
CumSum = PrimitiveDef("CumSum", _cumsum, attrs=_SCAN_ATTRS, check=_check_one_axis("CumSum"))
CumProd = PrimitiveDef("CumProd", _cumprod, attrs=_SCAN_ATTRS, check=_check_one_axis("CumProd"))


def _along(scan):
    """lax's `scan` along `axis`, a negative one counting from the end (lax's scans take only a non-negative one)."""
    return lambda x, axis: scan(x, axis=axis % max(jnp.ndim(x), 1))


CumMax = PrimitiveDef("CumMax", _along(lax.cummax), attrs={"axis": 0}, check=_check_one_axis("CumMax"))
CumMin = PrimitiveDef("CumMin", _along(lax.cummin), attrs={"axis": 0}, check=_check_one_axis("CumMin"))


def _topk(x, k, dim, largest, sorted):
    x = jnp.asarray(x)
    moved = jnp.moveaxis(x, dim, -1)
    vals, idx = lax.top_k(moved if largest else -moved, k)
    if not largest:
        vals = -vals
    if not sorted:
        # Unsorted: Kiln returns the chosen elements in their input order (so k == n gives the input back).
        order = jnp.argsort(idx, axis=-1)
        vals, idx = jnp.take_along_axis(vals, order, -1), jnp.take_along_axis(idx, order, -1)
    return jnp.moveaxis(vals, -1, dim), jnp.moveaxis(idx.astype(jnp.int32), -1, dim)  # int32, as MindSpore


def _check_topk(x, k, dim, **_):
    shape = getattr(x, "shape", ())
    d = normalize_axis("TopK", dim, len(shape), "dim")
    if shape and not 0 <= k <= shape[d]:
        raise op_error("TopK", f"'k' must be in [0, {shape[d]}] for input shape {list(shape)}, but got {k}.")


TopK = PrimitiveDef(
    "TopK",
    _topk,
    attrs={"k": 1, "dim": -1, "largest": True, "sorted": True},
    multiple_results=True,
    check=_check_topk,
)


def _sort(x, axis, descending):
    x = jnp.asarray(x)
    idx = jnp.argsort(-x if descending else x, axis=axis, stable=True)
    return jnp.take_along_axis(x, idx, axis=axis), idx.astype(jnp.int32)  # int32, as MindSpore


Sort = PrimitiveDef(
    "Sort",
    _sort,
    attrs={"axis": -1, "descending": False},
    multiple_results=True,
    nondiff=(),
    check=_check_one_axis("Sort"),
)


CumulativeLogsumexp = PrimitiveDef(
    "CumulativeLogsumexp",
    # float16 in float32, rounded once: XLA's quick and optimised CPU programs ran its float16 steps differently
    rounds_once_from_float32(
        lambda x, axis, reverse: lax.cumlogsumexp(float_of(x), axis=axis % max(jnp.ndim(x), 1), reverse=reverse)
    ),
    attrs={"axis": 0, "reverse": False},
)


def _segment(kind):
    fn = {"sum": jax.ops.segment_sum, "max": jax.ops.segment_max, "min": jax.ops.segment_min,
          "prod": jax.ops.segment_prod}[kind]  # fmt: skip

    def impl(x, ids, num_segments):
        lead = ids.ndim
        flat = x.reshape((-1,) + x.shape[lead:])
        flat_ids = ids.reshape(-1)
        out = fn(flat, flat_ids, num_segments=num_segments)
        if kind in ("max", "min") and jnp.issubdtype(x.dtype, jnp.floating):
            count = jax.ops.segment_sum(jnp.ones_like(flat_ids), flat_ids, num_segments=num_segments)
            count = count.reshape((-1,) + (1,) * (out.ndim - 1))
            edge = jnp.finfo(x.dtype).min if kind == "max" else jnp.finfo(x.dtype).max
            out = jnp.where(count > 0, out, jnp.asarray(edge, x.dtype))
        return out

    return impl


def _check_segment(op):
    def check(x, ids, num_segments):
        xs, s = tuple(getattr(x, "shape", ())), tuple(getattr(ids, "shape", ()))
        if xs[: len(s)] != s:
            raise op_error(op, f"the shape of 'segment_ids' {s} must be a prefix of the input's shape {xs}.")
        if num_segments <= 0:
            raise op_error(op, f"'num_segments' must be positive, but got {num_segments}.")

    return check


def _segment_prod_vjp(x, ids, out, dout, num_segments):
    """d prod / d x_i = the product of the segment's other entries (the backend has no rule for a segment product):
    prod / x_i where the segment holds no zero, the product of its non-zero entries at its one zero, 0 elsewhere
    (dividing the product by x_i gave NaN at a zero); dropped ids get 0."""
    lead = ids.ndim
    valid = (ids >= 0) & (ids < num_segments)
    safe = jnp.where(valid, ids, 0)
    flat, flat_ids = x.reshape((-1,) + x.shape[lead:]), ids.reshape(-1)
    zero = flat == 0
    zeros_in = jax.ops.segment_sum(zero.astype(jnp.int32), flat_ids, num_segments=num_segments)[safe]
    nonzero_prod = jax.ops.segment_prod(jnp.where(zero, jnp.ones_like(flat), flat), flat_ids,
                                        num_segments=num_segments)[safe]  # fmt: skip
    x_safe = jnp.where(x == 0, jnp.ones_like(x), x)
    others = jnp.where(
        x == 0, jnp.where(zeros_in == 1, nonzero_prod, 0), jnp.where(zeros_in == 0, nonzero_prod / x_safe, 0)
    )
    mask = valid.reshape(valid.shape + (1,) * (x.ndim - lead))
    return jnp.where(mask, others * dout[safe], 0).astype(x.dtype), None


for _kind in ("sum", "max", "min", "prod"):
    _n = f"UnsortedSegment{_kind.capitalize()}"
    PrimitiveDef(
        _n,
        _segment(_kind),
        attrs={"num_segments": 1},
        check=_check_segment(_n),
        nondiff=(1,),
        vjp=_segment_prod_vjp if _kind == "prod" else None,
    )
