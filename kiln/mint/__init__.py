"""`kiln.mint` (`mindspore.mint`): MindSpore's PyTorch-style API, built on Kiln's ops.

Functions take PyTorch's arguments (`dim=`, `keepdim=`, `dtype=`); `mint.nn` has the layers,
`mint.nn.functional` the functional layers, `mint.optim`, `mint.special` and `mint.linalg` the rest.
`mint.distributed` is not part of Kiln's mint (communication lives in `kiln.communication`).
"""

from kiln._core.tensor import Tensor  # noqa: F401
from kiln.mint import linalg, nn, optim, special  # noqa: F401
from kiln.mint._ops import *  # noqa: F403
from kiln.mint._ops import __all__ as _ops_all

# MindSpore's mint.__all__ also names members of its nn, nn.functional, optim and linalg; where a name is both a
# top-level function and a functional one (softmax, flatten, ...), the top-level function is mint's.
from kiln.mint._ops import conv2d, flatten, sigmoid, softmax, tanh  # noqa: E402, F401
from kiln.mint.linalg import inv, matrix_norm, qr, vector_norm  # noqa: F401
from kiln.mint.nn import *  # noqa: F403
from kiln.mint.nn import functional
from kiln.mint.nn.functional import *  # noqa: F403
from kiln.mint.optim import SGD, Adam, AdamW, FusedAdamW  # noqa: F401

__all__ = sorted(
    (set(_ops_all) | set(nn.__all__) | set(functional.__all__) | {"Tensor", "SGD", "Adam", "AdamW", "FusedAdamW"}
     | {"inv", "matrix_norm", "qr", "vector_norm", "linalg", "nn", "optim", "special"})
    - {"F", "functional", "Cell"}
)  # fmt: skip
