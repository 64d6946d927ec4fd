"""`kiln.mint.linalg`: PyTorch-style linear algebra (`dim=`, `keepdim=`)."""

from __future__ import annotations

from kiln import ops
from kiln._core.tensor import Tensor

__all__ = ["inv", "matrix_norm", "norm", "qr", "vector_norm"]


def _cast(x, dtype):
    return x if dtype is None else ops.cast(x, dtype)


def inv(A) -> Tensor:
    """Inverse of a (batch of) square matrix."""
    return ops.inverse(A)


def qr(A, mode: str = "reduced"):
    """(Q, R) with Q orthonormal and R upper triangular; mode 'reduced', 'complete' or 'r'."""
    return ops.qr(A, mode)


def vector_norm(x, ord=2, dim=None, keepdim: bool = False, *, dtype=None) -> Tensor:
    """Vector ord-norm over `dim` (None: all elements); ord a number, inf or -inf.

    Args:
        x (Tensor): the input. ord (number): the order. dim (int | tuple | None): dimensions.
        keepdim (bool): keep reduced dimensions. dtype: compute in this dtype.

    Returns:
        Tensor.
    """
    return ops.vector_norm(_cast(x, dtype), ord, dim, keepdim)


def matrix_norm(A, ord="fro", dim=(-2, -1), keepdim: bool = False, *, dtype=None) -> Tensor:
    """Matrix norm over the two dimensions `dim`: 'fro', 'nuc', inf, -inf, 1, -1, 2, -2."""
    return ops.matrix_norm(_cast(A, dtype), ord, tuple(dim), keepdim)


def norm(A, ord=None, dim=None, keepdim: bool = False, *, dtype=None) -> Tensor:
    """Vector norm (1 dim, or ord None over everything) or matrix norm (2 dims, or a 2-D input with ord given)."""
    return ops.norm(_cast(A, dtype), ord, dim, keepdim)
