"""Primitives that `kiln.mint` needs and the other op files lack: Im2Col/Col2Im (`unfold`/`fold`),
TriangularSolve, GridSample.

Each is declared once as a `PrimitiveDef` (its backend function, its checks); gradients come from the
backend's vjp of that function, like every primitive without a hand-written rule.
"""

from __future__ import annotations

from kiln._backend import jax, jnp
from kiln._core.primitive import PrimitiveDef, op_error
from kiln._core.tensor import Tensor
from kiln._pynative.dispatch import apply

__all__ = ["col2im", "grid_sample", "im2col", "triangular_solve"]


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


def _im2col(x, kernel_size, dilation, padding, stride):
    n, c = x.shape[0], x.shape[1]
    (kh, kw), (dh, dw), (ph, pw), (sh, sw) = kernel_size, dilation, padding, stride
    xp = jnp.pad(x, ((0, 0), (0, 0), (ph, ph), (pw, pw)))
    hp, wp = xp.shape[2], xp.shape[3]
    oh = (hp - dh * (kh - 1) - 1) // sh + 1
    ow = (wp - dw * (kw - 1) - 1) // sw + 1
    cols = []
    for i in range(kh):
        for j in range(kw):
            r0, c0 = i * dh, j * dw
            cols.append(xp[:, :, r0 : r0 + sh * (oh - 1) + 1 : sh, c0 : c0 + sw * (ow - 1) + 1 : sw])
    out = jnp.stack(cols, axis=2)  # (N, C, kh*kw, oh, ow)
    return out.reshape(n, c * kh * kw, oh * ow)


def _check_im2col(x, kernel_size, dilation, padding, stride):
    shape = tuple(getattr(x, "shape", ()))
    if len(shape) != 4:
        raise op_error("Im2Col", f"the input must be 4-D (N, C, H, W), but got shape {shape}.")
    for name, v, low in (("kernel_size", kernel_size, 1), ("dilation", dilation, 1), ("stride", stride, 1),
                         ("padding", padding, 0)):  # fmt: skip
        if min(v) < low:
            raise op_error("Im2Col", f"'{name}' must be >= {low}, but got {v}.")
    (kh, kw), (dh, dw), (ph, pw), (sh, sw) = kernel_size, dilation, padding, stride
    oh = (shape[2] + 2 * ph - dh * (kh - 1) - 1) // sh + 1
    ow = (shape[3] + 2 * pw - dw * (kw - 1) - 1) // sw + 1
    if oh < 1 or ow < 1:
        raise op_error(
            "Im2Col", f"the sliding blocks do not fit: input {shape}, kernel {kernel_size}, output {oh}x{ow}."
        )


Im2Col = PrimitiveDef(
    "Im2Col",
    _im2col,
    attrs={"kernel_size": (1, 1), "dilation": (1, 1), "padding": (0, 0), "stride": (1, 1)},
    check=_check_im2col,
)


def _col2im(cols, output_size, kernel_size, dilation, padding, stride):
    (kh, kw) = kernel_size
    n = cols.shape[0]
    c = cols.shape[1] // (kh * kw)
    template = jax.ShapeDtypeStruct((n, c, output_size[0], output_size[1]), cols.dtype)
    # fold is the adjoint of unfold: summing overlapping blocks is the transpose of extracting them.
    fn = jax.linear_transpose(lambda x: _im2col(x, kernel_size, dilation, padding, stride), template)
    return fn(cols)[0]


def _check_col2im(cols, output_size, kernel_size, dilation, padding, stride):
    shape = tuple(getattr(cols, "shape", ()))
    if len(shape) != 3:
        raise op_error("Col2Im", f"the input must be 3-D (N, C*kh*kw, L), but got shape {shape}.")
    (kh, kw), (dh, dw), (ph, pw), (sh, sw) = kernel_size, dilation, padding, stride
    if shape[1] % (kh * kw):
        raise op_error("Col2Im", f"dimension 1 of the input ({shape[1]}) must be divisible by kh*kw = {kh * kw}.")
    oh = (output_size[0] + 2 * ph - dh * (kh - 1) - 1) // sh + 1
    ow = (output_size[1] + 2 * pw - dw * (kw - 1) - 1) // sw + 1
    if oh * ow != shape[2]:
        raise op_error(
            "Col2Im", f"the input has {shape[2]} blocks, but output_size {output_size} gives {oh} x {ow} = {oh * ow}."
        )


Col2Im = PrimitiveDef(
    "Col2Im",
    _col2im,
    attrs={"output_size": (1, 1), "kernel_size": (1, 1), "dilation": (1, 1), "padding": (0, 0), "stride": (1, 1)},
    check=_check_col2im,
)


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
    return apply(Im2Col, (input,), attrs)


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
    return apply(Col2Im, (input,), attrs)


# ---------------------------------------------------------------------------------------------- triangular solve
def _triangular_solve(b, a, upper, transpose, unitriangular):
    return jax.scipy.linalg.solve_triangular(a, b, trans=1 if transpose else 0, lower=not upper,
                                             unit_diagonal=unitriangular)  # fmt: skip


def _check_triangular_solve(b, a, upper, transpose, unitriangular):
    sb, sa = tuple(getattr(b, "shape", ())), tuple(getattr(a, "shape", ()))
    if len(sa) < 2 or sa[-1] != sa[-2]:
        raise op_error("TriangularSolve", f"'A' must be a batch of square matrices, but got shape {sa}.")
    if len(sb) < 2 or sb[-2] != sa[-1]:
        raise op_error("TriangularSolve", f"'b' {sb} must have {sa[-1]} rows to match 'A' {sa}.")
    if sb[:-2] != sa[:-2]:
        raise op_error("TriangularSolve", f"the batch dimensions of 'b' {sb[:-2]} and 'A' {sa[:-2]} must be equal.")


TriangularSolve = PrimitiveDef(
    "TriangularSolve",
    _triangular_solve,
    attrs={"upper": True, "transpose": False, "unitriangular": False},
    check=_check_triangular_solve,
)


def triangular_solve(b, A, upper: bool = True, transpose: bool = False, unitriangular: bool = False) -> Tensor:
    """Solve A X = b (or A^T X = b) for a triangular `A`.

    Args:
        b (Tensor): right-hand sides, (*, n, k).
        A (Tensor): triangular matrices, (*, n, n).
        upper (bool): `A` is upper triangular. transpose (bool): solve with A^T.
        unitriangular (bool): take A's diagonal as ones.

    Returns:
        Tensor X of b's shape.
    """
    return apply(TriangularSolve, (b, A), (bool(upper), bool(transpose), bool(unitriangular)))


# ---------------------------------------------------------------------------------------------- grid sample
def _unnormalize(coord, size, align_corners):
    if align_corners:
        return (coord + 1) / 2 * (size - 1)
    return ((coord + 1) * size - 1) / 2


def _reflect(coord, twice_low, twice_high):
    """Reflect `coord` into [twice_low / 2, twice_high / 2] (as often as needed)."""
    if twice_low == twice_high:
        return jnp.zeros_like(coord)
    low, span = twice_low / 2, (twice_high - twice_low) / 2
    c = jnp.abs(coord - low)
    extra = jnp.fmod(c, span)
    flips = jnp.floor(c / span)
    return jnp.where(flips % 2 == 0, extra + low, span - extra + low)


def _source_coord(coord, size, padding_mode, align_corners):
    c = _unnormalize(coord, size, align_corners)
    if padding_mode == "border":
        c = jnp.clip(c, 0, size - 1)
    elif padding_mode == "reflection":
        c = _reflect(c, 0, 2 * (size - 1)) if align_corners else _reflect(c, -1, 2 * size - 1)
        c = jnp.clip(c, 0, size - 1)
    return c


def _grid_sample(x, grid, mode, padding_mode, align_corners):
    n, c, h, w = x.shape
    gx = _source_coord(grid[..., 0], w, padding_mode, align_corners)  # (N, Ho, Wo)
    gy = _source_coord(grid[..., 1], h, padding_mode, align_corners)
    flat = x.reshape(n, c, h * w)

    def tap(iy, ix):
        valid = (iy >= 0) & (iy <= h - 1) & (ix >= 0) & (ix <= w - 1)
        iyc, ixc = jnp.clip(iy, 0, h - 1).astype(jnp.int32), jnp.clip(ix, 0, w - 1).astype(jnp.int32)
        idx = (iyc * w + ixc).reshape(n, 1, -1)
        vals = jnp.take_along_axis(flat, jnp.broadcast_to(idx, (n, c, idx.shape[-1])), axis=2)
        vals = vals.reshape(n, c, *iy.shape[1:])
        return vals * valid[:, None].astype(x.dtype)

    if mode == "nearest":
        return tap(jnp.round(gy), jnp.round(gx))
    x0, y0 = jnp.floor(gx), jnp.floor(gy)
    x1, y1 = x0 + 1, y0 + 1
    wx1, wy1 = (gx - x0)[:, None], (gy - y0)[:, None]
    wx0, wy0 = 1 - wx1, 1 - wy1
    return tap(y0, x0) * wy0 * wx0 + tap(y0, x1) * wy0 * wx1 + tap(y1, x0) * wy1 * wx0 + tap(y1, x1) * wy1 * wx1


def _check_grid_sample(x, grid, mode, padding_mode, align_corners):
    sx, sg = tuple(getattr(x, "shape", ())), tuple(getattr(grid, "shape", ()))
    if len(sx) != 4 or len(sg) != 4 or sg[-1] != 2 or sg[0] != sx[0]:
        raise op_error(
            "GridSampler2D", f"'input' must be (N, C, H, W) and 'grid' (N, Ho, Wo, 2), but got {sx} and {sg}."
        )
    if mode not in ("bilinear", "nearest"):
        raise op_error("GridSampler2D", f"'mode' must be 'bilinear' or 'nearest', but got {mode!r}.")
    if padding_mode not in ("zeros", "border", "reflection"):
        raise op_error(
            "GridSampler2D", f"'padding_mode' must be 'zeros', 'border' or 'reflection', but got {padding_mode!r}."
        )


GridSampler2D = PrimitiveDef(
    "GridSampler2D",
    _grid_sample,
    attrs={"mode": "bilinear", "padding_mode": "zeros", "align_corners": False},
    check=_check_grid_sample,
)


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
    return apply(GridSampler2D, (input, grid), (mode, padding_mode, bool(align_corners)))
