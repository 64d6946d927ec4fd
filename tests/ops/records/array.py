"""Op records for the array ops: shapes, joins and splits, gather/scatter, selection, creation, diagonals and bands."""

from __future__ import annotations

import numpy as np
from scipy import linalg as sla

import kiln
from kiln import ops
from tests.ops.records import OpRecord

F32_I32 = (np.float32, np.int32)


def _rec(name, kiln_fn, ref, shapes, **kw) -> OpRecord:
    """A record; aliases of a primitive already gradient-checked by another record say grad=False."""
    return OpRecord(name, kiln_fn, ref, shapes=shapes, **kw)


def _unique_rows(n_rows: int, k: int):
    """make_inputs for tensor_scatter_*: x (n_rows, 3), unique row indices (k, 1), updates (k, 3)."""

    def make(rng, dtype, shapes):
        x = rng.uniform(-2, 2, size=(n_rows, 3)).astype(dtype)
        idx = rng.permutation(n_rows)[:k].reshape(k, 1).astype(np.int32)
        upd = rng.uniform(-2, 2, size=(k, 3)).astype(dtype)
        return [x, idx, upd]

    return make


def _unique_points(rng, dtype, shapes):
    """make_inputs for scatter_nd: unique (row, col) points of a (4, 5) grid, and updates."""
    flat = rng.permutation(20)[:6]
    idx = np.stack([flat // 5, flat % 5], -1).astype(np.int64)
    return [idx, rng.uniform(-2, 2, size=6).astype(dtype)]


def _repeated_values(rng, dtype, shapes):
    """make_inputs: a (3, 4) input drawn from three values, so that values and runs repeat."""
    return [rng.choice(np.array([-1.5, 0.5, 2.0]), size=shapes[0]).astype(dtype)]


def _np_unique_first(x):
    """The distinct values of `x` in the order they first appear."""
    flat = x.reshape(-1)
    return flat[np.sort(np.unique(flat, return_index=True)[1])]


def _np_runs(x):
    """The first value of each run of equal values in `x` flattened, each element's run, and the run lengths."""
    flat = x.reshape(-1)
    starts = np.flatnonzero(np.r_[True, flat[1:] != flat[:-1]])
    runs = (np.cumsum(np.r_[True, flat[1:] != flat[:-1]]) - 1).reshape(x.shape)
    return flat[starts], runs.astype(np.int64), np.diff(np.r_[starts, flat.size]).astype(np.int64)


def _out_of_range_labels(rng, dtype, shapes):
    """make_inputs for one_hot of depth 3: labels in [0, 3) mixed with -1, 3 and the ignore label 255."""
    return [rng.choice(np.array([0, 1, 2, -1, 3, 255], np.int32), size=shapes[0])]


def _np_scatter_nd(idx, upd, shape):
    out = np.zeros(shape, upd.dtype)
    np.add.at(out, tuple(np.moveaxis(idx, -1, 0)), upd)
    return out


def _np_tensor_scatter(fn):
    def ref(x, idx, upd):
        out = x.copy()
        key = tuple(np.moveaxis(idx, -1, 0))
        out[key] = fn(out[key], upd)
        return out

    return ref


def _scatter_elements_inputs(rng, dtype, shapes):
    """x (4, 3); per-column unique row indices (2, 3); src (2, 3): no write collisions."""
    x = rng.uniform(-2, 2, size=(4, 3)).astype(dtype)
    idx = np.stack([rng.permutation(4)[:2] for _ in range(3)], -1).astype(np.int64)
    return [x, idx, rng.uniform(-2, 2, size=(2, 3)).astype(dtype)]


def _np_scatter_elements(x, idx, src, reduce=None):
    out = x.copy()
    cols = np.broadcast_to(np.arange(idx.shape[1]), idx.shape)
    if reduce == "add":
        np.add.at(out, (idx, cols), src)
    else:
        out[idx, cols] = src
    return out


def _np_pad(x, pairs, mode, value=0.0):
    width = [(0, 0)] * (x.ndim - len(pairs)) + list(pairs)
    if mode == "constant":
        return np.pad(x, width, mode="constant", constant_values=value)
    return np.pad(x, width, mode={"reflect": "reflect", "replicate": "edge", "circular": "wrap"}[mode])


def _creation(name, kiln_fn, ref, **kw) -> OpRecord:
    return OpRecord(name, lambda: kiln_fn(), ref, shapes=(), grad=False, **kw)


def _cross_ref(a, b):
    return np.cross(a, b, axis=0)


def _index_inputs(rng, dtype, shapes):
    return [rng.uniform(-2, 2, size=shapes[0]).astype(dtype), np.array([2, 0], np.int32),
            rng.uniform(-2, 2, size=shapes[1]).astype(dtype)]  # fmt: skip


def _index_add_ref(x, idx, y):
    out = x.copy()
    np.add.at(out, (slice(None), idx), y)
    return out


def _index_fill_ref(x, idx):
    out = x.copy()
    out[:, idx] = -1.5
    return out


def _diag_scatter_ref(x, src):
    out = x.copy()
    n = min(x.shape[0], x.shape[1] - 1)
    out[np.arange(n), np.arange(n) + 1] = src
    return out


def _lrn_ref(x, r=2, bias=1.0, alpha=0.5, beta=0.75):
    c = x.shape[1]
    sq = np.pad(x**2, ((0, 0), (r, r), (0, 0), (0, 0)))
    acc = sum(sq[:, i : i + c] for i in range(2 * r + 1))
    return (x / (bias + alpha * acc) ** beta).astype(x.dtype)


def _boxes(rng, dtype, shapes):
    def make(n):
        lo = rng.uniform(0, 5, size=(n, 2))
        return np.concatenate([lo, lo + rng.uniform(1, 4, size=(n, 2))], 1).astype(dtype)

    return [make(shapes[0][0]), make(shapes[1][0])]


def _iou_ref(a, g):
    a, g = a[None], g[:, None]
    w = np.maximum(np.minimum(a[..., 2], g[..., 2]) - np.maximum(a[..., 0], g[..., 0]) + 1, 0)
    h = np.maximum(np.minimum(a[..., 3], g[..., 3]) - np.maximum(a[..., 1], g[..., 1]) + 1, 0)
    inter = w * h
    area = lambda b: (b[..., 2] - b[..., 0] + 1) * (b[..., 3] - b[..., 1] + 1)  # noqa: E731
    return (inter / (area(a) + area(g) - inter)).astype(a.dtype)


def _decode_inputs(rng, dtype, shapes):
    # anchors straddling the 6x8 image's edges and deltas that push boxes past them: the clipping is exercised
    lo = rng.uniform(-3, 6, size=(shapes[0][0], 2))
    anchors = np.concatenate([lo, lo + rng.uniform(1, 6, size=lo.shape)], 1).astype(dtype)
    return [anchors, rng.uniform(-1, 1, size=shapes[1]).astype(dtype)]


def _decode_ref(anchors, deltas, max_shape=(6, 8), stds=(0.1, 0.1, 0.2, 0.2), wh_ratio_clip=0.016):
    """MindSpore 2.10's BoundingBoxDecode kernel (CPU and GPU): x clipped to [0, width], y to [0, height]."""
    d = deltas * np.asarray(stds, anchors.dtype)
    limit = abs(np.log(wh_ratio_clip))
    dw, dh = np.clip(d[:, 2], -limit, limit), np.clip(d[:, 3], -limit, limit)
    pw, ph = anchors[:, 2] - anchors[:, 0] + 1, anchors[:, 3] - anchors[:, 1] + 1
    gx = (anchors[:, 0] + anchors[:, 2]) * 0.5 + pw * d[:, 0]
    gy = (anchors[:, 1] + anchors[:, 3]) * 0.5 + ph * d[:, 1]
    gw, gh = pw * np.exp(dw), ph * np.exp(dh)
    height, width = max_shape
    boxes = (gx - gw * 0.5 + 0.5, gy - gh * 0.5 + 0.5, gx + gw * 0.5 - 0.5, gy + gh * 0.5 - 0.5)
    limits = (width, height, width, height)
    return np.stack([np.clip(b, 0, m) for b, m in zip(boxes, limits, strict=True)], 1).astype(anchors.dtype)


def _take_inputs(rng, dtype, shapes):
    return [rng.uniform(-2, 2, size=shapes[0]).astype(dtype), np.array([[0, 7], [-1, 3]], np.int64)]


def _masked_scatter_inputs(rng, dtype, shapes):
    x = rng.uniform(-2, 2, size=shapes[0]).astype(dtype)
    return [x, rng.random(shapes[0]) < 0.5, rng.uniform(-2, 2, size=shapes[1]).astype(dtype)]


def _masked_scatter_ref(x, mask, src):
    out = x.copy()
    out[mask] = src.reshape(-1)[: int(mask.sum())]
    return out


def _diag_embed_ref(x):
    return np.stack([np.diag(r, 1) for r in x])


R = OpRecord


def _integers(rng, dtype, shapes):
    return [rng.integers(0, 4, size=s).astype(dtype) for s in shapes]


def _band_ref(lower, upper):
    def ref(x):
        i, j = np.arange(x.shape[-2])[:, None], np.arange(x.shape[-1])[None, :]
        keep = ((lower < 0) | (i - j <= lower)) & ((upper < 0) | (j - i <= upper))
        return np.where(keep, x, 0).astype(x.dtype)

    return ref


SHAPES = [
    _rec("reshape", lambda x: ops.reshape(x, (4, 6)), lambda x: x.reshape(4, 6), ((2, 3, 4),), dtypes=F32_I32),
    _rec("reshape_infer", lambda x: ops.reshape(x, (-1, 3)), lambda x: x.reshape(-1, 3), ((2, 3, 4),), grad=False),
    _rec("reshape_method", lambda x: x.reshape(3, 8), lambda x: x.reshape(3, 8), ((2, 3, 4),), grad=False),
    _rec("view", lambda x: x.view(6, 4), lambda x: x.reshape(6, 4), ((2, 3, 4),), grad=False),
    _rec("transpose", lambda x: ops.transpose(x, (2, 0, 1)), lambda x: x.transpose(2, 0, 1), ((2, 3, 4),),
         dtypes=(np.float32, np.int32, np.bool_)),
    _rec("permute_neg", lambda x: ops.permute(x, (-1, 0, 1)), lambda x: x.transpose(2, 0, 1), ((2, 3, 4),), grad=False),
    _rec("T", lambda x: x.T, lambda x: x.T, ((3, 4),), grad=False),
    _rec("swapaxes", lambda x: ops.swapaxes(x, 0, 2), lambda x: np.swapaxes(x, 0, 2), ((2, 3, 4),), grad=False),
    _rec("moveaxis", lambda x: ops.moveaxis(x, 0, -1), lambda x: np.moveaxis(x, 0, -1), ((2, 3, 4),), grad=False),
    _rec("expand_dims", lambda x: ops.expand_dims(x, 1), lambda x: np.expand_dims(x, 1), ((3, 4),)),
    _rec("expand_dims_0d", lambda x: ops.expand_dims(x, 0), lambda x: np.expand_dims(x, 0), ((),)),
    _rec("unsqueeze_neg", lambda x: ops.unsqueeze(x, -1), lambda x: np.expand_dims(x, -1), ((3, 4),), grad=False),
    _rec("squeeze_all", lambda x: ops.squeeze(x), lambda x: np.squeeze(x), ((3, 1, 4, 1),), dtypes=F32_I32, grad=False),
    _rec("squeeze_axis", lambda x: ops.squeeze(x, 1), lambda x: np.squeeze(x, 1), ((3, 1, 4, 1),)),
    # MindSpore 2.x leaves a listed axis whose size is not 1 in place instead of refusing it.
    _rec("squeeze_non_one_axis", lambda x: ops.squeeze(x, (0, 1)), lambda x: np.squeeze(x, 1), ((3, 1, 4),),
         grad=False),
    _rec("squeeze_axes", lambda x: ops.squeeze(x, (1, -1)), lambda x: np.squeeze(x, (1, 3)), ((3, 1, 4, 1),),
         grad=False),
    _rec("flatten", lambda x: ops.flatten(x), lambda x: x.reshape(x.shape[0], -1), ((2, 3, 4),), grad=False),
    _rec("flatten_dims", lambda x: ops.flatten(x, start_dim=0, end_dim=1), lambda x: x.reshape(6, 4), ((2, 3, 4),),
         grad=False),
    # order="F" reads the axes reversed (column-major), as NumPy's flatten(order="F")
    _rec("flatten_fortran", lambda x: ops.flatten(x, "F", start_dim=0), lambda x: x.flatten(order="F"), ((2, 3, 4),)),
    _rec("broadcast_to", lambda x: ops.broadcast_to(x, (2, 3, 4)), lambda x: np.broadcast_to(x, (2, 3, 4)),
         ((3, 1),), cases=(((4,),),)),
    _rec("broadcast_to_keep", lambda x: ops.broadcast_to(x, (2, -1, 4)), lambda x: np.broadcast_to(x, (2, 3, 4)),
         ((3, 1),), grad=False),
    _rec("tile", lambda x: ops.tile(x, (2, 1, 3)), lambda x: np.tile(x, (2, 1, 3)), ((3, 4),), dtypes=F32_I32),
    _rec("flip", lambda x: ops.flip(x, (0, 2)), lambda x: np.flip(x, (0, 2)), ((2, 3, 4),), dtypes=F32_I32),
    _rec("flip_int_dim", lambda x: ops.flip(x, -1), lambda x: np.flip(x, -1), ((3, 4),), grad=False),
    _rec("roll", lambda x: ops.roll(x, 2, 1), lambda x: np.roll(x, 2, 1), ((3, 4),), dtypes=F32_I32),
    _rec("roll_multi", lambda x: ops.roll(x, (1, -2), (0, 1)), lambda x: np.roll(x, (1, -2), (0, 1)), ((3, 4),)),
    _rec("roll_flat", lambda x: ops.roll(x, 5), lambda x: np.roll(x, 5), ((3, 4),), grad=False),
    _rec("tril", lambda x: ops.tril(x), np.tril, ((4, 5),), cases=(((2, 3, 3),),), dtypes=F32_I32),
    _rec("tril_diag", lambda x: ops.tril(x, -1), lambda x: np.tril(x, -1), ((4, 5),), grad=False),
    _rec("triu", lambda x: ops.triu(x), np.triu, ((4, 5),), dtypes=F32_I32),
    _rec("triu_diag", lambda x: ops.triu(x, 2), lambda x: np.triu(x, 2), ((4, 5),), grad=False),
    _rec("repeat_interleave", lambda x: ops.repeat_interleave(x, 2, 1), lambda x: np.repeat(x, 2, 1), ((3, 4),)),
    _rec("repeat_interleave_flat", lambda x: ops.repeat_interleave(x, 3), lambda x: np.repeat(x, 3), ((2, 3),),
         grad=False),
]  # fmt: skip


JOINS = [
    _rec("concat", lambda a, b: ops.concat((a, b), 1), lambda a, b: np.concatenate((a, b), 1), ((2, 3), (2, 5)),
         dtypes=(np.float32, np.int32, np.float16)),
    _rec("concat_three_neg_axis", lambda a, b, c: ops.concat([a, b, c], -1),
         lambda a, b, c: np.concatenate((a, b, c), -1), ((2, 3, 1), (2, 3, 2), (2, 3, 3))),
    _rec("cat", lambda a, b: ops.cat((a, b)), lambda a, b: np.concatenate((a, b)), ((2, 3), (4, 3)), grad=False),
    _rec("stack", lambda a, b: ops.stack((a, b)), lambda a, b: np.stack((a, b)), ((2, 3), (2, 3)), dtypes=F32_I32),
    _rec("stack_axis", lambda a, b, c: ops.stack([a, b, c], -1), lambda a, b, c: np.stack((a, b, c), -1),
         ((2, 3), (2, 3), (2, 3))),
    _rec("hstack", lambda a, b: ops.hstack((a, b)), lambda a, b: np.hstack((a, b)), ((2, 3), (2, 1)), grad=False),
    _rec("vstack", lambda a, b: ops.vstack((a, b)), lambda a, b: np.vstack((a, b)), ((3,), (3,)), grad=False),
    _rec("split_size", lambda x: ops.split(x, 2, 1), lambda x: tuple(np.split(x, [2, 4], 1)), ((3, 5),)),
    _rec("split_sections", lambda x: ops.split(x, [1, 3], 0), lambda x: tuple(np.split(x, [1], 0)), ((4, 2),),
         dtypes=F32_I32),
    _rec("chunk", lambda x: ops.chunk(x, 3, 1), lambda x: tuple(np.array_split(x, 3, 1)), ((2, 6),), grad=False),
    _rec("unstack", lambda x: ops.unstack(x, 1), lambda x: tuple(np.moveaxis(x, 1, 0)), ((2, 3, 4),)),
    _rec("unbind", lambda x: ops.unbind(x), lambda x: tuple(x), ((3, 2),), grad=False),
    _rec("meshgrid_xy", lambda a, b: ops.meshgrid(a, b), lambda a, b: tuple(np.meshgrid(a, b)), ((3,), (4,))),
    _rec("meshgrid_ij", lambda a, b, c: ops.meshgrid((a, b, c), indexing="ij"),
         lambda a, b, c: tuple(np.meshgrid(a, b, c, indexing="ij")), ((2,), (3,), (4,))),
]  # fmt: skip


GATHER_SCATTER = [
    _rec("gather_axis0", lambda x, i: ops.gather(x, i, 0), lambda x, i: np.take(x, i, 0), ((5, 3), (4,)),
         int_inputs=(1,), int_high=5, dtypes=F32_I32),
    _rec("gather_axis1_2d_index", lambda x, i: ops.gather(x, i, 1), lambda x, i: np.take(x, i, 1), ((2, 4, 3), (2, 2)),
         int_inputs=(1,), int_high=4, extra={"int_dtype": np.int32}),
    _rec("gather_batch_dims", lambda x, i: ops.gather(x, i, 1, batch_dims=1),
         lambda x, i: np.stack([np.take(x[b], i[b], 0) for b in range(x.shape[0])]), ((2, 4, 3), (2, 3)),
         int_inputs=(1,), int_high=4),
    _rec("index_select", lambda x, i: ops.index_select(x, 1, i), lambda x, i: np.take(x, i, 1), ((3, 4), (5,)),
         int_inputs=(1,), int_high=4, grad=False),
    _rec("gather_elements", lambda x, i: ops.gather_elements(x, 1, i), lambda x, i: np.take_along_axis(x, i, 1),
         ((3, 4), (3, 2)), int_inputs=(1,), int_high=4, dtypes=F32_I32),
    _rec("gather_elements_dim0", lambda x, i: ops.gather_elements(x, 0, i), lambda x, i: np.take_along_axis(x, i, 0),
         ((3, 4), (5, 4)), int_inputs=(1,), int_high=3, grad=False),
    _rec("gather_nd", ops.gather_nd, lambda x, i: x[tuple(np.moveaxis(i, -1, 0))], ((4, 5, 2), (3, 2)),
         int_inputs=(1,), int_high=4),
    _rec("gather_nd_full", ops.gather_nd, lambda x, i: x[tuple(np.moveaxis(i, -1, 0))], ((4, 4), (2, 3, 2)),
         int_inputs=(1,), int_high=4, extra={"int_dtype": np.int32}, grad=False),
    _rec("scatter_nd", lambda i, u: ops.scatter_nd(i, u, (4, 5)), lambda i, u: _np_scatter_nd(i, u, (4, 5)),
         ((6, 2), (6,)), extra={"make_inputs": _unique_points}),
    _rec("scatter_nd_accumulates", lambda i, u: ops.scatter_nd(i, u, (3, 2)), lambda i, u: _np_scatter_nd(i, u, (3, 2)),
         ((5, 1), (5, 2)), int_inputs=(0,), int_high=3),
    _rec("tensor_scatter_update", ops.tensor_scatter_update, _np_tensor_scatter(lambda old, new: new),
         ((5, 3), (2, 1), (2, 3)), extra={"make_inputs": _unique_rows(5, 2)}),
    _rec("tensor_scatter_add", ops.tensor_scatter_add, _np_tensor_scatter(lambda old, new: old + new),
         ((5, 3), (3, 1), (3, 3)), extra={"make_inputs": _unique_rows(5, 3)}),
    _rec("tensor_scatter_add_repeated", ops.tensor_scatter_add,
         lambda x, i, u: _np_scatter_nd(i, u, x.shape) + x, ((3, 2), (4, 1), (4, 2)), int_inputs=(1,), int_high=3),
    _rec("tensor_scatter_max", ops.tensor_scatter_max, _np_tensor_scatter(np.maximum),
         ((5, 3), (2, 1), (2, 3)), extra={"make_inputs": _unique_rows(5, 2)}),
    _rec("tensor_scatter_min", ops.tensor_scatter_min, _np_tensor_scatter(np.minimum),
         ((5, 3), (2, 1), (2, 3)), extra={"make_inputs": _unique_rows(5, 2)}),
    _rec("tensor_scatter_sub", ops.tensor_scatter_sub, _np_tensor_scatter(lambda old, new: old - new),
         ((5, 3), (3, 1), (3, 3)), extra={"make_inputs": _unique_rows(5, 3)}),
    _rec("tensor_scatter_mul", ops.tensor_scatter_mul, _np_tensor_scatter(lambda old, new: old * new),
         ((5, 3), (3, 1), (3, 3)), extra={"make_inputs": _unique_rows(5, 3)}),
    _rec("tensor_scatter_div", ops.tensor_scatter_div, _np_tensor_scatter(lambda old, new: old / new),
         ((5, 3), (2, 1), (2, 3)), domain=(0.5, 2.0), extra={"make_inputs": _unique_rows(5, 2)}),
    _rec("expand_as", ops.expand_as, lambda x, y: np.broadcast_to(x, y.shape), ((3, 1), (2, 3, 4))),
    _rec("view_as", ops.view_as, lambda x, y: x.reshape(y.shape), ((2, 6), (3, 4)), dtypes=F32_I32),
    _rec("type_as", lambda x: ops.type_as(x, kiln.Tensor(np.zeros(1, np.float16))), lambda x: x.astype(np.float16),
         ((3, 4),), grad=False, rtol=1e-3, atol=1e-3),
    _rec("tensor_scatter_elements", lambda x, i, s: ops.tensor_scatter_elements(x, i, s, 0),
         _np_scatter_elements, ((4, 3), (2, 3), (2, 3)), extra={"make_inputs": _scatter_elements_inputs}),
    _rec("scatter", lambda x, i, s: ops.scatter(x, 0, i, s), _np_scatter_elements, ((4, 3), (2, 3), (2, 3)),
         extra={"make_inputs": _scatter_elements_inputs}, grad=False),
    _rec("scatter_add", lambda x, i, s: ops.scatter_add(x, 0, i, s),
         lambda x, i, s: _np_scatter_elements(x, i, s, "add"), ((4, 3), (3, 3), (3, 3)), int_inputs=(1,), int_high=4),
]  # fmt: skip


SELECTION = [
    _rec("slice", lambda x: ops.slice(x, (0, 1, 1), (2, 2, -1)), lambda x: x[0:2, 1:3, 1:], ((3, 4, 5),),
         dtypes=F32_I32),
    _rec("narrow", lambda x: ops.narrow(x, 1, 1, 2), lambda x: x[:, 1:3], ((3, 4),), grad=False),
    _rec("select", ops.select, np.where, ((3, 4), (3, 4), (3, 4)), extra={"bool_inputs": (0,)}, dtypes=F32_I32),
    _rec("select_broadcast", ops.select, np.where, ((3, 1), (3, 4), (4,)), extra={"bool_inputs": (0,)}),
    _rec("where", ops.where, np.where, ((2, 3), (2, 3), (2, 3)), extra={"bool_inputs": (0,)}, grad=False),
    _rec("where_scalar", lambda c, x: ops.where(c, x, 0.0), lambda c, x: np.where(c, x, np.float32(0)),
         ((3, 4), (3, 4)), extra={"bool_inputs": (0,)}, grad=False),
    _rec("masked_fill", lambda x, m: ops.masked_fill(x, m, 0.5), lambda x, m: np.where(m, np.float32(0.5), x),
         ((3, 4), (3, 4)), extra={"bool_inputs": (1,)}),
    _rec("masked_fill_broadcast", lambda x, m: ops.masked_fill(x, m, -1.0), lambda x, m: np.where(m, np.float32(-1), x),
         ((2, 3, 4), (4,)), extra={"bool_inputs": (1,)}, grad=False),
    _rec("masked_fill_int", lambda x, m: ops.masked_fill(x, m, 7), lambda x, m: np.where(m, 7, x).astype(x.dtype),
         ((3, 4), (3, 4)), dtypes=(np.int32,), grad=False, extra={"bool_inputs": (1,)}),
    _rec("one_hot", lambda i: ops.one_hot(i, 4), lambda i: np.eye(4, dtype=np.int64)[i], ((5,),),
         int_inputs=(0,), int_high=4, grad=False),
    _rec("one_hot_values", lambda i: ops.one_hot(i, 3, kiln.Tensor(2.0), kiln.Tensor(-1.0)),
         lambda i: np.where(np.eye(3, dtype=bool)[i], 2.0, -1.0).astype(np.float32), ((2, 3),),
         int_inputs=(0,), int_high=3, grad=False, extra={"int_dtype": np.int32}),
    _rec("one_hot_axis0", lambda i: ops.one_hot(i, 3, 1.0, 0.0, axis=0),
         lambda i: np.eye(3, dtype=np.float32)[i].T, ((4,),), int_inputs=(0,), int_high=3, grad=False),
    # indices outside [0, depth): rows of off_value, as MindSpore's OneHot (ignore labels, -1)
    _rec("one_hot_out_of_range", lambda i: ops.one_hot(i, 3, kiln.Tensor(2.0), kiln.Tensor(-1.0)),
         lambda i: np.where(i[..., None] == np.arange(3), 2.0, -1.0).astype(np.float32), ((2, 4),), grad=False,
         extra={"make_inputs": _out_of_range_labels}),
    _rec("pad_constant", lambda x: ops.pad(x, (1, 2)), lambda x: _np_pad(x, [(1, 2)], "constant"), ((3, 4),),
         dtypes=F32_I32),
    _rec("pad_constant_value", lambda x: ops.pad(x, (1, 0, 0, 2), value=1.5),
         lambda x: _np_pad(x, [(0, 2), (1, 0)], "constant", 1.5), ((2, 3, 4),), grad=False),
    _rec("pad_negative", lambda x: ops.pad(x, (-1, 1)), lambda x: _np_pad(x[:, 1:], [(0, 1)], "constant"),
         ((3, 4),)),
    _rec("pad_reflect", lambda x: ops.pad(x, (2, 1, 1, 1), mode="reflect"),
         lambda x: _np_pad(x, [(1, 1), (2, 1)], "reflect"), ((1, 4, 5),)),
    _rec("pad_replicate", lambda x: ops.pad(x, (1, 2), mode="replicate"),
         lambda x: _np_pad(x, [(1, 2)], "replicate"), ((2, 3, 4),)),
    _rec("pad_circular", lambda x: ops.pad(x, (1, 2, 2, 0), mode="circular"),
         lambda x: _np_pad(x, [(2, 0), (1, 2)], "circular"), ((1, 3, 4),)),
    _rec("masked_select", ops.masked_select, lambda x, m: x[np.broadcast_to(m, x.shape)], ((3, 4), (3, 4)),
         extra={"bool_inputs": (1,)}),
    # distinct random values: the kept values are the input in order, each gathered (so differentiable; the
    # "unique" record of math.py checks repeated values)
    _rec("unique_values", lambda x: ops.unique(x)[0], _np_unique_first, ((3, 4),)),
    _rec("unique_consecutive", lambda x: ops.unique_consecutive(x, False, False, None), lambda x: x.reshape(-1),
         ((3, 4),)),
    _rec("unique_consecutive_dim", lambda x: ops.unique_consecutive(x, False, False, 1), lambda x: x, ((3, 4),)),
    _rec("unique_consecutive_repeats", lambda x: ops.unique_consecutive(x, True, True, None), _np_runs, ((3, 4),),
         grad=False, extra={"make_inputs": _repeated_values}),
    _rec("nonzero", lambda x: ops.nonzero(x), lambda x: np.stack(np.nonzero(x), -1).astype(np.int64), ((3, 4),),
         dtypes=(np.int32,), domain=(-1, 1), grad=False),
]  # fmt: skip


CREATION = [
    _creation("zeros", lambda: ops.zeros((2, 3)), lambda: np.zeros((2, 3), np.float32)),
    _creation("zeros_dtype", lambda: ops.zeros((2,), kiln.int32), lambda: np.zeros((2,), np.int32)),
    _creation("ones", lambda: ops.ones((3, 1)), lambda: np.ones((3, 1), np.float32)),
    _creation("ones_int_shape", lambda: ops.ones(4, kiln.float16), lambda: np.ones(4, np.float16)),
    _creation("full_int", lambda: ops.full((2, 2), 3), lambda: np.full((2, 2), 3, np.int64)),
    _creation("full_float", lambda: ops.full((2, 2), 1.5), lambda: np.full((2, 2), 1.5, np.float32)),
    _creation("full_bool", lambda: ops.full((2,), True), lambda: np.full((2,), True)),
    _creation("full_dtype", lambda: ops.full((2, 3), 2, dtype=kiln.float64), lambda: np.full((2, 3), 2.0)),
    _creation("fill", lambda: ops.fill(kiln.int32, (2, 2), 5), lambda: np.full((2, 2), 5, np.int32)),
    _creation("eye", lambda: ops.eye(3), lambda: np.eye(3, dtype=np.float32)),
    _creation("eye_rect_dtype", lambda: ops.eye(2, 4, kiln.int32), lambda: np.eye(2, 4, dtype=np.int32)),
    _creation("arange_int", lambda: ops.arange(5), lambda: np.arange(5, dtype=np.int64)),
    _creation("arange_start_step", lambda: ops.arange(2, 11, 3), lambda: np.arange(2, 11, 3, dtype=np.int64)),
    _creation("arange_float", lambda: ops.arange(0.0, 1.0, 0.25), lambda: np.arange(0, 1, 0.25, dtype=np.float32)),
    _creation("arange_mixed", lambda: ops.arange(0, 2, 0.5), lambda: np.arange(0, 2, 0.5, dtype=np.float32)),
    _creation("arange_dtype", lambda: ops.arange(4, dtype=kiln.float32), lambda: np.arange(4, dtype=np.float32)),
    _creation("arange_negative_step", lambda: ops.arange(5, 0, -2), lambda: np.arange(5, 0, -2, dtype=np.int64)),
    _creation("linspace", lambda: ops.linspace(0.0, 1.0, 5), lambda: np.linspace(0, 1, 5, dtype=np.float32)),
    # ops.range/Range: MindSpore's Range primitive (int64 for integers, float32 for floats, `maxlen` taken)
    _creation("range_int_maxlen", lambda: ops.range(0, 6, 2, 10), lambda: np.arange(0, 6, 2, dtype=np.int64)),
    _creation("range_float", lambda: ops.range(0.0, 3.0, 0.5), lambda: np.arange(0, 3, 0.5, dtype=np.float32)),
    _creation("Range_class_int32_tensors",
              lambda: ops.Range()(kiln.Tensor(5, kiln.int32), kiln.Tensor(0, kiln.int32), kiln.Tensor(-2, kiln.int32)),
              lambda: np.arange(5, 0, -2, dtype=np.int64)),
    _creation("linspace_int_ends", lambda: ops.linspace(-2, 4, 4), lambda: np.linspace(-2, 4, 4, dtype=np.float32)),
    _rec("zeros_like", ops.zeros_like, np.zeros_like, ((2, 3),), dtypes=(np.float32, np.int32), grad=False),
    _rec("ones_like", ops.ones_like, np.ones_like, ((2, 3),), dtypes=(np.float32, np.float16), grad=False),
    _rec("ones_like_dtype", lambda x: ops.ones_like(x, dtype=kiln.int32), lambda x: np.ones(x.shape, np.int32),
         ((2, 3),), grad=False),
    _rec("full_like", lambda x: ops.full_like(x, 2), lambda x: np.full_like(x, 2), ((2, 3),),
         dtypes=(np.float32, np.int32), grad=False),
]  # fmt: skip


INDEX_HELPERS = [
    R("cross", lambda a, b: ops.cross(a, b, 0), _cross_ref, shapes=((3, 4), (3, 4))),
    R("diff", lambda x: ops.diff(x), lambda x: np.diff(x), shapes=((3, 5),)),
    R(
        "diff_prepend",
        lambda x, p: ops.diff(x, 1, 0, p),
        lambda x, p: np.diff(x, 1, 0, prepend=p),
        shapes=((3, 4), (1, 4)),
    ),  # fmt: skip
    R("diag_embed", lambda x: ops.diag_embed(x, 1), _diag_embed_ref, shapes=((2, 3),)),
    R("diagflat", lambda x: ops.diagflat(x, -1), lambda x: np.diagflat(x, -1), shapes=((2, 2),)),
    R("block_diag", ops.block_diag, sla.block_diag, shapes=((2, 3), (1, 2), (2, 2))),
    R(
        "cartesian_prod", ops.cartesian_prod, lambda a, b: np.array([[x, y] for x in a for y in b]), shapes=((3,), (2,))
    ),  # fmt: skip
    R(
        "tensor_dot",
        lambda a, b: ops.tensor_dot(a, b, ((1, 2), (0, 1))),
        lambda a, b: np.tensordot(a, b, ((1, 2), (0, 1))),
        shapes=((2, 3, 4), (3, 4, 2)),
        rtol=1e-5,
        atol=1e-5,
    ),  # fmt: skip
    R("rot90", lambda x: ops.rot90(x, 1, (0, 1)), lambda x: np.rot90(x, 1, (0, 1)), shapes=((3, 4),)),
    R("rot90_k3", lambda x: ops.rot90(x, 3, (1, 2)), lambda x: np.rot90(x, 3, (1, 2)), shapes=((2, 3, 4),)),
    R("vander", lambda x: ops.vander(x, 4), lambda x: np.vander(x, 4), shapes=((3,),), extra={"ref_dtype": "input"}),
    R("tensor_split", lambda x: ops.tensor_split(x, 3, 1), lambda x: tuple(np.array_split(x, 3, 1)), shapes=((2, 7),)),
    R("hsplit", lambda x: ops.hsplit(x, (1, 3)), lambda x: tuple(np.hsplit(x, (1, 3))), shapes=((2, 5),)),
    R("dstack", lambda a, b: ops.dstack([a, b]), lambda a, b: np.dstack([a, b]), shapes=((2, 3), (2, 3))),
    R("take", ops.take, lambda x, i: np.take(x, i), shapes=((3, 4),), extra={"make_inputs": _take_inputs}),
    R(
        "index_add",
        lambda x, i, y: ops.index_add(x, i, y, 1),
        _index_add_ref,
        shapes=((3, 4), (3, 2)),
        extra={"make_inputs": _index_inputs},
    ),  # fmt: skip
    R(
        "index_fill",
        lambda x, i: ops.index_fill(x, 1, i, -1.5),
        _index_fill_ref,
        shapes=((3, 4),),
        extra={"make_inputs": lambda r, d, s: [r.uniform(-2, 2, size=s[0]).astype(d), np.array([3, 1], np.int32)]},
    ),
    R("diagonal_scatter", lambda x, s: ops.diagonal_scatter(x, s, 1), _diag_scatter_ref, shapes=((3, 4), (3,))),
    R(
        "slice_scatter",
        lambda x, s: ops.slice_scatter(x, s, 1, 0, 4, 2),
        lambda x, s: np.concatenate([s[:, :1], x[:, 1:2], s[:, 1:], x[:, 3:]], 1),
        shapes=((3, 4), (3, 2)),
    ),
    R(
        "masked_scatter",
        ops.masked_scatter,
        _masked_scatter_ref,
        shapes=((3, 4), (12,)),
        extra={"make_inputs": _masked_scatter_inputs},
    ),  # fmt: skip
    R("lrn", lambda x: ops.lrn(x, 2, 1.0, 0.5, 0.75), _lrn_ref, shapes=((1, 5, 2, 2),), rtol=1e-5),
    R("iou", ops.iou, _iou_ref, shapes=((3, 4), (2, 4)), rtol=1e-5, extra={"make_inputs": _boxes}),
    R(
        "bounding_box_decode",
        lambda a, d: ops.bounding_box_decode(a, d, (6, 8), (0.0, 0.0, 0.0, 0.0), (0.1, 0.1, 0.2, 0.2)),
        _decode_ref,
        shapes=((12, 4), (12, 4)),
        grad=False,
        extra={"make_inputs": _decode_inputs},
    ),
    R(
        "space_to_batch_nd",
        lambda x: ops.space_to_batch_nd(x, 2, ((0, 0), (1, 1))),
        lambda x: (
            np.pad(x, ((0, 0), (0, 0), (0, 0), (1, 1)))
            .reshape(1, 2, 2, 2, 3, 2)
            .transpose(3, 5, 0, 1, 2, 4)
            .reshape(4, 2, 2, 3)
        ),
        shapes=((1, 2, 4, 4),),
    ),  # fmt: skip
]  # fmt: skip


DIAGONALS = [
    OpRecord("diagonal", lambda x: ops.diagonal(x, 1, 1, 2), lambda x: np.diagonal(x, 1, 1, 2), shapes=((2, 3, 4),),
             dtypes=(np.float32, np.int32)),
    OpRecord("diagonal_neg_dims", lambda x: ops.diagonal(x, -1, -1, 0), lambda x: np.diagonal(x, -1, -1, 0),
             shapes=((4, 3),), grad=False),
    OpRecord("unbind_dim", lambda x: ops.unbind(x, dim=1), lambda x: tuple(np.moveaxis(x, 1, 0)), shapes=((2, 3, 4),),
             grad=False),
    OpRecord("ptp", lambda x: x.ptp(1), lambda x: np.ptp(x, 1), shapes=((3, 4),), grad=False),
]  # fmt: skip


BANDS_AND_FLIPS = [
    OpRecord("matrix_band_part", lambda x: ops.matrix_band_part(x, 1, 0), _band_ref(1, 0), shapes=((2, 4, 5),),
             dtypes=(np.float32, np.int32)),
    OpRecord("matrix_band_part_upper_all", lambda x: ops.matrix_band_part(x, 0, -1), _band_ref(0, -1),
             shapes=((4, 3),), grad=False),
    OpRecord("nextafter", ops.nextafter, np.nextafter, shapes=((3, 4), (3, 4)), grad=False),
    OpRecord("flipud", ops.flipud, np.flipud, shapes=((3, 4),), grad=False),
    OpRecord("fliplr", ops.fliplr, np.fliplr, shapes=((3, 4),), grad=False),
    OpRecord("argwhere", ops.argwhere, lambda x: np.argwhere(x).astype(np.int64), shapes=((3, 4),), grad=False,
             dtypes=(np.int32,), extra={"make_inputs": _integers}),
    OpRecord("reduce_sum_functional", lambda x: ops.reduce_sum(x, (0,)), lambda x: np.sum(x, 0), shapes=((3, 4),),
             grad=False, rtol=1e-5),
]  # fmt: skip


# Sorted segment ids with segments 1 and 3 empty (MindSpore gives them 0, the product 1) and runs of 1, 2 and 3 rows;
# a constant in the call, so every mode compiles the op with its output shape (last id + 1) known
_SEGMENT_IDS = np.array([0, 0, 2, 2, 2, 4], np.int32)


def _np_segment(kind: str):
    """NumPy's Segment<kind> over _SEGMENT_IDS: the rows of each id reduced, an empty segment 0 (product: 1)."""

    def ref(x):
        n = int(_SEGMENT_IDS[-1]) + 1
        out = np.full((n, *x.shape[1:]), 1 if kind == "prod" else 0, x.dtype)
        for k in range(n):
            rows = x[_SEGMENT_IDS == k]
            if len(rows):
                out[k] = getattr(np, kind)(rows, 0)
        if kind == "mean" and x.dtype.kind in "iu":  # an integer mean truncates toward zero
            sums = np.stack([x[_SEGMENT_IDS == k].sum(0) for k in range(n)])
            counts = np.maximum(np.bincount(_SEGMENT_IDS, minlength=n), 1).reshape((n,) + (1,) * (x.ndim - 1))
            out = np.trunc(sums / counts).astype(x.dtype)
        return out

    return ref


def _segment_record(cls: str, kind: str, **kw) -> OpRecord:
    return OpRecord(cls, lambda x: getattr(ops, cls)()(x, kiln.Tensor(_SEGMENT_IDS)), _np_segment(kind),
                    shapes=((6, 2, 3),), dtypes=F32_I32, **kw)  # fmt: skip


SEGMENTS = [
    _segment_record("SegmentSum", "sum"),
    _segment_record("SegmentMean", "mean"),
    _segment_record("SegmentMax", "max"),
    _segment_record("SegmentMin", "min"),
    # away from zero: the product's derivative is the other factors' product (Kiln's divides by the factor)
    _segment_record("SegmentProd", "prod", domain=(0.5, 1.5)),
]  # fmt: skip


def _np_set_diag(lo: int, hi: int, align: str):
    """NumPy's matrix_set_diag: write each diagonal d of lo..hi (row hi - d of the band, aligned by `align`)."""

    def ref(x, diagonal):
        out = x.copy()
        rows, cols = x.shape[-2:]
        band = diagonal if lo != hi else diagonal[..., None, :]
        max_len = band.shape[-1]
        for d in range(lo, hi + 1):
            length = min(rows + min(d, 0), cols - max(d, 0))
            left = (align.split("_")[0] if d >= 0 else align.split("_")[1]) == "LEFT"
            start = 0 if left else max_len - length
            for p in range(length):
                out[..., p + max(-d, 0), p + max(d, 0)] = band[..., hi - d, start + p]
        return out

    return ref


def _np_diag_part_band(lo: int, hi: int, align: str):
    """NumPy's matrix_diag_part of the band lo..hi: row hi - d holds diagonal d, aligned by `align`, 0-padded."""

    def ref(x):
        rows, cols = x.shape[-2:]
        max_len = min(rows + min(hi, 0), cols - max(lo, 0))
        out = np.zeros((*x.shape[:-2], hi - lo + 1, max_len), x.dtype)
        for d in range(lo, hi + 1):
            diag = np.diagonal(x, d, -2, -1)
            left = (align.split("_")[0] if d >= 0 else align.split("_")[1]) == "LEFT"
            start = 0 if left else max_len - diag.shape[-1]
            out[..., hi - d, start : start + diag.shape[-1]] = diag
        return out

    return ref


def _sorted_rows(rng, dtype, shapes):
    """make_inputs for UpperBound/LowerBound: (3, 6) ascending rows with repeats and (3, 4) values, some equal."""
    grid = np.array([-1.0, -0.5, 0.0, 0.5, 1.0], dtype)
    return [np.sort(rng.choice(grid, size=(3, 6)), 1), rng.choice(np.r_[grid, dtype.type(0.25)], size=(3, 4))]


def _np_space_to_batch(block: int, pads):
    def ref(x):
        x = np.pad(x, ((0, 0), (0, 0), *pads))
        n, c, h, w = x.shape
        x = x.reshape(n, c, h // block, block, w // block, block).transpose(3, 5, 0, 1, 2, 4)
        return x.reshape(block * block * n, c, h // block, w // block)

    return ref


def _list_diff_inputs(rng, dtype, shapes):
    """make_inputs for ListDiff: x (8,) with repeats, y (3,) of which some are in x."""
    return [rng.integers(0, 6, 8).astype(dtype), rng.integers(0, 6, 3).astype(dtype)]


def _np_list_diff(x, y):
    kept = np.flatnonzero(~np.isin(x, y))
    return x[kept], kept.astype(np.int32)


# Built once, outside the call: under bytecode capture a host-step Primitive built inside the captured function
# leaves the whole function running eagerly (nothing compiled); built outside, the rest of the function compiles
_LIST_DIFF, _CHECK_NUMERICS = ops.ListDiff(), ops.CheckNumerics()

SURFACE_ARRAY = [
    OpRecord("ListDiff", lambda x, y: _LIST_DIFF(x, y), _np_list_diff, shapes=((8,), (3,)), grad=False,
             dtypes=F32_I32, extra={"make_inputs": _list_diff_inputs}),
    OpRecord("CheckNumerics", lambda x: _CHECK_NUMERICS(x) * 2, lambda x: x * 2, shapes=((3, 4),),
             dtypes=(np.float32, np.float16)),
    OpRecord("MatrixBandPart", lambda x: ops.MatrixBandPart()(x, 0, 1), _band_ref(0, 1), shapes=((2, 4, 5),),
             grad=False),
    OpRecord("matrix_set_diag", ops.matrix_set_diag, _np_set_diag(0, 0, "RIGHT_LEFT"), shapes=((2, 3, 4), (2, 3))),
    OpRecord("matrix_set_diag_k1", lambda x, d: ops.matrix_set_diag(x, d, 1), _np_set_diag(1, 1, "RIGHT_LEFT"),
             shapes=((4, 3), (2,)), dtypes=F32_I32),
    *(OpRecord(f"matrix_set_diag_band_{align.lower()}",
               lambda x, d, align=align: ops.matrix_set_diag(x, d, kiln.Tensor(np.array([-1, 2], np.int32)), align),
               _np_set_diag(-1, 2, align), shapes=((2, 4, 5), (2, 4, 4)))
      for align in ("RIGHT_LEFT", "LEFT_RIGHT", "LEFT_LEFT", "RIGHT_RIGHT")),
    # a band of diagonals (Kiln's matrix_diag read only k[0] of it before)
    OpRecord("matrix_diag_band", lambda d: ops.matrix_diag(d, kiln.Tensor(np.array([-1, 2])), 4, 5, 0, "LEFT_RIGHT"),
             lambda d: _np_set_diag(-1, 2, "LEFT_RIGHT")(np.zeros((2, 4, 5), d.dtype), d), shapes=((2, 4, 4),)),
    OpRecord("matrix_diag_part_band",
             lambda x: ops.matrix_diag_part(x, kiln.Tensor(np.array([-1, 2])), 0.0, "LEFT_RIGHT"),
             _np_diag_part_band(-1, 2, "LEFT_RIGHT"), shapes=((2, 4, 5),)),
    OpRecord("MatrixSetDiagV3", lambda x, d: ops.MatrixSetDiagV3("LEFT_RIGHT")(x, d, kiln.Tensor(np.array([-2, 0]))),
             _np_set_diag(-2, 0, "LEFT_RIGHT"), shapes=((5, 3), (3, 3))),
    OpRecord("UpperBound", lambda s, v: ops.UpperBound()(s, v),
             lambda s, v: np.stack([np.searchsorted(a, b, "right") for a, b in zip(s, v)]).astype(np.int32),
             shapes=((3, 6), (3, 4)), grad=False, dtypes=F32_I32, extra={"make_inputs": _sorted_rows}),
    OpRecord("LowerBound", lambda s, v: ops.LowerBound(kiln.int64)(s, v),
             lambda s, v: np.stack([np.searchsorted(a, b, "left") for a, b in zip(s, v)]).astype(np.int64),
             shapes=((3, 6), (3, 4)), grad=False, extra={"make_inputs": _sorted_rows}),
    OpRecord("SplitV", lambda x: ops.SplitV((1, -1, 2), 1, 3)(x), lambda x: tuple(np.split(x, [1, 4], 1)),
             shapes=((2, 6, 3),), dtypes=F32_I32),
    OpRecord("SpaceToBatch", lambda x: ops.SpaceToBatch(2, [[1, 1], [0, 2]])(x),
             _np_space_to_batch(2, [[1, 1], [0, 2]]), shapes=((2, 3, 2, 4),), dtypes=F32_I32),
]  # fmt: skip


RECORDS: list[OpRecord] = [
    *SHAPES,
    *JOINS,
    *GATHER_SCATTER,
    *SELECTION,
    *CREATION,
    *INDEX_HELPERS,
    *DIAGONALS,
    *BANDS_AND_FLIPS,
    *SEGMENTS,
    *SURFACE_ARRAY,
]
