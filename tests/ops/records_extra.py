"""Op records for `kiln.ops.extra_math` (clipping, cdist, bincount, searchsorted, kron, var_mean) and `ops.unique`.

References are NumPy written from the ops' definitions; the output dtypes are MindSpore 2.10's (bincount counts
in float32; unique's indices are int32 except for int64 input).
"""

from __future__ import annotations

import numpy as np

from kiln import ops
from tests.ops.records import OpRecord

F32 = (np.float32,)


def _cdist_ref(p):
    def ref(a, b):
        d = np.abs(a[..., :, None, :] - b[..., None, :, :])
        if p == 0:
            return np.sum(d != 0, axis=-1).astype(a.dtype)
        if p == np.inf:
            return np.max(d, axis=-1)
        return (np.sum(d**p, axis=-1) ** (1.0 / p)).astype(a.dtype)

    return ref


def _bincount_inputs(rng, dtype, shapes):
    x = rng.integers(0, 5, size=shapes[0]).astype(np.int32)
    return [x] + [rng.uniform(0.0, 2.0, size=s).astype(dtype) for s in shapes[1:]]


def _sorted_rows(rng, dtype, shapes):
    seq = np.sort(rng.uniform(-2, 2, size=shapes[0]), axis=-1).astype(dtype)
    values = rng.uniform(-2.5, 2.5, size=shapes[1]).astype(dtype)
    values.reshape(-1)[0] = seq.reshape(-1)[1]  # a value equal to an entry: left and right differ there
    return [seq, values]


def _searchsorted_ref(side, dtype=np.int64):
    def ref(seq, values):
        if seq.ndim == 1:
            return np.searchsorted(seq, values, side=side).astype(dtype)
        rows, vals = seq.reshape(-1, seq.shape[-1]), values.reshape(seq.reshape(-1, seq.shape[-1]).shape[0], -1)
        out = np.stack([np.searchsorted(r, v, side=side) for r, v in zip(rows, vals)])
        return out.reshape(values.shape).astype(dtype)

    return ref


def _unique_ref(x):
    flat = x.reshape(-1)
    seen: dict = {}
    for v in flat.tolist():
        seen.setdefault(v, len(seen))
    idx = np.array([seen[v] for v in flat.tolist()]).reshape(x.shape)
    return np.array(list(seen), dtype=x.dtype), idx.astype(np.int64 if x.dtype == np.int64 else np.int32)


def _global_norm_ref(clip):
    def ref(a, b):
        norm = np.sqrt(np.sum(a.astype(np.float64) ** 2) + np.sum(b.astype(np.float64) ** 2))
        scale = clip / max(norm, clip)
        return (a * scale).astype(a.dtype), (b * scale).astype(b.dtype)

    return ref


def _integers(rng, dtype, shapes):
    return [rng.integers(0, 4, size=s).astype(dtype) for s in shapes]


RECORDS = [
    OpRecord("clip_by_value", lambda x: ops.clip_by_value(x, -0.5, 1.0),
             lambda x: np.clip(x, -0.5, 1.0).astype(x.dtype),
             shapes=((3, 4),), dtypes=(np.float32, np.int32), domain=(-2.0, 2.0)),
    OpRecord("clip_by_value_tensor_bounds", lambda x, lo: ops.clip_by_value(x, lo, None), np.maximum,
             shapes=((3, 4), (4,)), grad=False),
    OpRecord("clip_by_value_tuple", lambda x, y: ops.clip_by_value((x, y), None, 0.5),
             lambda x, y: (np.minimum(x, 0.5), np.minimum(y, 0.5)), shapes=((3, 4), (2,)), grad=False),
    OpRecord("clip_by_global_norm", lambda a, b: ops.clip_by_global_norm((a, b), 1.0), _global_norm_ref(1.0),
             shapes=((3, 4), (5,)), rtol=1e-5, atol=1e-6),
    OpRecord("clip_by_global_norm_no_clip", lambda a, b: ops.clip_by_global_norm((a, b), 100.0),
             _global_norm_ref(100.0), shapes=((3, 4), (5,)), grad=False),
    OpRecord("cdist", lambda a, b: ops.cdist(a, b), _cdist_ref(2.0), shapes=((4, 3), (5, 3)),
             cases=(((2, 4, 3), (2, 5, 3)),), rtol=1e-5),
    OpRecord("cdist_p1", lambda a, b: ops.cdist(a, b, 1.0), _cdist_ref(1.0), shapes=((4, 3), (5, 3))),
    OpRecord("cdist_p3", lambda a, b: ops.cdist(a, b, 3.0), _cdist_ref(3.0), shapes=((4, 3), (5, 3)), rtol=1e-5),
    OpRecord("cdist_p0", lambda a, b: ops.cdist(a, b, 0.0), _cdist_ref(0), shapes=((4, 3), (5, 3)), grad=False,
             extra={"make_inputs": _integers}),
    OpRecord("cdist_inf", lambda a, b: ops.cdist(a, b, float("inf")), _cdist_ref(np.inf), shapes=((4, 3), (5, 3))),
    OpRecord("bincount", lambda x: ops.bincount(x), lambda x: np.bincount(x).astype(np.float32), shapes=((12,),),
             grad=False, extra={"make_inputs": _bincount_inputs}),
    OpRecord("bincount_weights", lambda x, w: ops.bincount(x, w, minlength=8),
             lambda x, w: np.bincount(x, w, minlength=8).astype(np.float32), shapes=((12,), (12,)),
             # float32 counts even for float64 weights: a wide finite-difference step (the op is linear in them)
             extra={"make_inputs": _bincount_inputs, "grad_positions": (1,), "fd_eps": 1e-2, "grad_rtol": 1e-3}),
    OpRecord("searchsorted", lambda s, v: ops.searchsorted(s, v), _searchsorted_ref("left"), shapes=((7,), (3, 4)),
             cases=(((2, 6), (2, 5)),), grad=False, extra={"make_inputs": _sorted_rows}),
    OpRecord("searchsorted_right_int32", lambda s, v: ops.searchsorted(s, v, right=True, out_int32=True),
             _searchsorted_ref("right", np.int32), shapes=((2, 6), (2, 5)), grad=False,
             extra={"make_inputs": _sorted_rows}),
    OpRecord("searchsorted_side", lambda s, v: ops.searchsorted(s, v, side="right"), _searchsorted_ref("right"),
             shapes=((7,), (4,)), grad=False, extra={"make_inputs": _sorted_rows}),
    OpRecord("kron", ops.kron, np.kron, shapes=((2, 3), (3, 2)), cases=(((3,), (2, 2)),),
             dtypes=(np.float32, np.int32)),
    OpRecord("var_mean", lambda x: ops.var_mean(x, 1), lambda x: (np.var(x, 1), np.mean(x, 1)), shapes=((3, 4),),
             rtol=1e-5),
    OpRecord("var_mean_ddof_keepdims", lambda x: ops.var_mean(x, (0, 1), ddof=True, keepdims=True),
             lambda x: (np.var(x, (0, 1), ddof=1, keepdims=True), np.mean(x, (0, 1), keepdims=True)),
             shapes=((3, 4, 2),), rtol=1e-5),
    OpRecord("std_mean", lambda x: ops.std_mean(x), lambda x: (np.std(x), np.mean(x)), shapes=((3, 4),), rtol=1e-5),
    OpRecord("unique", ops.unique, _unique_ref, shapes=((4, 5),), dtypes=(np.int32, np.int64, np.float32),
             grad=False, extra={"make_inputs": _integers}),
]  # fmt: skip
