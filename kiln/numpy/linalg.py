"""Products and linear algebra of `kiln.numpy`: dot, matmul, inner, outer, tensordot, kron, cross, multi_dot,
norms, matrix powers, covariance and correlation."""

from __future__ import annotations

import builtins

import numpy as np

from kiln import ops
from kiln._core import dtype as mstype
from kiln._core.tensor import Tensor
from kiln.numpy._utils import as_float, axis_of, cast, finish, to_tensor, to_tensors

__all__ = ["dot", "vdot", "matmul", "inner", "outer", "tensordot", "kron", "cross", "multi_dot", "norm",
           "matrix_power", "cov", "corrcoef"]  # fmt: skip


def _same(a: Tensor, b: Tensor) -> tuple[Tensor, Tensor]:
    dt = mstype.promote(a.dtype, b.dtype)
    return cast(a, dt), cast(b, dt)


def tensordot(a, b, axes=2) -> Tensor:
    """Sum of products over the given axes of `a` and `b`.

    Args:
        a, b (Tensor | list): the inputs.
        axes (int | pair of sequences): the last `axes` axes of `a` with the first of `b`, or the axes to pair.

    Returns:
        Tensor with the free axes of `a`, then of `b`.
    """
    a, b = _same(*to_tensors(a, b))
    if isinstance(axes, (int, np.integer)):
        n = int(axes)
        if n < 0 or n > builtins.min(a.ndim, b.ndim):
            raise ValueError(f"kiln.numpy.tensordot: 'axes' = {n} is out of range.")
        ax_a, ax_b = list(range(a.ndim - n, a.ndim)), list(range(n))
    else:
        ax_a, ax_b = axes
        ax_a = [ax_a] if isinstance(ax_a, int) else list(ax_a)
        ax_b = [ax_b] if isinstance(ax_b, int) else list(ax_b)
        if len(ax_a) != len(ax_b):
            raise ValueError("kiln.numpy.tensordot: the two axis lists must have the same length.")
        ax_a = [axis_of(x, a.ndim) for x in ax_a]
        ax_b = [axis_of(x, b.ndim) for x in ax_b]
    for i, j in zip(ax_a, ax_b, strict=True):
        if a.shape[i] != b.shape[j]:
            raise ValueError(f"kiln.numpy.tensordot: axis {i} of a ({a.shape[i]}) and {j} of b ({b.shape[j]}) differ.")
    free_a = [i for i in range(a.ndim) if i not in ax_a]
    free_b = [i for i in range(b.ndim) if i not in ax_b]
    k = int(np.prod([a.shape[i] for i in ax_a]))
    out_shape = tuple(a.shape[i] for i in free_a) + tuple(b.shape[i] for i in free_b)
    am = ops.reshape(ops.transpose(a, tuple(free_a + ax_a)), (-1, k))
    bm = ops.reshape(ops.transpose(b, tuple(ax_b + free_b)), (k, -1))
    if a.dtype == mstype.bool_:
        am, bm = cast(am, mstype.int32), cast(bm, mstype.int32)
    return ops.reshape(ops.matmul(am, bm), out_shape)


def dot(a, b) -> Tensor:
    """NumPy's dot: scalars multiply, vectors give the inner product, otherwise the sum over the last axis of
    `a` and the second-to-last of `b` (the only one of a 1-D `b`)."""
    a, b = _same(*to_tensors(a, b))
    if a.ndim == 0 or b.ndim == 0:
        return ops.mul(a, b)
    return tensordot(a, b, ([a.ndim - 1], [b.ndim - 2 if b.ndim > 1 else 0]))


def vdot(a, b) -> Tensor:
    """The dot product of the flattened inputs (the first conjugated)."""
    a, b = to_tensors(a, b)
    a = ops.reshape(a, (-1,))
    if np.issubdtype(a.dtype.np, np.complexfloating):
        a = ops.conj(a)
    return dot(a, ops.reshape(b, (-1,)))


def matmul(x1, x2, dtype=None) -> Tensor:
    """The matrix product with NumPy's broadcasting of leading axes (1-D operands as vectors)."""
    a, b = _same(*to_tensors(x1, x2))
    if a.ndim == 0 or b.ndim == 0:
        raise ValueError("kiln.numpy.matmul: scalar operands are not allowed; use multiply.")
    return finish(ops.matmul(a, b), dtype)


def inner(a, b) -> Tensor:
    """The sum of products over the last axes of `a` and `b` (scalars multiply)."""
    a, b = _same(*to_tensors(a, b))
    if a.ndim == 0 or b.ndim == 0:
        return ops.mul(a, b)
    return tensordot(a, b, ([a.ndim - 1], [b.ndim - 1]))


def outer(a, b) -> Tensor:
    """The outer product of the flattened inputs: (a.size, b.size)."""
    a, b = _same(*to_tensors(a, b))
    return ops.mul(ops.reshape(a, (-1, 1)), ops.reshape(b, (1, -1)))


def kron(a, b) -> Tensor:
    """The Kronecker product of `a` and `b`."""
    a, b = _same(*to_tensors(a, b))
    return ops.kron(a, b)


def cross(a, b, axisa: int = -1, axisb: int = -1, axisc: int = -1, axis: int | None = None) -> Tensor:
    """The cross product of vectors of 2 or 3 components along `axisa` of `a` and `axisb` of `b`.

    Args:
        a, b (Tensor | list): the vectors (other axes broadcast).
        axisa, axisb (int): the component axes.
        axisc (int): where the components of the result go (3-vectors only).
        axis (int): overrides all three.

    Returns:
        Tensor: 3-vectors, or the z component only when both inputs are 2-vectors.
    """
    a, b = _same(*to_tensors(a, b))
    if axis is not None:
        axisa = axisb = axisc = axis
    a = ops.moveaxis(a, axis_of(axisa, a.ndim), -1)
    b = ops.moveaxis(b, axis_of(axisb, b.ndim), -1)
    na, nb = a.shape[-1], b.shape[-1]
    if na not in (2, 3) or nb not in (2, 3):
        raise ValueError("kiln.numpy.cross: the vectors must have 2 or 3 components.")
    comp = lambda x, i: ops.narrow(x, x.ndim - 1, i, 1)  # noqa: E731
    a0, a1 = comp(a, 0), comp(a, 1)
    b0, b1 = comp(b, 0), comp(b, 1)
    z = ops.sub(ops.mul(a0, b1), ops.mul(a1, b0))
    if na == 2 and nb == 2:
        return ops.squeeze(z, -1)
    a2 = comp(a, 2) if na == 3 else ops.zeros_like(a0)
    b2 = comp(b, 2) if nb == 3 else ops.zeros_like(b0)
    x = ops.sub(ops.mul(a1, b2), ops.mul(a2, b1))
    y = ops.sub(ops.mul(a2, b0), ops.mul(a0, b2))
    shape = tuple(np.broadcast_shapes(tuple(x.shape), tuple(y.shape), tuple(z.shape)))
    out = ops.concat([ops.broadcast_to(c, shape) for c in (x, y, z)], -1)
    return ops.moveaxis(out, -1, axis_of(axisc, out.ndim))


def multi_dot(arrays) -> Tensor:
    """The product of a chain of matrices (a 1-D first/last array is a row/column vector)."""
    ts = [to_tensor(t) for t in arrays]
    if len(ts) < 2:
        raise ValueError("kiln.numpy.multi_dot: at least two arrays are needed.")
    first_1d, last_1d = ts[0].ndim == 1, ts[-1].ndim == 1
    if first_1d:
        ts[0] = ops.reshape(ts[0], (1, -1))
    if last_1d:
        ts[-1] = ops.reshape(ts[-1], (-1, 1))
    out = ts[0]
    for t in ts[1:]:
        out = ops.matmul(*_same(out, t))
    if first_1d and last_1d:
        return ops.reshape(out, ())
    if first_1d:
        return ops.reshape(out, (-1,))
    if last_1d:
        return ops.reshape(out, (-1,))
    return out


def _vector_norm(x: Tensor, ord, axes, keepdims) -> Tensor:
    ax = x
    if ord is None or ord == 2:
        return ops.sqrt(ops.sum(ops.square(ops.abs(ax)), axes, keepdims))
    if ord == float("inf"):
        return ops.amax(ops.abs(ax), axes, keepdims)
    if ord == float("-inf"):
        return ops.amin(ops.abs(ax), axes, keepdims)
    if ord == 0:
        return cast(ops.sum(cast(ops.not_equal(ax, 0), x.dtype), axes, keepdims), x.dtype)
    if ord == 1:
        return ops.sum(ops.abs(ax), axes, keepdims)
    if isinstance(ord, str):
        raise ValueError(f"kiln.numpy.norm: invalid 'ord' {ord!r} for a vector norm.")
    return ops.pow(ops.sum(ops.pow(ops.abs(ax), float(ord)), axes, keepdims), 1.0 / float(ord))


def _matrix_norm(x: Tensor, ord, axes, keepdims) -> Tensor:
    r, c = axes
    if ord is None or ord == "fro":
        return ops.sqrt(ops.sum(ops.square(ops.abs(x)), axes, keepdims))
    if ord in (1, -1):
        s = ops.sum(ops.abs(x), r, True)
        out = (ops.amax if ord == 1 else ops.amin)(s, c, True)
    elif ord in (float("inf"), float("-inf")):
        s = ops.sum(ops.abs(x), c, True)
        out = (ops.amax if ord > 0 else ops.amin)(s, r, True)
    else:
        raise ValueError(f"kiln.numpy.norm: 'ord' {ord!r} is not supported for matrices.")
    return out if keepdims else ops.squeeze(out, tuple(sorted(axes)))


def norm(x, ord=None, axis=None, keepdims: bool = False) -> Tensor:
    """A vector norm (1 axis) or matrix norm (2 axes), NumPy's `ord` conventions.

    Args:
        x (Tensor | list): the input (float32 for integer input).
        ord: the order: None (2-norm / Frobenius), inf, -inf, 0, 1, -1, 2, other numbers (vectors), 'fro'.
        axis (int | tuple | None): the axes (None: the whole array as a vector, or the matrix of 2-D input
            when `ord` is given).
        keepdims (bool): keep reduced axes with size 1.

    Returns:
        Tensor.
    """
    x = as_float(to_tensor(x))
    if axis is None:
        if ord is None:
            out = ops.sqrt(ops.sum(ops.square(ops.abs(x)), None, keepdims))
            return out
        if x.ndim == 2:
            return _matrix_norm(x, ord, (0, 1), keepdims)
        if x.ndim == 1:
            return _vector_norm(x, ord, (0,), keepdims)
        raise ValueError("kiln.numpy.norm: give 'axis' for an input of more than 2 dimensions.")
    if isinstance(axis, int):
        return _vector_norm(x, ord, (axis_of(axis, x.ndim),), keepdims)
    axes = tuple(axis_of(a, x.ndim) for a in axis)
    if len(axes) == 1:
        return _vector_norm(x, ord, axes, keepdims)
    if len(axes) == 2:
        return _matrix_norm(x, ord, axes, keepdims)
    raise ValueError("kiln.numpy.norm: 'axis' must name 1 or 2 axes.")


def matrix_power(a, n: int) -> Tensor:
    """The square matrix (or stack of them) `a` raised to integer power `n` (negative: of the inverse)."""
    a = to_tensor(a)
    if a.ndim < 2 or a.shape[-1] != a.shape[-2]:
        raise ValueError("kiln.numpy.matrix_power: the input must be square matrices.")
    n = int(n)
    if n == 0:
        eye = ops.eye(a.shape[-1], a.shape[-1], a.dtype)
        return ops.broadcast_to(eye, tuple(a.shape))
    if n < 0:
        a, n = ops.inverse(as_float(a)), -n
    result, base = None, a
    while n:
        if n & 1:
            result = base if result is None else ops.matmul(result, base)
        n >>= 1
        if n:
            base = ops.matmul(base, base)
    return result


def cov(m, y=None, rowvar: bool = True, bias: bool = False, ddof=None, fweights=None, aweights=None, dtype=None):
    """The covariance matrix of the variables in `m` (and `y`).

    Args:
        m (Tensor | list): 1-D or 2-D: each row a variable (each column with `rowvar=False`).
        y (Tensor | list): more variables, like `m`.
        rowvar (bool): rows are variables.
        bias (bool): normalise by N (default N - 1).
        ddof (int): overrides `bias`: normalise by N - ddof.
        fweights, aweights: integer frequency and real observation weights (1-D, one per observation).
        dtype: the result's dtype (float32 by default).

    Returns:
        Tensor (a scalar for a single variable).
    """
    x = as_float(to_tensor(m))
    if x.ndim > 2:
        raise ValueError("kiln.numpy.cov: 'm' must be 1-D or 2-D.")
    x = ops.reshape(x, (1, -1)) if x.ndim < 2 else x
    if not rowvar and x.shape[0] != 1:
        x = ops.transpose(x, (1, 0))
    if y is not None:
        yt = as_float(to_tensor(y))
        yt = ops.reshape(yt, (1, -1)) if yt.ndim < 2 else yt
        if not rowvar and yt.shape[0] != 1:
            yt = ops.transpose(yt, (1, 0))
        x = ops.concat(list(_same(x, yt)), 0)
    if ddof is None:
        ddof = 0 if bias else 1
    n_obs = x.shape[1]
    w = None
    if fweights is not None:
        w = as_float(to_tensor(fweights))
    if aweights is not None:
        aw = as_float(to_tensor(aweights))
        w = aw if w is None else ops.mul(w, aw)
    if w is None:
        avg = ops.mean(x, 1, True)
        fact = float(n_obs - ddof)
        xc = ops.sub(x, avg)
        c = ops.div(ops.matmul(xc, ops.transpose(xc, (1, 0))), fact)
    else:
        w = cast(w, x.dtype)
        w_sum = ops.sum(w)
        avg = ops.div(ops.sum(ops.mul(x, w), 1, True), w_sum)
        if ddof == 0:
            fact = w_sum
        elif aweights is None:
            fact = ops.sub(w_sum, ddof)
        else:
            aw = cast(as_float(to_tensor(aweights)), x.dtype)
            fact = ops.sub(w_sum, ops.div(ops.mul(float(ddof), ops.sum(ops.mul(w, aw))), w_sum))
        xc = ops.sub(x, avg)
        c = ops.div(ops.matmul(ops.mul(xc, w), ops.transpose(xc, (1, 0))), fact)
    if c.shape == (1, 1):
        c = ops.reshape(c, ())
    return finish(c, dtype)


def corrcoef(x, y=None, rowvar: bool = True, dtype=None) -> Tensor:
    """Pearson correlation coefficients of the variables in `x` (and `y`), in [-1, 1]; see `cov`."""
    c = cov(x, y, rowvar)
    if c.ndim == 0:
        return finish(ops.div(c, c), dtype)
    d = ops.sqrt(ops.diagonal(c, 0, 0, 1))
    out = ops.div(ops.div(c, ops.reshape(d, (-1, 1))), ops.reshape(d, (1, -1)))
    return finish(ops.clamp(out, -1.0, 1.0), dtype)
