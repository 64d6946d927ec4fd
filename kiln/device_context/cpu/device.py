"""Whether Kiln can compute on the CPU, and on how many CPU devices."""

from __future__ import annotations


def is_available() -> bool:
    """Whether the CPU backend is available: always (JAX's CPU platform is always started, see kiln/_backend)."""
    return True


def device_count() -> int:
    """The number of compute-capable CPU devices: 1, as MindSpore counts the CPU."""
    return 1
