"""JAX transformations of a scalar function `f(x, w)` of two arrays, by name: the derivatives a lowering with its own
derivative rule must give exactly as the plain expression does (tests/_prims/test_linalg.py, nn/test_norm.py)."""

from kiln._backend import jax, jnp

TWO_ARGUMENT_TRANSFORMS = {
    "grad": lambda f: jax.grad(f, (0, 1)),
    "jit(grad)": lambda f: jax.jit(jax.grad(f, (0, 1))),
    "jvp": lambda f: lambda x, w: jax.jvp(f, (x, w), (0.3 * x, 0.7 * w)),
    "hessian x": lambda f: jax.hessian(f, 0),
    "hessian w": lambda f: jax.hessian(f, 1),
    "jacfwd": lambda f: jax.jacfwd(f, 1),
    "grad of grad": lambda f: jax.grad(lambda x, w: jnp.sum(jax.grad(f, 1)(x, w) ** 2), 0),
}
