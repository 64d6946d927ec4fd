"""`explain`: what bytecode capture made of a function — its graphs, breaks, guards and recompiles."""

from __future__ import annotations

from kiln._compiler.frontend.bytecode import runtime


class Explanation:
    """The capture record of one jitted function (see `str()` for the report).

    Attributes:
        name: the function's name.
        graphs: (first line, equations, guards) per captured graph.
        breaks: BreakInfo per graph break (reason, file, line, hint).
        recompiles: (line, reason) per recompile.
        eager: (line, why) for resume points that run as Python.
        last_call: graphs and Python steps of the latest call.
    """

    def __init__(self, fc: runtime.FunctionCache, fn) -> None:
        self.name = fc.name
        self.graphs = [(seg.line, seg.n_eqns, seg.guards.describe()) for seg in fc.graphs]
        self.breaks = list(fc.breaks)
        self.recompiles = list(fc.recompiles)
        lines = runtime.Code.of(fn.__code__).lines if fn is not None else None
        self.eager = [(lines[pc] if lines else pc, why) for pc, why in fc.eager_pcs.items()]
        self.last_call = dict(fc.last_call)

    @property
    def graph_count(self) -> int:
        return len(self.graphs)

    @property
    def break_count(self) -> int:
        return len(self.breaks)

    def __str__(self) -> str:
        out = [f"bytecode capture of '{self.name}': {len(self.graphs)} graph(s), {len(self.breaks)} graph break(s), "
               f"{len(self.recompiles)} recompile(s)"]  # fmt: skip
        lc = self.last_call
        out.append(f"  last call: {lc['graphs']} graph(s) and {lc['steps']} Python step(s)")
        for i, (line, n, guards) in enumerate(self.graphs):
            out.append(f"  graph {i}: from line {line}, {n} equation(s), {len(guards)} guard(s)")
            out.extend(f"      guard: {g}" for g in guards)
        for b in self.breaks:
            out.append(f"  break at {b.where()} in {b.function}: {b.reason}")
            if b.hint:
                out.append(f"      to avoid: {b.hint}")
        for line, reason in self.recompiles:
            out.append(f"  recompile at line {line}: {reason}")
        for line, why in self.eager:
            out.append(f"  runs as Python from line {line}: {why}")
        return "\n".join(out)

    __repr__ = __str__


def explain(fn) -> Explanation:
    """The capture record of `fn`, a `jit(..., capture_mode="bytecode")` function (call it first).

    Args:
        fn: the jitted function (or bound method).

    Returns:
        An Explanation (print it for the report).
    """
    cache = getattr(fn, "_cache", None)
    fc = runtime._BY_JIT.get(cache) if cache is not None else None
    if fc is None:
        raise ValueError(f"{fn!r} has not run under capture_mode='bytecode' yet.")
    return Explanation(fc, getattr(fn, "_kiln_fn", None))


def all_explanations() -> list[Explanation]:
    """Every bytecode-captured function that has run in this process."""
    out = []
    for fc in list(runtime._BY_JIT.values()) + list(runtime._BY_CODE.values()):
        out.append(Explanation(fc, fc.fn))
    return out
