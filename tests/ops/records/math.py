"""Op records for the math ops: elementwise unary and binary, reductions, clipping, distances, counting."""

from __future__ import annotations

import numpy as np
from scipy import special

import kiln
from kiln import Tensor, ops
from tests.ops.records import OpRecord

F32 = (np.float32,)


F32_16 = (np.float32, np.float16)


BF16 = kiln.bfloat16.np.type  # NumPy's view of bfloat16 (from ml_dtypes, which JAX ships)


F32_16_BF = (np.float32, np.float16, BF16)


# Shapes: a matrix and a 0-d scalar for unary ops; equal shapes and broadcasting for binary ones.
UNARY_CASES = {"shapes": ((3, 4),), "cases": (((),),)}


BINARY_CASES = {"shapes": ((3, 4), (3, 4)), "cases": (((3, 1, 4), (2, 4)), ((4,), ()))}


def _with(extra: dict | None, **defaults) -> dict:
    return {**defaults, **(extra or {})}


def unary(name: str, ref, *, domain=(-2.0, 2.0), dtypes=F32, grad=True, kiln=None, extra=None, **kw) -> OpRecord:
    """A record for an elementwise unary op `ops.<name>` (gradients on the matrix case only)."""
    return OpRecord(name, kiln or getattr(ops, name), ref, domain=domain, dtypes=dtypes, grad=grad, **UNARY_CASES,
                    vmap=True, extra=_with(extra, grad_cases=(0,)), **kw)  # fmt: skip


def binary(name: str, ref, *, domain=(-2.0, 2.0), dtypes=F32, grad=True, kiln=None, extra=None, **kw) -> OpRecord:
    """A record for an elementwise binary op `ops.<name>` with broadcasting cases."""
    return OpRecord(name, kiln or getattr(ops, name), ref, domain=domain, dtypes=dtypes, grad=grad, **BINARY_CASES,
                    vmap=True, extra=_with(extra, grad_cases=(0, 1)), **kw)  # fmt: skip


def nonzero_divisor(lo=-4.0, hi=4.0):
    """make_inputs for division-like ops: a numerator in [lo, hi], a divisor in ±[0.5, 3]."""

    def make(rng, dtype, shapes):
        x = rng.uniform(lo, hi, size=shapes[0])
        y = rng.uniform(0.5, 3.0, size=shapes[1]) * rng.choice([-1.0, 1.0], size=shapes[1])
        if dtype.kind in "iu":
            x, y = np.round(x), np.where(y > 0, np.ceil(y), np.floor(y))
        return [x.astype(dtype), y.astype(dtype)]

    return make


def positive_second(lo=0.5, hi=2.0):
    """make_inputs for ops whose second input must be positive (xlogy, xdivy)."""

    def make(rng, dtype, shapes):
        return [rng.uniform(-2, 2, size=shapes[0]).astype(dtype), rng.uniform(lo, hi, size=shapes[1]).astype(dtype)]

    return make


def with_specials(rng, dtype, shapes):
    x = rng.uniform(-2, 2, size=shapes[0]).astype(dtype)
    flat = x.reshape(-1)
    if flat.size >= 3:
        flat[0], flat[1], flat[2] = np.nan, np.inf, -np.inf
    return [flat.reshape(x.shape)]


def complex_inputs(rng, dtype, shapes):
    return [(rng.uniform(-2, 2, size=s) + 1j * rng.uniform(-2, 2, size=s)).astype(np.complex64) for s in shapes]


def _sigmoid(x):
    return 1 / (1 + np.exp(-x))


def _softplus(x):
    return np.log1p(np.exp(x))


def _softmax(x, axis=-1):
    e = np.exp(x - np.max(x, axis=axis, keepdims=True))
    return e / np.sum(e, axis=axis, keepdims=True)


def _log_softmax(x, axis=-1):
    m = np.max(x, axis=axis, keepdims=True)
    return x - m - np.log(np.sum(np.exp(x - m), axis=axis, keepdims=True))


def _relu6(x):
    return np.minimum(np.maximum(x, 0), 6).astype(x.dtype)


def _gelu_tanh(x):
    return 0.5 * x * (1 + np.tanh(np.sqrt(2 / np.pi) * (x + 0.044715 * x**3)))


def _topk_input_order(x, k):
    """The k largest along the last axis, in the order they appear in x (Kiln's sorted=False)."""
    idx = np.sort(np.argsort(-x, -1, kind="stable")[..., :k], -1)
    return np.take_along_axis(x, idx, -1), idx.astype(np.int32)


def _i32(indices):
    return indices.astype(np.int32)


def _running_ref(x, axis, fn, index_dtype):
    """Running extremum along `axis` and the index of the latest element equal to it."""
    values = fn.accumulate(x, axis)
    moved, vals = np.moveaxis(x, axis, -1), np.moveaxis(values, axis, -1)
    idx = np.zeros(moved.shape, np.int64)
    for k in np.ndindex(*moved.shape[:-1]):
        last = 0
        for t in range(moved.shape[-1]):
            if moved[k][t] == vals[k][t]:
                last = t
            idx[k][t] = last
    return values, np.moveaxis(idx, -1, axis).astype(index_dtype)


def _reduction(name: str, kiln, ref, *, dtypes=F32, grad=True, domain=(-2.0, 2.0), shapes=((3, 4, 2),), **kw):
    return OpRecord(name, kiln, ref, shapes=shapes, dtypes=dtypes, grad=grad, domain=domain, vmap=True, **kw)


_SELU_ALPHA, _SELU_SCALE = 1.6732632423543772, 1.0507009873554805
ACT_CASES = {"shapes": ((3, 5),), "cases": (((2, 3, 4),),)}


def act(name: str, ref, *, kiln=None, domain=(-3.0, 3.0), dtypes=F32, **kw) -> OpRecord:
    """A record for an activation of `kiln.ops.nn`: the output keeps the input's dtype."""
    typed = lambda x: np.asarray(ref(x)).astype(x.dtype)
    return OpRecord(name, kiln or getattr(ops, name), typed, domain=domain, dtypes=dtypes, vmap=True, **ACT_CASES, **kw)


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


R = OpRecord


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


ELEMENTWISE_UNARY = [
    unary("abs", np.abs, dtypes=(np.float32, np.float16, np.int32)),
    unary("neg", np.negative, dtypes=(np.float32, np.int32, np.int64)),
    unary("exp", np.exp, dtypes=F32_16_BF),
    unary("expm1", np.expm1),
    unary("exp2", np.exp2),
    unary("log", np.log, domain=(0.5, 3.0), dtypes=F32_16),
    unary("log1p", np.log1p, domain=(-0.5, 2.0)),
    unary("log2", np.log2, domain=(0.5, 3.0)),
    unary("log10", np.log10, domain=(0.5, 3.0)),
    unary("sqrt", np.sqrt, domain=(0.5, 3.0), dtypes=F32_16),
    unary("rsqrt", lambda x: 1 / np.sqrt(x), domain=(0.5, 3.0)),
    unary("square", np.square, dtypes=(np.float32, np.int32)),
    unary("reciprocal", np.reciprocal, domain=(0.5, 3.0)),
    unary("sin", np.sin),
    unary("cos", np.cos),
    unary("tan", np.tan, domain=(-1.2, 1.2)),
    unary("asin", np.arcsin, domain=(-0.9, 0.9)),
    unary("acos", np.arccos, domain=(-0.9, 0.9)),
    unary("atan", np.arctan),
    unary("sinh", np.sinh),
    unary("cosh", np.cosh),
    unary("tanh", np.tanh, dtypes=F32_16_BF),
    unary("asinh", np.arcsinh),
    unary("acosh", np.arccosh, domain=(1.1, 3.0)),
    unary("atanh", np.arctanh, domain=(-0.9, 0.9)),
    unary("erf", special.erf),
    unary("erfc", special.erfc),
    unary("erfinv", special.erfinv, domain=(-0.9, 0.9)),
    unary("lgamma", special.gammaln, domain=(0.5, 4.0), rtol=1e-4, atol=1e-5),
    unary("digamma", special.digamma, domain=(0.5, 4.0), rtol=1e-4, atol=1e-5),
    unary("floor", np.floor, domain=(-3.0, 3.0), grad=False),
    unary("ceil", np.ceil, domain=(-3.0, 3.0), grad=False),
    unary("round", np.round, domain=(-3.0, 3.0), grad=False),
    unary("trunc", np.trunc, domain=(-3.0, 3.0), grad=False),
    unary("sign", np.sign, dtypes=(np.float32, np.int32), grad=False),
    unary("logical_not", np.logical_not, dtypes=(np.bool_,), grad=False),
    unary("bitwise_not", np.bitwise_not, dtypes=(np.int32, np.int64, np.uint8), domain=(-5, 5), grad=False),
    OpRecord("isnan", ops.isnan, np.isnan, shapes=((3, 4),), grad=False, extra={"make_inputs": with_specials}),
    OpRecord("isinf", ops.isinf, np.isinf, shapes=((3, 4),), grad=False, extra={"make_inputs": with_specials}),
    OpRecord("isfinite", ops.isfinite, np.isfinite, shapes=((3, 4),), grad=False, extra={"make_inputs": with_specials}),
    OpRecord("real", ops.real, np.real, shapes=((3, 4),), grad=False, extra={"make_inputs": complex_inputs}),
    OpRecord("imag", ops.imag, np.imag, shapes=((3, 4),), grad=False, extra={"make_inputs": complex_inputs}),
    OpRecord("conj", ops.conj, np.conj, shapes=((3, 4),), grad=False, extra={"make_inputs": complex_inputs}),
    # Integer inputs of float-valued functions compute in float32 (MindSpore's Sqrt/Reciprocal do too).
    unary("sqrt_int", np.sqrt, kiln=ops.sqrt, domain=(0, 9), dtypes=(np.int32,), grad=False,
          extra={"ref_dtype": np.float32}),  # fmt: skip
    unary("reciprocal_int", lambda x: 1.0 / x, kiln=ops.reciprocal, domain=(1, 9), dtypes=(np.int32,), grad=False,
          extra={"ref_dtype": np.float32, "make_inputs": lambda rng, dt, s: [rng.integers(1, 9, s[0]).astype(dt)]}),
]  # fmt: skip


ELEMENTWISE_BINARY = [
    binary("add", np.add, dtypes=(np.float32, np.float16, BF16, np.int32, np.int64, np.uint8)),
    binary("sub", np.subtract, dtypes=(np.float32, np.int32)),
    binary("mul", np.multiply, dtypes=(np.float32, np.float16, BF16, np.int32)),
    binary("div", np.true_divide, dtypes=F32_16, extra={"make_inputs": nonzero_divisor()}),
    binary("div_int", np.true_divide, kiln=ops.div, dtypes=(np.int32,), grad=False,
           extra={"make_inputs": nonzero_divisor(), "ref_dtype": np.float32}),
    binary("div_floor", np.floor_divide, kiln=lambda x, y: ops.div(x, y, rounding_mode="floor"),
           dtypes=(np.float32, np.int32), grad=False, extra={"make_inputs": nonzero_divisor()}),
    binary("div_trunc", lambda x, y: np.trunc(x / y).astype(np.result_type(x, y)),
           kiln=lambda x, y: ops.div(x, y, rounding_mode="trunc"), dtypes=(np.float32, np.int32), grad=False,
           extra={"make_inputs": nonzero_divisor()}),
    binary("floor_divide", np.floor_divide, dtypes=(np.float32, np.int32), grad=False,
           extra={"make_inputs": nonzero_divisor()}),
    binary("floor_mod", np.mod, dtypes=(np.float32, np.int32), extra={"make_inputs": nonzero_divisor()},
           grad=False),
    binary("truncate_div", lambda x, y: np.trunc(x / y).astype(np.result_type(x, y)), dtypes=(np.float32, np.int32),
           grad=False, extra={"make_inputs": nonzero_divisor()}),
    binary("fmod", np.fmod, dtypes=(np.float32, np.int32), extra={"make_inputs": nonzero_divisor()}),
    binary("pow", lambda x, y: np.power(y, x), kiln=lambda x, y: ops.pow(y, x),
           extra={"make_inputs": positive_second(0.5, 2.0)}),
    binary("pow_int", lambda x, y: np.power(x, y), kiln=ops.pow, dtypes=(np.int32,), domain=(0, 3), grad=False),
    binary("maximum", np.maximum, dtypes=(np.float32, np.int32)),
    binary("minimum", np.minimum, dtypes=(np.float32, np.int32)),
    binary("atan2", np.arctan2, extra={"make_inputs": nonzero_divisor()}),
    binary("hypot", np.hypot, extra={"make_inputs": nonzero_divisor()}),
    binary("squared_difference", lambda x, y: np.square(x - y), dtypes=(np.float32, np.int32)),
    binary("xdivy", lambda x, y: np.where(x == 0, 0, x / y).astype(np.result_type(x, y)),
           extra={"make_inputs": positive_second()}),
    binary("xlogy", special.xlogy, extra={"make_inputs": positive_second()}),
    binary("equal", np.equal, dtypes=(np.float32, np.int32), domain=(-2, 2), grad=False),
    binary("not_equal", np.not_equal, dtypes=(np.float32, np.int32), domain=(-2, 2), grad=False),
    binary("greater", np.greater, dtypes=(np.float32, np.int32), domain=(-2, 2), grad=False),
    binary("greater_equal", np.greater_equal, dtypes=(np.float32, np.int32), domain=(-2, 2), grad=False),
    binary("less", np.less, dtypes=(np.float32, np.int32), domain=(-2, 2), grad=False),
    binary("less_equal", np.less_equal, dtypes=(np.float32, np.int32), domain=(-2, 2), grad=False),
    binary("logical_and", np.logical_and, dtypes=(np.bool_,), grad=False),
    binary("logical_or", np.logical_or, dtypes=(np.bool_,), grad=False),
    binary("logical_xor", np.logical_xor, dtypes=(np.bool_,), grad=False),
    binary("bitwise_and", np.bitwise_and, dtypes=(np.int32, np.uint8), domain=(0, 100), grad=False),
    binary("bitwise_or", np.bitwise_or, dtypes=(np.int32, np.uint8), domain=(0, 100), grad=False),
    binary("bitwise_xor", np.bitwise_xor, dtypes=(np.int32, np.uint8), domain=(0, 100), grad=False),
    binary("bitwise_left_shift", np.left_shift, dtypes=(np.int32,), domain=(0, 4), grad=False),
    binary("bitwise_right_shift", np.right_shift, dtypes=(np.int32,), domain=(0, 4), grad=False),
    # A Python scalar operand is weakly typed: the tensor's dtype wins unless the kinds differ.
    unary("add_scalar_float", lambda x: x + np.float32(2.5) if x.dtype.kind == "f" else (x + 2.5).astype(np.float32),
          kiln=lambda x: ops.add(x, 2.5), dtypes=(np.float32, np.float16, np.int32)),
    unary("mul_scalar_int", lambda x: x * np.array(3, x.dtype), kiln=lambda x: ops.mul(x, 3),
          dtypes=(np.float32, np.float16, np.int32, np.uint8), domain=(0, 5)),
    unary("sub_rscalar", lambda x: np.array(1, x.dtype) - x, kiln=lambda x: 1 - x, dtypes=(np.float32, np.int32)),
    unary("pow_scalar", lambda x: x**2, kiln=lambda x: ops.pow(x, 2), dtypes=(np.float32, np.int32)),
    unary("truediv_operator", lambda x: x / np.float32(4), kiln=lambda x: x / 4, dtypes=F32_16),
]  # fmt: skip


OTHER_MATH = [
    OpRecord("addn", lambda a, b, c: ops.addn([a, b, c]), lambda a, b, c: a + b + c, shapes=((2, 3),) * 3),
    # MindSpore: float bounds on an integer tensor give float32.
    OpRecord("clamp", lambda x: ops.clamp(x, -0.5, 1.0),
             lambda x: np.clip(x.astype(np.float32) if x.dtype.kind in "iu" else x, -0.5, 1.0), shapes=((3, 4),),
             dtypes=(np.float32, np.int32)),
    OpRecord("clamp_min_only", lambda x: ops.clamp(x, min=0.25), lambda x: np.maximum(x, np.float32(0.25)),
             shapes=((3, 4),)),
    OpRecord("clamp_tensor_bounds", lambda x, lo, hi: ops.clamp(x, lo, hi - lo + 2.5),
             lambda x, lo, hi: np.minimum(np.maximum(x, lo), hi - lo + np.float32(2.5)),
             shapes=((3, 4), (4,), (3, 1))),
    OpRecord("lerp", ops.lerp, lambda a, b, w: a + w * (b - a), shapes=((3, 4), (3, 4), (3, 4)),
             cases=(((3, 4), (4,), ()),)),
    # Gradients through a cast to half precision are quantised: finite differences cannot check them.
    OpRecord("cast_f32_to_f16", lambda x: ops.cast(x, np.float16), lambda x: x.astype(np.float16), shapes=((3, 4),),
             rtol=1e-3, atol=1e-3, grad=False),
    OpRecord("cast_f32_to_f64", lambda x: ops.cast(x, np.float64) * 2, lambda x: x.astype(np.float64) * 2,
             shapes=((3, 4),)),
    OpRecord("cast_f32_to_i32", lambda x: ops.cast(x, np.int32), lambda x: x.astype(np.int32), shapes=((3, 4),),
             domain=(-5, 5), grad=False),
    OpRecord("cast_i64_to_f32", lambda x: ops.cast(x, np.float32), lambda x: x.astype(np.float32), shapes=((3, 4),),
             dtypes=(np.int64,), domain=(-100, 100), grad=False),
    OpRecord("cast_to_bool", lambda x: ops.cast(x, np.bool_), lambda x: x.astype(np.bool_), shapes=((3, 4),),
             dtypes=(np.int32,), domain=(-1, 1), grad=False),
    OpRecord("identity", ops.identity, lambda x: x.copy(), shapes=((3, 4),)),
    OpRecord("isclose", lambda a, b: ops.isclose(a, a + b * 1e-3, rtol=1e-3, atol=1e-4),
             lambda a, b: np.isclose(a, a + b * np.float32(1e-3), rtol=1e-3, atol=1e-4), shapes=((4, 5), (4, 5)),
             grad=False),
    OpRecord("stop_gradient", lambda x: ops.stop_gradient(x) * x, lambda x: x * x, shapes=((3,),), grad=False),
]  # fmt: skip


ELEMENTWISE_MORE = [
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
]  # fmt: skip


REDUCTIONS = [
    _reduction("sum_all", lambda x: ops.sum(x), lambda x: np.sum(x), dtypes=(np.float32, np.float16, np.int32)),
    _reduction("sum_axis1", lambda x: ops.sum(x, 1), lambda x: np.sum(x, 1), dtypes=(np.float32, np.int32)),
    _reduction("sum_axes_keepdim", lambda x: ops.sum(x, (0, 2), keepdim=True),
               lambda x: np.sum(x, (0, 2), keepdims=True)),
    _reduction("sum_neg_axis", lambda x: ops.sum(x, -1), lambda x: np.sum(x, -1)),
    _reduction("sum_bool", lambda x: ops.sum(x), lambda x: np.sum(x), dtypes=(np.bool_,), grad=False),
    _reduction("mean_all", lambda x: ops.mean(x), lambda x: np.mean(x), dtypes=F32_16),
    _reduction("mean_axis", lambda x: ops.mean(x, 0, keep_dims=True), lambda x: np.mean(x, 0, keepdims=True)),
    _reduction("mean_axes", lambda x: ops.mean(x, (1, 2)), lambda x: np.mean(x, (1, 2))),
    # Integer means stay integer, truncated toward zero (MindSpore 2.10).
    _reduction("mean_int", lambda x: ops.mean(x, 1), lambda x: np.trunc(np.sum(x, 1) / x.shape[1]).astype(x.dtype),
               dtypes=(np.int32, np.int64, np.uint8), domain=(-9, 9), grad=False),
    _reduction("prod_all", lambda x: ops.prod(x), lambda x: np.prod(x), domain=(0.5, 1.5)),
    _reduction("prod_axis", lambda x: ops.prod(x, 1), lambda x: np.prod(x, 1), dtypes=(np.float32, np.int32),
               domain=(-2, 2)),
    _reduction("amax", lambda x: ops.amax(x, 1), lambda x: np.max(x, 1), dtypes=(np.float32, np.int32)),
    _reduction("amax_all_keep", lambda x: ops.amax(x, None, True), lambda x: np.max(x, None, keepdims=True)),
    _reduction("amin", lambda x: ops.amin(x, (0, 2)), lambda x: np.min(x, (0, 2)), dtypes=(np.float32, np.int32)),
    _reduction("max_dim", lambda x: ops.max(x, 1), lambda x: (np.max(x, 1), np.argmax(x, 1))),
    _reduction("max_dim_keep", lambda x: ops.max(x, -1, True),
               lambda x: (np.max(x, -1, keepdims=True), np.argmax(x, -1, keepdims=True))),
    _reduction("min_dim", lambda x: ops.min(x, 0), lambda x: (np.min(x, 0), np.argmin(x, 0))),
    _reduction("all", lambda x: ops.all(x, 1), lambda x: np.all(x, 1), dtypes=(np.bool_,), grad=False),
    _reduction("any", lambda x: ops.any(x), lambda x: np.any(x), dtypes=(np.bool_,), grad=False),
    _reduction("logsumexp", lambda x: ops.logsumexp(x, 1), lambda x: special.logsumexp(x, 1)),
    _reduction("logsumexp_keep", lambda x: ops.logsumexp(x, (0, 2), True),
               lambda x: special.logsumexp(x, (0, 2), keepdims=True)),
    _reduction("var", lambda x: ops.var(x, 1), lambda x: np.var(x, 1)),
    _reduction("var_ddof", lambda x: ops.var(x, (0, 1), ddof=1, keepdims=True),
               lambda x: np.var(x, (0, 1), ddof=1, keepdims=True)),
    _reduction("std", lambda x: ops.std(x), lambda x: np.std(x)),
    _reduction("argmax", lambda x: ops.argmax(x, 1), lambda x: np.argmax(x, 1), dtypes=(np.float32, np.int32),
               grad=False, domain=(-100, 100)),
    _reduction("argmax_flat", lambda x: ops.argmax(x), lambda x: np.argmax(x), grad=False),
    _reduction("argmax_keepdim", lambda x: ops.argmax(x, -1, keepdim=True), lambda x: np.argmax(x, -1, keepdims=True),
               grad=False),
    # MindSpore 2.10: argmin, topk, sort and argsort give int32 indices (argmax and max/min int64).
    _reduction("argmin", lambda x: ops.argmin(x, 0), lambda x: np.argmin(x, 0).astype(np.int32), grad=False),
    _reduction("argmin_flat", lambda x: ops.argmin(x), lambda x: np.argmin(x).astype(np.int32), grad=False),
    _reduction("cumsum", lambda x: ops.cumsum(x, 1), lambda x: np.cumsum(x, 1, dtype=x.dtype),
               dtypes=(np.float32, np.int32)),
    _reduction("cumsum_neg_axis", lambda x: ops.cumsum(x, -1), lambda x: np.cumsum(x, -1)),
    _reduction("cumprod", lambda x: ops.cumprod(x, 0), lambda x: np.cumprod(x, 0, dtype=x.dtype),
               dtypes=(np.float32, np.int32), domain=(0.5, 1.5)),
    _reduction("cummax", lambda x: ops.cummax(x, 1), lambda x: _running_ref(x, 1, np.maximum, np.int64), grad=False),
    _reduction("cummin", lambda x: ops.cummin(x, 0), lambda x: _running_ref(x, 0, np.minimum, np.int32), grad=False),
    _reduction("topk", lambda x: ops.topk(x, 2),
               lambda x: (-np.sort(-x, -1)[..., :2], _i32(np.argsort(-x, -1, kind="stable")[..., :2]))),
    _reduction("topk_unsorted_in_input_order", lambda x: ops.topk(x, 2, sorted=False),
               lambda x: _topk_input_order(x, 2)),
    _reduction("topk_dim0_smallest", lambda x: ops.topk(x, 2, dim=0, largest=False),
               lambda x: (np.sort(x, 0)[:2], _i32(np.argsort(x, 0, kind="stable")[:2]))),
    _reduction("sort", lambda x: ops.sort(x), lambda x: (np.sort(x, -1), _i32(np.argsort(x, -1, kind="stable"))),
               dtypes=(np.float32, np.int32), domain=(-50, 50)),
    _reduction("sort_desc_axis0", lambda x: ops.sort(x, 0, descending=True),
               lambda x: (-np.sort(-x, 0), _i32(np.argsort(-x, 0, kind="stable")))),
    _reduction("argsort", lambda x: ops.argsort(x, 1), lambda x: _i32(np.argsort(x, 1, kind="stable")), grad=False),
]  # fmt: skip


NAN_AND_ORDER_REDUCTIONS = [
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
    R("quantile", lambda x: ops.quantile(x, 0.3, axis=1), lambda x: np.quantile(x, 0.3, axis=1), shapes=((3, 5),),
      extra={"make_inputs": _distinct}),
    R("quantile_all_keepdims", lambda x: ops.quantile(x, Tensor([0.25, 0.9], kiln.float32), keepdims=True),
      lambda x: np.quantile(x, [0.25, 0.9], keepdims=True).astype(x.dtype), shapes=((3, 4),),
      extra={"make_inputs": _distinct}),
    R("nanquantile", lambda x: ops.nanquantile(x, 0.6, axis=0), lambda x: np.nanquantile(x, 0.6, axis=0),
      shapes=((3, 4),), grad=False, extra={"make_inputs": _nan_inputs}),
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
]  # fmt: skip


CLIPPING_DISTANCE_COUNTING = [
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


ACTIVATIONS = [
    act("relu", lambda x: np.maximum(x, 0).astype(x.dtype), dtypes=(np.float32, np.float16, BF16, np.int32)),
    act("relu6", _relu6, domain=(-3.0, 8.0), dtypes=F32_16),
    act("sigmoid", _sigmoid, dtypes=F32_16_BF),
    act("silu", lambda x: x * _sigmoid(x)),
    act("softsign", lambda x: x / (1 + np.abs(x))),
    act("hardswish", lambda x: x * np.clip(x + 3, 0, 6) / 6, domain=(-4.0, 4.0)),
    act("hardsigmoid", lambda x: np.clip(x + 3, 0, 6) / 6, domain=(-4.0, 4.0)),
    act("mish", lambda x: x * np.tanh(_softplus(x))),
    act("selu", lambda x: _SELU_SCALE * np.where(x > 0, x, _SELU_ALPHA * np.expm1(x))),
    act("logsigmoid", lambda x: -_softplus(-x)),
    act("tanhshrink", lambda x: x - np.tanh(x), rtol=1e-4, atol=1e-6),
    act("elu", lambda x: np.where(x > 0, x, np.expm1(x))),
    act("elu_alpha", lambda x: np.where(x > 0, x, 0.5 * np.expm1(x)), kiln=lambda x: ops.elu(x, 0.5)),
    act("celu", lambda x: np.maximum(x, 0) + np.minimum(0, 2.0 * np.expm1(x / 2.0)), kiln=lambda x: ops.celu(x, 2.0)),
    act("leaky_relu", lambda x: np.where(x >= 0, x, 0.2 * x)),
    act("leaky_relu_alpha", lambda x: np.where(x >= 0, x, 0.01 * x), kiln=lambda x: ops.leaky_relu(x, 0.01)),
    act("gelu", lambda x: 0.5 * x * (1 + special.erf(x / np.sqrt(2))), dtypes=F32_16),
    act("gelu_tanh", _gelu_tanh, kiln=lambda x: ops.gelu(x, approximate="tanh")),
    act("softplus", _softplus),
    act("softplus_beta", lambda x: np.where(2 * x > 4, x, np.log1p(np.exp(2 * x)) / 2),
        kiln=lambda x: ops.softplus(x, beta=2, threshold=4), domain=(-3.0, 1.9)),
    act("hardshrink", lambda x: np.where(np.abs(x) > 0.5, x, 0)),
    act("softshrink", lambda x: np.where(x > 0.5, x - 0.5, np.where(x < -0.5, x + 0.5, 0))),
    act("softmax", _softmax, dtypes=F32_16),
    act("softmax_axis0", lambda x: _softmax(x, 0), kiln=lambda x: ops.softmax(x, 0)),
    act("softmax_tuple_axis", lambda x: _softmax(x, (0, -1)), kiln=lambda x: ops.softmax(x, (0, -1))),
    act("log_softmax", _log_softmax, dtypes=F32_16),
    act("log_softmax_axis0", lambda x: _log_softmax(x, 0), kiln=lambda x: ops.log_softmax(x, 0)),
    act("softmin", lambda x: _softmax(-x)),
    act("tanh_nn", np.tanh, kiln=ops.nn.tanh, grad=False),
]  # fmt: skip


def _np_intopk(k: int):
    def ref(x1, x2):
        target = x1[np.arange(len(x2)), x2]
        return ((x1 > target[:, None]).sum(1) < k) & np.isfinite(x1).all(1)

    return ref


def _tied_predictions(rng, dtype, shapes):
    """make_inputs for intopk: (6, 5) predictions drawn from three values (ties) and targets in [0, 5)."""
    return [rng.choice(np.array([-1.0, 0.5, 2.0]), size=(6, 5)).astype(dtype), rng.integers(0, 5, 6).astype(np.int32)]


def _np_euclidean_norm(axes, keep_dims=False):
    return lambda x: np.sqrt(np.sum(np.square(x), axis=axes, keepdims=keep_dims)).astype(x.dtype)


def _segments_with_zeros(rng, dtype, shapes):
    """make_inputs for unsorted_segment_prod: (5, 2) data with exact zeros (one zero in a segment's column, two in
    another) and ids [0, 2, 0, 1, 2]."""
    x = rng.uniform(0.5, 1.5, size=(5, 2)).astype(dtype)
    x[0, 0] = x[1, 1] = x[4, 1] = 0
    return [x, np.array([0, 2, 0, 1, 2], np.int32)]


SURFACE_MATH = [
    # the derivative at a zero is the product of the segment's other entries (MindSpore 2.10's): Kiln's was NaN
    OpRecord("unsorted_segment_prod_zeros", lambda x, i: ops.unsorted_segment_prod(x, i, 3), _segment_ref("prod"),
             shapes=((5, 2),), extra={"make_inputs": _segments_with_zeros}),
    OpRecord("NthElement", lambda x: ops.NthElement()(x, 2), lambda x: np.sort(x, -1)[..., 2], shapes=((3, 2, 5),),
             dtypes=(np.float32, np.int32), domain=(-5.0, 5.0)),
    OpRecord("NthElement_reverse", lambda x: ops.NthElement(True)(x, kiln.Tensor(np.int32(0))),
             lambda x: np.sort(x, -1)[..., -1], shapes=((4, 6),)),
    OpRecord("intopk", lambda x1, x2: ops.intopk(x1, x2, 2), _np_intopk(2), shapes=((6, 5), (6,)), grad=False,
             int_inputs=(1,), int_high=5, extra={"int_dtype": np.int32}),
    OpRecord("intopk_ties", lambda x1, x2: ops.intopk(x1, x2, 1), _np_intopk(1), shapes=((6, 5), (6,)), grad=False,
             dtypes=(np.float32, np.float16), extra={"make_inputs": _tied_predictions}),
    OpRecord("InTopK", lambda x1, x2: ops.InTopK(3)(x1, x2), _np_intopk(3), shapes=((6, 5), (6,)), grad=False,
             int_inputs=(1,), int_high=5, extra={"int_dtype": np.int64}),
    OpRecord("EuclideanNorm", lambda x: ops.EuclideanNorm()(x, Tensor(np.array([0, -1], np.int32))),
             _np_euclidean_norm((0, 2)), shapes=((3, 2, 4),), domain=(0.5, 2.0)),
    OpRecord("EuclideanNorm_keep_dims", lambda x: ops.EuclideanNorm(True)(x, Tensor(np.array([1], np.int64))),
             _np_euclidean_norm((1,), True), shapes=((3, 4),), dtypes=(np.float32, np.float16), domain=(0.5, 2.0),
             rtol=2e-3),
    OpRecord("Fmin", lambda x, y: ops.Fmin()(x, y), np.fmin, shapes=((3, 4), (3, 4)), cases=(((3, 1), (4,)),)),
    OpRecord("approximate_equal", lambda x, y: ops.approximate_equal(x, y, 0.5),
             lambda x, y: np.abs(x - y) < 0.5, shapes=((3, 4), (3, 4)), grad=False),
    OpRecord("accumulate_n", lambda x, y: ops.accumulate_n([x, y, x]), lambda x, y: x + y + x,
             shapes=((3, 4), (3, 4)), dtypes=(np.float32, np.int32)),
    OpRecord("AccumulateNV2", lambda x, y: ops.AccumulateNV2()((x, y)), np.add, shapes=((3, 4), (3, 4)), grad=False),
]  # fmt: skip


RECORDS: list[OpRecord] = [
    *ELEMENTWISE_UNARY,
    *ELEMENTWISE_BINARY,
    *OTHER_MATH,
    *ELEMENTWISE_MORE,
    *REDUCTIONS,
    *NAN_AND_ORDER_REDUCTIONS,
    *CLIPPING_DISTANCE_COUNTING,
    *ACTIVATIONS,
    *SURFACE_MATH,
]
