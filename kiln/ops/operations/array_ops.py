"""MindSpore's array Primitive classes (`ops.operations.array_ops`): creation, shape, gather/scatter, sorting."""

from __future__ import annotations

import numpy as np

from kiln._core import dtype as mstype
from kiln._core.tensor import Tensor
from kiln.ops import array, image, linalg, math, python_ops, state
from kiln.ops import sparse as _sparse
from kiln.ops._helpers import apply, op_error, prim
from kiln.ops.faces import CLASSES
from kiln.ops.nn import conv
from kiln.ops.operations._build import (
    as_int,
    as_ints,
    assign_if_parameter,
    attr_class,
    resize_call,
    scalar_value,
    simple_class,
)
from kiln.ops.primitive import Primitive, WithAttrs

__all__ = [
    "Select",
    "ZerosLike",
    "OnesLike",
    "Identity",
    "Shape",
    "Rank",
    "Size",
    "DType",
    "Reshape",
    "Transpose",
    "ExpandDims",
    "Tile",
    "GatherNd",
    "ScatterNd",
    "TensorScatterUpdate",
    "TensorScatterAdd",
    "TensorScatterSub",
    "TensorScatterMul",
    "TensorScatterDiv",
    "TensorScatterMax",
    "TensorScatterMin",
    "ScatterNdMul",
    "ScatterNdDiv",
    "ScatterNdMax",
    "ScatterNdMin",
    "Slice",
    "MaskedFill",
    "Cast",
    "Zeros",
    "Ones",
    "Fill",
    "Eye",
    "Concat",
    "Stack",
    "Unstack",
    "Squeeze",
    "Split",
    "Argmax",
    "Argmin",
    "ArgMaxWithValue",
    "ArgMinWithValue",
    "TopK",
    "Sort",
    "BroadcastTo",
    "Rint",
    "SparseGatherV2",
    "GatherV2",
    "Pack",
    "ReverseV2",
    "Bincount",
    "SearchSorted",
    "Unique",
    "Range",
    "ResizeNearestNeighbor",
    "TensorScatterElements",
    "MaskedSelect",
    "UniqueWithPad",
    "ConjugateTranspose",
    "DataFormatDimMap",
    "DataFormatVecPermute",
    "Eps",
    "ScatterAddWithAxis",
    "ParallelConcat",
    "CountNonZero",
    "Cummax",
    "Cummin",
    "DepthToSpace",
    "SpaceToDepth",
    "Diag",
    "DiagPart",
    "Expand",
    "HammingWindow",
    "IdentityN",
    "IndexFill",
    "InvertPermutation",
    "LogSpace",
    "Lstsq",
    "MaskedScatter",
    "Meshgrid",
    "Mvlgamma",
    "NonZero",
    "PopulationCount",
    "ReverseSequence",
    "ScalarCast",
    "ScalarToTensor",
    "ScalarToArray",
    "TupleToArray",
    "TensorToTuple",
    "TensorShape",
    "ScatterAdd",
    "ScatterSub",
    "ScatterMul",
    "ScatterDiv",
    "ScatterMax",
    "ScatterMin",
    "ScatterUpdate",
    "ScatterNdAdd",
    "ScatterNdUpdate",
    "ScatterNdSub",
    "SpaceToBatchND",
    "BatchToSpaceND",
    "BatchToSpace",
    "StridedSlice",
    "Tril",
    "Triu",
    "UniqueConsecutive",
    "Unpack",
    "UnravelIndex",
    "UnsortedSegmentSum",
    "UnsortedSegmentMax",
    "UnsortedSegmentMin",
    "UnsortedSegmentProd",
    "SegmentSum",
    "SegmentMean",
    "SegmentMax",
    "SegmentMin",
    "SegmentProd",
    "MatrixBandPart",
    "MatrixSetDiagV3",
    "UpperBound",
    "LowerBound",
    "SplitV",
    "SpaceToBatch",
    "ListDiff",
    "CheckNumerics",
    "EditDistance",
    "FillV2",
    "FillDiagonal",
    "Im2Col",
    "Col2Im",
    "AffineGrid",
    "EmbeddingLookup",
    "IndexPut",
    "TransposeView",
    "TransposeExtView",
    "ResizeNearestNeighborV2",
    "MatrixDiagV3",
    "MatrixDiagPartV3",
    "Coalesce",
    "LeftShift",
    "RightShift",
    "Gather",
    "GatherD",
]


def _rint(x):
    return math.round(x)


def _nearest_index(n_in: int, n_out: int, align_corners: bool) -> np.ndarray:
    if align_corners and n_out > 1:
        return np.floor(np.arange(n_out) * (n_in - 1) / (n_out - 1) + 0.5).astype(np.int64)
    return np.minimum(np.floor(np.arange(n_out) * n_in / n_out), n_in - 1).astype(np.int64)


def _keeping_var_dtype(name: str, call):
    """`call(self, var, indices, updates)` after refusing updates that would change the dtype of `var`."""

    def checked(self, var, indices, updates):
        state.check_no_conversion(name, var, updates)
        return call(self, var, indices, updates)

    return checked


def _scatter_rows(scatter):
    """The call of a Scatter* class: `scatter(var, indices as (n, 1), updates)` on the rows `indices` of `var`,
    written back where `var` is a Parameter."""
    return lambda s, var, idx, u: assign_if_parameter(var, scatter(var, array.expand_dims(idx, -1), u))


def _invert_permutation(x):
    if isinstance(x, Tensor):
        return array.invert_permutation(x)
    out = [0] * len(x)
    for i, v in enumerate(x):
        out[v] = i
    return tuple(out)


def _diag_part(x):
    k = x.ndim // 2
    n = int(np.prod(x.shape[:k]))
    flat = array.reshape(x, (n, n))
    return array.reshape(array.diagonal(flat), x.shape[:k])


def _hamming(s, n):
    n = as_int(n)
    if n == 1:
        return array.ones((1,), s.dtype)
    m = n if s.periodic else n - 1
    w = s.alpha - s.beta * np.cos(2 * np.pi * np.arange(n) / m)
    return Tensor(w.astype(np.float64), s.dtype)


def _unique_consecutive(s, x):
    out = array.unique_consecutive(x, True, True, s.dim)
    return out


def _fill_diagonal(s, x):
    rows, cols = x.shape[0], x.shape[1] if x.ndim > 1 else 1
    if x.ndim == 2:
        mask = np.zeros((rows, cols), bool)
        step = cols + 1
        flat = mask.reshape(-1)
        limit = flat.size if s.wrap else min(rows, cols) * cols
        flat[:limit:step] = True
        mask = flat.reshape(rows, cols)
    else:
        mask = np.zeros(x.shape, bool)
        n = min(x.shape)
        mask[tuple(np.arange(n) for _ in x.shape)] = True
    return array.select(Tensor(mask), array.full_like(x, s.fill_value), x)


def _im2col(s, x):
    cols = conv.im2col(x, s.ksizes, s.dilations, _im2col_pads(s.pads), s.strides)
    return array.reshape(cols, (x.shape[0], x.shape[1], -1, cols.shape[-1]))  # (N, C, kh * kw, L)


def _im2col_pads(pads):
    p = as_ints(pads)
    return p[0] if len(p) == 1 else (p[0], p[-1]) if len(p) == 4 else p


def _embedding_lookup(params, indices, offset):
    idx = indices - offset
    valid = math.logical_and(idx >= 0, idx < params.shape[0])
    rows = array.gather(params, array.select(valid, idx, array.zeros_like(idx)), 0)
    mask = array.reshape(valid, (*valid.shape, *(1,) * (params.ndim - 1)))
    return array.select(array.broadcast_to(mask, rows.shape), rows, array.zeros_like(rows))


Select = simple_class("Select", array.select)
ZerosLike = simple_class("ZerosLike", array.zeros_like)
OnesLike = simple_class("OnesLike", array.ones_like)
Identity = simple_class("Identity", math.identity)
Shape = simple_class("Shape", lambda x: array.shape(x))
Rank = simple_class("Rank", lambda x: array.rank(x))
Size = simple_class("Size", lambda x: x.size)
DType = simple_class("DType", lambda x: x.dtype)
Reshape = simple_class("Reshape", array.reshape)
Transpose = simple_class("Transpose", array.transpose)
ExpandDims = simple_class("ExpandDims", array.expand_dims)
Tile = simple_class("Tile", array.tile)
GatherNd = simple_class("GatherNd", array.gather_nd)
ScatterNd = simple_class("ScatterNd", array.scatter_nd)
TensorScatterUpdate = simple_class("TensorScatterUpdate", array.tensor_scatter_update)
TensorScatterAdd = simple_class("TensorScatterAdd", array.tensor_scatter_add)
TensorScatterSub = simple_class("TensorScatterSub", array.tensor_scatter_sub)
TensorScatterMul = simple_class("TensorScatterMul", array.tensor_scatter_mul)
TensorScatterDiv = simple_class("TensorScatterDiv", array.tensor_scatter_div)
TensorScatterMax = simple_class("TensorScatterMax", array.tensor_scatter_max)
TensorScatterMin = simple_class("TensorScatterMin", array.tensor_scatter_min)
Slice = simple_class("Slice", array.slice)
MaskedFill = simple_class("MaskedFill", array.masked_fill)
Cast = simple_class("Cast", math.cast)
Zeros = simple_class("Zeros", lambda shape, dtype=None: array.zeros(shape, dtype))
Ones = simple_class("Ones", lambda shape, dtype=None: array.ones(shape, dtype))
Fill = simple_class("Fill", array.fill)
Eye = simple_class("Eye", lambda n, m, t: array.eye(n, m, t))
Concat = attr_class("Concat", {"axis": 0}, lambda self, xs: array.concat(xs, self.axis))


def _stack(self, *tensors):
    """Stack's call: a tuple of tensors, or the tensors themselves as arguments (`Stack()(x, y)`, as MindSpore 2.10
    takes them)."""
    return array.stack(tensors[0] if len(tensors) == 1 else tensors, self.axis)


Stack = attr_class("Stack", {"axis": 0}, _stack)
Unstack = attr_class("Unstack", {"axis": 0, "num": None}, lambda self, x: array.unstack(x, self.axis))
Squeeze = attr_class("Squeeze", {"axis": ()}, lambda self, x: array.squeeze(x, self.axis if self.axis != () else None))
Split = attr_class(
    "Split",
    {"axis": 0, "output_num": 1},
    lambda self, x: array.split(x, x.shape[self.axis] // self.output_num, self.axis),
)


def _index_class(name: str) -> type:
    """MindSpore's Argmax/Argmin class: indices along `axis`, as `output_type` (int32 by default; int32 or int64)."""

    def call(self, x):
        if not isinstance(self.output_type, mstype.DType):
            raise TypeError(f"{name}: output_type must be a kiln dtype (int32 or int64), got {self.output_type!r}.")
        if self.output_type not in (mstype.int32, mstype.int64):
            raise ValueError(f"{name}: output_type must be int32 or int64, got {self.output_type}.")
        return apply(prim(name), (x,), (self.axis, False, self.output_type.np))

    return attr_class(name, {"axis": -1, "output_type": mstype.int32}, call)


Argmax = _index_class("Argmax")
Argmin = _index_class("Argmin")
ArgMaxWithValue = attr_class(
    "ArgMaxWithValue",
    {"axis": 0, "keep_dims": False},
    lambda self, x: apply(prim("ArgMaxWithValue"), (x,), (self.axis, self.keep_dims)),
)
ArgMinWithValue = attr_class(
    "ArgMinWithValue",
    {"axis": 0, "keep_dims": False},
    lambda self, x: apply(prim("ArgMinWithValue"), (x,), (self.axis, self.keep_dims)),
)
TopK = attr_class("TopK", {"sorted": True}, lambda self, x, k: math.topk(x, int(k), -1, True, self.sorted))
Sort = attr_class("Sort", {"axis": -1, "descending": False}, lambda self, x: math.sort(x, self.axis, self.descending))
BroadcastTo = attr_class("BroadcastTo", {"shape": ()}, lambda self, x: array.broadcast_to(x, self.shape))
Rint = simple_class("Rint", _rint)
SparseGatherV2 = simple_class("SparseGatherV2", lambda params, indices, axis: array.gather(params, indices, axis))
GatherV2 = simple_class("GatherV2", lambda params, indices, axis: array.gather(params, indices, axis))
Pack = attr_class("Pack", {"axis": 0}, _stack)
ReverseV2 = attr_class("ReverseV2", {"axis": ()}, lambda self, x: array.flip(x, tuple(self.axis)))
Bincount = attr_class("Bincount", {}, lambda self, x, size, weights: math.bincount(x, weights, int(size)))
SearchSorted = attr_class(
    "SearchSorted",
    {"dtype": None, "right": False},
    lambda self, seq, values, sorter=None: math.searchsorted(
        seq, values, out_int32=self.dtype is not None and "32" in str(self.dtype), right=self.right, sorter=sorter
    ),
)


class Unique(Primitive):
    """Distinct values in first-appearance order and, per element, the position of its value (`ops.unique`)."""

    def __init__(self) -> None:
        super().__init__("Unique")

    def __call__(self, x):
        return array.unique(x)


class Range(WithAttrs):
    """`Range(maxlen)(start, limit, delta)`: the 1-D sequence start, start + delta, ... (limit excluded)."""

    _defaults = {"maxlen": 1000000}

    def __call__(self, start, limit, delta):
        return array.range(start, limit, delta, self.maxlen)


class ResizeNearestNeighbor(WithAttrs):
    """Nearest-neighbour resize of (N, C, H, W) to `size` (MindSpore's CPU index rule)."""

    _defaults = {"size": None, "align_corners": False, "half_pixel_centers": False}

    def __call__(self, input_x):
        h, w = (int(s) for s in self.size)
        rows = _nearest_index(input_x.shape[-2], h, self.align_corners)
        cols = _nearest_index(input_x.shape[-1], w, self.align_corners)
        out = array.gather(input_x, Tensor(rows), input_x.ndim - 2)
        return array.gather(out, Tensor(cols), input_x.ndim - 1)


TensorScatterElements = attr_class(
    "TensorScatterElements",
    {"axis": 0, "reduction": "none"},
    lambda self, x, indices, updates: array.tensor_scatter_elements(x, indices, updates, self.axis, self.reduction),
)
MaskedSelect = simple_class("MaskedSelect", lambda input, mask: array.masked_select(input, mask))
UniqueWithPad = simple_class("UniqueWithPad", array.unique_with_pad)
ConjugateTranspose = simple_class(
    "ConjugateTranspose",
    lambda x, perm: math.conj(array.transpose(x, perm)),
    doc="Primitive ConjugateTranspose: `x` transposed by `perm` and conjugated (a real `x` only transposed).",
)
Eps = simple_class("Eps", math.eps, doc="Primitive Eps: a tensor like `x` filled with its dtype's machine epsilon.")
ParallelConcat = simple_class(
    "ParallelConcat",
    lambda values: array.concat(tuple(values), 0),
    doc="Primitive ParallelConcat: the tensors of `values`, each of leading dimension 1, joined along axis 0.",
)


def _data_format(op: str, name: str, value) -> str:
    if value not in ("NHWC", "NCHW"):
        raise op_error(op, f"'{name}' must be 'NHWC' or 'NCHW', but got {value!r}.")
    return value


def _format_positions(op: str, s) -> list[int]:
    """For each axis of `dst_format`, where that axis sits in `src_format`."""
    src, dst = _data_format(op, "src_format", s.src_format), _data_format(op, "dst_format", s.dst_format)
    return [src.index(axis) for axis in dst]


def _data_format_dim_map(s, x):
    # MindSpore 2.10 maps a dimension index d (in [-4, 4)) to the position in src_format of dst_format's axis d
    table = Tensor(np.asarray(_format_positions("DataFormatDimMap", s), np.int64))
    return math.cast(array.gather(table, math.floor_mod(x, 4), 0), x.dtype)


def _data_format_vec_permute(s, x):
    if tuple(x.shape) not in ((4,), (4, 2)):
        raise op_error("DataFormatVecPermute", f"'x' must have shape (4,) or (4, 2), but got {tuple(x.shape)}.")
    return array.gather(x, Tensor(np.asarray(_format_positions("DataFormatVecPermute", s), np.int64)), 0)


DataFormatDimMap = attr_class(
    "DataFormatDimMap",
    {"src_format": "NHWC", "dst_format": "NCHW"},
    _data_format_dim_map,
    doc="Primitive DataFormatDimMap(src_format, dst_format)(x): each dimension index of `x` (in [-4, 4)) as the "
    "position in src_format of dst_format's axis at that index.",
)
DataFormatVecPermute = attr_class(
    "DataFormatVecPermute",
    {"src_format": "NHWC", "dst_format": "NCHW"},
    _data_format_vec_permute,
    doc="Primitive DataFormatVecPermute(src_format, dst_format)(x): the rows of `x` ((4,) or (4, 2): one per axis "
    "of src_format) in dst_format's axis order.",
)
ScatterAddWithAxis = attr_class(
    "ScatterAddWithAxis",
    {"axis": 0},
    lambda s, input_x, indices, updates: array.tensor_scatter_elements(input_x, indices, updates, s.axis, "add"),
    doc="Primitive ScatterAddWithAxis(axis)(input_x, indices, updates): a copy of `input_x` with `updates` added along "
    "`axis` at per-element `indices` (repeated ones add each); a Parameter is left as it is, as MindSpore 2.10 does.",
)
CountNonZero = attr_class(
    "CountNonZero",
    {"dims": None},
    lambda s, x: math.count_nonzero(x, s.dims if s.dims is not None else (), dtype=mstype.int64),
)
Cummax = attr_class("Cummax", {"axis": 0}, lambda s, x: math.cummax(x, s.axis))
Cummin = attr_class("Cummin", {"axis": 0}, lambda s, x: math.cummin(x, s.axis))
DepthToSpace = attr_class("DepthToSpace", {"block_size": 2}, lambda s, x: array.depth_to_space(x, s.block_size))
SpaceToDepth = attr_class("SpaceToDepth", {"block_size": 2}, lambda s, x: array.space_to_depth(x, s.block_size))
Diag = attr_class("Diag", {}, lambda s, x: math.diag(x))
DiagPart = attr_class("DiagPart", {}, lambda s, x: _diag_part(x))
Expand = attr_class("Expand", {}, lambda s, x, shape: array.expand(x, shape))
HammingWindow = attr_class(
    "HammingWindow",
    {"periodic": True, "alpha": 0.54, "beta": 0.46, "dtype": mstype.float32},
    lambda s, n: _hamming(s, n),
)
IdentityN = attr_class("IdentityN", {}, lambda s, xs: tuple(xs))
IndexFill = attr_class("IndexFill", {}, lambda s, x, dim, idx, v: math.index_fill(x, dim, idx, v))
InvertPermutation = attr_class("InvertPermutation", {}, lambda s, x: _invert_permutation(x))
LogSpace = attr_class(
    "LogSpace",
    {"steps": 10, "base": 10, "dtype": mstype.float32},
    lambda s, start, end: math.logspace(scalar_value(start), scalar_value(end), s.steps, s.base, dtype=s.dtype),
)
Lstsq = attr_class("Lstsq", {"fast": True, "l2_regularizer": 0.0}, lambda s, a, b: linalg.lstsq(a, b))
MaskedScatter = attr_class("MaskedScatter", {}, lambda s, x, mask, src: math.masked_scatter(x, mask, src))
Meshgrid = attr_class("Meshgrid", {"indexing": "xy"}, lambda s, xs: array.meshgrid(*xs, indexing=s.indexing))
Mvlgamma = attr_class("Mvlgamma", {"p": 1}, lambda s, x: math.mvlgamma(x, s.p))
NonZero = attr_class("NonZero", {}, lambda s, x: array.nonzero(x))
PopulationCount = attr_class("PopulationCount", {}, lambda s, x: math.population_count(x))
ReverseSequence = attr_class(
    "ReverseSequence",
    {"seq_dim": 0, "batch_dim": 0},
    lambda s, x, lens: math.reverse_sequence(x, lens, s.seq_dim, s.batch_dim),
)
ScalarCast = attr_class(
    "ScalarCast",
    {},
    lambda s, x, t: python_ops.scalar_cast(x, t),
    doc="Primitive ScalarCast: a Python number as int64, float64 or bool_ (ops.scalar_cast; MindSpore 2.3 deprecated "
    "it and 2.10 still builds it: the zoo's ICNet, Auto-DeepLab, EfficientDet and Yolact++ do).",
)
ScalarToTensor = attr_class("ScalarToTensor", {}, lambda s, x, dtype=mstype.float32: Tensor(x, dtype))
ScalarToArray = attr_class("ScalarToArray", {}, lambda s, x: Tensor(x))
TupleToArray = attr_class("TupleToArray", {}, lambda s, x: python_ops.tuple_to_array(x))
TensorToTuple = attr_class("TensorToTuple", {}, lambda s, x: tuple(x.asnumpy().tolist()))
TensorShape = attr_class("TensorShape", {}, lambda s, x: Tensor(list(x.shape), mstype.int64))
ScatterAdd = attr_class("ScatterAdd", {"use_locking": False}, _scatter_rows(array.tensor_scatter_add))
ScatterSub = attr_class(
    "ScatterSub",
    {"use_locking": False},
    _scatter_rows(lambda var, idx, u: array.tensor_scatter_add(var, idx, math.neg(u))),
)
ScatterMul = attr_class("ScatterMul", {"use_locking": False}, lambda s, var, idx, u: array.scatter_mul(var, idx, u))
ScatterDiv = attr_class("ScatterDiv", {"use_locking": False}, lambda s, var, idx, u: array.scatter_div(var, idx, u))
ScatterMax = attr_class("ScatterMax", {"use_locking": False}, lambda s, var, idx, u: array.scatter_max(var, idx, u))
ScatterMin = attr_class("ScatterMin", {"use_locking": False}, lambda s, var, idx, u: array.scatter_min(var, idx, u))
ScatterUpdate = attr_class(
    "ScatterUpdate", {"use_locking": True}, lambda s, var, idx, u: array.scatter_update(var, idx, u)
)
ScatterNdAdd = attr_class(
    "ScatterNdAdd", {"use_locking": False}, lambda s, var, idx, u: array.scatter_nd_add(var, idx, u)
)
ScatterNdUpdate = attr_class(
    "ScatterNdUpdate", {"use_locking": True}, lambda s, var, idx, u: array.scatter_nd_update(var, idx, u)
)
# the in-place scatters of kiln.ops (a Parameter written, its new value returned)
ScatterNdSub = attr_class(
    "ScatterNdSub", {"use_locking": False}, lambda s, var, idx, u: array.scatter_nd_sub(var, idx, u)
)
ScatterNdMul = attr_class(
    "ScatterNdMul", {"use_locking": False}, lambda s, var, idx, u: array.scatter_nd_mul(var, idx, u)
)
ScatterNdDiv = attr_class(
    "ScatterNdDiv", {"use_locking": False}, lambda s, var, idx, u: array.scatter_nd_div(var, idx, u)
)
ScatterNdMax = attr_class(
    "ScatterNdMax", {"use_locking": False}, lambda s, var, idx, u: array.scatter_nd_max(var, idx, u)
)
ScatterNdMin = attr_class(
    "ScatterNdMin", {"use_locking": False}, lambda s, var, idx, u: array.scatter_nd_min(var, idx, u)
)
# MindSpore refuses updates whose dtype would promote the written variable's (float updates into an int Parameter
# were cast down silently: ScatterDiv of an int8 row by 2.0 gave 0); the variable keeps its dtype.
for _cls in (ScatterAdd, ScatterSub, ScatterMul, ScatterDiv, ScatterMax, ScatterMin, ScatterUpdate, ScatterNdAdd,
             ScatterNdUpdate, ScatterNdSub, ScatterNdMul, ScatterNdDiv, ScatterNdMax, ScatterNdMin):  # fmt: skip
    _cls.__call__ = _keeping_var_dtype(_cls.__name__, _cls.__call__)
SpaceToBatchND = attr_class(
    "SpaceToBatchND",
    {"block_shape": 1, "paddings": ()},
    lambda s, x: array.space_to_batch_nd(x, s.block_shape, s.paddings),
)
BatchToSpaceND = attr_class(
    "BatchToSpaceND", {"block_shape": 1, "crops": ()}, lambda s, x: array.batch_to_space_nd(x, s.block_shape, s.crops)
)
BatchToSpace = attr_class(
    "BatchToSpace", {"block_size": 1, "crops": ()}, lambda s, x: array.batch_to_space_nd(x, s.block_size, s.crops)
)
StridedSlice = attr_class(
    "StridedSlice",
    {"begin_mask": 0, "end_mask": 0, "ellipsis_mask": 0, "new_axis_mask": 0, "shrink_axis_mask": 0},
    lambda s, x, b, e, st: array.strided_slice(
        x, b, e, st, s.begin_mask, s.end_mask, s.ellipsis_mask, s.new_axis_mask, s.shrink_axis_mask
    ),
)
Tril = attr_class("Tril", {"diagonal": 0}, lambda s, x: array.tril(x, s.diagonal))
Triu = attr_class("Triu", {"diagonal": 0}, lambda s, x: array.triu(x, s.diagonal))
UniqueConsecutive = attr_class(
    "UniqueConsecutive",
    {"return_inverse": False, "return_counts": False, "dim": None},
    lambda s, x: _unique_consecutive(s, x),
)
Unpack = attr_class("Unpack", {"axis": 0}, lambda s, x: array.unstack(x, s.axis))
UnravelIndex = attr_class("UnravelIndex", {}, lambda s, idx, dims: math.unravel_index(idx, dims))
UnsortedSegmentSum = attr_class("UnsortedSegmentSum", {}, lambda s, x, ids, n: math.unsorted_segment_sum(x, ids, n))
UnsortedSegmentMax = attr_class("UnsortedSegmentMax", {}, lambda s, x, ids, n: math.unsorted_segment_max(x, ids, n))
UnsortedSegmentMin = attr_class("UnsortedSegmentMin", {}, lambda s, x, ids, n: math.unsorted_segment_min(x, ids, n))
UnsortedSegmentProd = attr_class("UnsortedSegmentProd", {}, lambda s, x, ids, n: math.unsorted_segment_prod(x, ids, n))


def _sorted_segments(op: str, x, segment_ids) -> int:
    """The number of segments (last id + 1) of sorted `segment_ids` over the leading axis of `x`, after checking them
    (1-D int32/int64, one per row of `x`, non-negative, ascending); the ids are read on the host."""
    if not isinstance(x, Tensor) or not isinstance(segment_ids, Tensor):
        raise op_error(op, f"input_x and segment_ids must be Tensors, got {type(x).__name__} and "
                       f"{type(segment_ids).__name__}.", TypeError)  # fmt: skip
    if segment_ids.dtype not in (mstype.int32, mstype.int64):
        raise op_error(op, f"segment_ids must be an int32 or int64 Tensor, got {segment_ids.dtype}.", TypeError)
    if segment_ids.ndim != 1:
        raise op_error(op, f"segment_ids must be 1-D, got shape {tuple(segment_ids.shape)}.")
    if x.ndim < 1 or x.shape[0] != segment_ids.shape[0]:
        raise op_error(op, f"segment_ids (shape {tuple(segment_ids.shape)}) needs one id per row of input_x "
                       f"(shape {tuple(x.shape)}).")  # fmt: skip
    if x.dtype == mstype.bool_ or (x.dtype.is_complex and op in ("SegmentMax", "SegmentMin")):
        raise op_error(op, f"input_x of dtype {x.dtype} has no {op[7:].lower()} here: give a numeric"
                       f"{'' if x.dtype == mstype.bool_ else ', real'} Tensor.", TypeError)  # fmt: skip
    ids = segment_ids.asnumpy()
    if ids.size == 0:
        raise op_error(op, "segment_ids is empty: there is no segment to reduce.")
    if ids.min() < 0:
        raise op_error(op, f"segment_ids must be non-negative, got {int(ids.min())}.")
    if np.any(np.diff(ids) < 0):
        raise op_error(op, f"segment_ids must be sorted in ascending order, got {ids.tolist()}.")
    return int(ids[-1]) + 1


def _segment_counts(segment_ids, n: int, like):
    """How many rows each of the `n` segments has, shaped to broadcast against a segment result `like`."""
    ones = array.ones((segment_ids.shape[0],), mstype.int32)
    counts = math.unsorted_segment_sum(ones, segment_ids, n)
    return array.reshape(counts, (n,) + (1,) * (like.ndim - 1))


def _segment_reduce(kind: str):
    """The call of Segment<kind>: the unsorted segment reduction over last id + 1 segments; an empty segment
    (an id skipped) is 0, and 1 for the product, as MindSpore gives them."""
    op = f"Segment{kind.capitalize()}"

    def call(self, input_x, segment_ids):
        n = _sorted_segments(op, input_x, segment_ids)
        if kind == "mean":
            total = math.unsorted_segment_sum(input_x, segment_ids, n)
            counts = math.maximum(_segment_counts(segment_ids, n, total), 1)
            if input_x.dtype.is_floating or input_x.dtype.is_complex:
                return math.div(total, math.cast(counts, input_x.dtype))
            return math.cast(math.div(total, math.cast(counts, total.dtype), rounding_mode="trunc"), input_x.dtype)
        out = getattr(math, f"unsorted_segment_{kind}")(input_x, segment_ids, n)
        if kind in ("max", "min"):  # an empty segment would hold the dtype's lowest/highest value
            filled = math.greater(_segment_counts(segment_ids, n, out), 0)
            out = array.select(array.broadcast_to(filled, out.shape), out, array.zeros_like(out))
        return out

    return call


_SEGMENT_DOC = (
    "Primitive {0}: `{0}()(input_x, segment_ids)` is the {1} of the rows of `input_x` that share a segment id.\n\n"
    "    Args:\n"
    "        input_x (Tensor): the data; its first axis has one row per id.\n"
    "        segment_ids (Tensor): 1-D int32/int64 ids, non-negative and sorted ascending.\n\n"
    "    Returns:\n"
    "        Tensor of shape (segment_ids[-1] + 1, *input_x.shape[1:]) and input_x's dtype; a segment no row has is "
    "{2}.\n"
)
SegmentSum = attr_class("SegmentSum", {}, _segment_reduce("sum"), _SEGMENT_DOC.format("SegmentSum", "sum", "0"))
SegmentMean = attr_class(
    "SegmentMean", {}, _segment_reduce("mean"),
    _SEGMENT_DOC.format("SegmentMean", "mean (integer means truncate toward zero)", "0"),
)  # fmt: skip
SegmentMax = attr_class("SegmentMax", {}, _segment_reduce("max"), _SEGMENT_DOC.format("SegmentMax", "maximum", "0"))
SegmentMin = attr_class("SegmentMin", {}, _segment_reduce("min"), _SEGMENT_DOC.format("SegmentMin", "minimum", "0"))
SegmentProd = attr_class("SegmentProd", {}, _segment_reduce("prod"), _SEGMENT_DOC.format("SegmentProd", "product", "1"))
MatrixBandPart = simple_class("MatrixBandPart", math.matrix_band_part)
MatrixSetDiagV3 = attr_class(
    "MatrixSetDiagV3",
    {"align": "RIGHT_LEFT"},
    lambda s, x, diagonal, k: array.matrix_set_diag(x, diagonal, k, s.align),
    doc="Primitive MatrixSetDiagV3: `MatrixSetDiagV3(align)(x, diagonal, k)` is `ops.matrix_set_diag`.",
)


def _bound(name: str, right: bool) -> type:
    """UpperBound / LowerBound: for each row of `values`, the positions in the same row of `sorted_x` (ascending)
    where each value would go: after its equals (upper) or before them (lower)."""

    def call(s, sorted_x, values):
        if not isinstance(sorted_x, Tensor) or not isinstance(values, Tensor):
            raise op_error(name, "sorted_x and values must be Tensors.", TypeError)
        if sorted_x.dtype != values.dtype:
            raise op_error(name, f"sorted_x ({sorted_x.dtype}) and values ({values.dtype}) need one dtype.", TypeError)
        if sorted_x.ndim != 2 or values.ndim != 2 or sorted_x.shape[0] != values.shape[0]:
            raise op_error(name, f"sorted_x and values must be 2-D with one row count, got shapes "
                           f"{tuple(sorted_x.shape)} and {tuple(values.shape)}.")  # fmt: skip
        out = math.searchsorted(sorted_x, values, right=right)
        return math.cast(out, s.out_type)

    doc = (
        f"Primitive {name}: `{name}(out_type=int32)(sorted_x, values)`: for each (row, value) of `values` (B, M), "
        f"the {'first position after' if right else 'first position of'} its equals in row `row` of `sorted_x` "
        "(B, N), ascending; a (B, M) Tensor of `out_type`."
    )
    cls = attr_class(name, {"out_type": mstype.int32}, call, doc)

    def __init__(self, out_type=mstype.int32) -> None:
        if out_type not in (mstype.int32, mstype.int64):
            raise op_error(name, f"out_type must be int32 or int64, got {out_type}.", TypeError)
        WithAttrs.__init__(self, out_type)

    cls.__init__ = __init__
    return cls


UpperBound = _bound("UpperBound", right=True)
LowerBound = _bound("LowerBound", right=False)


class SplitV(Primitive):
    """`SplitV(size_splits, split_dim, num_split)(input_x)`: `input_x` cut along `split_dim` into pieces of the
    sizes `size_splits` (one of them may be -1: what the others leave)."""

    def __init__(self, size_splits, split_dim: int, num_split: int) -> None:
        super().__init__("SplitV")
        self.add_prim_attr("size_splits", tuple(size_splits))
        self.add_prim_attr("split_dim", split_dim)
        self.add_prim_attr("num_split", num_split)

    def __call__(self, input_x):
        sizes, dim, num = list(self.size_splits), self.split_dim, self.num_split
        if not isinstance(input_x, Tensor):
            raise op_error("SplitV", f"input_x must be a Tensor, got {type(input_x).__name__}.", TypeError)
        if not -input_x.ndim <= dim < input_x.ndim:
            raise op_error("SplitV", f"split_dim {dim} is out of range for input_x of rank {input_x.ndim}.")
        if num != len(sizes):
            raise op_error("SplitV", f"num_split ({num}) must equal the number of size_splits ({len(sizes)}).")
        if sizes.count(-1) > 1 or any(v <= 0 and v != -1 for v in sizes):
            raise op_error("SplitV", f"size_splits must be positive, with at most one -1, got {sizes}.")
        length = input_x.shape[dim]
        if -1 in sizes:
            sizes[sizes.index(-1)] = length - (sum(sizes) + 1)
        if sum(sizes) != length or min(sizes) <= 0:
            raise op_error("SplitV", f"size_splits {list(self.size_splits)} must add up to input_x.shape[{dim}] = "
                           f"{length}.")  # fmt: skip
        return array.split(input_x, sizes, dim)


class SpaceToBatch(Primitive):
    """`SpaceToBatch(block_size, paddings)(input_x)`: NCHW `input_x`, its H and W zero-padded by `paddings`
    ((top, bottom), (left, right)), cut into block_size x block_size blocks moved into the batch (SpaceToBatchND
    with the block (block_size, block_size))."""

    def __init__(self, block_size: int, paddings) -> None:
        super().__init__("SpaceToBatch")
        if isinstance(block_size, bool) or not isinstance(block_size, int) or block_size < 2:
            raise op_error("SpaceToBatch", f"block_size must be an int >= 2, got {block_size!r}.")
        pads = np.asarray(paddings)
        if pads.shape != (2, 2) or pads.dtype.kind not in "iu" or (pads < 0).any():
            raise op_error("SpaceToBatch", f"paddings must be 2 x 2 non-negative ints, got {paddings!r}.")
        self.add_prim_attr("block_size", block_size)
        self.add_prim_attr("paddings", [[int(v) for v in row] for row in pads])

    def __call__(self, input_x):
        if not isinstance(input_x, Tensor) or input_x.ndim != 4:
            raise op_error("SpaceToBatch", f"input_x must be a 4-D (N, C, H, W) Tensor, got "
                           f"{tuple(getattr(input_x, 'shape', ()))}.")  # fmt: skip
        for axis, (before, after) in zip((2, 3), self.paddings):
            if (input_x.shape[axis] + before + after) % self.block_size:
                raise op_error("SpaceToBatch", f"input_x.shape[{axis}] = {input_x.shape[axis]} padded by "
                               f"({before}, {after}) is not a multiple of block_size {self.block_size}.")  # fmt: skip
        return array.space_to_batch_nd(input_x, (self.block_size,) * 2, self.paddings)


_LIST_DIFF_DTYPES = (
    mstype.float16, mstype.float32, mstype.float64, mstype.int8, mstype.int16, mstype.int32, mstype.int64,
    mstype.uint8, mstype.uint16,
)  # fmt: skip


class ListDiff(Primitive):
    """`ListDiff(out_idx=int32)(x, y)`: the values of the 1-D `x` that are not in `y`, in x's order (repeats kept),
    and their positions in `x` (as `out_idx`). Its output size depends on the values, so under GRAPH_MODE it runs
    as a host step."""

    def __init__(self, out_idx=mstype.int32) -> None:
        super().__init__("ListDiff")
        dt = mstype.to_dtype(out_idx)
        if dt not in (mstype.int32, mstype.int64):
            raise op_error("ListDiff", f"out_idx must be int32 or int64, got {dt}.", TypeError)
        self.add_prim_attr("out_idx", dt)

    def __call__(self, x, y):
        if not isinstance(x, Tensor) or not isinstance(y, Tensor):
            raise op_error("ListDiff", "x and y must be Tensors.", TypeError)
        if x.dtype not in _LIST_DIFF_DTYPES or y.dtype != x.dtype:
            raise op_error("ListDiff", f"x and y need one real, non-bool dtype, got {x.dtype} and {y.dtype}.",
                           TypeError)  # fmt: skip
        if x.ndim != 1 or y.ndim != 1:
            raise op_error("ListDiff", f"x and y must be 1-D, got shapes {tuple(x.shape)} and {tuple(y.shape)}.")
        kept = np.flatnonzero(~np.isin(x.asnumpy(), y.asnumpy()))
        # the values gathered from x (not a constant): a gradient reaches the kept entries
        return array.gather(x, Tensor(kept.astype(np.int64)), 0), Tensor(kept, self.out_idx)


class CheckNumerics(Primitive):
    """`CheckNumerics()(x)`: `x` itself (float16/32/64), after checking that it holds no NaN or infinity; a
    RuntimeError names which it found. It reads the values, so under GRAPH_MODE it runs as a host step."""

    def __init__(self) -> None:
        super().__init__("CheckNumerics")

    def __call__(self, x):
        if not isinstance(x, Tensor) or x.dtype not in (mstype.float16, mstype.float32, mstype.float64):
            raise op_error("CheckNumerics", f"x must be a float16, float32 or float64 Tensor, got "
                           f"{getattr(x, 'dtype', type(x).__name__)}.", TypeError)  # fmt: skip
        values = x.asnumpy()
        for found, what in ((np.isnan(values), "NaN"), (np.isinf(values), "infinite")):
            if found.any():
                raise op_error("CheckNumerics", f"x holds {int(found.sum())} {what} value(s), the first at index "
                               f"{tuple(int(i) for i in np.argwhere(found)[0])}.", RuntimeError)  # fmt: skip
        return math.identity(x)


def _levenshtein(a: list, b: list) -> int:
    """The fewest insertions, deletions and substitutions that turn `a` into `b`."""
    row = list(range(len(b) + 1))
    for i, u in enumerate(a, 1):
        prev, row[0] = row[0], i
        for j, v in enumerate(b, 1):
            prev, row[j] = row[j], min(row[j] + 1, row[j - 1] + 1, prev + (u != v))
    return row[-1]


class EditDistance(Primitive):
    """`EditDistance(normalize=True)(hypothesis_indices, hypothesis_values, hypothesis_shape, truth_indices,
    truth_values, truth_shape)`: the Levenshtein distance between the sequences of two sparse tensors (COO: int64
    indices (N, R), values (N,), int64 dense shape (R,)). The entries sharing their first R - 1 indices form one
    sequence, in the order they are given (the last index itself is not read). The result, float32 of shape
    max(hypothesis_shape, truth_shape)[:-1], holds each distance, divided by the truth's length if `normalize`
    (infinity where the truth is empty and the hypothesis is not; 0 where both are). Computed on the host: under
    GRAPH_MODE it is a host step, and it has no gradient."""

    def __init__(self, normalize: bool = True) -> None:
        super().__init__("EditDistance")
        if not isinstance(normalize, bool):
            raise op_error("EditDistance", f"normalize must be a bool, got {type(normalize).__name__}.", TypeError)
        self.add_prim_attr("normalize", normalize)

    def _sequences(self, which: str, indices, values, shape) -> tuple[dict, np.ndarray]:
        for name, t in (("indices", indices), ("values", values), ("shape", shape)):
            if not isinstance(t, Tensor):
                raise op_error("EditDistance", f"{which}_{name} must be a Tensor.", TypeError)
        for name, t in (("indices", indices), ("shape", shape)):
            if t.dtype != mstype.int64:
                raise op_error("EditDistance", f"{which}_{name} must be int64, got {t.dtype}.", TypeError)
        if values.dtype == mstype.bool_ or values.dtype.is_complex:
            raise op_error("EditDistance", f"{which}_values must be real numbers, got {values.dtype}.", TypeError)
        if indices.ndim != 2 or values.ndim != 1 or shape.ndim != 1:
            raise op_error("EditDistance", f"{which}_indices must be 2-D, {which}_values and {which}_shape 1-D, got "
                           f"shapes {tuple(indices.shape)}, {tuple(values.shape)}, {tuple(shape.shape)}.")  # fmt: skip
        if values.shape[0] != indices.shape[0] or indices.shape[1] != shape.shape[0]:
            raise op_error("EditDistance", f"{which}_indices {tuple(indices.shape)} must hold one row per value "
                           f"({values.shape[0]}) and one column per dimension of {which}_shape "
                           f"({shape.shape[0]}).")  # fmt: skip
        idx, vals, dims = indices.asnumpy(), values.asnumpy(), shape.asnumpy()
        if ((idx < 0) | (idx >= dims)).any():
            row = int(np.argwhere(((idx < 0) | (idx >= dims)).any(1))[0, 0])
            raise op_error("EditDistance", f"{which}_indices[{row}] = {idx[row].tolist()} lies outside "
                           f"{which}_shape {dims.tolist()}.")  # fmt: skip
        groups: dict = {}
        for key, v in zip(map(tuple, idx[:, :-1].tolist()), vals.tolist(), strict=True):
            groups.setdefault(key, []).append(v)
        return groups, dims

    def __call__(self, hypothesis_indices, hypothesis_values, hypothesis_shape, truth_indices, truth_values,
                 truth_shape):  # fmt: skip
        hyp, hyp_dims = self._sequences("hypothesis", hypothesis_indices, hypothesis_values, hypothesis_shape)
        truth, truth_dims = self._sequences("truth", truth_indices, truth_values, truth_shape)
        if hypothesis_values.dtype != truth_values.dtype:
            raise op_error("EditDistance", f"hypothesis_values ({hypothesis_values.dtype}) and truth_values "
                           f"({truth_values.dtype}) need one dtype.", TypeError)  # fmt: skip
        if hyp_dims.size != truth_dims.size:
            raise op_error("EditDistance", f"hypothesis_shape {hyp_dims.tolist()} and truth_shape "
                           f"{truth_dims.tolist()} need one length.")  # fmt: skip
        if hyp_dims.size < 2:
            raise op_error("EditDistance", "the sparse tensors need at least 2 dimensions (batch and sequence), got "
                           "1.", RuntimeError)  # fmt: skip
        out = np.zeros(np.maximum(hyp_dims, truth_dims)[:-1], np.float32)
        for key in set(hyp) | set(truth):
            h, t = hyp.get(key, []), truth.get(key, [])
            d = _levenshtein(h, t)
            out[key] = (d / len(t) if t else (np.inf if h else 0.0)) if self.normalize else d
        return Tensor(out)


FillV2 = attr_class("FillV2", {}, lambda s, shape, value: array.full(as_ints(shape), value, dtype=value.dtype))
FillDiagonal = attr_class("FillDiagonal", {"fill_value": 0.0, "wrap": False}, lambda s, x: _fill_diagonal(s, x))
Im2Col = attr_class("Im2Col", {"ksizes": 1, "strides": 1, "dilations": 1, "pads": 0}, lambda s, x: _im2col(s, x))
Col2Im = attr_class(
    "Col2Im",
    {"kernel_size": 1, "dilation": 1, "padding": 0, "stride": 1},
    lambda s, x, size: conv.fold(
        array.reshape(x, (x.shape[0], -1, x.shape[-1])) if x.ndim == 4 else x,
        size,
        s.kernel_size,
        s.dilation,
        s.padding,
        s.stride,
    ),
)
AffineGrid = attr_class(
    "AffineGrid",
    {"align_corners": False},
    lambda s, theta, size: image.affine_grid(theta, as_ints(size), s.align_corners),
)
EmbeddingLookup = attr_class(
    "EmbeddingLookup", {}, lambda s, params, indices, offset: _embedding_lookup(params, indices, offset)
)
IndexPut = attr_class(
    "IndexPut", {"accumulate": 0}, lambda s, x, values, indices: x.index_put(tuple(indices), values, bool(s.accumulate))
)
TransposeView = attr_class("TransposeView", {}, lambda s, x, perm: array.transpose(x, tuple(perm)))
TransposeExtView = attr_class("TransposeExtView", {}, lambda s, x, d0, d1: array.swapaxes(x, d0, d1))
ResizeNearestNeighborV2 = attr_class(
    "ResizeNearestNeighborV2", {"align_corners": False, "half_pixel_centers": False}, resize_call("nearest")
)
MatrixDiagV3 = attr_class(
    "MatrixDiagV3",
    {"align": "RIGHT_LEFT"},
    lambda s, x, k, rows, cols, pad: array.matrix_diag(x, k, rows, cols, pad, s.align),
)
MatrixDiagPartV3 = attr_class(
    "MatrixDiagPartV3", {"align": "RIGHT_LEFT"}, lambda s, x, k, pad: array.matrix_diag_part(x, k, pad, s.align)
)


class Coalesce(Primitive):
    """`Coalesce()(x_indices, x_values, x_shape)`: see `ops.coalesce`."""

    def __init__(self) -> None:
        super().__init__("Coalesce")

    def __call__(self, x_indices, x_values, x_shape):
        return _sparse.coalesce(x_indices, x_values, x_shape)


LeftShift = CLASSES["LeftShift"]
RightShift = CLASSES["RightShift"]
Gather = CLASSES["Gather"]
GatherD = CLASSES["GatherD"]
