"""Functional math ops: elementwise, reductions, scans, sorting, linear algebra."""

from __future__ import annotations

import builtins

from kiln._core import dtype as mstype
from kiln._core.tensor import Tensor
from kiln._prims import reduction as R
from kiln.ops._helpers import REGISTRY, apply, as_axes, as_np_dtype, make_binary, make_unary, op_error
from kiln.ops.array import reshape

_UNARY = {
    "abs": "Abs", "absolute": "Abs", "neg": "Neg", "negative": "Neg", "exp": "Exp", "log": "Log",
    "log1p": "Log1p", "expm1": "Expm1", "log2": "Log2", "log10": "Log10", "exp2": "Exp2", "sqrt": "Sqrt",
    "rsqrt": "Rsqrt", "square": "Square", "sin": "Sin", "cos": "Cos", "tan": "Tan", "asin": "Asin",
    "arcsin": "Asin", "acos": "ACos", "arccos": "ACos", "atan": "Atan", "arctan": "Atan", "sinh": "Sinh",
    "cosh": "Cosh", "tanh": "Tanh", "asinh": "Asinh", "arcsinh": "Asinh", "acosh": "Acosh", "arccosh": "Acosh",
    "atanh": "Atanh", "arctanh": "Atanh", "erf": "Erf", "erfc": "Erfc", "erfinv": "Erfinv", "lgamma": "Lgamma",
    "digamma": "Digamma", "floor": "Floor", "ceil": "Ceil", "round": "Round", "trunc": "Trunc", "sign": "Sign",
    "reciprocal": "Reciprocal", "logical_not": "LogicalNot", "bitwise_not": "BitwiseNot", "isnan": "IsNan",
    "isinf": "IsInf", "isfinite": "IsFinite", "real": "Real", "imag": "Imag", "conj": "Conj",
}  # fmt: skip
_BINARY = {
    "add": "Add", "sub": "Sub", "subtract": "Sub", "mul": "Mul", "multiply": "Mul", "true_divide": "Div",
    "floor_div": "FloorDiv", "floor_divide": "FloorDiv", "floor_mod": "FloorMod", "remainder": "FloorMod",
    "truncate_div": "TruncateDiv", "fmod": "Mod", "pow": "Pow", "maximum": "Maximum", "minimum": "Minimum",
    "atan2": "Atan2", "arctan2": "Atan2", "hypot": "Hypot", "squared_difference": "SquaredDifference",
    "xdivy": "Xdivy", "xlogy": "Xlogy", "equal": "Equal", "eq": "Equal", "not_equal": "NotEqual",
    "ne": "NotEqual", "greater": "Greater", "gt": "Greater", "greater_equal": "GreaterEqual",
    "ge": "GreaterEqual", "less": "Less", "lt": "Less", "less_equal": "LessEqual", "le": "LessEqual",
    "logical_and": "LogicalAnd", "logical_or": "LogicalOr", "logical_xor": "LogicalXor",
    "bitwise_and": "BitwiseAnd", "bitwise_or": "BitwiseOr", "bitwise_xor": "BitwiseXor",
    "bitwise_left_shift": "LeftShift", "bitwise_right_shift": "RightShift",
}  # fmt: skip

_ELEMENTWISE = {name: make_unary(p, name) for name, p in _UNARY.items()}
_ELEMENTWISE |= {name: make_binary(p, name) for name, p in _BINARY.items()}
# the functional faces, bound by name so that the rest of this module and its readers see them
abs = _ELEMENTWISE["abs"]
absolute = _ELEMENTWISE["absolute"]
neg = _ELEMENTWISE["neg"]
negative = _ELEMENTWISE["negative"]
exp = _ELEMENTWISE["exp"]
log = _ELEMENTWISE["log"]
log1p = _ELEMENTWISE["log1p"]
expm1 = _ELEMENTWISE["expm1"]
log2 = _ELEMENTWISE["log2"]
log10 = _ELEMENTWISE["log10"]
exp2 = _ELEMENTWISE["exp2"]
sqrt = _ELEMENTWISE["sqrt"]
rsqrt = _ELEMENTWISE["rsqrt"]
square = _ELEMENTWISE["square"]
sin = _ELEMENTWISE["sin"]
cos = _ELEMENTWISE["cos"]
tan = _ELEMENTWISE["tan"]
asin = _ELEMENTWISE["asin"]
arcsin = _ELEMENTWISE["arcsin"]
acos = _ELEMENTWISE["acos"]
arccos = _ELEMENTWISE["arccos"]
atan = _ELEMENTWISE["atan"]
arctan = _ELEMENTWISE["arctan"]
sinh = _ELEMENTWISE["sinh"]
cosh = _ELEMENTWISE["cosh"]
tanh = _ELEMENTWISE["tanh"]
asinh = _ELEMENTWISE["asinh"]
arcsinh = _ELEMENTWISE["arcsinh"]
acosh = _ELEMENTWISE["acosh"]
arccosh = _ELEMENTWISE["arccosh"]
atanh = _ELEMENTWISE["atanh"]
arctanh = _ELEMENTWISE["arctanh"]
erf = _ELEMENTWISE["erf"]
erfc = _ELEMENTWISE["erfc"]
erfinv = _ELEMENTWISE["erfinv"]
lgamma = _ELEMENTWISE["lgamma"]
digamma = _ELEMENTWISE["digamma"]
floor = _ELEMENTWISE["floor"]
ceil = _ELEMENTWISE["ceil"]
round = _ELEMENTWISE["round"]
trunc = _ELEMENTWISE["trunc"]
sign = _ELEMENTWISE["sign"]
reciprocal = _ELEMENTWISE["reciprocal"]
logical_not = _ELEMENTWISE["logical_not"]
bitwise_not = _ELEMENTWISE["bitwise_not"]
isnan = _ELEMENTWISE["isnan"]
isinf = _ELEMENTWISE["isinf"]
isfinite = _ELEMENTWISE["isfinite"]
real = _ELEMENTWISE["real"]
imag = _ELEMENTWISE["imag"]
conj = _ELEMENTWISE["conj"]
add = _ELEMENTWISE["add"]
sub = _ELEMENTWISE["sub"]
subtract = _ELEMENTWISE["subtract"]
mul = _ELEMENTWISE["mul"]
multiply = _ELEMENTWISE["multiply"]
true_divide = _ELEMENTWISE["true_divide"]
floor_div = _ELEMENTWISE["floor_div"]
floor_divide = _ELEMENTWISE["floor_divide"]
floor_mod = _ELEMENTWISE["floor_mod"]
remainder = _ELEMENTWISE["remainder"]
truncate_div = _ELEMENTWISE["truncate_div"]
fmod = _ELEMENTWISE["fmod"]
pow = _ELEMENTWISE["pow"]
maximum = _ELEMENTWISE["maximum"]
minimum = _ELEMENTWISE["minimum"]
atan2 = _ELEMENTWISE["atan2"]
arctan2 = _ELEMENTWISE["arctan2"]
hypot = _ELEMENTWISE["hypot"]
squared_difference = _ELEMENTWISE["squared_difference"]
xdivy = _ELEMENTWISE["xdivy"]
xlogy = _ELEMENTWISE["xlogy"]
equal = _ELEMENTWISE["equal"]
eq = _ELEMENTWISE["eq"]
not_equal = _ELEMENTWISE["not_equal"]
ne = _ELEMENTWISE["ne"]
greater = _ELEMENTWISE["greater"]
gt = _ELEMENTWISE["gt"]
greater_equal = _ELEMENTWISE["greater_equal"]
ge = _ELEMENTWISE["ge"]
less = _ELEMENTWISE["less"]
lt = _ELEMENTWISE["lt"]
less_equal = _ELEMENTWISE["less_equal"]
le = _ELEMENTWISE["le"]
logical_and = _ELEMENTWISE["logical_and"]
logical_or = _ELEMENTWISE["logical_or"]
logical_xor = _ELEMENTWISE["logical_xor"]
bitwise_and = _ELEMENTWISE["bitwise_and"]
bitwise_or = _ELEMENTWISE["bitwise_or"]
bitwise_xor = _ELEMENTWISE["bitwise_xor"]
bitwise_left_shift = _ELEMENTWISE["bitwise_left_shift"]
bitwise_right_shift = _ELEMENTWISE["bitwise_right_shift"]
_abs, _sub, _mul, _add = (_ELEMENTWISE[n] for n in ("abs", "sub", "mul", "add"))

__all__ = [*_ELEMENTWISE] + [
    "div", "divide", "addn", "clamp", "clip", "lerp", "cast", "sum", "mean", "amax", "amin", "max", "min", "prod",
    "all", "any", "logsumexp", "var", "std", "argmax", "argmin", "cumsum", "cumprod", "cummax", "cummin", "topk",
    "sort", "argsort", "matmul", "mm", "bmm", "batch_matmul", "bias_add", "einsum", "dot", "inner", "outer", "diag",
    "trace", "inverse", "norm", "stop_gradient", "identity", "isclose", "allclose",
]  # fmt: skip


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
    return apply(REGISTRY[name], (input, other))


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
    if isinstance(input, Tensor) and input._data.dtype == as_np_dtype(dtype):
        return input
    return apply(REGISTRY["Cast"], (input,), (as_np_dtype(dtype),))


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
        return cast(_ELEMENTWISE["truncate_div"](total, builtins.max(count, 1)), input.dtype)
    return _mean(input, axis, keep_dims)


def prod(input, axis=None, keep_dims: bool = False) -> Tensor:
    """Product over `axis`; bool and int8/16/32/uint8 multiply in int64."""
    return _prod(input, axis, keep_dims, dtype=_widened(input, None))


def amax(input, axis=None, keepdims: bool = False) -> Tensor:
    """Maximum over `axis` (None: all axes)."""
    _no_bool("ReduceMax", input)
    return _amax(input, axis, keepdims)


def amin(input, axis=None, keepdims: bool = False) -> Tensor:
    """Minimum over `axis` (None: all axes)."""
    return _amin(input, axis, keepdims)


def max(input, axis=None, keepdims: bool = False, *, initial=None, where=None):
    """With `axis=None`, the largest element; with an int axis, (values, indices) like MindSpore 2.x."""
    if axis is None:
        return _amax(input, None, keepdims)
    return apply(R.MaxDim, (input,), (axis, bool(keepdims)))


def min(input, axis=None, keepdims: bool = False, *, initial=None, where=None):
    """With `axis=None`, the smallest element; with an int axis, (values, indices)."""
    if axis is None:
        return _amin(input, None, keepdims)
    return apply(R.MinDim, (input,), (axis, bool(keepdims)))


def all(input, axis=None, keep_dims: bool = False) -> Tensor:
    """Logical AND over `axis`."""
    return _all(input, axis, keep_dims)


def any(input, axis=None, keep_dims: bool = False) -> Tensor:
    """Logical OR over `axis`."""
    return _any(input, axis, keep_dims)


def logsumexp(input, axis, keep_dims: bool = False) -> Tensor:
    """log(sum(exp(input))) over `axis`, computed stably."""
    return _lse(input, axis, keep_dims)


def var(input, axis=None, ddof: int = 0, keepdims: bool = False) -> Tensor:
    """Variance over `axis` with `ddof` degrees of freedom removed."""
    return apply(R.Var, (input,), (as_axes(axis), bool(keepdims), int(ddof)))


def std(input, axis=None, ddof: int = 0, keepdims: bool = False) -> Tensor:
    """Standard deviation over `axis`."""
    return _ELEMENTWISE["sqrt"](var(input, axis, ddof, keepdims))


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
    from kiln.ops import array  # noqa: PLC0415

    axis = axis % input.ndim
    n = input.shape[axis]
    pos = reshape(
        array.arange(0, n, dtype=mstype.int64), tuple(n if i == axis else 1 for i in builtins.range(input.ndim))
    )
    hit = array.select(
        _ELEMENTWISE["equal"](input, values),
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
    return apply(REGISTRY["BatchMatMul"], (input, other), (False, False))


def mm(input, mat2) -> Tensor:
    """2-D matrix product."""
    return apply(REGISTRY["MatMul"], (input, mat2), (False, False))


def bmm(input_x, mat2) -> Tensor:
    """Batched matrix product of (..., n, k) and (..., k, m)."""
    return apply(REGISTRY["BatchMatMul"], (input_x, mat2), (False, False))


batch_matmul = bmm


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


def norm(A, ord=None, dim=None, keepdim: bool = False) -> Tensor:
    """Vector or matrix norm (NumPy's `ord` conventions)."""
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


def identity(input) -> Tensor:
    """Return `input` unchanged (a new Tensor)."""
    return apply(REGISTRY["Identity"], (input,))


def isclose(input, other, rtol: float = 1e-5, atol: float = 1e-8, equal_nan: bool = False) -> Tensor:
    """Elementwise |input - other| <= atol + rtol * |other|."""
    e = _ELEMENTWISE
    close = e["le"](_abs(_sub(input, other)), _add(atol, _mul(rtol, _abs(other))))
    if equal_nan:
        close = e["logical_or"](close, e["logical_and"](e["isnan"](input), e["isnan"](other)))
    return close


def allclose(input, other, rtol: float = 1e-5, atol: float = 1e-8, equal_nan: bool = False) -> bool:
    """True when every element is close (see `isclose`)."""
    return bool(all(isclose(input, other, rtol, atol, equal_nan)).item())
