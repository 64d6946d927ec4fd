"""GRAPH_MODE for Cells: `Cell.__call__` hands the call to `run_cell`."""

from __future__ import annotations

from kiln._compiler.errors import for_user

_mods: dict = {}


def _load() -> dict:
    """The compiler modules a call needs, imported on first use (importing kiln._compiler stays cheap)."""
    from kiln._compiler import api, cache  # noqa: PLC0415
    from kiln._compiler.frontend.ast import calls, interp  # noqa: PLC0415
    from kiln._pynative import tape  # noqa: PLC0415

    _mods.update(api=api, cache=cache, calls=calls, interp=interp, tape=tape)
    return _mods


def run_cell(cell, args: tuple, kwargs: dict):
    """Run `cell(*args, **kwargs)` as a compiled graph; NotImplemented lets Cell.__call__ run it as Python."""
    m = _mods or _load()
    calls, interp = m["calls"], m["interp"]
    construct = calls.unwrap(type(cell).construct)
    user = calls.is_user_function(construct)
    if interp._ACTIVE:  # inside a compile: inline user cells, run library cells on the symbolic tensors
        ctx = interp._ACTIVE[-1]
        if getattr(ctx, "trace_only", False) or not user:
            return NotImplemented
        return calls.call_cell(ctx, cell, list(args), kwargs)
    api = m["api"]
    if m["tape"].recording:
        # A PyNative gradient is being recorded: run with graph semantics, eagerly, so the tape sees every op.
        if not user:
            return NotImplemented
        with interp.Context(lax=api._syntax_level({}, None, cell), tracing=False) as ectx:
            return calls.call_cell(ectx, cell, list(args), kwargs)
    d = cell.__dict__
    cache = d.get("_kiln_graph_cache")
    if cache is None:
        cache = m["cache"].JitCache(f"{type(cell).__name__}.construct")
        d["_kiln_graph_cache"] = cache
    signature = d.get("_input_signature")
    if signature:
        api._check_signature(signature, args)
        cache.set_dynamic(signature)
    try:
        return cache.call((cell, *args), kwargs or {}, lambda *parts, **kw: _compile(cache, cell, *parts, **kw))
    except Exception as err:  # noqa: BLE001  (re-raised with the user's frames only)
        raise for_user(err) from None


def _compile(cache, cell, template, leaves, params, cells, shapes=None):
    from kiln._compiler.build import build  # noqa: PLC0415

    calls, interp, api = _mods["calls"], _mods["interp"], _mods["api"]

    def body(c, *a, **k):
        return calls.call_cell(interp.active(), c, list(a), k)

    lax = api._syntax_level({}, None, cell)
    return build(cache.name, body, template, leaves, params, cells, lax, api.graph_mode, shapes=shapes)
