"""Python functions as primitives (PyFunc, behind MindSpore's PyFunc and Custom): run on the host."""

from __future__ import annotations

import numpy as np

from kiln._backend import callbacks, jax
from kiln._core.primitive import PrimitiveDef


def _pyfunc(*xs, fn, out_shapes, out_dtypes):
    """Call `fn` on NumPy copies of the inputs, on the host; the outputs have the declared shapes/dtypes."""
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
    return tuple(jax.pure_callback(run, structs, *xs, vmap_method="sequential"))


PyFunc = PrimitiveDef(
    "PyFunc",
    _pyfunc,
    attrs={"fn": None, "out_shapes": (), "out_dtypes": ()},
    multiple_results=True,
    differentiable=False,  # a gradient through it raises, as MindSpore's "bprop not defined" (Custom takes a bprop)
    effect="host",  # the user's function runs once per call, as in MindSpore (a failed lazy window reruns its ops)
)
