"""Kiln ops: the functional API (`ops.add`, `ops.conv2d`) and Primitive classes (`ops.Add()`).

Each family module lists its public names in `__all__`; the lists are disjoint (checked below and by
tests/ops/test_faces.py), so no import order decides what a name means. The faces table (`kiln.ops.faces`) builds
the faces of the ops it lists; the family modules bind them by name.
"""

import sys as _sys

from kiln import _prims  # noqa: F401  (fills the primitive registry)
from kiln.ops import (
    _submodules,
    array,
    class_faces,
    clipping,
    comm_ops,
    image,
    linalg,
    math,
    multitype,
    nn,
    nn_primitives,
    primitive,
    primitive_table,
    primitives,
    python_ops,
    random,
    sparse,
    spectral,
    standalone_primitives,
    state,
    taylor,
    tensor_methods,
    transforms,
)
from kiln.ops._grad import GradOperation, grad, value_and_grad

_FAMILIES = (
    array, clipping, comm_ops, class_faces, image, linalg, math, python_ops, primitive_table, multitype, nn,
    nn_primitives, standalone_primitives, primitive, primitives, random, sparse, spectral, state, taylor, transforms,
)  # fmt: skip
__all__ = ["GradOperation", "grad", "value_and_grad"] + [name for family in _FAMILIES for name in family.__all__]
if len(set(__all__)) != len(__all__):
    raise ImportError("kiln.ops: two family modules export the same name")
globals().update({name: getattr(family, name) for family in _FAMILIES for name in family.__all__})

tensor_methods.install(_sys.modules[__name__])
_submodules.register(_sys.modules[__name__], _submodules.AUTO_GENERATE)

from kiln.ops import functional as function  # noqa: E402, F401  (MindSpore's `ops.function`; needs every name above)
from kiln.ops import operations  # noqa: E402, F401  (`ops.operations.ReLU()`, as MindSpore scripts write it)
from kiln.ops import operations as P  # noqa: E402, F401  (MindSpore's ops package names it P too)
