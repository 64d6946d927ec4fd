"""IR optimisation passes, run once per parsed function."""

from __future__ import annotations


def optimize(pf) -> None:
    """Run the passes on a ParsedFunction in place."""
    return None
