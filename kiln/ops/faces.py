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

import builtins
from collections.abc import Callable
from dataclasses import dataclass, field
from types import FunctionType, SimpleNamespace

from kiln._compiler.ir import graph as G
from kiln._core import dtype as mstype
from kiln._core.tensor import Parameter, Tensor
from kiln._core.unsupported import GLOBAL_STREAM, ignore_argument
from kiln._prims import array as prims_array
from kiln._prims.nn import conv as prims_conv
from kiln.ops._args import check_non_negative, check_positive, conv_attrs, ntuple, pad_mode_of, pad_pairs, split_padding
from kiln.ops._helpers import REGISTRY, apply, make_binary, make_unary, op_error, write_back
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
        kind: "unary" or "binary" (the functional face is one apply over its inputs), "custom" (`impl` is),
            "family" (the functional face is hand-written in its `kiln.ops` family module, over its primitives,
            and bound here by `bind_family_faces`; the row names its other faces), or "mint" (an op only mint has).
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


# The adapters below call other ops as `ops.<name>`: kiln.ops's public names, which `bind_family_faces` puts here once
# the family modules are loaded (they import this module, so it cannot import them).
ops = SimpleNamespace()


def _named(name: str) -> Callable:
    """Give an adapter its public name (`mint.sum`'s adapter is `_mint_sum` here, beside builtins it would shadow)."""

    def name_it(fn: Callable) -> Callable:
        fn.__name__ = fn.__qualname__ = name
        return fn

    return name_it


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


# ---- mint's faces: PyTorch's argument names, defaults and return forms over the functional ops ----------------


def _dims(dim):
    """None, an int, or a tuple/list of ints -> what Kiln's reductions take as `axis`."""
    if dim is None:
        return None
    if isinstance(dim, int):
        return dim
    dim = tuple(int(d) for d in dim)
    return dim if dim else None


def _norm_dim(dim: int, ndim: int) -> int:
    nd = builtins.max(ndim, 1)
    if not -nd <= dim < nd:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-nd}, {nd - 1}], but got {dim})")
    return dim % nd


def _cast(x, dtype):
    return x if dtype is None else ops.cast(x, dtype)


def _size(args, name: str) -> tuple[int, ...]:
    """`f(2, 3)`, `f((2, 3))`, `f([2, 3])` -> (2, 3)."""
    if len(args) == 1 and isinstance(args[0], (tuple, list)):
        args = tuple(args[0])
    if len(args) == 1 and isinstance(args[0], Tensor):
        return tuple(int(s) for s in args[0].tolist()) if args[0].ndim else (int(args[0].item()),)
    for a in args:
        if not isinstance(a, int) or isinstance(a, bool):
            raise TypeError(f"{name}(): 'size' must be ints or a tuple of ints, but got {type(a).__name__}.")
    return tuple(args)


def _inplace(target, value):
    """Write `value` into `target` (the in-place `x_` ops) and return `target`."""
    if isinstance(target, Parameter):
        ops.assign(target, value)
    elif G.is_symbolic(target._data) or G.is_symbolic(value._data):
        raise RuntimeError("an in-place mint op on a tensor that is not a Parameter is not supported in graph mode")
    else:
        write_back([target], [value])
    return target


def _int64(x):
    return x if x.dtype == mstype.int64 else ops.cast(x, mstype.int64)


def _int_accumulator(x, dtype):
    if dtype is None and (x.dtype == mstype.bool_ or x.dtype.is_integer):
        return mstype.int64
    return dtype


def _float_dtype(x):
    return x.dtype if x.dtype.is_floating else mstype.float32


def _extreme(op_all, op_dim, op_pair, input, dim, keepdim, name):
    if isinstance(dim, Tensor):
        return op_pair(input, dim)
    if dim is None:
        if keepdim:
            raise TypeError(f"{name}() with 'keepdim' needs 'dim'.")
        return op_all(input)
    values, indices = op_dim(input, dim, keepdim)
    return values, _int64(indices)


def _arg_extreme(find, input, dim, keepdim: bool) -> Tensor:
    """`find` (ops.argmax or ops.argmin) along `dim`, over the flattened input for None; as int64."""
    if dim is None:
        out = find(ops.reshape(input, (-1,)), 0)
        out = ops.reshape(out, (1,) * input.ndim) if keepdim else out
    else:
        out = find(input, dim, keepdim)
    return _int64(out)


def _default_float(dtype):
    return mstype.float32 if dtype is None else dtype


def _channel_shape(x, v):
    shape = [1] * x.ndim
    shape[1] = -1
    return ops.reshape(v, tuple(shape))


@_named("div")
def _mint_div(input, other, *, rounding_mode=None) -> Tensor:
    """input / other, rounded as `rounding_mode` says (None, 'floor' or 'trunc')."""
    return ops.div(input, other, rounding_mode=rounding_mode)


@_named("pow")
def _mint_pow(input, exponent) -> Tensor:  # noqa: A001
    """input ** exponent (either may be a number)."""
    return ops.pow(input, exponent)


@_named("clamp")
def _mint_clamp(input, min=None, max=None) -> Tensor:  # noqa: A002
    """Clip `input` into [min, max] (bounds are numbers or tensors; either may be None)."""
    return ops.clamp(input, min, max)


@_named("round")
def _mint_round(input, *, decimals: int = 0) -> Tensor:  # noqa: A001
    """Round half to even, at `decimals` decimal places.

    Args:
        input (Tensor): the input.
        decimals (int): number of decimal places. Default: 0.

    Returns:
        Tensor of the input's dtype.
    """
    if decimals == 0:
        return ops.round(input)
    scale = 10.0**decimals
    return ops.div(ops.round(ops.mul(input, scale)), scale)


@_named("addcdiv")
def _mint_addcdiv(input, tensor1, tensor2, *, value=1) -> Tensor:
    """input + value * tensor1 / tensor2."""
    return ops.add(input, ops.mul(ops.div(tensor1, tensor2), value))


@_named("addcmul")
def _mint_addcmul(input, tensor1, tensor2, *, value=1) -> Tensor:
    """input + value * tensor1 * tensor2."""
    return ops.add(input, ops.mul(ops.mul(tensor1, tensor2), value))


@_named("equal")
def _mint_equal(input, other) -> bool:
    """True when `input` and `other` have the same shape and the same values."""
    if tuple(input.shape) != tuple(other.shape):
        return False
    return bool(ops.all(ops.equal(input, other)))


@_named("sum")
def _mint_sum(input, dim=None, keepdim: bool = False, *, dtype=None) -> Tensor:  # noqa: A001
    """Sum over `dim` (None: every dimension); bool and integer inputs sum as int64.

    Args:
        input (Tensor): the input.
        dim (int | tuple[int] | None): dimensions to reduce.
        keepdim (bool): keep the reduced dimensions with size 1.
        dtype: the result's dtype.

    Returns:
        Tensor.
    """
    if dtype is None and (input.dtype == mstype.bool_ or input.dtype.is_integer):
        dtype = mstype.int64
    return ops.sum(_cast(input, dtype), _dims(dim), keepdim)


@_named("nansum")
def _mint_nansum(input, dim=None, keepdim: bool = False, *, dtype=None) -> Tensor:
    """Sum over `dim`, NaN counted as zero."""
    return ops.nansum(_cast(input, dtype), _dims(dim), keepdim)


@_named("mean")
def _mint_mean(input, dim=None, keepdim: bool = False, *, dtype=None) -> Tensor:
    """Mean over `dim` (None: every dimension)."""
    return ops.mean(_cast(input, dtype), _dims(dim), keepdim)


@_named("prod")
def _mint_prod(input, dim=None, keepdim: bool = False, *, dtype=None) -> Tensor:
    """Product over `dim` (None: every dimension); integer inputs multiply as int64."""
    if dtype is None and (input.dtype == mstype.bool_ or input.dtype.is_integer):
        dtype = mstype.int64
    return ops.prod(_cast(input, dtype), _dims(dim), keepdim)


@_named("all")
def _mint_all(input, dim=None, keepdim: bool = False) -> Tensor:  # noqa: A001
    """True where every element over `dim` is non-zero."""
    return ops.all(input, _dims(dim), keepdim)


@_named("any")
def _mint_any(input, dim=None, keepdim: bool = False) -> Tensor:  # noqa: A001
    """True where some element over `dim` is non-zero."""
    return ops.any(input, _dims(dim), keepdim)


@_named("amax")
def _mint_amax(input, dim=(), keepdim: bool = False) -> Tensor:
    """Maximum over `dim` (() or None: every dimension)."""
    return ops.amax(input, _dims(dim), keepdim)


@_named("amin")
def _mint_amin(input, dim=(), keepdim: bool = False) -> Tensor:
    """Minimum over `dim` (() or None: every dimension)."""
    return ops.amin(input, _dims(dim), keepdim)


@_named("max")
def _mint_max(input, dim=None, keepdim: bool = False):  # noqa: A001
    """`max(input)`: the largest element; `max(input, dim, keepdim=False)`: (values, indices) along `dim`;
    `max(input, other)`: elementwise maximum.

    Args:
        input (Tensor): the input.
        dim (int | Tensor | None): the dimension, or the other tensor.
        keepdim (bool): keep `dim` with size 1.

    Returns:
        Tensor, or a tuple (values, int64 indices).
    """
    return _extreme(ops.amax, lambda x, d, k: ops.max(x, d, k), ops.maximum, input, dim, keepdim, "max")


@_named("min")
def _mint_min(input, dim=None, keepdim: bool = False):  # noqa: A001
    """`min(input)`, `min(input, dim, keepdim=False)` -> (values, indices), or `min(input, other)`."""
    return _extreme(ops.amin, lambda x, d, k: ops.min(x, d, k), ops.minimum, input, dim, keepdim, "min")


@_named("argmax")
def _mint_argmax(input, dim=None, keepdim: bool = False) -> Tensor:
    """Index (int64) of the largest element along `dim` (None: of the flattened input)."""
    return _arg_extreme(ops.argmax, input, dim, keepdim)


@_named("argmin")
def _mint_argmin(input, dim=None, keepdim: bool = False) -> Tensor:
    """Index (int64) of the smallest element along `dim` (None: of the flattened input)."""
    return _arg_extreme(ops.argmin, input, dim, keepdim)


@_named("logsumexp")
def _mint_logsumexp(input, dim, keepdim: bool = False) -> Tensor:
    """log(_mint_sum(exp(input))) over `dim`, computed stably."""
    return ops.logsumexp(input, _dims(dim), keepdim)


@_named("median")
def _mint_median(input, dim=None, keepdim: bool = False):
    """`median(input)`: the lower median of all elements; with `dim`: (values, indices) along it."""
    if dim is None:
        values, _ = ops.median(ops.reshape(input, (-1,)), 0)
        return values
    values, indices = ops.median(input, dim, keepdim)
    return values, _int64(indices)


@_named("std")
def _mint_std(input, dim=None, *, correction: int = 1, keepdim: bool = False) -> Tensor:
    """Standard deviation over `dim`, with `correction` (Bessel's: 1) subtracted from the count."""
    return ops.std(input, _dims(dim), ddof=int(correction), keepdims=keepdim)


@_named("var")
def _mint_var(input, dim=None, *, correction: int = 1, keepdim: bool = False) -> Tensor:
    """Variance over `dim`, with `correction` subtracted from the count."""
    return ops.var(input, _dims(dim), ddof=int(correction), keepdims=keepdim)


@_named("std_mean")
def _mint_std_mean(input, dim=None, *, correction: int = 1, keepdim: bool = False):
    """(std, mean) over `dim`."""
    return ops.std_mean(input, _dims(dim), ddof=int(correction), keepdims=keepdim)


@_named("var_mean")
def _mint_var_mean(input, dim=None, *, correction: int = 1, keepdim: bool = False):
    """(var, mean) over `dim`."""
    return ops.var_mean(input, _dims(dim), ddof=int(correction), keepdims=keepdim)


@_named("count_nonzero")
def _mint_count_nonzero(input, dim=None) -> Tensor:
    """Number of non-zero elements over `dim` (None: all), as int64."""
    axis = () if dim is None else dim
    return ops.count_nonzero(input, axis, False, mstype.int64)


@_named("norm")
def _mint_norm(input, p="fro", dim=None, keepdim: bool = False, *, dtype=None) -> Tensor:
    """Vector or matrix norm: p a number (vector p-norm over `dim`, all elements when None), 'fro' or 'nuc'.

    Args:
        input (Tensor): the input.
        p (float | str): the order. Default: 'fro'.
        dim (int | tuple[int] | None): dimensions of the norm.
        keepdim (bool): keep the reduced dimensions.
        dtype: compute in this dtype.

    Returns:
        Tensor.
    """
    x = _cast(input, dtype)
    if p == "fro":
        if isinstance(dim, (tuple, list)) and len(dim) > 2:
            raise ValueError(f"norm(): 'fro' takes at most 2 dimensions, but got dim={dim}.")
        return ops.vector_norm(x, 2, _dims(dim), keepdim)
    if p == "nuc":
        return ops.matrix_norm(x, "nuc", (-2, -1) if dim is None else tuple(dim), keepdim)
    return ops.vector_norm(x, float(p), _dims(dim), keepdim)


@_named("cumsum")
def _mint_cumsum(input, dim: int, dtype=None) -> Tensor:
    """Cumulative sum along `dim` (integer and bool inputs sum as int64 unless `dtype`)."""
    return ops.cumsum(input, dim, _int_accumulator(input, dtype))


@_named("cumprod")
def _mint_cumprod(input, dim: int, dtype=None) -> Tensor:
    """Cumulative product along `dim` (integer and bool inputs multiply as int64 unless `dtype`)."""
    return ops.cumprod(input, dim, _int_accumulator(input, dtype))


@_named("cummax")
def _mint_cummax(input, dim: int):
    """(values, int64 indices) of the running maximum along `dim`."""
    values, indices = ops.cummax(input, dim)
    return values, _int64(indices)


@_named("cummin")
def _mint_cummin(input, dim: int):
    """(values, int64 indices) of the running minimum along `dim`."""
    values, indices = ops.cummin(input, dim)
    return values, _int64(indices)


@_named("sort")
def _mint_sort(input, *, dim: int = -1, descending: bool = False, stable: bool = False):
    """(sorted values, int64 indices) along `dim` (ties keep their order)."""
    values, indices = ops.sort(input, dim, descending)
    return values, _int64(indices)


@_named("argsort")
def _mint_argsort(input, dim: int = -1, descending: bool = False, stable: bool = False) -> Tensor:
    """Indices that sort `input` along `dim`."""
    return _int64(ops.argsort(input, dim, descending))


@_named("topk")
def _mint_topk(input, k: int, dim: int = -1, largest: bool = True, sorted: bool = True):  # noqa: A002
    """(values, indices) of the k largest (or smallest) elements along `dim`."""
    values, indices = ops.topk(input, k, dim, largest, sorted)
    return values, _int64(indices)


@_named("kthvalue")
def _mint_kthvalue(input, k: int, dim: int = -1, keepdim: bool = False):
    """(values, int64 indices) of the k-th smallest element along `dim` (k counts from 1).

    Args:
        input (Tensor): the input.
        k (int): which order statistic, 1 <= k <= size of `dim`.
        dim (int): the dimension. keepdim (bool): keep `dim` with size 1.

    Returns:
        tuple (values, indices).
    """
    d = _norm_dim(dim, input.ndim)
    n = input.shape[d] if input.ndim else 1
    if not 1 <= k <= n:
        raise ValueError(f"kthvalue(): 'k' must be in [1, {n}], but got {k}.")
    values, indices = ops.sort(input, d)
    values, indices = ops.narrow(values, d, k - 1, 1), ops.narrow(indices, d, k - 1, 1)
    if not keepdim:
        values, indices = ops.squeeze(values, d), ops.squeeze(indices, d)
    return values, ops.cast(indices, mstype.int64)


@_named("searchsorted")
def _mint_searchsorted(sorted_sequence, values, *, out_int32=False, right=False, side=None, sorter=None) -> Tensor:
    """Insertion indices of `values` into the last dimension of `sorted_sequence`."""
    return ops.searchsorted(sorted_sequence, values, out_int32=out_int32, right=right, side=side, sorter=sorter)


@_named("unique")
def _mint_unique(input, sorted: bool = True, return_inverse: bool = False, return_counts: bool = False, dim=None):  # noqa: A002
    """Sorted distinct elements of `input` (flattened), with optional inverse indices and counts.

    Args:
        input (Tensor): the input.
        sorted (bool): the result is sorted either way.
        return_inverse (bool): also return, per input element, the index of its value (input's shape).
        return_counts (bool): also return how often each value occurs.
        dim: not supported (None only).

    Returns:
        Tensor, or a tuple (values, [inverse], [counts]).
    """
    if dim is not None:
        raise NotImplementedError("mint.unique(dim=...) is not supported by Kiln yet.")
    flat = ops.reshape(input, (-1,))
    svals, perm = ops.sort(flat)
    values, inv_sorted, counts = ops.unique_consecutive(svals, True, True)
    out = [values]
    if return_inverse:
        inverse = ops.scatter(ops.zeros_like(inv_sorted), 0, perm, inv_sorted)
        out.append(ops.reshape(ops.cast(inverse, mstype.int64), input.shape))
    if return_counts:
        out.append(ops.cast(counts, mstype.int64))
    return out[0] if len(out) == 1 else tuple(out)


@_named("unique_consecutive")
def _mint_unique_consecutive(input, return_inverse: bool = False, return_counts: bool = False, dim=None):
    """Collapse runs of equal consecutive elements (flattened unless `dim`)."""
    return ops.unique_consecutive(input, return_inverse, return_counts, dim)


@_named("bincount")
def _mint_bincount(input, weights=None, minlength: int = 0) -> Tensor:
    """Count (int64) of each non-negative integer value; with `weights` their float sums."""
    out = ops.bincount(input, weights, minlength)
    return _int64(out) if weights is None else out


@_named("histc")
def _mint_histc(input, bins: int = 100, min=0, max=0) -> Tensor:  # noqa: A002
    """Histogram of `bins` equal bins over [min, max] (min == max: the data's range)."""
    return ops.histc(input, bins, float(min), float(max))


@_named("cat")
def _mint_cat(tensors, dim: int = 0) -> Tensor:
    """Join tensors along an existing dimension."""
    return ops.cat(tuple(tensors), dim)


@_named("stack")
def _mint_stack(tensors, dim: int = 0) -> Tensor:
    """Join tensors along a new dimension."""
    return ops.stack(tuple(tensors), dim)


@_named("hstack")
def _mint_hstack(tensors) -> Tensor:
    """Join along dimension 1 (dimension 0 for 1-D tensors)."""
    return ops.hstack(tuple(tensors))


@_named("dstack")
def _mint_dstack(tensors) -> Tensor:
    """Join along dimension 2 (after making the inputs at least 3-D)."""
    return ops.dstack(tuple(tensors))


@_named("chunk")
def _mint_chunk(input, chunks: int, dim: int = 0):
    """Split into `chunks` pieces along `dim` (the last may be smaller)."""
    return ops.chunk(input, chunks, dim)


@_named("split")
def _mint_split(tensor, split_size_or_sections, dim: int = 0):
    """Split into pieces of `split_size_or_sections` (an int, or a list of sizes) along `dim`."""
    return ops.split(tensor, split_size_or_sections, dim)


@_named("unbind")
def _mint_unbind(input, dim: int = 0):
    """The slices of `input` along `dim`, as a tuple."""
    return ops.unbind(input, dim)


@_named("reshape")
def _mint_reshape(input, shape) -> Tensor:
    """`input` with a new shape (one dimension may be -1)."""
    return ops.reshape(input, tuple(shape) if isinstance(shape, list) else shape)


@_named("ravel")
def _mint_ravel(input) -> Tensor:
    """The input as a 1-D tensor."""
    return ops.reshape(input, (-1,))


@_named("squeeze")
def _mint_squeeze(input, dim=None) -> Tensor:
    """Drop dimensions of size 1 (all, or those of `dim` that have size 1)."""
    if dim is None:
        return ops.squeeze(input)
    dims = (dim,) if isinstance(dim, int) else tuple(dim)
    keep = tuple(_norm_dim(d, input.ndim) for d in dims if input.ndim and input.shape[_norm_dim(d, input.ndim)] == 1)
    return ops.squeeze(input, keep) if keep else input


@_named("unsqueeze")
def _mint_unsqueeze(input, dim: int) -> Tensor:
    """Insert a dimension of size 1 at `dim`."""
    return ops.unsqueeze(input, dim)


@_named("permute")
def _mint_permute(input, dims) -> Tensor:
    """Reorder the dimensions."""
    return ops.permute(input, tuple(dims))


@_named("transpose")
def _mint_transpose(input, dim0: int, dim1: int) -> Tensor:
    """Swap two dimensions."""
    return ops.swapaxes(input, dim0, dim1)


@_named("swapaxes")
def _mint_swapaxes(input, axis0: int, axis1: int) -> Tensor:
    """Swap two dimensions."""
    return ops.swapaxes(input, axis0, axis1)


@_named("t")
def _mint_t(input) -> Tensor:
    """Transpose of a tensor of at most 2 dimensions."""
    return ops.t(input)


@_named("broadcast_to")
def _mint_broadcast_to(input, shape) -> Tensor:
    """`input` broadcast to `shape` (-1 keeps a dimension)."""
    return ops.broadcast_to(input, tuple(shape))


@_named("tile")
def _mint_tile(input, dims) -> Tensor:
    """Repeat `input` `dims` times along each dimension."""
    return ops.tile(input, tuple(dims))


@_named("flip")
def _mint_flip(input, dims) -> Tensor:
    """Reverse the order along `dims`."""
    return ops.flip(input, (dims,) if isinstance(dims, int) else tuple(dims))


@_named("roll")
def _mint_roll(input, shifts, dims=None) -> Tensor:
    """Rotate elements along `dims` by `shifts` (flattened when dims is None)."""
    return ops.roll(input, shifts, dims)


@_named("repeat_interleave")
def _mint_repeat_interleave(input, repeats, dim=None, *, output_size=None) -> Tensor:
    """Repeat each element `repeats` times (a number or one count per element) along `dim`."""
    return ops.repeat_interleave(input, repeats, dim)


@_named("narrow")
def _mint_narrow(input, dim: int, start: int, length: int) -> Tensor:
    """The slice start:start+length of `dim`."""
    return ops.narrow(input, dim, start, length)


@_named("select")
def _mint_select(input, dim: int, index: int) -> Tensor:
    """The slice at `index` of `dim`, with `dim` removed."""
    d = _norm_dim(dim, input.ndim)
    return ops.squeeze(ops.narrow(input, d, index % input.shape[d], 1), d)


@_named("index_select")
def _mint_index_select(input, dim: int, index) -> Tensor:
    """The slices of `dim` at the positions of the 1-D `index`."""
    return ops.index_select(input, dim, index)


@_named("index_add")
def _mint_index_add(input, dim: int, index, source, *, alpha=1) -> Tensor:
    """`input` with alpha * source's slices added at `index` along `dim`."""
    return ops.index_add(input, index, source if alpha == 1 else ops.mul(source, alpha), _norm_dim(dim, input.ndim))


@_named("scatter")
def _mint_scatter(input, dim: int, index, src) -> Tensor:
    """`input` with src's values (or the number `src`) written at `index` along `dim`."""
    if not isinstance(src, Tensor):
        src = ops.full(tuple(index.shape), src, dtype=input.dtype)
    return ops.scatter(input, dim, index, src)


@_named("scatter_add")
def _mint_scatter_add(input, dim: int, index, src) -> Tensor:
    """`input` with src's values added at `index` along `dim`."""
    return ops.scatter_add(input, dim, index, src)


@_named("masked_select")
def _mint_masked_select(input, mask) -> Tensor:
    """1-D tensor of the elements where `mask` is True."""
    return ops.masked_select(input, mask)


@_named("take")
def _mint_take(input, index) -> Tensor:
    """Elements of the flattened input at `index`."""
    return ops.take(input, index)


@_named("nonzero")
def _mint_nonzero(input, *, as_tuple: bool = False):
    """Indices of the non-zero elements: (n, ndim) int64, or a tuple of 1-D index tensors."""
    return ops.nonzero(input, as_tuple)


@_named("where")
def _mint_where(condition, input=None, other=None):
    """`where(condition, input, other)`: elementwise choice; `where(condition)`: _mint_nonzero(as_tuple=True)."""
    if input is None and other is None:
        return ops.nonzero(condition, True)
    return ops.where(condition, input, other)


@_named("tril")
def _mint_tril(input, diagonal: int = 0) -> Tensor:
    """Lower triangle (elements above `diagonal` zeroed)."""
    return ops.tril(input, diagonal)


@_named("triu")
def _mint_triu(input, diagonal: int = 0) -> Tensor:
    """Upper triangle (elements below `diagonal` zeroed)."""
    return ops.triu(input, diagonal)


@_named("diag")
def _mint_diag(input, diagonal: int = 0) -> Tensor:
    """1-D input: a square matrix with it on diagonal `diagonal`; 2-D input: diagonal `diagonal` of it."""
    if input.ndim == 2:
        return ops.diagonal(input, diagonal, 0, 1)
    if input.ndim != 1:
        raise ValueError(f"diag(): the input must be 1-D or 2-D, but got {input.ndim}-D.")
    return ops.diag_embed(input, diagonal)


@_named("diff")
def _mint_diff(input, n: int = 1, dim: int = -1, prepend=None, append=None) -> Tensor:
    """n-th forward difference along `dim`."""
    return ops.diff(input, n, dim, prepend, append)


@_named("meshgrid")
def _mint_meshgrid(*tensors, indexing=None):
    """Coordinate grids of 1-D tensors ('ij' indexing unless 'xy')."""
    if len(tensors) == 1 and isinstance(tensors[0], (tuple, list)):
        tensors = tuple(tensors[0])
    return ops.meshgrid(*tensors, indexing=indexing or "ij")


@_named("clone")
def _mint_clone(input) -> Tensor:
    """A copy of `input`."""
    return ops.copy(input)


@_named("item")
def _mint_item(input):
    """The value of a one-element tensor as a Python number."""
    return input.item()


@_named("zeros")
def _mint_zeros(size, *, dtype=None) -> Tensor:
    """Tensor of zeros (float32 unless `dtype`)."""
    return ops.zeros(_size((size,), "zeros"), _default_float(dtype))


@_named("ones")
def _mint_ones(size, *, dtype=None) -> Tensor:
    """Tensor of ones (float32 unless `dtype`)."""
    return ops.ones(_size((size,), "ones"), _default_float(dtype))


@_named("empty")
def _mint_empty(*size, dtype=None, device=None, pin_memory: bool = False) -> Tensor:
    """A tensor of `size` (Kiln fills it with zeros)."""
    return ops.zeros(_size(size, "empty"), _default_float(dtype))


@_named("empty_like")
def _mint_empty_like(input, *, dtype=None, device=None, pin_memory: bool = False) -> Tensor:
    """A tensor of `input`'s shape (Kiln fills it with zeros)."""
    return ops.zeros_like(input, dtype=dtype)


@_named("zeros_like")
def _mint_zeros_like(input, *, dtype=None) -> Tensor:
    """Zeros of `input`'s shape (and dtype unless `dtype`)."""
    return ops.zeros_like(input, dtype=dtype)


@_named("ones_like")
def _mint_ones_like(input, *, dtype=None) -> Tensor:
    """Ones of `input`'s shape (and dtype unless `dtype`)."""
    return ops.ones_like(input, dtype=dtype)


@_named("full")
def _mint_full(size, fill_value, *, dtype=None) -> Tensor:
    """Tensor of `size` filled with `fill_value`."""
    return ops.full(_size((size,), "full"), fill_value, dtype=dtype)


@_named("full_like")
def _mint_full_like(input, fill_value, *, dtype=None) -> Tensor:
    """Tensor of `input`'s shape filled with `fill_value`."""
    return ops.full_like(input, fill_value, dtype=dtype)


@_named("arange")
def _mint_arange(start=0, end=None, step=1, *, dtype=None) -> Tensor:
    """start, start + step, ... up to `end` (excluded); int64 for integer arguments, else float32."""
    return ops.arange(start, end, step, dtype=dtype)


@_named("linspace")
def _mint_linspace(start, end, steps: int, *, dtype=None) -> Tensor:
    """`steps` evenly spaced values from start to end (both included)."""
    out = ops.linspace(float(start), float(end), int(steps))
    return _cast(out, dtype)


@_named("eye")
def _mint_eye(n: int, m=None, dtype=None) -> Tensor:
    """Identity matrix n x m (float32 unless `dtype`)."""
    return ops.eye(n, m, _default_float(dtype))


@_named("rand")
def _mint_rand(*size, generator=None, dtype=None, device=None) -> Tensor:
    """Uniform [0, 1) samples of `size`."""
    ignore_argument("mint.rand", "generator", generator, reason=GLOBAL_STREAM)
    return ops.rand(*_size(size, "rand"), dtype=dtype)


@_named("randn")
def _mint_randn(*size, generator=None, dtype=None, device=None) -> Tensor:
    """Standard normal samples of `size`."""
    ignore_argument("mint.randn", "generator", generator, reason=GLOBAL_STREAM)
    return ops.randn(*_size(size, "randn"), dtype=dtype)


@_named("rand_like")
def _mint_rand_like(input, *, dtype=None, device=None) -> Tensor:
    """Uniform [0, 1) samples of `input`'s shape."""
    return ops.rand_like(input, dtype=dtype)


@_named("randn_like")
def _mint_randn_like(input, *, dtype=None, device=None) -> Tensor:
    """Standard normal samples of `input`'s shape."""
    return ops.randn_like(input, dtype=dtype)


@_named("randint")
def _mint_randint(*args, generator=None, dtype=None, device=None) -> Tensor:
    """`randint(high, size)` or `randint(low, high, size)`: integers in [low, high) (int64 unless `dtype`)."""
    ignore_argument("mint.randint", "generator", generator, reason=GLOBAL_STREAM)
    if len(args) == 2:
        low, (high, size) = 0, args
    elif len(args) == 3:
        low, high, size = args
    else:
        raise TypeError(f"randint() takes (high, size) or (low, high, size), but got {len(args)} arguments.")
    return ops.randint(int(low), int(high), _size((size,), "randint"), dtype=dtype or mstype.int64)


@_named("randint_like")
def _mint_randint_like(input, *args, dtype=None, device=None) -> Tensor:
    """`randint_like(input, high)` or `randint_like(input, low, high)`."""
    low, high = (0, args[0]) if len(args) == 1 else args
    out = ops.randint(int(low), int(high), tuple(input.shape), dtype=mstype.int64)
    return ops.cast(out, dtype or input.dtype)


@_named("randperm")
def _mint_randperm(n: int, *, generator=None, dtype=mstype.int64) -> Tensor:
    """A random permutation of 0..n-1."""
    ignore_argument("mint.randperm", "generator", generator, reason=GLOBAL_STREAM)
    return ops.cast(ops.argsort(ops.rand(int(n))), dtype)


@_named("normal")
def _mint_normal(mean=0.0, std=1.0, size=None, generator=None) -> Tensor:
    """Normal samples: mean and std are numbers (then `size` gives the shape) or tensors (broadcast)."""
    ignore_argument("mint.normal", "generator", generator, reason=GLOBAL_STREAM)
    if isinstance(mean, Tensor) or isinstance(std, Tensor):
        ref = ops.add(
            ops.zeros_like(mean) if isinstance(mean, Tensor) else mean,
            ops.zeros_like(std) if isinstance(std, Tensor) else std,
        )
        return ops.add(ops.mul(ops.randn_like(ref), std), mean)
    if size is None:
        raise TypeError("normal(): 'size' is needed when 'mean' and 'std' are numbers.")
    return ops.add(ops.mul(ops.randn(*_size((size,), "normal")), float(std)), float(mean))


@_named("bernoulli")
def _mint_bernoulli(input, *, generator=None) -> Tensor:
    """1 with probability input[i], else 0 (input's dtype)."""
    ignore_argument("mint.bernoulli", "generator", generator, reason=GLOBAL_STREAM)
    return ops.cast(ops.less(ops.rand_like(input, dtype=_float_dtype(input)), input), input.dtype)


@_named("multinomial")
def _mint_multinomial(input, num_samples: int, replacement: bool = False, *, generator=None) -> Tensor:
    """Indices (int64) drawn from the rows of `input` (non-negative weights)."""
    ignore_argument("mint.multinomial", "generator", generator, reason=GLOBAL_STREAM)
    return ops.cast(ops.multinomial(input, num_samples, replacement), mstype.int64)


@_named("cdist")
def _mint_cdist(x1, x2, p: float = 2.0, compute_mode: str = "use_mm_for_euclid_dist_if_necessary") -> Tensor:
    """p-norm distance between each row of x1 and each row of x2 (batched)."""
    return ops.cdist(x1, x2, float(p))


@_named("bmm")
def _mint_bmm(input, mat2) -> Tensor:
    """Batched matrix product of (b, n, m) and (b, m, p)."""
    return ops.bmm(input, mat2)


@_named("mv")
def _mint_mv(input, vec) -> Tensor:
    """Matrix-vector product."""
    return ops.mv(input, vec)


@_named("vdot")
def _mint_vdot(input, other) -> Tensor:
    """Dot product of two 1-D tensors, the first conjugated."""
    if input.ndim != 1 or other.ndim != 1:
        raise ValueError(f"vdot(): both inputs must be 1-D, but got {input.ndim}-D and {other.ndim}-D.")
    return ops.sum(ops.mul(ops.conj(input), other))


@_named("addr_")
def _mint_addr_(input, vec1, vec2, beta=1, alpha=1) -> Tensor:
    """beta * input + alpha * outer(vec1, vec2)."""
    return ops.addr(input, vec1, vec2, beta=beta, alpha=alpha)


@_named("cross")
def _mint_cross(input, other, dim=None) -> Tensor:
    """Cross product of 3-vectors along `dim` (the first dimension of size 3 when None)."""
    return ops.cross(input, other, dim)


@_named("einsum")
def _mint_einsum(equation: str, *operands) -> Tensor:
    """Einstein summation."""
    return ops.einsum(equation, *operands)


@_named("conv_tbc")
def _mint_conv_tbc(input, weight, bias, pad: int = 0) -> Tensor:
    """1-D convolution in (time, batch, channel) layout: input (T, B, Cin), weight (K, Cin, Cout).

    Args:
        input (Tensor): (T, B, Cin). weight (Tensor): (K, Cin, Cout). bias (Tensor): (Cout,).
        pad (int): zeros added at both ends of the time dimension.

    Returns:
        Tensor of shape (T + 2 * pad - K + 1, B, Cout).
    """
    x = ops.permute(input, (1, 2, 0))
    w = ops.permute(weight, (2, 1, 0))
    out = ops.conv1d(x, w, bias, 1, "pad" if pad else "valid", int(pad))
    return ops.permute(out, (2, 0, 1))


@_named("npu_gelu")
def _mint_npu_gelu(input, approximate: str = "none") -> Tensor:
    """GELU ('none': exact erf form; 'tanh': the tanh approximation)."""
    return ops.gelu(input, approximate)


@_named("batch_norm_stats")
def _mint_batch_norm_stats(input, eps: float):
    """(mean, 1 / sqrt(biased var + eps)) per channel (dimension 1), over every other dimension."""
    axes = tuple(i for i in range(input.ndim) if i != 1)
    mean_ = ops.mean(input, axes)
    var_ = ops.mean(ops.square(ops.sub(input, _channel_shape(input, mean_))), axes)
    return mean_, ops.rsqrt(ops.add(var_, eps))


@_named("batch_norm_elemt")
def _mint_batch_norm_elemt(input, weight=None, bias=None, mean=None, invstd=None, eps: float = 1e-5) -> Tensor:
    """(input - mean) * invstd * weight + bias per channel (dimension 1)."""
    out = ops.mul(ops.sub(input, _channel_shape(input, mean)), _channel_shape(input, invstd))
    if weight is not None:
        out = ops.mul(out, _channel_shape(input, weight))
    if bias is not None:
        out = ops.add(out, _channel_shape(input, bias))
    return out


@_named("batch_norm_gather_stats_with_counts")
def _mint_batch_norm_gather_stats_with_counts(
    input, mean, invstd, running_mean=None, running_var=None, momentum: float = 0.1, eps: float = 1e-5, counts=None
):
    """Combine per-group statistics (rows of `mean`, `invstd`, with `counts` samples each) into global ones.

    Running statistics (Parameters) are updated in place: running_mean by the global mean, running_var by
    the unbiased global variance, each with weight `momentum`.

    Returns:
        tuple (mean, invstd) per channel.
    """
    counts = ops.reshape(ops.cast(counts, mean.dtype), (-1, 1))
    total = ops.sum(counts)
    g_mean = ops.div(ops.sum(ops.mul(mean, counts), 0), total)
    var_i = ops.sub(ops.reciprocal(ops.square(invstd)), eps)
    g_var = ops.div(ops.sum(ops.mul(counts, ops.add(var_i, ops.square(ops.sub(mean, g_mean)))), 0), total)
    if running_mean is not None:
        _inplace(running_mean, ops.add(ops.mul(running_mean, 1 - momentum), ops.mul(g_mean, momentum)))
    if running_var is not None:
        unbiased = ops.mul(g_var, ops.div(total, ops.sub(total, 1)))
        _inplace(running_var, ops.add(ops.mul(running_var, 1 - momentum), ops.mul(unbiased, momentum)))
    return g_mean, ops.rsqrt(ops.add(g_var, eps))


# ---- Tensor-method adapters: MindSpore's (and NumPy's) method forms over the functional ops -------------------------
def _shape_args(shape):
    """`t.reshape(2, 3)` and `t.reshape((2, 3))` both name the shape (2, 3)."""
    return shape[0] if len(shape) == 1 and not isinstance(shape[0], int) else shape


def _cast_to(dtype) -> Callable:
    """`t.float()`, `t.half()`, ...: a cast to a fixed dtype."""

    def method(self):
        return ops.cast(self, dtype)

    return method


def _astype_to(dtype) -> Callable:
    """`t.byte()`, `t.short()`, `t.bfloat16()`: `t.astype(dtype)`."""

    def method(self):
        return self.astype(dtype)

    return method


def _inplace_method(fn: Callable) -> Callable:
    """A method `t.op_(...)`: `t` takes the value of `fn(t, ...)` (its dtype kept) and is returned."""

    def method(self, *args, **kwargs):
        out = fn(self, *args, **kwargs)
        return self.assign_value(out.astype(self.dtype) if out.dtype != self.dtype else out)

    return method


_CAST_METHODS = {
    "astype": lambda self, dtype, copy=True: ops.cast(self, dtype),
    "to": lambda self, dtype: ops.cast(self, dtype),
    "float": _cast_to(mstype.float32),
    "half": _cast_to(mstype.float16),
    "double": _cast_to(mstype.float64),
    "int": _cast_to(mstype.int32),
    "long": _cast_to(mstype.int64),
    "bool": _cast_to(mstype.bool_),
    "type_as": lambda self, other: self.astype(other.dtype),
    "byte": _astype_to(mstype.uint8),
    "short": _astype_to(mstype.int16),
    "bfloat16": _astype_to(mstype.bfloat16),
}


def _not_2d(name):
    raise ValueError(f"Tensor.{name} is defined for 2-D tensors only; use Tensor.mH for batches of matrices.")


def _round_method(self, decimals=0):
    """Tensor.round: `decimals` places (MindSpore's method takes them, the functional face does not)."""
    if decimals == 0:
        return ops.round(self)
    scale = 10.0**decimals
    return ops.div(ops.round(ops.mul(self, scale)), scale)


def _index_select_method(self, axis=None, index=None, *, dim=None):
    """Tensor.index_select: MindSpore's `axis` or PyTorch's `dim`."""
    return ops.index_select(self, dim if dim is not None else axis, index)


def _softmax_method(self, axis=-1):
    return ops.softmax(self, axis)


def _log_softmax_method(self, axis=-1):
    return ops.log_softmax(self, axis)


def _relu_method(self):
    return ops.relu(self)


def _sigmoid_method(self):
    return ops.sigmoid(self)


# {functional name: {Tensor method: adapter}}, read by that op's row: MindSpore's methods take the shape as
# varargs (`t.reshape(2, 3)`) or another Tensor's shape, PyTorch's spellings (`permute`, `expand`), or write in place
_METHOD_ADAPTERS = {
    "reshape": {"reshape": lambda self, *shape: ops.reshape(self, _shape_args(shape)),
                "view_as": lambda self, other: ops.reshape(self, other.shape),
                "reshape_as": lambda self, other: ops.reshape(self, other.shape),
                "ravel": lambda self: ops.reshape(self, (-1,))},
    "view": {"view": lambda self, *shape: ops.view(self, *shape)},
    "transpose": {
        "transpose": lambda self, *axes: ops.transpose(self, _shape_args(axes) or tuple(reversed(range(self.ndim)))),
        "permute": lambda self, *axes: ops.transpose(self, _shape_args(axes)),
        "T": property(lambda self: ops.transpose(self, tuple(reversed(range(self.ndim))))),
        "t": lambda self: self if self.ndim < 2 else ops.transpose(self, (1, 0)),
    },
    "swapaxes": {"mT": property(lambda self: ops.swapaxes(self, -1, -2)),
                 "swapdims": lambda self, dim0, dim1: ops.swapaxes(self, dim0, dim1)},
    "moveaxis": {"movedim": lambda self, source, destination: ops.moveaxis(self, source, destination)},
    "flatten": {"flatten": lambda self, order="C", *, start_dim=0, end_dim=-1: ops.flatten(
        self, order, start_dim=start_dim, end_dim=end_dim
    )},
    "broadcast_to": {
        "expand_as": lambda self, other: ops.broadcast_to(self, other.shape),
        "expand": lambda self, size: ops.broadcast_to(self, tuple(size) if not isinstance(size, int) else (size,)),
    },
    "tile": {"tile": lambda self, *reps: ops.tile(self, _shape_args(reps))},
    "repeat_interleave": {"repeat": lambda self, repeats, axis=None: ops.repeat_interleave(self, repeats, axis)},
    "split": {"split": lambda self, split_size_or_sections, axis=0: ops.split(self, split_size_or_sections, axis)},
    "select": {"where": lambda self, condition, y: ops.select(condition, self, y)},
    "clamp": {"clip": lambda self, xmin=None, xmax=None: ops.clamp(self, xmin, xmax),
              "clamp": lambda self, min=None, max=None: ops.clamp(self, min, max),
              "clamp_": _inplace_method(lambda self, min=None, max=None: ops.clamp(self, min, max))},
    "identity": {"copy": lambda self: ops.identity(self),  # a recorded op: gradients flow through the copy
                 "clone": lambda self: ops.identity(self)},
    "zeros": {"new_zeros": lambda self, size, dtype=None: ops.zeros(size, dtype or self.dtype),
              "new_empty": lambda self, size, dtype=None, device=None: ops.zeros(size, dtype or self.dtype)},
    "ones": {"new_ones": lambda self, size, dtype=None: ops.ones(size, dtype or self.dtype)},
    "full": {
        "new_full": lambda self, size, fill_value, dtype=None: ops.full(size, fill_value, dtype=dtype or self.dtype)
    },
    "full_like": {"fill": lambda self, value: ops.full_like(self, value)},
    "outer": {"ger": lambda self, vec2: ops.outer(self, vec2)},
    "index_add": {
        "index_add": lambda self, dim, index, source, *, alpha=1: ops.index_add(self, index, source * alpha, dim)
    },
    "qr": {"qr": lambda self, some=True: ops.qr(self, "reduced" if some else "complete")},
    "clip_by_value": {"clip_by_value": lambda self, clip_value_min=None, clip_value_max=None: ops.clip_by_value(
        self, clip_value_min, clip_value_max
    )},
    "masked_fill": {"masked_fill_": _inplace_method(lambda self, mask, value: ops.masked_fill(self, mask, value))},
    "addmm": {"addmm_": _inplace_method(
        lambda self, mat1, mat2, *, beta=1, alpha=1: ops.addmm(self, mat1, mat2, beta=beta, alpha=alpha)
    )},
    "div": {"div_": _inplace_method(
        lambda self, value, *, rounding_mode=None: ops.div(self, value, rounding_mode=rounding_mode)
    )},
    "sigmoid": {"sigmoid_": _inplace_method(lambda self: ops.sigmoid(self))},
    "add": {
        "add_": _inplace_method(lambda self, other, *, alpha=1: ops.add(self, other * alpha if alpha != 1 else other))
    },
    "sub": {
        "sub_": _inplace_method(lambda self, other, *, alpha=1: ops.sub(self, other * alpha if alpha != 1 else other))
    },
    "erfinv": {"erfinv_": _inplace_method(lambda self: ops.erfinv(self))},
    "exp": {"exp_": _inplace_method(lambda self: ops.exp(self))},
    "floor": {"floor_": _inplace_method(lambda self: ops.floor(self))},
    "log": {"log_": _inplace_method(lambda self: ops.log(self))},
    "sign": {"sign_": _inplace_method(lambda self: ops.sign(self))},
    "is_complex": {"is_complex": lambda self: self.dtype.is_complex},
    "is_floating_point": {"is_floating_point": lambda self: self.dtype.is_floating},
    "numel": {"numel": lambda self: self.size},
    "positive": {"positive": lambda self: self},
    "random_categorical": {
        "random_categorical": lambda self, num_sample, seed=0, dtype=mstype.int64: ops.RandomCategorical(dtype)(
            self, num_sample, seed
        )
    },
    "tensor_scatter_add": {
        "scatter_sub": lambda self, indices, updates: ops.tensor_scatter_add(self, indices, -updates)
    },
    "tensor_scatter_update": {
        "scatter_mul": lambda self, indices, updates: ops.tensor_scatter_update(
            self, indices, ops.gather_nd(self, indices) * updates
        ),
        "scatter_div": lambda self, indices, updates: ops.tensor_scatter_update(
            self, indices, ops.gather_nd(self, indices) / updates
        ),
    },
    "tensor_scatter_max": {
        "scatter_max": lambda self, indices, updates: ops.tensor_scatter_max(self, indices, updates)
    },
    "tensor_scatter_min": {
        "scatter_min": lambda self, indices, updates: ops.tensor_scatter_min(self, indices, updates)
    },
    "adjoint": {
        "H": property(lambda self: ops.adjoint(self) if self.ndim == 2 else _not_2d("H")),
        "mH": property(lambda self: ops.adjoint(self)),
    },
}  # fmt: skip


# ---- the table ------------------------------------------------------------------------------------------------------
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
    "Equal": dict(operators={"__eq__": "equal"}),
    "Erfinv": dict(method_impl=_METHOD_ADAPTERS["erfinv"], forwarded=("erfinv",)),
    "Exp": dict(method_impl=_METHOD_ADAPTERS["exp"], aliases={"tensor_exp": "exp"}, numpy=("exp",)),
    "Exp2": dict(numpy=("exp2",)),
    "Expm1": dict(aliases={"tensor_expm1": "expm1"}, numpy=("expm1",)),
    "Floor": dict(method_impl=_METHOD_ADAPTERS["floor"], numpy=("floor",)),
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
    "Log": dict(method_impl=_METHOD_ADAPTERS["log"], numpy=("log",)),
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
    "Tanh": dict(numpy=("tanh",)),
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
_ELEMENTWISE_ROWS = [
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

ROWS: list[Row] = _ELEMENTWISE_ROWS + [
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


def _family(
    name: str, *, classes=(), aliases=(), methods=(), forwarded=(), operators=None, mint=(), numpy=(), **adapters
) -> Row:
    """A row whose functional face `name` is hand-written in its kiln.ops family module (`bind_family_faces`);
    `classes` are its Primitive classes, hand-written in kiln.ops.operations (MindSpore checks their constructor
    attributes when they are built); `aliases`, `methods` and `mint` list names that are that same function."""
    return Row(
        None, "family", (name,), aliases=dict.fromkeys(aliases, name), classes=dict.fromkeys(classes, name),
        methods=dict.fromkeys(methods, name), forwarded=forwarded, operators=operators or {},
        mint=dict.fromkeys(mint, name), numpy=numpy, **adapters,
    )  # fmt: skip


# Ops whose functional face is written by hand in its family module (ops.math, ops.array, ops.linalg, ops.nn,
# ops.random, ...): the row names every other face of it. Then the ops only mint has ("mint" rows: their one face
# is an adapter over other ops).
ROWS += [
    _family("adaptive_avg_pool1d", mint=("adaptive_avg_pool1d",)),
    _family("adaptive_avg_pool2d", mint=("adaptive_avg_pool2d",)),
    _family("adaptive_avg_pool3d", mint=("adaptive_avg_pool3d",)),
    _family("adaptive_max_pool3d", mint=("adaptive_max_pool3d",)),
    _family("addbmm", forwarded=("addbmm",), mint=("addbmm",)),
    _family("addcdiv", classes=("Addcdiv",), mint_impl={"addcdiv": _mint_addcdiv}),
    _family("addcmul", classes=("Addcmul",), forwarded=("addcmul",), mint_impl={"addcmul": _mint_addcmul}),
    _family("addmm", method_impl=_METHOD_ADAPTERS["addmm"], forwarded=("addmm",), mint=("addmm",)),
    _family("addmv", forwarded=("addmv",), mint=("addmv",)),
    _family("addn", methods=("addn",)),
    _family("addr", forwarded=("addr",)),
    _family("adjoint", method_impl=_METHOD_ADAPTERS["adjoint"], forwarded=("adjoint",)),
    _family("all", method_impl={"all": _bool_reduction_method("all")}, mint_impl={"all": _mint_all}),
    _family("allclose", methods=("allclose",), mint=("allclose",)),
    _family("amax", methods=("amax",), mint_impl={"amax": _mint_amax}),
    _family("amin", methods=("amin",), mint_impl={"amin": _mint_amin}),
    _family("aminmax", forwarded=("aminmax",)),
    _family("angle", classes=("Angle",), forwarded=("angle",)),
    _family("any", method_impl={"any": _bool_reduction_method("any")}, mint_impl={"any": _mint_any}),
    _family("arange", mint_impl={"arange": _mint_arange}),
    _family("argmax", classes=("Argmax",), method_impl={"argmax": _argmax_method}, mint_impl={"argmax": _mint_argmax}),
    _family("argmin", classes=("Argmin",), method_impl={"argmin": _argmin_method}, mint_impl={"argmin": _mint_argmin}),
    _family("argsort", methods=("argsort",), mint_impl={"argsort": _mint_argsort}),
    _family("argwhere", forwarded=("argwhere",)),
    _family("baddbmm", forwarded=("baddbmm",), mint=("baddbmm",)),
    _family("bernoulli", classes=("Bernoulli",), forwarded=("bernoulli",), mint_impl={"bernoulli": _mint_bernoulli}),
    _family("bincount", classes=("Bincount",), forwarded=("bincount",), mint_impl={"bincount": _mint_bincount}),
    _family("bmm", aliases=("batch_matmul",), forwarded=("bmm",), mint_impl={"bmm": _mint_bmm}),
    _family(
        "broadcast_to",
        classes=("BroadcastTo",),
        method_impl=_METHOD_ADAPTERS["broadcast_to"],
        methods=("broadcast_to",),
        mint_impl={"broadcast_to": _mint_broadcast_to},
    ),
    _family("cdist", classes=("Cdist",), mint_impl={"cdist": _mint_cdist}),
    _family("celu", mint=("celu",)),
    _family("channel_shuffle", classes=("ChannelShuffle",), mint=("channel_shuffle",)),
    _family("cholesky", classes=("Cholesky",), forwarded=("cholesky",)),
    _family("cholesky_inverse", classes=("CholeskyInverse",), forwarded=("cholesky_inverse",)),
    _family("cholesky_solve", classes=("CholeskySolve",), forwarded=("cholesky_solve",)),
    _family("chunk", methods=("chunk",), mint_impl={"chunk": _mint_chunk}),
    _family(
        "clamp",
        method_impl=_METHOD_ADAPTERS["clamp"],
        aliases=("clip",),
        mint_impl={"clamp": _mint_clamp, "clip": _mint_clamp},
    ),
    _family("concat", classes=("Concat",), aliases=("cat",), mint_impl={"cat": _mint_cat, "concat": _mint_cat}),
    _family("conv_transpose1d", mint=("conv_transpose1d",)),
    _family("conv_transpose3d", mint=("conv_transpose3d",)),
    _family("copysign", forwarded=("copysign",)),
    _family("count_nonzero", mint_impl={"count_nonzero": _mint_count_nonzero}),
    _family("cov", forwarded=("cov",)),
    _family("cross", classes=("Cross",), forwarded=("cross",), mint_impl={"cross": _mint_cross}),
    _family("ctc_loss", classes=("CTCLoss",), mint=("ctc_loss",)),
    _family("cummax", classes=("Cummax",), forwarded=("cummax",), mint_impl={"cummax": _mint_cummax}),
    _family("cummin", classes=("Cummin",), forwarded=("cummin",), mint_impl={"cummin": _mint_cummin}),
    _family("cumprod", methods=("cumprod",), mint_impl={"cumprod": _mint_cumprod}),
    _family("cumsum", method_impl={"cumsum": _cumsum_method}, mint_impl={"cumsum": _mint_cumsum}),
    _family("deg2rad", forwarded=("deg2rad",)),
    _family("det", forwarded=("det",)),
    _family("diag", classes=("Diag",), forwarded=("diag",), mint_impl={"diag": _mint_diag}),
    _family("diagflat", forwarded=("diagflat",)),
    _family("diagonal", forwarded=("diagonal",)),
    _family("diagonal_scatter", forwarded=("diagonal_scatter",)),
    _family("diff", forwarded=("diff",), mint_impl={"diff": _mint_diff}),
    _family(
        "div",
        classes=("Div",),
        method_impl=_METHOD_ADAPTERS["div"],
        aliases=("divide", "tensor_div"),
        methods=("div",),
        forwarded=("divide",),
        operators=_swap_pair("truediv", "div"),
        mint_impl={"div": _mint_div, "divide": _mint_div},
    ),
    _family("dot", forwarded=("dot",), mint=("dot",)),
    _family("dropout1d", mint=("dropout1d",)),
    _family("dropout3d", mint=("dropout3d",)),
    _family("dsplit", forwarded=("dsplit",)),
    _family("dstack", mint_impl={"dstack": _mint_dstack}),
    _family("eigvals", forwarded=("eigvals",)),
    _family("einsum", classes=("Einsum",), mint_impl={"einsum": _mint_einsum}),
    _family(
        "expand_dims",
        classes=("ExpandDims",),
        aliases=("unsqueeze",),
        methods=("expand_dims", "unsqueeze"),
        mint_impl={"unsqueeze": _mint_unsqueeze},
    ),
    _family("eye", classes=("Eye",), mint_impl={"eye": _mint_eye}),
    _family("fills", forwarded=("fills",)),
    _family("flip", methods=("flip",), mint_impl={"flip": _mint_flip}),
    _family("fliplr", forwarded=("fliplr",)),
    _family("flipud", forwarded=("flipud",)),
    _family("float_power", aliases=("float_power_ext",), forwarded=("float_power",), mint=("float_power",)),
    _family("fmax", classes=("Fmax",), forwarded=("fmax",)),
    _family("fmin", forwarded=("fmin",)),
    _family("frac", forwarded=("frac",), mint=("frac",)),
    _family("full", method_impl=_METHOD_ADAPTERS["full"], mint_impl={"full": _mint_full}),
    _family("full_like", method_impl=_METHOD_ADAPTERS["full_like"], mint_impl={"full_like": _mint_full_like}),
    _family("gather_nd", classes=("GatherNd",), forwarded=("gather_nd",)),
    _family("gaussian_nll_loss", mint=("gaussian_nll_loss",)),
    _family("gcd", classes=("Gcd",), forwarded=("gcd",), mint=("gcd",)),
    _family("geqrf", classes=("Geqrf",), forwarded=("geqrf",)),
    _family("hardshrink", forwarded=("hardshrink",), mint=("hardshrink",)),
    _family("hardsigmoid", mint=("hardsigmoid",)),
    _family("hardswish", mint=("hardswish",)),
    _family("heaviside", classes=("Heaviside",), forwarded=("heaviside",)),
    _family("hinge_embedding_loss", mint=("hinge_embedding_loss",)),
    _family("histc", forwarded=("histc",), mint_impl={"histc": _mint_histc}),
    _family("hsplit", forwarded=("hsplit",)),
    _family("hstack", mint_impl={"hstack": _mint_hstack}),
    _family("i0", forwarded=("i0",)),
    _family("igamma", classes=("Igamma",), forwarded=("igamma",)),
    _family("igammac", classes=("Igammac",), forwarded=("igammac",)),
    _family(
        "index_add",
        classes=("IndexAdd",),
        method_impl=_METHOD_ADAPTERS["index_add"],
        mint_impl={"index_add": _mint_index_add},
    ),
    _family("index_fill", classes=("IndexFill",), forwarded=("index_fill",)),
    _family(
        "index_select",
        method_impl={"index_select": _index_select_method},
        mint_impl={"index_select": _mint_index_select},
    ),
    _family("inner", forwarded=("inner",)),
    _family("inplace_update", forwarded=("inplace_update",)),
    _family("inv", classes=("Inv",), forwarded=("inv",)),
    _family("inverse", forwarded=("inverse",), mint=("inverse",)),
    _family("invert", classes=("Invert",), forwarded=("invert",)),
    _family("isclose", methods=("isclose",), mint=("isclose",)),
    _family("isneginf", forwarded=("isneginf",), mint=("isneginf",)),
    _family("isposinf", forwarded=("isposinf",)),
    _family("isreal", forwarded=("isreal",)),
    _family("lcm", classes=("Lcm",), forwarded=("lcm",)),
    _family("ldexp", forwarded=("ldexp",)),
    _family("lerp", classes=("Lerp",), methods=("lerp",), mint=("lerp",)),
    _family("linspace", mint_impl={"linspace": _mint_linspace}),
    _family("log_matrix_determinant", classes=("LogMatrixDeterminant",), forwarded=("log_matrix_determinant",)),
    _family("logaddexp", forwarded=("logaddexp",), mint=("logaddexp",)),
    _family("logaddexp2", forwarded=("logaddexp2",), mint=("logaddexp2",)),
    _family("logcumsumexp", forwarded=("logcumsumexp",)),
    _family("logdet", forwarded=("logdet",)),
    _family("logit", classes=("Logit",), forwarded=("logit",)),
    _family("logsumexp", methods=("logsumexp",), mint_impl={"logsumexp": _mint_logsumexp}),
    _family("lp_pool1d", mint=("lp_pool1d",)),
    _family("lp_pool2d", mint=("lp_pool2d",)),
    _family("lstsq", classes=("Lstsq",), forwarded=("lstsq",)),
    _family("lu_solve", classes=("LuSolve",), forwarded=("lu_solve",)),
    _family("make_coo_tensor", aliases=("make_sparse_tensor",)),
    _family("margin_ranking_loss", mint=("margin_ranking_loss",)),
    _family(
        "masked_fill", classes=("MaskedFill",), method_impl=_METHOD_ADAPTERS["masked_fill"], methods=("masked_fill",)
    ),
    _family("masked_scatter", classes=("MaskedScatter",), forwarded=("masked_scatter",)),
    _family(
        "masked_select",
        classes=("MaskedSelect",),
        methods=("masked_select",),
        mint_impl={"masked_select": _mint_masked_select},
    ),
    _family("matmul", methods=("matmul",), operators=_swap_pair("matmul", "matmul"), mint=("matmul",)),
    _family("matrix_determinant", classes=("MatrixDeterminant",), forwarded=("matrix_determinant",)),
    _family("matrix_power", classes=("MatrixPower",), forwarded=("matrix_power",)),
    _family("max", method_impl={"max": _max_method}, mint_impl={"max": _mint_max}),
    _family("mean", method_impl={"mean": _mean_method}, mint_impl={"mean": _mint_mean}),
    _family("median", classes=("Median",), forwarded=("median",), mint_impl={"median": _mint_median}),
    _family("meshgrid", classes=("Meshgrid",), mint_impl={"meshgrid": _mint_meshgrid}),
    _family("min", method_impl={"min": _min_method}, mint_impl={"min": _mint_min}),
    _family("mish", classes=("Mish",), mint=("mish",)),
    _family("mm", forwarded=("mm",), mint=("mm",)),
    _family("moveaxis", method_impl=_METHOD_ADAPTERS["moveaxis"], methods=("moveaxis",)),
    _family("msort", forwarded=("msort",)),
    _family("multi_margin_loss", classes=("MultiMarginLoss",), mint=("multi_margin_loss",)),
    _family("multilabel_soft_margin_loss", mint=("multilabel_soft_margin_loss",)),
    _family(
        "multinomial",
        classes=("Multinomial",),
        forwarded=("multinomial",),
        mint_impl={"multinomial": _mint_multinomial},
    ),
    _family("mv", mint_impl={"mv": _mint_mv}),
    _family("mvlgamma", classes=("Mvlgamma",), forwarded=("mvlgamma",)),
    _family("nan_to_num", classes=("NanToNum",), forwarded=("nan_to_num",), mint=("nan_to_num",)),
    _family("nanmean", forwarded=("nanmean",)),
    _family("nanmedian", forwarded=("nanmedian",)),
    _family("nansum", mint_impl={"nansum": _mint_nansum}),
    _family("narrow", methods=("narrow",), mint_impl={"narrow": _mint_narrow}),
    _family("nextafter", forwarded=("nextafter",)),
    _family("nonzero", methods=("nonzero",), mint_impl={"nonzero": _mint_nonzero}),
    _family("norm", methods=("norm",), mint_impl={"norm": _mint_norm}),
    _family("normal", mint_impl={"normal": _mint_normal}),
    _family("ones", classes=("Ones",), method_impl=_METHOD_ADAPTERS["ones"], mint_impl={"ones": _mint_ones}),
    _family("ones_like", classes=("OnesLike",), mint_impl={"ones_like": _mint_ones_like}),
    _family("orgqr", classes=("Orgqr",), forwarded=("orgqr",)),
    _family("ormqr", classes=("Ormqr",), forwarded=("ormqr",)),
    _family("outer", method_impl=_METHOD_ADAPTERS["outer"], forwarded=("outer",), mint=("outer",)),
    _family("pdist", classes=("Pdist",), mint=("pdist",)),
    _family("permute", mint_impl={"permute": _mint_permute}),
    _family("pixel_unshuffle", mint=("pixel_unshuffle",)),
    _family("poisson_nll_loss", mint=("poisson_nll_loss",)),
    _family("polar", classes=("Polar",), mint=("polar",)),
    _family("prod", method_impl={"prod": _prod_method}, mint_impl={"prod": _mint_prod}),
    _family("rad2deg", forwarded=("rad2deg",)),
    _family("rand", mint_impl={"rand": _mint_rand}),
    _family("rand_like", mint_impl={"rand_like": _mint_rand_like}),
    _family("randint", mint_impl={"randint": _mint_randint}),
    _family("randint_like", mint_impl={"randint_like": _mint_randint_like}),
    _family("randn", mint_impl={"randn": _mint_randn}),
    _family("randn_like", mint_impl={"randn_like": _mint_randn_like}),
    _family("randperm", classes=("Randperm",), mint_impl={"randperm": _mint_randperm}),
    _family("ravel", mint_impl={"ravel": _mint_ravel}),
    _family("renorm", classes=("Renorm",), forwarded=("renorm",)),
    _family(
        "repeat_interleave",
        method_impl=_METHOD_ADAPTERS["repeat_interleave"],
        methods=("repeat_interleave",),
        mint_impl={"repeat_interleave": _mint_repeat_interleave},
    ),
    _family(
        "reshape", classes=("Reshape",), method_impl=_METHOD_ADAPTERS["reshape"], mint_impl={"reshape": _mint_reshape}
    ),
    _family("reverse", forwarded=("reverse",)),
    _family("reverse_sequence", classes=("ReverseSequence",), forwarded=("reverse_sequence",)),
    _family("roll", classes=("Roll",), methods=("roll",), mint_impl={"roll": _mint_roll}),
    _family("rot90", forwarded=("rot90",)),
    _family("scatter", methods=("scatter",), mint_impl={"scatter": _mint_scatter}),
    _family(
        "scatter_add", classes=("ScatterAdd",), methods=("scatter_add",), mint_impl={"scatter_add": _mint_scatter_add}
    ),
    _family("searchsorted", forwarded=("searchsorted",), mint_impl={"searchsorted": _mint_searchsorted}),
    _family("select", classes=("Select",), method_impl=_METHOD_ADAPTERS["select"], mint_impl={"select": _mint_select}),
    _family("select_scatter", forwarded=("select_scatter",)),
    _family("selu", mint=("selu",)),
    _family("sgn", forwarded=("sgn",)),
    _family("signbit", forwarded=("signbit",)),
    _family("sinc", classes=("Sinc",), forwarded=("sinc",), mint=("sinc",)),
    _family("slice_scatter", forwarded=("slice_scatter",)),
    _family("slogdet", forwarded=("slogdet",)),
    _family("soft_shrink", classes=("SoftShrink",), forwarded=("soft_shrink",)),
    _family("softplus", classes=("Softplus",), mint=("softplus",)),
    _family("softshrink", mint=("softshrink",)),
    _family("sort", classes=("Sort",), method_impl={"sort": _sort_method}, mint_impl={"sort": _mint_sort}),
    _family("split", classes=("Split",), method_impl=_METHOD_ADAPTERS["split"], mint_impl={"split": _mint_split}),
    _family("squeeze", classes=("Squeeze",), methods=("squeeze",), mint_impl={"squeeze": _mint_squeeze}),
    _family("stack", classes=("Stack",), mint_impl={"stack": _mint_stack}),
    _family("std", method_impl={"std": _std_method}, mint_impl={"std": _mint_std}),
    _family("std_mean", mint_impl={"std_mean": _mint_std_mean}),
    _family("sum", method_impl={"sum": _sum_method}, mint_impl={"sum": _mint_sum}),
    _family("svd", classes=("Svd",), forwarded=("svd",)),
    _family(
        "swapaxes",
        method_impl=_METHOD_ADAPTERS["swapaxes"],
        methods=("swapaxes",),
        mint_impl={"swapaxes": _mint_swapaxes},
    ),
    _family("t", mint_impl={"t": _mint_t}),
    _family("take", forwarded=("take",), mint_impl={"take": _mint_take}),
    _family("tanhshrink", mint=("tanhshrink",)),
    _family("tensor_split", forwarded=("tensor_split",)),
    _family("tile", classes=("Tile",), method_impl=_METHOD_ADAPTERS["tile"], mint_impl={"tile": _mint_tile}),
    _family("top_k", classes=("TopK",), forwarded=("top_k",)),
    _family("topk", methods=("topk",), mint_impl={"topk": _mint_topk}),
    _family("trace", classes=("Trace",), forwarded=("trace",), mint=("trace",)),
    _family(
        "transpose",
        classes=("Transpose",),
        method_impl=_METHOD_ADAPTERS["transpose"],
        mint_impl={"transpose": _mint_transpose},
    ),
    _family("tril", classes=("Tril",), methods=("tril",), mint_impl={"tril": _mint_tril}),
    _family("triplet_margin_loss", classes=("TripletMarginLoss",), mint=("triplet_margin_loss",)),
    _family("triu", classes=("Triu",), methods=("triu",), mint_impl={"triu": _mint_triu}),
    _family("unbind", methods=("unbind",), mint_impl={"unbind": _mint_unbind}),
    _family("unfold", forwarded=("unfold",)),
    _family("unique", classes=("Unique",), forwarded=("unique",), mint_impl={"unique": _mint_unique}),
    _family(
        "unique_consecutive",
        classes=("UniqueConsecutive",),
        forwarded=("unique_consecutive",),
        mint_impl={"unique_consecutive": _mint_unique_consecutive},
    ),
    _family("unsorted_segment_max", classes=("UnsortedSegmentMax",), forwarded=("unsorted_segment_max",)),
    _family("unsorted_segment_min", classes=("UnsortedSegmentMin",), forwarded=("unsorted_segment_min",)),
    _family("unsorted_segment_prod", classes=("UnsortedSegmentProd",), forwarded=("unsorted_segment_prod",)),
    _family("var", method_impl={"var": _var_method}, mint_impl={"var": _mint_var}),
    _family("var_mean", mint_impl={"var_mean": _mint_var_mean}),
    _family("vsplit", forwarded=("vsplit",)),
    _family("where", mint_impl={"where": _mint_where}),
    _family("zeros", classes=("Zeros",), method_impl=_METHOD_ADAPTERS["zeros"], mint_impl={"zeros": _mint_zeros}),
    _family("zeros_like", classes=("ZerosLike",), mint_impl={"zeros_like": _mint_zeros_like}),
    Row(None, "mint", mint_impl={"addr_": _mint_addr_}),
    Row(None, "mint", mint_impl={"batch_norm_elemt": _mint_batch_norm_elemt}),
    Row(None, "mint", mint_impl={"batch_norm_gather_stats_with_counts": _mint_batch_norm_gather_stats_with_counts}),
    Row(None, "mint", mint_impl={"batch_norm_stats": _mint_batch_norm_stats}),
    Row(None, "mint", mint_impl={"clone": _mint_clone}),
    Row(None, "mint", mint_impl={"conv_tbc": _mint_conv_tbc}),
    Row(None, "mint", mint_impl={"empty": _mint_empty}),
    Row(None, "mint", mint_impl={"empty_like": _mint_empty_like}),
    # torch.equal: one bool for the whole tensors, not the Equal op's elementwise result
    Row(None, "mint", mint_impl={"equal": _mint_equal}),
    Row(None, "mint", mint_impl={"item": _mint_item}),
    Row(None, "mint", mint_impl={"kthvalue": _mint_kthvalue}),
    Row(None, "mint", mint_impl={"npu_gelu": _mint_npu_gelu}),
    Row(None, "mint", mint_impl={"vdot": _mint_vdot}),
    _family("view", method_impl=_METHOD_ADAPTERS["view"]),
    _family("flatten", classes=("Flatten",), method_impl=_METHOD_ADAPTERS["flatten"]),
    _family("identity", classes=("Identity",), method_impl=_METHOD_ADAPTERS["identity"]),
    _family("qr", classes=("Qr",), method_impl=_METHOD_ADAPTERS["qr"]),
    _family("clip_by_value", method_impl=_METHOD_ADAPTERS["clip_by_value"]),
    _family("sigmoid", classes=("Sigmoid",), method_impl={"sigmoid": _sigmoid_method, **_METHOD_ADAPTERS["sigmoid"]}),
    _family("softmax", classes=("Softmax",), method_impl={"softmax": _softmax_method}),
    _family("log_softmax", classes=("LogSoftmax",), method_impl={"log_softmax": _log_softmax_method}),
    _family("relu", method_impl={"relu": _relu_method}),
    _family("cast", classes=("Cast",), method_impl=_CAST_METHODS),
    _family("affine_grid", classes=("AffineGrid",)),
    _family("assign", classes=("Assign",)),
    _family("assign_add", classes=("AssignAdd",)),
    _family("assign_sub", classes=("AssignSub",)),
    _family("bartlett_window", classes=("BartlettWindow",)),
    _family("batch_norm", classes=("BatchNorm",)),
    _family("batch_to_space_nd", classes=("BatchToSpaceND",)),
    _family("bessel_i0", classes=("BesselI0",)),
    _family("bessel_i0e", classes=("BesselI0e",)),
    _family("bessel_i1", classes=("BesselI1",)),
    _family("bessel_i1e", classes=("BesselI1e",)),
    _family("bessel_j0", classes=("BesselJ0",)),
    _family("bessel_j1", classes=("BesselJ1",)),
    _family("bessel_k0", classes=("BesselK0",)),
    _family("bessel_k0e", classes=("BesselK0e",)),
    _family("bessel_k1", classes=("BesselK1",)),
    _family("bessel_k1e", classes=("BesselK1e",)),
    _family("bessel_y0", classes=("BesselY0",)),
    _family("bessel_y1", classes=("BesselY1",)),
    _family("betainc", classes=("Betainc",)),
    _family("bias_add", classes=("BiasAdd",)),
    _family("binary_cross_entropy", classes=("BinaryCrossEntropy",)),
    _family("blackman_window", classes=("BlackmanWindow",)),
    _family("bounding_box_decode", classes=("BoundingBoxDecode",)),
    _family("bounding_box_encode", classes=("BoundingBoxEncode",)),
    _family("bucketize", classes=("Bucketize",)),
    _family("coalesce", classes=("Coalesce",)),
    _family("crop_and_resize", classes=("CropAndResize",)),
    _family("ctc_greedy_decoder", classes=("CTCGreedyDecoder",)),
    _family("dense", classes=("Dense",)),
    _family("dropout", classes=("Dropout",)),
    _family("eig", classes=("Eig",)),
    _family("elu", classes=("Elu",)),
    _family("expand", classes=("Expand",)),
    _family("fast_gelu", classes=("FastGelu",)),
    _family("fill", classes=("Fill",)),
    _family("gelu", classes=("Gelu",)),
    _family("ger", classes=("Ger",)),
    _family("glu", classes=("GLU",)),
    _family("hamming_window", classes=("HammingWindow",)),
    _family("inplace_add", classes=("InplaceAdd",)),
    _family("inplace_index_add", classes=("InplaceIndexAdd",)),
    _family("inplace_sub", classes=("InplaceSub",)),
    _family("iou", classes=("IOU",)),
    _family("layer_norm", classes=("LayerNorm",)),
    _family("log_uniform_candidate_sampler", classes=("LogUniformCandidateSampler",)),
    _family("lrn", classes=("LRN",)),
    _family("lu_unpack", classes=("LuUnpack",)),
    _family("matrix_exp", classes=("MatrixExp",)),
    _family("matrix_solve", classes=("MatrixSolve",)),
    _family("mirror_pad", classes=("MirrorPad",)),
    _family("move_to", classes=("MoveTo",)),
    _family("multilabel_margin_loss", classes=("MultilabelMarginLoss",)),
    _family("multinomial_with_replacement", classes=("MultinomialWithReplacement",)),
    _family("nll_loss", classes=("NLLLoss",)),
    _family("one_hot", classes=("OneHot",)),
    _family("pad", classes=("Pad",)),
    _family("polygamma", classes=("Polygamma",)),
    _family("population_count", classes=("PopulationCount",)),
    _family("random_categorical", method_impl=_METHOD_ADAPTERS["random_categorical"], classes=("RandomCategorical",)),
    _family("range", classes=("Range",)),
    _family("rank", classes=("Rank",)),
    _family("reduce_all", classes=("ReduceAll",)),
    _family("reduce_any", classes=("ReduceAny",)),
    _family("reduce_max", classes=("ReduceMax",)),
    _family("reduce_mean", classes=("ReduceMean",)),
    _family("reduce_min", classes=("ReduceMin",)),
    _family("reduce_prod", classes=("ReduceProd",)),
    _family("reduce_sum", classes=("ReduceSum",)),
    _family("scatter_nd", classes=("ScatterNd",)),
    _family("scatter_nd_add", classes=("ScatterNdAdd",)),
    _family("scatter_nd_update", classes=("ScatterNdUpdate",)),
    _family("scatter_update", classes=("ScatterUpdate",)),
    _family("shape", classes=("Shape",)),
    _family("size", classes=("Size",)),
    _family("slice", classes=("Slice",)),
    _family("smooth_l1_loss", classes=("SmoothL1Loss",)),
    _family("soft_margin_loss", classes=("SoftMarginLoss",)),
    _family("softsign", classes=("Softsign",)),
    _family("space_to_batch_nd", classes=("SpaceToBatchND",)),
    _family("standard_laplace", classes=("StandardLaplace",)),
    _family("standard_normal", classes=("StandardNormal",)),
    _family("stft", classes=("STFT",)),
    _family("stop_gradient", classes=("StopGradient",)),
    _family("strided_slice", classes=("StridedSlice",)),
    _family("tensor_scatter_add", method_impl=_METHOD_ADAPTERS["tensor_scatter_add"], classes=("TensorScatterAdd",)),
    _family("tensor_scatter_elements", classes=("TensorScatterElements",)),
    _family(
        "tensor_scatter_update", method_impl=_METHOD_ADAPTERS["tensor_scatter_update"], classes=("TensorScatterUpdate",)
    ),
    _family("tril_indices", classes=("TrilIndices",)),
    _family("triu_indices", classes=("TriuIndices",)),
    _family("truncate_mod", classes=("TruncateMod",)),
    _family("uniform_candidate_sampler", classes=("UniformCandidateSampler",)),
    _family("unravel_index", classes=("UnravelIndex",)),
    _family("unsorted_segment_sum", classes=("UnsortedSegmentSum",)),
    _family("unstack", classes=("Unstack",)),
    _family("zeta", classes=("Zeta",)),
    _family("is_complex", method_impl=_METHOD_ADAPTERS["is_complex"]),
    _family("is_floating_point", method_impl=_METHOD_ADAPTERS["is_floating_point"]),
    _family("numel", method_impl=_METHOD_ADAPTERS["numel"]),
    _family("positive", method_impl=_METHOD_ADAPTERS["positive"]),
    _family("tensor_scatter_max", method_impl=_METHOD_ADAPTERS["tensor_scatter_max"]),
    _family("tensor_scatter_min", method_impl=_METHOD_ADAPTERS["tensor_scatter_min"]),
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
        # a family row's Primitive class is written by hand in kiln.ops.operations; the table builds the others
        CLASSES[cls] = getattr(ops, cls) if row.kind == "family" else _build_class(row, cls, FUNCTIONAL[name])
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
            if isinstance(face, FunctionType) and face.__name__ in ("<lambda>", "method"):
                face.__name__ = face.__qualname__ = name  # an adapter made here is named for its face
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
    ops.__dict__.update(names)
    for row in ROWS:
        if row.kind == "family":
            if ("functional", row.functional[0]) in ROW_OF:
                raise ImportError(f"kiln.ops.faces: two rows for ops.{row.functional[0]} (or bound twice)")
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
