"""Graph mode: Kiln's IR, the AST frontend (PSJit), analysis, passes, lowering to XLA, the compile cache.

Importing this package is cheap: the heavy modules load on the first compile.
"""

from __future__ import annotations

import sys


def install_cell_runner(cell_cls=None) -> None:
    """Make `Cell.__call__` compile `construct` in GRAPH_MODE (sets the `Cell._graph_runner` seam).

    Args:
        cell_cls: the Cell class; found in the already-imported `kiln.nn.cell` when omitted.
    """
    if cell_cls is None:
        mod = sys.modules.get("kiln.nn.cell")
        if mod is None:
            return
        cell_cls = mod.Cell
    from kiln._compiler.runner import run_cell  # noqa: PLC0415

    cell_cls._graph_runner = staticmethod(run_cell)


install_cell_runner()
