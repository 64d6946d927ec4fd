"""Kiln's `nn`: Cell, layers, losses and optimizers (MindSpore's `mindspore.nn`)."""

from kiln.nn.cell import Cell, CellDict, CellList, SequentialCell

__all__ = ["Cell", "CellDict", "CellList", "SequentialCell"]
