"""Memory-layout ops of MindSpore's `ops.auto_generate`: `contiguous`, `copy`.

Kiln's arrays are always dense and never views, so `contiguous` returns its input and `copy` a new Tensor with
the same values (through `Identity`, so gradients pass).
"""

from __future__ import annotations

from kiln._core.tensor import Tensor
from kiln.ops import math

__all__ = ["contiguous", "copy"]


def contiguous(input) -> Tensor:
    """`input` in contiguous memory: Kiln's Tensors always are, so `input` itself."""
    return input


def copy(input) -> Tensor:
    """A new Tensor with the values of `input`."""
    return math.identity(input)
