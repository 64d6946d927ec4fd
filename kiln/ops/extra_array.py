"""Array ops: the memory-layout ops of MindSpore's `ops.auto_generate` (`contiguous`, `copy`), `diagonal`,
`unbind` (MindSpore's `dim` keyword) and `make_tuple`.

Kiln's arrays are always dense and never views, so `contiguous` returns its input and `copy` a new Tensor with
the same values (through `Identity`, so gradients pass).
"""

from __future__ import annotations

from kiln._core.tensor import Tensor
from kiln._prims import array as prims_array
from kiln.ops import array, math
from kiln.ops._helpers import apply

__all__: list[str] = ["contiguous", "copy", "diagonal", "make_tuple", "unbind"]


def contiguous(input) -> Tensor:
    """`input` in contiguous memory: Kiln's Tensors always are, so `input` itself."""
    return input


def copy(input) -> Tensor:
    """A new Tensor with the values of `input`."""
    return math.identity(input)


def unbind(input, dim: int = 0) -> tuple:
    """The slices of `input` along `dim`, that axis removed."""
    return array.unstack(input, dim)


def diagonal(input, offset: int = 0, dim1: int = 0, dim2: int = 1) -> Tensor:
    """The diagonal (shifted by `offset`) of each matrix formed by axes `dim1` and `dim2`, as the last axis."""
    return apply(prims_array.Diagonal, (input,), (int(offset), int(dim1), int(dim2)))


def make_tuple(*args) -> tuple:
    """The tuple of the arguments (MindSpore's MakeTuple)."""
    return tuple(args)


def argwhere(input) -> Tensor:
    """The (n, ndim) int64 indices of the non-zero elements (PyNative only: the count depends on values)."""
    return array.nonzero(input)


def flipud(input) -> Tensor:
    """Reverse axis 0."""
    return array.flip(input, (0,))


def fliplr(input) -> Tensor:
    """Reverse axis 1."""
    return array.flip(input, (1,))


__all__ += ["argwhere", "fliplr", "flipud"]


def t(input) -> Tensor:
    """The transpose of a matrix (a 0-D or 1-D input comes back as it is)."""
    return input if input.ndim < 2 else array.transpose(input, (1, 0))


def msort(input) -> Tensor:
    """`input` sorted along axis 0 (values only)."""
    return math.sort(input, 0)[0]


def row_stack(tensors) -> Tensor:
    """Stack tensors vertically (1-D ones become rows)."""
    return array.concat([array.reshape(x, (1, -1)) if x.ndim < 2 else x for x in tensors], 0)


def column_stack(tensors) -> Tensor:
    """Stack tensors as columns (1-D ones become columns)."""
    return array.concat([array.reshape(x, (-1, 1)) if x.ndim < 2 else x for x in tensors], 1)


__all__ += ["column_stack", "msort", "row_stack", "t"]
