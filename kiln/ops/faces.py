"""The faces table: one row per op, naming every face the op has in the public API.

An op is one primitive declaration (`kiln._prims`) plus one row here. The row names its functional face(s)
(`ops.add`), its Primitive class (`ops.Add`), its Tensor methods and operators (`Tensor.add`, `+`), its
`kiln.mint` and `kiln.numpy` names, and an argument adapter wherever a face's signature differs from the
functional one. Every face is built here from its row; the family modules (`ops.math`, `ops.array`,
`ops.nn.conv`, ...), `kiln.mint`, `kiln.numpy` and the Tensor-method installer only bind the built objects by
name, so a name cannot drift from its op (`tests/ops/test_faces.py` walks the table). A hand-written face is
the row's own code, next to the row, with a comment saying why.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from kiln._core.tensor import Tensor
from kiln._prims import array as prims_array
from kiln._prims.nn import conv as prims_conv
from kiln.ops._args import check_non_negative, check_positive, conv_attrs, ntuple, pad_mode_of, pad_pairs, split_padding
from kiln.ops._helpers import REGISTRY, apply, make_binary, make_unary, op_error
from kiln.ops.primitive import Primitive

__all__ = [
    "CLASSES", "FUNCTIONAL", "METHODS", "MINT", "NOT_OPS", "ROWS", "Row", "bind_family_faces", "functional",
    "numpy_rows",
]  # fmt: skip


@dataclass(frozen=True)
class Row:
    """One op and its faces.

    Args:
        prim: the `PrimitiveDef` name (`kiln._prims`); None for a "family" row whose op composes others.
        kind: "unary" or "binary" (the functional face is one apply over its inputs), "custom" (`impl` is), or
            "family" (the functional face is hand-written in its `kiln.ops` family module, over its primitives,
            and bound here by `bind_family_faces`; the row names its other faces).
        functional: the `kiln.ops` names; each unary/binary name gets its own function, named for it.
        impl: the functional face of a "custom" row (its argument adapter over the primitive).
        aliases: {further `kiln.ops` name: functional name} (the same object).
        classes: {Primitive class name: functional name it calls}; `cls_base` when it has constructor attributes.
        methods: {Tensor method name: functional name} (the method is that function) or adapters in `method_impl`.
        forwarded: Tensor methods `t.name(...)` that call `ops.name(t, ...)` (MindSpore's Tensor-method form).
        operators: {Tensor operator name: functional name}; a reflected operator (`__rsub__`) swaps the operands.
        mint: {mint name: functional name}, or adapters in `mint_impl`.
        numpy: `kiln.numpy` names built by kiln.numpy's own wrapper over one of the row's functional faces
            (array-like inputs, dtype=); the wrapper's `op` is that face.
    """

    prim: str | None
    kind: str
    functional: tuple[str, ...] = ()
    impl: Callable | None = None
    aliases: dict = field(default_factory=dict)
    classes: dict = field(default_factory=dict)
    cls_base: type | None = None
    methods: dict = field(default_factory=dict)
    method_impl: dict = field(default_factory=dict)
    forwarded: tuple[str, ...] = ()
    operators: dict = field(default_factory=dict)
    mint: dict = field(default_factory=dict)
    mint_impl: dict = field(default_factory=dict)
    numpy: tuple[str, ...] = ()


# ---- hand-written faces: adapters whose signatures differ from the functional face ---------------------------------
def _alpha_method(name: str) -> Callable:
    """Tensor.add / Tensor.sub: MindSpore's methods take `alpha` (a list or tuple `other` becomes self's dtype)."""

    def method(self, other, *, alpha=1) -> Tensor:
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


def gather(input_params, input_indices, axis: int, batch_dims: int = 0) -> Tensor:
    """Take slices of `input_params` along `axis` at `input_indices`.

    Args:
        input_params (Tensor): the source.
        input_indices (Tensor): int indices into `axis` (checked against its size).
        axis (int): the axis to index.
        batch_dims (int): leading dimensions shared by the source and the indices. Default: 0.

    Returns:
        Tensor of shape params.shape[:axis] + indices.shape[batch_dims:] + params.shape[axis + 1:].
    """
    return apply(prims_array.Gather, (input_params, input_indices), (axis, batch_dims))


def gather_elements(input, dim: int, index) -> Tensor:
    """out[i][j] = input[index[i][j]][j] for dim 0 (and likewise for other dims).

    Args:
        input (Tensor): the source.
        dim (int): the axis `index` addresses.
        index (Tensor): int indices, of input's rank.

    Returns:
        Tensor of index's shape.
    """
    return apply(prims_array.GatherD, (input, index), (dim,))


def _mint_gather(input, dim: int, index) -> Tensor:
    """out[i][j] = input[index[i][j]][j] (dim 0), and so on: PyTorch's gather."""
    return gather_elements(input, dim, index)


_mint_gather.__name__ = _mint_gather.__qualname__ = "gather"


def conv2d(
    input, weight, bias=None, stride=1, pad_mode="valid", padding=0, dilation=1, groups=1, *, data_format="NCHW"
) -> Tensor:
    """2-D convolution over (N, C_in, H, W).

    Args:
        input (Tensor): (N, C_in, H, W) (or (N, H, W, C_in) with data_format 'NHWC').
        weight (Tensor): (C_out, C_in / groups, kH, kW).
        bias (Tensor, optional): (C_out,).
        stride (Union[int, tuple[int]]): step of the window. Default: 1.
        pad_mode (str): 'valid', 'same' or 'pad'. Default: 'valid'.
        padding (Union[int, tuple[int]]): for pad_mode 'pad': one value, (pad_h, pad_w) or
            (top, bottom, left, right). A string 'same' / 'valid' sets pad_mode.
        dilation (Union[int, tuple[int]]): spacing of kernel taps. Default: 1.
        groups (int): number of channel groups. Default: 1.
        data_format (str): 'NCHW' or 'NHWC' (keyword only).

    Returns:
        Tensor of shape (N, C_out, H_out, W_out).
    """
    attrs = conv_attrs("Conv2D", 2, stride, pad_mode, padding, dilation, groups, data_format)
    return apply(prims_conv.Conv2D, (input, weight, bias), attrs)


def _mint_conv2d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups: int = 1) -> Tensor:
    """2-D convolution over (N, C, H, W) (padding: an int, (pad_h, pad_w), 'same' or 'valid')."""
    mode, pad = split_padding(padding)
    return conv2d(input, weight, bias, stride, mode, pad, dilation, groups)


_mint_conv2d.__name__ = _mint_conv2d.__qualname__ = "conv2d"


class ConvPrimitive(Primitive):
    """Base of `ops.Conv2D` / `ops.Conv3D`: hand-written because MindSpore checks and normalises the constructor's
    attributes (kernel, stride, padding, ...) when the primitive is built, before any call."""

    _nd = 2
    _prim = prims_conv.Conv2D

    def __init__(
        self,
        out_channel: int,
        kernel_size,
        mode: int = 1,
        pad_mode: str = "valid",
        pad=0,
        stride=1,
        dilation=1,
        group: int = 1,
        data_format: str | None = None,
    ) -> None:
        super().__init__()
        nd, name = self._nd, self.name
        kernel = ntuple(name, "kernel_size", kernel_size, nd)
        check_positive(name, "kernel_size", kernel)
        check_positive(name, "out_channel", (out_channel,))
        stride_t, dilation_t = ntuple(name, "stride", stride, nd), ntuple(name, "dilation", dilation, nd)
        check_positive(name, "stride", stride_t)
        check_positive(name, "dilation", dilation_t)
        check_positive(name, "group", (group,))
        pads = pad_pairs(name, pad, nd)
        check_non_negative(name, "pad", pads)
        mode_ = pad_mode_of(name, pad_mode)
        if mode_ != "pad" and any(pads):
            raise op_error(name, f"'pad' must be zero unless pad_mode is 'pad', but got pad={pad!r}.")
        data_format = data_format or ("NCDHW" if nd == 3 else "NCHW")
        attrs = {"out_channel": out_channel, "kernel_size": kernel, "mode": mode, "pad_mode": mode_, "pad": pads,
                 "stride": stride_t, "dilation": dilation_t, "group": group, "data_format": data_format}  # fmt: skip
        for k, v in attrs.items():
            self.add_prim_attr(k, v)
        self._attrs = (stride_t, mode_, pads, dilation_t, group, data_format)

    def __call__(self, x, weight):
        if weight.shape[0] != self.out_channel:
            raise op_error(
                self.name,
                f"'weight' must have out_channel={self.out_channel} rows, but got shape {list(weight.shape)}.",
            )
        return apply(self._prim, (x, weight, None), self._attrs)


# ---- the table ------------------------------------------------------------------------------------------------------
# The elementwise ops: (prim, kind, functional names, {class: functional}, {Tensor method: functional},
# {mint name: functional}). Their faces are the functional face itself (classes call it).
_ELEMENTWISE_ROWS = [
    ("Abs", "unary", ("abs", "absolute"), {"Abs": "abs"}, {"abs": "abs"}, {"abs": "abs", "absolute": "abs"}),
    (
        "Neg",
        "unary",
        ("neg", "negative"),
        {"Neg": "neg"},
        {"neg": "neg", "negative": "negative"},
        {"neg": "neg", "negative": "neg"},
    ),
    ("Exp", "unary", ("exp",), {"Exp": "exp"}, {"exp": "exp"}, {"exp": "exp"}),
    ("Log", "unary", ("log",), {"Log": "log"}, {"log": "log"}, {"log": "log"}),
    ("Log1p", "unary", ("log1p",), {"Log1p": "log1p"}, {"log1p": "log1p"}, {"log1p": "log1p"}),
    ("Expm1", "unary", ("expm1",), {"Expm1": "expm1"}, {"expm1": "expm1"}, {"expm1": "expm1"}),
    ("Log2", "unary", ("log2",), {}, {"log2": "log2"}, {"log2": "log2"}),
    ("Log10", "unary", ("log10",), {}, {"log10": "log10"}, {"log10": "log10"}),
    ("Exp2", "unary", ("exp2",), {}, {}, {"exp2": "exp2"}),
    ("Sqrt", "unary", ("sqrt",), {"Sqrt": "sqrt"}, {"sqrt": "sqrt"}, {"sqrt": "sqrt"}),
    ("Rsqrt", "unary", ("rsqrt",), {"Rsqrt": "rsqrt"}, {"rsqrt": "rsqrt"}, {"rsqrt": "rsqrt"}),
    ("Square", "unary", ("square",), {"Square": "square"}, {"square": "square"}, {"square": "square"}),
    ("Sin", "unary", ("sin",), {"Sin": "sin"}, {"sin": "sin"}, {"sin": "sin"}),
    ("Cos", "unary", ("cos",), {"Cos": "cos"}, {"cos": "cos"}, {"cos": "cos"}),
    ("Tan", "unary", ("tan",), {"Tan": "tan"}, {"tan": "tan"}, {"tan": "tan"}),
    (
        "Asin",
        "unary",
        ("asin", "arcsin"),
        {"Asin": "asin"},
        {"asin": "asin", "arcsin": "arcsin"},
        {"arcsin": "asin", "asin": "asin"},
    ),
    (
        "ACos",
        "unary",
        ("acos", "arccos"),
        {"ACos": "acos"},
        {"acos": "acos", "arccos": "arccos"},
        {"acos": "acos", "arccos": "acos"},
    ),
    (
        "Atan",
        "unary",
        ("atan", "arctan"),
        {"Atan": "atan"},
        {"atan": "atan", "arctan": "arctan"},
        {"arctan": "atan", "atan": "atan"},
    ),
    ("Sinh", "unary", ("sinh",), {"Sinh": "sinh"}, {"sinh": "sinh"}, {"sinh": "sinh"}),
    ("Cosh", "unary", ("cosh",), {"Cosh": "cosh"}, {"cosh": "cosh"}, {"cosh": "cosh"}),
    ("Tanh", "unary", ("tanh",), {"Tanh": "tanh"}, {"tanh": "tanh"}, {}),
    ("Asinh", "unary", ("asinh", "arcsinh"), {"Asinh": "asinh"}, {}, {"arcsinh": "asinh", "asinh": "asinh"}),
    ("Acosh", "unary", ("acosh", "arccosh"), {"Acosh": "acosh"}, {}, {"acosh": "acosh", "arccosh": "acosh"}),
    ("Atanh", "unary", ("atanh", "arctanh"), {"Atanh": "atanh"}, {}, {"arctanh": "atanh", "atanh": "atanh"}),
    ("Erf", "unary", ("erf",), {"Erf": "erf"}, {"erf": "erf"}, {"erf": "erf"}),
    ("Erfc", "unary", ("erfc",), {"Erfc": "erfc"}, {"erfc": "erfc"}, {"erfc": "erfc"}),
    ("Erfinv", "unary", ("erfinv",), {"Erfinv": "erfinv"}, {}, {"erfinv": "erfinv"}),
    ("Lgamma", "unary", ("lgamma",), {"Lgamma": "lgamma"}, {}, {}),
    ("Digamma", "unary", ("digamma",), {"Digamma": "digamma"}, {}, {}),
    ("Floor", "unary", ("floor",), {"Floor": "floor"}, {"floor": "floor"}, {"floor": "floor"}),
    ("Ceil", "unary", ("ceil",), {"Ceil": "ceil"}, {"ceil": "ceil"}, {"ceil": "ceil"}),
    ("Round", "unary", ("round",), {"Round": "round"}, {}, {}),
    ("Trunc", "unary", ("trunc",), {"Trunc": "trunc"}, {"trunc": "trunc"}, {"fix": "trunc", "trunc": "trunc"}),
    ("Sign", "unary", ("sign",), {"Sign": "sign"}, {"sign": "sign"}, {"sign": "sign"}),
    (
        "Reciprocal",
        "unary",
        ("reciprocal",),
        {"Reciprocal": "reciprocal"},
        {"reciprocal": "reciprocal"},
        {"reciprocal": "reciprocal"},
    ),
    (
        "LogicalNot",
        "unary",
        ("logical_not",),
        {"LogicalNot": "logical_not"},
        {"logical_not": "logical_not"},
        {"logical_not": "logical_not"},
    ),
    ("BitwiseNot", "unary", ("bitwise_not",), {}, {"bitwise_not": "bitwise_not"}, {"bitwise_not": "bitwise_not"}),
    ("IsNan", "unary", ("isnan",), {"IsNan": "isnan"}, {"isnan": "isnan"}, {"isnan": "isnan"}),
    ("IsInf", "unary", ("isinf",), {"IsInf": "isinf"}, {"isinf": "isinf"}, {"isinf": "isinf"}),
    ("IsFinite", "unary", ("isfinite",), {"IsFinite": "isfinite"}, {"isfinite": "isfinite"}, {"isfinite": "isfinite"}),
    ("Real", "unary", ("real",), {"Real": "real"}, {"real": "real"}, {"real": "real"}),
    ("Imag", "unary", ("imag",), {"Imag": "imag"}, {"imag": "imag"}, {"imag": "imag"}),
    ("Conj", "unary", ("conj",), {"Conj": "conj"}, {"conj": "conj"}, {}),
    ("Add", "binary", ("add",), {"Add": "add"}, {}, {}),
    ("Sub", "binary", ("sub", "subtract"), {"Sub": "sub"}, {"subtract": "subtract"}, {}),
    ("Mul", "binary", ("mul", "multiply"), {"Mul": "mul"}, {"mul": "mul", "multiply": "multiply"}, {"mul": "mul"}),
    ("Div", "binary", ("true_divide",), {}, {"true_divide": "true_divide"}, {}),
    (
        "FloorDiv",
        "binary",
        ("floor_div", "floor_divide"),
        {"FloorDiv": "floor_div"},
        {"floor_divide": "floor_divide"},
        {"floor_divide": "floor_divide"},
    ),
    (
        "FloorMod",
        "binary",
        ("floor_mod", "remainder"),
        {"FloorMod": "floor_mod"},
        {"remainder": "remainder"},
        {"remainder": "remainder"},
    ),
    ("TruncateDiv", "binary", ("truncate_div",), {"TruncateDiv": "truncate_div"}, {}, {}),
    ("Mod", "binary", ("fmod",), {"Mod": "fmod"}, {"fmod": "fmod"}, {"fmod": "fmod"}),
    ("Pow", "binary", ("pow",), {"Pow": "pow"}, {"pow": "pow"}, {}),
    ("Maximum", "binary", ("maximum",), {"Maximum": "maximum"}, {"maximum": "maximum"}, {"maximum": "maximum"}),
    ("Minimum", "binary", ("minimum",), {"Minimum": "minimum"}, {"minimum": "minimum"}, {"minimum": "minimum"}),
    (
        "Atan2",
        "binary",
        ("atan2", "arctan2"),
        {"Atan2": "atan2"},
        {"atan2": "atan2"},
        {"arctan2": "atan2", "atan2": "atan2"},
    ),
    ("Hypot", "binary", ("hypot",), {"Hypot": "hypot"}, {"hypot": "hypot"}, {}),
    (
        "SquaredDifference",
        "binary",
        ("squared_difference",),
        {"SquaredDifference": "squared_difference"},
        {"squared_difference": "squared_difference"},
        {},
    ),
    ("Xdivy", "binary", ("xdivy",), {"Xdivy": "xdivy"}, {}, {}),
    ("Xlogy", "binary", ("xlogy",), {"Xlogy": "xlogy"}, {"xlogy": "xlogy"}, {"xlogy": "xlogy"}),
    ("Equal", "binary", ("equal", "eq"), {"Equal": "equal"}, {"equal": "equal", "eq": "eq"}, {"eq": "equal"}),
    (
        "NotEqual",
        "binary",
        ("not_equal", "ne"),
        {"NotEqual": "not_equal"},
        {"not_equal": "not_equal", "ne": "ne"},
        {"ne": "not_equal", "not_equal": "not_equal"},
    ),
    (
        "Greater",
        "binary",
        ("greater", "gt"),
        {"Greater": "greater"},
        {"greater": "greater", "gt": "gt"},
        {"greater": "greater", "gt": "greater"},
    ),
    (
        "GreaterEqual",
        "binary",
        ("greater_equal", "ge"),
        {"GreaterEqual": "greater_equal"},
        {"greater_equal": "greater_equal", "ge": "ge"},
        {"ge": "greater_equal", "greater_equal": "greater_equal"},
    ),
    ("Less", "binary", ("less", "lt"), {"Less": "less"}, {"less": "less", "lt": "lt"}, {"less": "less", "lt": "less"}),
    (
        "LessEqual",
        "binary",
        ("less_equal", "le"),
        {"LessEqual": "less_equal"},
        {"less_equal": "less_equal", "le": "le"},
        {"le": "less_equal", "less_equal": "less_equal"},
    ),
    (
        "LogicalAnd",
        "binary",
        ("logical_and",),
        {"LogicalAnd": "logical_and"},
        {"logical_and": "logical_and"},
        {"logical_and": "logical_and"},
    ),
    (
        "LogicalOr",
        "binary",
        ("logical_or",),
        {"LogicalOr": "logical_or"},
        {"logical_or": "logical_or"},
        {"logical_or": "logical_or"},
    ),
    (
        "LogicalXor",
        "binary",
        ("logical_xor",),
        {"LogicalXor": "logical_xor"},
        {"logical_xor": "logical_xor"},
        {"logical_xor": "logical_xor"},
    ),
    (
        "BitwiseAnd",
        "binary",
        ("bitwise_and",),
        {"BitwiseAnd": "bitwise_and"},
        {"bitwise_and": "bitwise_and"},
        {"bitwise_and": "bitwise_and"},
    ),
    (
        "BitwiseOr",
        "binary",
        ("bitwise_or",),
        {"BitwiseOr": "bitwise_or"},
        {"bitwise_or": "bitwise_or"},
        {"bitwise_or": "bitwise_or"},
    ),
    (
        "BitwiseXor",
        "binary",
        ("bitwise_xor",),
        {"BitwiseXor": "bitwise_xor"},
        {"bitwise_xor": "bitwise_xor"},
        {"bitwise_xor": "bitwise_xor"},
    ),
    ("LeftShift", "binary", ("bitwise_left_shift",), {"LeftShift": "bitwise_left_shift"}, {}, {}),
    ("RightShift", "binary", ("bitwise_right_shift",), {"RightShift": "bitwise_right_shift"}, {}, {}),
]


# the faces of the rows above beyond their columns: ops aliases (the same object), Tensor methods forwarding to the
# functional face, Tensor operators, adapters, and kiln.numpy names
def _swap_pair(op: str, name: str) -> dict:
    return {f"__{op}__": name, f"__r{op}__": name}


_ELEMENTWISE_FACES = {
    "Abs": dict(forwarded=("absolute",), operators={"__abs__": "abs"}, numpy=("abs", "absolute", "fabs")),
    "ACos": dict(numpy=("arccos",)),
    "Acosh": dict(forwarded=("acosh", "arccosh"), numpy=("arccosh",)),
    "Add": dict(
        aliases={"tensor_add": "add"},
        operators=_swap_pair("add", "add"),
        method_impl={"add": _alpha_method("add")},
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
    "Equal": dict(operators={"__eq__": "equal"}),
    "Erfinv": dict(forwarded=("erfinv",)),
    "Exp": dict(aliases={"tensor_exp": "exp"}, numpy=("exp",)),
    "Exp2": dict(numpy=("exp2",)),
    "Expm1": dict(aliases={"tensor_expm1": "expm1"}, numpy=("expm1",)),
    "Floor": dict(numpy=("floor",)),
    "FloorDiv": dict(
        aliases={"tensor_floordiv": "floor_divide"},
        operators=_swap_pair("floordiv", "floor_divide"),
        numpy=("floor_divide",),
    ),  # fmt: skip
    "FloorMod": dict(
        aliases={"tensor_mod": "floor_mod"}, operators=_swap_pair("mod", "floor_mod"), numpy=("mod", "remainder")
    ),
    "Greater": dict(aliases={"tensor_gt": "greater"}, operators={"__gt__": "greater"}),
    "GreaterEqual": dict(aliases={"tensor_ge": "greater_equal"}, operators={"__ge__": "greater_equal"}),
    "Hypot": dict(numpy=("hypot",)),
    "LeftShift": dict(
        forwarded=("bitwise_left_shift",), operators={"__lshift__": "bitwise_left_shift"}, numpy=("left_shift",)
    ),
    "Less": dict(aliases={"tensor_lt": "less"}, operators={"__lt__": "less"}),
    "LessEqual": dict(aliases={"tensor_le": "less_equal"}, operators={"__le__": "less_equal"}),
    "Lgamma": dict(forwarded=("lgamma",)),
    "Log": dict(numpy=("log",)),
    "Log10": dict(numpy=("log10",)),
    "Log1p": dict(numpy=("log1p",)),
    "Log2": dict(numpy=("log2",)),
    "Maximum": dict(numpy=("maximum",)),
    "Minimum": dict(numpy=("minimum",)),
    "Mul": dict(
        aliases={"tensor_mul": "mul", "tensor_muls": "mul"}, operators=_swap_pair("mul", "mul"), numpy=("multiply",)
    ),  # fmt: skip
    "Neg": dict(operators={"__neg__": "neg"}, numpy=("negative",)),
    "NotEqual": dict(operators={"__ne__": "not_equal"}),
    "Pow": dict(aliases={"tensor_pow": "pow"}, operators=_swap_pair("pow", "pow"), numpy=("power",)),
    "Reciprocal": dict(numpy=("reciprocal",)),
    "RightShift": dict(
        forwarded=("bitwise_right_shift",), operators={"__rshift__": "bitwise_right_shift"}, numpy=("right_shift",)
    ),
    "Sign": dict(numpy=("sign",)),
    "Sin": dict(numpy=("sin",)),
    "Sinh": dict(numpy=("sinh",)),
    "Sqrt": dict(numpy=("sqrt",)),
    "Square": dict(numpy=("square",)),
    "Sub": dict(
        aliases={"tensor_sub": "sub"},
        operators=_swap_pair("sub", "sub"),
        method_impl={"sub": _alpha_method("sub")},
        mint_impl={"sub": _alpha_mint("sub")},
        numpy=("subtract",),
    ),
    "Tan": dict(numpy=("tan",)),
    "Tanh": dict(numpy=("tanh",)),
    "Trunc": dict(numpy=("trunc",)),
    "Xdivy": dict(forwarded=("xdivy",)),
}

ROWS: list[Row] = [
    Row(p, kind, names, classes=cls, methods=meths, mint=mints, **_ELEMENTWISE_FACES.get(p, {}))
    for p, kind, names, cls, meths, mints in _ELEMENTWISE_ROWS
] + [
    Row("Gather", "custom", ("gather",), impl=gather, classes={"Gather": "gather"}, methods={"gather": "gather"}),
    Row(
        "GatherD",
        "custom",
        ("gather_elements", "gather_d"),
        impl=gather_elements,
        classes={"GatherD": "gather_elements"},
        methods={"gather_elements": "gather_elements"},
        mint_impl={"gather": _mint_gather},
    ),
    Row(
        "Conv2D",
        "custom",
        ("conv2d",),
        impl=conv2d,
        classes={"Conv2D": "conv2d"},
        cls_base=ConvPrimitive,
        mint_impl={"conv2d": _mint_conv2d},
    ),
]


# ---- Tensor-method adapters of the reductions: MindSpore's methods take NumPy's extra arguments ----------------------
def _extremum(self, kind: str, axis, keepdims, initial, where, return_indices):
    """Tensor.max/min: `where` limits the elements compared and `initial` joins every result (as NumPy)."""
    if where is not None:
        if initial is None:
            raise ValueError(f"Tensor.{kind}(): 'where' needs 'initial' (the value of an output with no element).")
        self = FUNCTIONAL["select"](where, self, Tensor(initial, self.dtype))
    if initial is not None and return_indices:
        raise ValueError(f"Tensor.{kind}(): 'initial' and 'return_indices' cannot be used together.")
    if axis is None:
        out = FUNCTIONAL["amax" if kind == "max" else "amin"](self, None, keepdims)
    else:
        out = FUNCTIONAL[kind](self, axis, keepdims)
        if return_indices:
            return out
        out = out[0]
    if initial is not None:
        out = FUNCTIONAL["maximum" if kind == "max" else "minimum"](out, Tensor(initial, self.dtype))
    return out


def _max_method(self, axis=None, keepdims=False, *, initial=None, where=None, return_indices=False):
    return _extremum(self, "max", axis, keepdims, initial, where, return_indices)


def _min_method(self, axis=None, keepdims=False, *, initial=None, where=None, return_indices=False):
    return _extremum(self, "min", axis, keepdims, initial, where, return_indices)


def _sum_method(self, axis=None, dtype=None, keepdims=False, initial=None, out=None):
    if out is not None:  # NumPy's np.sum(tensor) passes out=None
        raise TypeError("Tensor.sum(): 'out' is not supported; use the returned Tensor.")
    out = FUNCTIONAL["sum"](self, axis, keepdims, dtype=dtype)
    return out if initial is None else out + initial


def _bool_reduction_method(name: str) -> Callable:
    """Tensor.all / Tensor.any: MindSpore's `keep_dims` and PyTorch's `dim`/`keepdim` spellings both work."""

    def method(self, axis=None, keep_dims=False, *, dim=None, keepdim=None):
        axis = dim if dim is not None else axis
        keep = keepdim if keepdim is not None else keep_dims
        return FUNCTIONAL[name](self, axis, keep)

    return method


# MindSpore's Tensor methods name the reduction arguments positionally (axis, keep_dims / keepdims, ddof)
def _mean_method(self, axis=None, keep_dims=False):
    return FUNCTIONAL["mean"](self, axis, keep_dims)


def _prod_method(self, axis=None, keep_dims=False):
    return FUNCTIONAL["prod"](self, axis, keep_dims)


def _argmax_method(self, axis=None, keepdims=False):
    return FUNCTIONAL["argmax"](self, axis, keepdims)


def _argmin_method(self, axis=None, keepdims=False):
    return FUNCTIONAL["argmin"](self, axis, keepdims)


def _std_method(self, axis=None, ddof=0, keepdims=False):
    return FUNCTIONAL["std"](self, axis, ddof, keepdims)


def _var_method(self, axis=None, ddof=0, keepdims=False):
    return FUNCTIONAL["var"](self, axis, ddof, keepdims)


def _cumsum_method(self, axis=None, dtype=None):
    """Tensor.cumsum: axis None scans the flattened Tensor (as NumPy)."""
    return FUNCTIONAL["cumsum"](self if axis is not None else self.ravel(), axis or 0, dtype)


def _sort_method(self, axis=-1, descending=False):
    return FUNCTIONAL["sort"](self, axis, descending)


def _family(name: str, *, aliases=(), methods=(), forwarded=(), operators=None, mint=(), numpy=(), **adapters) -> Row:
    """A row whose functional face `name` is hand-written in its kiln.ops family module (`bind_family_faces`);
    `aliases`, `methods` and `mint` list names that are that same function."""
    return Row(
        None, "family", (name,), aliases=dict.fromkeys(aliases, name), methods=dict.fromkeys(methods, name),
        forwarded=forwarded, operators=operators or {}, mint=dict.fromkeys(mint, name), numpy=numpy, **adapters,
    )  # fmt: skip


# Ops whose functional face is written by hand in its family module (ops.math, ops.array, ops.linalg, ops.nn,
# ops.random, ...): the row names every other face of it.
ROWS += [
    _family("adaptive_avg_pool1d", mint=("adaptive_avg_pool1d",)),
    _family("adaptive_avg_pool2d", mint=("adaptive_avg_pool2d",)),
    _family("adaptive_avg_pool3d", mint=("adaptive_avg_pool3d",)),
    _family("adaptive_max_pool3d", mint=("adaptive_max_pool3d",)),
    _family("addbmm", forwarded=("addbmm",), mint=("addbmm",)),
    _family("addcmul", forwarded=("addcmul",)),
    _family("addmm", forwarded=("addmm",), mint=("addmm",)),
    _family("addmv", forwarded=("addmv",), mint=("addmv",)),
    _family("addn", methods=("addn",)),
    _family("addr", forwarded=("addr",)),
    _family("adjoint", forwarded=("adjoint",)),
    _family("allclose", methods=("allclose",), mint=("allclose",)),
    _family("amax", methods=("amax",)),
    _family("amin", methods=("amin",)),
    _family("aminmax", forwarded=("aminmax",)),
    _family("angle", forwarded=("angle",)),
    _family("argsort", methods=("argsort",)),
    _family("argwhere", forwarded=("argwhere",)),
    _family("baddbmm", forwarded=("baddbmm",), mint=("baddbmm",)),
    _family("bernoulli", forwarded=("bernoulli",)),
    _family("bincount", forwarded=("bincount",)),
    _family("bmm", aliases=("batch_matmul",), forwarded=("bmm",)),
    _family("broadcast_to", methods=("broadcast_to",)),
    _family("celu", mint=("celu",)),
    _family("channel_shuffle", mint=("channel_shuffle",)),
    _family("cholesky", forwarded=("cholesky",)),
    _family("clamp", aliases=("clip",)),
    _family("concat", aliases=("cat",)),
    _family("cholesky_inverse", forwarded=("cholesky_inverse",)),
    _family("cholesky_solve", forwarded=("cholesky_solve",)),
    _family("chunk", methods=("chunk",)),
    _family("conv_transpose1d", mint=("conv_transpose1d",)),
    _family("conv_transpose3d", mint=("conv_transpose3d",)),
    _family("copysign", forwarded=("copysign",)),
    _family("cov", forwarded=("cov",)),
    _family("cross", forwarded=("cross",)),
    _family("ctc_loss", mint=("ctc_loss",)),
    _family("cummax", forwarded=("cummax",)),
    _family("cummin", forwarded=("cummin",)),
    _family("cumprod", methods=("cumprod",)),
    _family("deg2rad", forwarded=("deg2rad",)),
    _family("det", forwarded=("det",)),
    _family("diag", forwarded=("diag",)),
    _family("diagflat", forwarded=("diagflat",)),
    _family("diagonal", forwarded=("diagonal",)),
    _family("diagonal_scatter", forwarded=("diagonal_scatter",)),
    _family("diff", forwarded=("diff",)),
    _family(
        "div",
        aliases=("divide", "tensor_div"),
        methods=("div",),
        forwarded=("divide",),
        operators=_swap_pair("truediv", "div"),
    ),  # fmt: skip
    _family("dot", forwarded=("dot",), mint=("dot",)),
    _family("dropout1d", mint=("dropout1d",)),
    _family("dropout3d", mint=("dropout3d",)),
    _family("dsplit", forwarded=("dsplit",)),
    _family("eigvals", forwarded=("eigvals",)),
    _family("expand_dims", aliases=("unsqueeze",), methods=("expand_dims", "unsqueeze")),
    _family("fills", forwarded=("fills",)),
    _family("flip", methods=("flip",)),
    _family("fliplr", forwarded=("fliplr",)),
    _family("flipud", forwarded=("flipud",)),
    _family("float_power", aliases=("float_power_ext",), forwarded=("float_power",), mint=("float_power",)),
    _family("fmax", forwarded=("fmax",)),
    _family("fmin", forwarded=("fmin",)),
    _family("frac", forwarded=("frac",), mint=("frac",)),
    _family("gather_nd", forwarded=("gather_nd",)),
    _family("gaussian_nll_loss", mint=("gaussian_nll_loss",)),
    _family("gcd", forwarded=("gcd",), mint=("gcd",)),
    _family("geqrf", forwarded=("geqrf",)),
    _family("hardshrink", forwarded=("hardshrink",), mint=("hardshrink",)),
    _family("hardsigmoid", mint=("hardsigmoid",)),
    _family("hardswish", mint=("hardswish",)),
    _family("heaviside", forwarded=("heaviside",)),
    _family("hinge_embedding_loss", mint=("hinge_embedding_loss",)),
    _family("histc", forwarded=("histc",)),
    _family("hsplit", forwarded=("hsplit",)),
    _family("i0", forwarded=("i0",)),
    _family("igamma", forwarded=("igamma",)),
    _family("igammac", forwarded=("igammac",)),
    _family("index_fill", forwarded=("index_fill",)),
    _family("inner", forwarded=("inner",)),
    _family("inplace_update", forwarded=("inplace_update",)),
    _family("inv", forwarded=("inv",)),
    _family("inverse", forwarded=("inverse",), mint=("inverse",)),
    _family("invert", forwarded=("invert",)),
    _family("isclose", methods=("isclose",), mint=("isclose",)),
    _family("isneginf", forwarded=("isneginf",), mint=("isneginf",)),
    _family("isposinf", forwarded=("isposinf",)),
    _family("isreal", forwarded=("isreal",)),
    _family("lcm", forwarded=("lcm",)),
    _family("ldexp", forwarded=("ldexp",)),
    _family("lerp", methods=("lerp",), mint=("lerp",)),
    _family("log_matrix_determinant", forwarded=("log_matrix_determinant",)),
    _family("logaddexp", forwarded=("logaddexp",), mint=("logaddexp",)),
    _family("logaddexp2", forwarded=("logaddexp2",), mint=("logaddexp2",)),
    _family("logcumsumexp", forwarded=("logcumsumexp",)),
    _family("logdet", forwarded=("logdet",)),
    _family("logit", forwarded=("logit",)),
    _family("logsumexp", methods=("logsumexp",)),
    _family("lp_pool1d", mint=("lp_pool1d",)),
    _family("lp_pool2d", mint=("lp_pool2d",)),
    _family("lstsq", forwarded=("lstsq",)),
    _family("lu_solve", forwarded=("lu_solve",)),
    _family("make_coo_tensor", aliases=("make_sparse_tensor",)),
    _family("margin_ranking_loss", mint=("margin_ranking_loss",)),
    _family("masked_fill", methods=("masked_fill",)),
    _family("masked_scatter", forwarded=("masked_scatter",)),
    _family("masked_select", methods=("masked_select",)),
    _family("matmul", methods=("matmul",), operators=_swap_pair("matmul", "matmul"), mint=("matmul",)),
    _family("matrix_determinant", forwarded=("matrix_determinant",)),
    _family("matrix_power", forwarded=("matrix_power",)),
    _family("median", forwarded=("median",)),
    _family("mish", mint=("mish",)),
    _family("mm", forwarded=("mm",), mint=("mm",)),
    _family("moveaxis", methods=("moveaxis",)),
    _family("msort", forwarded=("msort",)),
    _family("multi_margin_loss", mint=("multi_margin_loss",)),
    _family("multilabel_soft_margin_loss", mint=("multilabel_soft_margin_loss",)),
    _family("multinomial", forwarded=("multinomial",)),
    _family("mvlgamma", forwarded=("mvlgamma",)),
    _family("nan_to_num", forwarded=("nan_to_num",), mint=("nan_to_num",)),
    _family("nanmean", forwarded=("nanmean",)),
    _family("nanmedian", forwarded=("nanmedian",)),
    _family("narrow", methods=("narrow",)),
    _family("nextafter", forwarded=("nextafter",)),
    _family("nonzero", methods=("nonzero",)),
    _family("norm", methods=("norm",)),
    _family("orgqr", forwarded=("orgqr",)),
    _family("ormqr", forwarded=("ormqr",)),
    _family("outer", forwarded=("outer",), mint=("outer",)),
    _family("pdist", mint=("pdist",)),
    _family("pixel_unshuffle", mint=("pixel_unshuffle",)),
    _family("poisson_nll_loss", mint=("poisson_nll_loss",)),
    _family("polar", mint=("polar",)),
    _family("rad2deg", forwarded=("rad2deg",)),
    _family("renorm", forwarded=("renorm",)),
    _family("repeat_interleave", methods=("repeat_interleave",)),
    _family("reverse", forwarded=("reverse",)),
    _family("reverse_sequence", forwarded=("reverse_sequence",)),
    _family("roll", methods=("roll",)),
    _family("rot90", forwarded=("rot90",)),
    _family("scatter", methods=("scatter",)),
    _family("scatter_add", methods=("scatter_add",)),
    _family("searchsorted", forwarded=("searchsorted",)),
    _family("select_scatter", forwarded=("select_scatter",)),
    _family("selu", mint=("selu",)),
    _family("sgn", forwarded=("sgn",)),
    _family("signbit", forwarded=("signbit",)),
    _family("sinc", forwarded=("sinc",), mint=("sinc",)),
    _family("slice_scatter", forwarded=("slice_scatter",)),
    _family("slogdet", forwarded=("slogdet",)),
    _family("soft_shrink", forwarded=("soft_shrink",)),
    _family("softplus", mint=("softplus",)),
    _family("softshrink", mint=("softshrink",)),
    _family("squeeze", methods=("squeeze",)),
    _family("svd", forwarded=("svd",)),
    _family("swapaxes", methods=("swapaxes",)),
    _family("take", forwarded=("take",)),
    _family("tanhshrink", mint=("tanhshrink",)),
    _family("tensor_split", forwarded=("tensor_split",)),
    _family("top_k", forwarded=("top_k",)),
    _family("topk", methods=("topk",)),
    _family("trace", forwarded=("trace",), mint=("trace",)),
    _family("tril", methods=("tril",)),
    _family("triplet_margin_loss", mint=("triplet_margin_loss",)),
    _family("triu", methods=("triu",)),
    _family("unbind", methods=("unbind",)),
    _family("unfold", forwarded=("unfold",)),
    _family("unique", forwarded=("unique",)),
    _family("unique_consecutive", forwarded=("unique_consecutive",)),
    _family("unsorted_segment_max", forwarded=("unsorted_segment_max",)),
    _family("unsorted_segment_min", forwarded=("unsorted_segment_min",)),
    _family("unsorted_segment_prod", forwarded=("unsorted_segment_prod",)),
    _family("vsplit", forwarded=("vsplit",)),
    _family("sum", method_impl={"sum": _sum_method}),
    _family("mean", method_impl={"mean": _mean_method}),
    _family("prod", method_impl={"prod": _prod_method}),
    _family("max", method_impl={"max": _max_method}),
    _family("min", method_impl={"min": _min_method}),
    _family("all", method_impl={"all": _bool_reduction_method("all")}),
    _family("any", method_impl={"any": _bool_reduction_method("any")}),
    _family("argmax", method_impl={"argmax": _argmax_method}),
    _family("argmin", method_impl={"argmin": _argmin_method}),
    _family("std", method_impl={"std": _std_method}),
    _family("var", method_impl={"var": _var_method}),
    _family("cumsum", method_impl={"cumsum": _cumsum_method}),
    _family("sort", method_impl={"sort": _sort_method}),
    _family("select"),  # its mint and numpy faces are adapters (below the table); Tensor.max/min use it
]


# ---- the faces, built from the rows ------------------------------------------------------------------------------
def _build_functional(row: Row, name: str) -> Callable:
    if row.kind == "custom":
        return row.impl
    return (make_unary if row.kind == "unary" else make_binary)(row.prim, name)


def _build_class(row: Row, cls_name: str, fn: Callable) -> type:
    if row.cls_base is not None:
        doc = f"`{cls_name}(...)(x, weight)`: the Primitive class of `{fn.__name__}` (see its constructor)."
        return type(cls_name, (row.cls_base,), {"_prim": REGISTRY[row.prim], "__doc__": doc, "__module__": __name__})

    def init(self) -> None:
        Primitive.__init__(self, cls_name)

    def call(self, *args):
        return fn(*args)

    doc = f"Primitive {cls_name}: `{cls_name}()(*inputs)` is `ops.{fn.__name__}(*inputs)`."
    return type(cls_name, (Primitive,), {"__init__": init, "__call__": call, "__doc__": doc, "__module__": __name__})


# Python's reflected operators (`1 - t` calls `t.__rsub__(1)`): their face swaps the operands
_REFLECTED = frozenset(f"__r{op}__" for op in ("add", "sub", "mul", "truediv", "floordiv", "mod", "pow", "matmul"))


def _swapped(fn: Callable) -> Callable:
    def reflected(self, other):
        return fn(other, self)

    return reflected


def _forwarding(fn: Callable, name: str) -> Callable:
    def method(self, *args, **kwargs):
        return fn(self, *args, **kwargs)

    method.__name__ = method.__qualname__ = name
    method.__doc__ = f"`ops.{name}(self, ...)`."
    return method


FUNCTIONAL: dict[str, Callable] = {}
CLASSES: dict[str, type] = {}
METHODS: dict[str, Callable] = {}
MINT: dict[str, Callable] = {}
ROW_OF: dict[tuple[str, str], Row] = {}  # (face kind, name) -> row


def _build_faces(row: Row) -> None:
    """Every face of `row` except its functional ones (already in FUNCTIONAL), into the tables above."""
    for alias, name in row.aliases.items():
        FUNCTIONAL[alias] = FUNCTIONAL[name]
        ROW_OF[("functional", alias)] = row
    for cls, name in row.classes.items():
        CLASSES[cls] = _build_class(row, cls, FUNCTIONAL[name])
        ROW_OF[("class", cls)] = row
    faces = {
        "method": {
            **{m: FUNCTIONAL[name] for m, name in row.methods.items()},
            **row.method_impl,
            **{m: _forwarding(FUNCTIONAL[m], m) for m in row.forwarded},
            **{m: _swapped(FUNCTIONAL[n]) if m in _REFLECTED else FUNCTIONAL[n] for m, n in row.operators.items()},
        },
        "mint": {**{m: FUNCTIONAL[name] for m, name in row.mint.items()}, **row.mint_impl},
    }
    for kind, table in (("method", METHODS), ("mint", MINT)):
        for name, face in faces[kind].items():
            if name in table:
                raise ImportError(f"kiln.ops.faces: two rows give the {kind} face {name!r}")
            table[name] = face
            ROW_OF[(kind, name)] = row
    for name in row.numpy:
        ROW_OF[("numpy", name)] = row


for _row in ROWS:
    if _row.kind != "family":
        for _name in _row.functional:
            FUNCTIONAL[_name] = _build_functional(_row, _name)
            ROW_OF[("functional", _name)] = _row
        _build_faces(_row)


def bind_family_faces(names: dict[str, object]) -> None:
    """Complete the table with the "family" rows, once `kiln.ops` has gathered its family modules' `names`.

    Called once by kiln/ops/_namespace.py, before the Tensor methods are installed and before kiln.mint and
    kiln.numpy read the table.

    Args:
        names: every public name of `kiln.ops` -> its object.
    """
    for row in ROWS:
        if row.kind == "family" and ("functional", row.functional[0]) not in ROW_OF:
            for name in row.functional:
                FUNCTIONAL[name] = names[name]
                ROW_OF[("functional", name)] = row
            for alias, name in row.aliases.items():
                if names[alias] is not names[name]:
                    raise ImportError(f"kiln.ops.{alias} is not ops.{name}, as its faces-table row says")
            _build_faces(row)


def functional(name: str) -> Callable:
    """The functional face `name` (as `kiln.ops` exposes it)."""
    return FUNCTIONAL[name]


def numpy_rows() -> list[Row]:
    """The rows with `kiln.numpy` faces."""
    return [row for row in ROWS if row.numpy]


# ---- public names that are not faces of an op --------------------------------------------------------------------
# {why: qualified names}. Everything public in kiln.ops, kiln.mint, kiln.numpy and on Tensor is a face of a row
# above, one of these, or a hand-written face of an op listed with its reason in tests/ops/faces_outside_table.txt.
NOT_OPS: dict[str, tuple[str, ...]] = {
    "Primitive machinery: base classes, attribute registration, graph-building helpers": (
        "ops.HyperMap",
        "ops.Map",
        "ops.MultitypeFuncGraph",
        "ops.Primitive",
        "ops.PrimitiveWithCheck",
        "ops.PrimitiveWithInfer",
        "ops.constexpr",
        "ops.depend",
        "ops.partial",
        "ops.prim_arg_register",
        "ops.prim_attr_register",
        "ops.primexpr",
    ),
    "custom-kernel registration (MindSpore's op-info API)": (
        "ops.AiCPURegOp",
        "ops.AkgAscendRegOp",
        "ops.AkgGpuRegOp",
        "ops.CpuRegOp",
        "ops.CustomRegOp",
        "ops.DataType",
        "ops.TBERegOp",
        "ops.custom_info_register",
        "ops.op_info_register",
        "ops.kernel",
    ),
    "function transforms: gradients, Jacobians, vmap, Taylor series": (
        "ops.GradOperation",
        "ops.derivative",
        "ops.get_grad",
        "ops.grad",
        "ops.hessian",
        "ops.jacfwd",
        "ops.jacrev",
        "ops.jet",
        "ops.jvp",
        "ops.value_and_grad",
        "ops.vjp",
        "ops.vmap",
    ),
    "MindSpore's composite helpers on Python values (scalars, tuples, lists, dicts, strings, environments)": (
        "ops.add_flags",
        "ops.array_reduce",
        "ops.array_to_scalar",
        "ops.augassign_add",
        "ops.augassign_div",
        "ops.augassign_floordiv",
        "ops.augassign_mod",
        "ops.augassign_mul",
        "ops.augassign_sub",
        "ops.bool_and",
        "ops.bool_eq",
        "ops.bool_not",
        "ops.bool_or",
        "ops.deepcopy",
        "ops.dict_getitem",
        "ops.dict_setitem",
        "ops.dtype",
        "ops.dyn_shape",
        "ops.env_get",
        "ops.environ_add",
        "ops.environ_create",
        "ops.environ_get",
        "ops.environ_set",
        "ops.hastype",
        "ops.hyper_add",
        "ops.in_dict",
        "ops.is_",
        "ops.is_not",
        "ops.is_sequence_shape_unknown",
        "ops.is_sequence_value_unknown",
        "ops.isconstant",
        "ops.iter_converter",
        "ops.list_equal",
        "ops.list_getitem",
        "ops.list_len",
        "ops.list_setitem",
        "ops.make_dict",
        "ops.make_list",
        "ops.make_range",
        "ops.make_slice",
        "ops.mixed_precision_cast",
        "ops.ms_hasnext",
        "ops.ms_next",
        "ops.not_in_dict",
        "ops.reduced_shape",
        "ops.scalar_add",
        "ops.scalar_div",
        "ops.scalar_eq",
        "ops.scalar_floordiv",
        "ops.scalar_ge",
        "ops.scalar_gt",
        "ops.scalar_le",
        "ops.scalar_log",
        "ops.scalar_lt",
        "ops.scalar_max",
        "ops.scalar_min",
        "ops.scalar_mod",
        "ops.scalar_mul",
        "ops.scalar_ne",
        "ops.scalar_pow",
        "ops.scalar_sub",
        "ops.scalar_to_array",
        "ops.scalar_to_tensor",
        "ops.scalar_uadd",
        "ops.scalar_usub",
        "ops.shape_",
        "ops.shape_mul",
        "ops.string_concat",
        "ops.string_eq",
        "ops.tail",
        "ops.tuple_div",
        "ops.tuple_equal",
        "ops.tuple_getitem",
        "ops.tuple_len",
        "ops.tuple_reversed",
        "ops.tuple_setitem",
        "ops.tuple_to_array",
        "ops.typeof",
        "ops.zip_operation",
    ),
    "tensor types and enums": ("ops.COOTensor", "ops.CSRTensor", "ops.ReduceOp", "ops.RowTensor", "ops.SparseTensor"),
    "mint's layers, optimizers, submodules and the Tensor class (classes and modules, not ops)": (
        "mint.Adam",
        "mint.AdamW",
        "mint.AdaptiveAvgPool1d",
        "mint.AdaptiveAvgPool2d",
        "mint.AdaptiveAvgPool3d",
        "mint.AdaptiveMaxPool1d",
        "mint.AdaptiveMaxPool2d",
        "mint.AvgPool1d",
        "mint.AvgPool2d",
        "mint.AvgPool3d",
        "mint.BCELoss",
        "mint.BCEWithLogitsLoss",
        "mint.BatchNorm1d",
        "mint.BatchNorm2d",
        "mint.BatchNorm3d",
        "mint.ConstantPad1d",
        "mint.ConstantPad2d",
        "mint.ConstantPad3d",
        "mint.Conv1d",
        "mint.Conv2d",
        "mint.Conv3d",
        "mint.ConvTranspose2d",
        "mint.CosineEmbeddingLoss",
        "mint.CrossEntropyLoss",
        "mint.Dropout",
        "mint.Dropout2d",
        "mint.ELU",
        "mint.Embedding",
        "mint.Flatten",
        "mint.Fold",
        "mint.FusedAdamW",
        "mint.GELU",
        "mint.GLU",
        "mint.GroupNorm",
        "mint.Hardshrink",
        "mint.Hardsigmoid",
        "mint.Hardswish",
        "mint.Hardtanh",
        "mint.Identity",
        "mint.KLDivLoss",
        "mint.L1Loss",
        "mint.LayerNorm",
        "mint.Linear",
        "mint.LogSigmoid",
        "mint.LogSoftmax",
        "mint.MSELoss",
        "mint.MaxPool2d",
        "mint.MaxUnpool2d",
        "mint.Mish",
        "mint.NLLLoss",
        "mint.PReLU",
        "mint.PixelShuffle",
        "mint.ReLU",
        "mint.ReLU6",
        "mint.ReflectionPad1d",
        "mint.ReflectionPad2d",
        "mint.ReflectionPad3d",
        "mint.ReplicationPad1d",
        "mint.ReplicationPad2d",
        "mint.ReplicationPad3d",
        "mint.SELU",
        "mint.SGD",
        "mint.SiLU",
        "mint.Sigmoid",
        "mint.SmoothL1Loss",
        "mint.SoftMarginLoss",
        "mint.Softmax",
        "mint.Softshrink",
        "mint.SyncBatchNorm",
        "mint.Tanh",
        "mint.Tensor",
        "mint.Threshold",
        "mint.Unfold",
        "mint.Upsample",
        "mint.UpsamplingBilinear2d",
        "mint.UpsamplingNearest2d",
        "mint.ZeroPad1d",
        "mint.ZeroPad2d",
        "mint.ZeroPad3d",
        "mint.linalg",
        "mint.nn",
        "mint.optim",
        "mint.special",
    ),
    "kiln.numpy's dtypes, constants and index grids": (
        "numpy.NINF",
        "numpy.PINF",
        "numpy.bool_",
        "numpy.e",
        "numpy.float16",
        "numpy.float32",
        "numpy.float64",
        "numpy.float_",
        "numpy.inf",
        "numpy.int16",
        "numpy.int32",
        "numpy.int64",
        "numpy.int8",
        "numpy.int_",
        "numpy.mgrid",
        "numpy.nan",
        "numpy.numeric_types",
        "numpy.ogrid",
        "numpy.pi",
        "numpy.uint",
        "numpy.uint16",
        "numpy.uint32",
        "numpy.uint64",
        "numpy.uint8",
    ),
    "Tensor's own data, metadata and hooks (kiln._core.tensor)": (
        "Tensor.asnumpy",
        "Tensor.dtype",
        "Tensor.has_init",
        "Tensor.hooks",
        "Tensor.init_data",
        "Tensor.item",
        "Tensor.itemsize",
        "Tensor.nbytes",
        "Tensor.ndim",
        "Tensor.numpy",
        "Tensor.register_hook",
        "Tensor.set_const_arg",
        "Tensor.shape",
        "Tensor.size",
        "Tensor.strides",
        "Tensor.tolist",
    ),
    "Tensor memory-layout, device and gradient-flag utilities (no computation)": (
        "Tensor.data_ptr",
        "Tensor.is_pinned",
        "Tensor.is_shared",
        "Tensor.pin_memory",
        "Tensor.storage_offset",
        "Tensor.stride",
        "Tensor.requires_grad_",
        "Tensor.to_",
        "Tensor.contiguous",
        "Tensor.is_contiguous",
        "Tensor.dim",
        "Tensor.ndimension",
        "Tensor.nelement",
        "Tensor.set_dtype",
        "Tensor.from_numpy",
        "Tensor.value",
        "Tensor.data",
    ),
}
