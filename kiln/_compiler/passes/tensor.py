"""Passes over the tensor IR (Kiln graphs of primitive equations), run on every compile.

Each pass rewrites a graph in place and returns how many equations it removed
or rewrote; `run` applies them in order to the graph and every nested graph.
"""

from __future__ import annotations

from kiln._core.graph import Graph

PASSES: list = []


def register(name: str):
    """Add a pass `fn(graph) -> int` to the pipeline."""

    def deco(fn):
        PASSES.append((name, fn))
        return fn

    return deco


def run(graph: Graph, skip: tuple[str, ...] = ()) -> list[tuple[str, int]]:
    """Run every pass (except `skip`); returns (name, changes) per pass."""
    stats = []
    for name, fn in PASSES:
        if name in skip:
            continue
        stats.append((name, fn(graph)))
    return stats
