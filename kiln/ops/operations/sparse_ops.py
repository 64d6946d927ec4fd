"""MindSpore's sparse Primitive classes (`ops.operations.sparse_ops`): SparseToDense."""

from __future__ import annotations

from kiln.ops import array
from kiln.ops.operations._build import as_ints, attr_class

__all__ = [
    "SparseToDense",
]
SparseToDense = attr_class(
    "SparseToDense", {}, lambda s, indices, values, shape: array.scatter_nd(indices, values, as_ints(shape))
)
