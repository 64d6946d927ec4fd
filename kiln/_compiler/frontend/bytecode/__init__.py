"""Bytecode capture (PIJit): symbolic execution of CPython 3.11-3.13 bytecode into Kiln graphs.

`jit(fn, capture_mode="bytecode")` runs `fn` as a chain of captured graphs and Python steps: the bytecode is
executed symbolically (Tensors are symbolic, user functions and Cells inlined, Kiln ops record equations);
what cannot be captured (a host read such as `asnumpy()`, numpy on a Tensor, a C-extension call, unsupported
bytecode) ends the graph, runs in Python, and capture resumes after it. Each graph is cached with guards.

Modules: `instructions` (the interpreter), `tracer` (symbolic capture and Python steps, side effects),
`calls` (what a call does), `state` (values across a graph boundary), `breaks`, `runtime`
(segment caches), `explain`.
"""

from __future__ import annotations

from kiln._compiler.frontend.bytecode import calls as C
from kiln._compiler.frontend.bytecode.explain import Explanation, all_explanations, explain
from kiln._compiler.frontend.bytecode.instructions import GraphBreak
from kiln._compiler.frontend.bytecode.runtime import Unsupported, cache_for, call
from kiln._compiler.frontend.bytecode.tracer import SymbolicRun
from kiln._compiler.guards import Guards


def run_jit(jf, cache, obj, args: tuple, kwargs: dict):
    """`JitFunction.__call__` under capture_mode="bytecode"."""
    fc = cache_for(cache, cache.name)
    fc.fullgraph = bool(jf.options.get("fullgraph"))
    full = [obj, *args] if obj is not None else list(args)
    fn = jf._kiln_fn
    if C.is_cell(fn):  # jit(cell): capture its construct
        full = [fn, *full]
        fn = type(fn).construct
        fn = getattr(fn, "_kiln_fn", fn)
    if not hasattr(fn, "__code__"):  # a callable object without bytecode of its own
        return fn(*full, **kwargs)
    try:
        return call(fc, fn, full, kwargs)
    finally:
        cache.compiles = fc.compiles


def capture_bytecode(ctx, fn, args: list, kwargs: dict | None):
    """The frontend protocol entry: capture `fn` as one graph into the current trace (a break is an error)."""
    f = getattr(fn, "_kiln_fn", fn)
    bound = getattr(fn, "_kiln_self", None)
    if bound is not None:
        args = [bound, *args]
    if not C.is_user_function(getattr(f, "__func__", f)) and not C.is_cell(f):
        return fn(*args, **(kwargs or {}))
    tx = SymbolicRun(f, set(), Guards())
    try:
        return tx.call(None, f, list(args), kwargs or {})
    except GraphBreak as gb:
        file, line = gb.loc or ("?", 0)
        raise Unsupported(f'File "{file}", line {line}: graph break: {gb.reason}') from None
    finally:
        tx.undo_all()


__all__ = ["Explanation", "Unsupported", "all_explanations", "capture_bytecode", "explain", "run_jit"]
