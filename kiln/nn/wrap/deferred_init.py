"""`no_init_parameters`: MindSpore's marker for deferred parameter initialisation (Kiln initialises at creation)."""

from __future__ import annotations

import contextlib

__all__ = ["no_init_parameters"]


@contextlib.contextmanager
def no_init_parameters():
    """MindSpore's context manager that defers parameter initialisation until a checkpoint is loaded. Kiln
    initialises parameters at creation (values a checkpoint load then replaces), so this only marks the block."""
    yield
