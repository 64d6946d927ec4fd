"""The backend: the only package in Kiln that imports JAX.

Everything above it reaches XLA through the names re-exported here, so a
different backend would replace this package and nothing else.
"""

from __future__ import annotations

import os

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax
from jax.custom_batching import custom_vmap
from jax.experimental import io_callback
from jax.extend.core import jaxpr_as_fun as as_fun

# first of the backend's modules: its import sets glibc's malloc options before XLA's threads start (host_memory)
import kiln._backend.host_memory  # noqa: F401
from kiln._backend import (
    cache,  # noqa: F401  (turns on the on-disk executable cache)
    callbacks,  # noqa: F401  (user functions called from compiled programs: their exceptions)
    compile_log,  # noqa: F401  (KILN_LOG=compiles: every XLA compile, named)
    gc_pause,  # noqa: F401  (the garbage collector paused while a program is traced and compiled)
    late_errors,  # noqa: F401  (failures a GPU reports at a read)
    platforms,  # noqa: F401  (JAX's CPU platform beside an accelerator: host callbacks need it)
    precision,  # noqa: F401  (float32 matmuls and convolutions on a GPU: full float32 or TF32)
    tiers,  # noqa: F401  (tiered compilation of whole programs)
)
from kiln._backend.taylor import taylor_jet

# Python ints are int64 in MindSpore; float32 stays the default float because
# Kiln always passes explicit dtypes when it builds arrays from Python values.
jax.config.update("jax_enable_x64", True)

Array = jax.Array
jit = jax.jit
vjp = jax.vjp
eval_shape = jax.eval_shape
ShapeDtypeStruct = jax.ShapeDtypeStruct
tree_util = jax.tree_util
random = jax.random
float0 = jax.dtypes.float0

__all__ = [
    "Array",
    "ShapeDtypeStruct",
    "as_array",
    "default_platform",
    "devices",
    "eval_shape",
    "float0",
    "forward_mode_refused",
    "taylor_jet",
    "io_callback",
    "custom_vmap",
    "is_array",
    "is_symbolic_dim",
    "is_tracer",
    "jax",
    "jaxpr_as_fun",
    "jit",
    "jnp",
    "lax",
    "np",
    "random",
    "random_key_data",
    "set_platform",
    "tree_util",
    "vjp",
]

_Tracer = jax.core.Tracer


def forward_mode_refused(err: BaseException) -> bool:
    """Whether `err` is the backend refusing forward-mode differentiation (a jvp) of a function whose derivative
    is declared for reverse mode only (a custom vjp) or of a host callback."""
    text = str(err)
    return (isinstance(err, TypeError) and "forward-mode autodiff (jvp) to a custom_vjp" in text) or (
        isinstance(err, ValueError) and "callbacks do not support JVP" in text
    )


def is_array(value: object) -> bool:
    """True for a concrete backend array or a tracer standing for one."""
    return isinstance(value, (jax.Array, _Tracer))


def is_tracer(value: object) -> bool:
    """True while `value` is abstract, i.e. inside a compiled computation."""
    return isinstance(value, _Tracer)


def is_symbolic_dim(size) -> bool:
    """Whether `size` is a dimension known only when the computation runs.

    Args:
        size: a dimension of a shape (an int, or a symbolic dimension of a shape-polymorphic program).

    Returns:
        True for a symbolic dimension.
    """
    return not isinstance(size, int) and jax.export.is_symbolic_dim(size)


def as_array(value, dtype=None) -> jax.Array:
    """Move host data (NumPy array, scalar, nested list) to the current device."""
    # device_put moves host data without compiling anything (jnp.asarray compiles per shape). On CPU it
    # may alias an aligned NumPy buffer, so it gets a private copy: the caller's array stays theirs.
    return jax.device_put(np.array(value, dtype=dtype, copy=True))


def random_key_data(seed: int) -> jax.Array:
    """The raw uint32 key `jax.random.key_data(jax.random.PRNGKey(seed))` gives, made without compiling.

    `PRNGKey` runs two small XLA programs (a cold process compiles both); for JAX's default threefry
    generator the key is just the seed's high and low 32-bit words, so it is built on the host and moved.

    Args:
        seed: a non-negative int below 2**63 (what PRNGKey accepts with 64-bit integers on).

    Returns:
        The key as a uint32 array of shape (2,) on the current device.
    """
    if jax.config.jax_default_prng_impl != "threefry2x32":  # another generator: its own seeding rule
        return random.key_data(random.PRNGKey(seed))
    if not 0 <= seed < 2**63:
        raise OverflowError(f"A random seed must fit in a signed 64-bit integer, but got {seed}.")
    return jax.device_put(np.array([(seed >> 32) & 0xFFFFFFFF, seed & 0xFFFFFFFF], dtype=np.uint32))


def jaxpr_as_fun(closed_jaxpr):
    """A callable that evaluates a traced program (the graph compiler replays traces with it)."""

    return as_fun(closed_jaxpr)


def devices(platform: str | None = None) -> list:
    """The devices of `platform` (default: the current default platform)."""
    try:
        return jax.local_devices(backend=platform)  # this process's own (all of them in a single process)
    except RuntimeError:
        return []


def default_platform() -> str:
    """The platform new computations run on: that of the device `set_platform` chose (set_context's device_target),
    else JAX's default backend ('gpu' when an NVIDIA GPU is usable, else 'cpu')."""
    chosen = jax.config.jax_default_device
    if chosen is None:
        return jax.default_backend()
    # a Device, or a platform name; JAX names an NVIDIA device's platform 'gpu', its backend 'cuda'
    platform = chosen if isinstance(chosen, str) else chosen.platform
    return "gpu" if platform in ("cuda", "rocm") else platform


def set_platform(target: str) -> None:
    """Point new arrays and computations at `target` ('CPU', 'GPU', 'Ascend')."""
    platform = {"cpu": "cpu", "gpu": "gpu", "cuda": "gpu", "ascend": "cpu"}.get(target.lower())
    if platform is None:
        raise ValueError(f"device_target must be 'CPU', 'GPU' or 'Ascend', but got '{target}'.")
    found = devices(platform)
    if not found:
        if platform == "gpu":
            raise ValueError("device_target 'GPU' was requested, but JAX found no GPU on this machine.")
        found = devices("cpu")
    jax.config.update("jax_default_device", found[0])


if os.environ.get("KILN_PLATFORM"):
    set_platform(os.environ["KILN_PLATFORM"])
