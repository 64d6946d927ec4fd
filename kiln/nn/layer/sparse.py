"""Sparse layers: SparseToDense and SparseTensorDenseMatmul over (indices, values, shape) sparse tensors."""

from __future__ import annotations

from kiln import ops
from kiln.nn.cell import Cell
from kiln.ops.operations import SparseToDense as _SparseToDense

__all__ = ["SparseToDense", "SparseTensorDenseMatmul"]


class SparseToDense(Cell):
    """The dense Tensor of a COOTensor / SparseTensor (its `indices`, `values` and `shape`)."""

    def construct(self, sparse_tensor):
        return _SparseToDense()(sparse_tensor.indices, sparse_tensor.values, tuple(sparse_tensor.shape))


class SparseTensorDenseMatmul(Cell):
    """(sparse (indices, values, sparse_shape)) @ dense, with `adjoint_st` / `adjoint_dt` transposing either side."""

    def __init__(self, adjoint_st=False, adjoint_dt=False):
        super().__init__()
        for name, v in (("adjoint_st", adjoint_st), ("adjoint_dt", adjoint_dt)):
            if not isinstance(v, bool):
                raise TypeError(f"For 'SparseTensorDenseMatmul', '{name}' must be a bool, but got {type(v)}.")
        self.adjoint_st, self.adjoint_dt = adjoint_st, adjoint_dt

    def construct(self, indices, values, sparse_shape, dense):
        a = _SparseToDense()(indices, values, tuple(sparse_shape))
        if self.adjoint_st:
            a = ops.transpose(a, (1, 0))
        if self.adjoint_dt:
            dense = ops.transpose(dense, (1, 0))
        return ops.matmul(a, ops.cast(dense, a.dtype))
