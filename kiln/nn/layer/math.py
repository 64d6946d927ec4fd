"""Math Cells, each the Cell face of a functional op: MatMul, Norm, OneHot, Roll, Tril/Triu, Range,
ReduceLogSumExp, Moments, the gamma functions, matrix determinant/inverse/diagonals, ClipByNorm, L1Regularizer."""

from __future__ import annotations

from kiln import ops
from kiln._core import dtype as mstype
from kiln._core.tensor import Tensor
from kiln.nn.cell import Cell
from kiln.nn.layer._held import hold, touched
from kiln.ops._helpers import REGISTRY, apply

__all__ = [
    "MatMul", "Norm", "OneHot", "Roll", "Tril", "Triu", "Range", "ReduceLogSumExp", "Moments", "L1Regularizer",
    "LGamma", "DiGamma", "IGamma", "LBeta", "MatDet", "MatInverse", "MatrixDiag", "MatrixDiagPart", "MatrixSetDiag",
    "ClipByNorm",
]  # fmt: skip


class MatMul(Cell):
    """Batched matrix product with optional transposes of the last two axes."""

    def __init__(self, transpose_x1=False, transpose_x2=False) -> None:
        super().__init__()
        self.transpose_x1, self.transpose_x2 = transpose_x1, transpose_x2

    def construct(self, x1, x2):
        if self.transpose_x1:
            x1 = ops.swapaxes(x1, -1, -2)
        if self.transpose_x2:
            x2 = ops.swapaxes(x2, -1, -2)
        return ops.matmul(x1, x2)


class Norm(Cell):
    """The L2 norm over `axis` (() = all axes)."""

    def __init__(self, axis=(), keep_dims=False) -> None:
        super().__init__()
        self.axis = (axis,) if isinstance(axis, int) else tuple(axis)
        self.keep_dims = keep_dims

    def construct(self, x):
        return ops.sqrt(ops.sum(ops.square(x), self.axis if self.axis else None, self.keep_dims))


class OneHot(Cell):
    """One-hot encoding of `indices` with `depth` classes."""

    def __init__(self, axis=-1, depth=1, on_value=1.0, off_value=0.0, dtype=mstype.float32) -> None:
        super().__init__()
        self.axis, self.depth, self.dtype = axis, depth, dtype
        self.on_value, self.off_value = Tensor(on_value, dtype), Tensor(off_value, dtype)
        hold(self, onehot=ops.OneHot(axis))

    def construct(self, indices):
        if touched(self):  # sharded or replaced: MindSpore's layer calls its primitive
            return self.onehot(indices, self.depth, self.on_value, self.off_value)
        return ops.one_hot(indices, self.depth, self.on_value, self.off_value, self.axis)


class Roll(Cell):
    """Roll `input_x` by `shift` along `axis`."""

    def __init__(self, shift, axis) -> None:
        super().__init__()
        self.shift, self.axis = shift, axis

    def construct(self, input_x):
        return ops.roll(input_x, self.shift, self.axis)


class Tril(Cell):
    """The lower triangle (diagonal offset k)."""

    def construct(self, x, k=0):
        return ops.tril(x, k)


class Triu(Cell):
    """The upper triangle (diagonal offset k)."""

    def construct(self, x, k=0):
        return ops.triu(x, k)


class Range(Cell):
    """`Range(start, limit, delta)()`: the sequence start, start + delta, ... below limit."""

    def __init__(self, start, limit=None, delta=1) -> None:
        super().__init__()
        if limit is None:
            start, limit = 0, start
        self.start, self.limit, self.delta = start, limit, delta

    def construct(self):
        out = ops.arange(self.start, self.limit, self.delta)
        # all-integer bounds give int32 here (ops.arange gives int64)
        return out.astype(mstype.int32) if out.dtype == mstype.int64 else out


class ReduceLogSumExp(Cell):
    """log(sum(exp(x))) over `axis`."""

    def __init__(self, axis, keep_dims=False) -> None:
        super().__init__()
        self.axis, self.keep_dims = axis, keep_dims

    def construct(self, x):
        return ops.logsumexp(x, self.axis, self.keep_dims)


class Moments(Cell):
    """(mean, variance) over `axis` (None: all axes)."""

    def __init__(self, axis=None, keep_dims=None) -> None:
        super().__init__()
        self.axis = axis
        self.keep_dims = bool(keep_dims)

    def construct(self, x):
        mean = ops.mean(x, self.axis, True)
        var = ops.mean(ops.square(x - mean), self.axis, self.keep_dims)
        return (mean if self.keep_dims else ops.mean(x, self.axis, False)), var


class L1Regularizer(Cell):
    """scale * sum(|weights|)."""

    def __init__(self, scale) -> None:
        super().__init__()
        if not isinstance(scale, (int, float)) or isinstance(scale, bool) or scale <= 0:
            raise ValueError(f"For 'L1Regularizer', 'scale' must be a positive number, but got {scale!r}.")
        self.scale = float(scale)

    def construct(self, weights):
        return ops.sum(ops.abs(weights)) * self.scale


def _float_input(x, name: str, cls: str) -> None:
    if x.dtype not in (mstype.float16, mstype.float32):
        raise TypeError(f"For '{cls}', the dtype of '{name}' must be float16 or float32, but got {x.dtype}.")


class LGamma(Cell):
    """log|Gamma(x)| elementwise."""

    def construct(self, x):
        return ops.lgamma(x)


class DiGamma(Cell):
    """The digamma function d/dx log Gamma(x), elementwise."""

    def construct(self, x):
        return ops.digamma(x)


class IGamma(Cell):
    """The regularized lower incomplete gamma function P(a, x), elementwise (broadcast)."""

    def construct(self, a, x):
        return ops.igamma(a, x)


class LBeta(Cell):
    """The log of the Beta function's magnitude at (x, y), elementwise with broadcasting, from three log-gamma
    terms; x and y are float16 or float32 of one dtype."""

    def construct(self, x, y):
        _float_input(x, "x", "LBeta")
        if y.dtype != x.dtype:
            raise TypeError(f"For 'LBeta', 'y' must have the dtype of 'x' ({x.dtype}), but got {y.dtype}.")
        return ops.lgamma(x) + ops.lgamma(y) - ops.lgamma(x + y)


class MatDet(Cell):
    """Determinants of a batch of square matrices (..., M, M) -> (...)."""

    def construct(self, a):
        _float_input(a, "a", "MatDet")
        return ops.det(a)


class MatInverse(Cell):
    """Inverses of a batch of square matrices (..., M, M)."""

    def construct(self, a):
        _float_input(a, "a", "MatInverse")
        return ops.inverse(a)


class MatrixDiag(Cell):
    """(..., N) -> (..., N, N): the batched diagonal matrices with the given diagonals."""

    def construct(self, input_x):
        return ops.diag_embed(input_x)


class MatrixDiagPart(Cell):
    """(..., M, N) -> (..., min(M, N)): the batched main diagonals."""

    def construct(self, input_x):
        return ops.diagonal(input_x, 0, -2, -1)


class ClipByNorm(Cell):
    """Scale `x` so that its L2 norm over `axis` (all axes when None) is at most `clip_norm`; the result is float32
    (MindSpore's ClipByNorm primitive: computed in float32 whatever the input's dtype)."""

    def __init__(self, axis=None):
        super().__init__()
        self.axis = () if axis is None else axis
        hold(self, clip_by_norm=ops.operations.ClipByNorm(axis))

    def construct(self, x, clip_norm):
        if touched(self):  # sharded or replaced: MindSpore's layer calls its primitive
            return self.clip_by_norm(x, clip_norm)
        axis = tuple(range(x.ndim)) if self.axis in ((), None) else self.axis
        axis = (axis,) if isinstance(axis, int) else tuple(axis)
        return apply(REGISTRY["ClipByNorm"], (x, clip_norm), (axis,))


class MatrixSetDiag(Cell):
    """Replace the main diagonal of each (..., M, N) matrix of `input_x` by `diagonal` (..., min(M, N))."""

    def construct(self, input_x, diagonal):
        m, n = input_x.shape[-2:]
        k = min(m, n)
        eye = ops.eye(m, n, input_x.dtype)
        diag = ops.pad(diagonal, (0, n - k)) if n > k else diagonal
        return input_x * (1 - eye) + eye * ops.expand_dims(ops.cast(diag, input_x.dtype), -2)
