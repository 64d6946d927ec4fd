"""More of MindSpore's linear-algebra ops: factorisations (Cholesky, QR, SVD, eig, geqrf), solvers (triangular,
general, Cholesky, LU, least squares), pseudo-inverse, matrix powers, exponential and determinants.

The factorisations and solvers dispatch the primitives declared in `kiln._prims.linalg`; the rest compose existing ops.
"""

from __future__ import annotations

import numpy as np

from kiln._core import dtype as mstype
from kiln._core.primitive import REGISTRY
from kiln._core.tensor import Tensor
from kiln.ops import array, extra_linalg, math
from kiln.ops._helpers import apply, op_error

__all__ = [
    "cholesky", "cholesky_inverse", "cholesky_solve", "qr", "svd", "eig", "eigvals", "pinv", "lu_solve", "lu_unpack",
    "lstsq", "geqrf", "orgqr", "ormqr", "matrix_exp", "matrix_power", "matrix_solve", "matrix_determinant",
    "log_matrix_determinant", "cond",
]  # fmt: skip


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
    """The inverse of A from its Cholesky factor `input_x`."""
    n = input_x.shape[-1]
    eye = array.broadcast_to(array.eye(n, n, input_x.dtype), input_x.shape)
    return cholesky_solve(eye, input_x, upper)


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
    """Moore-Penrose pseudo-inverse (singular values below max(atol, rtol * largest) treated as 0)."""
    if atol is not None:
        s = svdvals(x)
        smax = float(np.max(s.asnumpy())) if s.size else 0.0
        cut = max(float(atol), (float(rtol) if rtol is not None else 0.0) * smax)
        rtol = cut / smax if smax > 0 else 0.0
    return apply(REGISTRY["Pinv"], (x,), (None if rtol is None else float(rtol), bool(hermitian)))


def lu_solve(b, LU_data, LU_pivots) -> Tensor:  # noqa: N803
    """Solve A X = b from A's LU factorisation (`LU_data`, 1-based `LU_pivots`, as LAPACK's getrf)."""
    return apply(REGISTRY["LuSolve"], (b, LU_data, LU_pivots))


def lu_unpack(LU_data, LU_pivots, unpack_data=True, unpack_pivots=True):  # noqa: N803
    """(P, L, U) from a packed LU factorisation with 1-based pivots.

    Returns:
        tuple (P, L, U).
    """
    m, n = LU_data.shape[-2:]
    k = min(m, n)
    piv = LU_pivots.asnumpy().astype(np.int64) - 1
    batch = piv.shape[:-1]
    perm = np.broadcast_to(np.arange(m), (*batch, m)).copy()
    for idx in np.ndindex(*batch):
        p = perm[idx]
        for i, j in enumerate(piv[idx]):
            p[i], p[j] = p[j], p[i]
    pmat = np.zeros((*batch, m, m), LU_data.dtype.np)
    for idx in np.ndindex(*batch):
        pmat[idx][perm[idx], np.arange(m)] = 1
    lower = array.tril(LU_data, -1)[..., :, :k] + array.eye(m, k, LU_data.dtype)
    upper = array.triu(LU_data)[..., :k, :]
    return Tensor(pmat), lower, upper


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
    return extra_linalg.det(input)


def log_matrix_determinant(input):
    """(sign, log|det|) of square matrices."""
    return extra_linalg.slogdet(input)


def cond(A, p=None) -> Tensor:
    """Condition number of matrices in the norm `p` (None: 2-norm, ratio of extreme singular values)."""
    if p is None or p in (2, -2):
        s = svdvals(A)
        big, small = math.amax(s, -1), math.amin(s, -1)
        return big / small if p in (None, 2) else small / big
    return extra_linalg.matrix_norm(A, p) * extra_linalg.matrix_norm(math.inverse(A), p)


_ = mstype
