"""`kiln.mint.special`: special functions with PyTorch's names."""

from kiln.mint._ops import erfc, exp2, expm1, log1p, round, sinc
from kiln.mint.nn.functional import log_softmax

__all__ = ["erfc", "exp2", "expm1", "log1p", "log_softmax", "round", "sinc"]
