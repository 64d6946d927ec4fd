"""MindSpore's math Primitive classes (`ops.operations.math_ops`): elementwise, reductions, matmul, cumulative
ops, special functions; and the Bessel K/Y functional faces (`ops.bessel_k0`), built beside their classes.
"""

from __future__ import annotations

import numpy as np

from kiln._core import dtype as mstype
from kiln._core.tensor import Tensor
from kiln._prims import special as prims_special
from kiln.ops import array, linalg, math, random, spectral
from kiln.ops._helpers import apply, op_error, prim
from kiln.ops.faces import CLASSES
from kiln.ops.float_status import NPUAllocFloatStatus, NPUClearFloatStatus, NPUGetFloatStatus
from kiln.ops.operations._build import as_int, assign_if_parameter, attr_class, host_array, simple_class
from kiln.ops.primitive import Primitive, WithAttrs

__all__ = [
    "NPUAllocFloatStatus",  # MindSpore's math_ops holds them; `ops.NPUAllocFloatStatus()` builds one
    "NPUClearFloatStatus",
    "NPUGetFloatStatus",
    "Div",
    "RealDiv",
    "AddN",
    "MatrixInverse",
    "MatMul",
    "BatchMatMul",
    "CumSum",
    "CumProd",
    "Einsum",
    "TensorAdd",
    "Inv",
    "Invert",
    "Ger",
    "Cdist",
    "ApproximateEqual",
    "EuclideanNorm",
    "Fmin",
    "AccumulateNV2",
    "LpNorm",
    "LinSpace",
    "NextAfter",
    "EqualCount",
    "Addcdiv",
    "Addcmul",
    "Angle",
    "BesselI0",
    "BesselI0e",
    "BesselI1",
    "BesselI1e",
    "BesselJ0",
    "BesselJ1",
    "Betainc",
    "Complex",
    "ComplexAbs",
    "Cholesky",
    "CholeskyInverse",
    "CholeskySolve",
    "Cross",
    "CumulativeLogsumexp",
    "DivNoNan",
    "MulNoNan",
    "Eig",
    "Fmax",
    "Gcd",
    "Lcm",
    "Orgqr",
    "Ormqr",
    "Heaviside",
    "Histogram",
    "Igamma",
    "Igammac",
    "IndexAdd",
    "InplaceAdd",
    "InplaceSub",
    "InplaceAddExt",
    "InplaceSubExt",
    "InplaceUpdateV2",
    "InplaceIndexAdd",
    "IsClose",
    "Lerp",
    "LerpScalar",
    "LogMatrixDeterminant",
    "MatrixDeterminant",
    "Logit",
    "LuSolve",
    "LuUnpack",
    "MatrixExp",
    "MatrixPower",
    "MatrixSolve",
    "MatrixTriangularSolve",
    "Median",
    "NanToNum",
    "Polar",
    "Polygamma",
    "Qr",
    "ReduceStd",
    "Renorm",
    "Roll",
    "Sinc",
    "SquareSumAll",
    "Trace",
    "TrilIndices",
    "TriuIndices",
    "TruncateMod",
    "Zeta",
    "Bucketize",
    "Cauchy",
    "STFT",
    "HistogramFixedWidth",
    "bessel_k0",
    "bessel_k0e",
    "bessel_k1",
    "bessel_k1e",
    "bessel_y0",
    "bessel_y1",
    "RaggedRange",
    "FloatStatus",
    "DetTriangle",
    "ClipByNorm",
    "FFTWithSize",
    "Abs",
    "Neg",
    "Exp",
    "Log",
    "Log1p",
    "Expm1",
    "Sqrt",
    "Rsqrt",
    "Square",
    "Sin",
    "Cos",
    "Tan",
    "Asin",
    "ACos",
    "Atan",
    "Sinh",
    "Cosh",
    "Asinh",
    "Acosh",
    "Atanh",
    "Erf",
    "Erfc",
    "Erfinv",
    "Lgamma",
    "Digamma",
    "Floor",
    "Ceil",
    "Round",
    "Trunc",
    "Sign",
    "Reciprocal",
    "LogicalNot",
    "IsNan",
    "IsInf",
    "IsFinite",
    "Real",
    "Imag",
    "Conj",
    "Add",
    "Sub",
    "Mul",
    "FloorDiv",
    "FloorMod",
    "TruncateDiv",
    "Mod",
    "Pow",
    "Maximum",
    "Minimum",
    "Atan2",
    "Hypot",
    "SquaredDifference",
    "Xdivy",
    "Xlogy",
    "Equal",
    "NotEqual",
    "Greater",
    "GreaterEqual",
    "Less",
    "LessEqual",
    "LogicalAnd",
    "LogicalOr",
    "LogicalXor",
    "BitwiseAnd",
    "BitwiseOr",
    "BitwiseXor",
    "ReduceSum",
    "ReduceMean",
    "ReduceMax",
    "ReduceMin",
    "ReduceProd",
    "ReduceAll",
    "ReduceAny",
    "BesselK0",
    "BesselK0e",
    "BesselK1",
    "BesselK1e",
    "BesselY0",
    "BesselY1",
]


def _cumlogsumexp(s, x, axis):
    out = math.logcumsumexp(array.flip(x, (as_int(axis),)) if s.reverse else x, as_int(axis))
    if s.exclusive:
        ax = as_int(axis) % x.ndim
        n = x.shape[ax]
        lowest = array.full_like(array.narrow(out, ax, 0, 1), float(np.finfo(x.dtype.np).min))
        out = array.concat((lowest, array.narrow(out, ax, 0, n - 1)), ax)
    return array.flip(out, (as_int(axis),)) if s.reverse else out


def _div_no_nan(x, y):
    zero = math.equal(y, 0)
    safe = array.select(zero, array.ones_like(y), y) if isinstance(y, Tensor) else (1 if y == 0 else y)
    q = math.div(x, safe)
    return array.select(array.broadcast_to(zero, q.shape) if isinstance(zero, Tensor) else zero, q * 0, q)


def _median(s, x):
    if s.global_median:
        flat = array.reshape(x, (-1,))
        return math._median(flat, 0, False, s.ignore_nan)[0], Tensor(0, mstype.int64)
    return math._median(x, s.axis, s.keep_dims, s.ignore_nan)


def _reduce_std(s, x):
    axis = s.axis if s.axis not in ((), []) else None
    ddof = 1 if s.unbiased else 0
    return math.std_mean(x, axis, ddof, s.keep_dims)


def _histogram_fixed_width(s, x, value_range):
    lo, hi = value_range[0], value_range[1]
    pos = math.floor((math.cast(x, mstype.float32) - lo) / (hi - lo) * s.nbins)
    idx = math.cast(math.clamp(pos, 0, s.nbins - 1), mstype.int64)
    onehot = math.equal(array.expand_dims(array.reshape(idx, (-1,)), -1), array.arange(0, s.nbins))
    return math.cast(math.sum(math.cast(onehot, mstype.int32), 0), mstype.int32)


def _float_tensor(op: str, x) -> Tensor:
    if not isinstance(x, Tensor):
        raise op_error(op, f"'x' must be a Tensor, but got {type(x).__name__}.", TypeError)
    return x


def _bessel(kind: str, decl):
    """`ops.bessel_<kind>`: the functional face of the Bessel declaration `decl` (kind "K0", "K0e", "Y1", ...)."""
    op = f"Bessel{kind}"

    def fn(x):
        return apply(decl, (_float_tensor(op, x),))

    fn.__name__ = fn.__qualname__ = f"bessel_{kind.lower()}"
    fn.__doc__ = f"""The Bessel function {kind} of `x`, elementwise (float16/32/64).

    Args:
        x (Tensor): the input.

    Returns:
        Tensor of the shape and dtype of `x`.
    """
    return fn


def _reduction(fn):
    """The call of a Reduce* class: `fn(x, axis, keep_dims)`, MindSpore's `()` meaning every axis."""
    return lambda self, x, axis=(): fn(x, axis if axis != () else None, self.keep_dims)


Div = simple_class("Div", math.div)


RealDiv = simple_class("RealDiv", math.tensor_div)
AddN = simple_class("AddN", math.addn)
MatrixInverse = simple_class("MatrixInverse", math.inverse)
MatMul = attr_class(
    "MatMul",
    {"transpose_a": False, "transpose_b": False},
    lambda self, x, y: apply(prim("MatMul"), (x, y), (self.transpose_a, self.transpose_b)),
)
BatchMatMul = attr_class(
    "BatchMatMul",
    {"transpose_a": False, "transpose_b": False},
    lambda self, x, y: apply(prim("BatchMatMul"), (x, y), (self.transpose_a, self.transpose_b)),
)
CumSum = attr_class(
    "CumSum",
    {"exclusive": False, "reverse": False},
    lambda self, x, axis: apply(prim("CumSum"), (x,), (int(axis), self.exclusive, self.reverse)),
)
CumProd = attr_class(
    "CumProd",
    {"exclusive": False, "reverse": False},
    lambda self, x, axis: apply(prim("CumProd"), (x,), (int(axis), self.exclusive, self.reverse)),
)
Einsum = attr_class("Einsum", {"equation": ""}, lambda self, xs: math.einsum(self.equation, *xs))
TensorAdd = simple_class("TensorAdd", math.add)  # MindSpore 1.x name of Add
Inv = simple_class("Inv", math.reciprocal)
Invert = simple_class("Invert", math.bitwise_not)
Ger = simple_class("Ger", math.outer)
Cdist = attr_class("Cdist", {"p": 2.0}, lambda self, x1, x2: math.cdist(x1, x2, self.p))
ApproximateEqual = attr_class(
    "ApproximateEqual", {"tolerance": 1e-5}, lambda self, x, y: math.less(math.abs(math.sub(x, y)), self.tolerance)
)


def _euclidean_norm(s, x, axes):
    if not isinstance(axes, Tensor) or axes.dtype not in (mstype.int32, mstype.int64):
        raise op_error("EuclideanNorm", f"axes must be an int32/int64 Tensor, got {axes!r}.", TypeError)
    if axes.ndim != 1:
        raise op_error("EuclideanNorm", f"axes must be 1-D, got shape {tuple(axes.shape)}.")
    if not isinstance(x, Tensor) or x.dtype == mstype.bool_:
        raise op_error("EuclideanNorm", "x must be a numeric Tensor.", TypeError)
    dims = [int(a) for a in axes.asnumpy()]
    if any(not -max(x.ndim, 1) <= a < max(x.ndim, 1) for a in dims):
        raise op_error("EuclideanNorm", f"axes {dims} out of range for x of rank {x.ndim}.")
    dims = sorted({a % max(x.ndim, 1) for a in dims})
    if not dims:
        return x
    # integers and half precision are summed in float32 (float16's squares overflow past 255)
    wide = x.dtype.is_complex or x.dtype in (mstype.float32, mstype.float64)
    work = x if wide else math.cast(x, mstype.float32)
    squares = math.square(math.abs(work)) if work.dtype.is_complex else math.square(work)
    norm = math.sqrt(math.sum(squares, tuple(dims), s.keep_dims))
    return norm if wide else math.cast(norm, x.dtype)


EuclideanNorm = attr_class(
    "EuclideanNorm",
    {"keep_dims": False},
    _euclidean_norm,
    doc="Primitive EuclideanNorm: `EuclideanNorm(keep_dims=False)(x, axes)` is sqrt(sum(|x|**2)) over the axes of "
    "the 1-D int Tensor `axes` (none: `x` itself), in x's dtype (an integer norm truncates).",
)
Fmin = simple_class("Fmin", math.fmin, doc="Primitive Fmin: `Fmin()(x1, x2)` is `ops.fmin(x1, x2)`.")
AccumulateNV2 = simple_class(
    "AccumulateNV2", math.accumulate_n, doc="Primitive AccumulateNV2: `AccumulateNV2()(x)` is `ops.accumulate_n(x)`."
)


def _lp_norm(s, x):
    # MindSpore's LpNorm scales by the largest |x| (exact for large p) and gives at least `epsilon`.
    if s.p > 0:
        norm = linalg.vector_norm(x, float(s.p), s.axis, s.keep_dims)
    else:
        norm = math.pow(math.sum(math.pow(math.abs(x), s.p), s.axis, s.keep_dims), 1.0 / s.p)
    return math.maximum(norm, s.epsilon)


LpNorm = attr_class(
    "LpNorm",
    {"axis": 0, "p": 2, "keep_dims": False, "epsilon": 1e-12},
    lambda self, x: _lp_norm(self, x),
)
LinSpace = simple_class("LinSpace", lambda start, stop, num: array.linspace(start, stop, int(num)))
NextAfter = simple_class("NextAfter", lambda x, y: math.nextafter(x, y))
EqualCount = simple_class(
    "EqualCount",
    lambda x, y: array.reshape(math.cast(math.sum(math.cast(math.equal(x, y), mstype.int32)), x.dtype), (1,)),
)
Addcdiv = attr_class("Addcdiv", {}, lambda s, x, t1, t2, v: math.addcdiv(x, t1, t2, v))
Addcmul = attr_class("Addcmul", {}, lambda s, x, t1, t2, v: math.addcmul(x, t1, t2, v))
Angle = attr_class("Angle", {}, lambda s, x: math.angle(x))
BesselI0 = attr_class("BesselI0", {}, lambda s, x: math.bessel_i0(x))
BesselI0e = attr_class("BesselI0e", {}, lambda s, x: math.bessel_i0e(x))
BesselI1 = attr_class("BesselI1", {}, lambda s, x: math.bessel_i1(x))
BesselI1e = attr_class("BesselI1e", {}, lambda s, x: math.bessel_i1e(x))
BesselJ0 = attr_class("BesselJ0", {}, lambda s, x: math.bessel_j0(x))
BesselJ1 = attr_class("BesselJ1", {}, lambda s, x: math.bessel_j1(x))
Betainc = attr_class("Betainc", {}, lambda s, a, b, x: math.betainc(a, b, x))
Complex = attr_class("Complex", {}, lambda s, re, im: math.complex(re, im))
ComplexAbs = attr_class("ComplexAbs", {}, lambda s, x: math.abs(x))
Cholesky = attr_class("Cholesky", {"upper": False}, lambda s, x: linalg.cholesky(x, s.upper))
CholeskyInverse = attr_class("CholeskyInverse", {"upper": False}, lambda s, x: linalg.cholesky_inverse(x, s.upper))
CholeskySolve = attr_class("CholeskySolve", {"upper": False}, lambda s, x1, x2: linalg.cholesky_solve(x1, x2, s.upper))
Cross = attr_class("Cross", {"dim": -65530}, lambda s, x, y: math.cross(x, y, None if s.dim == -65530 else s.dim))
CumulativeLogsumexp = attr_class(
    "CumulativeLogsumexp", {"exclusive": False, "reverse": False}, lambda s, x, axis: _cumlogsumexp(s, x, axis)
)
DivNoNan = attr_class("DivNoNan", {}, lambda s, x, y: _div_no_nan(x, y))
MulNoNan = attr_class(
    "MulNoNan", {}, lambda s, x, y: array.select(math.equal(y, 0), math.mul(x, 0) * 0, math.mul(x, y))
)


def _eig(self, x):
    """Eig's two outputs: the eigenvalues, and the eigenvectors or, without `compute_v`, a complex 0-d zero in their
    place (MindSpore 2.10 returns two outputs either way, so `values, _ = Eig()(x)` unpacks)."""
    if self.compute_v:
        return linalg.eig(x)
    values = linalg.eigvals(x)
    return values, array.zeros((), values.dtype)


Eig = attr_class("Eig", {"compute_v": False}, _eig)
Fmax = attr_class("Fmax", {}, lambda s, x, y: math.fmax(x, y))
Gcd = attr_class("Gcd", {}, lambda s, x, y: math.gcd(x, y))
Lcm = attr_class("Lcm", {}, lambda s, x, y: math.lcm(x, y))
Orgqr = attr_class("Orgqr", {}, lambda s, x, tau: linalg.orgqr(x, tau))
Ormqr = attr_class(
    "Ormqr",
    {"left": True, "transpose": False},
    lambda s, x, tau, other: linalg.ormqr(x, tau, other, s.left, s.transpose),
)
Heaviside = attr_class("Heaviside", {}, lambda s, x, v: math.heaviside(x, v))
Histogram = attr_class(
    "Histogram", {"bins": 100, "min": 0.0, "max": 0.0}, lambda s, x: math.histc(x, s.bins, s.min, s.max)
)
Igamma = attr_class("Igamma", {}, lambda s, a, x: math.igamma(a, x))
Igammac = attr_class("Igammac", {}, lambda s, a, x: math.igammac(a, x))
IndexAdd = attr_class(
    "IndexAdd",
    {"axis": 0, "use_lock": True, "check_index_bound": True},
    lambda s, x, idx, y: assign_if_parameter(x, array.index_add(x, idx, y, s.axis)),
)
InplaceAdd = attr_class("InplaceAdd", {"indices": 0}, lambda s, x, v: math.inplace_add(x, v, s.indices))
InplaceSub = attr_class("InplaceSub", {"indices": 0}, lambda s, x, v: math.inplace_sub(x, v, s.indices))
# `input += alpha * other` in place (the Tensor methods add_/sub_), MindSpore's generated in-place Primitives
InplaceAddExt = attr_class(
    "InplaceAddExt", {}, lambda s, x, y, alpha=1: x.add_(y, alpha=alpha), "Primitive InplaceAddExt: `x.add_(y, alpha)`."
)
InplaceSubExt = attr_class(
    "InplaceSubExt", {}, lambda s, x, y, alpha=1: x.sub_(y, alpha=alpha), "Primitive InplaceSubExt: `x.sub_(y, alpha)`."
)
InplaceUpdateV2 = attr_class("InplaceUpdateV2", {}, lambda s, x, idx, v: math.inplace_update(x, v, idx))
InplaceIndexAdd = attr_class(
    "InplaceIndexAdd", {"axis": 0}, lambda s, var, idx, u: array.inplace_index_add(var, idx, u, s.axis)
)
IsClose = attr_class(
    "IsClose",
    {"rtol": 1e-05, "atol": 1e-08, "equal_nan": False},
    lambda s, x, y: math.isclose(x, y, s.rtol, s.atol, s.equal_nan),
)
Lerp = attr_class("Lerp", {}, lambda s, x, end, w: math.lerp(x, end, w))
LerpScalar = attr_class("LerpScalar", {}, lambda s, x, end, w: math.lerp(x, end, w))
LogMatrixDeterminant = attr_class("LogMatrixDeterminant", {}, lambda s, x: linalg.log_matrix_determinant(x))
MatrixDeterminant = attr_class("MatrixDeterminant", {}, lambda s, x: linalg.det(x))
Logit = attr_class("Logit", {"eps": -1.0}, lambda s, x: math.logit(x, s.eps))
LuSolve = attr_class("LuSolve", {}, lambda s, b, lu, piv: linalg.lu_solve(b, lu, piv))
LuUnpack = attr_class(
    "LuUnpack", {"unpack_data": True, "unpack_pivots": True}, lambda s, lu, piv: linalg.lu_unpack(lu, piv)
)
MatrixExp = attr_class("MatrixExp", {}, lambda s, x: linalg.matrix_exp(x))
MatrixPower = attr_class("MatrixPower", {"n": 1}, lambda s, x: linalg.matrix_power(x, s.n))
MatrixSolve = attr_class("MatrixSolve", {"adjoint": False}, lambda s, a, b: linalg.matrix_solve(a, b, s.adjoint))
MatrixTriangularSolve = attr_class(
    "MatrixTriangularSolve",
    {"lower": True, "adjoint": False},
    lambda s, a, b: linalg.triangular_solve(b, a, not s.lower, s.adjoint)[0],
)
Median = attr_class(
    "Median", {"global_median": False, "axis": 0, "keep_dims": False, "ignore_nan": False}, lambda s, x: _median(s, x)
)
NanToNum = attr_class(
    "NanToNum",
    {"nan": None, "posinf": None, "neginf": None},
    lambda s, x: math.nan_to_num(x, s.nan, s.posinf, s.neginf),
)
Polar = attr_class("Polar", {}, lambda s, r, theta: math.polar(r, theta))
Polygamma = attr_class("Polygamma", {}, lambda s, n, x: math.polygamma(n, x))
Qr = attr_class("Qr", {"full_matrices": False}, lambda s, x: linalg.qr(x, "complete" if s.full_matrices else "reduced"))
ReduceStd = attr_class("ReduceStd", {"axis": (), "unbiased": True, "keep_dims": False}, lambda s, x: _reduce_std(s, x))
Renorm = attr_class("Renorm", {"p": 2, "dim": 0, "maxnorm": 1.0}, lambda s, x: math.renorm(x, s.p, s.dim, s.maxnorm))
Roll = attr_class("Roll", {"shifts": 0, "dims": None}, lambda s, x: array.roll(x, s.shifts, s.dims))
Sinc = attr_class("Sinc", {}, lambda s, x: math.sinc(x))
SquareSumAll = attr_class("SquareSumAll", {}, lambda s, x, y: math.square_sum_all(x, y))
Trace = attr_class("Trace", {}, lambda s, x: math.trace(x))
TrilIndices = attr_class(
    "TrilIndices",
    {"row": 1, "col": 1, "offset": 0, "dtype": mstype.int32},
    lambda s: array.tril_indices(s.row, s.col, s.offset, dtype=s.dtype),
)
TriuIndices = attr_class(
    "TriuIndices",
    {"row": 1, "col": 1, "offset": 0, "dtype": mstype.int32},
    lambda s: array.triu_indices(s.row, s.col, s.offset, dtype=s.dtype),
)
TruncateMod = attr_class("TruncateMod", {}, lambda s, x, y: math.truncate_mod(x, y))
Zeta = attr_class("Zeta", {}, lambda s, x, q: math.zeta(x, q))
Bucketize = attr_class("Bucketize", {"boundaries": ()}, lambda s, x: math.bucketize(x, s.boundaries, right=True))
Cauchy = attr_class(
    "Cauchy",
    {"size": (1,), "median": 0.0, "sigma": 1.0},
    lambda s: s.median + s.sigma * math.tan(np.float32(np.pi) * (random._unit_uniform(tuple(s.size)) - 0.5)),
)
STFT = attr_class(
    "STFT",
    {"n_fft": 1, "hop_length": 1, "win_length": 1, "normalized": False, "onesided": True, "return_complex": True},
    lambda s, x, window: spectral.stft(
        x, s.n_fft, s.hop_length, s.win_length, window, False, "REFLECT", s.normalized, s.onesided, s.return_complex
    ),
)
HistogramFixedWidth = attr_class(
    "HistogramFixedWidth", {"nbins": 1, "dtype": "int32"}, lambda s, x, r: _histogram_fixed_width(s, x, r)
)
bessel_k0 = _bessel("K0", prims_special.BesselK0)
bessel_k0e = _bessel("K0e", prims_special.BesselK0e)
bessel_k1 = _bessel("K1", prims_special.BesselK1)
bessel_k1e = _bessel("K1e", prims_special.BesselK1e)
bessel_y0 = _bessel("Y0", prims_special.BesselY0)
bessel_y1 = _bessel("Y1", prims_special.BesselY1)


class RaggedRange(WithAttrs):
    """`RaggedRange(Tsplits)(starts, limits, deltas)`: the ranges range(starts[i], limits[i], deltas[i]) laid
    end to end (`rt_dense_values`, the dtype of `starts`) and their row splits (`rt_nested_splits`, Tsplits)."""

    _defaults = {"Tsplits": None}

    def __call__(self, starts, limits, deltas):
        op = "RaggedRange"
        if self.Tsplits not in (mstype.int32, mstype.int64):
            raise op_error(op, f"'Tsplits' must be int32 or int64, but got {self.Tsplits}.", TypeError)
        s, lim, d = (np.atleast_1d(host_array(v, op)) for v in (starts, limits, deltas))
        s, lim, d = np.broadcast_arrays(s, lim, d)
        if (d == 0).any():
            raise op_error(op, "'deltas' must not contain 0.")
        dtype = starts.dtype.np if isinstance(starts, Tensor) else s.dtype
        pieces = [np.arange(a, b, c, dtype=dtype) for a, b, c in zip(s.tolist(), lim.tolist(), d.tolist(), strict=True)]
        splits = np.concatenate([[0], np.cumsum([len(p) for p in pieces])]).astype(self.Tsplits.np)
        values = np.concatenate(pieces).astype(dtype) if pieces else np.zeros((0,), dtype)
        return Tensor(splits), Tensor(values)


class FloatStatus(Primitive):
    """`FloatStatus()(x)`: a (1,) Tensor of x's dtype, 1 when x holds an inf or a NaN, else 0."""

    def __init__(self) -> None:
        super().__init__("FloatStatus")

    def __call__(self, x):
        bad = math.logical_not(math.all(math.isfinite(x)))
        return array.reshape(math.cast(bad, x.dtype), (1,))


class DetTriangle(WithAttrs):
    """`DetTriangle(fill_mode=0)(x)`: the determinant of (batches of) triangular matrices: the product of the
    diagonal, shape x.shape[:-2]."""

    _defaults = {"fill_mode": 0}

    def __call__(self, x):
        if x.ndim < 2 or x.shape[-1] != x.shape[-2]:
            raise op_error("DetTriangle", f"'x' must be (..., n, n), but got {tuple(x.shape)}.")
        return math.prod(array.diagonal(x, 0, -2, -1), -1)


class ClipByNorm(WithAttrs):
    """`ClipByNorm(axis=None)(x, clip_norm)`: x scaled so that its L2 norm over `axis` (all axes when None) is at most
    `clip_norm`, computed in float32 and returned as float32 (MindSpore's inner primitive of nn.ClipByNorm)."""

    _defaults = {"axis": None}

    def __call__(self, x, clip_norm):
        axis = tuple(range(x.ndim)) if self.axis in ((), None) else self.axis
        axis = (axis,) if isinstance(axis, int) else tuple(axis)
        return apply(prim("ClipByNorm"), (x, clip_norm), (axis,))


class FFTWithSize(WithAttrs):
    """`FFTWithSize(signal_ndim, inverse, real, norm="backward", onesided=True, signal_sizes=())(x)`: the
    (inverse) discrete Fourier transform over the last `signal_ndim` dims: complex-to-complex (real=False),
    real-to-complex (real, not inverse; half spectrum when onesided) or complex-to-real (real and inverse, to
    `signal_sizes`)."""

    _defaults = {"signal_ndim": 1, "inverse": False, "real": False, "norm": "backward", "onesided": True,
                 "signal_sizes": ()}  # fmt: skip

    def __call__(self, x):
        nd = int(self.signal_ndim)
        if nd not in (1, 2, 3) or x.ndim < nd:
            raise op_error(self.name, f"'signal_ndim' must be 1, 2 or 3 and at most x's rank, but got {nd}.")
        if self.norm not in ("backward", "forward", "ortho"):
            raise op_error(self.name, f"'norm' must be 'backward', 'forward' or 'ortho', but got {self.norm!r}.")
        dims = tuple(range(-nd, 0))
        if not self.real:
            return (spectral.ifftn if self.inverse else spectral.fftn)(x, None, dims, self.norm)
        if not self.inverse:
            return (spectral.rfftn if self.onesided else spectral.fftn)(x, None, dims, self.norm)
        sizes = tuple(int(v) for v in self.signal_sizes) or None
        if not self.onesided:
            return math.real(spectral.ifftn(x, sizes, dims, self.norm))
        return spectral.irfftn(x, sizes, dims, self.norm)


Abs = CLASSES["Abs"]
Neg = CLASSES["Neg"]
Exp = CLASSES["Exp"]
Log = CLASSES["Log"]
Log1p = CLASSES["Log1p"]
Expm1 = CLASSES["Expm1"]
Sqrt = CLASSES["Sqrt"]
Rsqrt = CLASSES["Rsqrt"]
Square = CLASSES["Square"]
Sin = CLASSES["Sin"]
Cos = CLASSES["Cos"]
Tan = CLASSES["Tan"]
Asin = CLASSES["Asin"]
ACos = CLASSES["ACos"]
Atan = CLASSES["Atan"]
Sinh = CLASSES["Sinh"]
Cosh = CLASSES["Cosh"]
Asinh = CLASSES["Asinh"]
Acosh = CLASSES["Acosh"]
Atanh = CLASSES["Atanh"]
Erf = CLASSES["Erf"]
Erfc = CLASSES["Erfc"]
Erfinv = CLASSES["Erfinv"]
Lgamma = CLASSES["Lgamma"]
Digamma = CLASSES["Digamma"]
Floor = CLASSES["Floor"]
Ceil = CLASSES["Ceil"]
Round = CLASSES["Round"]
Trunc = CLASSES["Trunc"]
Sign = CLASSES["Sign"]
Reciprocal = CLASSES["Reciprocal"]
LogicalNot = CLASSES["LogicalNot"]
IsNan = CLASSES["IsNan"]
IsInf = CLASSES["IsInf"]
IsFinite = CLASSES["IsFinite"]
Real = CLASSES["Real"]
Imag = CLASSES["Imag"]
Conj = CLASSES["Conj"]
Add = CLASSES["Add"]
Sub = CLASSES["Sub"]
Mul = CLASSES["Mul"]
FloorDiv = CLASSES["FloorDiv"]
FloorMod = CLASSES["FloorMod"]
TruncateDiv = CLASSES["TruncateDiv"]
Mod = CLASSES["Mod"]
Pow = CLASSES["Pow"]
Maximum = CLASSES["Maximum"]
Minimum = CLASSES["Minimum"]
Atan2 = CLASSES["Atan2"]
Hypot = CLASSES["Hypot"]
SquaredDifference = CLASSES["SquaredDifference"]
Xdivy = CLASSES["Xdivy"]
Xlogy = CLASSES["Xlogy"]
Equal = CLASSES["Equal"]
NotEqual = CLASSES["NotEqual"]
Greater = CLASSES["Greater"]
GreaterEqual = CLASSES["GreaterEqual"]
Less = CLASSES["Less"]
LessEqual = CLASSES["LessEqual"]
LogicalAnd = CLASSES["LogicalAnd"]
LogicalOr = CLASSES["LogicalOr"]
LogicalXor = CLASSES["LogicalXor"]
BitwiseAnd = CLASSES["BitwiseAnd"]
BitwiseOr = CLASSES["BitwiseOr"]
BitwiseXor = CLASSES["BitwiseXor"]
ReduceSum = attr_class("ReduceSum", {"keep_dims": False}, _reduction(math.reduce_sum))
ReduceMean = attr_class("ReduceMean", {"keep_dims": False}, _reduction(math.mean))
ReduceMax = attr_class("ReduceMax", {"keep_dims": False}, _reduction(math.amax))
ReduceMin = attr_class("ReduceMin", {"keep_dims": False}, _reduction(math.amin))
ReduceProd = attr_class("ReduceProd", {"keep_dims": False}, _reduction(math.reduce_prod))
ReduceAll = attr_class("ReduceAll", {"keep_dims": False}, _reduction(math.all))
ReduceAny = attr_class("ReduceAny", {"keep_dims": False}, _reduction(math.any))
BesselK0 = simple_class("BesselK0", bessel_k0, "Primitive BesselK0: ops.bessel_k0.")
BesselK0e = simple_class("BesselK0e", bessel_k0e, "Primitive BesselK0e: ops.bessel_k0e.")
BesselK1 = simple_class("BesselK1", bessel_k1, "Primitive BesselK1: ops.bessel_k1.")
BesselK1e = simple_class("BesselK1e", bessel_k1e, "Primitive BesselK1e: ops.bessel_k1e.")
BesselY0 = simple_class("BesselY0", bessel_y0, "Primitive BesselY0: ops.bessel_y0.")
BesselY1 = simple_class("BesselY1", bessel_y1, "Primitive BesselY1: ops.bessel_y1.")
