"""Op records for `kiln.ops.more_math` and `kiln.ops.more_linalg` (the ops added for the name coverage of issue 10).

References are NumPy/SciPy written from the ops' definitions; gradients are checked against finite differences for
the differentiable ones. The semantics that are MindSpore's own (index conventions, dtypes, defaults) are checked by
MindSpore goldens in tests/golden/test_ops_coverage_goldens.py.
"""

from __future__ import annotations

import numpy as np
from scipy import linalg as sla
from scipy import special

from kiln import Tensor, ops
from tests.ops.records import OpRecord

F32 = (np.float32,)


def _spd(rng, dtype, shapes):
    """A symmetric positive-definite matrix per shape (well conditioned), then the other shapes as plain inputs."""
    out = []
    for i, s in enumerate(shapes):
        if i == 0:
            a = rng.uniform(-1, 1, size=s)
            out.append((a @ np.swapaxes(a, -1, -2) + s[-1] * np.eye(s[-1])).astype(dtype))
        else:
            out.append(rng.uniform(-1, 1, size=s).astype(dtype))
    return out


def _square(rng, dtype, shapes):
    """A well-conditioned square matrix, then plain inputs."""
    a = rng.uniform(-1, 1, size=shapes[0]) + 3 * np.eye(shapes[0][-1])
    return [a.astype(dtype)] + [rng.uniform(-1, 1, size=s).astype(dtype) for s in shapes[1:]]


def _positive(rng, dtype, shapes):
    return [rng.uniform(0.5, 3.0, size=s).astype(dtype) for s in shapes]


def _distinct(rng, dtype, shapes):
    """Values with no ties (a permutation scaled), so orderings and kinks are away from the inputs."""
    out = []
    for s in shapes:
        n = int(np.prod(s))
        out.append((rng.permutation(n).reshape(s) * 0.37 - n * 0.15 + rng.uniform(0, 0.1, size=s)).astype(dtype))
    return out


def _segments(rng, dtype, shapes):
    return [_distinct(rng, dtype, [shapes[0]])[0], np.array([0, 2, 0, 1, 2], np.int32)[: shapes[0][0]]]


def _segment_ref(kind, n=3):
    fn = {"sum": np.sum, "max": np.max, "min": np.min, "prod": np.prod}[kind]

    def ref(x, ids):
        rows = []
        for k in range(n):
            sel = x[ids == k]
            if sel.shape[0]:
                rows.append(fn(sel, 0))
            else:
                edge = {"sum": 0, "prod": 1, "max": np.finfo(x.dtype).min, "min": np.finfo(x.dtype).max}[kind]
                rows.append(np.full(x.shape[1:], edge, x.dtype))
        return np.stack(rows).astype(x.dtype)

    return ref


def _cross_ref(a, b):
    return np.cross(a, b, axis=0)


def _cov_ref(x):
    return np.cov(x).astype(x.dtype)


def _cov_weights_ref(x, aw):
    return np.cov(x, aweights=aw, ddof=1).astype(x.dtype)


def _renorm_ref(x):
    norms = np.sqrt(np.sum(x**2, axis=1, keepdims=True))
    return np.where(norms > 1.5, x * 1.5 / (norms + 1e-7), x).astype(x.dtype)


def _median_ref(x):
    order = np.argsort(x, axis=1, kind="stable")
    k = (x.shape[1] - 1) // 2
    idx = order[:, k]
    return x[np.arange(x.shape[0]), idx], idx.astype(np.int64)


def _nan_inputs(rng, dtype, shapes):
    x = rng.uniform(-2, 2, size=shapes[0]).astype(dtype)
    x.reshape(-1)[[1, 5]] = np.nan
    return [x]


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


def _take_inputs(rng, dtype, shapes):
    return [rng.uniform(-2, 2, size=shapes[0]).astype(dtype), np.array([[0, 7], [-1, 3]], np.int64)]


def _masked_scatter_inputs(rng, dtype, shapes):
    x = rng.uniform(-2, 2, size=shapes[0]).astype(dtype)
    return [x, rng.random(shapes[0]) < 0.5, rng.uniform(-2, 2, size=shapes[1]).astype(dtype)]


def _masked_scatter_ref(x, mask, src):
    out = x.copy()
    out[mask] = src.reshape(-1)[: int(mask.sum())]
    return out


def _tril_solve(rng, dtype, shapes):
    a = np.tril(rng.uniform(-1, 1, size=shapes[0])) + 3 * np.eye(shapes[0][-1])
    return [a.astype(dtype), rng.uniform(-1, 1, size=shapes[1]).astype(dtype)]


def _lu_inputs(rng, dtype, shapes):
    a = rng.uniform(-1, 1, size=shapes[0]) + 3 * np.eye(shapes[0][0])
    lu, piv = sla.lu_factor(a)
    return [rng.uniform(-1, 1, size=shapes[1]).astype(dtype), lu.astype(dtype), (piv + 1).astype(np.int32)]


def _diag_embed_ref(x):
    return np.stack([np.diag(r, 1) for r in x])


def _qr_ref(x):
    q, r = np.linalg.qr(x)
    return q.astype(x.dtype), r.astype(x.dtype)


R = OpRecord
RECORDS = [
    # ---- special functions (SciPy references)
    R("bessel_i0", ops.bessel_i0, special.i0, shapes=((3, 4),), domain=(-3, 3), rtol=2e-5),
    R("bessel_i0e", ops.bessel_i0e, special.i0e, shapes=((3, 4),), domain=(-3, 3), rtol=2e-5),
    R("bessel_i1", ops.bessel_i1, special.i1, shapes=((3, 4),), domain=(-3, 3), rtol=2e-5),
    R("bessel_i1e", ops.bessel_i1e, special.i1e, shapes=((3, 4),), domain=(-3, 3), rtol=2e-5),
    R("bessel_j0", ops.bessel_j0, special.j0, shapes=((3, 4),), domain=(-3, 3), grad=False, rtol=1e-4, atol=1e-5),
    R("bessel_j1", ops.bessel_j1, special.j1, shapes=((3, 4),), domain=(-3, 3), grad=False, rtol=1e-4, atol=1e-5),
    R("sinc", ops.sinc, np.sinc, shapes=((3, 4),), domain=(-2.3, 2.3), rtol=2e-5, atol=2e-6),
    R(
        "igamma",
        ops.igamma,
        special.gammainc,
        shapes=((3, 4), (3, 4)),
        grad=False,
        rtol=1e-4,
        atol=1e-6,
        extra={"make_inputs": _positive},
    ),  # fmt: skip
    R(
        "igammac",
        ops.igammac,
        special.gammaincc,
        shapes=((3, 4), (4,)),
        grad=False,
        rtol=1e-4,
        atol=1e-6,
        extra={"make_inputs": _positive},
    ),  # fmt: skip
    R(
        "zeta",
        lambda x, q: ops.zeta(x + 1.5, q),
        lambda x, q: special.zeta(x + 1.5, q).astype(x.dtype),
        shapes=((3, 4), (3, 4)),
        grad=False,
        rtol=1e-4,
        extra={"make_inputs": _positive},
    ),  # fmt: skip
    R(
        "polygamma_1",
        lambda x: ops.polygamma(1, x),
        lambda x: special.polygamma(1, x).astype(x.dtype),
        shapes=((3, 4),),
        rtol=1e-4,
        extra={"make_inputs": _positive, "grad_rtol": 1e-3},
    ),  # fmt: skip
    R(
        "mvlgamma",
        lambda x: ops.mvlgamma(x, 3),
        lambda x: (
            special.multigammaln(x, 3)
            if x.ndim == 0
            else np.vectorize(lambda v: special.multigammaln(v, 3))(x).astype(x.dtype)
        ),
        shapes=((3, 4),),
        rtol=1e-5,
        atol=1e-5,
        extra={"make_inputs": lambda r, d, s: [r.uniform(1.5, 4, size=s[0]).astype(d)]},
    ),  # fmt: skip
    R("copysign", ops.copysign, np.copysign, shapes=((3, 4), (3, 4)), extra={"grad_positions": (0,)}),
    R("logaddexp", ops.logaddexp, np.logaddexp, shapes=((3, 4), (4,))),
    R("logaddexp2", ops.logaddexp2, np.logaddexp2, shapes=((3, 4), (3, 4))),
    R("fmax", ops.fmax, np.fmax, shapes=((3, 4), (3, 4)), extra={"make_inputs": _distinct}),
    R("fmin", ops.fmin, np.fmin, shapes=((3, 4), (3, 4)), extra={"make_inputs": _distinct}),
    R("gcd", ops.gcd, np.gcd, shapes=((3, 4), (3, 4)), dtypes=(np.int32, np.int64), grad=False, domain=(-30, 30)),
    R("lcm", ops.lcm, np.lcm, shapes=((3, 4), (4,)), dtypes=(np.int32,), grad=False, domain=(-12, 12)),
    R("logcumsumexp", lambda x: ops.logcumsumexp(x, 1), lambda x: np.logaddexp.accumulate(x, 1), shapes=((3, 4),)),
    R(
        "ldexp",
        lambda x: ops.ldexp(x, Tensor(np.array([1, -2, 0, 3]))),
        lambda x: np.ldexp(x, [1, -2, 0, 3]),
        shapes=((3, 4),),
    ),  # fmt: skip
    R("logit", ops.logit, special.logit, shapes=((3, 4),), domain=(0.05, 0.95), rtol=2e-5),
    R(
        "float_power",
        lambda x: ops.float_power(x, 3),
        lambda x: np.float_power(x, 3),
        shapes=((3, 4),),
        extra={"ref_dtype": np.float64},
    ),  # fmt: skip
    R(
        "fast_gelu",
        ops.fast_gelu,
        lambda x: x / (1 + np.exp(-1.702 * np.abs(x))) * np.exp(0.851 * (x - np.abs(x))),
        shapes=((3, 4),),
        extra={"make_inputs": _distinct},
    ),  # fmt: skip
    R("deg2rad", ops.deg2rad, np.deg2rad, shapes=((3, 4),), domain=(-360, 360)),
    R("rad2deg", ops.rad2deg, np.rad2deg, shapes=((3, 4),), rtol=2e-5, atol=1e-4),
    R(
        "addcdiv",
        lambda a, b, c: ops.addcdiv(a, b, c, 0.5),
        lambda a, b, c: a + 0.5 * b / c,
        shapes=((3, 4), (3, 4), (4,)),
        extra={"make_inputs": _positive},
    ),  # fmt: skip
    R(
        "addcmul",
        lambda a, b, c: ops.addcmul(a, b, c, 0.5),
        lambda a, b, c: a + 0.5 * b * c,
        shapes=((3, 4), (3, 1), (4,)),
    ),  # fmt: skip
    R("nan_to_num", ops.nan_to_num, np.nan_to_num, shapes=((3, 4),), grad=False, extra={"make_inputs": _nan_inputs}),
    # ---- reductions
    R(
        "nansum",
        lambda x: ops.nansum(x, 1),
        lambda x: np.nansum(x, 1),
        shapes=((3, 4),),
        grad=False,
        extra={"make_inputs": _nan_inputs},
    ),  # fmt: skip
    R(
        "nanmean",
        lambda x: ops.nanmean(x, 0),
        lambda x: np.nanmean(x, 0),
        shapes=((3, 4),),
        grad=False,
        extra={"make_inputs": _nan_inputs},
    ),  # fmt: skip
    R("nansum_grad", lambda x: ops.nansum(x), np.nansum, shapes=((3, 4),)),
    R("median", lambda x: ops.median(x, 1), _median_ref, shapes=((3, 5),), extra={"make_inputs": _distinct}),
    R(
        "aminmax",
        lambda x: ops.aminmax(x, axis=1),
        lambda x: (np.min(x, 1), np.max(x, 1)),
        shapes=((3, 4),),
        extra={"make_inputs": _distinct},
    ),  # fmt: skip
    R(
        "count_nonzero",
        lambda x: ops.count_nonzero(x, 1),
        lambda x: np.count_nonzero(x, 1).astype(np.int32),
        shapes=((3, 4),),
        dtypes=(np.int32,),
        grad=False,
        domain=(-1, 1),
    ),  # fmt: skip
    R("cov", ops.cov, _cov_ref, shapes=((3, 5),), rtol=1e-5, atol=1e-6),
    R(
        "cov_aweights",
        lambda x, w: ops.cov(x, aweights=w),
        _cov_weights_ref,
        shapes=((3, 5), (5,)),
        rtol=1e-5,
        atol=1e-6,
        extra={
            "make_inputs": lambda r, d, s: [
                r.uniform(-2, 2, size=s[0]).astype(d),
                r.uniform(0.5, 2, size=s[1]).astype(d),
            ]
        },
    ),  # fmt: skip
    R("dist", ops.dist, lambda a, b: np.linalg.norm((a - b).reshape(-1)), shapes=((3, 4), (3, 4))),
    R(
        "dist_p3",
        lambda a, b: ops.dist(a, b, 3),
        lambda a, b: np.sum(np.abs(a - b) ** 3) ** (1 / 3),
        shapes=((3, 4), (4,)),
        extra={"make_inputs": _distinct},
    ),  # fmt: skip
    R("trapz", lambda y: ops.trapz(y), lambda y: np.trapezoid(y, axis=-1), shapes=((3, 4),)),
    R("trapz_x", lambda y, x: ops.trapz(y, x), lambda y, x: np.trapezoid(y, x, axis=-1), shapes=((3, 4), (4,))),
    R("vecdot", ops.vecdot, lambda a, b: np.sum(a * b, -1), shapes=((3, 4), (3, 4))),
    R("renorm", lambda x: ops.renorm(x, 2, 0, 1.5), _renorm_ref, shapes=((3, 4),), rtol=1e-5),
    R(
        "unsorted_segment_sum",
        lambda x, i: ops.unsorted_segment_sum(x, i, 3),
        _segment_ref("sum"),
        shapes=((5, 2),),
        extra={"make_inputs": _segments},
    ),  # fmt: skip
    R(
        "unsorted_segment_max",
        lambda x, i: ops.unsorted_segment_max(x, i, 4),
        _segment_ref("max", 4),
        shapes=((5, 2),),
        grad=False,
        extra={"make_inputs": _segments},
    ),  # fmt: skip
    R(
        "unsorted_segment_max_grad",
        lambda x, i: ops.unsorted_segment_max(x, i, 3),
        _segment_ref("max"),
        shapes=((5, 2),),
        extra={"make_inputs": _segments},
    ),  # fmt: skip
    R(
        "unsorted_segment_min",
        lambda x, i: ops.unsorted_segment_min(x, i, 3),
        _segment_ref("min"),
        shapes=((5, 2),),
        extra={"make_inputs": _segments},
    ),  # fmt: skip
    R(
        "unsorted_segment_prod",
        lambda x, i: ops.unsorted_segment_prod(x, i, 3),
        _segment_ref("prod"),
        shapes=((5, 2),),
        extra={"make_inputs": _segments},
    ),  # fmt: skip
    # ---- shapes, scatter and index helpers
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
    # ---- linear algebra
    R("cholesky", ops.cholesky, np.linalg.cholesky, shapes=((3, 3),), rtol=1e-5, extra={"make_inputs": _spd}),
    R(
        "cholesky_upper",
        lambda a: ops.cholesky(a, True),
        lambda a: np.linalg.cholesky(a).T,
        shapes=((3, 3),),
        rtol=1e-5,
        extra={"make_inputs": _spd},
    ),  # fmt: skip
    R(
        "cholesky_solve",
        lambda a, b: ops.cholesky_solve(b, ops.cholesky(a)),
        lambda a, b: np.linalg.solve(a, b),
        shapes=((3, 3), (3, 2)),
        rtol=1e-4,
        atol=1e-5,
        extra={"make_inputs": _spd},
    ),  # fmt: skip
    R(
        "cholesky_inverse",
        lambda a: ops.cholesky_inverse(ops.cholesky(a)),
        np.linalg.inv,
        shapes=((3, 3),),
        rtol=1e-4,
        atol=1e-5,
        extra={"make_inputs": _spd},
    ),  # fmt: skip
    R(
        "matrix_solve",
        ops.matrix_solve,
        np.linalg.solve,
        shapes=((3, 3), (3, 2)),
        rtol=1e-4,
        atol=1e-5,
        extra={"make_inputs": _square},
    ),  # fmt: skip
    R(
        "matrix_power",
        lambda a: ops.matrix_power(a, 3),
        lambda a: np.linalg.matrix_power(a, 3),
        shapes=((3, 3),),
        rtol=1e-5,
        atol=1e-5,
    ),  # fmt: skip
    R(
        "matrix_power_neg",
        lambda a: ops.matrix_power(a, -2),
        lambda a: np.linalg.matrix_power(a, -2),
        shapes=((3, 3),),
        rtol=1e-4,
        atol=1e-5,
        extra={"make_inputs": _square},
    ),  # fmt: skip
    R(
        "triangular_solve",
        lambda a, b: ops.MatrixTriangularSolve()(a, b),
        lambda a, b: sla.solve_triangular(a, b, lower=True),
        shapes=((3, 3), (3, 2)),
        rtol=1e-4,
        atol=1e-5,
        extra={"make_inputs": _tril_solve},
    ),  # fmt: skip
    R(
        "lstsq",
        ops.lstsq,
        lambda a, b: np.linalg.lstsq(a, b, rcond=None)[0],
        shapes=((5, 3), (5, 2)),
        rtol=1e-4,
        atol=1e-5,
    ),  # fmt: skip
    R(
        "lu_solve",
        ops.lu_solve,
        lambda b, lu, piv: sla.lu_solve((lu, piv - 1), b),
        shapes=((3, 3), (3, 2)),
        rtol=1e-4,
        atol=1e-5,
        extra={
            "make_inputs": lambda r, d, s: (
                _lu_inputs(r, d, (s[0], s[1]))[:1] + _lu_inputs(np.random.default_rng(1), d, (s[0], s[1]))[1:]
            ),
            "grad_positions": (0,),
        },
    ),  # fmt: skip
    R("pinv", ops.pinv, np.linalg.pinv, shapes=((4, 3),), rtol=1e-4, atol=1e-5),
    R(
        "svd_values",
        lambda a: ops.svd(a, compute_uv=False),
        lambda a: np.linalg.svd(a, compute_uv=False),
        shapes=((4, 3),),
        rtol=1e-5,
        atol=1e-5,
    ),  # fmt: skip
    R("qr", ops.qr, _qr_ref, shapes=((4, 3),), rtol=1e-4, atol=1e-5),
    R("matrix_exp", ops.matrix_exp, sla.expm, shapes=((3, 3),), rtol=1e-5, atol=1e-5),
    R("cond", ops.cond, np.linalg.cond, shapes=((3, 3),), rtol=1e-4, extra={"make_inputs": _square}),
    R("mv", ops.mv, np.matmul, shapes=((3, 4), (4,))),  # fmt: skip
]


# ---- kiln.ops.more_nn and the classes built on it


def _affine_ref(theta):
    h, w = 3, 4
    xs = np.linspace(-1, 1, w) * (w - 1) / w
    ys = np.linspace(-1, 1, h) * (h - 1) / h
    gy, gx = np.meshgrid(ys, xs, indexing="ij")
    base = np.stack([gx, gy, np.ones_like(gx)], -1).reshape(-1, 3)
    return (base @ np.swapaxes(theta, -1, -2)).reshape(theta.shape[0], h, w, 2).astype(theta.dtype)


def _stft_ref(x):
    n_fft, hop = 8, 2
    sig = np.pad(x, (n_fft // 2, n_fft // 2), mode="reflect")
    frames = np.stack([sig[i * hop : i * hop + n_fft] for i in range(1 + (len(sig) - n_fft) // hop)])
    return np.fft.rfft(frames, axis=-1).T.astype(np.complex64)


def _mlml_ref(x, t):
    out = []
    for row, tgt in zip(x, t):
        labels = []
        for v in tgt:
            if v < 0:
                break
            labels.append(int(v))
        others = [j for j in range(len(row)) if j not in labels]
        out.append(sum(max(0.0, 1 - (row[i] - row[j])) for i in labels for j in others) / len(row))
    return np.float32(np.mean(out)) if x.dtype == np.float32 else np.mean(out)


def _mlml_inputs(rng, dtype, shapes):
    x = _distinct(rng, dtype, [shapes[0]])[0]
    return [x, np.array([[3, 0, -1, 1], [1, 2, 3, -1]], np.int64)]


RECORDS += [
    R(
        "fold_unfold",
        lambda x: ops.fold(ops.unfold(x, 2, stride=2), (4, 4), 2, stride=2),
        lambda x: x,
        shapes=((1, 2, 4, 4),),
    ),  # fmt: skip
    R("affine_grid", lambda t: ops.affine_grid(t, (1, 1, 3, 4)), _affine_ref, shapes=((1, 2, 3),)),
    R(
        "bidense",
        ops.bidense,
        lambda a, b, w, c: np.einsum("ni,oij,nj->no", a, w, b) + c,
        shapes=((2, 3), (2, 4), (5, 3, 4), (5,)),
        rtol=1e-5,
        atol=1e-5,
    ),  # fmt: skip
    R(
        "matrix_diag",
        lambda x: ops.matrix_diag(x, -1),
        lambda x: np.stack([np.diag(r, -1) for r in x]),
        shapes=((2, 3),),
    ),  # fmt: skip
    R(
        "stft",
        lambda x: ops.stft(x, 8, 2, return_complex=True),
        _stft_ref,
        shapes=((16,),),
        grad=False,
        rtol=1e-5,
        atol=1e-5,
    ),  # fmt: skip
    R(
        "multilabel_margin_loss",
        ops.multilabel_margin_loss,
        _mlml_ref,
        shapes=((2, 4),),
        extra={"make_inputs": _mlml_inputs},
    ),  # fmt: skip
    R(
        "rms_norm",
        lambda x, g: ops.RmsNorm(1e-6)(x, g),
        lambda x, g: (
            x / np.sqrt(np.mean(x**2, -1, keepdims=True) + 1e-6) * g,
            1 / np.sqrt(np.mean(x**2, -1, keepdims=True) + 1e-6),
        ),
        shapes=((2, 4), (4,)),
        rtol=1e-5,
    ),  # fmt: skip
]
