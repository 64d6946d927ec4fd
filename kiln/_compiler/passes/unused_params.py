"""Unused-parameter elimination for join and loop graphs (the arguments of every jump to them go too)."""

from __future__ import annotations

from kiln._compiler.ir.node import FuncGraph
from kiln._compiler.passes.util import jump_sites, use_counts

_KINDS = ("join", "loop_after", "loop_header")


def drop_unused_params(graphs: list[FuncGraph]) -> int:
    """Remove parameters nobody reads from join/loop graphs; returns how many were removed."""
    removed = 0
    counts = use_counts(graphs)
    sites = jump_sites(graphs)
    for g in graphs:
        if g.kind not in _KINDS or not g.params:
            continue
        calls = sites.get(g.id, [])
        keep = [i for i, p in enumerate(g.params) if counts.get(p.id, 0) > 0]
        if len(keep) == len(g.params):
            continue
        if any(len(c.inputs) - 2 != len(g.params) for c in calls):
            continue  # not a plain positional jump: leave it
        for c in calls:
            args = c.inputs[2:]
            c.inputs = [*c.inputs[:2], *(args[i] for i in keep)]
        removed += len(g.params) - len(keep)
        g.params = [g.params[i] for i in keep]
        g.param_names = [g.param_names[i] for i in keep]
    return removed
