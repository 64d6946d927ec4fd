"""Inlining: a graph reached by exactly one jump is merged into the jumping graph."""

from __future__ import annotations

from kiln._compiler.ir.node import Apply, FuncGraph
from kiln._compiler.passes.util import jump_sites, replace_uses

_KINDS = ("join", "loop_after")


def inline_single_jumps(graphs: list[FuncGraph]) -> int:
    """Merge each join/after graph with a single predecessor into it; returns how many were merged."""
    merged = 0
    sites = jump_sites(graphs)
    for t in list(graphs):
        calls = sites.get(t.id, [])
        if t.kind not in _KINDS or len(calls) != 1 or t.vararg is not None:
            continue
        site = calls[0]
        s = site.graph
        if s is t or s.output is not site or not s.is_within(t.parent) or len(site.inputs) - 2 != len(t.params):
            continue
        replace_uses(graphs, {p.id: a for p, a in zip(t.params, site.inputs[2:], strict=True)})
        for a in t.nodes:
            a.graph = s
        s.nodes.extend(t.nodes)
        out = t.output
        if isinstance(out, Apply) and out.graph is t:
            out.graph = s
        s.output = out
        for c in t.children:
            c.parent = s
            s.children.append(c)
        t.parent.children.remove(t)
        graphs.remove(t)
        t.nodes, t.children = [], []
        merged += 1
        sites = jump_sites(graphs)
    return merged
