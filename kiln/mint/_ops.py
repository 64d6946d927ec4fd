"""`kiln.mint`'s functions: PyTorch-style signatures (dim=, keepdim=, dtype=) over Kiln's ops.

Most are thin adapters: they rename or reorder arguments and call the functional op that holds the
primitive (`kiln._prims`, the ops mint needed included).
"""

from __future__ import annotations

import builtins

from kiln import ops
from kiln._compiler.ir import graph as G
from kiln._core import dtype as mstype
from kiln._core.tensor import Parameter, Tensor
from kiln._core.unsupported import GLOBAL_STREAM, ignore_argument
from kiln.ops import linalg
from kiln.ops import nn as nn_ops
from kiln.ops._helpers import write_back
from kiln.ops.faces import MINT

# ---------------------------------------------------------------------------------------------- helpers


def _dims(dim):
    """None, an int, or a tuple/list of ints -> what Kiln's reductions take as `axis`."""
    if dim is None:
        return None
    if isinstance(dim, int):
        return dim
    dim = tuple(int(d) for d in dim)
    return dim if dim else None


def _norm_dim(dim: int, ndim: int) -> int:
    nd = builtins.max(ndim, 1)
    if not -nd <= dim < nd:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-nd}, {nd - 1}], but got {dim})")
    return dim % nd


def _as_tensor(x):
    return x if isinstance(x, Tensor) else Tensor(x)


def _cast(x, dtype):
    return x if dtype is None else ops.cast(x, dtype)


def _size(args, name: str) -> tuple[int, ...]:
    """`f(2, 3)`, `f((2, 3))`, `f([2, 3])` -> (2, 3)."""
    if len(args) == 1 and isinstance(args[0], (tuple, list)):
        args = tuple(args[0])
    if len(args) == 1 and isinstance(args[0], Tensor):
        return tuple(int(s) for s in args[0].tolist()) if args[0].ndim else (int(args[0].item()),)
    for a in args:
        if not isinstance(a, int) or isinstance(a, bool):
            raise TypeError(f"{name}(): 'size' must be ints or a tuple of ints, but got {type(a).__name__}.")
    return tuple(args)


def _inplace(target, value):
    """Write `value` into `target` (the in-place `x_` ops) and return `target`."""
    if isinstance(target, Parameter):
        ops.assign(target, value)
    elif G.is_symbolic(target._data) or G.is_symbolic(value._data):
        raise RuntimeError("an in-place mint op on a tensor that is not a Parameter is not supported in graph mode")
    else:
        write_back([target], [value])
    return target


def _int64(x):
    return x if x.dtype == mstype.int64 else ops.cast(x, mstype.int64)


def _int_accumulator(x, dtype):
    if dtype is None and (x.dtype == mstype.bool_ or x.dtype.is_integer):
        return mstype.int64
    return dtype


def _float_dtype(x):
    return x.dtype if x.dtype.is_floating else mstype.float32


# ---------------------------------------------------------------------------------------------- elementwise


def div(input, other, *, rounding_mode=None) -> Tensor:
    """input / other, rounded as `rounding_mode` says (None, 'floor' or 'trunc')."""
    return ops.div(input, other, rounding_mode=rounding_mode)


divide = div


def pow(input, exponent) -> Tensor:  # noqa: A001
    """input ** exponent (either may be a number)."""
    return ops.pow(input, exponent)


def clamp(input, min=None, max=None) -> Tensor:  # noqa: A002
    """Clip `input` into [min, max] (bounds are numbers or tensors; either may be None)."""
    return ops.clamp(input, min, max)


clip = clamp


def round(input, *, decimals: int = 0) -> Tensor:  # noqa: A001
    """Round half to even, at `decimals` decimal places.

    Args:
        input (Tensor): the input.
        decimals (int): number of decimal places. Default: 0.

    Returns:
        Tensor of the input's dtype.
    """
    if decimals == 0:
        return ops.round(input)
    scale = 10.0**decimals
    return ops.div(ops.round(ops.mul(input, scale)), scale)


def addcdiv(input, tensor1, tensor2, *, value=1) -> Tensor:
    """input + value * tensor1 / tensor2."""
    return ops.add(input, ops.mul(ops.div(tensor1, tensor2), value))


def addcmul(input, tensor1, tensor2, *, value=1) -> Tensor:
    """input + value * tensor1 * tensor2."""
    return ops.add(input, ops.mul(ops.mul(tensor1, tensor2), value))


def equal(input, other) -> bool:
    """True when `input` and `other` have the same shape and the same values."""
    if tuple(input.shape) != tuple(other.shape):
        return False
    return bool(ops.all(ops.equal(input, other)))


# ---------------------------------------------------------------------------------------------- reductions
def sum(input, dim=None, keepdim: bool = False, *, dtype=None) -> Tensor:  # noqa: A001
    """Sum over `dim` (None: every dimension); bool and integer inputs sum as int64.

    Args:
        input (Tensor): the input.
        dim (int | tuple[int] | None): dimensions to reduce.
        keepdim (bool): keep the reduced dimensions with size 1.
        dtype: the result's dtype.

    Returns:
        Tensor.
    """
    if dtype is None and (input.dtype == mstype.bool_ or input.dtype.is_integer):
        dtype = mstype.int64
    return ops.sum(_cast(input, dtype), _dims(dim), keepdim)


def nansum(input, dim=None, keepdim: bool = False, *, dtype=None) -> Tensor:
    """Sum over `dim`, NaN counted as zero."""
    return ops.nansum(_cast(input, dtype), _dims(dim), keepdim)


def mean(input, dim=None, keepdim: bool = False, *, dtype=None) -> Tensor:
    """Mean over `dim` (None: every dimension)."""
    return ops.mean(_cast(input, dtype), _dims(dim), keepdim)


def prod(input, dim=None, keepdim: bool = False, *, dtype=None) -> Tensor:
    """Product over `dim` (None: every dimension); integer inputs multiply as int64."""
    if dtype is None and (input.dtype == mstype.bool_ or input.dtype.is_integer):
        dtype = mstype.int64
    return ops.prod(_cast(input, dtype), _dims(dim), keepdim)


def all(input, dim=None, keepdim: bool = False) -> Tensor:  # noqa: A001
    """True where every element over `dim` is non-zero."""
    return ops.all(input, _dims(dim), keepdim)


def any(input, dim=None, keepdim: bool = False) -> Tensor:  # noqa: A001
    """True where some element over `dim` is non-zero."""
    return ops.any(input, _dims(dim), keepdim)


def amax(input, dim=(), keepdim: bool = False) -> Tensor:
    """Maximum over `dim` (() or None: every dimension)."""
    return ops.amax(input, _dims(dim), keepdim)


def amin(input, dim=(), keepdim: bool = False) -> Tensor:
    """Minimum over `dim` (() or None: every dimension)."""
    return ops.amin(input, _dims(dim), keepdim)


def _extreme(op_all, op_dim, op_pair, input, dim, keepdim, name):
    if isinstance(dim, Tensor):
        return op_pair(input, dim)
    if dim is None:
        if keepdim:
            raise TypeError(f"{name}() with 'keepdim' needs 'dim'.")
        return op_all(input)
    values, indices = op_dim(input, dim, keepdim)
    return values, _int64(indices)


def max(input, dim=None, keepdim: bool = False):  # noqa: A001
    """`max(input)`: the largest element; `max(input, dim, keepdim=False)`: (values, indices) along `dim`;
    `max(input, other)`: elementwise maximum.

    Args:
        input (Tensor): the input.
        dim (int | Tensor | None): the dimension, or the other tensor.
        keepdim (bool): keep `dim` with size 1.

    Returns:
        Tensor, or a tuple (values, int64 indices).
    """
    return _extreme(ops.amax, lambda x, d, k: ops.max(x, d, k), ops.maximum, input, dim, keepdim, "max")


def min(input, dim=None, keepdim: bool = False):  # noqa: A001
    """`min(input)`, `min(input, dim, keepdim=False)` -> (values, indices), or `min(input, other)`."""
    return _extreme(ops.amin, lambda x, d, k: ops.min(x, d, k), ops.minimum, input, dim, keepdim, "min")


def _arg_extreme(find, input, dim, keepdim: bool) -> Tensor:
    """`find` (ops.argmax or ops.argmin) along `dim`, over the flattened input for None; as int64."""
    if dim is None:
        out = find(ops.reshape(input, (-1,)), 0)
        out = ops.reshape(out, (1,) * input.ndim) if keepdim else out
    else:
        out = find(input, dim, keepdim)
    return _int64(out)


def argmax(input, dim=None, keepdim: bool = False) -> Tensor:
    """Index (int64) of the largest element along `dim` (None: of the flattened input)."""
    return _arg_extreme(ops.argmax, input, dim, keepdim)


def argmin(input, dim=None, keepdim: bool = False) -> Tensor:
    """Index (int64) of the smallest element along `dim` (None: of the flattened input)."""
    return _arg_extreme(ops.argmin, input, dim, keepdim)


def logsumexp(input, dim, keepdim: bool = False) -> Tensor:
    """log(sum(exp(input))) over `dim`, computed stably."""
    return ops.logsumexp(input, _dims(dim), keepdim)


def median(input, dim=None, keepdim: bool = False):
    """`median(input)`: the lower median of all elements; with `dim`: (values, indices) along it."""
    if dim is None:
        values, _ = ops.median(ops.reshape(input, (-1,)), 0)
        return values
    values, indices = ops.median(input, dim, keepdim)
    return values, _int64(indices)


def std(input, dim=None, *, correction: int = 1, keepdim: bool = False) -> Tensor:
    """Standard deviation over `dim`, with `correction` (Bessel's: 1) subtracted from the count."""
    return ops.std(input, _dims(dim), ddof=int(correction), keepdims=keepdim)


def var(input, dim=None, *, correction: int = 1, keepdim: bool = False) -> Tensor:
    """Variance over `dim`, with `correction` subtracted from the count."""
    return ops.var(input, _dims(dim), ddof=int(correction), keepdims=keepdim)


def std_mean(input, dim=None, *, correction: int = 1, keepdim: bool = False):
    """(std, mean) over `dim`."""
    return ops.std_mean(input, _dims(dim), ddof=int(correction), keepdims=keepdim)


def var_mean(input, dim=None, *, correction: int = 1, keepdim: bool = False):
    """(var, mean) over `dim`."""
    return ops.var_mean(input, _dims(dim), ddof=int(correction), keepdims=keepdim)


def count_nonzero(input, dim=None) -> Tensor:
    """Number of non-zero elements over `dim` (None: all), as int64."""
    axis = () if dim is None else dim
    return ops.count_nonzero(input, axis, False, mstype.int64)


def norm(input, p="fro", dim=None, keepdim: bool = False, *, dtype=None) -> Tensor:
    """Vector or matrix norm: p a number (vector p-norm over `dim`, all elements when None), 'fro' or 'nuc'.

    Args:
        input (Tensor): the input.
        p (float | str): the order. Default: 'fro'.
        dim (int | tuple[int] | None): dimensions of the norm.
        keepdim (bool): keep the reduced dimensions.
        dtype: compute in this dtype.

    Returns:
        Tensor.
    """
    x = _cast(input, dtype)
    if p == "fro":
        if isinstance(dim, (tuple, list)) and len(dim) > 2:
            raise ValueError(f"norm(): 'fro' takes at most 2 dimensions, but got dim={dim}.")
        return ops.vector_norm(x, 2, _dims(dim), keepdim)
    if p == "nuc":
        return ops.matrix_norm(x, "nuc", (-2, -1) if dim is None else tuple(dim), keepdim)
    return ops.vector_norm(x, float(p), _dims(dim), keepdim)


# ---------------------------------------------------------------------------------------------- scans and sorting
def cumsum(input, dim: int, dtype=None) -> Tensor:
    """Cumulative sum along `dim` (integer and bool inputs sum as int64 unless `dtype`)."""
    return ops.cumsum(input, dim, _int_accumulator(input, dtype))


def cumprod(input, dim: int, dtype=None) -> Tensor:
    """Cumulative product along `dim` (integer and bool inputs multiply as int64 unless `dtype`)."""
    return ops.cumprod(input, dim, _int_accumulator(input, dtype))


def cummax(input, dim: int):
    """(values, int64 indices) of the running maximum along `dim`."""
    values, indices = ops.cummax(input, dim)
    return values, _int64(indices)


def cummin(input, dim: int):
    """(values, int64 indices) of the running minimum along `dim`."""
    values, indices = ops.cummin(input, dim)
    return values, _int64(indices)


def sort(input, *, dim: int = -1, descending: bool = False, stable: bool = False):
    """(sorted values, int64 indices) along `dim` (ties keep their order)."""
    values, indices = ops.sort(input, dim, descending)
    return values, _int64(indices)


def argsort(input, dim: int = -1, descending: bool = False, stable: bool = False) -> Tensor:
    """Indices that sort `input` along `dim`."""
    return _int64(ops.argsort(input, dim, descending))


def topk(input, k: int, dim: int = -1, largest: bool = True, sorted: bool = True):  # noqa: A002
    """(values, indices) of the k largest (or smallest) elements along `dim`."""
    values, indices = ops.topk(input, k, dim, largest, sorted)
    return values, _int64(indices)


def kthvalue(input, k: int, dim: int = -1, keepdim: bool = False):
    """(values, int64 indices) of the k-th smallest element along `dim` (k counts from 1).

    Args:
        input (Tensor): the input.
        k (int): which order statistic, 1 <= k <= size of `dim`.
        dim (int): the dimension. keepdim (bool): keep `dim` with size 1.

    Returns:
        tuple (values, indices).
    """
    d = _norm_dim(dim, input.ndim)
    n = input.shape[d] if input.ndim else 1
    if not 1 <= k <= n:
        raise ValueError(f"kthvalue(): 'k' must be in [1, {n}], but got {k}.")
    values, indices = ops.sort(input, d)
    values, indices = ops.narrow(values, d, k - 1, 1), ops.narrow(indices, d, k - 1, 1)
    if not keepdim:
        values, indices = ops.squeeze(values, d), ops.squeeze(indices, d)
    return values, ops.cast(indices, mstype.int64)


def searchsorted(sorted_sequence, values, *, out_int32=False, right=False, side=None, sorter=None) -> Tensor:
    """Insertion indices of `values` into the last dimension of `sorted_sequence`."""
    return ops.searchsorted(sorted_sequence, values, out_int32=out_int32, right=right, side=side, sorter=sorter)


def unique(input, sorted: bool = True, return_inverse: bool = False, return_counts: bool = False, dim=None):  # noqa: A002
    """Sorted distinct elements of `input` (flattened), with optional inverse indices and counts.

    Args:
        input (Tensor): the input.
        sorted (bool): the result is sorted either way.
        return_inverse (bool): also return, per input element, the index of its value (input's shape).
        return_counts (bool): also return how often each value occurs.
        dim: not supported (None only).

    Returns:
        Tensor, or a tuple (values, [inverse], [counts]).
    """
    if dim is not None:
        raise NotImplementedError("mint.unique(dim=...) is not supported by Kiln yet.")
    flat = ops.reshape(input, (-1,))
    svals, perm = ops.sort(flat)
    values, inv_sorted, counts = ops.unique_consecutive(svals, True, True)
    out = [values]
    if return_inverse:
        inverse = ops.scatter(ops.zeros_like(inv_sorted), 0, perm, inv_sorted)
        out.append(ops.reshape(ops.cast(inverse, mstype.int64), input.shape))
    if return_counts:
        out.append(ops.cast(counts, mstype.int64))
    return out[0] if len(out) == 1 else tuple(out)


def unique_consecutive(input, return_inverse: bool = False, return_counts: bool = False, dim=None):
    """Collapse runs of equal consecutive elements (flattened unless `dim`)."""
    return ops.unique_consecutive(input, return_inverse, return_counts, dim)


def bincount(input, weights=None, minlength: int = 0) -> Tensor:
    """Count (int64) of each non-negative integer value; with `weights` their float sums."""
    out = ops.bincount(input, weights, minlength)
    return _int64(out) if weights is None else out


def histc(input, bins: int = 100, min=0, max=0) -> Tensor:  # noqa: A002
    """Histogram of `bins` equal bins over [min, max] (min == max: the data's range)."""
    return ops.histc(input, bins, float(min), float(max))


# ---------------------------------------------------------------------------------------------- shape and indexing
def cat(tensors, dim: int = 0) -> Tensor:
    """Join tensors along an existing dimension."""
    return ops.cat(tuple(tensors), dim)


concat = cat


def stack(tensors, dim: int = 0) -> Tensor:
    """Join tensors along a new dimension."""
    return ops.stack(tuple(tensors), dim)


def hstack(tensors) -> Tensor:
    """Join along dimension 1 (dimension 0 for 1-D tensors)."""
    return ops.hstack(tuple(tensors))


def dstack(tensors) -> Tensor:
    """Join along dimension 2 (after making the inputs at least 3-D)."""
    return ops.dstack(tuple(tensors))


def chunk(input, chunks: int, dim: int = 0):
    """Split into `chunks` pieces along `dim` (the last may be smaller)."""
    return ops.chunk(input, chunks, dim)


def split(tensor, split_size_or_sections, dim: int = 0):
    """Split into pieces of `split_size_or_sections` (an int, or a list of sizes) along `dim`."""
    return ops.split(tensor, split_size_or_sections, dim)


def unbind(input, dim: int = 0):
    """The slices of `input` along `dim`, as a tuple."""
    return ops.unbind(input, dim)


def reshape(input, shape) -> Tensor:
    """`input` with a new shape (one dimension may be -1)."""
    return ops.reshape(input, tuple(shape) if isinstance(shape, list) else shape)


def ravel(input) -> Tensor:
    """The input as a 1-D tensor."""
    return ops.reshape(input, (-1,))


def squeeze(input, dim=None) -> Tensor:
    """Drop dimensions of size 1 (all, or those of `dim` that have size 1)."""
    if dim is None:
        return ops.squeeze(input)
    dims = (dim,) if isinstance(dim, int) else tuple(dim)
    keep = tuple(_norm_dim(d, input.ndim) for d in dims if input.ndim and input.shape[_norm_dim(d, input.ndim)] == 1)
    return ops.squeeze(input, keep) if keep else input


def unsqueeze(input, dim: int) -> Tensor:
    """Insert a dimension of size 1 at `dim`."""
    return ops.unsqueeze(input, dim)


def permute(input, dims) -> Tensor:
    """Reorder the dimensions."""
    return ops.permute(input, tuple(dims))


def transpose(input, dim0: int, dim1: int) -> Tensor:
    """Swap two dimensions."""
    return ops.swapaxes(input, dim0, dim1)


def swapaxes(input, axis0: int, axis1: int) -> Tensor:
    """Swap two dimensions."""
    return ops.swapaxes(input, axis0, axis1)


def t(input) -> Tensor:
    """Transpose of a tensor of at most 2 dimensions."""
    return ops.t(input)


def broadcast_to(input, shape) -> Tensor:
    """`input` broadcast to `shape` (-1 keeps a dimension)."""
    return ops.broadcast_to(input, tuple(shape))


def tile(input, dims) -> Tensor:
    """Repeat `input` `dims` times along each dimension."""
    return ops.tile(input, tuple(dims))


def flip(input, dims) -> Tensor:
    """Reverse the order along `dims`."""
    return ops.flip(input, (dims,) if isinstance(dims, int) else tuple(dims))


def roll(input, shifts, dims=None) -> Tensor:
    """Rotate elements along `dims` by `shifts` (flattened when dims is None)."""
    return ops.roll(input, shifts, dims)


def repeat_interleave(input, repeats, dim=None, *, output_size=None) -> Tensor:
    """Repeat each element `repeats` times (a number or one count per element) along `dim`."""
    return ops.repeat_interleave(input, repeats, dim)


def narrow(input, dim: int, start: int, length: int) -> Tensor:
    """The slice start:start+length of `dim`."""
    return ops.narrow(input, dim, start, length)


def select(input, dim: int, index: int) -> Tensor:
    """The slice at `index` of `dim`, with `dim` removed."""
    d = _norm_dim(dim, input.ndim)
    return ops.squeeze(ops.narrow(input, d, index % input.shape[d], 1), d)


def index_select(input, dim: int, index) -> Tensor:
    """The slices of `dim` at the positions of the 1-D `index`."""
    return ops.index_select(input, dim, index)


def index_add(input, dim: int, index, source, *, alpha=1) -> Tensor:
    """`input` with alpha * source's slices added at `index` along `dim`."""
    return ops.index_add(input, index, source if alpha == 1 else ops.mul(source, alpha), _norm_dim(dim, input.ndim))


def scatter(input, dim: int, index, src) -> Tensor:
    """`input` with src's values (or the number `src`) written at `index` along `dim`."""
    if not isinstance(src, Tensor):
        src = ops.full(tuple(index.shape), src, dtype=input.dtype)
    return ops.scatter(input, dim, index, src)


def scatter_add(input, dim: int, index, src) -> Tensor:
    """`input` with src's values added at `index` along `dim`."""
    return ops.scatter_add(input, dim, index, src)


def masked_select(input, mask) -> Tensor:
    """1-D tensor of the elements where `mask` is True."""
    return ops.masked_select(input, mask)


def take(input, index) -> Tensor:
    """Elements of the flattened input at `index`."""
    return ops.take(input, index)


def nonzero(input, *, as_tuple: bool = False):
    """Indices of the non-zero elements: (n, ndim) int64, or a tuple of 1-D index tensors."""
    return ops.nonzero(input, as_tuple)


def where(condition, input=None, other=None):
    """`where(condition, input, other)`: elementwise choice; `where(condition)`: nonzero(as_tuple=True)."""
    if input is None and other is None:
        return ops.nonzero(condition, True)
    return ops.where(condition, input, other)


def tril(input, diagonal: int = 0) -> Tensor:
    """Lower triangle (elements above `diagonal` zeroed)."""
    return ops.tril(input, diagonal)


def triu(input, diagonal: int = 0) -> Tensor:
    """Upper triangle (elements below `diagonal` zeroed)."""
    return ops.triu(input, diagonal)


def diag(input, diagonal: int = 0) -> Tensor:
    """1-D input: a square matrix with it on diagonal `diagonal`; 2-D input: diagonal `diagonal` of it."""
    if input.ndim == 2:
        return ops.diagonal(input, diagonal, 0, 1)
    if input.ndim != 1:
        raise ValueError(f"diag(): the input must be 1-D or 2-D, but got {input.ndim}-D.")
    return ops.diag_embed(input, diagonal)


def diff(input, n: int = 1, dim: int = -1, prepend=None, append=None) -> Tensor:
    """n-th forward difference along `dim`."""
    return ops.diff(input, n, dim, prepend, append)


def meshgrid(*tensors, indexing=None):
    """Coordinate grids of 1-D tensors ('ij' indexing unless 'xy')."""
    if len(tensors) == 1 and isinstance(tensors[0], (tuple, list)):
        tensors = tuple(tensors[0])
    return ops.meshgrid(*tensors, indexing=indexing or "ij")


def clone(input) -> Tensor:
    """A copy of `input`."""
    return ops.copy(input)


def item(input):
    """The value of a one-element tensor as a Python number."""
    return input.item()


# ---------------------------------------------------------------------------------------------- creation
def _default_float(dtype):
    return mstype.float32 if dtype is None else dtype


def zeros(size, *, dtype=None) -> Tensor:
    """Tensor of zeros (float32 unless `dtype`)."""
    return ops.zeros(_size((size,), "zeros"), _default_float(dtype))


def ones(size, *, dtype=None) -> Tensor:
    """Tensor of ones (float32 unless `dtype`)."""
    return ops.ones(_size((size,), "ones"), _default_float(dtype))


def empty(*size, dtype=None, device=None, pin_memory: bool = False) -> Tensor:
    """A tensor of `size` (Kiln fills it with zeros)."""
    return ops.zeros(_size(size, "empty"), _default_float(dtype))


def empty_like(input, *, dtype=None, device=None, pin_memory: bool = False) -> Tensor:
    """A tensor of `input`'s shape (Kiln fills it with zeros)."""
    return ops.zeros_like(input, dtype=dtype)


def zeros_like(input, *, dtype=None) -> Tensor:
    """Zeros of `input`'s shape (and dtype unless `dtype`)."""
    return ops.zeros_like(input, dtype=dtype)


def ones_like(input, *, dtype=None) -> Tensor:
    """Ones of `input`'s shape (and dtype unless `dtype`)."""
    return ops.ones_like(input, dtype=dtype)


def full(size, fill_value, *, dtype=None) -> Tensor:
    """Tensor of `size` filled with `fill_value`."""
    return ops.full(_size((size,), "full"), fill_value, dtype=dtype)


def full_like(input, fill_value, *, dtype=None) -> Tensor:
    """Tensor of `input`'s shape filled with `fill_value`."""
    return ops.full_like(input, fill_value, dtype=dtype)


def arange(start=0, end=None, step=1, *, dtype=None) -> Tensor:
    """start, start + step, ... up to `end` (excluded); int64 for integer arguments, else float32."""
    return ops.arange(start, end, step, dtype=dtype)


def linspace(start, end, steps: int, *, dtype=None) -> Tensor:
    """`steps` evenly spaced values from start to end (both included)."""
    out = ops.linspace(float(start), float(end), int(steps))
    return _cast(out, dtype)


def eye(n: int, m=None, dtype=None) -> Tensor:
    """Identity matrix n x m (float32 unless `dtype`)."""
    return ops.eye(n, m, _default_float(dtype))


# ---------------------------------------------------------------------------------------------- random
def rand(*size, generator=None, dtype=None, device=None) -> Tensor:
    """Uniform [0, 1) samples of `size`."""
    ignore_argument("mint.rand", "generator", generator, reason=GLOBAL_STREAM)
    return ops.rand(*_size(size, "rand"), dtype=dtype)


def randn(*size, generator=None, dtype=None, device=None) -> Tensor:
    """Standard normal samples of `size`."""
    ignore_argument("mint.randn", "generator", generator, reason=GLOBAL_STREAM)
    return ops.randn(*_size(size, "randn"), dtype=dtype)


def rand_like(input, *, dtype=None, device=None) -> Tensor:
    """Uniform [0, 1) samples of `input`'s shape."""
    return ops.rand_like(input, dtype=dtype)


def randn_like(input, *, dtype=None, device=None) -> Tensor:
    """Standard normal samples of `input`'s shape."""
    return ops.randn_like(input, dtype=dtype)


def randint(*args, generator=None, dtype=None, device=None) -> Tensor:
    """`randint(high, size)` or `randint(low, high, size)`: integers in [low, high) (int64 unless `dtype`)."""
    ignore_argument("mint.randint", "generator", generator, reason=GLOBAL_STREAM)
    if len(args) == 2:
        low, (high, size) = 0, args
    elif len(args) == 3:
        low, high, size = args
    else:
        raise TypeError(f"randint() takes (high, size) or (low, high, size), but got {len(args)} arguments.")
    return ops.randint(int(low), int(high), _size((size,), "randint"), dtype=dtype or mstype.int64)


def randint_like(input, *args, dtype=None, device=None) -> Tensor:
    """`randint_like(input, high)` or `randint_like(input, low, high)`."""
    low, high = (0, args[0]) if len(args) == 1 else args
    out = ops.randint(int(low), int(high), tuple(input.shape), dtype=mstype.int64)
    return ops.cast(out, dtype or input.dtype)


def randperm(n: int, *, generator=None, dtype=mstype.int64) -> Tensor:
    """A random permutation of 0..n-1."""
    ignore_argument("mint.randperm", "generator", generator, reason=GLOBAL_STREAM)
    return ops.cast(ops.argsort(ops.rand(int(n))), dtype)


def normal(mean=0.0, std=1.0, size=None, generator=None) -> Tensor:
    """Normal samples: mean and std are numbers (then `size` gives the shape) or tensors (broadcast)."""
    ignore_argument("mint.normal", "generator", generator, reason=GLOBAL_STREAM)
    if isinstance(mean, Tensor) or isinstance(std, Tensor):
        ref = ops.add(
            ops.zeros_like(mean) if isinstance(mean, Tensor) else mean,
            ops.zeros_like(std) if isinstance(std, Tensor) else std,
        )
        return ops.add(ops.mul(ops.randn_like(ref), std), mean)
    if size is None:
        raise TypeError("normal(): 'size' is needed when 'mean' and 'std' are numbers.")
    return ops.add(ops.mul(ops.randn(*_size((size,), "normal")), float(std)), float(mean))


def bernoulli(input, *, generator=None) -> Tensor:
    """1 with probability input[i], else 0 (input's dtype)."""
    ignore_argument("mint.bernoulli", "generator", generator, reason=GLOBAL_STREAM)
    return ops.cast(ops.less(ops.rand_like(input, dtype=_float_dtype(input)), input), input.dtype)


def multinomial(input, num_samples: int, replacement: bool = False, *, generator=None) -> Tensor:
    """Indices (int64) drawn from the rows of `input` (non-negative weights)."""
    ignore_argument("mint.multinomial", "generator", generator, reason=GLOBAL_STREAM)
    return ops.cast(ops.multinomial(input, num_samples, replacement), mstype.int64)


# ---------------------------------------------------------------------------------------------- linear algebra


def cdist(x1, x2, p: float = 2.0, compute_mode: str = "use_mm_for_euclid_dist_if_necessary") -> Tensor:
    """p-norm distance between each row of x1 and each row of x2 (batched)."""
    return ops.cdist(x1, x2, float(p))


def bmm(input, mat2) -> Tensor:
    """Batched matrix product of (b, n, m) and (b, m, p)."""
    return ops.bmm(input, mat2)


def mv(input, vec) -> Tensor:
    """Matrix-vector product."""
    return ops.mv(input, vec)


def vdot(input, other) -> Tensor:
    """Dot product of two 1-D tensors, the first conjugated."""
    if input.ndim != 1 or other.ndim != 1:
        raise ValueError(f"vdot(): both inputs must be 1-D, but got {input.ndim}-D and {other.ndim}-D.")
    return ops.sum(ops.mul(ops.conj(input), other))


def addr_(input, vec1, vec2, beta=1, alpha=1) -> Tensor:
    """beta * input + alpha * outer(vec1, vec2)."""
    return ops.addr(input, vec1, vec2, beta=beta, alpha=alpha)


def cross(input, other, dim=None) -> Tensor:
    """Cross product of 3-vectors along `dim` (the first dimension of size 3 when None)."""
    return ops.cross(input, other, dim)


def einsum(equation: str, *operands) -> Tensor:
    """Einstein summation."""
    return ops.einsum(equation, *operands)


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


# ---------------------------------------------------------------------------------------------- nn-ish


def conv_tbc(input, weight, bias, pad: int = 0) -> Tensor:
    """1-D convolution in (time, batch, channel) layout: input (T, B, Cin), weight (K, Cin, Cout).

    Args:
        input (Tensor): (T, B, Cin). weight (Tensor): (K, Cin, Cout). bias (Tensor): (Cout,).
        pad (int): zeros added at both ends of the time dimension.

    Returns:
        Tensor of shape (T + 2 * pad - K + 1, B, Cout).
    """
    x = ops.permute(input, (1, 2, 0))
    w = ops.permute(weight, (2, 1, 0))
    out = ops.conv1d(x, w, bias, 1, "pad" if pad else "valid", int(pad))
    return ops.permute(out, (2, 0, 1))


def npu_gelu(input, approximate: str = "none") -> Tensor:
    """GELU ('none': exact erf form; 'tanh': the tanh approximation)."""
    return nn_ops.gelu(input, approximate)


def _channel_shape(x, v):
    shape = [1] * x.ndim
    shape[1] = -1
    return ops.reshape(v, tuple(shape))


def batch_norm_stats(input, eps: float):
    """(mean, 1 / sqrt(biased var + eps)) per channel (dimension 1), over every other dimension."""
    axes = tuple(i for i in range(input.ndim) if i != 1)
    mean_ = ops.mean(input, axes)
    var_ = ops.mean(ops.square(ops.sub(input, _channel_shape(input, mean_))), axes)
    return mean_, ops.rsqrt(ops.add(var_, eps))


def batch_norm_elemt(input, weight=None, bias=None, mean=None, invstd=None, eps: float = 1e-5) -> Tensor:
    """(input - mean) * invstd * weight + bias per channel (dimension 1)."""
    out = ops.mul(ops.sub(input, _channel_shape(input, mean)), _channel_shape(input, invstd))
    if weight is not None:
        out = ops.mul(out, _channel_shape(input, weight))
    if bias is not None:
        out = ops.add(out, _channel_shape(input, bias))
    return out


def batch_norm_gather_stats_with_counts(
    input, mean, invstd, running_mean=None, running_var=None, momentum: float = 0.1, eps: float = 1e-5, counts=None
):
    """Combine per-group statistics (rows of `mean`, `invstd`, with `counts` samples each) into global ones.

    Running statistics (Parameters) are updated in place: running_mean by the global mean, running_var by
    the unbiased global variance, each with weight `momentum`.

    Returns:
        tuple (mean, invstd) per channel.
    """
    counts = ops.reshape(ops.cast(counts, mean.dtype), (-1, 1))
    total = ops.sum(counts)
    g_mean = ops.div(ops.sum(ops.mul(mean, counts), 0), total)
    var_i = ops.sub(ops.reciprocal(ops.square(invstd)), eps)
    g_var = ops.div(ops.sum(ops.mul(counts, ops.add(var_i, ops.square(ops.sub(mean, g_mean)))), 0), total)
    if running_mean is not None:
        _inplace(running_mean, ops.add(ops.mul(running_mean, 1 - momentum), ops.mul(g_mean, momentum)))
    if running_var is not None:
        unbiased = ops.mul(g_var, ops.div(total, ops.sub(total, 1)))
        _inplace(running_var, ops.add(ops.mul(running_var, 1 - momentum), ops.mul(unbiased, momentum)))
    return g_mean, ops.rsqrt(ops.add(g_var, eps))


# the faces table's mint faces (kiln/ops/faces.py) shown by this module; mint.nn.functional shows the others
_TABLE_FACES = (
    "abs", "absolute", "acos", "acosh", "add", "addbmm", "addmm", "addmv", "allclose", "arccos", "arccosh",
    "arcsin", "arcsinh", "arctan", "arctan2", "arctanh", "asin", "asinh", "atan", "atan2", "atanh", "baddbmm",
    "bitwise_and", "bitwise_not", "bitwise_or", "bitwise_xor", "ceil", "cos", "cosh", "dot", "eq", "erf",
    "erfc", "erfinv", "exp", "exp2", "expm1", "fix", "float_power", "floor", "floor_divide", "fmod", "frac",
    "gather", "gcd", "ge", "greater", "greater_equal", "gt", "imag", "inverse", "isclose", "isfinite", "isinf",
    "isnan", "isneginf", "le", "lerp", "less", "less_equal", "log", "log10", "log1p", "log2", "logaddexp",
    "logaddexp2", "logical_and", "logical_not", "logical_or", "logical_xor", "lt", "matmul", "maximum",
    "minimum", "mm", "mul", "nan_to_num", "ne", "neg", "negative", "not_equal", "outer", "polar", "real",
    "reciprocal", "remainder", "rsqrt", "sign", "sin", "sinc", "sinh", "sqrt", "square", "sub", "tan", "trace",
    "trunc", "xlogy"
)  # fmt: skip
globals().update({name: MINT[name] for name in _TABLE_FACES})

_NOT_EXPORTED = {
    "MINT",
    "annotations",
    "builtins",
    "mstype",
    "G",
    "Parameter",
    "Tensor",
    "nn_ops",
    "write_back",
    "ops",
}
__all__ = sorted(
    n for n, v in list(globals().items()) if not n.startswith("_") and n not in _NOT_EXPORTED and callable(v)
)
