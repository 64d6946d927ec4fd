"""Division that the backend keeps as a division.

XLA's algebraic simplifier turns a division by a broadcast divisor (a scalar, a kept-dims reduction, a mean's count)
into a multiplication by the divisor's rounded reciprocal: a third of float32 quotients came out one ulp from the
correctly rounded quotient (float16 alike), where MindSpore's CPU kernels divide. A broadcast divisor materialised
behind an optimization barrier keeps the division, at the cost of one array of the output's size.
"""

from __future__ import annotations

from kiln._backend import jnp, lax
from kiln._prims._low_precision import broadcast_in_float32


def true_divide(x, y):
    """x / y, correctly rounded where a floating divisor is broadcast; a float16/bfloat16 divisor is broadcast through
    float32, so that its gradient sums in float32 (`broadcast_in_float32`)."""
    x, y = jnp.asarray(x), jnp.asarray(y)
    shape = jnp.broadcast_shapes(x.shape, y.shape)
    if y.shape != shape and jnp.issubdtype(jnp.result_type(x, y), jnp.floating):
        y = lax.optimization_barrier(jnp.broadcast_to(broadcast_in_float32(y, shape), shape))
    return jnp.true_divide(broadcast_in_float32(x, shape), y)
