"""The elementwise rows (one apply over their inputs) and their faces beyond their columns: aliases,
forwarded methods, operators, adapters, kiln.numpy names."""

from __future__ import annotations

from collections.abc import Callable

from kiln._core.tensor import Tensor
from kiln.ops.faces.methods import _METHOD_ADAPTERS, _number_in_tensor_dtype, _round_method
from kiln.ops.faces.mint_math import _mint_pow, _mint_round
from kiln.ops.faces.row import FUNCTIONAL, Row

__all__ = ["ELEMENTWISE_ROWS", "_swap_pair"]


# ---- hand-written faces: adapters whose signatures differ from the functional face ---------------------------------
def _alpha_method(name: str) -> Callable:
    """Tensor.add / Tensor.sub: MindSpore's methods take `alpha` (a list or tuple `other` becomes self's dtype)."""

    def method(self, other, *, alpha=1) -> Tensor:
        if not isinstance(self, Tensor):  # called on the class, `Tensor.add([1], [2])`
            raise TypeError(f"Tensor.{name} is a method of Tensor, but it was called on a {type(self).__name__}.")
        other = Tensor(other, dtype=self.dtype) if isinstance(other, (list, tuple)) else other
        return FUNCTIONAL[name](self, other if alpha == 1 else FUNCTIONAL["mul"](other, alpha))

    method.__name__ = method.__qualname__ = name
    method.__doc__ = f"`self {name} alpha * other`."
    return method


def _alpha_mint(name: str) -> Callable:
    """mint.add / mint.sub: PyTorch's functions take `alpha`, the functional faces do not."""

    def face(input, other, *, alpha=1) -> Tensor:
        return FUNCTIONAL[name](input, other if alpha == 1 else FUNCTIONAL["mul"](other, alpha))

    face.__name__ = face.__qualname__ = name
    face.__doc__ = f"""input {name} alpha * other.

    Args:
        input, other (Tensor | number): operands (broadcast).
        alpha (number): multiplier of `other`. Default: 1.

    Returns:
        Tensor.
    """
    return face


# The faces of the elementwise rows (below) beyond their columns: ops aliases (the same object), Tensor methods
# forwarding to the functional face, Tensor operators, adapters, and kiln.numpy names
def _swap_pair(op: str, name: str) -> dict:
    return {f"__{op}__": name, f"__r{op}__": name}


_ELEMENTWISE_FACES = {
    "Round": dict(method_impl={"round": _round_method}, mint_impl={"round": _mint_round}),
    "Abs": dict(forwarded=("absolute",), operators={"__abs__": "abs"}, numpy=("abs", "absolute", "fabs")),
    "ACos": dict(numpy=("arccos",)),
    "Acosh": dict(forwarded=("acosh", "arccosh"), numpy=("arccosh",)),
    "Add": dict(
        aliases={"tensor_add": "add"},
        operators=_swap_pair("add", "add"),
        method_impl={"add": _alpha_method("add"), **_METHOD_ADAPTERS["add"]},
        mint_impl={"add": _alpha_mint("add")},
        numpy=("add",),
    ),
    "Asin": dict(numpy=("arcsin",)),
    "Asinh": dict(forwarded=("asinh", "arcsinh"), numpy=("arcsinh",)),
    "Atan": dict(numpy=("arctan",)),
    "Atan2": dict(forwarded=("arctan2",), numpy=("arctan2",)),
    "Atanh": dict(forwarded=("atanh", "arctanh"), numpy=("arctanh",)),
    "BitwiseAnd": dict(numpy=("bitwise_and",)),
    "BitwiseOr": dict(numpy=("bitwise_or",)),
    "BitwiseXor": dict(numpy=("bitwise_xor",)),
    "Ceil": dict(numpy=("ceil",)),
    "Cos": dict(numpy=("cos",)),
    "Cosh": dict(numpy=("cosh",)),
    "Digamma": dict(forwarded=("digamma",)),
    "Equal": dict(method_impl=_METHOD_ADAPTERS["equal"]),
    "Erfinv": dict(method_impl=_METHOD_ADAPTERS["erfinv"], forwarded=("erfinv",)),
    "Exp": dict(method_impl=_METHOD_ADAPTERS["exp"], aliases={"tensor_exp": "exp"}, numpy=("exp",)),
    "Exp2": dict(numpy=("exp2",)),
    "Expm1": dict(aliases={"tensor_expm1": "expm1"}, numpy=("expm1",)),
    "Floor": dict(method_impl=_METHOD_ADAPTERS["floor"], numpy=("floor",)),
    "FloorDiv": dict(
        aliases={"tensor_floordiv": "floor_divide"},
        operators=_swap_pair("floordiv", "floor_divide"),
        numpy=("floor_divide",),
        method_impl=_METHOD_ADAPTERS["floor_divide"],
    ),  # fmt: skip
    "FloorMod": dict(
        aliases={"tensor_mod": "floor_mod"},
        operators=_swap_pair("mod", "floor_mod"),
        numpy=("mod", "remainder"),
        method_impl=_METHOD_ADAPTERS["remainder"],
    ),  # fmt: skip
    "Greater": dict(aliases={"tensor_gt": "greater"}, operators={"__gt__": "greater"}),
    "GreaterEqual": dict(aliases={"tensor_ge": "greater_equal"}, operators={"__ge__": "greater_equal"}),
    "Hypot": dict(numpy=("hypot",)),
    "LeftShift": dict(
        forwarded=("bitwise_left_shift",), operators={"__lshift__": "bitwise_left_shift"}, numpy=("left_shift",)
    ),
    "Less": dict(aliases={"tensor_lt": "less"}, operators={"__lt__": "less"}),
    "LessEqual": dict(aliases={"tensor_le": "less_equal"}, operators={"__le__": "less_equal"}),
    "Lgamma": dict(forwarded=("lgamma",)),
    "Log": dict(method_impl=_METHOD_ADAPTERS["log"], numpy=("log",)),
    "Log10": dict(numpy=("log10",)),
    "Log1p": dict(numpy=("log1p",)),
    "Log2": dict(numpy=("log2",)),
    "Maximum": dict(numpy=("maximum",)),
    "Minimum": dict(numpy=("minimum",)),
    "Mul": dict(
        aliases={"tensor_mul": "mul", "tensor_muls": "mul"},
        numpy=("multiply",),
        method_impl={
            **_METHOD_ADAPTERS["mul"],
            "mul": _number_in_tensor_dtype("Mul", "mul"),
            "__mul__": _number_in_tensor_dtype("Mul", "mul"),
            "__rmul__": _number_in_tensor_dtype("Mul", "mul", reflected=True),
        },
    ),  # fmt: skip
    "Neg": dict(operators={"__neg__": "neg"}, numpy=("negative",)),
    "NotEqual": dict(method_impl=_METHOD_ADAPTERS["not_equal"]),
    "Pow": dict(
        mint_impl={"pow": _mint_pow},
        aliases={"tensor_pow": "pow"},
        operators=_swap_pair("pow", "pow"),
        numpy=("power",),
    ),
    "Reciprocal": dict(numpy=("reciprocal",)),
    "RightShift": dict(
        forwarded=("bitwise_right_shift",), operators={"__rshift__": "bitwise_right_shift"}, numpy=("right_shift",)
    ),
    "Sign": dict(method_impl=_METHOD_ADAPTERS["sign"], numpy=("sign",)),
    "Sin": dict(numpy=("sin",)),
    "Sinh": dict(numpy=("sinh",)),
    "Sqrt": dict(numpy=("sqrt",)),
    "Square": dict(numpy=("square",)),
    "Sub": dict(
        aliases={"tensor_sub": "sub"},
        operators=_swap_pair("sub", "sub"),
        method_impl={"sub": _alpha_method("sub"), **_METHOD_ADAPTERS["sub"]},
        mint_impl={"sub": _alpha_mint("sub")},
        numpy=("subtract",),
    ),
    "Tan": dict(numpy=("tan",)),
    "Tanh": dict(numpy=("tanh",), method_impl=_METHOD_ADAPTERS["tanh"]),
    "Trunc": dict(numpy=("trunc",)),
    "Xdivy": dict(forwarded=("xdivy",)),
}


def _unary(prim: str, functional: str, *, cls=None, methods="", mint="") -> Row:
    """An elementwise row over one input (names space-separated; a mint name `a=b` is the functional face `b`)."""
    return _elementwise(prim, "unary", functional, cls, methods, mint)


def _binary(prim: str, functional: str, *, cls=None, methods="", mint="") -> Row:
    """An elementwise row over two inputs (broadcast); written as `_unary`'s."""
    return _elementwise(prim, "binary", functional, cls, methods, mint)


def _elementwise(prim: str, kind: str, functional: str, cls: str | None, methods: str, mint: str) -> Row:
    names = tuple(functional.split())
    classes = dict.fromkeys((prim if cls is None else cls).split(), names[0])  # each class calls the first name
    mints = dict(m.split("=") if "=" in m else (m, m) for m in mint.split())
    faces = _ELEMENTWISE_FACES.get(prim, {})
    return Row(prim, kind, names, classes=classes, methods={m: m for m in methods.split()}, mint=mints, **faces)


# The elementwise ops: the primitive, its functional names (each its own function), its Primitive class (the
# primitive's name unless `cls`), Tensor methods that are the functional face of the same name, and mint names.
ELEMENTWISE_ROWS: list[Row] = [
    _unary("Abs", "abs absolute", methods="abs", mint="abs absolute=abs"),
    _unary("Neg", "neg negative", methods="neg negative", mint="neg negative=neg"),
    _unary("Exp", "exp", methods="exp", mint="exp"),
    _unary("Log", "log", methods="log", mint="log"),
    _unary("Log1p", "log1p", methods="log1p", mint="log1p"),
    _unary("Expm1", "expm1", methods="expm1", mint="expm1"),
    _unary("Log2", "log2", cls="", methods="log2", mint="log2"),
    _unary("Log10", "log10", cls="", methods="log10", mint="log10"),
    _unary("Exp2", "exp2", cls="", mint="exp2"),
    _unary("Sqrt", "sqrt", methods="sqrt", mint="sqrt"),
    _unary("Rsqrt", "rsqrt", methods="rsqrt", mint="rsqrt"),
    _unary("Square", "square", methods="square", mint="square"),
    _unary("Sin", "sin", methods="sin", mint="sin"),
    _unary("Cos", "cos", methods="cos", mint="cos"),
    _unary("Tan", "tan", methods="tan", mint="tan"),
    _unary("Asin", "asin arcsin", methods="asin arcsin", mint="arcsin=asin asin"),
    _unary("ACos", "acos arccos", methods="acos arccos", mint="acos arccos=acos"),
    _unary("Atan", "atan arctan", methods="atan arctan", mint="arctan=atan atan"),
    _unary("Sinh", "sinh", methods="sinh", mint="sinh"),
    _unary("Cosh", "cosh", methods="cosh", mint="cosh"),
    _unary("Tanh", "tanh", methods="tanh"),
    _unary("Asinh", "asinh arcsinh", mint="arcsinh=asinh asinh"),
    _unary("Acosh", "acosh arccosh", mint="acosh arccosh=acosh"),
    _unary("Atanh", "atanh arctanh", mint="arctanh=atanh atanh"),
    _unary("Erf", "erf", methods="erf", mint="erf"),
    _unary("Erfc", "erfc", methods="erfc", mint="erfc"),
    _unary("Erfinv", "erfinv", mint="erfinv"),
    _unary("Lgamma", "lgamma"),
    _unary("Digamma", "digamma"),
    _unary("Floor", "floor", methods="floor", mint="floor"),
    _unary("Ceil", "ceil", methods="ceil", mint="ceil"),
    _unary("Round", "round"),
    _unary("Trunc", "trunc", methods="trunc", mint="fix=trunc trunc"),
    _unary("Sign", "sign", methods="sign", mint="sign"),
    _unary("Reciprocal", "reciprocal", methods="reciprocal", mint="reciprocal"),
    _unary("LogicalNot", "logical_not", methods="logical_not", mint="logical_not"),
    _unary("BitwiseNot", "bitwise_not", cls="", methods="bitwise_not", mint="bitwise_not"),
    _unary("IsNan", "isnan", methods="isnan", mint="isnan"),
    _unary("IsInf", "isinf", methods="isinf", mint="isinf"),
    _unary("IsFinite", "isfinite", methods="isfinite", mint="isfinite"),
    _unary("Real", "real", methods="real", mint="real"),
    _unary("Imag", "imag", methods="imag", mint="imag"),
    _unary("Conj", "conj", methods="conj"),
    _binary("Add", "add"),
    _binary("Sub", "sub subtract", methods="subtract"),
    _binary("Mul", "mul multiply", methods="mul multiply", mint="mul"),
    _binary("Div", "true_divide", cls="", methods="true_divide"),
    _binary("FloorDiv", "floor_div floor_divide", methods="floor_divide", mint="floor_divide"),
    _binary("FloorMod", "floor_mod remainder", methods="remainder", mint="remainder"),
    _binary("TruncateDiv", "truncate_div"),
    _binary("Mod", "fmod", methods="fmod", mint="fmod"),
    _binary("Pow", "pow", methods="pow"),
    _binary("Maximum", "maximum", methods="maximum", mint="maximum"),
    _binary("Minimum", "minimum", methods="minimum", mint="minimum"),
    _binary("Atan2", "atan2 arctan2", methods="atan2", mint="arctan2=atan2 atan2"),
    _binary("Hypot", "hypot", methods="hypot"),
    _binary("SquaredDifference", "squared_difference", methods="squared_difference"),
    _binary("Xdivy", "xdivy"),
    _binary("Xlogy", "xlogy", methods="xlogy", mint="xlogy"),
    _binary("Equal", "equal eq", methods="equal eq", mint="eq=equal"),
    _binary("NotEqual", "not_equal ne", methods="not_equal ne", mint="ne=not_equal not_equal"),
    _binary("Greater", "greater gt", methods="greater gt", mint="greater gt=greater"),
    _binary("GreaterEqual", "greater_equal ge", methods="greater_equal ge", mint="ge=greater_equal greater_equal"),
    _binary("Less", "less lt", methods="less lt", mint="less lt=less"),
    _binary("LessEqual", "less_equal le", methods="less_equal le", mint="le=less_equal less_equal"),
    _binary("LogicalAnd", "logical_and", methods="logical_and", mint="logical_and"),
    _binary("LogicalOr", "logical_or", methods="logical_or", mint="logical_or"),
    _binary("LogicalXor", "logical_xor", methods="logical_xor", mint="logical_xor"),
    _binary("BitwiseAnd", "bitwise_and", methods="bitwise_and", mint="bitwise_and"),
    _binary("BitwiseOr", "bitwise_or", methods="bitwise_or", mint="bitwise_or"),
    _binary("BitwiseXor", "bitwise_xor", methods="bitwise_xor", mint="bitwise_xor"),
    _binary("LeftShift", "bitwise_left_shift"),
    _binary("RightShift", "bitwise_right_shift"),
]
