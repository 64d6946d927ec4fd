"""Helpers shared by the passes: traversal and use replacement over a family of graphs."""

from __future__ import annotations

from kiln._compiler.ir.node import Apply, Const, FuncGraph, Node
from kiln._compiler.ir.ops import Op


def applies(g: FuncGraph) -> list[Apply]:
    """The apply nodes of `g`, its tail (jump/if) included."""
    out = list(g.nodes)
    if isinstance(g.output, Apply) and g.output.graph is g and g.output not in g.nodes:
        out.append(g.output)
    return out


def op_of(a: Apply) -> Op | None:
    head = a.inputs[0]
    return head.value if isinstance(head, Const) and isinstance(head.value, Op) else None


def use_counts(graphs: list[FuncGraph]) -> dict[int, int]:
    """How many inputs and outputs refer to each node (by id)."""
    counts: dict[int, int] = {}
    for g in graphs:
        for a in applies(g):
            for x in a.inputs:
                counts[x.id] = counts.get(x.id, 0) + 1
        if g.output is not None:
            counts[g.output.id] = counts.get(g.output.id, 0) + 1
    return counts


def replace_uses(graphs: list[FuncGraph], mapping: dict[int, Node]) -> None:
    """Make every use of a node in `mapping` (by id) refer to its replacement."""
    if not mapping:
        return

    def sub(n: Node) -> Node:
        while n.id in mapping:
            n = mapping[n.id]
        return n

    for g in graphs:
        for a in applies(g):
            a.inputs = [sub(x) for x in a.inputs]
        if g.output is not None:
            g.output = sub(g.output)


def jump_sites(graphs: list[FuncGraph]) -> dict[int, list[Apply]]:
    """Graph id -> the jumps to it."""
    sites: dict[int, list[Apply]] = {}
    for g in graphs:
        for a in applies(g):
            if op_of(a) is not None and op_of(a).name == "jump":
                sites.setdefault(a.inputs[1].value.id, []).append(a)
    return sites
