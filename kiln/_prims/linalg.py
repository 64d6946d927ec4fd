"""Linear algebra: products (MatMul, Einsum, Dot, ...), determinants, norms, factorisations and solvers.

Factorisations and solvers take their gradients from the backend's vjp (`nondiff` lists integer inputs).
"""

from __future__ import annotations

import math

from kiln._backend import default_platform, jax, jnp, lax
from kiln._core.primitive import PrimitiveDef, op_error
from kiln._prims._checks import same_float_dtype, shape_of
from kiln._prims.math import absolute
from kiln._prims.reduction import first_extreme

_la = jax.scipy.linalg


def _check_matmul(x, w, transpose_a=False, transpose_b=False):
    same_float_dtype("MatMul", x1=x, x2=w)
    xs, ws = shape_of(x), shape_of(w)
    if len(xs) < 1 or len(ws) < 1:
        raise op_error("MatMul", f"inputs must have at least 1 dimension, but got {list(xs)} and {list(ws)}.")
    k1 = xs[-2] if transpose_a and len(xs) > 1 else xs[-1]
    k2 = (ws[-1] if transpose_b else ws[-2]) if len(ws) > 1 else ws[0]
    if k1 != k2:
        raise op_error(
            "MatMul",
            f"the contracted dimensions differ: {k1} in the first input, shape {list(xs)} (transpose_a={transpose_a}), "
            f"against {k2} in the second, shape {list(ws)} (transpose_b={transpose_b}).",
        )


def _matmul(x, w, transpose_a, transpose_b):
    if transpose_a:
        x = jnp.swapaxes(x, -1, -2)
    if transpose_b:
        w = jnp.swapaxes(w, -1, -2)
    if _small_batched(x, w) and default_platform() == "cpu":
        return _small_batched_matmul(x, w)
    return jnp.matmul(x, w)


# Largest m*k*n of a batched `[..., m, k] @ [..., k, n]` whose `w` gradient is a multiply-and-sum (below).
# Measured on the CPU, 32x4 batches, the gradient dot against the multiply-and-sum: 8x16x8 440-485 against
# 64-110 us, 16x16x16 436 against 52 us, 32x32x32 617 against 268 us, 64x64x64 4.3 against 9.5 ms.
SMALL_BATCHED_MAX = 32 * 32 * 32


def _small_batched(x, w) -> bool:
    if x.ndim < 3 or w.ndim < 3:
        return False
    if not (jnp.issubdtype(x.dtype, jnp.floating) and jnp.issubdtype(w.dtype, jnp.floating)):
        return False
    sizes = (x.shape[-2], x.shape[-1], w.shape[-1])
    return all(type(d) is int for d in sizes) and math.prod(sizes) <= SMALL_BATCHED_MAX


# Other forms of the transformer's attention products (32x4 heads, 8x16 and 8x8; forward and backward under jax.jit,
# interleaved, session 14, load 7-8) against this rule: einsum over (batch, tokens, heads, dims) without the head
# transposes 1.37x, every product a multiply-and-sum 2.5-3.7x and heads on the minor axis 3.1x (XLA materialises the
# broadcasts), plain matmul 1.86x; a softmax unrolled over its 8 columns 0.94x of the attention, 0.99x of the step.
@jax.custom_jvp
def _small_batched_matmul(x, w):
    """`x @ w` for small batched matrices on the CPU, differentiated so that `w`'s gradient is no dot.

    The backend's transpose of `x @ dw` is `x^T @ g`, a dot contracting `x` over its rows (dimension -2), which
    this XLA CPU build runs in its generic loop emitter, not the dot library: a transformer's attention
    gradients (32x4 heads, 8x16 and 8x8 matrices) spent 90-400 us per such dot. Written as a multiply and a sum
    over the contracted axis, its transpose is one fused multiply-and-sum (`SMALL_BATCHED_MAX`). The forward
    product and `x`'s gradient stay dots; the values are `jnp.matmul`'s up to the order of the sums.
    """
    return jnp.matmul(x, w)


@_small_batched_matmul.defjvp
def _small_batched_matmul_jvp(primals, tangents):
    x, w = primals
    dx, dw = tangents
    x_dw = (x[..., :, :, None] * dw[..., None, :, :]).sum(-2)  # x @ dw, transposed to a multiply-and-sum
    return _small_batched_matmul(x, w), jnp.matmul(dx, w) + x_dw


MatMul = PrimitiveDef("MatMul", _matmul, attrs={"transpose_a": False, "transpose_b": False}, check=_check_matmul)
BatchMatMul = PrimitiveDef(
    "BatchMatMul", _matmul, attrs={"transpose_a": False, "transpose_b": False}, check=_check_matmul
)


Einsum = PrimitiveDef("Einsum", lambda *xs, equation: jnp.einsum(equation, *xs), attrs={"equation": ""})
Dot = PrimitiveDef("Dot", lambda x, y: jnp.dot(x, y))
Outer = PrimitiveDef("Outer", lambda x, y: jnp.outer(x, y))
Diag = PrimitiveDef("Diag", lambda x: jnp.diag(x) if jnp.ndim(x) == 1 else jnp.diagflat(x).reshape(x.shape * 2))
# The sum keeps an integer input's dtype, as MindSpore's Trace does (the backend would widen int32 to int64)
Trace = PrimitiveDef("Trace", lambda x: jnp.trace(x, dtype=None if x.dtype == jnp.bool_ else x.dtype))
MatrixInverse = PrimitiveDef("MatrixInverse", lambda x: jnp.linalg.inv(x))


def _norm(x, ord, axis, keepdims):
    """jnp.linalg.norm, with a vector p-norm (p > 0 other than 1, 2, inf) scaled by the largest |x|: x^p underflows
    for a large p (0.34^90 is below float32's range) where the scaled terms stay in [0, 1]."""
    axes = (axis,) if isinstance(axis, int) else axis
    vector = (axes is None and jnp.ndim(x) == 1) or (axes is not None and len(axes) == 1)
    if vector and ord == 1 and not isinstance(ord, bool) and not jnp.iscomplexobj(x):
        # the sum of |x| with MindSpore's derivative at 0: 0 (the backend's 1-norm gives 1 there)
        return jnp.sum(absolute(x), axis=axes if axes is not None else 0, keepdims=keepdims)
    if vector and ord in (float("inf"), float("-inf")) and not isinstance(ord, bool) and not jnp.iscomplexobj(x):
        # the |x| read at its first maximum (minimum): MindSpore 2.10 gives that one element the gradient
        a, ax = absolute(x), (axes or (0,))[0]  # sign(0) = 0: a zero vector gets no gradient, as MindSpore
        return first_extreme(a, ax, keepdims, lowest=ord < 0)[0]
    if not (vector and isinstance(ord, (int, float)) and not isinstance(ord, bool) and ord > 0
            and ord not in (1, 2, float("inf"))):  # fmt: skip
        return jnp.linalg.norm(x, ord=ord, axis=axis, keepdims=keepdims)
    a = jnp.abs(x)
    axes = (0,) if axes is None else axes
    # a stabiliser: the result's total derivative in m is zero, so m passes none (the backend's max rule tested each
    # |x| against m, and its 0/0 where no test held gave NaN)
    m = lax.stop_gradient(jnp.max(a, axis=axes, keepdims=True))
    safe = jnp.where((m == 0) | jnp.isinf(m), jnp.ones_like(m), m)
    out = jnp.where(jnp.isinf(m), m, safe * jnp.sum((a / safe) ** ord, axis=axes, keepdims=True) ** (1.0 / ord))
    return out if keepdims else jnp.squeeze(out, axis=axes)


Norm = PrimitiveDef(
    "Norm",
    _norm,
    attrs={"ord": None, "axis": None, "keepdims": False},
)


def _check_square(op):
    def check(x, **_):
        shape = tuple(getattr(x, "shape", ()))
        if len(shape) < 2 or shape[-1] != shape[-2]:
            raise op_error(op, f"the input must be (..., n, n) square matrices, but got shape {shape}.")

    return check


Det = PrimitiveDef("Det", lambda x: jnp.linalg.det(x), check=_check_square("Det"))
SlogDet = PrimitiveDef(
    "SlogDet", lambda x: tuple(jnp.linalg.slogdet(x)), check=_check_square("SlogDet"), multiple_results=True
)
MatrixNorm = PrimitiveDef(
    "MatrixNorm",
    lambda x, ord, axis, keepdims: jnp.linalg.norm(x, ord, axis, keepdims),
    attrs={"ord": "fro", "axis": (-2, -1), "keepdims": False},
)


def _check_matrix(op, square=False):
    def check(x, *rest, **_):
        shape = tuple(getattr(x, "shape", ()))
        if len(shape) < 2:
            raise op_error(op, f"the input must be at least 2-D, but got shape {shape}.")
        if square and shape[-1] != shape[-2]:
            raise op_error(op, f"the input must be (..., n, n) square matrices, but got shape {shape}.")

    return check


def _cholesky(x, upper):
    low = jnp.linalg.cholesky(x)
    return jnp.conj(jnp.swapaxes(low, -1, -2)) if upper else low


def _solve_triangular(a, b, lower, adjoint, unit_diagonal):
    return _la.solve_triangular(a, b, trans="C" if adjoint else 0, lower=lower, unit_diagonal=unit_diagonal)


def _lu_solve(b, lu, pivots):
    # MindSpore's pivots are 1-based row swaps, as LAPACK's getrf.
    perm = lax.linalg.lu_pivots_to_permutation(pivots.astype(jnp.int32) - 1, lu.shape[-2])
    pb = jnp.take_along_axis(b, perm[..., :, None], axis=-2) if b.ndim == lu.ndim else b[perm]
    y = _la.solve_triangular(lu, pb, lower=True, unit_diagonal=True)
    return _la.solve_triangular(lu, y, lower=False)


def _lstsq(a, b):
    vec = b.ndim == 1
    x = jnp.linalg.lstsq(a, b[:, None] if vec else b)[0]
    return x[:, 0] if vec else x


def _eig(x, compute_v):
    w, v = jnp.linalg.eig(x)
    return w, v if compute_v else jnp.zeros((), w.dtype)


def _geqrf(x):
    h, tau = jnp.linalg.qr(x, mode="raw")  # LAPACK's packed form, transposed (NumPy's 'raw')
    return jnp.swapaxes(h, -1, -2), tau


Cholesky = PrimitiveDef("Cholesky", _cholesky, attrs={"upper": False}, check=_check_matrix("Cholesky", True))
Qr = PrimitiveDef(
    "Qr", lambda x, mode: tuple(jnp.linalg.qr(x, mode=mode)), attrs={"mode": "reduced"},
    check=_check_matrix("Qr"), multiple_results=True,
)  # fmt: skip
Svd = PrimitiveDef(
    "Svd",
    lambda x, full_matrices: tuple(jnp.linalg.svd(x, full_matrices=full_matrices)),
    attrs={"full_matrices": False},
    check=_check_matrix("Svd"),
    multiple_results=True,
)
SvdVals = PrimitiveDef("SvdVals", lambda x: jnp.linalg.svd(x, compute_uv=False), check=_check_matrix("Svd"))
Eig = PrimitiveDef("Eig", _eig, attrs={"compute_v": False}, check=_check_matrix("Eig", True), multiple_results=True)
MatrixSolve = PrimitiveDef(
    "MatrixSolve",
    lambda a, b, adjoint: jnp.linalg.solve(jnp.conj(jnp.swapaxes(a, -1, -2)) if adjoint else a, b),
    attrs={"adjoint": False},
    check=_check_matrix("MatrixSolve", True),
)
MatrixTriangularSolve = PrimitiveDef(
    "MatrixTriangularSolve",
    _solve_triangular,
    attrs={"lower": True, "adjoint": False, "unit_diagonal": False},
    check=_check_matrix("MatrixTriangularSolve", True),
)
LuSolve = PrimitiveDef("LuSolve", _lu_solve, nondiff=(2,))
Lstsq = PrimitiveDef("Lstsq", _lstsq, check=_check_matrix("Lstsq"))
MatrixExp = PrimitiveDef("MatrixExp", lambda x: _la.expm(x), check=_check_matrix("MatrixExp", True))


def _pinv(x, rtol, hermitian):
    if hermitian:  # only the lower triangle is read, as LAPACK's Hermitian routines (and MindSpore) do
        x = jnp.tril(x) + jnp.conj(jnp.swapaxes(jnp.tril(x, -1), -1, -2))
    return jnp.linalg.pinv(x, rtol=rtol, hermitian=hermitian)


Pinv = PrimitiveDef(
    "Pinv",
    _pinv,
    attrs={"rtol": None, "hermitian": False},
    check=_check_matrix("Pinv"),
)
Geqrf = PrimitiveDef("Geqrf", _geqrf, check=_check_matrix("Geqrf"), multiple_results=True)
Orgqr = PrimitiveDef("Orgqr", lambda a, tau: lax.linalg.householder_product(a, tau), check=_check_matrix("Orgqr"))


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
