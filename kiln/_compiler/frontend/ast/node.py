"""Nodes and function graphs.

A `FuncGraph` has parameters, apply nodes in program order and one output.
Graphs are values: a `Const` holding a graph evaluates to a closure over the
frame of the graph's `parent`, so a child graph reads its ancestors' nodes as
free variables (MindIR's nested graphs). Control flow is continuation-passing:
a graph may end in a tail call (`jump`) or an `if` between two child graphs.
"""

from __future__ import annotations

import itertools
from typing import Any

from kiln._compiler.frontend.ast.ops import Op

_ids = itertools.count(1)


class Loc:
    """Where a node came from in the user's source."""

    __slots__ = ("file", "line", "col", "end_col", "text", "func")

    def __init__(self, file: str, line: int, col: int, end_col: int | None, text: str, func: str = "") -> None:
        self.file, self.line, self.col, self.end_col, self.text, self.func = file, line, col, end_col, text, func

    def short(self) -> str:
        name = self.file.rsplit("/", 1)[-1]
        return f"{name}:{self.line} {self.text.strip()}"

    def caret(self) -> str:
        """The source line and a caret line under the expression."""
        line = self.text.rstrip("\n")
        stripped = line.lstrip()
        indent = len(line) - len(stripped)
        start = max(self.col - indent, 0)
        end = self.end_col - indent if self.end_col is not None and self.end_col > self.col else len(stripped)
        end = max(min(end, len(stripped)), start + 1)
        return f"    {stripped}\n    {' ' * start}{'^' * (end - start)}"

    def __repr__(self) -> str:
        return f"{self.file}:{self.line}"


class Node:
    """Base of the three node kinds; `abstract` is filled in by analysis."""

    __slots__ = ("id", "loc", "graph", "abstract")

    def __init__(self, graph: FuncGraph | None, loc: Loc | None) -> None:
        self.id = next(_ids)
        self.graph = graph
        self.loc = loc
        self.abstract = None


class Param(Node):
    """A parameter of a graph."""

    __slots__ = ("name",)

    def __init__(self, graph: FuncGraph, name: str, loc: Loc | None = None) -> None:
        super().__init__(graph, loc)
        self.name = name


class Const(Node):
    """A constant: a Python value, an `Op`, or a `FuncGraph` (a graph as a value)."""

    __slots__ = ("value",)

    def __init__(self, value: Any, loc: Loc | None = None) -> None:
        super().__init__(None, loc)
        self.value = value


class Apply(Node):
    """`inputs[0](*inputs[1:])`; `kw` names the trailing keyword arguments."""

    __slots__ = ("inputs", "kw", "meta")

    def __init__(self, graph: FuncGraph, inputs: list[Node], loc: Loc | None, kw: tuple[str, ...] = ()) -> None:
        super().__init__(graph, loc)
        self.inputs = inputs
        self.kw = kw
        self.meta: dict | None = None

    @property
    def op(self):
        """The `Op` this node applies, or None for a call of a value."""
        head = self.inputs[0]
        return head.value if isinstance(head, Const) and isinstance(head.value, Op) else None


class FuncGraph:
    """A function graph.

    Attributes:
        name: display name (`construct`, `construct.if_true.3`).
        params: positional parameters; `vararg`/`kwarg` name the `*args`/`**kw` ones.
        nodes: apply nodes in program order (evaluation order, side effects included).
        output: the returned node, or a tail `jump`/`if` apply (not listed in `nodes`).
        parent: the enclosing graph whose nodes this one may read.
        kind: "fn", "lambda", "if_true", "if_false", "join", "loop_header", "loop_body", "loop_exit", "loop_after".
        namespace: resolves global names (shared by the graphs of one parsed function).
    """

    _counter = itertools.count(1)

    def __init__(self, name: str, parent: FuncGraph | None, kind: str, loc: Loc | None, namespace=None) -> None:
        self.id = next(FuncGraph._counter)
        self.name = name
        self.parent = parent
        self.kind = kind
        self.loc = loc
        self.namespace = namespace if namespace is not None or parent is None else parent.namespace
        self.params: list[Param] = []
        self.param_names: list[str] = []
        self.vararg: Param | None = None
        self.kwarg: Param | None = None
        self.kwonly: list[Param] = []
        self.n_defaults = 0
        self.nodes: list[Apply] = []
        self.output: Node | None = None
        self.return_loc: Loc | None = None  # the `return` statement that sets `output` (for error messages)
        self.children: list[FuncGraph] = []
        if parent is not None:
            parent.children.append(self)

    def add_param(self, name: str, loc: Loc | None = None) -> Param:
        p = Param(self, name, loc)
        self.params.append(p)
        self.param_names.append(name)
        return p

    def all_params(self) -> list[Param]:
        ps = list(self.params)
        if self.vararg is not None:
            ps.append(self.vararg)
        ps.extend(self.kwonly)
        if self.kwarg is not None:
            ps.append(self.kwarg)
        return ps

    def is_within(self, root: FuncGraph) -> bool:
        """True when this graph is `root` or nested inside it."""
        g = self
        while g is not None:
            if g is root:
                return True
            g = g.parent
        return False

    def walk(self):
        """This graph and every graph nested inside it."""
        yield self
        for c in self.children:
            yield from c.walk()

    def __repr__(self) -> str:
        return f"FuncGraph({self.name})"
