"""Functional math ops: elementwise (with special functions, integer and complex ops), reductions (NaN-skipping
too), scans, sorting and searching, distances, segment reductions, products, windows.

Most are one primitive each (`kiln._prims.math`, `.reduction`, `.special`); the rest compose them, so they run
the same in PyNative and graph mode and differentiate through their parts.
"""

from __future__ import annotations

import builtins
import math as _pymath

import numpy as np

from kiln._core import dtype as mstype
from kiln._core.tensor import Tensor
from kiln._core.unsupported import refuse_argument
from kiln._prims import math as prims_math
from kiln._prims import reduction as R
from kiln.ops import _indexing, array
from kiln.ops._helpers import REGISTRY, apply, as_axes, numpy_scalars_as_numbers, op_error
from kiln.ops.array import _t, atleast_2d, gather_elements, reshape
from kiln.ops.faces import functional

__all__ = [
    "intopk",
    "approximate_equal",
    "accumulate_n",
    "quantile",
    "nanquantile",
    "copy",
    "msort",
    "abs",
    "absolute",
    "neg",
    "negative",
    "exp",
    "log",
    "log1p",
    "expm1",
    "log2",
    "log10",
    "exp2",
    "sqrt",
    "rsqrt",
    "square",
    "sin",
    "cos",
    "tan",
    "asin",
    "arcsin",
    "acos",
    "arccos",
    "atan",
    "arctan",
    "sinh",
    "cosh",
    "asinh",
    "arcsinh",
    "acosh",
    "arccosh",
    "atanh",
    "arctanh",
    "erf",
    "erfc",
    "erfinv",
    "lgamma",
    "digamma",
    "floor",
    "ceil",
    "round",
    "trunc",
    "sign",
    "reciprocal",
    "logical_not",
    "bitwise_not",
    "isnan",
    "isinf",
    "isfinite",
    "real",
    "imag",
    "conj",
    "add",
    "sub",
    "subtract",
    "mul",
    "multiply",
    "true_divide",
    "floor_div",
    "floor_divide",
    "floor_mod",
    "remainder",
    "truncate_div",
    "fmod",
    "pow",
    "maximum",
    "minimum",
    "atan2",
    "arctan2",
    "hypot",
    "squared_difference",
    "xdivy",
    "xlogy",
    "equal",
    "eq",
    "not_equal",
    "ne",
    "greater",
    "gt",
    "greater_equal",
    "ge",
    "less",
    "lt",
    "less_equal",
    "le",
    "logical_and",
    "logical_or",
    "logical_xor",
    "bitwise_and",
    "bitwise_or",
    "bitwise_xor",
    "bitwise_left_shift",
    "bitwise_right_shift",
    "div",
    "divide",
    "addn",
    "clamp",
    "clip",
    "lerp",
    "cast",
    "sum",
    "mean",
    "amax",
    "amin",
    "max",
    "min",
    "prod",
    "all",
    "any",
    "logsumexp",
    "var",
    "std",
    "argmax",
    "argmin",
    "cumsum",
    "cumprod",
    "cummax",
    "cummin",
    "topk",
    "sort",
    "argsort",
    "matmul",
    "mm",
    "bmm",
    "batch_dot",
    "batch_matmul",
    "bias_add",
    "einsum",
    "dot",
    "inner",
    "outer",
    "diag",
    "trace",
    "inverse",
    "norm",
    "stop_gradient",
    "identity",
    "isclose",
    "allclose",
    "bincount",
    "cdist",
    "kron",
    "searchsorted",
    "std_mean",
    "var_mean",
    "matrix_band_part",
    "nextafter",
    "reduce_all",
    "reduce_any",
    "reduce_max",
    "reduce_mean",
    "reduce_min",
    "reduce_prod",
    "reduce_sum",
    "bartlett_window",
    "blackman_window",
    "frac",
    "hamming_window",
    "hann_window",
    "heaviside",
    "isneginf",
    "isposinf",
    "kaiser_window",
    "bessel_i0",
    "bessel_i0e",
    "bessel_i1",
    "bessel_i1e",
    "bessel_j0",
    "bessel_j1",
    "i0",
    "sinc",
    "signbit",
    "angle",
    "population_count",
    "igamma",
    "igammac",
    "zeta",
    "copysign",
    "logaddexp",
    "logaddexp2",
    "fmax",
    "fmin",
    "polar",
    "gcd",
    "lcm",
    "polygamma",
    "betainc",
    "logcumsumexp",
    "unsorted_segment_sum",
    "unsorted_segment_max",
    "unsorted_segment_min",
    "unsorted_segment_prod",
    "addcdiv",
    "addcmul",
    "adjoint",
    "aminmax",
    "block_diag",
    "count_nonzero",
    "cov",
    "cross",
    "deg2rad",
    "rad2deg",
    "diff",
    "dist",
    "float_power",
    "floordiv",
    "floormod",
    "ger",
    "inv",
    "invert",
    "is_complex",
    "is_floating_point",
    "is_nonzero",
    "is_tensor",
    "isreal",
    "ldexp",
    "logit",
    "logspace",
    "mv",
    "mvlgamma",
    "nan_to_num",
    "nanmean",
    "nansum",
    "nanmedian",
    "median",
    "positive",
    "pows",
    "renorm",
    "sgn",
    "tensor_dot",
    "top_k",
    "trapz",
    "truncate_mod",
    "vander",
    "vecdot",
    "view_as_real",
    "zero_",
    "sequence_mask",
    "index_fill",
    "inplace_add",
    "inplace_sub",
    "inplace_update",
    "diagonal_scatter",
    "histc",
    "bucketize",
    "pdist",
    "eps",
    "reverse_sequence",
    "float_power_ext",
    "tanh_",
    "masked_scatter",
    "unravel_index",
    "tensor_add",
    "tensor_sub",
    "tensor_mul",
    "tensor_div",
    "tensor_floordiv",
    "tensor_mod",
    "tensor_pow",
    "tensor_exp",
    "tensor_expm1",
    "tensor_gt",
    "tensor_ge",
    "tensor_lt",
    "tensor_le",
    "tensor_muls",
]


def copy(input) -> Tensor:
    """A new Tensor with the values of `input`."""
    return identity(input)


def msort(input) -> Tensor:
    """`input` sorted along axis 0 (values only)."""
    return sort(input, 0)[0]


# the elementwise functional faces (the faces table builds them), bound by name for this module and its readers
abs = functional("abs")

absolute = functional("absolute")

neg = functional("neg")

negative = functional("negative")

exp = functional("exp")

log = functional("log")

log1p = functional("log1p")

expm1 = functional("expm1")

log2 = functional("log2")

log10 = functional("log10")

exp2 = functional("exp2")

sqrt = functional("sqrt")

rsqrt = functional("rsqrt")

square = functional("square")

sin = functional("sin")

cos = functional("cos")

tan = functional("tan")

asin = functional("asin")

arcsin = functional("arcsin")

acos = functional("acos")

arccos = functional("arccos")

atan = functional("atan")

arctan = functional("arctan")

sinh = functional("sinh")

cosh = functional("cosh")

tanh = functional("tanh")

asinh = functional("asinh")

arcsinh = functional("arcsinh")

acosh = functional("acosh")

arccosh = functional("arccosh")

atanh = functional("atanh")

arctanh = functional("arctanh")

erf = functional("erf")

erfc = functional("erfc")

erfinv = functional("erfinv")

lgamma = functional("lgamma")

digamma = functional("digamma")

floor = functional("floor")

ceil = functional("ceil")

round = functional("round")

trunc = functional("trunc")

sign = functional("sign")

reciprocal = functional("reciprocal")

logical_not = functional("logical_not")

bitwise_not = functional("bitwise_not")

isnan = functional("isnan")

isinf = functional("isinf")

isfinite = functional("isfinite")

real = functional("real")

imag = functional("imag")

conj = functional("conj")

add = functional("add")

sub = functional("sub")

subtract = functional("subtract")

mul = functional("mul")

multiply = functional("multiply")

true_divide = functional("true_divide")

floor_div = functional("floor_div")

floor_divide = functional("floor_divide")

floor_mod = functional("floor_mod")

remainder = functional("remainder")

truncate_div = functional("truncate_div")

fmod = functional("fmod")

pow = functional("pow")

maximum = functional("maximum")

minimum = functional("minimum")

atan2 = functional("atan2")

arctan2 = functional("arctan2")

hypot = functional("hypot")

squared_difference = functional("squared_difference")

xdivy = functional("xdivy")

xlogy = functional("xlogy")

equal = functional("equal")

eq = functional("eq")

not_equal = functional("not_equal")

ne = functional("ne")

greater = functional("greater")

gt = functional("gt")

greater_equal = functional("greater_equal")

ge = functional("ge")

less = functional("less")

lt = functional("lt")

less_equal = functional("less_equal")

le = functional("le")

logical_and = functional("logical_and")

logical_or = functional("logical_or")

logical_xor = functional("logical_xor")

bitwise_and = functional("bitwise_and")

bitwise_or = functional("bitwise_or")

bitwise_xor = functional("bitwise_xor")

bitwise_left_shift = functional("bitwise_left_shift")

bitwise_right_shift = functional("bitwise_right_shift")

_abs, _sub, _mul, _add = (functional(n) for n in ("abs", "sub", "mul", "add"))


def div(input, other, *, rounding_mode: str | None = None) -> Tensor:
    """Divide `input` by `other` elementwise.

    Args:
        input, other: tensors or numbers (broadcast).
        rounding_mode: None (true division), "floor" or "trunc".

    Returns:
        Tensor; true division of integers gives float32.
    """
    name = {None: "Div", "floor": "FloorDiv", "trunc": "TruncateDiv"}.get(rounding_mode)
    if name is None:
        raise op_error("Div", f"'rounding_mode' must be None, 'floor' or 'trunc', but got {rounding_mode!r}.")
    return apply(REGISTRY[name], numpy_scalars_as_numbers(input, other))


divide = div


def addn(x) -> Tensor:
    """Sum a tuple or list of tensors of the same shape."""
    if not isinstance(x, (list, tuple)) or not x:
        raise op_error("AddN", "the input must be a non-empty tuple or list of tensors.", TypeError)
    return apply(REGISTRY["AddN"], tuple(x))


def clamp(input, min=None, max=None) -> Tensor:
    """Clip `input` into [min, max]; either bound may be None."""
    if min is None and max is None:
        raise op_error("clamp", "at least one of 'min' and 'max' must be given.")
    return apply(REGISTRY["Clamp"], (input, min, max))


clip = clamp


def lerp(input, end, weight) -> Tensor:
    """`input + weight * (end - input)`."""
    return apply(REGISTRY["Lerp"], (input, end, weight))


def cast(input, dtype) -> Tensor:
    """Convert `input` to `dtype` (a kiln dtype, NumPy dtype or Python type)."""
    return array._cast(input, dtype)


def _reducer(p):
    def reduce(input, axis=None, keepdims: bool = False, *, dtype=None) -> Tensor:
        if dtype is not None:
            input = cast(input, dtype)
        return apply(p, (input,), (as_axes(axis), bool(keepdims)))

    return reduce


_sum, _mean, _amax, _amin = _reducer(R.ReduceSum), _reducer(R.ReduceMean), _reducer(R.ReduceMax), _reducer(R.ReduceMin)

_prod, _all, _any, _lse = (
    _reducer(R.ReduceProd),
    _reducer(R.ReduceAll),
    _reducer(R.ReduceAny),
    _reducer(R.ReduceLogSumExp),
)

# MindSpore's functional sum/prod widen bool and small integers to int64 (the ReduceSum primitive does not).
_WIDEN_TO_INT64 = frozenset(("bool_", "int8", "int16", "int32", "uint8"))


def _widened(input, dtype):
    return "int64" if dtype is None and isinstance(input, Tensor) and input.dtype.name in _WIDEN_TO_INT64 else dtype


def sum(input, dim=None, keepdim: bool = False, *, dtype=None) -> Tensor:
    """Sum over `dim` (int, tuple, or None for all axes); bool and int8/16/32/uint8 sum to int64."""
    return _sum(input, dim, keepdim, dtype=_widened(input, dtype))


def _no_bool(op: str, input) -> None:
    """MindSpore has no kernel of these reductions for bool input: refuse it rather than compute a value."""
    if isinstance(input, Tensor) and input.dtype is mstype.bool_:
        raise op_error(op, "the input must be a number type, but got Bool; cast it first (e.g. x.astype(ms.int32)).",
                       TypeError)  # fmt: skip


def mean(input, axis=None, keep_dims: bool = False) -> Tensor:
    """Arithmetic mean over `axis` (None: all axes).

    Integer input averages in its own dtype, truncating toward zero, as MindSpore 2.10 does.
    """
    _no_bool("ReduceMean", input)
    if isinstance(input, Tensor) and input.dtype.is_integer:
        total = _sum(input, axis, keep_dims, dtype="int64")
        count = input.size // builtins.max(total.size, 1)
        return cast(truncate_div(total, builtins.max(count, 1)), input.dtype)
    return _mean(input, axis, keep_dims)


def prod(input, axis=None, keep_dims: bool = False, dtype=None) -> Tensor:
    """Product over `axis`; bool and int8/16/32/uint8 multiply in int64, unless `dtype` is given: then the input
    is cast to `dtype` first (a float input to an integer dtype truncates before multiplying)."""
    if dtype is not None:
        return _prod(cast(input, dtype), axis, keep_dims)
    return _prod(input, axis, keep_dims, dtype=_widened(input, None))


def amax(input, axis=None, keepdims: bool = False) -> Tensor:
    """Maximum over `axis` (None: all axes)."""
    _no_bool("ReduceMax", input)
    return _amax(input, axis, keepdims)


def amin(input, axis=None, keepdims: bool = False) -> Tensor:
    """Minimum over `axis` (None: all axes)."""
    return _amin(input, axis, keepdims)


def _extreme(op: str, whole, along, input, axis, keepdims: bool, initial, where):
    """The body of `max`/`min`: `whole` over all elements when `axis` is None, else primitive `along`'s
    (values, indices) on that axis."""
    refuse_argument(op, "initial", initial, reason="no starting value is folded into the reduction")
    refuse_argument(op, "where", where, reason="every element takes part in the reduction")
    if axis is None:
        return whole(input, None, keepdims)
    return apply(along, (input,), (axis, bool(keepdims)))


def max(input, axis=None, keepdims: bool = False, *, initial=None, where=None):
    """With `axis=None`, the largest element; with an int axis, (values, indices) like MindSpore 2.x."""
    return _extreme("ops.max", _amax, R.MaxDim, input, axis, keepdims, initial, where)


def min(input, axis=None, keepdims: bool = False, *, initial=None, where=None):
    """With `axis=None`, the smallest element; with an int axis, (values, indices)."""
    return _extreme("ops.min", _amin, R.MinDim, input, axis, keepdims, initial, where)


def _require_tensor(name: str, input) -> None:
    # a number or a list has no axes to reduce over: a TypeError, also when reached as `Tensor.all(1)`
    if not isinstance(input, Tensor):
        raise TypeError(f"ops.{name} reduces a Tensor, but its input is {type(input).__name__}.")


def all(input, axis=None, keep_dims: bool = False) -> Tensor:
    """Logical AND over `axis`."""
    _require_tensor("all", input)
    return _all(input, axis, keep_dims)


def any(input, axis=None, keep_dims: bool = False) -> Tensor:
    """Logical OR over `axis`."""
    _require_tensor("any", input)
    return _any(input, axis, keep_dims)


def logsumexp(input, dim, keepdim: bool = False) -> Tensor:
    """log(sum(exp(input))) over `dim`, computed stably (MindSpore 2.10 names its arguments dim and keepdim)."""
    return _lse(input, dim, keepdim)


def var(input, axis=None, ddof: int = 0, keepdims: bool = False) -> Tensor:
    """Variance over `axis` with `ddof` degrees of freedom removed."""
    return apply(R.Var, (input,), (as_axes(axis), bool(keepdims), int(ddof)))


def std(input, axis=None, ddof: int = 0, keepdims: bool = False) -> Tensor:
    """Standard deviation over `axis`; a float16/bfloat16 input's is computed in float32 and rounded once."""
    dtype = getattr(input, "dtype", None)
    if dtype in (mstype.float16, mstype.bfloat16):
        # MindSpore's ReduceStd computes a float16 input's in float32: the square root of the variance rounded to
        # float16 first was one ulp off the correctly rounded value in 13-14% of the outputs
        return cast(sqrt(var(cast(input, mstype.float32), axis, ddof, keepdims)), dtype)
    return sqrt(var(input, axis, ddof, keepdims))


def argmax(input, dim=None, keepdim: bool = False) -> Tensor:
    """Index of the largest element along `dim` (None: of the flattened input), as int64."""
    if dim is None:
        return apply(R.Argmax, (reshape(input, (-1,)),), (0, False, R.jnp.int64))
    return apply(R.Argmax, (input,), (dim, bool(keepdim), R.jnp.int64))


def argmin(input, axis=None, keepdims: bool = False) -> Tensor:
    """Index of the smallest element along `axis`, as int32 (MindSpore 2.10's argmin; its argmax gives int64)."""
    if axis is None:
        return apply(R.Argmin, (reshape(input, (-1,)),), (0, False, R.jnp.int32))
    return apply(R.Argmin, (input,), (axis, bool(keepdims), R.jnp.int32))


def cumsum(x, axis: int, dtype=None) -> Tensor:
    """Cumulative sum along `axis`."""
    _no_bool("CumSum", x)
    if dtype is not None:
        x = cast(x, dtype)
    return apply(R.CumSum, (x,), (axis, False, False))


def cumprod(input, dim: int, dtype=None) -> Tensor:
    """Cumulative product along `dim`."""
    if dtype is not None:
        input = cast(input, dtype)
    return apply(R.CumProd, (input,), (dim, False, False))


def _running_index(input, values, axis: int, index_dtype) -> Tensor:
    """Index of the running extremum: the last position up to here where the input equals it (ties: the latest)."""
    axis = axis % input.ndim
    n = input.shape[axis]
    pos = reshape(
        array.arange(0, n, dtype=mstype.int64), tuple(n if i == axis else 1 for i in builtins.range(input.ndim))
    )
    hit = array.select(
        equal(input, values),
        array.broadcast_to(pos, input.shape),
        array.zeros(input.shape, mstype.int64),
    )
    return cast(apply(R.CumMax, (hit,), (axis,)), index_dtype)


def cummax(input, axis: int):
    """Running maximum along `axis` and the index where it was reached (the latest of equal values).

    Args:
        input (Tensor): the input.
        axis (int): the axis.

    Returns:
        tuple (values, int64 indices).
    """
    values = apply(R.CumMax, (input,), (axis,))
    return values, _running_index(input, values, axis, mstype.int64)


def cummin(input, axis: int):
    """Running minimum along `axis` and the index where it was reached (the latest of equal values).

    Args:
        input (Tensor): the input.
        axis (int): the axis.

    Returns:
        tuple (values, int32 indices), as MindSpore 2.10.
    """
    values = apply(R.CumMin, (input,), (axis,))
    return values, _running_index(input, values, axis, mstype.int32)


def topk(input, k: int, dim: int = -1, largest: bool = True, sorted: bool = True):
    """The `k` largest (or smallest) entries along `dim`: (values, int32 indices)."""
    if not isinstance(k, int) or isinstance(k, bool):
        raise op_error("TopK", f"'k' must be an int, but got {type(k).__name__}.", TypeError)
    return apply(R.TopK, (input,), (k, dim, bool(largest), bool(sorted)))


def sort(input, axis: int = -1, descending: bool = False):
    """Sorted values and their int32 indices along `axis` (stable)."""
    return apply(R.Sort, (input,), (axis, bool(descending)))


def argsort(input, axis: int = -1, descending: bool = False) -> Tensor:
    """Indices that sort `input` along `axis`."""
    return sort(input, axis, descending)[1]


def matmul(input, other) -> Tensor:
    """Matrix product with NumPy's batching and broadcasting rules."""
    # MindSpore's MatMulExt, which amp level O1 does not list (its MatMul and BatchMatMul it does)
    return apply(REGISTRY["BatchMatMul"], (input, other), (False, False), amp_listed=False)


def mm(input, mat2) -> Tensor:
    """2-D matrix product."""
    return apply(REGISTRY["MatMul"], (input, mat2), (False, False))


def bmm(input_x, mat2) -> Tensor:
    """Batched matrix product of (..., n, k) and (..., k, m)."""
    return apply(REGISTRY["BatchMatMul"], (input_x, mat2), (False, False))


batch_matmul = bmm


def batch_dot(x1, x2, axes=None) -> Tensor:
    """For each entry of axis 0 (the batch, of equal size in both), contract axis `axes[0]` of `x1` with axis
    `axes[1]` of `x2` (an int: the same axis of both; None: the last of `x1` with the last of a 2-D `x2`, else its
    second-to-last). The result has the batch, then `x1`'s other axes, then `x2`'s; a batch of scalars is (B, 1)."""
    if x1.ndim < 2 or x2.ndim < 2:
        raise op_error("batch_dot", f"'x1' and 'x2' need at least 2 axes, but have {x1.ndim} and {x2.ndim}.")
    if axes is None:
        axes = (x1.ndim - 1, x2.ndim - 1 if x2.ndim == 2 else x2.ndim - 2)
    elif isinstance(axes, int):
        axes = (axes, axes)
    a1, a2 = (int(a) + n if int(a) < 0 else int(a) for a, n in zip(axes, (x1.ndim, x2.ndim), strict=True))
    if not (0 < a1 < x1.ndim and 0 < a2 < x2.ndim):
        raise op_error("batch_dot", f"'axes' must name a non-batch axis of each input, but got {tuple(axes)}.")
    if x1.shape[0] != x2.shape[0] or x1.shape[a1] != x2.shape[a2]:
        raise op_error(
            "batch_dot",
            f"the batch sizes and contracted axes must agree: x1 {list(x1.shape)} axis {a1}, "
            f"x2 {list(x2.shape)} axis {a2}.",
        )
    free1 = [i for i in builtins.range(1, x1.ndim) if i != a1]
    free2 = [i for i in builtins.range(1, x2.ndim) if i != a2]
    b, k = x1.shape[0], x1.shape[a1]
    left = array.reshape(array.transpose(x1, (0, *free1, a1)), (b, -1, k))
    right = array.reshape(array.transpose(x2, (0, a2, *free2)), (b, k, -1))
    shape = (b, *(x1.shape[i] for i in free1), *(x2.shape[i] for i in free2))
    return array.reshape(bmm(left, right), shape if len(shape) > 1 else (b, 1))


def bias_add(input_x, bias, data_format: str = "NCHW") -> Tensor:
    """Add a 1-D `bias` along the channel axis (axis 1 for NCHW, last for NHWC)."""
    return apply(REGISTRY["BiasAdd"], (input_x, bias), (data_format,))


def einsum(equation: str, *operands) -> Tensor:
    """Einstein summation, NumPy syntax."""
    if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
        operands = tuple(operands[0])
    return apply(REGISTRY["Einsum"], tuple(operands), (equation,))


def dot(input, other) -> Tensor:
    """NumPy `dot`."""
    return apply(REGISTRY["Dot"], (input, other))


def inner(input, other) -> Tensor:
    """Inner product over the last axis of each (NumPy's `inner`): shape `input.shape[:-1] + other.shape[:-1]`;
    with a scalar, the product."""
    if input.ndim == 0 or other.ndim == 0:
        return input * other
    letters = "abcdefghijklmnopqrstuvwxy"
    a, b = letters[: input.ndim - 1], letters[input.ndim - 1 : input.ndim + other.ndim - 2]
    return einsum(f"{a}z,{b}z->{a}{b}", input, other)


def outer(input, vec2) -> Tensor:
    """Outer product of two vectors."""
    return apply(REGISTRY["Outer"], (input, vec2))


def diag(input) -> Tensor:
    """A diagonal matrix from a vector."""
    return apply(REGISTRY["Diag"], (input,))


def trace(input) -> Tensor:
    """Sum of the main diagonal of a matrix."""
    return apply(REGISTRY["Trace"], (input,))


def inverse(input) -> Tensor:
    """Matrix inverse."""
    return apply(REGISTRY["MatrixInverse"], (input,))


def norm(A, ord=None, dim=None, keepdim: bool = False, *, dtype=None) -> Tensor:
    """Vector or matrix norm (NumPy's `ord` conventions); with `dtype`, of the input cast to it."""
    if dtype is not None:
        A = cast(A, dtype)
    axis = dim if dim is None or isinstance(dim, int) else tuple(dim)
    return apply(REGISTRY["Norm"], (A,), (ord, axis, bool(keepdim)))


def stop_gradient(value):
    """The same value, with no gradient flowing back through it."""
    if isinstance(value, (tuple, list)):
        return type(value)(stop_gradient(v) for v in value)
    if not isinstance(value, Tensor):
        return value
    # A declared primitive (derivative zero), so compiled gradients see the cut as well as the tape.
    return apply(REGISTRY["StopGradient"], (value,))


def identity(input):
    """Return `input` unchanged: a Tensor as a new Tensor, any other value (a tuple of gradients) as it is, as
    MindSpore 2.10's `ops.identity` (its deprecated `identity` primitive) returns any argument; the zoo's train
    cells use it as their no-op gradient reducer (DIEN's `grad_reducer = F.identity`)."""
    if not isinstance(input, Tensor):
        return input
    return apply(REGISTRY["Identity"], (input,))


def isclose(input, other, rtol: float = 1e-5, atol: float = 1e-8, equal_nan: bool = False) -> Tensor:
    """Elementwise |input - other| <= atol + rtol * |other|."""
    close = le(_abs(_sub(input, other)), _add(atol, _mul(rtol, _abs(other))))
    if equal_nan:
        close = logical_or(close, logical_and(isnan(input), isnan(other)))
    return close


def allclose(input, other, rtol: float = 1e-5, atol: float = 1e-8, equal_nan: bool = False) -> bool:
    """True when every element is close (see `isclose`)."""
    return bool(all(isclose(input, other, rtol, atol, equal_nan)).item())


def cdist(x1, x2, p: float = 2.0) -> Tensor:
    """The p-norm distance between each row of `x1` (..., P, M) and each row of `x2` (..., R, M): (..., P, R)."""
    return apply(prims_math.Cdist, (x1, x2), (float(p),))


def bincount(input, weights=None, minlength: int = 0) -> Tensor:
    """Count (or sum `weights` over) each value of the non-negative 1-D integer tensor `input`.

    The result has `max(max(input) + 1, minlength)` entries (float32, as MindSpore 2.10 gives). The length depends
    on the values, so this op reads `input` on the host (PyNative only).
    """
    if not isinstance(input, Tensor):
        given = type(input).__name__
        raise op_error("Bincount", f"counts the values of an integer Tensor; it was given a {given}.", TypeError)
    if not isinstance(minlength, int) or minlength < 0:
        raise op_error("Bincount", f"'minlength' must be a non-negative int, but got {minlength!r}.")
    values = np.asarray(input.asnumpy())
    if values.size and values.min() < 0:
        raise op_error("Bincount", f"'input' must be non-negative, but it holds {values.min()}.")
    length = builtins.max(int(values.max()) + 1 if values.size else 0, minlength)
    return apply(prims_math.Bincount, (input, weights), (length,))


def searchsorted(sorted_sequence, values, *, out_int32: bool = False, right: bool = False, side=None, sorter=None):
    """Indices where `values` would be inserted into the innermost dimension of `sorted_sequence` to keep it sorted.

    Args:
        sorted_sequence: Tensor sorted along its last dimension (1-D, or with the leading dimensions of `values`).
        values: Tensor or number of values to place.
        out_int32: int32 indices instead of int64.
        right / side: return the last suitable position (`right=True` or `side="right"`) instead of the first.
        sorter: indices that sort `sorted_sequence` along its last dimension, if it is not sorted itself.
    """
    if side is not None:
        if side not in ("left", "right"):
            raise op_error("SearchSorted", f"'side' must be 'left' or 'right', but got {side!r}.")
        if right and side == "left":
            raise op_error("SearchSorted", "'side' is 'left' while 'right' is True.")
        right = side == "right"
    if sorter is not None:
        sorted_sequence = gather_elements(sorted_sequence, -1, sorter)
    scalar = not isinstance(values, Tensor)
    if scalar:
        values = Tensor(np.asarray(values, dtype=np.dtype(sorted_sequence.dtype.np)).reshape(1))
    out = apply(prims_math.SearchSorted, (sorted_sequence, values), (bool(right), bool(out_int32)))
    return reshape(out, ()) if scalar else out


def kron(input, other) -> Tensor:
    """The Kronecker product of `input` and `other` (the lower-rank one gets leading axes of size 1)."""
    a, b = input, other
    nd = builtins.max(a.ndim, b.ndim)
    a = reshape(a, (1,) * (nd - a.ndim) + tuple(a.shape))
    b = reshape(b, (1,) * (nd - b.ndim) + tuple(b.shape))
    a_exp = reshape(a, tuple(s for d in a.shape for s in (d, 1)))
    b_exp = reshape(b, tuple(s for d in b.shape for s in (1, d)))
    out = mul(a_exp, b_exp)
    return reshape(out, tuple(x * y for x, y in zip(a.shape, b.shape, strict=True)))


def _ddof(ddof) -> int:
    if isinstance(ddof, bool):
        return int(ddof)
    if not isinstance(ddof, int):
        raise op_error("var_mean", f"'ddof' must be an int or a bool, but got {type(ddof).__name__}.", TypeError)
    return ddof


def var_mean(input, axis=None, ddof=0, keepdims: bool = False):
    """(variance, mean) of `input` over `axis`, with `ddof` degrees of freedom removed (True means 1)."""
    return var(input, axis, _ddof(ddof), keepdims), mean(input, axis, keepdims)


def std_mean(input, axis=None, ddof=0, keepdims: bool = False):
    """(standard deviation, mean) of `input` over `axis`, with `ddof` degrees of freedom removed."""
    return std(input, axis, _ddof(ddof), keepdims), mean(input, axis, keepdims)


def nextafter(input, other) -> Tensor:
    """The next representable floating-point value after `input` towards `other`, elementwise."""
    return apply(prims_math.NextAfter, (input, other))


def matrix_band_part(x, lower, upper) -> Tensor:
    """Keep the band of each matrix (last two axes): `lower` sub-diagonals and `upper` super-diagonals (a
    negative count keeps the whole triangle); zero elsewhere."""
    low, up = (int(v.asnumpy()) if isinstance(v, Tensor) else int(v) for v in (lower, upper))
    rows, cols = x.shape[-2], x.shape[-1]
    i, j = np.arange(rows)[:, None], np.arange(cols)[None, :]
    keep = ((low < 0) | (i - j <= low)) & ((up < 0) | (j - i <= up))
    return mul(x, cast(Tensor(keep), x.dtype))


def _every_axis_if_empty(axis):
    """MindSpore's `()` (or []) axis of a Reduce* primitive: every axis, None. (`axis != ()` on a Tensor would
    compare values.)"""
    return None if isinstance(axis, (tuple, list)) and not axis else axis


def _reduction(fn):
    def reduce(x, axis=()):
        return fn(x, _every_axis_if_empty(axis), False)

    reduce.__doc__ = f"MindSpore's functional `{fn.__name__}` as a ReduceX primitive instance: over `axis`."
    return reduce


reduce_mean = _reduction(mean)


def reduce_sum(input, axis=(), keep_dims: bool = False) -> Tensor:
    """MindSpore's ReduceSum: the sum over `axis` (() or None: every axis) in the input's own dtype.

    Integer sums wrap as their dtype does and a bool sum says whether any element is set, as MindSpore 2.10's do;
    the functional `sum` widens both to int64.
    """
    axis = _every_axis_if_empty(axis)
    if isinstance(input, Tensor) and input.dtype is mstype.bool_:
        return _any(input, axis, keep_dims)
    return _sum(input, axis, keep_dims)


def reduce_prod(input, axis=(), keep_dims: bool = False) -> Tensor:
    """MindSpore's ReduceProd: the product over `axis` (() or None: every axis) in the input's own dtype (the
    functional `prod` multiplies bool and small integers in int64)."""
    axis = _every_axis_if_empty(axis)
    return _prod(input, axis, keep_dims)


reduce_max, reduce_min = _reduction(amax), _reduction(amin)

reduce_all, reduce_any = _reduction(all), _reduction(any)


def heaviside(input, values) -> Tensor:
    """0 where input < 0, `values` where input == 0, 1 where input > 0."""
    step = cast(greater(input, 0), input.dtype)
    return array.select(equal(input, 0), array.broadcast_to(cast(values, input.dtype), input.shape), step)


def isposinf(input) -> Tensor:
    """True where `input` is +inf."""
    return logical_and(isinf(input), greater(input, 0))


def isneginf(input) -> Tensor:
    """True where `input` is -inf."""
    return logical_and(isinf(input), less(input, 0))


def frac(x) -> Tensor:
    """The fractional part, with the sign of `x`: x - trunc(x)."""
    return sub(x, trunc(x))


def _window(name: str, fn, default_dtype=np.float32):
    def window(window_length, periodic=True, *args, dtype=None, **kwargs) -> Tensor:
        if isinstance(window_length, Tensor):
            window_length = int(window_length.asnumpy())
        if not isinstance(window_length, int) or isinstance(window_length, bool) or window_length < 0:
            raise op_error(name, f"'window_length' must be a non-negative int, but got {window_length!r}.")
        if window_length == 0:
            values = np.zeros(0)
        elif window_length == 1:
            values = np.ones(1)
        else:
            n = window_length + 1 if periodic else window_length
            values = fn(n, *args, **kwargs)[:window_length]
        out = Tensor(values.astype(default_dtype))
        return out if dtype is None else cast(out, dtype)

    window.__name__ = window.__qualname__ = name
    window.__doc__ = (
        f"The {name.replace('_', ' ')} of `window_length` points (periodic by default), "
        f"{np.dtype(default_dtype).name} unless `dtype` says otherwise (as MindSpore 2.10)."
    )
    return window


hamming_window = _window(
    "hamming_window", lambda n, alpha=0.54, beta=0.46: alpha - beta * np.cos(2 * np.pi * np.arange(n) / (n - 1))
)

hann_window = _window("hann_window", lambda n: 0.5 - 0.5 * np.cos(2 * np.pi * np.arange(n) / (n - 1)), np.float64)

bartlett_window = _window("bartlett_window", np.bartlett)

blackman_window = _window("blackman_window", np.blackman)

kaiser_window = _window("kaiser_window", lambda n, beta=12.0: np.kaiser(n, beta), np.float64)


def _unary(prim_name: str, public: str, what: str):
    p = REGISTRY[prim_name]

    def op(input) -> Tensor:
        return apply(p, (input,))

    op.__name__ = op.__qualname__ = public
    op.__doc__ = f"""{what}, elementwise.

    Args:
        input (Tensor): the input.

    Returns:
        Tensor of the input's shape.
    """
    return op


def _binary(prim_name: str, public: str, what: str):
    p = REGISTRY[prim_name]

    def op(input, other) -> Tensor:
        return apply(p, (input, other))

    op.__name__ = op.__qualname__ = public
    op.__doc__ = f"""{what}, elementwise with broadcasting.

    Args:
        input (Tensor | number): the first operand.
        other (Tensor | number): the second operand.

    Returns:
        Tensor of the broadcast shape.
    """
    return op


bessel_i0 = _unary("BesselI0", "bessel_i0", "Modified Bessel function of the first kind, order 0")

bessel_i0e = _unary("BesselI0e", "bessel_i0e", "Exponentially scaled modified Bessel function I0")

bessel_i1 = _unary("BesselI1", "bessel_i1", "Modified Bessel function of the first kind, order 1")

bessel_i1e = _unary("BesselI1e", "bessel_i1e", "Exponentially scaled modified Bessel function I1")

bessel_j0 = _unary("BesselJ0", "bessel_j0", "Bessel function of the first kind, order 0")

bessel_j1 = _unary("BesselJ1", "bessel_j1", "Bessel function of the first kind, order 1")

i0 = _unary("BesselI0", "i0", "Modified Bessel function of the first kind, order 0")

sinc = _unary("Sinc", "sinc", "Normalised sinc, sin(pi x) / (pi x) (1 at 0)")

signbit = _unary("SignBit", "signbit", "Whether the sign bit is set (True for -0.0)")

angle = _unary("Angle", "angle", "Argument of a complex number (0 or pi for reals)")

population_count = _unary("PopulationCount", "population_count", "Number of set bits (as uint8)")

igamma = _binary("Igamma", "igamma", "Regularised lower incomplete gamma P(input, other)")

igammac = _binary("Igammac", "igammac", "Regularised upper incomplete gamma Q(input, other)")

zeta = _binary("Zeta", "zeta", "Hurwitz zeta function zeta(input, other)")

copysign = _binary("CopySign", "copysign", "Magnitude of `input` with the sign of `other`")

logaddexp = _binary("LogAddExp", "logaddexp", "log(exp(input) + exp(other))")

logaddexp2 = _binary("LogAddExp2", "logaddexp2", "log2(2**input + 2**other)")

fmax = _binary("Fmax", "fmax", "Maximum that ignores NaN (NaN only where both are NaN)")

fmin = _binary("Fmin", "fmin", "Minimum that ignores NaN (NaN only where both are NaN)")

gcd = _binary("Gcd", "gcd", "Greatest common divisor of integers")

lcm = _binary("Lcm", "lcm", "Least common multiple of integers")


def complex(real, imag) -> Tensor:  # noqa: A001
    """The complex tensor `real + 1j * imag`.

    Args:
        real (Tensor): real parts (float32 gives complex64, float64 complex128).
        imag (Tensor): imaginary parts, same dtype.

    Returns:
        Complex Tensor of the broadcast shape.
    """
    return apply(REGISTRY["Complex"], (real, imag))


def polar(abs, angle) -> Tensor:  # noqa: A002
    """The complex tensor `abs * (cos(angle) + 1j * sin(angle))`.

    Args:
        abs (Tensor): magnitudes.
        angle (Tensor): angles in radians.

    Returns:
        Complex Tensor.
    """
    return apply(REGISTRY["Polar"], (abs, angle))


def polygamma(n, input) -> Tensor:
    """The n-th derivative of the digamma function.

    Args:
        n (int | Tensor): the order (>= 0).
        input (Tensor): the input.

    Returns:
        Tensor of the input's shape.
    """
    n = int(n.asnumpy()) if isinstance(n, Tensor) else int(n)
    if n < 0:
        raise op_error("Polygamma", f"'n' must be non-negative, but got {n}.")
    return apply(REGISTRY["Polygamma"], (input,), (n,))


def betainc(a, b, x) -> Tensor:
    """Regularised incomplete beta function I_x(a, b).

    Args:
        a, b, x (Tensor): inputs of the same dtype.

    Returns:
        Tensor.
    """
    return apply(REGISTRY["Betainc"], (a, b, x))


def logcumsumexp(input, axis) -> Tensor:
    """log(cumsum(exp(input))) along `axis`, computed stably.

    Args:
        input (Tensor): the input.
        axis (int): the axis.

    Returns:
        Tensor of the input's shape.
    """
    return apply(REGISTRY["CumulativeLogsumexp"], (input,), (int(axis), False))


def _segment(kind):
    p = REGISTRY[f"UnsortedSegment{kind.capitalize()}"]

    def op(input_x, segment_ids, num_segments) -> Tensor:
        n = int(num_segments.asnumpy()) if isinstance(num_segments, Tensor) else int(num_segments)
        return apply(p, (input_x, segment_ids), (n,))

    op.__name__ = op.__qualname__ = f"unsorted_segment_{kind}"
    op.__doc__ = f"""The {kind} of the slices of `input_x` that share a segment id.

    Args:
        input_x (Tensor): the data; its leading dimensions have the shape of `segment_ids`.
        segment_ids (Tensor): integer segment of each slice; ids outside [0, num_segments) are dropped.
        num_segments (int): number of segments.

    Returns:
        Tensor of shape (num_segments, *input_x.shape[segment_ids.ndim:]).
    """
    return op


unsorted_segment_sum = _segment("sum")

unsorted_segment_max = _segment("max")

unsorted_segment_min = _segment("min")

unsorted_segment_prod = _segment("prod")


def addcdiv(input, tensor1, tensor2, value=1) -> Tensor:
    """`input + value * tensor1 / tensor2`.

    Args:
        input, tensor1, tensor2 (Tensor): broadcast together.
        value (number | Tensor): the multiplier.

    Returns:
        Tensor.
    """
    return add(input, mul(div(tensor1, tensor2), value))


def addcmul(input, tensor1, tensor2, value=1) -> Tensor:
    """`input + value * tensor1 * tensor2`; arguments as in `addcdiv`."""
    return add(input, mul(mul(tensor1, tensor2), value))


def adjoint(x) -> Tensor:
    """Conjugate transpose of the last two dimensions."""
    out = array.swapaxes(x, -1, -2)
    return conj(out) if x.dtype.is_complex else out


def aminmax(input, *, axis=0, keepdims=False):
    """(min, max) of `input` along `axis` (None: all elements).

    Returns:
        tuple of two Tensors.
    """
    if axis is None:
        return amin(input, None, keepdims), amax(input, None, keepdims)
    return amin(input, axis, keepdims), amax(input, axis, keepdims)


def block_diag(*inputs) -> Tensor:
    """A block-diagonal matrix of the inputs (each at most 2-D).

    Returns:
        Tensor of shape (sum of rows, sum of columns).
    """
    mats = [atleast_2d(_t(x)) if _t(x).ndim < 2 else _t(x) for x in inputs]
    mats = [array.reshape(m, (1, -1)) if m.ndim < 2 else m for m in mats]
    dtype = mats[0].dtype
    for m in mats[1:]:
        dtype = (mats[0] + m[:0, :0].astype(m.dtype)).dtype if m.dtype != dtype else dtype
    cols = builtins.sum(m.shape[1] for m in mats)
    rows, start = [], 0
    for m in mats:
        left = array.zeros((m.shape[0], start), dtype)
        right = array.zeros((m.shape[0], cols - start - m.shape[1]), dtype)
        rows.append(array.concat((left, cast(m, dtype), right), 1))
        start += m.shape[1]
    return array.concat(rows, 0)


def count_nonzero(x, axis=(), keep_dims=False, dtype=mstype.int32) -> Tensor:
    """Number of non-zero elements along `axis` (() or None: all).

    Returns:
        Tensor of `dtype`.
    """
    nz = cast(not_equal(x, 0), mstype.int64)
    out = sum(nz, None if axis in ((), None) else axis, keep_dims)
    return cast(out, dtype)


def cov(input, *, correction=1, fweights=None, aweights=None) -> Tensor:
    """Covariance matrix of the variables in the rows of `input` (observations in the columns).

    Args:
        input (Tensor): (variables, observations) or (observations,).
        correction (int): subtracted from the weight sum (1: unbiased).
        fweights (Tensor, optional): integer frequency of each observation.
        aweights (Tensor, optional): weight of each observation.

    Returns:
        Tensor (variables, variables), or a scalar for 1-D input.
    """
    x = input if input.ndim == 2 else array.reshape(input, (1, -1))
    if not x.dtype.is_floating and not x.dtype.is_complex:
        x = cast(x, mstype.float32)
    n = x.shape[1]
    w = None
    if fweights is not None:
        w = cast(fweights, x.dtype)
    if aweights is not None:
        w = cast(aweights, x.dtype) if w is None else w * cast(aweights, x.dtype)
    if w is None:
        w_sum = Tensor(float(n), x.dtype)
        avg = mean(x, 1, True)
        norm = w_sum - correction
    else:
        w_sum = sum(w)
        avg = sum(x * w, 1, True) / w_sum
        if aweights is None or correction == 0:
            norm = w_sum - correction
        else:
            norm = w_sum - correction * sum(w * cast(aweights, x.dtype)) / w_sum
    xm = x - avg
    xw = xm if w is None else xm * w
    c = matmul(xw, conj(array.transpose(xm, (1, 0))) if x.dtype.is_complex else array.transpose(xm, (1, 0)))
    out = c / maximum(norm, 0)
    return array.squeeze(out) if input.ndim < 2 else out


def cross(input, other, dim=None) -> Tensor:
    """Cross product of 3-vectors along `dim` (None: the first dimension of size 3).

    Returns:
        Tensor of the broadcast shape.
    """
    if dim is None:
        dim = next((i for i, s in enumerate(input.shape) if s == 3), None)
        if dim is None:
            raise op_error("Cross", f"no dimension of size 3 in the input of shape {input.shape}.")
    if input.shape[dim] != 3 or other.shape[dim] != 3:
        raise op_error("Cross", f"dimension {dim} of both inputs must have size 3.")
    a = [array.narrow(input, dim, i, 1) for i in builtins.range(3)]
    b = [array.narrow(other, dim, i, 1) for i in builtins.range(3)]
    return array.concat((a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]), dim)


def _float_input(op: str, x) -> Tensor:
    if not isinstance(x, Tensor) or not x.dtype.is_floating:
        got = x.dtype if isinstance(x, Tensor) else type(x).__name__
        raise op_error(op, f"'x' must be a float16, float32 or float64 Tensor, but got {got}.", TypeError)
    return x


def deg2rad(x) -> Tensor:
    """Degrees to radians, in x's dtype (a Python-float factor adopts it, as in MindSpore).

    Args:
        x (Tensor): a float tensor.

    Returns:
        Tensor of x's shape and dtype.
    """
    return mul(_float_input("deg2rad", x), np.pi / 180)


def rad2deg(x) -> Tensor:
    """Radians to degrees, in x's dtype (a Python-float factor adopts it, as in MindSpore).

    Args:
        x (Tensor): a float tensor.

    Returns:
        Tensor of x's shape and dtype.
    """
    return mul(_float_input("rad2deg", x), 180 / np.pi)


def diff(x, n=1, axis=-1, prepend=None, append=None) -> Tensor:
    """The n-th forward difference along `axis` (`prepend`/`append` joined first).

    Returns:
        Tensor, shorter by n along `axis`.
    """
    parts = [p for p in (prepend, x, append) if p is not None]
    out = array.concat(parts, axis) if len(parts) > 1 else x
    for _ in builtins.range(n):
        length = out.shape[axis]
        hi = array.narrow(out, axis, 1, length - 1)
        lo = array.narrow(out, axis, 0, length - 1)
        out = logical_xor(hi, lo) if out.dtype == mstype.bool_ else hi - lo
    return out


def dist(input, other, p=2) -> Tensor:
    """The p-norm of `input - other`."""
    d = abs(sub(input, other))
    if p == 0:
        return sum(cast(not_equal(d, 0), d.dtype))
    if p == float("inf"):
        return amax(d)
    if p == float("-inf"):
        return amin(d)
    return pow(sum(pow(d, p)), 1.0 / p)


def float_power(input, exponent) -> Tensor:
    """`input ** exponent` computed in float64 (complex128 for complex inputs)."""
    cdt = mstype.complex128
    is_c = builtins.any(isinstance(v, Tensor) and v.dtype.is_complex for v in (input, exponent))
    dt = cdt if is_c else mstype.float64
    a = cast(input, dt) if isinstance(input, Tensor) else input
    b = cast(exponent, dt) if isinstance(exponent, Tensor) else exponent
    if not isinstance(a, Tensor):
        a = Tensor(a, dt)
    return pow(a, b)


float_power_ext = float_power


def floordiv(input, other) -> Tensor:
    """Floor division (`ops.floor_divide`)."""
    return floor_divide(input, other)


def floormod(x, y) -> Tensor:
    """Floor modulo (`ops.floor_mod`)."""
    return floor_mod(x, y)


def ger(input, vec2) -> Tensor:
    """Outer product of two 1-D tensors."""
    return outer(input, vec2)


def inv(x) -> Tensor:
    """Elementwise reciprocal."""
    return reciprocal(x)


def invert(x) -> Tensor:
    """Bitwise NOT of integers."""
    return bitwise_not(x)


def is_complex(input) -> bool:
    """Whether `input` has a complex dtype."""
    if not isinstance(input, Tensor):
        raise TypeError(f"is_complex reads a Tensor's dtype; it was given a {type(input).__name__}.")
    return input.dtype.is_complex


def is_floating_point(input) -> bool:
    """Whether `input` has a floating dtype."""
    return input.dtype.is_floating


def is_nonzero(input) -> bool:
    """Whether the single element of `input` is non-zero."""
    if input.size != 1:
        raise RuntimeError(f"is_nonzero(): the input must hold exactly one element, but holds {input.size}.")
    return bool(input.asnumpy().reshape(-1)[0] != 0)


def is_tensor(obj) -> bool:
    """Whether `obj` is a Tensor."""
    return isinstance(obj, Tensor)


def isreal(input) -> Tensor:
    """Elementwise: the imaginary part is 0 (all True for real dtypes)."""
    if input.dtype.is_complex:
        return equal(imag(input), 0)
    return array.ones_like(input, dtype=mstype.bool_)


def ldexp(x, other) -> Tensor:
    """`x * 2 ** other`."""
    return mul(x, pow(2.0, cast(other, mstype.float32) if isinstance(other, Tensor) else other))


def logit(input, eps=None) -> Tensor:
    """log(p / (1 - p)), with p clipped to [eps, 1 - eps] when `eps` is given."""
    x = input if eps is None or eps < 0 else clamp(input, eps, 1 - eps)
    return log(div(x, sub(1, x)))


def logspace(start, end, steps, base=10, *, dtype=mstype.float32) -> Tensor:
    """`steps` points `base ** t` for t evenly spaced from `start` to `end`."""
    t = array.linspace(float(start), float(end), int(steps))
    out = pow(Tensor(float(base), mstype.float64), cast(t, mstype.float64))
    return cast(out, dtype)


def mv(mat, vec) -> Tensor:
    """Matrix-vector product."""
    return matmul(mat, vec)


def mvlgamma(input, p) -> Tensor:
    """Multivariate log-gamma of dimension `p`."""
    if p < 1:
        raise op_error("Mvlgamma", f"'p' must be at least 1, but got {p}.")
    j = Tensor(np.arange(p, dtype=np.float32) / 2).astype(input.dtype)
    terms = lgamma(array.expand_dims(input, -1) - j)
    return sum(terms, -1) + p * (p - 1) / 4 * _pymath.log(_pymath.pi)


def nan_to_num(input, nan=None, posinf=None, neginf=None) -> Tensor:
    """Replace NaN by `nan` (0), +inf by `posinf` (largest finite) and -inf by `neginf` (lowest finite)."""
    info = np.finfo(input.dtype.np)
    nan = 0.0 if nan is None else nan
    posinf = float(info.max) if posinf is None else posinf
    neginf = float(info.min) if neginf is None else neginf
    out = array.select(isnan(input), array.full_like(input, nan), input)
    out = array.select(logical_and(isinf(out), out > 0), array.full_like(input, posinf), out)
    return array.select(logical_and(isinf(out), out < 0), array.full_like(input, neginf), out)


def nansum(input, axis=None, keepdims=False, *, dtype=None) -> Tensor:
    """Sum treating NaN as 0; integers sum in their own dtype and bool in int64, as MindSpore 2.10's do."""
    x = input if not input.dtype.is_floating else array.select(isnan(input), array.zeros_like(input), input)
    return _sum(x, axis, keepdims, dtype=dtype)


def nanmean(input, axis=None, keepdims=False, *, dtype=None) -> Tensor:
    """Mean of the non-NaN elements."""
    valid = logical_not(isnan(input))
    total = nansum(input, axis, keepdims, dtype=dtype)
    return total / cast(sum(cast(valid, mstype.int64), axis, keepdims), total.dtype)


def _median(input, axis, keepdims, ignore_nan):
    if axis is None:
        x, axis = array.reshape(input, (-1,)), 0
    else:
        x = input
    axis = axis % builtins.max(x.ndim, 1)
    n = x.shape[axis] if x.ndim else 1
    if x.ndim == 0:
        return input, Tensor(0, mstype.int64)
    order = argsort(x, axis)
    values = array.gather_elements(x, axis, order)
    if ignore_nan and x.dtype.is_floating:
        count = sum(cast(logical_not(isnan(x)), mstype.int64), axis, True)
        k = floor_divide(sub(maximum(count, 1), 1), 2)
    else:
        nan_any = any(isnan(x), axis, True) if x.dtype.is_floating else None
        k = array.full(tuple(1 if i == axis else s for i, s in enumerate(x.shape)), (n - 1) // 2, dtype=mstype.int64)
        if nan_any is not None:  # a NaN in the slice: the median is NaN (sorted last), at the first NaN's position
            first_nan = argmax(cast(isnan(values), mstype.int32), axis, True)
            k = array.select(nan_any, cast(first_nan, mstype.int64), k)
    med = array.gather_elements(values, axis, k)
    idx = array.gather_elements(order, axis, k)
    if not keepdims:
        med, idx = array.squeeze(med, axis), array.squeeze(idx, axis)
    return med, cast(idx, mstype.int64)


def median(input, axis=-1, keepdims=False):
    """The lower median along `axis` and its index.

    Returns:
        tuple (values, indices).
    """
    return _median(input, axis, keepdims, False)


def nanmedian(input, axis=-1, keepdims=False):
    """The lower median of the non-NaN elements along `axis`, and its index.

    Returns:
        tuple (values, indices).
    """
    return _median(input, axis, keepdims, True)


def positive(input) -> Tensor:
    """`input` itself (bool input is rejected)."""
    if input.dtype == mstype.bool_:
        raise TypeError("positive(): bool tensors are not supported.")
    return input


def pows(input, exponent) -> Tensor:
    """`input ** exponent` (`ops.pow`)."""
    return pow(input, exponent)


def renorm(input, p, axis, maxnorm) -> Tensor:
    """Rescale each slice along `axis` whose p-norm exceeds `maxnorm` to norm `maxnorm`."""
    axes = tuple(i for i in builtins.range(input.ndim) if i != axis % input.ndim)
    norm = pow(sum(pow(abs(input), p), axes, True), 1.0 / p)
    scale = array.select(norm > maxnorm, maxnorm / (norm + 1e-7), array.ones_like(norm))
    return input * scale


def sgn(input) -> Tensor:
    """Sign; for complex inputs `x / |x|` (0 at 0)."""
    if not input.dtype.is_complex:
        return sign(input)
    a = abs(input)
    safe = array.select(a == 0, array.ones_like(a), a)
    return array.select(a == 0, array.zeros_like(input), input / cast(safe, input.dtype))


def tensor_dot(x1, x2, axes) -> Tensor:
    """Contract `axes` of `x1` with `axes` of `x2` (an int: the last/first n)."""
    if isinstance(axes, int):
        a1 = tuple(builtins.range(x1.ndim - axes, x1.ndim))
        a2 = tuple(builtins.range(axes))
    else:
        a1, a2 = axes
        a1 = (a1,) if isinstance(a1, int) else tuple(a1)
        a2 = (a2,) if isinstance(a2, int) else tuple(a2)
    a1 = tuple(a % x1.ndim for a in a1)
    a2 = tuple(a % x2.ndim for a in a2)
    free1 = [i for i in builtins.range(x1.ndim) if i not in a1]
    free2 = [i for i in builtins.range(x2.ndim) if i not in a2]
    m = int(np.prod([x1.shape[i] for i in a1])) if a1 else 1
    l = array.reshape(array.transpose(x1, (*free1, *a1)), (-1, m))  # noqa: E741
    r = array.reshape(array.transpose(x2, (*a2, *free2)), (m, -1))
    out = matmul(l, r)
    return array.reshape(out, tuple(x1.shape[i] for i in free1) + tuple(x2.shape[i] for i in free2))


def top_k(input_x, k, sorted=True):  # noqa: A002
    """The k largest along the last dimension (`ops.topk`)."""
    return topk(input_x, int(k), -1, True, sorted)


def trapz(y, x=None, *, dx=1.0, dim=-1) -> Tensor:
    """Trapezoid-rule integral of `y` along `dim` (sample points `x`, or spacing `dx`)."""
    n = y.shape[dim]
    hi, lo = array.narrow(y, dim, 1, n - 1), array.narrow(y, dim, 0, n - 1)
    if x is None:
        return sum((hi + lo) * (dx / 2.0), dim)
    d = diff(x, 1, dim if x.ndim == y.ndim else -1)
    return sum((hi + lo) * d / 2.0, dim)


def truncate_mod(x, y) -> Tensor:
    """Remainder of truncated division (the sign of `x`), `ops.fmod` of numbers (two booleans are refused, as in
    MindSpore's TruncateMod; one is promoted with the other input)."""
    if builtins.all(isinstance(v, bool) or (isinstance(v, Tensor) and v.dtype == mstype.bool_) for v in (x, y)):
        raise op_error("TruncateMod", "'x' and 'y' are both bool; at least one must hold numbers.", TypeError)
    return fmod(x, y)


def vander(x, N=None) -> Tensor:  # noqa: N803
    """Vandermonde matrix with decreasing powers: column j is x ** (N - 1 - j)."""
    n = x.shape[0] if N is None else int(N)
    powers = Tensor(np.arange(n - 1, -1, -1), mstype.int64)
    base = x if x.dtype.is_floating or x.dtype.is_complex else cast(x, mstype.int64)
    return pow(array.expand_dims(base, -1), cast(powers, base.dtype))


def vecdot(x, y, *, axis=-1) -> Tensor:
    """Dot product along `axis` (the first input conjugated)."""
    return sum(mul(conj(x) if x.dtype.is_complex else x, y), axis)


def view_as_real(input) -> Tensor:
    """A complex tensor as real tensor with a last dimension (real, imag)."""
    if not input.dtype.is_complex:
        raise TypeError(f"view_as_real(): the input must be complex, but got {input.dtype}.")
    return array.stack((real(input), imag(input)), -1)


def zero_(input) -> Tensor:
    """Fill `input` with 0 in place; returns it."""
    return input.zero_()


def sequence_mask(lengths, maxlen=None) -> Tensor:
    """Boolean mask (..., maxlen): position j is True where j < lengths."""
    if maxlen is None:
        maxlen = int(np.max(lengths.asnumpy()))
    pos = array.arange(0, int(maxlen), dtype=lengths.dtype)
    return less(pos, array.expand_dims(lengths, -1))


def index_fill(x, axis, index, value) -> Tensor:
    """`x` with the slices at `index` along `axis` set to `value`."""
    axis = int(axis.asnumpy()) if isinstance(axis, Tensor) else axis
    axis = axis % x.ndim
    mask_1d = any(equal(array.expand_dims(array.arange(0, x.shape[axis]), -1),
                                  array.reshape(index, (1, -1))), -1)  # fmt: skip
    shape = [1] * x.ndim
    shape[axis] = x.shape[axis]
    mask = array.reshape(mask_1d, tuple(shape))
    v = cast(value, x.dtype) if isinstance(value, Tensor) else Tensor(value, x.dtype)
    return array.select(array.broadcast_to(mask, x.shape), array.broadcast_to(v, x.shape), x)


def _inplace_rows(x, v, indices, mode):
    idx = (indices,) if isinstance(indices, int) else tuple(indices)
    if isinstance(indices, Tensor):
        idx_t = array.reshape(indices, (-1, 1))
    else:
        idx_t = Tensor(np.asarray(idx, np.int64).reshape(-1, 1))
    if v.ndim == x.ndim - 1:
        v = array.expand_dims(v, 0)
    if mode == "update":
        return array.tensor_scatter_update(x, idx_t, v)
    return array.tensor_scatter_add(x, idx_t, v if mode == "add" else neg(v))


def inplace_add(x, v, indices) -> Tensor:
    """`x` with `v` added to the rows `indices`."""
    return _inplace_rows(x, v, indices, "add")


def inplace_sub(x, v, indices) -> Tensor:
    """`x` with `v` subtracted from the rows `indices`."""
    return _inplace_rows(x, v, indices, "sub")


def inplace_update(x, v, indices) -> Tensor:
    """`x` with the rows `indices` replaced by `v`."""
    return _inplace_rows(x, v, indices, "update")


def diagonal_scatter(input, src, offset=0, dim1=0, dim2=1) -> Tensor:
    """`input` with its diagonal (`offset`, in the plane `dim1`, `dim2`) replaced by `src`.

    Args:
        input (Tensor): at least 2-D.
        src (Tensor): the new diagonal: the other dimensions of `input`, then the diagonal's length.
        offset (int): which diagonal (> 0 above the main one).
        dim1, dim2 (int): the plane.

    Returns:
        Tensor of the input's shape.
    """
    nd = input.ndim
    d1, d2 = dim1 % nd, dim2 % nd
    rows, cols = input.shape[d1], input.shape[d2]
    i, j = np.arange(rows)[:, None], np.arange(cols)[None, :]
    on_diag = np.broadcast_to(j - i == offset, (rows, cols))
    pos = np.broadcast_to(i if offset >= 0 else j, (rows, cols))  # index of (i, j) along the diagonal
    length = src.shape[-1]
    pos = np.where(on_diag, np.minimum(pos, builtins.max(length - 1, 0)), 0).astype(np.int64)
    perm = [a for a in builtins.range(nd) if a not in (d1, d2)] + [d1, d2]
    moved = array.transpose(input, tuple(perm))
    batch = moved.shape[:-2]
    flat_pos = Tensor(pos.reshape(-1))
    values = array.gather(cast(src, input.dtype), flat_pos, src.ndim - 1)
    values = array.reshape(values, (*batch, rows, cols))
    out = array.select(array.broadcast_to(Tensor(on_diag), moved.shape), values, moved)
    return array.transpose(out, tuple(int(k) for k in np.argsort(perm)))


def histc(input, bins=100, min=0.0, max=0.0) -> Tensor:  # noqa: A002
    """Histogram with `bins` equal bins over [min, max] (both 0: the data's range); values outside are ignored."""
    x = cast(input, mstype.float32)
    lo, hi = float(min), float(max)
    if lo == hi:
        lo_t, hi_t = amin(x), amax(x)
    else:
        lo_t, hi_t = Tensor(lo, mstype.float32), Tensor(hi, mstype.float32)
    width = hi_t - lo_t
    width = array.select(width == 0, array.ones_like(width), width)
    pos = floor((x - lo_t) / width * bins)
    pos = array.select(x == hi_t, array.full_like(pos, bins - 1), pos)
    inside = logical_and(x >= lo_t, x <= hi_t)
    idx = cast(array.select(inside, pos, array.full_like(pos, bins)), mstype.int64)
    onehot = cast(equal(array.expand_dims(array.reshape(idx, (-1,)), -1), array.arange(0, bins)),
                       mstype.float32)  # fmt: skip
    return cast(sum(onehot, 0), input.dtype if input.dtype.is_floating else mstype.float32)


def bucketize(input, boundaries, *, right=False) -> Tensor:
    """Index of the bucket of each element of `input` given sorted `boundaries` (int32)."""
    b = Tensor(np.asarray(boundaries, np.float32)) if not isinstance(boundaries, Tensor) else boundaries
    x = cast(input, b.dtype)
    cmp = less_equal(array.expand_dims(b, 0), array.expand_dims(array.reshape(x, (-1,)), -1)) if right else (
        less(array.expand_dims(b, 0), array.expand_dims(array.reshape(x, (-1,)), -1)))  # fmt: skip
    out = sum(cast(cmp, mstype.int32), -1)
    return cast(array.reshape(out, input.shape), mstype.int32)


def pdist(input, p=2.0) -> Tensor:
    """p-norm distances between the rows of `input` (..., N, M), upper triangle, row by row."""
    n = input.shape[-2]
    d = cdist(input, input, p)
    r, c = np.triu_indices(n, 1)
    flat = array.reshape(d, (*d.shape[:-2], n * n))
    return array.gather(flat, Tensor((r * n + c).astype(np.int64)), flat.ndim - 1)


def eps(x) -> Tensor:
    """A tensor like `x` filled with its dtype's machine epsilon, the gap from 1 to the next value (1.19e-07 for
    float32), as MindSpore 2.10 computes it (its documentation speaks of the smallest value)."""
    return array.full_like(x, float(np.finfo(x.dtype.np).eps))


def reverse_sequence(x, seq_lengths, seq_dim, batch_dim=0) -> Tensor:
    """Reverse the first `seq_lengths[b]` elements along `seq_dim` of each batch entry `b`."""
    n = x.shape[seq_dim]
    pos = array.arange(0, n, dtype=mstype.int64)
    lens = cast(seq_lengths, mstype.int64)
    rev = array.expand_dims(lens, -1) - 1 - array.expand_dims(pos, 0)  # (B, n)
    idx = array.select(array.expand_dims(pos, 0) < array.expand_dims(lens, -1), rev,
                       array.broadcast_to(array.expand_dims(pos, 0), rev.shape))  # fmt: skip
    shape = [1] * x.ndim
    shape[batch_dim], shape[seq_dim] = x.shape[batch_dim], n
    if batch_dim > seq_dim:
        idx = array.transpose(idx, (1, 0))
    idx = array.broadcast_to(array.reshape(idx, tuple(shape)), x.shape)
    return array.gather_elements(x, seq_dim, idx)


def tanh_(input) -> Tensor:
    """tanh of `input` in place."""
    return input.assign_value(tanh(_indexing.snapshot(input)))


def masked_scatter(input, mask, source) -> Tensor:
    """`input` with the positions where `mask` is True filled, in order, from the elements of `source`."""
    mask_b = array.broadcast_to(mask, input.shape)
    flat_mask = cast(array.reshape(mask_b, (-1,)), mstype.int64)
    pos = cumsum(flat_mask, 0) - 1
    pos = clamp(pos, 0, None)
    src = array.gather(array.reshape(source, (-1,)), pos, 0)
    return array.select(mask_b, array.reshape(src, input.shape), input)


def unravel_index(indices, dims) -> Tensor:
    """Coordinates of flat `indices` in an array of shape `dims`, stacked on the last axis."""
    d = dims.asnumpy().tolist() if isinstance(dims, Tensor) else list(dims)
    out, rest = [], indices
    for size in reversed(d):
        out.append(floor_mod(rest, size))
        rest = floor_divide(rest, size)
    return array.stack(list(reversed(out)), -1)


def square_sum_all(x, y):
    """(sum(x ** 2), sum(y ** 2)) of two float16 or float32 tensors of one shape and dtype (MindSpore's
    SquareSumAll)."""
    for name, t in (("x", x), ("y", y)):
        if t.dtype not in (mstype.float16, mstype.float32):
            raise op_error("SquareSumAll", f"'{name}' must be float16 or float32, but got {t.dtype}.", TypeError)
    if x.dtype != y.dtype:
        raise op_error("SquareSumAll", f"'x' and 'y' must have one dtype, but got {x.dtype} and {y.dtype}.", TypeError)
    if tuple(x.shape) != tuple(y.shape):
        raise op_error("SquareSumAll", f"'x' and 'y' must have one shape, but got {tuple(x.shape)} and "
                                       f"{tuple(y.shape)}.")  # fmt: skip
    return sum(square(x)), sum(square(y))


# The tensor_* spellings of MindSpore's functional module: the same ops.
tensor_add, tensor_sub, tensor_mul, tensor_muls = add, sub, mul, mul

tensor_floordiv, tensor_mod, tensor_pow = floor_divide, floor_mod, pow


def tensor_div(x, y) -> Tensor:
    """MindSpore's RealDiv (the functional `tensor_div`): `x / y` with the inputs in one dtype first.

    RealDiv is declared with a dtype group (Div without one): a Python float takes the dtype of the float Tensor
    beside it, two Tensors (0-d ones too) their promoted dtype (a float16 Tensor by a 0-d float32 one divides in
    float32). Integers divide truncating toward zero and stay integers, as MindSpore 2.10's kernel does (`div`
    gives float32).
    """
    if isinstance(x, Tensor) and isinstance(y, Tensor):
        dtype = mstype.promote(x.dtype, y.dtype)
        x, y = (t if t.dtype == dtype else t.astype(dtype) for t in (x, y))
    elif isinstance(x, Tensor) and isinstance(y, float) and x.dtype.is_floating:
        y = Tensor(y, x.dtype)
    elif isinstance(y, Tensor) and isinstance(x, float) and y.dtype.is_floating:
        x = Tensor(x, y.dtype)
    integral = [v.dtype.is_integer if isinstance(v, Tensor) else type(v) is int for v in (x, y)]
    if builtins.all(integral) and builtins.any(isinstance(v, Tensor) for v in (x, y)):
        return truncate_div(x, y)
    return div(x, y)


tensor_exp, tensor_expm1 = exp, expm1

tensor_gt, tensor_ge, tensor_lt, tensor_le = greater, greater_equal, less, less_equal


def _quantile(self, q, axis, keepdims: bool, ignore_nan: bool) -> Tensor:
    """Quantiles `q` (a float or a 1-D Tensor in [0, 1]) with linear interpolation, along `axis` (None: all)."""
    x = array.reshape(self, (-1,)) if axis is None else self
    ax = 0 if axis is None else axis % x.ndim
    scalar_q = not isinstance(q, Tensor)
    qt = Tensor([float(q)], x.dtype) if scalar_q else array.reshape(cast(q, x.dtype), (-1,))
    values = sort(x, ax)[0]
    n = x.shape[ax]
    if ignore_nan:
        count = sum(cast(logical_not(isnan(x)), x.dtype), ax, True)
    else:
        count = Tensor(float(n), x.dtype)
    pos = qt.reshape((-1,) + (1,) * x.ndim) * (count - 1)  # (Q, ...)
    lo = floor(pos)
    hi = minimum(ceil(pos), maximum(count - 1, 0))
    frac = pos - lo
    vals = array.broadcast_to(array.expand_dims(values, 0), (qt.shape[0], *values.shape))

    def take(p):
        idx = cast(maximum(p, 0), mstype.int64)
        idx = array.broadcast_to(idx, (qt.shape[0],) + tuple(1 if i == ax else s for i, s in enumerate(x.shape)))
        return array.gather_elements(vals, ax + 1, idx)

    out = take(lo) + (take(hi) - take(lo)) * frac.broadcast_to(take(lo).shape)
    if not ignore_nan:
        has_nan = any(isnan(x), ax, True)
        out = array.select(
            array.broadcast_to(array.expand_dims(has_nan, 0), out.shape), array.full_like(out, float("nan")), out
        )
    if axis is None:
        out = array.reshape(out, (qt.shape[0],) + ((1,) * self.ndim if keepdims else ()))
    elif not keepdims:
        out = array.squeeze(out, ax + 1)
    return out[0] if scalar_q else out


def quantile(input, q, axis=None, keepdims: bool = False) -> Tensor:
    """The `q`-th quantiles of `input` along `axis`, interpolating linearly between the two nearest values.

    Args:
        input: a float Tensor.
        q: a float, or a 1-D Tensor of them, in [0, 1].
        axis: the axis to reduce; None reduces all of `input`.
        keepdims: keep the reduced axis (size 1).

    Returns:
        The quantiles: a leading axis of len(q) when `q` is a Tensor; NaN where the reduced values hold a NaN.
    """
    return _quantile(input, q, axis, keepdims, ignore_nan=False)


def nanquantile(input, q, axis=None, keepdims: bool = False) -> Tensor:
    """`quantile` (the same arguments and result) over the values that are not NaN, NaN where all of them are."""
    return _quantile(input, q, axis, keepdims, ignore_nan=True)


def intopk(x1, x2, k) -> Tensor:
    """Whether each row's target is among that row's `k` largest predictions: fewer than `k` predictions of the row
    are strictly greater than the target's (so a tie counts as in). A target outside [0, classes), or in a row
    holding a non-finite prediction, is never in.

    Args:
        x1 (Tensor): (batch, classes) float16/float32 predictions.
        x2 (Tensor): (batch,) int32/int64 target classes.
        k (int): how many of the largest predictions count.

    Returns:
        Bool Tensor of shape (batch,).
    """
    if not isinstance(x1, Tensor) or not isinstance(x2, Tensor):
        raise op_error("InTopK", "x1 and x2 must be Tensors.", TypeError)
    if x1.dtype not in (mstype.float16, mstype.float32):
        raise op_error("InTopK", f"x1 must be float16 or float32, got {x1.dtype}.", TypeError)
    if x2.dtype not in (mstype.int32, mstype.int64):
        raise op_error("InTopK", f"x2 must be int32 or int64, got {x2.dtype}.", TypeError)
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)):
        raise op_error("InTopK", f"k must be an int, got {type(k).__name__}.", TypeError)
    if x1.ndim != 2 or x2.ndim != 1 or x2.shape[0] != x1.shape[0]:
        raise op_error("InTopK", f"x1 must be (batch, classes) and x2 (batch,), got shapes {tuple(x1.shape)} and "
                       f"{tuple(x2.shape)}.")  # fmt: skip
    classes = x1.shape[1]
    valid = logical_and(greater_equal(x2, 0), less(x2, classes))
    target = array.gather_elements(x1, 1, reshape(clamp(x2, 0, builtins.max(classes - 1, 0)), (-1, 1)))
    above = sum(cast(greater(x1, target), mstype.int32), 1)
    finite = all(isfinite(x1), 1)  # a row with a non-finite prediction cannot be ranked
    return logical_and(logical_and(valid, finite), less(above, int(k)))


def approximate_equal(x, y, tolerance: float = 1e-5) -> Tensor:
    """Whether |x - y| < tolerance, elementwise.

    Args:
        x, y (Tensor): inputs of one shape.
        tolerance (float): the bound (strict).

    Returns:
        Bool Tensor of their shape.
    """
    if not isinstance(tolerance, float):
        raise op_error("ApproximateEqual", f"tolerance must be a float, got {type(tolerance).__name__}.", TypeError)
    if not isinstance(x, Tensor) or not isinstance(y, Tensor):
        raise op_error("ApproximateEqual", "x and y must be Tensors.", TypeError)
    if tuple(x.shape) != tuple(y.shape):
        # (a RuntimeError, as MindSpore 2.10 raises for it)
        raise op_error("ApproximateEqual", f"x and y must have one shape, got {tuple(x.shape)} and {tuple(y.shape)}.",
                       RuntimeError)  # fmt: skip
    return less(abs(sub(x, y)), tolerance)


def accumulate_n(x) -> Tensor:
    """The elementwise sum of a list or tuple of Tensors of one shape and dtype (as `addn`).

    Args:
        x (list[Tensor] | tuple[Tensor]): the Tensors.

    Returns:
        Tensor of their shape and dtype.
    """
    if not isinstance(x, (list, tuple)) or not x or not builtins.all(isinstance(t, Tensor) for t in x):
        raise op_error("AccumulateNV2", "x must be a non-empty list or tuple of Tensors.", TypeError)
    for i, t in enumerate(x[1:], 1):
        if t.dtype != x[0].dtype:
            raise op_error("AccumulateNV2", f"x[{i}] is {t.dtype}, x[0] {x[0].dtype}: every Tensor needs one dtype.",
                           TypeError)  # fmt: skip
        if tuple(t.shape) != tuple(x[0].shape):
            raise op_error("AccumulateNV2", f"x[{i}] has shape {tuple(t.shape)}, x[0] {tuple(x[0].shape)}: every "
                           "Tensor needs one shape.")  # fmt: skip
    return addn(x)
