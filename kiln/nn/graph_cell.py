"""`nn.GraphCell`: a Cell running a graph read by `kiln.load` (the exported StableHLO program)."""

from __future__ import annotations

from kiln.common.export import ExportedGraph
from kiln.nn.cell import Cell

__all__ = ["GraphCell"]


class GraphCell(Cell):
    """A Cell running a graph read by `load` (MindSpore's `nn.GraphCell`).

    Args:
        graph (ExportedGraph): what `kiln.load(file)` returned.
        params_init: not used (the exported weights are constants of the graph); must be empty.
        obf_random_seed: accepted for MindSpore's signature; obfuscation is not supported.

    Raises:
        TypeError: `graph` does not come from `kiln.load`.
        NotImplementedError: `params_init` is given.
    """

    def __init__(self, graph, params_init=None, obf_random_seed=None) -> None:
        super().__init__()
        if not isinstance(graph, ExportedGraph):
            raise TypeError(f"GraphCell: 'graph' must come from kiln.load, but got {type(graph).__name__}.")
        if params_init:
            raise NotImplementedError("GraphCell: the exported weights are constants; 'params_init' is not used.")
        self.graph = graph

    def construct(self, *inputs):
        return self.graph(*inputs)

    def __call__(self, *inputs):
        return self.graph(*inputs)
