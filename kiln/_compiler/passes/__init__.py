"""Passes over the tensor IR (Kiln graphs of primitive equations), run on every compile.

Each pass is a small rule set in its own file: `fn(graph) -> int` rewrites one
graph in place and returns how many equations it removed or rewrote. `run`
applies them in order to the graph and to every nested graph (cond branches,
loop bodies, differentiated functions).
"""

from __future__ import annotations

from kiln._compiler.ir.graph import Graph
from kiln._compiler.passes.cse import cse
from kiln._compiler.passes.dce import dce
from kiln._compiler.passes.fold import fold
from kiln._compiler.passes.inline import inline
from kiln._compiler.passes.simplify import simplify

PASSES = (
    ("inline", inline),
    ("simplify", simplify),
    ("fold", fold),
    ("cse", cse),
    ("dce", dce),
)


def walk(graph: Graph):
    """`graph` and every graph nested in it, innermost first."""
    for e in graph.eqns:
        for sub in e.subgraphs():
            yield from walk(sub)
    yield graph


def run(graph: Graph, skip: tuple[str, ...] = ()) -> list[tuple[str, int]]:
    """Run every pass (except those named in `skip`) on `graph` and its nested graphs.

    Returns:
        (pass name, number of changes) for each pass run.
    """
    stats = []
    for name, fn in PASSES:
        if name in skip:
            continue
        stats.append((name, sum(fn(g) for g in list(walk(graph)))))
    return stats


__all__ = ["PASSES", "run", "walk"]
