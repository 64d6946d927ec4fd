"""Functional linear algebra: determinants, norms, the addmm family, factorisations (Cholesky, QR, SVD, eig,
geqrf), solvers (triangular, general, Cholesky, LU, least squares), pseudo-inverse, matrix powers and exponential.
"""

from __future__ import annotations

from kiln._core import dtype as mstype
from kiln._core.tensor import Tensor
from kiln._prims import linalg as prims_linalg
from kiln.ops import array, math
from kiln.ops._helpers import REGISTRY, apply, op_error

__all__ = [
    "addbmm",
    "addmm",
    "addmv",
    "addr",
    "baddbmm",
    "det",
    "logdet",
    "matrix_norm",
    "slogdet",
    "vector_norm",
    "cholesky",
    "cholesky_inverse",
    "cholesky_solve",
    "qr",
    "svd",
    "eig",
    "eigvals",
    "pinv",
    "lu_solve",
    "lu_unpack",
    "lstsq",
    "geqrf",
    "orgqr",
    "ormqr",
    "matrix_exp",
    "matrix_power",
    "matrix_solve",
    "matrix_determinant",
    "log_matrix_determinant",
    "cond",
]


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
    elif not (x.dtype.is_floating or x.dtype.is_complex):
        x = math.cast(x, mstype.float32)  # an integer input's norm is float32 (in PyNative as in a graph)
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
    if ord > 0:
        return _scaled_pnorm(a, ord, axis, keepdims)
    return math.pow(math.sum(math.pow(a, ord), axis, keepdims), 1.0 / ord)


def _scaled_pnorm(a: Tensor, p: float, axis, keepdims: bool) -> Tensor:
    """(sum a^p)^(1/p) of |x| values `a` as m * (sum (a / m)^p)^(1/p), m = max a: a^p underflows to 0 (or
    overflows) for a large p (0.34^90 is below float32's range) where the scaled terms stay in [0, 1]."""
    m = math.amax(a, axis, True)
    safe = array.where(math.logical_or(m == 0, math.isinf(m)), array.ones_like(m), m)
    scaled = math.pow(math.sum(math.pow(a / safe, p), axis, True), 1.0 / p) * safe
    out = array.where(math.isinf(m), m, scaled)  # an infinite entry makes the norm infinite
    if keepdims:
        return out
    axes = tuple(range(a.ndim)) if axis is None else ((axis,) if isinstance(axis, int) else tuple(axis))
    return array.squeeze(out, tuple(ax % a.ndim for ax in axes)) if a.ndim else out


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


def _conj_t(x):
    out = array.swapaxes(x, -1, -2)
    return math.conj(out) if x.dtype.is_complex else out


def cholesky(input_x, upper=False) -> Tensor:
    """Cholesky factor of symmetric (Hermitian) positive-definite matrices.

    Args:
        input_x (Tensor): (..., n, n).
        upper (bool): return U with A = U^H U instead of L with A = L L^H.

    Returns:
        Tensor (..., n, n).
    """
    return apply(REGISTRY["Cholesky"], (input_x,), (bool(upper),))


def cholesky_solve(input, input2, upper=False) -> Tensor:
    """Solve A X = B given the Cholesky factor `input2` of A and B = `input`.

    Returns:
        Tensor X of the shape of `input`.
    """
    s = REGISTRY["MatrixTriangularSolve"]
    if upper:
        y = apply(s, (input2, input), (False, True, False))
        return apply(s, (input2, y), (False, False, False))
    y = apply(s, (input2, input), (True, False, False))
    return apply(s, (input2, y), (True, True, False))


def cholesky_inverse(input_x, upper=False) -> Tensor:
    """The inverse of A = L L^T (U^T U when `upper`) from its Cholesky factor `input_x`.

    The whole of `input_x` is read, as MindSpore 2.10 reads it: a factor with entries off its triangle gives
    (X X^T)^-1, where a solver reading one triangle (PyTorch's) would ignore them."""
    factor_t = array.swapaxes(input_x, -1, -2)
    return math.inverse(math.matmul(factor_t, input_x) if upper else math.matmul(input_x, factor_t))


def qr(input, mode="reduced"):
    """QR factorisation.

    Args:
        input (Tensor): (..., m, n).
        mode (str): 'reduced' (Q m x k, R k x n), 'complete' (Q m x m) or 'r' (R only, Q empty).

    Returns:
        tuple (Q, R).
    """
    if mode not in ("reduced", "complete", "r"):
        raise op_error("Qr", f"'mode' must be 'reduced', 'complete' or 'r', but got {mode!r}.")
    q, r = apply(REGISTRY["Qr"], (input,), ("complete" if mode == "complete" else "reduced",))
    if mode == "r":
        return array.zeros((0,), input.dtype), r
    return q, r


def svd(input, full_matrices=False, compute_uv=True):
    """Singular value decomposition A = U diag(S) V^H.

    Args:
        input (Tensor): (..., m, n).
        full_matrices (bool): U and V square.
        compute_uv (bool): False returns the singular values only.

    Returns:
        tuple (S, U, V) (MindSpore's order; V, not V^H), or S.
    """
    if not compute_uv:
        return apply(REGISTRY["SvdVals"], (input,))
    u, s, vh = apply(REGISTRY["Svd"], (input,), (bool(full_matrices),))
    return s, u, _conj_t(vh)


def svdvals(input) -> Tensor:
    """Singular values, descending."""
    return apply(REGISTRY["SvdVals"], (input,))


def eig(A):
    """Eigenvalues and right eigenvectors of square matrices (complex).

    Returns:
        tuple (eigenvalues (..., n), eigenvectors (..., n, n)).
    """
    return apply(REGISTRY["Eig"], (A,), (True,))


def eigvals(A) -> Tensor:
    """Eigenvalues of square matrices (complex)."""
    return apply(REGISTRY["Eig"], (A,), (False,))[0]


def pinv(x, *, atol=None, rtol=None, hermitian=False) -> Tensor:
    """Moore-Penrose pseudo-inverse (singular values below max(atol, rtol * the matrix's largest) treated as 0; with
    `hermitian`, only the lower triangle is read)."""
    if atol is None:
        return apply(REGISTRY["Pinv"], (x,), (None if rtol is None else float(rtol), bool(hermitian)))
    # an absolute cut-off (a number or a Tensor): from the SVD in ops, so that it also runs inside a graph
    if hermitian:
        x = array.tril(x) + _conj_t(array.tril(x, -1))
    s, u, v = svd(x)
    largest = math.amax(s, -1, True) if s.shape[-1] else s
    cut = math.maximum(math.cast(atol, s.dtype) if isinstance(atol, Tensor) else atol, largest * (rtol or 0.0))
    keep = math.greater(s, cut)
    inverse = array.where(keep, math.reciprocal(array.where(keep, s, array.ones_like(s))), array.zeros_like(s))
    return math.matmul(v * array.expand_dims(math.cast(inverse, v.dtype), -2), _conj_t(u))


def lu_solve(b, LU_data, LU_pivots) -> Tensor:  # noqa: N803
    """Solve A X = b from A's LU factorisation (`LU_data`, 1-based `LU_pivots`, as LAPACK's getrf)."""
    return apply(REGISTRY["LuSolve"], (b, LU_data, LU_pivots))


def lu_unpack(LU_data, LU_pivots, unpack_data=True, unpack_pivots=True):  # noqa: N803
    """(P, L, U) from a packed LU factorisation with 1-based pivots; P is None without `unpack_pivots`, L and U
    are None without `unpack_data` (MindSpore's placeholders).

    Returns:
        tuple (P, L, U).
    """
    m, n = LU_data.shape[-2:]
    k = min(m, n)
    pmat = None
    if unpack_pivots:
        # P = S_0 S_1 ... S_{k-1}, S_i the identity with rows i and pivots[i] - 1 swapped: one-hot rows built in ops,
        # so that the pivots may be unknown (inside a graph)
        eye = array.eye(m, m, LU_data.dtype)
        pmat = None
        for i in range(LU_pivots.shape[-1]):
            e_i = eye[i]
            e_j = array.one_hot(LU_pivots[..., i] - 1, m, 1.0, 0.0).astype(LU_data.dtype)
            d = array.expand_dims(e_i - e_j, -1)
            swap = eye - math.matmul(d, array.swapaxes(d, -1, -2))
            pmat = swap if pmat is None else math.matmul(pmat, swap)
        if pmat is None:
            pmat = array.broadcast_to(eye, (*LU_pivots.shape[:-1], m, m))
    if not unpack_data:
        return pmat, None, None
    lower = array.tril(LU_data, -1)[..., :, :k] + array.eye(m, k, LU_data.dtype)
    upper = array.triu(LU_data)[..., :k, :]
    return pmat, lower, upper


def lstsq(input, A) -> Tensor:
    """Least-squares solution X of `input @ X = A`.

    Args:
        input (Tensor): (m, n) the matrix.
        A (Tensor): (m, k) or (m,) the right-hand side.

    Returns:
        Tensor (n, k) or (n,).
    """
    return apply(REGISTRY["Lstsq"], (input, A))


def geqrf(input):
    """QR factorisation in LAPACK's compact form: (Householder vectors and R packed, tau)."""
    return apply(REGISTRY["Geqrf"], (input,))


def orgqr(input, input2) -> Tensor:
    """The Q of a QR factorisation from `geqrf`'s packed Householder vectors and `tau` (`input2`)."""
    return apply(REGISTRY["Orgqr"], (input, input2))


def ormqr(input, tau, other, left=True, transpose=False) -> Tensor:
    """Multiply `other` by the Q of `geqrf`'s output (Q or Q^H, from the left or the right)."""
    m = input.shape[-2]
    full = array.pad(input, (0, m - input.shape[-1])) if input.shape[-1] < m else input
    q = orgqr(full, array.pad(tau, (0, m - tau.shape[-1])) if tau.shape[-1] < m else tau)
    if transpose:
        q = _conj_t(q)
    return math.matmul(q, other) if left else math.matmul(other, q)


def matrix_exp(input) -> Tensor:
    """Matrix exponential of square matrices."""
    return apply(REGISTRY["MatrixExp"], (input,))


def matrix_power(input, n) -> Tensor:
    """`input` multiplied by itself `n` times (n < 0: of its inverse; n == 0: identity)."""
    x = input
    if n < 0:
        x, n = math.inverse(x), -n
    size = input.shape[-1]
    result = array.broadcast_to(array.eye(size, size, input.dtype), input.shape)
    base = x
    while n:
        if n & 1:
            result = math.matmul(result, base)
        n >>= 1
        if n:
            base = math.matmul(base, base)
    return result


def matrix_solve(matrix, rhs, adjoint=False) -> Tensor:
    """Solve `matrix @ X = rhs` (`matrix` adjointed first when `adjoint`)."""
    return apply(REGISTRY["MatrixSolve"], (matrix, rhs), (bool(adjoint),))


def triangular_solve(b, A, upper=True, transpose=False, unitriangular=False):  # noqa: N803
    """Solve A X = b for triangular A.

    Returns:
        tuple (X, A).
    """
    x = apply(REGISTRY["MatrixTriangularSolve"], (A, b), (not upper, bool(transpose), bool(unitriangular)))
    return x, A


def matrix_determinant(input) -> Tensor:
    """Determinant of square matrices (`ops.det`)."""
    return det(input)


def log_matrix_determinant(input):
    """(sign, log|det|) of square matrices."""
    return slogdet(input)


def cond(A, p=None) -> Tensor:
    """Condition number of matrices in the norm `p` (None: 2-norm, ratio of extreme singular values)."""
    if p is None or p in (2, -2):
        s = svdvals(A)
        big, small = math.amax(s, -1), math.amin(s, -1)
        return big / small if p in (None, 2) else small / big
    return matrix_norm(A, p) * matrix_norm(math.inverse(A), p)


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
