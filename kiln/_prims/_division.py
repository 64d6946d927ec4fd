"""Division that the backend keeps as a division.

XLA's algebraic simplifier turns a division by a broadcast divisor (a scalar, a kept-dims reduction, a mean's count)
into a multiplication by the divisor's rounded reciprocal: a third of float32 quotients came out one ulp from the
correctly rounded quotient (float16 alike), where MindSpore's CPU kernels divide. In float16/bfloat16, where one ulp
shows in a network's numbers, a broadcast divisor materialised behind an optimization barrier keeps the division, at
the cost of one array of the output's size.
"""

from __future__ import annotations

from collections.abc import Callable

from kiln._backend import jax, jnp, lax
from kiln._prims._low_precision import HALF_DTYPES, broadcast_in_float32


@jax.custom_jvp
def _half_quotient(x, y):
    """x / y of two half-precision arrays of one shape and dtype, differentiated by MindSpore's rule (below)."""
    return jnp.true_divide(x, y)


def _half_quotient_jvp(primals, tangents):
    # MindSpore's Div rule: dx = dout / y, dy = -dout * (out / y). The backend's dy, -dout * x * y**-2, leaves half
    # precision's range: a float16 1 / y**2 is subnormal from |y| = 256 (HyperText's sums of Lorentz factors, about
    # 1500, lost 3 of its 11 bits: its embedding gradients were 6% off) and 0 from |y| = 4096
    (x, y), (dx, dy) = primals, tangents
    out = jnp.true_divide(x, y)
    zero = jax.custom_derivatives.SymbolicZero
    terms = [] if isinstance(dx, zero) else [jnp.true_divide(dx, y)]
    if not isinstance(dy, zero):  # a constant divisor (a count, a scale) adds no work
        # (the barrier: XLA's simplifier rewrites (x / y) / y as x / (y * y), whose float16 y * y overflows)
        terms.append(-(dy * jnp.true_divide(lax.optimization_barrier(out), y)))
    return out, sum(terms[1:], terms[0]) if terms else jnp.zeros_like(out)


_half_quotient.defjvp(_half_quotient_jvp, symbolic_zeros=True)


def true_divide(x, y, exact: bool = False, divide: Callable = jnp.true_divide):
    """x / y; where the quotient is float16/bfloat16 and its floating divisor is broadcast, correctly rounded (the
    divisor broadcast through float32, so that its gradient sums in float32: `broadcast_in_float32`). A float32
    quotient keeps XLA's product by the reciprocal (within one ulp): the barrier cost the transformer benchmark's
    step about 10%, and one float32 ulp is below what any comparison with MindSpore can resolve. `exact`: also a
    float32 quotient that is then rounded to half precision (a float16 mean). `divide`: the division of other
    broadcast operands (the Div primitive's carries MindSpore's derivative in float32 too)."""
    x, y = jnp.asarray(x), jnp.asarray(y)
    shape = jnp.broadcast_shapes(x.shape, y.shape)
    dtype = jnp.result_type(x, y)
    if y.shape != shape and (exact or dtype in HALF_DTYPES):
        y = lax.optimization_barrier(jnp.broadcast_to(broadcast_in_float32(y, shape), shape))
    x = broadcast_in_float32(x, shape)
    if dtype in HALF_DTYPES and x.dtype == y.dtype == dtype:
        return _half_quotient(jnp.broadcast_to(x, shape), jnp.broadcast_to(y, shape))
    return divide(x, y)
