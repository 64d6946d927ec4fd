"""Waiting for, querying and tracing the work queued on the devices, for the runtime API above the backend."""

from __future__ import annotations

from contextlib import AbstractContextManager

import jax


def wait_for_devices() -> None:
    """Block until every computation queued so far, side effects included, has finished."""
    jax.effects_barrier()
    for array in jax.live_arrays():
        try:
            array.block_until_ready()
        except RuntimeError:  # deleted between listing and waiting
            pass


def devices_idle() -> bool:
    """True when no live array is still being computed."""
    return all(a.is_ready() for a in jax.live_arrays())


def unfinished_arrays() -> list:
    """The live arrays whose computation has not finished yet."""
    return [a for a in jax.live_arrays() if not a.is_ready()]


def start_trace(output_path: str) -> None:
    """Start JAX's profiler trace, written under `output_path`."""
    jax.profiler.start_trace(output_path)


def stop_trace() -> None:
    """Stop the profiler trace started by `start_trace` and write it."""
    jax.profiler.stop_trace()


def drop_compiled_programs() -> None:
    """Forget every compiled program held in memory (they compile again when next needed)."""
    jax.clear_caches()


def on_device(device) -> AbstractContextManager:
    """A context in which new arrays and computations go to `device`."""
    return jax.default_device(device)
