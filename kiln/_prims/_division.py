"""Division that the backend keeps as a division.

XLA's algebraic simplifier turns a division by a broadcast divisor (a scalar, a kept-dims reduction, a mean's count)
into a multiplication by the divisor's rounded reciprocal: a third of float32 quotients came out one ulp from the
correctly rounded quotient (float16 alike), where MindSpore's CPU kernels divide. In float16/bfloat16, where one ulp
shows in a network's numbers, a broadcast divisor materialised behind an optimization barrier keeps the division, at
the cost of one array of the output's size.
"""

from __future__ import annotations

from kiln._backend import jnp, lax
from kiln._prims._low_precision import HALF_DTYPES, broadcast_in_float32


def true_divide(x, y, exact: bool = False):
    """x / y; where the quotient is float16/bfloat16 and its floating divisor is broadcast, correctly rounded (the
    divisor broadcast through float32, so that its gradient sums in float32: `broadcast_in_float32`). A float32
    quotient keeps XLA's product by the reciprocal (within one ulp): the barrier cost the transformer benchmark's
    step about 10%, and one float32 ulp is below what any comparison with MindSpore can resolve. `exact`: also a
    float32 quotient that is then rounded to half precision (a float16 mean)."""
    x, y = jnp.asarray(x), jnp.asarray(y)
    shape = jnp.broadcast_shapes(x.shape, y.shape)
    if y.shape != shape and (exact or jnp.result_type(x, y) in HALF_DTYPES):
        y = lax.optimization_barrier(jnp.broadcast_to(broadcast_in_float32(y, shape), shape))
    return jnp.true_divide(broadcast_in_float32(x, shape), y)
