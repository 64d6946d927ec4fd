"""The frontend protocol: how a function's Python becomes equations of the graph being recorded.

A frontend is called as `frontend(ctx, fn, args, kwargs)` while a Trace is current and the arguments
hold symbolic Tensors; every op it runs appends equations to the trace, and it returns the function's
value. The compile driver (`build`) does the rest the same way for every frontend: state, passes,
lowering, caching.

- "ast" (PSJit, the default): user functions and Cells are parsed and interpreted with graph semantics
  (Tensor `if`/`while` become `cond`/`while` equations); library code runs as Python on the Tensors.
- "trace": the function runs as plain Python on symbolic Tensors (no control flow on Tensor values).
- "bytecode" (PIJit): the function's CPython bytecode is executed symbolically (`frontend/bytecode`); as a
  frontend it captures one graph (a graph break is an error). `jit(capture_mode="bytecode")` itself runs
  through `bytecode.run_jit`: guarded graphs, graph breaks as Python steps, side effects replayed.
"""

from __future__ import annotations

from kiln._compiler.frontend import bytecode
from kiln._compiler.frontend.ast import calls


def capture_ast(ctx, fn, args: list, kwargs: dict | None):
    """Compile user code from its source; call library code as Python."""
    if calls.is_user_function(calls.unwrap(fn)) or calls.is_cell(fn):
        return calls.call(ctx, fn, list(args), kwargs or None, None)
    # Library code passed straight to jit (jit(ops.masked_select)) runs as Python on the symbolic Tensors, as it
    # would when called from user code: a value-dependent call becomes a host step under jit_syntax_level LAX.
    return calls.run_library(ctx, fn, list(args), kwargs or None)


def capture_trace(ctx, fn, args: list, kwargs: dict | None):
    """Run as Python on symbolic Tensors (nested Cells too)."""
    ctx.trace_only = True
    return fn(*args, **(kwargs or {}))


def capture_bytecode(ctx, fn, args: list, kwargs: dict | None):
    """Execute the bytecode symbolically (one graph; a graph break is an error)."""
    return bytecode.capture_bytecode(ctx, fn, args, kwargs)


FRONTENDS = {"ast": capture_ast, "trace": capture_trace, "bytecode": capture_bytecode}


def frontend(capture_mode: str):
    """The frontend for a `jit(capture_mode=...)`."""
    return FRONTENDS[capture_mode]


__all__ = ["FRONTENDS", "capture_ast", "capture_bytecode", "capture_trace", "frontend"]
