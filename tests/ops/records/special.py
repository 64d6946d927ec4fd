"""Op records for the special functions (Bessel, gamma family, sinc) against SciPy."""

from __future__ import annotations

import numpy as np
from scipy import special

from kiln import ops
from tests.ops.records import OpRecord


def _positive(rng, dtype, shapes):
    return [rng.uniform(0.5, 3.0, size=s).astype(dtype) for s in shapes]


R = OpRecord


SPECIAL = [
    R("bessel_i0", ops.bessel_i0, special.i0, shapes=((3, 4),), domain=(-3, 3), rtol=2e-5),
    R("bessel_i0e", ops.bessel_i0e, special.i0e, shapes=((3, 4),), domain=(-3, 3), rtol=2e-5),
    R("bessel_i1", ops.bessel_i1, special.i1, shapes=((3, 4),), domain=(-3, 3), rtol=2e-5),
    R("bessel_i1e", ops.bessel_i1e, special.i1e, shapes=((3, 4),), domain=(-3, 3), rtol=2e-5),
    R("bessel_j0", ops.bessel_j0, special.j0, shapes=((3, 4),), domain=(-3, 3), grad=False, rtol=1e-4, atol=1e-5),
    R("bessel_j1", ops.bessel_j1, special.j1, shapes=((3, 4),), domain=(-3, 3), grad=False, rtol=1e-4, atol=1e-5),
    R("sinc", ops.sinc, np.sinc, shapes=((3, 4),), domain=(-2.3, 2.3), rtol=2e-5, atol=2e-6),
    R(
        "igamma",
        ops.igamma,
        special.gammainc,
        shapes=((3, 4), (3, 4)),
        grad=False,
        rtol=1e-4,
        atol=1e-6,
        extra={"make_inputs": _positive},
    ),  # fmt: skip
    R(
        "igammac",
        ops.igammac,
        special.gammaincc,
        shapes=((3, 4), (4,)),
        grad=False,
        rtol=1e-4,
        atol=1e-6,
        extra={"make_inputs": _positive},
    ),  # fmt: skip
    R(
        "zeta",
        lambda x, q: ops.zeta(x + 1.5, q),
        lambda x, q: special.zeta(x + 1.5, q).astype(x.dtype),
        shapes=((3, 4), (3, 4)),
        grad=False,
        rtol=1e-4,
        extra={"make_inputs": _positive},
    ),  # fmt: skip
    R(
        "polygamma_1",
        lambda x: ops.polygamma(1, x),
        lambda x: special.polygamma(1, x).astype(x.dtype),
        shapes=((3, 4),),
        rtol=1e-4,
        extra={"make_inputs": _positive, "grad_rtol": 1e-3},
    ),  # fmt: skip
    R(
        "mvlgamma",
        lambda x: ops.mvlgamma(x, 3),
        lambda x: (
            special.multigammaln(x, 3)
            if x.ndim == 0
            else np.vectorize(lambda v: special.multigammaln(v, 3))(x).astype(x.dtype)
        ),
        shapes=((3, 4),),
        rtol=1e-5,
        atol=1e-5,
        extra={"make_inputs": lambda r, d, s: [r.uniform(1.5, 4, size=s[0]).astype(d)]},
    ),  # fmt: skip
]  # fmt: skip


RECORDS: list[OpRecord] = [
    *SPECIAL,
]
