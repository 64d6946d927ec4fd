"""Passes over the tensor IR (Kiln graphs of primitive equations), run on every compile.

Each pass is a small rule set in its own file: `fn(graph) -> int` rewrites one
graph in place and returns how many equations it removed or rewrote (0: no change).
`run` applies them in order to the graph and to every nested graph (cond branches,
loop bodies, differentiated functions), and again until a round changes nothing
(one pass's result is often another's opportunity: a fold exposes an x*1).
"""

from __future__ import annotations

from kiln._compiler.ir.graph import Graph
from kiln._compiler.passes.cse import cse
from kiln._compiler.passes.dce import dce
from kiln._compiler.passes.fold import fold
from kiln._compiler.passes.grad_forward import share_grad_forward
from kiln._compiler.passes.inline import inline
from kiln._compiler.passes.simplify import simplify

PASSES = (
    ("inline", inline),
    ("simplify", simplify),
    ("fold", fold),
    ("cse", cse),
    ("grad_forward", share_grad_forward),
    ("dce", dce),
)


def walk(graph: Graph):
    """`graph` and every graph nested in it, innermost first."""
    for e in graph.eqns:
        for sub in e.subgraphs():
            yield from walk(sub)
    yield graph


MAX_ROUNDS = 8  # a safety bound: every rule shrinks the graph or shortens a chain, so rounds end sooner


def run(graph: Graph, skip: tuple[str, ...] = ()) -> list[tuple[str, int]]:
    """Run every pass (except those named in `skip`) on `graph` and its nested graphs, to a fixed point.

    Args:
        graph: the graph, rewritten in place.
        skip: names of passes not to run.

    Returns:
        (pass name, number of changes over all rounds) for each pass run.
    """
    totals = {name: 0 for name, _ in PASSES if name not in skip}
    for _ in range(MAX_ROUNDS):
        changed = 0
        for name, fn in PASSES:
            if name in skip:
                continue
            n = sum(fn(g) for g in list(walk(graph)))
            totals[name] += n
            changed += n
        if not changed:
            break
    return list(totals.items())


__all__ = ["PASSES", "run", "walk"]
