"""GRAPH_MODE for Cells: `Cell.__call__` hands the call to `run_cell`."""

from __future__ import annotations


def run_cell(cell, args: tuple, kwargs: dict):
    """Run `cell(*args, **kwargs)` as a compiled graph; NotImplemented lets Cell.__call__ run it as Python."""
    from kiln._compiler.analysis import calls  # noqa: PLC0415
    from kiln._compiler.analysis.interp import Context, active  # noqa: PLC0415

    ctx = active()
    construct = calls.unwrap(type(cell).construct)
    user = calls.is_user_function(construct)
    if ctx is not None:  # inside a compile: inline user cells, run library cells on the symbolic tensors
        if getattr(ctx, "trace_only", False) or not user:
            return NotImplemented
        return calls.call_cell(ctx, cell, list(args), kwargs)
    from kiln._compiler.api import _syntax_level, graph_mode  # noqa: PLC0415
    from kiln._pynative import tape  # noqa: PLC0415

    lax = _syntax_level({}, None, cell)
    if tape.recording:
        # A PyNative gradient is being recorded: run with graph semantics, eagerly, so the tape sees every op.
        if not user:
            return NotImplemented
        with Context(lax=lax, tracing=False) as ectx:
            return calls.call_cell(ectx, cell, list(args), kwargs)
    d = cell.__dict__
    cache = d.get("_kiln_graph_cache")
    if cache is None:
        from kiln._compiler.cache import JitCache  # noqa: PLC0415

        cache = JitCache(f"{type(cell).__name__}.construct")
        d["_kiln_graph_cache"] = cache
    signature = d.get("_input_signature")
    if signature:
        from kiln._compiler.api import _check_signature  # noqa: PLC0415

        _check_signature(signature, args)

    def body(c, *a, **k):
        return calls.call_cell(active(), c, list(a), k)

    def compile_fn(template, leaves, params, cells):
        from kiln._compiler.lower import build, enable_persistent_cache  # noqa: PLC0415

        enable_persistent_cache()
        return build(cache.name, body, template, leaves, params, cells, lax, graph_mode)

    return cache.call((cell, *args), kwargs or {}, compile_fn)
