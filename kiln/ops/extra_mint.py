"""Primitives that `kiln.mint` needs and the other op files lack: Im2Col/Col2Im (`unfold`/`fold`),
TriangularSolve, GridSample.

Each is declared once as a `PrimitiveDef` (its backend function, its checks); gradients come from the
backend's vjp of that function, like every primitive without a hand-written rule.
"""

from __future__ import annotations

from kiln._core.primitive import op_error
from kiln._core.tensor import Tensor
from kiln._prims import image as prims_image
from kiln._prims import linalg as prims_linalg
from kiln._prims.nn import unfold as prims_unfold
from kiln._pynative.dispatch import apply

__all__ = ["col2im", "grid_sample", "im2col"]


# ---------------------------------------------------------------------------------------------- im2col / col2im
def _pair(v, name: str, op: str) -> tuple[int, int]:
    if isinstance(v, int):
        return (v, v)
    v = tuple(int(a) for a in v)
    if len(v) == 1:
        return (v[0], v[0])
    if len(v) != 2:
        raise op_error(op, f"'{name}' must be an int or a pair of ints, but got {v}.")
    return v


def im2col(input, kernel_size, dilation=1, padding=0, stride=1) -> Tensor:
    """Sliding local blocks of a 4-D input, as columns (PyTorch's `unfold`).

    Args:
        input (Tensor): (N, C, H, W).
        kernel_size, dilation, padding, stride (int | tuple[int, int]): the blocks' geometry.

    Returns:
        Tensor of shape (N, C * kh * kw, L), L the number of blocks.
    """
    attrs = tuple(_pair(v, n, "Im2Col") for v, n in ((kernel_size, "kernel_size"), (dilation, "dilation"),
                                                    (padding, "padding"), (stride, "stride")))  # fmt: skip
    return apply(prims_unfold.Im2Col, (input,), attrs)


def col2im(input, output_size, kernel_size, dilation=1, padding=0, stride=1) -> Tensor:
    """Sum sliding local blocks back into a 4-D tensor (PyTorch's `fold`, the adjoint of `im2col`).

    Args:
        input (Tensor): (N, C * kh * kw, L).
        output_size (int | tuple[int, int]): spatial size (H, W) of the result.
        kernel_size, dilation, padding, stride (int | tuple[int, int]): the blocks' geometry.

    Returns:
        Tensor of shape (N, C, H, W).
    """
    attrs = tuple(_pair(v, n, "Col2Im") for v, n in ((output_size, "output_size"), (kernel_size, "kernel_size"),
                                                    (dilation, "dilation"), (padding, "padding"),
                                                    (stride, "stride")))  # fmt: skip
    return apply(prims_unfold.Col2Im, (input,), attrs)


# ---------------------------------------------------------------------------------------------- triangular solve


def solve_triangular_system(b, A, upper: bool = True, transpose: bool = False, unitriangular: bool = False) -> Tensor:
    """Solve A X = b (or A^T X = b) for a triangular `A`.

    Args:
        b (Tensor): right-hand sides, (*, n, k).
        A (Tensor): triangular matrices, (*, n, n).
        upper (bool): `A` is upper triangular. transpose (bool): solve with A^T.
        unitriangular (bool): take A's diagonal as ones.

    Returns:
        Tensor X of b's shape.
    """
    return apply(prims_linalg.TriangularSolve, (b, A), (bool(upper), bool(transpose), bool(unitriangular)))


# ---------------------------------------------------------------------------------------------- grid sample


def grid_sample(input, grid, mode: str = "bilinear", padding_mode: str = "zeros", align_corners=None) -> Tensor:
    """Sample a 4-D input at the normalised (x, y) positions of `grid` ([-1, 1] spans the input).

    Args:
        input (Tensor): (N, C, H, W).
        grid (Tensor): (N, Ho, Wo, 2), x then y.
        mode (str): 'bilinear' or 'nearest'.
        padding_mode (str): 'zeros', 'border' or 'reflection' (how positions outside are read).
        align_corners (bool): -1 and 1 are the centres (True) or the outer edges (False, the default)
            of the corner pixels.

    Returns:
        Tensor of shape (N, C, Ho, Wo).
    """
    return apply(prims_image.GridSampler2D, (input, grid), (mode, padding_mode, bool(align_corners)))
