"""Sparse tensors (`COOTensor`, `CSRTensor`, `RowTensor`) and MindSpore's sparse functions (`ops.coo_*`,
`ops.csr_*`, `ops.dense_to_sparse_*`...).

A sparse tensor is a record of ordinary Tensors (indices, values) and a static dense shape. Every operation is
written with Kiln's dense ops (gather, scatter, segment sums), so values carry gradients and the same code runs
in PyNative and in compiled graphs. Operations whose number of stored entries depends on the data (adding two
COO tensors, coalescing, converting a dense tensor) work out the new index set on the host, so they run
eagerly; the values still flow through differentiable ops.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from kiln._compiler.ir import graph as G
from kiln._core import dtype as mstype
from kiln._core.tensor import Tensor
from kiln.ops import array, math
from kiln.ops import nn as nn_ops
from kiln.ops._helpers import op_error

__all__ = [
    "COOTensor", "CSRTensor", "RowTensor", "SparseTensor", "coalesce", "coo2csr", "coo_add", "coo_concat",
    "coo_tensor_get_dense_shape", "coo_tensor_get_indices", "coo_tensor_get_values", "csr2coo", "csr_add",
    "csr_div", "csr_gather", "csr_mm", "csr_mul", "csr_mv", "csr_reduce_sum", "csr_softmax",
    "csr_tensor_get_dense_shape", "csr_tensor_get_indices", "csr_tensor_get_indptr", "csr_tensor_get_values",
    "csr_to_coo", "csr_to_dense", "dense_to_sparse_coo", "dense_to_sparse_csr", "make_coo_tensor",
    "make_csr_tensor", "make_row_tensor", "make_sparse_tensor", "row_tensor_add", "row_tensor_get_dense_shape",
    "row_tensor_get_indices", "row_tensor_get_values", "sparse_segment_mean",
]  # fmt: skip


def _tensor(value, name: str, op: str) -> Tensor:
    if isinstance(value, Tensor):
        return value
    if isinstance(value, (np.ndarray, list, tuple)):
        return Tensor(np.asarray(value))
    raise op_error(op, f"'{name}' must be a Tensor, but got {type(value).__name__}.", TypeError)


def _shape(shape, op: str) -> tuple[int, ...]:
    if isinstance(shape, Tensor):
        shape = shape.asnumpy().tolist()
    if not isinstance(shape, (tuple, list)) or not all(isinstance(s, (int, np.integer)) for s in shape):
        raise op_error(op, f"'shape' must be a tuple of ints, but got {shape!r}.", TypeError)
    if any(int(s) <= 0 for s in shape):
        raise op_error(op, f"'shape' must hold positive ints, but got {tuple(shape)}.")
    return tuple(int(s) for s in shape)


def _host(t: Tensor) -> np.ndarray:
    if G.is_symbolic(t._data):
        raise RuntimeError(
            "this sparse operation decides its number of stored entries from the data, so it runs in PyNative "
            "mode only; in a compiled graph use the dense form (to_dense) instead."
        )
    return t.asnumpy()


def _check_int(t: Tensor, name: str, op: str) -> None:
    if not t.dtype.is_integer:
        raise op_error(op, f"'{name}' must be an int16, int32 or int64 Tensor, but got {t.dtype}.", TypeError)


class _Sparse:
    """What the sparse classes share: values, dtype and the size properties."""

    values: Tensor
    shape: tuple

    @property
    def dtype(self):
        return self.values.dtype

    @property
    def size(self) -> int:
        """The number of stored values."""
        return int(self.values.size)

    @property
    def itemsize(self) -> int:
        return self.values.dtype.itemsize

    @property
    def ndim(self) -> int:
        return len(self.shape)


class COOTensor(_Sparse):
    """A sparse tensor in coordinate format: `indices` (N, ndim) int, `values` (N,), dense `shape`.

    Duplicate coordinates are allowed and add up in `to_dense()`; `coalesce()` merges them.
    """

    def __init__(self, indices=None, values=None, shape=None, coo_tensor=None) -> None:
        op = "COOTensor"
        if coo_tensor is not None:
            if not isinstance(coo_tensor, COOTensor):
                raise op_error(op, f"'coo_tensor' must be a COOTensor, but got {type(coo_tensor).__name__}.", TypeError)
            indices, values, shape = coo_tensor.indices, coo_tensor.values, coo_tensor.shape
        indices, values, shape = _tensor(indices, "indices", op), _tensor(values, "values", op), _shape(shape, op)
        _check_int(indices, "indices", op)
        if indices.ndim != 2:
            raise op_error(op, f"'indices' must be 2-D (N, ndim), but got shape {tuple(indices.shape)}.")
        if values.ndim != 1 or values.shape[0] != indices.shape[0]:
            raise op_error(op, f"'values' must be 1-D with {indices.shape[0]} entries (one per index row), "
                           f"but got shape {tuple(values.shape)}.")  # fmt: skip
        if indices.shape[1] != len(shape):  # MindSpore: TypeError when 'shape' has more dims, else ValueError
            kind = TypeError if indices.shape[1] < len(shape) else ValueError
            raise op_error(op, f"'indices' has {indices.shape[1]} columns but 'shape' {shape} has {len(shape)} dims.",
                           kind)  # fmt: skip
        self.indices, self.values, self.shape = indices, values, shape

    def __repr__(self) -> str:
        return f"COOTensor(shape={list(self.shape)}, dtype={self.dtype}, indices={self.indices}, values={self.values})"

    def to_tuple(self) -> tuple:
        return self.indices, self.values, self.shape

    def to_dense(self) -> Tensor:
        """The dense Tensor (values at duplicate coordinates add up)."""
        return array.scatter_nd(self.indices, self.values, self.shape)

    def astype(self, dtype) -> COOTensor:
        return COOTensor(self.indices, math.cast(self.values, dtype), self.shape)

    def abs(self) -> COOTensor:
        return COOTensor(self.indices, math.abs(self.values), self.shape)

    def coalesce(self) -> COOTensor:
        """The same tensor with sorted, unique coordinates (the values of duplicates summed)."""
        indices, values, _ = coalesce(array.transpose(self.indices, (1, 0)), self.values, self.shape)
        return COOTensor(array.transpose(indices, (1, 0)), values, self.shape)

    def to_csr(self) -> CSRTensor:
        """The CSR form of a 2-D COOTensor (entries ordered by row, then column)."""
        if self.ndim != 2:
            raise op_error("COOTensor.to_csr", f"only 2-D tensors have a CSR form, but the shape is {self.shape}.")
        idx = _host(self.indices)
        order = np.lexsort((idx[:, 1], idx[:, 0]))
        rows = idx[order, 0]
        indptr = np.searchsorted(rows, np.arange(self.shape[0] + 1), side="left").astype(idx.dtype)
        values = array.gather(self.values, Tensor(order.astype(np.int64)), 0)
        return CSRTensor(Tensor(indptr), Tensor(idx[order, 1].copy()), values, self.shape)

    def add(self, other: COOTensor, thresh) -> COOTensor:
        return coo_add(self, other, thresh)

    def __neg__(self) -> COOTensor:
        return COOTensor(self.indices, math.neg(self.values), self.shape)

    def __add__(self, other):
        if isinstance(other, COOTensor):
            return coo_add(self, other, 0)
        if isinstance(other, Tensor):
            return math.add(self.to_dense(), other)
        raise TypeError(f"COOTensor + {type(other).__name__}: the other operand must be a COOTensor or a Tensor.")

    def __sub__(self, other):
        if isinstance(other, COOTensor):
            return coo_add(self, -other, 0)
        if isinstance(other, Tensor):
            return math.sub(self.to_dense(), other)
        raise TypeError(f"COOTensor - {type(other).__name__}: the other operand must be a COOTensor or a Tensor.")

    def __radd__(self, other):
        return self.__add__(other)

    def __rsub__(self, other):
        if isinstance(other, Tensor):
            return math.sub(other, self.to_dense())
        raise TypeError(f"{type(other).__name__} - COOTensor: the other operand must be a Tensor.")

    def __rmul__(self, other) -> COOTensor:
        return self.__mul__(other)

    def _at_entries(self, dense) -> Tensor:
        """`dense` broadcast to the dense shape, read at the stored coordinates."""
        dense = dense if isinstance(dense, Tensor) else Tensor(np.asarray(dense, dtype=self.dtype.np))
        return array.gather_nd(array.broadcast_to(dense, self.shape), self.indices)

    def __mul__(self, other) -> COOTensor:
        return COOTensor(self.indices, math.mul(self.values, self._at_entries(other)), self.shape)

    def __truediv__(self, other) -> COOTensor:
        return COOTensor(self.indices, math.div(self.values, self._at_entries(other)), self.shape)

    __div__ = __truediv__


class SparseTensor(COOTensor):
    """MindSpore 1.x name of COOTensor (`SparseTensor(indices, values, shape)`)."""

    def __init__(self, indices, values, shape) -> None:
        super().__init__(indices, values, shape)


class CSRTensor(_Sparse):
    """A 2-D (or batched, ndim >= 2) sparse matrix in compressed-row format: `indptr` (rows + 1,), `indices`
    (N,) column numbers, `values` (N,), dense `shape`."""

    def __init__(self, indptr=None, indices=None, values=None, shape=None, csr_tensor=None) -> None:
        op = "CSRTensor"
        if csr_tensor is not None:
            if not isinstance(csr_tensor, CSRTensor):
                raise op_error(op, f"'csr_tensor' must be a CSRTensor, but got {type(csr_tensor).__name__}.", TypeError)
            indptr, indices, values, shape = csr_tensor.indptr, csr_tensor.indices, csr_tensor.values, csr_tensor.shape
        indptr, indices = _tensor(indptr, "indptr", op), _tensor(indices, "indices", op)
        values, shape = _tensor(values, "values", op), _shape(shape, op)
        _check_int(indptr, "indptr", op)
        _check_int(indices, "indices", op)
        if len(shape) < 2:
            raise op_error(op, f"'shape' must have at least 2 dims, but got {shape}.")
        if indptr.ndim != 1 or indptr.shape[0] != shape[0] + 1:
            raise op_error(op, f"'indptr' must be 1-D of length shape[0] + 1 = {shape[0] + 1}, "
                           f"but got shape {tuple(indptr.shape)}.")  # fmt: skip
        if indices.ndim != 1 or values.ndim < 1 or values.shape[0] != indices.shape[0]:
            raise op_error(op, f"'indices' {tuple(indices.shape)} and 'values' {tuple(values.shape)} must be 1-D "
                           "with one entry each per stored value.")  # fmt: skip
        self.indptr, self.indices, self.values, self.shape = indptr, indices, values, shape

    def __repr__(self) -> str:
        return (f"CSRTensor(shape={list(self.shape)}, dtype={self.dtype}, indptr={self.indptr}, "
                f"indices={self.indices}, values={self.values})")  # fmt: skip

    def to_tuple(self) -> tuple:
        return self.indptr, self.indices, self.values, self.shape

    def _rows(self) -> Tensor:
        """The row of each stored value (a static-shape computation from indptr)."""
        positions = Tensor(np.arange(self.indices.shape[0]).astype(np.dtype(self.indptr.dtype.np)))
        found = math.searchsorted(self.indptr, positions, right=True)
        return math.sub(math.cast(found, self.indices.dtype), 1)

    def _coo_indices(self) -> Tensor:
        return array.stack([self._rows(), self.indices], 1)

    def to_coo(self) -> COOTensor:
        return COOTensor(self._coo_indices(), self.values, self.shape)

    def to_dense(self) -> Tensor:
        return array.scatter_nd(self._coo_indices(), self.values, self.shape)

    def astype(self, dtype) -> CSRTensor:
        return CSRTensor(self.indptr, self.indices, math.cast(self.values, dtype), self.shape)

    def abs(self) -> CSRTensor:
        return CSRTensor(self.indptr, self.indices, math.abs(self.values), self.shape)

    def mv(self, dense_vector) -> Tensor:
        """The product with a dense (columns, 1) matrix (or a (columns,) vector): a dense (rows, 1) result."""
        return csr_mv(self, dense_vector)

    def mm(self, matrix):
        """The product with a dense (columns, K) Tensor (dense result) or a CSRTensor (CSR result)."""
        if isinstance(matrix, CSRTensor):
            return csr_mm(self, matrix)
        return _csr_dense_mm(self, matrix)

    def sum(self, axis: int) -> Tensor:
        return csr_reduce_sum(self, axis)

    def add(self, b: CSRTensor, alpha, beta) -> CSRTensor:
        return csr_add(self, b, alpha, beta)

    def __neg__(self) -> CSRTensor:
        return CSRTensor(self.indptr, self.indices, math.neg(self.values), self.shape)

    def __mul__(self, other) -> CSRTensor:
        return _with_values(self, math.mul(self.values, _csr_at_entries(self, other)))

    def __truediv__(self, other) -> CSRTensor:
        return _with_values(self, math.div(self.values, _csr_at_entries(self, other)))

    __div__ = __truediv__

    def __rmul__(self, other) -> CSRTensor:
        return self.__mul__(other)

    def __add__(self, other) -> CSRTensor:
        if not isinstance(other, CSRTensor):
            raise TypeError(f"CSRTensor + {type(other).__name__}: the other operand must be a CSRTensor.")
        one = Tensor(np.ones((), self.dtype.np))
        return csr_add(self, other, one, one)

    def __sub__(self, other) -> CSRTensor:
        if not isinstance(other, CSRTensor):
            raise TypeError(f"CSRTensor - {type(other).__name__}: the other operand must be a CSRTensor.")
        one = Tensor(np.ones((), self.dtype.np))
        return csr_add(self, other, one, math.neg(one))


def _with_values(x: CSRTensor, values: Tensor) -> CSRTensor:
    return CSRTensor(x.indptr, x.indices, values, x.shape)


def _csr_at_entries(x: CSRTensor, dense) -> Tensor:
    dense = dense if isinstance(dense, Tensor) else Tensor(np.asarray(dense, dtype=x.dtype.np))
    if dense.ndim > len(x.shape):
        raise op_error("CSRTensor", f"a dense operand of shape {tuple(dense.shape)} cannot broadcast to {x.shape}.")
    return array.gather_nd(array.broadcast_to(dense, x.shape), x._coo_indices())


class RowTensor:
    """Row slices of a dense tensor: `values[i]` is row `indices[i]` of a tensor of shape `dense_shape`
    (the form MindSpore gives Embedding gradients)."""

    def __init__(self, indices=None, values=None, shape=None, row_tensor=None) -> None:
        op = "RowTensor"
        if row_tensor is not None:
            indices, values, shape = row_tensor.indices, row_tensor.values, row_tensor.dense_shape
        indices, values, shape = _tensor(indices, "indices", op), _tensor(values, "values", op), _shape(shape, op)
        _check_int(indices, "indices", op)
        if indices.ndim != 1 or values.ndim != len(shape) or values.shape[0] != indices.shape[0]:
            raise op_error(op, f"'values' {tuple(values.shape)} must hold one row of the dense shape {shape} per "
                           f"entry of 'indices' {tuple(indices.shape)}.")  # fmt: skip
        if tuple(values.shape[1:]) != shape[1:]:
            raise op_error(op, f"rows of 'values' {tuple(values.shape[1:])} must match the dense shape {shape[1:]}.")
        self.indices, self.values, self._shape = indices, values, shape

    @property
    def dense_shape(self) -> tuple:
        return self._shape

    shape = dense_shape  # MindSpore gives a RowTensor's dense shape under both names

    @property
    def dtype(self):
        return self.values.dtype

    def to_dense(self) -> Tensor:
        """The dense tensor (rows given twice add up)."""
        return array.scatter_nd(array.expand_dims(self.indices, 1), self.values, self._shape)

    def __repr__(self) -> str:
        return (f"RowTensor(shape={list(self._shape)}, dtype={self.dtype}, indices={self.indices}, "
                f"values={self.values})")  # fmt: skip


# -- constructors and accessors --------------------------------------------------------------------------------


def make_coo_tensor(indices, values, dense_shape) -> COOTensor:
    return COOTensor(indices, values, dense_shape)


make_sparse_tensor = make_coo_tensor


def make_csr_tensor(indptr, indices, values, dense_shape) -> CSRTensor:
    return CSRTensor(indptr, indices, values, dense_shape)


def make_row_tensor(indices, values, dense_shape) -> RowTensor:
    return RowTensor(indices, values, dense_shape)


def _accessor(kind: type, field: str, attr: str | None = None) -> Callable:
    """MindSpore's functional read-out of `field` of a sparse tensor of class `kind`, named as MindSpore names it
    (`coo_tensor_get_indices` for COOTensor's `indices`): the attribute `attr` (by default `field`)."""
    attr = attr or field

    def get(x):
        return getattr(x, attr)

    get.__name__ = get.__qualname__ = f"{kind.__name__.removesuffix('Tensor').lower()}_tensor_get_{field}"
    # the annotations a `def` shows under postponed evaluation
    get.__annotations__ = {"x": kind.__name__, "return": "tuple" if field == "dense_shape" else "Tensor"}
    get.__doc__ = f"The `{field}` of a {kind.__name__}."
    return get


coo_tensor_get_indices = _accessor(COOTensor, "indices")
coo_tensor_get_values = _accessor(COOTensor, "values")
coo_tensor_get_dense_shape = _accessor(COOTensor, "dense_shape", "shape")
csr_tensor_get_indptr = _accessor(CSRTensor, "indptr")
csr_tensor_get_indices = _accessor(CSRTensor, "indices")
csr_tensor_get_values = _accessor(CSRTensor, "values")
csr_tensor_get_dense_shape = _accessor(CSRTensor, "dense_shape", "shape")
row_tensor_get_indices = _accessor(RowTensor, "indices")
row_tensor_get_values = _accessor(RowTensor, "values")
row_tensor_get_dense_shape = _accessor(RowTensor, "dense_shape")


def row_tensor_add(x: RowTensor, y) -> RowTensor:
    """Add dense `y` (broadcast to the rows) to the stored rows of `x`."""
    return RowTensor(x.indices, math.add(x.values, y), x.dense_shape)


# -- conversions -----------------------------------------------------------------------------------------------


def dense_to_sparse_coo(tensor: Tensor) -> COOTensor:
    """The non-zero entries of a dense Tensor as a COOTensor (int64 indices, row-major order)."""
    host = _host(tensor)
    idx = np.argwhere(host != 0).astype(np.int64)
    values = array.gather_nd(tensor, Tensor(idx)) if idx.size else Tensor(np.zeros((0,), host.dtype))
    return COOTensor(Tensor(idx.reshape(-1, host.ndim)), values, tuple(host.shape))


def dense_to_sparse_csr(tensor: Tensor) -> CSRTensor:
    """The non-zero entries of a dense 2-D Tensor as a CSRTensor (int32 indptr and indices)."""
    if tensor.ndim != 2:
        raise op_error("dense_to_sparse_csr", f"'tensor' must be 2-D, but got shape {tuple(tensor.shape)}.")
    return dense_to_sparse_coo(tensor).astype(tensor.dtype).to_csr()._int32()


def _csr_int32(self: CSRTensor) -> CSRTensor:
    return CSRTensor(math.cast(self.indptr, mstype.int32), math.cast(self.indices, mstype.int32), self.values,
                     self.shape)  # fmt: skip


CSRTensor._int32 = _csr_int32


def csr_to_coo(tensor: CSRTensor) -> COOTensor:
    if not isinstance(tensor, CSRTensor):
        raise op_error("csr_to_coo", f"'tensor' must be a CSRTensor, but got {type(tensor).__name__}.", TypeError)
    return tensor.to_coo()


def csr_to_dense(csr_tensor: CSRTensor) -> Tensor:
    return csr_tensor.to_dense()


def csr2coo(indptr, nnz: int) -> Tensor:
    """The row of each of the `nnz` stored values, from a CSR `indptr`."""
    positions = Tensor(np.arange(int(nnz)).astype(np.dtype(indptr.dtype.np)))
    return math.sub(math.cast(math.searchsorted(indptr, positions, right=True), indptr.dtype), 1)


def coo2csr(row_indices, height: int) -> Tensor:
    """The CSR `indptr` (height + 1,) of sorted COO row numbers."""
    bounds = Tensor(np.arange(int(height) + 1).astype(np.dtype(row_indices.dtype.np)))
    return math.cast(math.searchsorted(row_indices, bounds), row_indices.dtype)


# -- COO arithmetic --------------------------------------------------------------------------------------------


def coalesce(x_indices, x_values, x_shape):
    """Sort the coordinates of a sparse tensor and sum the values of duplicates (MindSpore's `ops.coalesce`).

    Args:
        x_indices: (ndim, N) int64 coordinates (one column per value).
        x_values: (N,) values.
        x_shape: the dense shape (a 1-D int64 Tensor or a tuple).

    Returns:
        (y_indices (ndim, M), y_values (M,), y_shape) with sorted unique columns.
    """
    op = "Coalesce"
    shape = _shape(x_shape, op)
    idx = _host(x_indices)
    if idx.ndim != 2 or idx.shape[0] != len(shape):
        raise op_error(op, f"'x_indices' must be ({len(shape)}, N), but got shape {idx.shape}.")
    if x_values.ndim != 1 or x_values.shape[0] != idx.shape[1]:
        raise op_error(op, f"'x_values' must be 1-D with {idx.shape[1]} entries, but got {tuple(x_values.shape)}.")
    if idx.size and ((idx < 0).any() or (idx >= np.asarray(shape)[:, None]).any()):
        raise op_error(op, f"the coordinates in 'x_indices' must lie inside the shape {shape}.")
    unique, inverse = np.unique(idx.T, axis=0, return_inverse=True)
    values = math.unsorted_segment_sum(x_values, Tensor(inverse.reshape(-1).astype(np.int64)), unique.shape[0])
    out_shape = Tensor(np.asarray(shape, np.int64))
    return Tensor(unique.T.astype(idx.dtype).copy()), values, out_shape


def sparse_segment_mean(x, indices, segment_ids) -> Tensor:
    """The mean of the rows `x[indices[i]]` that share a segment id `segment_ids[i]` (MindSpore's
    `ops.sparse_segment_mean`).

    Args:
        x (Tensor): float16, float32 or float64 data of at least one axis; its rows are gathered.
        indices (Tensor): 1-D int32 or int64 rows of `x`.
        segment_ids (Tensor): 1-D sorted non-negative segment ids, of `indices`' size and dtype.

    Returns:
        Tensor of shape (segment_ids[-1] + 1, *x.shape[1:]) and `x`'s dtype; a segment no row belongs to is 0.
        The number of segments is read from the data, so in graph mode the ids are read on the host.
    """
    op = "SparseSegmentMean"
    x, indices = _tensor(x, "x", op), _tensor(indices, "indices", op)
    segment_ids = _tensor(segment_ids, "segment_ids", op)
    if x.dtype not in (mstype.float16, mstype.float32, mstype.float64):
        raise op_error(op, f"'x' must be a float16, float32 or float64 Tensor, but got {x.dtype}.", TypeError)
    for t, name in ((indices, "indices"), (segment_ids, "segment_ids")):
        if t.dtype not in (mstype.int32, mstype.int64):
            raise op_error(op, f"'{name}' must be an int32 or int64 Tensor, but got {t.dtype}.", TypeError)
    if indices.dtype != segment_ids.dtype:
        raise op_error(
            op, f"'indices' and 'segment_ids' must have one dtype, but got {indices.dtype} and {segment_ids.dtype}.",
            TypeError,
        )  # fmt: skip
    if x.ndim < 1 or indices.ndim != 1 or segment_ids.ndim != 1:
        raise op_error(
            op, f"'x' needs at least 1 axis and 'indices' and 'segment_ids' exactly 1, but their shapes are "
            f"{list(x.shape)}, {list(indices.shape)} and {list(segment_ids.shape)}.",
        )  # fmt: skip
    if indices.shape[0] != segment_ids.shape[0]:
        sizes = f"{indices.shape[0]} and {segment_ids.shape[0]}"
        raise op_error(op, f"'indices' and 'segment_ids' must have one size, but got {sizes}.")
    ids, rows = np.asarray(segment_ids.asnumpy()), np.asarray(indices.asnumpy())  # the host reads the data
    if ids.size and (ids[0] < 0 or (np.diff(ids) < 0).any()):
        raise op_error(op, f"'segment_ids' must be sorted and non-negative, but got {ids.tolist()}.")
    if rows.size and (rows.min() < 0 or rows.max() >= x.shape[0]):
        bad = int(rows[(rows < 0) | (rows >= x.shape[0])][0])
        raise op_error(op, f"'indices' holds {bad}, outside the {x.shape[0]} rows of 'x'.", IndexError)
    n = int(ids[-1]) + 1 if ids.size else 0
    sums = math.unsorted_segment_sum(array.gather(x, indices, 0), segment_ids, n)
    counts = np.maximum(np.bincount(ids, minlength=n), 1).astype(x.dtype.np)
    return sums / Tensor(counts.reshape((n,) + (1,) * (x.ndim - 1)))


def coo_add(x1: COOTensor, x2: COOTensor, thresh) -> COOTensor:
    """The sum of two COOTensors of one shape; summed values whose magnitude is below `thresh` are dropped."""
    op = "coo_add"
    if not (isinstance(x1, COOTensor) and isinstance(x2, COOTensor)):
        raise op_error(op, "both operands must be COOTensors.", TypeError)
    if x1.shape != x2.shape:
        raise op_error(op, f"the shapes must match, but got {x1.shape} and {x2.shape}.")
    values = array.concat([x1.values, math.cast(x2.values, x1.dtype)], 0)
    indices = array.concat([x1.indices, math.cast(x2.indices, x1.indices.dtype)], 0)
    idx, summed, _ = coalesce(array.transpose(indices, (1, 0)), values, x1.shape)
    limit = float(thresh.asnumpy()) if isinstance(thresh, Tensor) else float(thresh)
    keep = np.abs(_host(summed)) >= limit
    if not keep.all():
        where = Tensor(np.nonzero(keep)[0].astype(np.int64))
        summed = array.gather(summed, where, 0)
        idx = Tensor(idx.asnumpy()[:, keep].copy())
    return COOTensor(array.transpose(idx, (1, 0)), summed, x1.shape)


def coo_concat(sp_input, concat_dim: int = 0) -> COOTensor:
    """Concatenate 2-D COOTensors along `concat_dim`."""
    op = "coo_concat"
    parts = list(sp_input)
    if not parts or not all(isinstance(p, COOTensor) and p.ndim == 2 for p in parts):
        raise op_error(op, "'sp_input' must be a non-empty sequence of 2-D COOTensors.", TypeError)
    dim = concat_dim + 2 if concat_dim < 0 else concat_dim
    if dim not in (0, 1):
        raise op_error(op, f"'concat_dim' must be in [-2, 2), but got {concat_dim}.")
    other = 1 - dim
    if len({p.shape[other] for p in parts}) != 1:
        raise op_error(op, f"the inputs must have one size along dim {other}: {[p.shape for p in parts]}.")
    offset, indices = 0, []
    for p in parts:
        shift = np.zeros((1, 2), np.dtype(p.indices.dtype.np))
        shift[0, dim] = offset
        indices.append(math.add(p.indices, Tensor(shift)))
        offset += p.shape[dim]
    shape = list(parts[0].shape)
    shape[dim] = offset
    values = array.concat([math.cast(p.values, parts[0].dtype) for p in parts], 0)
    return COOTensor(array.concat([math.cast(i, parts[0].indices.dtype) for i in indices], 0), values, tuple(shape))


# -- CSR arithmetic --------------------------------------------------------------------------------------------


def csr_mul(x: CSRTensor, y) -> CSRTensor:
    """`x * y` for dense `y` broadcast to x's shape: a CSRTensor with x's sparsity."""
    return x * y


def csr_div(x: CSRTensor, y) -> Tensor:
    """The values of `x / y` (dense `y` broadcast to x's shape), as a dense 1-D Tensor."""
    return (x / y).values


def csr_gather(indptr, indices, dense, sparse_shape) -> Tensor:
    """The entries of `dense` at the stored positions of a CSR structure: a (N,) (or (N, ...)) Tensor."""
    shape = tuple(int(s) for s in (sparse_shape.asnumpy() if isinstance(sparse_shape, Tensor) else sparse_shape))
    if len(shape) < 2 or shape[0] + 1 != indptr.shape[0] or tuple(dense.shape[:2]) != shape[:2]:
        raise ValueError(
            f"csr_gather: 'sparse_shape' {shape} must be the dense shape: its rows + 1 = len(indptr) "
            f"({indptr.shape[0]}) and its first two sizes those of 'dense' {tuple(dense.shape)}."
        )
    rows = csr2coo(indptr, indices.shape[0])
    return array.gather_nd(dense, array.stack([rows, math.cast(indices, rows.dtype)], 1))


def csr_mv(csr_tensor: CSRTensor, dense) -> Tensor:
    """Sparse matrix times dense (columns, 1) matrix (or (columns,) vector)."""
    vector = dense.ndim == 1
    out = _csr_dense_mm(csr_tensor, array.expand_dims(dense, 1) if vector else dense)
    return array.squeeze(out, 1) if vector else out


def _csr_dense_mm(a: CSRTensor, b) -> Tensor:
    op = "CSRTensor.mm"
    if len(a.shape) != 2:
        raise op_error(op, f"only 2-D CSRTensors multiply, but the shape is {a.shape}.")
    if not isinstance(b, Tensor) or b.ndim != 2 or b.shape[0] != a.shape[1]:
        got = tuple(b.shape) if isinstance(b, Tensor) else type(b).__name__
        raise op_error(op, f"the dense operand must be ({a.shape[1]}, K), but got {got}.")
    b = math.cast(b, mstype.promote(a.dtype, b.dtype)) if b.dtype is not a.dtype else b
    rows_of_b = array.gather(b, a.indices, 0)  # (N, K)
    contrib = math.mul(array.expand_dims(math.cast(a.values, b.dtype), 1), rows_of_b)
    return math.unsorted_segment_sum(contrib, a._rows(), a.shape[0])


def csr_mm(a: CSRTensor, b, trans_a: bool = False, trans_b: bool = False, adjoint_a: bool = False,
           adjoint_b: bool = False):  # fmt: skip
    """Sparse x sparse (CSR result) or sparse x dense (dense result) matrix product."""
    if trans_a or adjoint_a:
        a = dense_to_sparse_csr(array.transpose(a.to_dense(), (1, 0)))
        if adjoint_a:
            a = _with_values(a, math.conj(a.values)) if a.dtype.is_complex else a
    if not isinstance(b, CSRTensor):
        dense = array.transpose(b, (1, 0)) if (trans_b or adjoint_b) else b
        return _csr_dense_mm(a, dense)
    dense_b = b.to_dense()
    if trans_b or adjoint_b:
        dense_b = array.transpose(dense_b, (1, 0))
    product = _csr_dense_mm(a, dense_b)
    return dense_to_sparse_csr(product)


def csr_reduce_sum(csr_tensor: CSRTensor, axis: int) -> Tensor:
    """The sum over `axis` (0 or 1) of a 2-D CSRTensor, keeping the reduced dimension (size 1)."""
    x = csr_tensor
    ax = axis + 2 if axis < 0 else axis
    if ax == 1:
        out = math.unsorted_segment_sum(x.values, x._rows(), x.shape[0])
        return array.expand_dims(out, 1)
    if ax == 0:
        out = math.unsorted_segment_sum(x.values, x.indices, x.shape[1])
        return array.expand_dims(out, 0)
    raise op_error("csr_reduce_sum", f"'axis' must be in [-2, 2), but got {axis}.")


def csr_softmax(logits: CSRTensor, dtype=None) -> CSRTensor:
    """Softmax over the stored values of each row (absent entries take no part)."""
    x = logits if dtype is None else logits.astype(dtype)
    rows, n = x._rows(), x.shape[0]
    row_max = math.unsorted_segment_max(x.values, rows, n)
    shifted = math.exp(math.sub(x.values, array.gather(math.stop_gradient(row_max), rows, 0)))
    total = math.unsorted_segment_sum(shifted, rows, n)
    return _with_values(x, math.div(shifted, array.gather(total, rows, 0)))


def csr_add(a: CSRTensor, b: CSRTensor, alpha, beta) -> CSRTensor:
    """alpha * a + beta * b for two CSRTensors of one shape (the union of their entries)."""
    if a.shape != b.shape:
        raise op_error("csr_add", f"the shapes must match, but got {a.shape} and {b.shape}.")
    alpha = alpha if isinstance(alpha, Tensor) else Tensor(np.asarray(alpha, a.dtype.np))
    beta = beta if isinstance(beta, Tensor) else Tensor(np.asarray(beta, a.dtype.np))
    left = COOTensor(a._coo_indices(), math.mul(a.values, array.reshape(alpha, (-1,))), a.shape)
    right = COOTensor(math.cast(b._coo_indices(), left.indices.dtype),
                      math.mul(math.cast(b.values, a.dtype), array.reshape(beta, (-1,))), b.shape)  # fmt: skip
    total = coo_add(left, right, 0)
    return total.to_csr()._cast_index(a.indptr.dtype)


def _csr_cast_index(self: CSRTensor, dtype) -> CSRTensor:
    return CSRTensor(math.cast(self.indptr, dtype), math.cast(self.indices, dtype), self.values, self.shape)


CSRTensor._cast_index = _csr_cast_index


# -- elementwise functions on the stored values ----------------------------------------------------------------

_UNARY = {
    "abs": math.abs, "acos": math.acos, "acosh": math.acosh, "asin": math.asin, "asinh": math.asinh,
    "atan": math.atan, "atanh": math.atanh, "ceil": math.ceil, "cos": math.cos, "cosh": math.cosh,
    "exp": math.exp, "expm1": math.expm1, "floor": math.floor, "inv": math.reciprocal, "isfinite": math.isfinite,
    "isinf": math.isinf, "isnan": math.isnan, "log": math.log, "log1p": math.log1p, "neg": math.neg,
    "relu": nn_ops.relu, "relu6": nn_ops.relu6, "round": math.round, "sigmoid": nn_ops.sigmoid, "sin": math.sin,
    "sinh": math.sinh, "softsign": nn_ops.softsign, "sqrt": math.sqrt, "square": math.square, "tan": math.tan,
    "tanh": math.tanh,
}  # fmt: skip


def _coo_unary(name: str, fn):
    def op(x: COOTensor) -> COOTensor:
        if not isinstance(x, COOTensor):
            raise op_error(f"coo_{name}", f"'x' must be a COOTensor, but got {type(x).__name__}.", TypeError)
        return COOTensor(x.indices, fn(x.values), x.shape)

    op.__name__ = op.__qualname__ = f"coo_{name}"
    op.__doc__ = f"`{name}` of the stored values of a COOTensor (same indices and shape)."
    return op


def _csr_unary(name: str, fn):
    def op(x: CSRTensor) -> CSRTensor:
        if not isinstance(x, CSRTensor):
            raise op_error(f"csr_{name}", f"'x' must be a CSRTensor, but got {type(x).__name__}.", TypeError)
        return _with_values(x, fn(x.values))

    op.__name__ = op.__qualname__ = f"csr_{name}"
    op.__doc__ = f"`{name}` of the stored values of a CSRTensor (same structure)."
    return op


for _name, _fn in _UNARY.items():
    for _prefix, _make in (("coo", _coo_unary), ("csr", _csr_unary)):
        globals()[f"{_prefix}_{_name}"] = _make(_name, _fn)
        __all__.append(f"{_prefix}_{_name}")
