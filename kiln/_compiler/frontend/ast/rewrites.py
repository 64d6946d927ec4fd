"""Rewrites of the Python-level IR (the parsed form of a user function), run once per parsed function.

Each rule set is `fn(graphs) -> int` (how much it changed) over a function's family of graphs: inline
single-predecessor joins, fold constant Python operations, share pure repeats, drop unused join/loop
parameters, drop dead pure applies. `optimize` runs them in that order and records a dump stage per change.
The tensor IR has its own passes (`kiln/_compiler/passes`).
"""

from __future__ import annotations

from kiln._compiler import dump
from kiln._compiler.frontend.ast import ops as O
from kiln._compiler.frontend.ast.node import Apply, Const, FuncGraph, Node
from kiln._compiler.frontend.ast.ops import Op

# -- Helpers shared by the passes: traversal and use replacement over a family of graphs ----------


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


# -- Inlining: a graph reached by exactly one jump is merged into the jumping graph ---------------

_INLINED_KINDS = ("join", "loop_after")


def inline_single_jumps(graphs: list[FuncGraph]) -> int:
    """Merge each join/after graph with a single predecessor into it; returns how many were merged."""
    merged = 0
    sites = jump_sites(graphs)
    for t in list(graphs):
        calls = sites.get(t.id, [])
        if t.kind not in _INLINED_KINDS or len(calls) != 1 or t.vararg is not None:
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


# -- Constant folding: pure operations on Python constants are computed once, at parse time -------

_FOLDABLE = {O.MAKE_TUPLE: tuple, O.MAKE_SLICE: lambda *a: slice(*a), O.JOIN_STR: lambda *a: "".join(map(str, a))}
_SAFE = (int, float, bool, str, type(None), tuple, slice)


def _is_const(n) -> bool:
    return isinstance(n, Const) and isinstance(n.value, _SAFE)


def fold_constants(graphs: list[FuncGraph]) -> int:
    """Replace foldable applies whose inputs are all constants; returns how many were folded."""
    mapping = {}
    for g in graphs:
        keep = []
        for a in g.nodes:
            op = op_of(a)
            args = a.inputs[1:]
            fn = _FOLDABLE.get(op) or (op.fold if op is not None and op.fold is not None else None)
            if fn is not None and all(_is_const(x) for x in args):
                try:
                    value = fn(*(x.value for x in args))
                except Exception:  # noqa: BLE001  (an error is reported when the program runs)
                    keep.append(a)
                    continue
                if isinstance(value, _SAFE):
                    mapping[a.id] = Const(value, a.loc)
                    replace_uses(graphs, {a.id: mapping[a.id]})
                    continue
            keep.append(a)
        g.nodes = keep
    return len(mapping)


# -- Common-subexpression elimination of pure operations within a graph ---------------------------

# Fresh mutable containers and closures must stay distinct objects.
_NEVER_SHARED = {O.MAKE_LIST, O.MAKE_DICT, O.MAKE_CLOSURE, O.SETITEM, O.GETITEM, O.UNPACK, O.ITER_INIT}


def _key_of(x):
    if isinstance(x, Const):
        try:
            hash(x.value)
        except TypeError:
            return ("n", x.id)
        return ("c", type(x.value), x.value)
    return ("n", x.id)


def _escaping(graphs: list[FuncGraph]) -> set:
    """Ids of the nodes some call or other impure apply takes: their objects may be written in place there
    (`z.add_(y)`, `AssignAdd()(z, y)`), so two equal expressions must stay two objects, as in Python."""
    out: set = set()
    for g in graphs:
        for a in applies(g):
            op = op_of(a)
            if op is None or not op.pure:
                out.update(x.id for x in a.inputs)
    return out


def cse(graphs: list[FuncGraph]) -> int:
    """Share identical pure applies (same op, same inputs) in each graph, except values passed to a call or other
    impure apply; returns how many were removed."""
    removed = 0
    escaping = _escaping(graphs)
    for g in graphs:
        seen: dict = {}
        keep = []
        for a in g.nodes:
            op = op_of(a)
            if op is None or not op.pure or op in _NEVER_SHARED or a.id in escaping:
                keep.append(a)
                continue
            key = (op.name, a.kw, tuple(_key_of(x) for x in a.inputs[1:]))
            first = seen.get(key)
            if first is None:
                seen[key] = a
                keep.append(a)
            else:
                replace_uses(graphs, {a.id: first})
                removed += 1
        g.nodes = keep
    return removed


# -- Unused-parameter elimination for join and loop graphs (the arguments of every jump to them go too) ---

_PRUNED_KINDS = ("join", "loop_after", "loop_header")


def drop_unused_params(graphs: list[FuncGraph]) -> int:
    """Remove parameters nobody reads from join/loop graphs; returns how many were removed."""
    removed = 0
    counts = use_counts(graphs)
    sites = jump_sites(graphs)
    for g in graphs:
        if g.kind not in _PRUNED_KINDS or not g.params:
            continue
        calls = sites.get(g.id, [])
        keep = [i for i, p in enumerate(g.params) if counts.get(p.id, 0) > 0]
        if len(keep) == len(g.params):
            continue
        if any(len(c.inputs) - 2 != len(g.params) for c in calls):
            continue  # not a plain positional jump: leave it
        for c in calls:
            args = c.inputs[2:]
            c.inputs = [*c.inputs[:2], *(args[i] for i in keep)]
        removed += len(g.params) - len(keep)
        g.params = [g.params[i] for i in keep]
        g.param_names = [g.param_names[i] for i in keep]
    return removed


# -- Dead-code elimination: pure applies whose value nobody uses are dropped ----------------------


def dce(graphs: list[FuncGraph]) -> int:
    """Remove unused pure applies until none is left; returns how many were removed.

    A name lookup stays even when its value is unused: `undefined_name` alone on a line is a NameError in Python.
    """
    removed = 0
    while True:
        counts = use_counts(graphs)
        changed = False
        for g in graphs:
            keep = []
            for a in g.nodes:
                op = op_of(a)
                if op is not None and op.pure and op is not O.RESOLVE and counts.get(a.id, 0) == 0:
                    changed = True
                    removed += 1
                    continue
                keep.append(a)
            g.nodes = keep
        if not changed:
            return removed


# -- the pipeline ----------------------------------------------------------------------------------

PASSES = (
    ("inline", inline_single_jumps),
    ("fold", fold_constants),
    ("cse", cse),
    ("unused_params", drop_unused_params),
    ("dce", dce),
)


def optimize(pf) -> dict[str, int]:
    """Run the passes on a ParsedFunction in place; returns how much each changed."""
    dump.record_stage(pf, "parse")
    stats = {}
    for name, fn in PASSES:
        stats[name] = fn(list(pf.graph.walk()))
        if stats[name]:
            dump.record_stage(pf, f"pass_{name}")
    return stats


__all__ = ["PASSES", "cse", "dce", "drop_unused_params", "fold_constants", "inline_single_jumps", "op_of", "optimize"]
