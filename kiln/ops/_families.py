"""The functional family modules of `kiln.ops` whose `__all__` lists make up its functional names (`NAMES`).

`kiln.ops.operations` adds its Primitive-class families to them, and kiln/ops/_namespace.py joins the two for
`kiln.ops` and MindSpore's other names of that namespace (`ops.functional`, `ops.composite`), so none of them
imports another. The lists are disjoint (checked here and by tests/ops/test_faces.py), so no import order
decides what a name means.
"""

from kiln import _prims  # noqa: F401  (fills the primitive registry)
from kiln.ops import (
    array,
    clipping,
    comm_ops,
    image,
    linalg,
    math,
    multitype,
    nn,
    primitive,
    python_ops,
    random,
    sparse,
    spectral,
    state,
    taylor,
    transforms,
)
from kiln.ops._grad import GradOperation, grad, value_and_grad

__all__ = ["FAMILIES", "NAMES"]

FAMILIES = (
    array, clipping, comm_ops, image, linalg, math, python_ops, multitype, nn, primitive, random, sparse, spectral,
    state, taylor, transforms,
)  # fmt: skip
_LISTED = [name for family in FAMILIES for name in family.__all__]
if len(set(_LISTED)) != len(_LISTED):
    raise ImportError("kiln.ops: two family modules export the same name")
NAMES: dict[str, object] = {"GradOperation": GradOperation, "grad": grad, "value_and_grad": value_and_grad}
NAMES.update({name: getattr(family, name) for family in FAMILIES for name in family.__all__})
