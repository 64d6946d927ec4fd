"""More of MindSpore's Tensor and Parameter methods, installed onto the classes when `kiln.ops` is imported.

Most are the method face of a functional op (`t.bincount()` is `ops.bincount(t)`): those come from the list
`FROM_OPS`, each installed only where the class has no method of that name yet.
"""

from __future__ import annotations

import numpy as np

from kiln._core import dtype as mstype
from kiln._core.tensor import Parameter, Tensor

# MindSpore Tensor methods that are `ops.<name>(self, ...)`.
FROM_OPS = (
    "absolute", "acosh", "arccosh", "arcsinh", "arctan2", "arctanh", "asinh", "atanh", "bernoulli", "bincount",
    "bitwise_left_shift", "bitwise_right_shift", "bmm", "cummax", "cummin", "diag", "digamma", "divide", "dot",
    "erfinv", "gather_nd", "hardshrink", "inner", "inverse", "lgamma", "mm", "multinomial", "outer", "searchsorted",
    "trace", "unique", "xdivy", "diagonal", "frac", "baddbmm", "addbmm", "addmm", "addmv", "addr", "heaviside",
    "isposinf", "isneginf", "det", "slogdet", "logdet", "msort", "fliplr", "flipud", "argwhere", "nextafter",
)  # fmt: skip


def _method(fn, name: str):
    def method(self, *args, **kwargs):
        return fn(self, *args, **kwargs)

    method.__name__ = method.__qualname__ = name
    method.__doc__ = f"`ops.{name}(self, ...)`."
    return method


def _set_dtype(self, dtype):
    """Change the Parameter's dtype in place (its values cast)."""
    self._data = self._data.astype(mstype.to_dtype(dtype).np)
    return self


def install() -> None:
    from kiln import ops  # noqa: PLC0415  (called at the end of kiln.ops' own import)

    for name in FROM_OPS:
        if not hasattr(Tensor, name) and callable(getattr(ops, name, None)):
            setattr(Tensor, name, _method(getattr(ops, name), name))
    extra = {
        "type_as": lambda self, other: self.astype(other.dtype),
        "new_zeros": lambda self, size, dtype=None: ops.zeros(size, dtype or self.dtype),
        "new_ones": lambda self, size, dtype=None: ops.ones(size, dtype or self.dtype),
        "new_full": lambda self, size, fill_value, dtype=None: ops.full(size, fill_value, dtype=dtype or self.dtype),
        "new_empty": lambda self, size, dtype=None, device=None: ops.zeros(size, dtype or self.dtype),
        "swapdims": lambda self, dim0, dim1: ops.swapaxes(self, dim0, dim1),
        "movedim": lambda self, source, destination: ops.moveaxis(self, source, destination),
        "t": lambda self: self if self.ndim < 2 else ops.transpose(self, (1, 0)),
        "positive": lambda self: self,
        "deg2rad": lambda self: self * np.float32(np.pi / 180),
        "rad2deg": lambda self: self * np.float32(180 / np.pi),
        "is_floating_point": lambda self: self.dtype.is_floating,
        "is_complex": lambda self: self.dtype.is_complex,
        "is_signed": lambda self: self.dtype.kind in "fic",
        "expand": lambda self, size: ops.broadcast_to(self, tuple(size) if not isinstance(size, int) else (size,)),
        "ger": lambda self, vec2: ops.outer(self, vec2),
        "ptp": lambda self, axis=None, keepdims=False: ops.amax(self, axis, keepdims) - ops.amin(self, axis, keepdims),
        "clip_by_value": lambda self, clip_value_min=None, clip_value_max=None: ops.clip_by_value(
            self, clip_value_min, clip_value_max
        ),
    }
    for name, fn in extra.items():
        if not hasattr(Tensor, name):
            fn.__name__ = fn.__qualname__ = name
            setattr(Tensor, name, fn)
    if not hasattr(Tensor, "from_numpy"):
        Tensor.from_numpy = staticmethod(lambda array: Tensor(np.asarray(array)))
    if not hasattr(Parameter, "set_dtype"):
        Parameter.set_dtype = _set_dtype
