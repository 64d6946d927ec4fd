"""Fourier transforms (`ops.fft`, `rfft2`, `hfftn`, ...), their shifts and sample frequencies, and the short-time
Fourier transform.
"""

from __future__ import annotations

import numpy as np

from kiln._core import dtype as mstype
from kiln._core.tensor import Tensor
from kiln._prims import fft as prims_fft
from kiln.ops import array, math
from kiln.ops._helpers import apply

__all__ = [
    "fftfreq",
    "rfftfreq",
    "fftshift",
    "ifftshift",
    "fft",
    "fft2",
    "fftn",
    "ifft",
    "ifft2",
    "ifftn",
    "rfft",
    "rfft2",
    "rfftn",
    "irfft",
    "irfft2",
    "irfftn",
    "hfft",
    "hfft2",
    "hfftn",
    "ihfft",
    "ihfft2",
    "ihfftn",
    "stft",
]


def fftfreq(n, d=1.0, dtype=None) -> Tensor:
    """Sample frequencies of an n-point FFT with spacing `d`."""
    return Tensor(np.fft.fftfreq(int(n), float(d)).astype(np.float32), dtype or mstype.float32)


def rfftfreq(n, d=1.0, dtype=None) -> Tensor:
    """Sample frequencies of an n-point real FFT with spacing `d`."""
    return Tensor(np.fft.rfftfreq(int(n), float(d)).astype(np.float32), dtype or mstype.float32)


def _fft_1d(kind: str):
    def op(input, n=None, dim=-1, norm=None) -> Tensor:
        return apply(prims_fft.FFT, (input,), (kind, None if n is None else (int(n),), (int(dim),), norm))

    op.__name__ = op.__qualname__ = kind
    op.__doc__ = f"The 1-D `{kind}` of `input` along `dim` (length `n`; norm 'backward', 'forward' or 'ortho')."
    return op


def _fft_nd(kind: str, default_dims):
    name = kind + ("2" if default_dims == (-2, -1) else "n")

    def op(input, s=None, dim=default_dims, norm=None) -> Tensor:
        dims = dim
        if dims is None:
            dims = tuple(range(input.ndim)) if s is None else tuple(range(input.ndim - len(s), input.ndim))
        dims = (dims,) if isinstance(dims, int) else tuple(int(d) for d in dims)
        size = None if s is None else tuple(int(v) for v in s)
        return apply(prims_fft.FFT, (input,), (kind, size, dims, norm))

    op.__name__ = op.__qualname__ = name
    op.__doc__ = f"The `{name}` of `input` over `dim` (sizes `s`; norm 'backward', 'forward' or 'ortho')."
    return op


fft, fft2, fftn = _fft_1d("fft"), _fft_nd("fft", (-2, -1)), _fft_nd("fft", None)
ifft, ifft2, ifftn = _fft_1d("ifft"), _fft_nd("ifft", (-2, -1)), _fft_nd("ifft", None)
rfft, rfft2, rfftn = _fft_1d("rfft"), _fft_nd("rfft", (-2, -1)), _fft_nd("rfft", None)
irfft, irfft2, irfftn = _fft_1d("irfft"), _fft_nd("irfft", (-2, -1)), _fft_nd("irfft", None)
hfft, hfft2, hfftn = _fft_1d("hfft"), _fft_nd("hfft", (-2, -1)), _fft_nd("hfft", None)
ihfft, ihfft2, ihfftn = _fft_1d("ihfft"), _fft_nd("ihfft", (-2, -1)), _fft_nd("ihfft", None)


def fftshift(input, dim=None) -> Tensor:
    """Move the zero-frequency term to the centre of `dim` (all axes by default)."""
    dims = tuple(range(input.ndim)) if dim is None else ((dim,) if isinstance(dim, int) else tuple(dim))
    return array.roll(input, tuple(input.shape[d] // 2 for d in dims), dims)


def ifftshift(input, dim=None) -> Tensor:
    """The inverse of `fftshift`."""
    dims = tuple(range(input.ndim)) if dim is None else ((dim,) if isinstance(dim, int) else tuple(dim))
    return array.roll(input, tuple(-(input.shape[d] // 2) for d in dims), dims)


def stft(x, n_fft, hop_length=None, win_length=None, window=None, center=True, pad_mode="REFLECT",
         normalized=False, onesided=None, return_complex=None) -> Tensor:  # fmt: skip
    """Short-time Fourier transform of 1-D (or batched 2-D) signals.

    Args:
        x (Tensor): (L,) or (B, L).
        n_fft (int): FFT size.
        hop_length (int, optional): step between frames (n_fft // 4).
        win_length (int, optional): window size (n_fft), centred in the frame.
        window (Tensor, optional): the window (all ones).
        center (bool): pad the signal by n_fft // 2 on both sides first (`pad_mode` 'REFLECT' or 'CONSTANT').
        normalized (bool): multiply by n_fft ** -0.5.
        onesided (bool, optional): only the n_fft // 2 + 1 non-negative frequencies (default for real input).
        return_complex (bool, optional): complex (..., F, T) output, else (..., F, T, 2) real; by default complex
            when `x` or `window` is complex.

    Returns:
        Tensor.
    """
    hop = hop_length or n_fft // 4
    wl = win_length or n_fft
    single = x.ndim == 1
    sig = array.expand_dims(x, 0) if single else x
    if center:
        half = n_fft // 2
        if str(pad_mode).upper() == "REFLECT":
            sig = array.mirror_pad(sig, ((0, 0), (half, half)), "REFLECT")
        else:
            sig = array.pad(sig, (half, half))
    n = sig.shape[-1]
    frames = 1 + (n - n_fft) // hop
    idx = np.arange(frames)[:, None] * hop + np.arange(n_fft)[None, :]
    framed = array.reshape(array.gather(sig, Tensor(idx.reshape(-1)), 1), (sig.shape[0], frames, n_fft))
    if window is None:
        left = (n_fft - wl) // 2
        win_dtype = sig.dtype if sig.dtype.is_floating else mstype.float32
        win = Tensor(np.pad(np.ones(wl, np.float32), (left, n_fft - wl - left)), win_dtype)
    else:
        win = window
        if win.shape[0] < n_fft:
            left = (n_fft - win.shape[0]) // 2
            win = array.pad(win, (left, n_fft - win.shape[0] - left))
    framed = framed * win
    complex_in = x.dtype.is_complex
    one = (not complex_in) if onesided is None else onesided
    spec = rfft(framed, n_fft, -1) if one and not complex_in else fft(framed, n_fft, -1)
    if normalized:
        spec = spec * float(n_fft) ** -0.5
    spec = array.swapaxes(spec, -1, -2)  # (B, F, T)
    if single:
        spec = array.squeeze(spec, 0)
    if return_complex is None:  # MindSpore's default: complex only when the signal or the window is
        return_complex = complex_in or (window is not None and window.dtype.is_complex)
    if not return_complex:
        return array.stack((math.real(spec), math.imag(spec)), -1)
    return spec
