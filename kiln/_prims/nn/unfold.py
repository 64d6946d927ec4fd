"""Sliding blocks: Im2Col (`unfold`) and its adjoint Col2Im (`fold`), over (N, C, H, W)."""

from __future__ import annotations

from kiln._backend import jax, jnp
from kiln._core.primitive import PrimitiveDef, op_error


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
