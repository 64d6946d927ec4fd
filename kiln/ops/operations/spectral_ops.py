"""MindSpore's spectral Primitive classes (`ops.operations.spectral_ops`): the Bartlett and Blackman windows."""

from __future__ import annotations

from kiln._core import dtype as mstype
from kiln.ops import math
from kiln.ops.operations._build import as_int, attr_class

__all__ = [
    "BartlettWindow",
    "BlackmanWindow",
]


def _window(fn):
    def call(self, length):
        return fn(as_int(length), periodic=self.periodic, dtype=self.dtype)

    return call


BartlettWindow = attr_class(
    "BartlettWindow", {"periodic": True, "dtype": mstype.float32}, _window(math.bartlett_window)
)
BlackmanWindow = attr_class(
    "BlackmanWindow", {"periodic": True, "dtype": mstype.float32}, _window(math.blackman_window)
)
