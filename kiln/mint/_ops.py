"""`kiln.mint`'s functions: PyTorch-style signatures (dim=, keepdim=, dtype=) over Kiln's ops.

They are faces of the faces table (kiln/ops/faces/), which holds each beside its op's row; this module shows
the ones mint.nn.functional does not, plus `triangular_solve`, written here because it calls `kiln.ops.linalg`'s
solver, which is not a public op the table's adapters can reach.
"""

from __future__ import annotations

from kiln import ops
from kiln.ops import linalg
from kiln.ops.faces import MINT
from kiln.ops.faces.mint_args import _cast, _channel_shape, _inplace, _norm_dim  # noqa: F401  (mint.nn.functional's)

# the faces table's mint faces shown by this module (mint.nn.functional shows the nn ones)
_TABLE_FACES = (
    "abs", "absolute", "acos", "acosh", "add", "addbmm", "addcdiv", "addcmul", "addmm", "addmv", "addr_", "all",
    "allclose", "amax", "amin", "any", "arange", "arccos", "arccosh", "arcsin", "arcsinh", "arctan", "arctan2",
    "arctanh", "argmax", "argmin", "argsort", "asin", "asinh", "atan", "atan2", "atanh", "baddbmm",
    "batch_norm_elemt", "batch_norm_gather_stats_with_counts", "batch_norm_stats", "bernoulli", "bincount",
    "bitwise_and", "bitwise_not", "bitwise_or", "bitwise_xor", "bmm", "broadcast_to", "cat", "cdist", "ceil",
    "chunk", "clamp", "clip", "clone", "concat", "conv_tbc", "cos", "cosh", "count_nonzero", "cross", "cummax",
    "cummin", "cumprod", "cumsum", "diag", "diff", "div", "divide", "dot", "dstack", "einsum", "empty",
    "empty_like", "eq", "equal", "erf", "erfc", "erfinv", "exp", "exp2", "expm1", "eye", "fix", "flip",
    "float_power", "floor", "floor_divide", "fmod", "frac", "full", "full_like", "gather", "gcd", "ge",
    "greater", "greater_equal", "gt", "histc", "hstack", "imag", "index_add", "index_select", "inverse",
    "isclose", "isfinite", "isinf", "isnan", "isneginf", "item", "kthvalue", "le", "lerp", "less", "less_equal",
    "linspace", "log", "log10", "log1p", "log2", "logaddexp", "logaddexp2", "logical_and", "logical_not",
    "logical_or", "logical_xor", "logsumexp", "lt", "masked_select", "matmul", "max", "maximum", "mean",
    "median", "meshgrid", "min", "minimum", "mm", "mul", "multinomial", "mv", "nan_to_num", "nansum", "narrow",
    "ne", "neg", "negative", "nonzero", "norm", "normal", "not_equal", "npu_gelu", "ones", "ones_like", "outer",
    "permute", "polar", "pow", "prod", "rand", "rand_like", "randint", "randint_like", "randn", "randn_like",
    "randperm", "ravel", "real", "reciprocal", "remainder", "repeat_interleave", "reshape", "roll", "round",
    "rsqrt", "scatter", "scatter_add", "searchsorted", "select", "sign", "sin", "sinc", "sinh", "sort", "split",
    "sqrt", "square", "squeeze", "stack", "std", "std_mean", "sub", "sum", "swapaxes", "t", "take", "tan",
    "tile", "topk", "trace", "transpose", "tril", "triu", "trunc", "unbind", "unique", "unique_consecutive",
    "unsqueeze", "var", "var_mean", "vdot", "where", "xlogy", "zeros", "zeros_like"
)  # fmt: skip
globals().update({name: MINT[name] for name in _TABLE_FACES})


def triangular_solve(b, A, upper: bool = True, transpose: bool = False, unitriangular: bool = False):
    """(solution X of A X = b, a copy of A), A triangular.

    Args:
        b (Tensor): (*, n, k). A (Tensor): (*, n, n).
        upper (bool): A is upper triangular. transpose (bool): solve with A^T.
        unitriangular (bool): take A's diagonal as ones.

    Returns:
        tuple (X, A).
    """
    return linalg.solve_triangular_system(b, A, upper, transpose, unitriangular), ops.copy(A)


__all__ = sorted([*_TABLE_FACES, "triangular_solve"])
