"""Whether an NVIDIA GPU is usable, and how many."""

from __future__ import annotations

from kiln import _backend as B


def is_available() -> bool:
    """Whether JAX sees an NVIDIA GPU (Kiln installed with its CUDA extra on a machine with a GPU)."""
    return bool(B.devices("gpu"))


def device_count() -> int:
    """The number of GPUs this process can use. Raises RuntimeError when there is none (as MindSpore does)."""
    found = B.devices("gpu")
    if not found:
        raise RuntimeError("Device_target GPU not exist.")
    return len(found)
