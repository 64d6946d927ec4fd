"""JAX's platforms as Kiln needs them: JAX's CPU platform beside an accelerator.

A host step inside a compiled program (`print`, `asnumpy()`, a data-dependent shape, a PyFunc) is a JAX host
callback, and JAX runs every host callback on its CPU device (`jax.io_callback` and `jax.pure_callback` move their
inputs there): with `JAX_PLATFORMS=cuda` alone each one fails ("failed to find a local CPU device"). Kiln adds
`cpu` to the platforms the user named, before JAX starts them; the default device stays the accelerator.
"""

from __future__ import annotations

import warnings

import jax
from jax._src import xla_bridge  # whether JAX has started its platforms (no public name for it)


def with_cpu(platforms: str | None) -> str | None:
    """`platforms` (JAX_PLATFORMS' value) with `cpu` added when it names platforms but not `cpu`, else None
    (nothing to change: unset, empty, or `cpu` already named)."""
    names = [p.strip() for p in (platforms or "").split(",") if p.strip()]
    if not names or "cpu" in names:
        return None
    return ",".join([*names, "cpu"])


def _started() -> bool:
    started = getattr(xla_bridge, "backends_are_initialized", None)
    return True if started is None else started()


def ensure_cpu() -> str | None:
    """Add JAX's CPU platform to the platforms the user named (JAX_PLATFORMS), before JAX starts them.

    Returns:
        The platforms now set, or None when nothing changed. When JAX already started without its CPU platform
        (the user ran JAX before importing Kiln) nothing can change: a warning says what to set.
    """
    wanted = with_cpu(jax.config.jax_platforms)
    if wanted is None:
        return None
    if _started():
        warnings.warn(
            f"JAX_PLATFORMS={jax.config.jax_platforms!r} leaves out JAX's CPU platform, which Kiln's host steps in "
            "compiled programs (print, asnumpy, data-dependent shapes, PyFunc) need, and JAX has already started: "
            f"set JAX_PLATFORMS={wanted!r} (or import Kiln before running JAX).",
            RuntimeWarning,
            stacklevel=2,
        )
        return None
    jax.config.update("jax_platforms", wanted)
    return wanted


ensure_cpu()  # at import, before anything in Kiln starts JAX's platforms
