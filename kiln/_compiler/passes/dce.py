"""Dead-code elimination: pure applies whose value nobody uses are dropped."""

from __future__ import annotations

from kiln._compiler.ir.node import FuncGraph
from kiln._compiler.passes.util import op_of, use_counts


def dce(graphs: list[FuncGraph]) -> int:
    """Remove unused pure applies until none is left; returns how many were removed."""
    removed = 0
    while True:
        counts = use_counts(graphs)
        changed = False
        for g in graphs:
            keep = []
            for a in g.nodes:
                op = op_of(a)
                if op is not None and op.pure and counts.get(a.id, 0) == 0:
                    changed = True
                    removed += 1
                    continue
                keep.append(a)
            g.nodes = keep
        if not changed:
            return removed
