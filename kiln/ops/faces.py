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

__all__ = ["CLASSES", "FUNCTIONAL", "METHODS", "MINT", "ROWS", "Row", "functional", "numpy_rows"]


@dataclass(frozen=True)
class Row:
    """One op and its faces.

    Args:
        prim: the `PrimitiveDef` name (`kiln._prims`).
        kind: "unary" or "binary" (the functional face is one apply over its inputs) or "custom" (`impl` is).
        functional: the `kiln.ops` names; each unary/binary name gets its own function, named for it.
        impl: the functional face of a "custom" row (its argument adapter over the primitive).
        classes: {Primitive class name: functional name it calls}; `cls_base` when it has constructor attributes.
        methods: {Tensor method name: functional name} (the method is that function) or adapters in `method_impl`.
        operators: {Tensor operator name: functional name}; a name starting with "__r" swaps the operands.
        mint: {mint name: functional name}, or adapters in `mint_impl`.
        numpy: `kiln.numpy` names built by kiln.numpy's own wrapper for the row's kind (scalars, lists, dtype=).
    """

    prim: str
    kind: str
    functional: tuple[str, ...] = ()
    impl: Callable | None = None
    classes: dict = field(default_factory=dict)
    cls_base: type | None = None
    methods: dict = field(default_factory=dict)
    method_impl: dict = field(default_factory=dict)
    operators: dict = field(default_factory=dict)
    mint: dict = field(default_factory=dict)
    mint_impl: dict = field(default_factory=dict)
    numpy: tuple[str, ...] = ()


# ---- hand-written faces: adapters whose signatures differ from the functional face ---------------------------------
def _add_method(self, other, *, alpha=1) -> Tensor:
    """`self + alpha * other` (a list or tuple `other` becomes a Tensor of self's dtype)."""
    other = Tensor(other, dtype=self.dtype) if isinstance(other, (list, tuple)) else other
    return FUNCTIONAL["add"](self, other if alpha == 1 else FUNCTIONAL["mul"](other, alpha))


def _mint_add(input, other, *, alpha=1) -> Tensor:
    """input + alpha * other.

    Args:
        input, other (Tensor | number): operands (broadcast).
        alpha (number): multiplier of `other`. Default: 1.

    Returns:
        Tensor.
    """
    return FUNCTIONAL["add"](input, other if alpha == 1 else FUNCTIONAL["mul"](other, alpha))


_mint_add.__name__ = _mint_add.__qualname__ = "add"


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

# the adapters and operators of the rows above
_CUSTOM = {
    "Add": dict(
        operators={"__add__": "add", "__radd__": "add"},
        method_impl={"add": _add_method},
        mint_impl={"add": _mint_add},
        numpy=("add",),
    ),
}

ROWS: list[Row] = [
    Row(p, kind, names, classes=cls, methods=meths, mint=mints, **_CUSTOM.get(p, {}))
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


def _swapped(fn: Callable) -> Callable:
    def reflected(self, other):
        return fn(other, self)

    return reflected


FUNCTIONAL: dict[str, Callable] = {}
CLASSES: dict[str, type] = {}
METHODS: dict[str, Callable] = {}
MINT: dict[str, Callable] = {}
ROW_OF: dict[tuple[str, str], Row] = {}  # (face kind, name) -> row
for _row in ROWS:
    for _name in _row.functional:
        FUNCTIONAL[_name] = _build_functional(_row, _name)
        ROW_OF[("functional", _name)] = _row
    for _cls, _fn in _row.classes.items():
        CLASSES[_cls] = _build_class(_row, _cls, FUNCTIONAL[_fn])
        ROW_OF[("class", _cls)] = _row
    for _m, _fn in _row.methods.items():
        METHODS[_m] = FUNCTIONAL[_fn]
        ROW_OF[("method", _m)] = _row
    for _m, _impl in _row.method_impl.items():
        METHODS[_m] = _impl
        ROW_OF[("method", _m)] = _row
    for _m, _fn in _row.operators.items():
        METHODS[_m] = _swapped(FUNCTIONAL[_fn]) if _m.startswith("__r") else FUNCTIONAL[_fn]
        ROW_OF[("method", _m)] = _row
    for _m, _fn in _row.mint.items():
        MINT[_m] = FUNCTIONAL[_fn]
        ROW_OF[("mint", _m)] = _row
    for _m, _impl in _row.mint_impl.items():
        MINT[_m] = _impl
        ROW_OF[("mint", _m)] = _row
    for _m in _row.numpy:
        ROW_OF[("numpy", _m)] = _row


def functional(name: str) -> Callable:
    """The functional face `name` (as `kiln.ops` exposes it)."""
    return FUNCTIONAL[name]


def numpy_rows() -> list[Row]:
    """The rows with `kiln.numpy` faces."""
    return [row for row in ROWS if row.numpy]
