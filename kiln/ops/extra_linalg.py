"""Fourier transforms (`ops.fft`, `rfft2`, `hfftn`, ...), determinants, norms and the addmm family."""

from __future__ import annotations

from kiln._core.tensor import Tensor
from kiln._prims import fft as prims_fft
from kiln._prims import linalg as prims_linalg
from kiln.ops import array, math
from kiln.ops._helpers import apply, op_error

__all__: list[str] = [
    "addbmm", "addmm", "addmv", "addr", "baddbmm", "det", "fftshift", "ifftshift", "logdet", "matrix_norm",
    "slogdet", "vector_norm",
]  # fmt: skip


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


for _kind in ("fft", "ifft", "rfft", "irfft", "hfft", "ihfft"):
    for _op in (_fft_1d(_kind), _fft_nd(_kind, (-2, -1)), _fft_nd(_kind, None)):
        globals()[_op.__name__] = _op
        __all__.append(_op.__name__)


def fftshift(input, dim=None) -> Tensor:
    """Move the zero-frequency term to the centre of `dim` (all axes by default)."""
    dims = tuple(range(input.ndim)) if dim is None else ((dim,) if isinstance(dim, int) else tuple(dim))
    return array.roll(input, tuple(input.shape[d] // 2 for d in dims), dims)


def ifftshift(input, dim=None) -> Tensor:
    """The inverse of `fftshift`."""
    dims = tuple(range(input.ndim)) if dim is None else ((dim,) if isinstance(dim, int) else tuple(dim))
    return array.roll(input, tuple(-(input.shape[d] // 2) for d in dims), dims)


def det(input) -> Tensor:
    """The determinant of each (..., n, n) matrix."""
    return apply(prims_linalg.Det, (input,))


def slogdet(input):
    """(sign, log |det|) of each (..., n, n) matrix."""
    return apply(prims_linalg.SlogDet, (input,))


def logdet(input) -> Tensor:
    """log(det) of each matrix (NaN where the determinant is negative)."""
    sign, logabs = slogdet(input)
    return math.add(logabs, math.log(sign))


def vector_norm(x, ord=2, axis=None, keepdims=False, *, dtype=None) -> Tensor:
    """The `ord`-norm of `x` over `axis` (all axes by default); ord inf / -inf: max / min |x|; 0: count of
    non-zeros."""
    if dtype is not None:
        x = math.cast(x, dtype)
    a = math.abs(x)
    if ord == float("inf"):
        return math.amax(a, axis, keepdims)
    if ord == float("-inf"):
        return math.amin(a, axis, keepdims)
    if ord == 0:
        return math.sum(math.cast(math.not_equal(x, 0), a.dtype), axis, keepdims)
    if not isinstance(ord, (int, float)) or isinstance(ord, bool):
        raise op_error("vector_norm", f"'ord' must be a number, but got {ord!r}.", TypeError)
    if ord == 2:
        return math.sqrt(math.sum(math.square(a), axis, keepdims))
    return math.pow(math.sum(math.pow(a, ord), axis, keepdims), 1.0 / ord)


def matrix_norm(A, ord="fro", axis=(-2, -1), keepdims=False, *, dtype=None) -> Tensor:
    """The matrix norm of each matrix over the two axes `axis` ('fro', 'nuc', inf, -inf, 1, -1, 2, -2)."""
    if dtype is not None:
        A = math.cast(A, dtype)
    if ord not in ("fro", "nuc", float("inf"), float("-inf"), 1, -1, 2, -2):
        raise op_error("matrix_norm", f"'ord' must be 'fro', 'nuc', inf, -inf, 1, -1, 2 or -2, but got {ord!r}.")
    return apply(prims_linalg.MatrixNorm, (A,), (ord, tuple(axis), bool(keepdims)))


def _scaled(input, product, beta, alpha):
    out = product if alpha == 1 else math.mul(product, alpha)
    if beta == 0:
        return out
    return math.add(input if beta == 1 else math.mul(input, beta), out)


def baddbmm(input, batch1, batch2, beta=1, alpha=1) -> Tensor:
    """beta * input + alpha * (batch1 @ batch2), batched."""
    return _scaled(input, math.bmm(batch1, batch2), beta, alpha)


def addbmm(input, batch1, batch2, *, beta=1, alpha=1) -> Tensor:
    """beta * input + alpha * the sum over the batch of batch1[i] @ batch2[i]."""
    return _scaled(input, math.sum(math.bmm(batch1, batch2), 0), beta, alpha)


def addmm(input, mat1, mat2, *, beta=1, alpha=1) -> Tensor:
    """beta * input + alpha * (mat1 @ mat2)."""
    return _scaled(input, math.matmul(mat1, mat2), beta, alpha)


def addmv(input, mat, vec, *, beta=1, alpha=1) -> Tensor:
    """beta * input + alpha * (mat @ vec)."""
    return _scaled(input, math.matmul(mat, vec), beta, alpha)


def addr(x, vec1, vec2, *, beta=1, alpha=1) -> Tensor:
    """beta * x + alpha * outer(vec1, vec2)."""
    return _scaled(x, math.outer(vec1, vec2), beta, alpha)
