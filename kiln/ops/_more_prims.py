"""Primitive declarations for the ops of `kiln.ops.more_math` and `kiln.ops.more_linalg`.

Special functions (Bessel, incomplete gamma, zeta, polygamma), integer ops (gcd, lcm, population count), segment
reductions, cumulative log-sum-exp and the matrix factorisations and solvers (Cholesky, QR, SVD, eig, triangular and
general solves, least squares, matrix exponential, Householder products). Each is declared once here with its
backend function; their gradients come from the backend's vjp (the declarations with `nondiff` list integer inputs).
"""

from __future__ import annotations

from kiln._backend import jax, jnp, lax
from kiln._core.primitive import PrimitiveDef, op_error
from kiln._core.prims._checks import check_binary
from kiln._core.prims._promote import float32_scalars

_sp = jax.scipy.special
_la = jax.scipy.linalg


def _float_of(x):
    x = jnp.asarray(x)
    return x if jnp.issubdtype(x.dtype, jnp.inexact) else x.astype(jnp.float32)


def _check_int(op):
    def check(x, y=None, **_):
        for v in (x, y):
            dt = getattr(v, "dtype", None)
            if dt is not None and getattr(dt, "kind", "i") not in "iu":
                raise op_error(op, f"the inputs must be integer tensors, but got {dt}.", TypeError)

    return check


def _bessel_j(order):
    def fn(x):
        x = _float_of(x)  # the series needs float64 to converge (float32 gives NaN)
        return _sp.bessel_jn(x.astype(jnp.float64), v=order, n_iter=50)[order].astype(x.dtype)

    return fn


def _sinc(x):
    x = _float_of(x)
    return jnp.sinc(x)


UNARY = {
    "BesselI0": lambda x: _sp.i0(_float_of(x)),
    "BesselI0e": lambda x: _sp.i0e(_float_of(x)),
    "BesselI1": lambda x: _sp.i1(_float_of(x)),
    "BesselI1e": lambda x: _sp.i1e(_float_of(x)),
    "BesselJ0": _bessel_j(0),
    "BesselJ1": _bessel_j(1),
    "Sinc": _sinc,
    "SignBit": lambda x: jnp.less(x, 0),  # MindSpore 2.10: -0.0 gives False
    "Angle": lambda x: jnp.angle(x),
    "ComplexAbs": lambda x: jnp.abs(x),
}
DEFS: dict[str, PrimitiveDef] = {name: PrimitiveDef(name, fn) for name, fn in UNARY.items()}
DEFS["PopulationCount"] = PrimitiveDef(
    "PopulationCount", lambda x: lax.population_count(x).astype(jnp.uint8), check=_check_int("PopulationCount")
)

BINARY = {
    "Igamma": lambda a, x: _sp.gammainc(*jnp.broadcast_arrays(_float_of(a), _float_of(x))),
    "Igammac": lambda a, x: _sp.gammaincc(*jnp.broadcast_arrays(_float_of(a), _float_of(x))),
    "Zeta": lambda x, q: _sp.zeta(*jnp.broadcast_arrays(_float_of(x), _float_of(q))),
    "CopySign": lambda x, y: jnp.copysign(_float_of(x), _float_of(y)),
    "LogAddExp": lambda x, y: jnp.logaddexp(_float_of(x), _float_of(y)),
    "LogAddExp2": lambda x, y: jnp.logaddexp2(_float_of(x), _float_of(y)),
    "Fmax": jnp.fmax,
    "Fmin": jnp.fmin,
    "Complex": lambda re, im: lax.complex(*jnp.broadcast_arrays(re, im)),
    "Polar": lambda r, theta: lax.complex(r * jnp.cos(theta), r * jnp.sin(theta)),
}
for _name, _fn in BINARY.items():
    DEFS[_name] = PrimitiveDef(_name, float32_scalars(_fn), check=check_binary(_name))
for _name, _fn in {"Gcd": jnp.gcd, "Lcm": jnp.lcm}.items():
    DEFS[_name] = PrimitiveDef(_name, _fn, check=_check_int(_name), nondiff=(0, 1))
DEFS["Polygamma"] = PrimitiveDef("Polygamma", lambda x, n: _sp.polygamma(n, _float_of(x)), attrs={"n": 0})
DEFS["Betainc"] = PrimitiveDef("Betainc", lambda a, b, x: _sp.betainc(a, b, x))
DEFS["CumulativeLogsumexp"] = PrimitiveDef(
    "CumulativeLogsumexp",
    lambda x, axis, reverse: lax.cumlogsumexp(_float_of(x), axis=axis % max(jnp.ndim(x), 1), reverse=reverse),
    attrs={"axis": 0, "reverse": False},
)


def _segment(kind):
    fn = {"sum": jax.ops.segment_sum, "max": jax.ops.segment_max, "min": jax.ops.segment_min,
          "prod": jax.ops.segment_prod}[kind]  # fmt: skip

    def impl(x, ids, num_segments):
        lead = ids.ndim
        flat = x.reshape((-1,) + x.shape[lead:])
        flat_ids = ids.reshape(-1)
        out = fn(flat, flat_ids, num_segments=num_segments)
        if kind in ("max", "min") and jnp.issubdtype(x.dtype, jnp.floating):
            count = jax.ops.segment_sum(jnp.ones_like(flat_ids), flat_ids, num_segments=num_segments)
            count = count.reshape((-1,) + (1,) * (out.ndim - 1))
            edge = jnp.finfo(x.dtype).min if kind == "max" else jnp.finfo(x.dtype).max
            out = jnp.where(count > 0, out, jnp.asarray(edge, x.dtype))
        return out

    return impl


def _check_segment(op):
    def check(x, ids, num_segments):
        xs, s = tuple(getattr(x, "shape", ())), tuple(getattr(ids, "shape", ()))
        if xs[: len(s)] != s:
            raise op_error(op, f"the shape of 'segment_ids' {s} must be a prefix of the input's shape {xs}.")
        if num_segments <= 0:
            raise op_error(op, f"'num_segments' must be positive, but got {num_segments}.")

    return check


def _segment_prod_vjp(x, ids, out, dout, num_segments):
    """d prod / d x_i = prod / x_i (the backend has no rule for a segment product); dropped ids get 0."""
    lead = ids.ndim
    valid = (ids >= 0) & (ids < num_segments)
    safe = jnp.where(valid, ids, 0)
    back = (out * dout)[safe]  # (*ids.shape, *rest)
    mask = valid.reshape(valid.shape + (1,) * (x.ndim - lead))
    return jnp.where(mask, back / x, 0).astype(x.dtype), None


for _kind in ("sum", "max", "min", "prod"):
    _n = f"UnsortedSegment{_kind.capitalize()}"
    DEFS[_n] = PrimitiveDef(
        _n,
        _segment(_kind),
        attrs={"num_segments": 1},
        check=_check_segment(_n),
        nondiff=(1,),
        vjp=_segment_prod_vjp if _kind == "prod" else None,
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


DEFS["Cholesky"] = PrimitiveDef("Cholesky", _cholesky, attrs={"upper": False}, check=_check_matrix("Cholesky", True))
DEFS["Qr"] = PrimitiveDef(
    "Qr", lambda x, mode: tuple(jnp.linalg.qr(x, mode=mode)), attrs={"mode": "reduced"},
    check=_check_matrix("Qr"), multiple_results=True,
)  # fmt: skip
DEFS["Svd"] = PrimitiveDef(
    "Svd",
    lambda x, full_matrices: tuple(jnp.linalg.svd(x, full_matrices=full_matrices)),
    attrs={"full_matrices": False},
    check=_check_matrix("Svd"),
    multiple_results=True,
)
DEFS["SvdVals"] = PrimitiveDef("SvdVals", lambda x: jnp.linalg.svd(x, compute_uv=False), check=_check_matrix("Svd"))
DEFS["Eig"] = PrimitiveDef(
    "Eig", _eig, attrs={"compute_v": False}, check=_check_matrix("Eig", True), multiple_results=True
)
DEFS["MatrixSolve"] = PrimitiveDef(
    "MatrixSolve",
    lambda a, b, adjoint: jnp.linalg.solve(jnp.conj(jnp.swapaxes(a, -1, -2)) if adjoint else a, b),
    attrs={"adjoint": False},
    check=_check_matrix("MatrixSolve", True),
)
DEFS["MatrixTriangularSolve"] = PrimitiveDef(
    "MatrixTriangularSolve",
    _solve_triangular,
    attrs={"lower": True, "adjoint": False, "unit_diagonal": False},
    check=_check_matrix("MatrixTriangularSolve", True),
)
DEFS["LuSolve"] = PrimitiveDef("LuSolve", _lu_solve, nondiff=(2,))
DEFS["Lstsq"] = PrimitiveDef("Lstsq", _lstsq, check=_check_matrix("Lstsq"))


def _check_complex(op):
    def check(x):
        dt = getattr(x, "dtype", None)
        if dt is not None and getattr(dt, "kind", "c") != "c":
            raise op_error(op, f"the input must be complex64 or complex128, but got {dt}.", TypeError)

    return check


DEFS["Angle"].check = _check_complex("Angle")
DEFS["Angle"].check_eagerly = True
DEFS["MatrixExp"] = PrimitiveDef("MatrixExp", lambda x: _la.expm(x), check=_check_matrix("MatrixExp", True))
DEFS["Pinv"] = PrimitiveDef(
    "Pinv",
    lambda x, rtol, hermitian: jnp.linalg.pinv(x, rtol=rtol, hermitian=hermitian),
    attrs={"rtol": None, "hermitian": False},
    check=_check_matrix("Pinv"),
)
DEFS["Geqrf"] = PrimitiveDef("Geqrf", _geqrf, check=_check_matrix("Geqrf"), multiple_results=True)
DEFS["Orgqr"] = PrimitiveDef(
    "Orgqr", lambda a, tau: lax.linalg.householder_product(a, tau), check=_check_matrix("Orgqr")
)
