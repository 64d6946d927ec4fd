"""Lowering: one whole graph -> one XLA executable.

The analysed program is traced once with symbolic tensors (Parameters and the
random key are inputs too); the resulting backend program is compiled with
`jax.jit`, with the buffers of written Parameters donated. Parameter writes
and the advanced random key are extra outputs, written back after each call.
"""

from __future__ import annotations

import os
import time

from kiln import _backend as B
from kiln._compiler import dump
from kiln._compiler.analysis.interp import Context
from kiln._core import random_state
from kiln._core.tensor import Parameter, Tensor

_MAX_RETRACE = 2


class Executable:
    """A compiled graph plus what a call needs: its Parameters, write-back slots and output layout."""

    __slots__ = (
        "exe", "params", "written", "owned", "n_out", "out_desc", "key_used", "guards", "refs", "name",
        "front_s", "trace_s",
    )  # fmt: skip

    def __call__(self, leaves: list):
        params = self.params
        arrays = [p._data for p in params]
        owned = self.owned
        for k, i in enumerate(self.written):
            if arrays[i] is not owned[k]:
                # The buffer is donated: make sure no other Tensor shares it (a copy without an XLA compile).
                arrays[i] = B.jax.device_put(arrays[i], may_alias=False)
        outs = self.exe(*arrays, random_state.current_key(), *leaves)
        n = self.n_out
        for k, i in enumerate(self.written):
            new = outs[n + k]
            params[i]._data = new
            owned[k] = new
        if self.key_used:
            random_state.swap_key(outs[-1])
        desc = self.out_desc
        if desc is _SINGLE:
            return Tensor._wrap(outs[0])
        return _rebuild_out(desc, outs)


_SINGLE = ("t", 0)


def _describe_out(v, leaves: list):
    if isinstance(v, Tensor):
        leaves.append(v._data)
        return ("t", len(leaves) - 1)
    if isinstance(v, (tuple, list)):
        return ("s", type(v), tuple(_describe_out(x, leaves) for x in v))
    if isinstance(v, dict):
        return ("d", tuple(v), tuple(_describe_out(x, leaves) for x in v.values()))
    from kiln._compiler.analysis.values import Closure  # noqa: PLC0415

    if isinstance(v, Closure):
        raise TypeError("a graph cannot return a function defined inside it.")
    return ("c", v)


def _rebuild_out(desc, outs):
    kind = desc[0]
    if kind == "t":
        return Tensor._wrap(outs[desc[1]])
    if kind == "c":
        return desc[1]
    if kind == "s":
        return desc[1](_rebuild_out(d, outs) for d in desc[2])
    return dict(zip(desc[1], (_rebuild_out(d, outs) for d in desc[2]), strict=True))


def build(name: str, body, template, leaves: list, param_args: list, cells: list, lax: bool, mode_setter, fn=None):
    """Trace `body` on symbolic inputs and compile it.

    Args:
        name: display name (logs, dumps).
        body: `body(*args, **kwargs)` runs the program (through the compiler or as Python).
        template: rebuilds (args, kwargs) from the input leaves (see `cache.flatten`).
        leaves: example input arrays (their shapes and dtypes are the signature).
        param_args: Parameters passed as arguments (state, written back).
        cells: Cells reachable from the arguments (their Parameters become inputs).
        lax: LAX syntax level.
        mode_setter: context manager forcing GRAPH_MODE while tracing.
    """
    extra: list = []
    if fn is not None:
        from kiln._compiler.analysis.calls import prescan  # noqa: PLC0415

        found_cells, found_params = prescan(fn)
        cells = [*cells, *found_cells]
        extra += found_params
    for attempt in range(_MAX_RETRACE + 1):
        ctx = Context(lax=lax, tracing=True)
        for p in param_args:
            ctx.add_param(p)
        for c in cells:
            ctx.see_cell(c)
        for p in extra:
            ctx.add_param(p)
        t0 = time.perf_counter()
        closed, info = _trace(ctx, body, template, leaves, mode_setter)
        trace_s = time.perf_counter() - t0
        if not ctx.late or attempt == _MAX_RETRACE:
            break
        # Parameters met only during the trace (a global network): trace again with them as inputs.
        extra += [p for p, _, _ in ctx.late if isinstance(p, Parameter)]
    from kiln._backend import jax  # noqa: PLC0415

    fun = _jaxpr_fun(closed)
    exe = jax.jit(fun, donate_argnums=tuple(info["written"]))
    ex = Executable()
    ex.exe = exe
    ex.params = list(ctx.params)
    ex.written = tuple(info["written"])
    ex.owned = [None] * len(ex.written)
    ex.n_out = info["n_out"]
    ex.out_desc = info["desc"] if info["desc"] != _SINGLE else _SINGLE
    ex.key_used = info["key_used"]
    ex.guards = ctx.guards
    ex.refs = None
    ex.name = name
    ex.trace_s = trace_s
    ex.front_s = 0.0
    if dump.level() > 0:
        dump.save(name, ctx, closed)
    return ex


def _jaxpr_fun(closed):
    return B.jaxpr_as_fun(closed)


def _trace(ctx: Context, body, template, leaves: list, mode_setter):
    from kiln._compiler.cache import rebuild  # noqa: PLC0415

    params = list(ctx.params)
    n = len(params)
    originals = [(p._data, p._nodes) for p in params]
    host_key = random_state.current_key()
    info: dict = {}

    def flat(*arrays):
        for p, a in zip(params, arrays[:n], strict=True):
            p._data, p._nodes = a, None
        ctx.host_key = host_key
        random_state.swap_key(arrays[n])
        ctx.started = True
        try:
            with ctx, mode_setter():
                args, kwargs = rebuild(template, iter(arrays[n + 1 :]))
                out = body(*args, **kwargs)
            out_leaves: list = []
            desc = _describe_out(out, out_leaves)
            written = [i for i, p in enumerate(params) if p._data is not arrays[i]]
            new_key = random_state.current_key()
            key_used = new_key is not arrays[n]
            info.update(desc=desc, written=written, n_out=len(out_leaves), key_used=key_used)
            return [*out_leaves, *(params[i]._data for i in written), *([new_key] if key_used else [])]
        finally:
            for p, d, nodes in reversed(ctx.late):
                p._data, p._nodes = d, nodes
            for p, (d, nodes) in zip(params, originals, strict=True):
                p._data, p._nodes = d, nodes
            random_state.swap_key(ctx.host_key)

    from kiln._backend import jax  # noqa: PLC0415

    closed = jax.make_jaxpr(flat)(*(p._data for p in params), host_key, *leaves)
    return closed, info


_persistent = False


def enable_persistent_cache() -> None:
    """Let a second process reuse compiled executables (the backend's on-disk cache, in a Kiln-owned folder)."""
    global _persistent
    if _persistent:
        return
    _persistent = True
    path = os.environ.get("KILN_CACHE_DIR", os.path.join(os.path.expanduser("~"), ".cache", "kiln", "xla"))
    if not path or path.lower() == "off":
        return
    try:
        os.makedirs(path, exist_ok=True)
        B.jax.config.update("jax_compilation_cache_dir", path)
        B.jax.config.update("jax_persistent_cache_min_compile_time_secs", 0.2)
    except Exception:  # noqa: BLE001  (an unwritable home must not break compiling)
        pass
