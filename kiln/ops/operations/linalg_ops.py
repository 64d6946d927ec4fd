"""MindSpore's linear-algebra Primitive classes (`ops.operations.linalg_ops`): QR (Geqrf) and SVD."""

from __future__ import annotations

from kiln.ops import array, linalg
from kiln.ops.operations._build import attr_class

__all__ = [
    "Geqrf",
    "Svd",
]


def _svd(s, x):
    if s.compute_uv:
        return linalg.svd(x, s.full_matrices, True)
    empty = array.zeros((1,), x.dtype)
    return linalg.svd(x, compute_uv=False), empty, empty


Geqrf = attr_class("Geqrf", {}, lambda s, x: linalg.geqrf(x))
Svd = attr_class("Svd", {"full_matrices": False, "compute_uv": True}, lambda s, x: _svd(s, x))
