"""Text (`.ir`, MindIR-like) and Graphviz (`.dot`) printers of function graphs."""

from __future__ import annotations

from kiln._compiler.frontend.ast.node import Apply, Const, FuncGraph, Node, Param
from kiln._compiler.frontend.ast.ops import Op

MARK = "#------------------------> here"


def describe_value(v) -> str:
    """A short, stable text for a constant or an abstract value."""
    if isinstance(v, FuncGraph):
        return f"@{v.name}.{v.id}"
    if isinstance(v, Op):
        return v.name
    if isinstance(v, (str, int, float, bool, type(None))):
        return repr(v)
    if isinstance(v, tuple) and len(v) <= 8:
        return "(" + ", ".join(describe_value(x) for x in v) + ("," if len(v) == 1 else "") + ")"
    if hasattr(v, "shape") and hasattr(v, "dtype"):
        return f"Tensor[{v.dtype}]{list(v.shape)}"
    if isinstance(v, type):
        return f"<class {v.__name__}>"
    name = getattr(v, "__qualname__", None) or getattr(v, "__name__", None)
    if name:
        return f"<{name}>"
    return f"<{type(v).__name__}>"


class _Names:
    def __init__(self, graphs: list[FuncGraph]) -> None:
        self.ids: dict[int, str] = {}
        n_para = n_node = 0
        for g in graphs:
            for p in g.all_params():
                n_para += 1
                self.ids[id(p)] = f"%para{n_para}"
            for a in g.nodes:
                n_node += 1
                self.ids[id(a)] = f"%{n_node}"

    def ref(self, node: Node) -> str:
        if isinstance(node, Const):
            return describe_value(node.value)
        return self.ids.get(id(node), f"%?{node.id}")


def _apply_text(a: Apply, names: _Names) -> str:
    head = a.inputs[0]
    args = [names.ref(x) for x in a.inputs[1:]]
    if a.kw:
        n = len(a.kw)
        args = args[:-n] + [f"{k}={v}" for k, v in zip(a.kw, args[-n:], strict=True)]
    if isinstance(head, Const) and isinstance(head.value, Op):
        return f"{head.value.name}({', '.join(args)})"
    callee = names.ref(head)
    text = str(head.abstract) if head.abstract is not None else ""
    if text.startswith(("Func[", "Cell[", "Class[")):
        callee = f"{callee}:{text[text.index('[') + 1 : -1]}"
    return f"{callee}({', '.join(args)})"


def _comment(node: Node) -> str:
    parts = []
    if node.abstract is not None:
        parts.append(str(node.abstract))
    if node.loc is not None:
        parts.append(node.loc.short())
    return ("    # " + "  # ".join(parts)) if parts else ""


def print_graphs(graphs: list[FuncGraph], mark: set[int] | None = None, header: str = "") -> str:
    """The readable text form of `graphs` (and their nested graphs); `mark` holds node ids to flag."""
    family: list[FuncGraph] = []
    seen = set()
    for g in graphs:
        for sub in g.walk():
            if id(sub) not in seen:
                seen.add(id(sub))
                family.append(sub)
    names = _Names(family)
    mark = mark or set()
    out = [header] if header else []
    for i, g in enumerate(family, 1):
        where = f"  # {g.loc.file}:{g.loc.line}" if g.loc is not None else ""
        parent = f"[{g.parent.name}.{g.parent.id}]" if g.parent is not None else ""
        out.append(f"# [No.{i}] {g.name}.{g.id}{where}")
        out.append(f"funcgraph {g.name}.{g.id}{parent}(")
        for p in g.all_params():
            ab = f" : {p.abstract}" if p.abstract is not None else ""
            out.append(f"        {names.ref(p)}{ab}    # {p.name}")
        out.append("    ) {")
        for a in g.nodes:
            if a.id in mark:
                out.append(MARK)
            out.append(f"    {names.ref(a)} = {_apply_text(a, names)}{_comment(a)}")
        o = g.output
        if o is not None:
            tail = isinstance(o, Apply) and o.op is not None and o.op.name in ("jump", "if")
            if tail and o.id in mark:
                out.append(MARK)
            text = _apply_text(o, names) if tail else names.ref(o)
            out.append(f"    return {text}{_comment(o) if tail else ''}")
        out.append("}")
        out.append("")
    return "\n".join(out)


def to_dot(graphs: list[FuncGraph]) -> str:
    """Graphviz text: one cluster per graph, edges from inputs to users."""
    family = []
    for g in graphs:
        family.extend(g.walk())
    names = _Names(family)
    lines = ["digraph kiln {", "  compound=true;", "  node [shape=box, fontname=monospace, fontsize=10];"]
    for g in family:
        lines.append(f'  subgraph cluster_{g.id} {{ label="{g.name}.{g.id}";')
        for p in g.all_params():
            lines.append(f'    n{p.id} [label="{names.ref(p)} {p.name}", shape=ellipse];')
        body = list(g.nodes)
        if isinstance(g.output, Apply) and g.output not in g.nodes:
            body.append(g.output)
        for a in body:
            label = _apply_text(a, names).replace('"', "'")
            lines.append(f'    n{a.id} [label="{names.ref(a)} = {label}"];')
        lines.append("  }")
        for a in body:
            for x in a.inputs[1:]:
                if isinstance(x, (Apply, Param)):
                    lines.append(f"  n{x.id} -> n{a.id};")
    lines.append("}")
    return "\n".join(lines)
