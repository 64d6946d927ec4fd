"""Fourier transforms: one FFT primitive for every kind (c2c, r2c, c2r, Hermitian) and rank."""

from __future__ import annotations

from kiln._backend import jnp
from kiln._core.primitive import PrimitiveDef, op_error

_DUAL = {"backward": "forward", "forward": "backward", "ortho": "ortho"}


def _fft(x, kind, s, axes, norm):
    """One transform of `kind` (fft, ifft, rfft, irfft, hfft, ihfft) over `axes` with sizes `s`."""
    norm = norm or "backward"
    if not jnp.issubdtype(x.dtype, jnp.inexact):
        x = x.astype(jnp.float32)
    if kind == "fft":
        return jnp.fft.fftn(x, s, axes, norm)
    if kind == "ifft":
        return jnp.fft.ifftn(x, s, axes, norm)
    if kind == "rfft":
        return jnp.fft.rfftn(x, s, axes, norm)
    if kind == "irfft":
        return jnp.fft.irfftn(x, s, axes, norm)
    if kind == "hfft":  # the real transform of a Hermitian signal: irfft of its conjugate, dual normalisation
        return jnp.fft.irfftn(jnp.conj(x), s, axes, _DUAL[norm])
    return jnp.conj(jnp.fft.rfftn(x, s, axes, _DUAL[norm]))  # ihfft


def _check_fft(x, kind, s, axes, norm):
    nd = len(getattr(x, "shape", ()))
    if norm not in (None, "backward", "forward", "ortho"):
        raise op_error("FFT", f"'norm' must be None, 'backward', 'forward' or 'ortho', but got {norm!r}.")
    for a in axes:
        if not -nd <= a < nd:
            raise op_error("FFT", f"axis {a} is out of range for a {nd}-D input.")
    if s is not None and len(s) != len(axes):
        raise op_error("FFT", f"'s' {s} and the axes {axes} must have the same length.")


FFT = PrimitiveDef("FFT", _fft, attrs={"kind": "fft", "s": None, "axes": (-1,), "norm": None}, check=_check_fft)
