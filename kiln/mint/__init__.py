"""`kiln.mint` (`mindspore.mint`): MindSpore's PyTorch-style API, built on Kiln's ops.

Functions take PyTorch's arguments (`dim=`, `keepdim=`, `dtype=`); `mint.nn` has the layers,
`mint.nn.functional` the functional layers, `mint.optim`, `mint.special` and `mint.linalg` the rest.
`mint.distributed` is not part of Kiln's mint (communication lives in `kiln.communication`).
"""

from kiln._core.tensor import Tensor  # noqa: F401
from kiln.mint import _ops, linalg, nn, optim, special  # noqa: F401
from kiln.mint.linalg import inv, matrix_norm, qr, vector_norm  # noqa: F401
from kiln.mint.nn import functional
from kiln.mint.optim import SGD, Adam, AdamW, FusedAdamW  # noqa: F401

# MindSpore's mint namespace holds its own functions, the layers of mint.nn and the functions of
# mint.nn.functional (`mint.softmax` is `mint.nn.functional.softmax`). Their `__all__` lists are disjoint
# (tests/mint/test_faces.py), so no import order decides a name.
_FAMILIES = (_ops, nn, functional)
globals().update({name: getattr(family, name) for family in _FAMILIES for name in family.__all__})

__all__ = sorted(
    ({name for family in _FAMILIES for name in family.__all__}
     | {"Tensor", "SGD", "Adam", "AdamW", "FusedAdamW", "inv", "matrix_norm", "qr", "vector_norm", "linalg", "nn",
        "optim", "special"})
    - {"F", "functional", "Cell"}
)  # fmt: skip
