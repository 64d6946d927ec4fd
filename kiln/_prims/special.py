"""Special functions: Bessel (I, J, K, Y), incomplete gamma and beta, zeta, polygamma, log of the normal CDF.

The Bessel functions K0, K1 (and their exponentially scaled forms) and Y0, Y1 have no XLA kernel: they are
computed on the host by SciPy (`pure_callback`, which works eagerly, in compiled graphs and under vmap), with
their derivatives written by hand from the recurrences (K0' = -K1, K1' = -K0 - K1/x, Y0' = -Y1,
Y1' = Y0 - Y1/x). MindSpore's values at x <= 0 are kept: K* give inf, Y0 -inf, Y1 -inf (nan at 0).
"""

from __future__ import annotations

import numpy as np

from kiln._backend import jax, jnp
from kiln._core.primitive import PrimitiveDef, op_error
from kiln._prims._checks import check_binary
from kiln._prims._low_precision import HALF_DTYPES
from kiln._prims._promote import float32_scalars
from kiln._prims.math import float_of

_sp = jax.scipy.special


def _bessel_j(order):
    def fn(x):
        x = float_of(x)  # the series needs float64 to converge (float32 gives NaN)
        return _sp.bessel_jn(x.astype(jnp.float64), v=order, n_iter=50)[order].astype(x.dtype)

    return fn


SPECIAL_UNARY = {
    "BesselI0": lambda x: _sp.i0(float_of(x)),
    "BesselI0e": lambda x: _sp.i0e(float_of(x)),
    "BesselI1": lambda x: _sp.i1(float_of(x)),
    "BesselI1e": lambda x: _sp.i1e(float_of(x)),
    "BesselJ0": _bessel_j(0),
    "BesselJ1": _bessel_j(1),
}
for _name, _fn in SPECIAL_UNARY.items():
    PrimitiveDef(_name, _fn)


SPECIAL_BINARY = {
    "Igamma": lambda a, x: _sp.gammainc(*jnp.broadcast_arrays(float_of(a), float_of(x))),
    "Igammac": lambda a, x: _sp.gammaincc(*jnp.broadcast_arrays(float_of(a), float_of(x))),
    "Zeta": lambda x, q: _sp.zeta(*jnp.broadcast_arrays(float_of(x), float_of(q))),
}
for _name, _fn in SPECIAL_BINARY.items():
    PrimitiveDef(_name, float32_scalars(_fn), check=check_binary(_name))
Polygamma = PrimitiveDef("Polygamma", lambda x, n: _sp.polygamma(n, float_of(x)), attrs={"n": 0})
Betainc = PrimitiveDef("Betainc", lambda a, b, x: _sp.betainc(a, b, x))


def _scipy(name: str):
    # imported on first use: 0.7 s to import (measured on a loaded machine), for the host Bessel K and Y only
    import scipy.special as sp  # noqa: PLC0415

    return getattr(sp, name)


def _host_bessel(name: str, x):
    def run(v):
        return np.asarray(_scipy(name)(np.asarray(v, np.float64)), dtype=np.dtype(v.dtype))

    return jax.pure_callback(run, jax.ShapeDtypeStruct(x.shape, x.dtype), x, vmap_method="broadcast_all")


def _check_float(op: str):
    def check(x):
        if getattr(x, "dtype", None) is not None and x.dtype.kind != "f":
            raise op_error(op, f"'x' must be a float16, float32 or float64 Tensor, but got {x.dtype}.", TypeError)

    return check


def _edge(name: str, x, y):
    """MindSpore's results outside the domain x > 0."""
    inf = jnp.asarray(jnp.inf, x.dtype)
    if name in ("k0", "k0e", "k1", "k1e"):
        return jnp.where(x <= 0, inf, y)
    if name == "y0":
        return jnp.where(x <= 0, -inf, y)
    return jnp.where(x < 0, -inf, jnp.where(x == 0, jnp.asarray(jnp.nan, x.dtype), y))  # y1


def _bessel(name: str):
    def impl(x):
        return _edge(name, x, _host_bessel(name, x))

    return impl


_K0, _K0E, _K1, _K1E, _Y0, _Y1 = (_bessel(n) for n in ("k0", "k0e", "k1", "k1e", "y0", "y1"))


def _vjp(derivative):
    def rule(x, out, dout):
        return (dout * derivative(x, out),)

    return rule


BesselK0 = PrimitiveDef("BesselK0", _K0, check=_check_float("BesselK0"), vjp=_vjp(lambda x, out: -_K1(x)))
BesselK0e = PrimitiveDef("BesselK0e", _K0E, check=_check_float("BesselK0e"), vjp=_vjp(lambda x, out: out - _K1E(x)))
BesselK1 = PrimitiveDef("BesselK1", _K1, check=_check_float("BesselK1"), vjp=_vjp(lambda x, out: -_K0(x) - out / x))
BesselK1e = PrimitiveDef(
    "BesselK1e", _K1E, check=_check_float("BesselK1e"), vjp=_vjp(lambda x, out: out - _K0E(x) - out / x)
)
BesselY0 = PrimitiveDef("BesselY0", _Y0, check=_check_float("BesselY0"), vjp=_vjp(lambda x, out: -_Y1(x)))
BesselY1 = PrimitiveDef("BesselY1", _Y1, check=_check_float("BesselY1"), vjp=_vjp(lambda x, out: _Y0(x) - out / x))


def _log_ndtr(x):
    if x.dtype in HALF_DTYPES:  # the backend has float32/float64 kernels only
        return jax.scipy.special.log_ndtr(x.astype(jnp.float32)).astype(x.dtype)
    return jax.scipy.special.log_ndtr(x)


LogNdtr = PrimitiveDef("LogNdtr", _log_ndtr)
