"""Exceptions of the graph compiler, and the user-facing location block."""

from __future__ import annotations


class GraphSyntaxError(SyntaxError):
    """Python syntax that graph mode (STRICT) cannot compile; the message names file, line and construct."""

    def __str__(self) -> str:
        return self.args[0] if self.args else "graph syntax error"


class GraphCompileError(RuntimeError):
    """A program that parses but cannot be compiled (type join, unsupported use of a value)."""


def where(loc, header: str = "") -> str:
    """`File "x.py", line 3, in f` plus the source line and a caret under the expression."""
    if loc is None:
        return ""
    func = f", in {loc.func}" if loc.func else ""
    head = f'{header}  File "{loc.file}", line {loc.line}{func}\n'
    return head + loc.caret()
