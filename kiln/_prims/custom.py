"""Python functions as primitives (PyFunc, behind MindSpore's PyFunc and Custom): run on the host."""

from __future__ import annotations

import numpy as np

from kiln._backend import callbacks, custom_vmap, io_callback, jax
from kiln._core.primitive import PrimitiveDef


def _pyfunc(*xs, fn, out_shapes, out_dtypes, ordered=False):
    """Call `fn` on NumPy copies of the inputs, on the host; the outputs have the declared shapes/dtypes.

    `ordered` (a compiled graph's call, see `PrimitiveDef`'s effect="host"): an ordered effect, which the backend
    neither drops when unused nor merges with an equal call, kept in order with the other host effects (print).
    PyNative runs each call at its line, as a pure callback (an ordered one costs 4x there: 41 us, 208 us)."""
    structs = tuple(jax.ShapeDtypeStruct(s, np.dtype(d)) for s, d in zip(out_shapes, out_dtypes, strict=True))

    def run(*arrays):
        out = fn(*(np.asarray(a) for a in arrays))
        out = out if isinstance(out, (tuple, list)) else (out,)
        if len(out) != len(structs):
            raise ValueError(f"PyFunc: the function returned {len(out)} value(s), but {len(structs)} were declared.")
        results = []
        for value, st in zip(out, structs, strict=True):
            value = np.asarray(value.asnumpy() if hasattr(value, "asnumpy") else value)
            if value.shape != tuple(st.shape):
                raise ValueError(f"PyFunc: an output has shape {value.shape}, but {tuple(st.shape)} was declared.")
            results.append(value.astype(st.dtype))
        return tuple(results)

    # the user's exception in `fn` (or in what it returned) is raised as theirs, not as the backend's failure
    run = callbacks.guarded(run, "the 'PyFunc' op", owner=fn)
    if ordered:
        return tuple(_sequential(run, structs)(*xs))
    return tuple(jax.pure_callback(run, structs, *xs, vmap_method="sequential"))


def _sequential(run, structs: tuple):
    """`run` as an ordered host call; under vmap, one call per batch element in order (an ordered call has no
    batching rule of its own)."""

    @custom_vmap
    def call(*xs):
        return tuple(io_callback(run, structs, *xs, ordered=True))

    @call.def_vmap
    def _batched(axis_size, in_batched, *xs):
        rows = [call(*(x[i] if b else x for x, b in zip(xs, in_batched, strict=True))) for i in range(axis_size)]
        outs = tuple(jax.numpy.stack(col) for col in zip(*rows, strict=True))
        return outs, (True,) * len(outs)

    return call


PyFunc = PrimitiveDef(
    "PyFunc",
    _pyfunc,
    attrs={"fn": None, "out_shapes": (), "out_dtypes": ()},
    multiple_results=True,
    differentiable=False,  # a gradient through it raises, as MindSpore's "bprop not defined" (Custom takes a bprop)
    effect="host",  # the user's function runs once per call, as in MindSpore (a failed lazy window reruns its ops)
)
