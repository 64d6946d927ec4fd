"""MindSpore's Primitive classes (`ops.operations`, `ops.Add()`), one module per family as MindSpore names them.

Each family module lists its names in `__all__`; the lists are disjoint (checked below), so no import order decides
what a name means. Each class is a face of a functional op or of a primitive declaration (`kiln._prims`): built
from a row (`simple_class`, `attr_class` of `_build.py`) where its call is one line, written out where it has logic
of its own. As before the split, the package also serves the functional names of `kiln.ops` (`P.matmul`),
which programs written against Kiln may use. MindSpore's other inner paths of this package (`other_ops`,
`manually_defined`, `_inner_ops`, ...) are registered as modules serving this package's names
(kiln/ops/_submodules.py).
"""

import sys as _sys

from kiln.ops import _families, _submodules
from kiln.ops.operations import (
    array_ops,
    control_ops,
    custom_ops,
    debug_ops,
    image_ops,
    linalg_ops,
    math_ops,
    nn_ops,
    random_ops,
    sparse_ops,
    spectral_ops,
)

FAMILIES = (
    array_ops, control_ops, custom_ops, debug_ops, image_ops, linalg_ops, math_ops, nn_ops, random_ops, sparse_ops,
    spectral_ops,
)  # fmt: skip
__all__ = [name for family in FAMILIES for name in family.__all__]
if len(set(__all__)) != len(__all__):
    raise ImportError("kiln.ops.operations: two family modules export the same name")
globals().update({name: getattr(family, name) for family in FAMILIES for name in family.__all__})
__all__ += [name for name in _families.NAMES if name not in globals()]
globals().update({name: _families.NAMES[name] for name in __all__ if name not in globals()})

_submodules.register(_sys.modules[__name__], _submodules.OPERATIONS)
for _family in FAMILIES:  # `from mindspore.ops.operations.nn_ops import Add` resolved before the split: it still does
    _submodules.serve_rest(_family, _sys.modules[__name__])
