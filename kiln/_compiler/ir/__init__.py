"""Kiln's graph IR: function graphs of parameters, constants and apply nodes."""

from kiln._compiler.ir.node import Apply, Const, FuncGraph, Loc, Node, Param
from kiln._compiler.ir.ops import Op

__all__ = ["Apply", "Const", "FuncGraph", "Loc", "Node", "Op", "Param"]
