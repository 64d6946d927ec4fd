"""MindSpore's `mindspore.common.sparse_tensor`: the sparse tensor classes (defined in `kiln.ops.sparse`)."""

from kiln.ops.sparse import COOTensor, CSRTensor, RowTensor, SparseTensor

RowTensorInner = RowTensor

__all__ = ["COOTensor", "CSRTensor", "RowTensor", "RowTensorInner", "SparseTensor"]
