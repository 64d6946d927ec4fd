"""Shape, layout, indexing (diagonals too) and creation primitives."""

from __future__ import annotations

import math

import numpy as np

from kiln._backend import jax, jnp, lax
from kiln._core.primitive import PrimitiveDef, op_error
from kiln._prims import _bounds
from kiln._prims._checks import broadcast_shapes, normalize_axis, shape_of
from kiln._prims._promote import float32_scalars


def _check_reshape(x, shape):
    size = math.prod(shape_of(x))
    known = math.prod(d for d in shape if d != -1)
    if shape.count(-1) > 1:
        inferred = shape.count(-1)
        raise op_error("Reshape", f"only one size of 'shape' may be -1 (inferred); {list(shape)} has {inferred}.")
    ok = size == known if -1 not in shape else (known != 0 and size % known == 0)
    if not ok:
        raise op_error(
            "Reshape",
            f"the product of input_x's shape {list(shape_of(x))} ({size} elements) should be equal to "
            f"the product of 'shape' {list(shape)}.",
        )


Reshape = PrimitiveDef(
    "Reshape",
    lambda x, shape: jnp.reshape(x, shape),
    attrs={"shape": ()},
    check=_check_reshape,
    amp_cast=False,
)


def _check_perm(x, perm):
    nd = len(shape_of(x))
    if len(perm) != nd or sorted(p % max(nd, 1) for p in perm) != list(range(nd)):
        raise op_error(
            "Transpose",
            f"'input_perm' must be a permutation of range({nd}) for shape {list(shape_of(x))}, but got {list(perm)}.",
        )


Transpose = PrimitiveDef(
    "Transpose", lambda x, perm: jnp.transpose(x, perm), attrs={"perm": ()}, check=_check_perm, amp_cast=False
)
ExpandDims = PrimitiveDef(
    "ExpandDims",
    lambda x, axis: jnp.expand_dims(x, axis),
    attrs={"axis": 0},
    check=lambda x, axis: normalize_axis("ExpandDims", axis, len(shape_of(x)) + 1),
    amp_cast=False,
)


def _check_squeeze(x, axis):
    shape = shape_of(x)
    for a in axis or ():
        a = normalize_axis("Squeeze", a, len(shape))
        if shape[a] != 1:
            raise op_error(
                "Squeeze",
                f"cannot select an axis to squeeze out which has size not equal to one, "
                f"axis {a} of shape {list(shape)}.",
            )


Squeeze = PrimitiveDef(
    "Squeeze",
    lambda x, axis: jnp.squeeze(x, axis if axis else None),
    attrs={"axis": ()},
    check=_check_squeeze,
    amp_cast=False,
)


def _check_concat(*xs, axis):
    shapes = [shape_of(x) for x in xs]
    if not shapes:
        raise op_error("Concat", "the input tuple must not be empty.")
    nd = len(shapes[0])
    ax = normalize_axis("Concat", axis, nd)
    for i, s in enumerate(shapes):
        if len(s) != nd or any(a != b for j, (a, b) in enumerate(zip(s, shapes[0])) if j != ax):
            raise op_error(
                "Concat",
                f"all inputs must have the same shape except on axis {axis}, but input[0] has shape "
                f"{list(shapes[0])} and input[{i}] has shape {list(s)}.",
            )


Concat = PrimitiveDef(
    "Concat", lambda *xs, axis: jnp.concatenate(xs, axis=axis), attrs={"axis": 0}, check=_check_concat
)


def _check_stack(*xs, axis):
    shapes = [shape_of(x) for x in xs]
    for i, s in enumerate(shapes):
        if s != shapes[0]:
            raise op_error(
                "Stack",
                f"all inputs must have the same shape, but input[0] has shape {list(shapes[0])} "
                f"and input[{i}] has shape {list(s)}.",
            )
    normalize_axis("Stack", axis, len(shapes[0]) + 1)


Stack = PrimitiveDef("Stack", lambda *xs, axis: jnp.stack(xs, axis=axis), attrs={"axis": 0}, check=_check_stack)


def _split(x, axis, sections):
    return tuple(jnp.split(x, np.cumsum(sections)[:-1].tolist(), axis=axis))


Split = PrimitiveDef("Split", _split, attrs={"axis": 0, "sections": ()}, multiple_results=True, amp_cast=False)
Unstack = PrimitiveDef(
    "Unstack",
    lambda x, axis: tuple(jnp.moveaxis(x, axis, 0)),
    attrs={"axis": 0},
    multiple_results=True,
)
Tile = PrimitiveDef("Tile", lambda x, multiples: jnp.tile(x, multiples), attrs={"multiples": ()})


def _check_broadcast_to(x, shape):
    xs = shape_of(x)
    if len(shape) < len(xs):
        raise op_error("BroadcastTo", f"cannot broadcast shape {list(xs)} to {list(shape)}.")
    for a, b in zip(reversed(xs), reversed(shape)):
        if a != b and a != 1 and b != -1:
            raise op_error("BroadcastTo", f"cannot broadcast shape {list(xs)} to {list(shape)}.")
    # -1 keeps the input's size, so it has a meaning only where the input has an axis (the shapes align right)
    new_axes = len(shape) - len(xs)
    if -1 in tuple(shape)[:new_axes]:
        at = tuple(shape).index(-1)
        raise op_error("BroadcastTo", f"-1 at position {at} of {list(shape)} has no axis of the input {list(xs)} "
                                      f"to take its size from.")  # fmt: skip


def _broadcast_to(x, shape):
    x = jnp.asarray(x)
    full = tuple(x.shape[i - len(shape) + x.ndim] if d == -1 else d for i, d in enumerate(shape))
    return jnp.broadcast_to(x, full)


BroadcastTo = PrimitiveDef("BroadcastTo", _broadcast_to, attrs={"shape": ()}, check=_check_broadcast_to, amp_cast=False)
Flip = PrimitiveDef("Flip", lambda x, dims: jnp.flip(x, dims), attrs={"dims": ()})
Roll = PrimitiveDef("Roll", lambda x, shifts, dims: jnp.roll(x, shifts, dims), attrs={"shifts": 0, "dims": None})
Tril = PrimitiveDef("Tril", lambda x, diagonal: jnp.tril(x, diagonal), attrs={"diagonal": 0})
Triu = PrimitiveDef("Triu", lambda x, diagonal: jnp.triu(x, diagonal), attrs={"diagonal": 0})


def _pad(x, paddings, mode, value):
    if mode == "constant":
        return jnp.pad(x, paddings, mode="constant", constant_values=value)
    return jnp.pad(x, paddings, mode={"reflect": "reflect", "replicate": "edge", "circular": "wrap"}[mode])


Pad = PrimitiveDef("Pad", _pad, attrs={"paddings": (), "mode": "constant", "value": 0})


# ---- gather / scatter -------------------------------------------------------------
def _check_gather(x, indices, axis, batch_dims=0):
    normalize_axis("Gather", axis, len(shape_of(x)))
    dt = getattr(indices, "dtype", None)
    if dt is not None and np.dtype(getattr(dt, "np", dt)).kind not in "iu":
        raise op_error("Gather", f"'input_indices' must be an integer tensor, but got {dt}.", TypeError)


Gather = PrimitiveDef(
    "Gather",
    lambda x, indices, axis, batch_dims: (
        jnp.take(x, indices, axis=axis) if batch_dims == 0 else _batched_take(x, indices, axis, batch_dims)
    ),
    attrs={"axis": 0, "batch_dims": 0},
    nondiff=(1,),
    check=_check_gather,
    bounds=_bounds.gather_bounds,
)


def _batched_take(x, indices, axis, batch_dims):
    fn = lambda a, i: jnp.take(a, i, axis=axis - batch_dims)
    for _ in range(batch_dims):
        fn = jax.vmap(fn)
    return fn(x, indices)


GatherD = PrimitiveDef(
    "GatherD",
    lambda x, index, dim: jnp.take_along_axis(x, index, axis=dim),
    attrs={"dim": 0},
    nondiff=(1,),
    bounds=_bounds.gather_d_bounds,
)


def _gather_nd(x, indices):
    indices = jnp.asarray(indices)
    k = indices.shape[-1]
    return x[tuple(jnp.moveaxis(indices, -1, 0)[i] for i in range(k))]


GatherNd = PrimitiveDef("GatherNd", _gather_nd, nondiff=(1,), bounds=_bounds.gather_nd_bounds)


def _nd_index(indices):
    indices = jnp.asarray(indices)
    return tuple(jnp.moveaxis(indices, -1, 0)[i] for i in range(indices.shape[-1]))


ScatterNd = PrimitiveDef(
    "ScatterNd",
    lambda indices, updates, shape: jnp.zeros(shape, jnp.asarray(updates).dtype).at[_nd_index(indices)].add(updates),
    attrs={"shape": ()},
    nondiff=(0,),
    bounds=_bounds.scatter_nd_bounds,
)
_scatter_kw = {"nondiff": (1,), "bounds": _bounds.tensor_scatter_bounds}
TensorScatterUpdate = PrimitiveDef(
    "TensorScatterUpdate",
    lambda x, indices, updates: x.at[_nd_index(indices)].set(updates),
    **{**_scatter_kw, "bounds": _bounds.tensor_scatter_update_bounds},
)
TensorScatterAdd = PrimitiveDef(
    "TensorScatterAdd", lambda x, indices, updates: x.at[_nd_index(indices)].add(updates), **_scatter_kw
)
TensorScatterMax = PrimitiveDef(
    "TensorScatterMax", lambda x, indices, updates: x.at[_nd_index(indices)].max(updates), **_scatter_kw
)
TensorScatterMin = PrimitiveDef(
    "TensorScatterMin", lambda x, indices, updates: x.at[_nd_index(indices)].min(updates), **_scatter_kw
)
TensorScatterSub = PrimitiveDef(
    "TensorScatterSub", lambda x, indices, updates: x.at[_nd_index(indices)].add(-updates), **_scatter_kw
)


# The backend has no derivative of a scatter product or quotient whose indices repeat. Both rules are MindSpore's:
# exact where the indices are distinct; where they repeat, each update's gradient leaves out the other updates
# written to the same place, as MindSpore 2.10's does.
def _scatter_mul_vjp(x, indices, updates, *, out, dout):
    where = _nd_index(indices)
    return dout.at[where].multiply(updates), None, (dout * x)[where]


def _scatter_div_vjp(x, indices, updates, *, out, dout):
    where = _nd_index(indices)
    return dout.at[where].divide(updates), None, -(dout * x)[where] / (updates * updates)


TensorScatterMul = PrimitiveDef(
    "TensorScatterMul",
    lambda x, indices, updates: x.at[_nd_index(indices)].multiply(updates),
    vjp=_scatter_mul_vjp,
    **_scatter_kw,
)


def _scatter_div(x, indices, updates):
    if jnp.issubdtype(x.dtype, jnp.integer):  # truncating, as MindSpore's integer division (the backend's is true)
        return lax.div(x, jnp.ones_like(x).at[_nd_index(indices)].multiply(updates))
    return x.at[_nd_index(indices)].divide(updates)


TensorScatterDiv = PrimitiveDef(
    "TensorScatterDiv",
    _scatter_div,
    vjp=_scatter_div_vjp,
    **_scatter_kw,
)


def _scatter_dim(x, index, src, dim, reduce):
    x = jnp.asarray(x)
    index = jnp.asarray(index)
    # a list: jax >= 0.11 returns meshgrid's grids as a tuple (NumPy's type), 0.10 as a list
    grids = list(jnp.meshgrid(*[jnp.arange(s) for s in index.shape], indexing="ij"))
    grids[dim] = index
    src = jnp.broadcast_to(src, index.shape) if jnp.ndim(src) == 0 else src[tuple(slice(0, s) for s in index.shape)]
    ref = x.at[tuple(grids)]
    return {"none": ref.set, "add": ref.add, "multiply": ref.multiply}[reduce](src)


ScatterElements = PrimitiveDef(
    "TensorScatterElements",
    _scatter_dim,
    attrs={"dim": 0, "reduce": "none"},
    nondiff=(1,),
    bounds=_bounds.scatter_elements_bounds,
)


def _check_select(cond, x, y):
    broadcast_shapes("Select", broadcast_shapes("Select", shape_of(cond), shape_of(x)), shape_of(y))


Select = PrimitiveDef(
    "Select", float32_scalars(lambda cond, x, y: jnp.where(cond, x, y)), nondiff=(0,), check=_check_select
)
MaskedFill = PrimitiveDef(
    "MaskedFill",
    lambda x, mask, value: jnp.where(mask, jnp.asarray(value, dtype=jnp.asarray(x).dtype), x),
    nondiff=(1,),
)


def _one_hot(indices, on_value, off_value, depth, axis):
    # an index outside [0, depth) (-1, an ignore label such as 255) gives a row of off_value, as MindSpore's OneHot:
    # segmentation losses (the zoo's DeepLabV3) mask their ignored pixels this way
    hot = jax.nn.one_hot(indices, depth, axis=axis, dtype=jnp.bool_)
    on = jnp.asarray(on_value)
    return jnp.where(hot, on, jnp.asarray(off_value, on.dtype))


def _check_one_hot(indices, on_value, off_value, depth, axis):
    if depth < 0:
        raise op_error("OneHot", f"'depth' must be non-negative, but got {depth}.")
    nd = len(shape_of(indices))
    if not -1 <= axis <= nd:
        raise op_error("OneHot", f"'axis' must be in range [-1, {nd}], but got {axis}.")


OneHot = PrimitiveDef(
    "OneHot",
    float32_scalars(_one_hot),
    attrs={"depth": 1, "axis": -1},
    nondiff=(0,),
    check=_check_one_hot,
)


def _check_one_hot_ext(indices, num_classes):
    dt = np.dtype(getattr(indices.dtype, "np", indices.dtype))  # (an abstract input's dtype is Kiln's)
    if dt.kind not in "iu":
        raise op_error("OneHotExt", f"'tensor' must hold integers (class indices), but got {dt}.", TypeError)
    if num_classes < 0:
        raise op_error("OneHotExt", f"'num_classes' must be non-negative, but got {num_classes}.")


# mint.nn.functional.one_hot: int64 rows along a new last axis; an index outside [0, num_classes) raises (its
# value check, in PyNative and in a compiled graph) where OneHot gives off_value rows
OneHotExt = PrimitiveDef(
    "OneHotExt",
    lambda indices, num_classes: jax.nn.one_hot(indices, num_classes, dtype=jnp.int64),
    attrs={"num_classes": 1},
    nondiff=(0,),
    check=_check_one_hot_ext,
    bounds=_bounds.one_hot_ext_bounds,
)


# ---- creation -------------------------------------------------------------------
Fill = PrimitiveDef(
    "Fill", lambda value, shape, dtype: jnp.full(shape, value, dtype), attrs={"shape": (), "dtype": None}
)
ZerosLike = PrimitiveDef("ZerosLike", lambda x: jnp.zeros_like(x), amp_cast=False)
OnesLike = PrimitiveDef("OnesLike", lambda x: jnp.ones_like(x), amp_cast=False)
FullLike = PrimitiveDef("FullLike", lambda x, value: jnp.full_like(x, value))
Eye = PrimitiveDef("Eye", lambda n, m, dtype: jnp.eye(n, m, dtype=dtype), attrs={"n": 1, "m": None, "dtype": None})
Range = PrimitiveDef(
    "Range",
    lambda start, end, step, dtype: jnp.arange(start, end, step, dtype=dtype),
    attrs={"start": 0, "end": 1, "step": 1, "dtype": None},
)
LinSpace = PrimitiveDef(
    "LinSpace",
    lambda start, stop, num: jnp.linspace(start, stop, num, dtype=jnp.float32),
    attrs={"num": 1},
)


# ---- indexing ---------------------------------------------------------------------
# An index is encoded statically as a tuple of items:
#   ("i", n) int, ("s", start, stop, step) slice, ("n",) None, ("e",) Ellipsis, ("b", flag) a scalar bool,
#   ("t", k) the k-th dynamic index tensor (passed as an input after the data), ("d", k) an int passed as the k-th
#   input (PyNative's ints, kiln/ops/_indexing.py: one kernel for every value).
def build_index(spec: tuple, tensors: tuple) -> tuple:
    out = []
    for item in spec:
        tag = item[0]
        if tag == "i":
            out.append(item[1])
        elif tag == "s":
            out.append(slice(item[1], item[2], item[3]))
        elif tag == "n":
            out.append(None)
        elif tag == "e":
            out.append(Ellipsis)
        elif tag == "b":
            out.append(item[1])
        else:
            out.append(tensors[item[1]])
    return tuple(out)


GetItem = PrimitiveDef(
    "TensorGetItem",
    lambda x, *idx, spec: jnp.asarray(x)[build_index(spec, idx)],
    attrs={"spec": ()},
    nondiff=tuple(range(1, 33)),
    bounds=_bounds.getitem_bounds,
)


def _set_item(x, value, *idx, spec):
    x = jnp.asarray(x)
    index = build_index(spec, idx)
    value = jnp.asarray(value)
    # NumPy drops a value's leading axes of size 1 beyond the selection's rank (x[...] = v[None])
    extra = value.ndim - jnp.ndim(jax.eval_shape(lambda a: a[index], x))
    if extra > 0 and value.shape[:extra] == (1,) * extra:
        value = value.reshape(value.shape[extra:])
    return x.at[index].set(value.astype(x.dtype))


SetItem = PrimitiveDef(
    "TensorSetItem", _set_item, attrs={"spec": ()}, nondiff=tuple(range(2, 34)), bounds=_bounds.setitem_bounds
)
MaskedSet = PrimitiveDef(
    "TensorMaskedSet",
    lambda x, mask, value: jnp.where(mask, jnp.asarray(value).astype(jnp.asarray(x).dtype), x),
    nondiff=(1,),
)


def _check_diagonal(x, offset, dim1, dim2):
    nd = len(getattr(x, "shape", ()))
    if nd < 2:
        raise op_error("Diagonal", f"the input must have at least 2 dimensions, but got {nd}.")
    d1, d2 = dim1 % nd if -nd <= dim1 < nd else None, dim2 % nd if -nd <= dim2 < nd else None
    if d1 is None or d2 is None or d1 == d2:
        raise op_error("Diagonal", f"'dim1' {dim1} and 'dim2' {dim2} must be two different axes of a {nd}-D input.")


Diagonal = PrimitiveDef(
    "Diagonal",
    lambda x, offset, dim1, dim2: jnp.diagonal(x, offset, dim1, dim2),
    attrs={"offset": 0, "dim1": 0, "dim2": 1},
    check=_check_diagonal,
)
