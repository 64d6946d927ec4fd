"""mint's faces of the array ops: searching, counting, joining, splitting, reshaping, indexing, scattering,
triangles and copies, with PyTorch's argument names over the functional ops."""

from __future__ import annotations

from kiln._core import dtype as mstype
from kiln._core.tensor import Tensor
from kiln.ops.faces.mint_args import _int64, _norm_dim
from kiln.ops.faces.row import _named, ops

__all__ = [
    "_mint_bincount",
    "_mint_broadcast_to",
    "_mint_cat",
    "_mint_chunk",
    "_mint_clone",
    "_mint_diag",
    "_mint_diff",
    "_mint_dstack",
    "_mint_flip",
    "_mint_histc",
    "_mint_hstack",
    "_mint_index_add",
    "_mint_index_select",
    "_mint_item",
    "_mint_masked_select",
    "_mint_meshgrid",
    "_mint_narrow",
    "_mint_nonzero",
    "_mint_permute",
    "_mint_ravel",
    "_mint_repeat_interleave",
    "_mint_reshape",
    "_mint_roll",
    "_mint_scatter",
    "_mint_scatter_add",
    "_mint_searchsorted",
    "_mint_select",
    "_mint_split",
    "_mint_squeeze",
    "_mint_stack",
    "_mint_swapaxes",
    "_mint_t",
    "_mint_take",
    "_mint_tile",
    "_mint_transpose",
    "_mint_tril",
    "_mint_triu",
    "_mint_unbind",
    "_mint_unique",
    "_mint_unique_consecutive",
    "_mint_unsqueeze",
    "_mint_where",
]


@_named("searchsorted")
def _mint_searchsorted(sorted_sequence, values, *, out_int32=False, right=False, side=None, sorter=None) -> Tensor:
    """Insertion indices of `values` into the last dimension of `sorted_sequence`."""
    return ops.searchsorted(sorted_sequence, values, out_int32=out_int32, right=right, side=side, sorter=sorter)


@_named("unique")
def _mint_unique(input, sorted: bool = True, return_inverse: bool = False, return_counts: bool = False, dim=None):  # noqa: A002
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


@_named("unique_consecutive")
def _mint_unique_consecutive(input, return_inverse: bool = False, return_counts: bool = False, dim=None):
    """Collapse runs of equal consecutive elements (flattened unless `dim`)."""
    return ops.unique_consecutive(input, return_inverse, return_counts, dim)


@_named("bincount")
def _mint_bincount(input, weights=None, minlength: int = 0) -> Tensor:
    """Count (int64) of each non-negative integer value; with `weights` their float sums."""
    out = ops.bincount(input, weights, minlength)
    return _int64(out) if weights is None else out


@_named("histc")
def _mint_histc(input, bins: int = 100, min=0, max=0) -> Tensor:  # noqa: A002
    """Histogram of `bins` equal bins over [min, max] (min == max: the data's range)."""
    return ops.histc(input, bins, float(min), float(max))


@_named("cat")
def _mint_cat(tensors, dim: int = 0) -> Tensor:
    """Join tensors along an existing dimension."""
    return ops.cat(tuple(tensors), dim)


@_named("stack")
def _mint_stack(tensors, dim: int = 0) -> Tensor:
    """Join tensors along a new dimension."""
    return ops.stack(tuple(tensors), dim)


@_named("hstack")
def _mint_hstack(tensors) -> Tensor:
    """Join along dimension 1 (dimension 0 for 1-D tensors)."""
    return ops.hstack(tuple(tensors))


@_named("dstack")
def _mint_dstack(tensors) -> Tensor:
    """Join along dimension 2 (after making the inputs at least 3-D)."""
    return ops.dstack(tuple(tensors))


@_named("chunk")
def _mint_chunk(input, chunks: int, dim: int = 0):
    """Split into `chunks` pieces along `dim` (the last may be smaller)."""
    return ops.chunk(input, chunks, dim)


@_named("split")
def _mint_split(tensor, split_size_or_sections, dim: int = 0):
    """Split into pieces of `split_size_or_sections` (an int, or a list of sizes) along `dim`."""
    return ops.split(tensor, split_size_or_sections, dim)


@_named("unbind")
def _mint_unbind(input, dim: int = 0):
    """The slices of `input` along `dim`, as a tuple."""
    return ops.unbind(input, dim)


@_named("reshape")
def _mint_reshape(input, shape) -> Tensor:
    """`input` with a new shape (one dimension may be -1)."""
    return ops.reshape(input, tuple(shape) if isinstance(shape, list) else shape)


@_named("ravel")
def _mint_ravel(input) -> Tensor:
    """The input as a 1-D tensor."""
    return ops.reshape(input, (-1,))


@_named("squeeze")
def _mint_squeeze(input, dim=None) -> Tensor:
    """Drop dimensions of size 1 (all, or those of `dim` that have size 1)."""
    if dim is None:
        return ops.squeeze(input)
    dims = (dim,) if isinstance(dim, int) else tuple(dim)
    keep = tuple(_norm_dim(d, input.ndim) for d in dims if input.ndim and input.shape[_norm_dim(d, input.ndim)] == 1)
    return ops.squeeze(input, keep) if keep else input


@_named("unsqueeze")
def _mint_unsqueeze(input, dim: int) -> Tensor:
    """Insert a dimension of size 1 at `dim`."""
    return ops.unsqueeze(input, dim)


@_named("permute")
def _mint_permute(input, dims) -> Tensor:
    """Reorder the dimensions."""
    return ops.permute(input, tuple(dims))


@_named("transpose")
def _mint_transpose(input, dim0: int, dim1: int) -> Tensor:
    """Swap two dimensions."""
    return ops.swapaxes(input, dim0, dim1)


@_named("swapaxes")
def _mint_swapaxes(input, axis0: int, axis1: int) -> Tensor:
    """Swap two dimensions."""
    return ops.swapaxes(input, axis0, axis1)


@_named("t")
def _mint_t(input) -> Tensor:
    """Transpose of a tensor of at most 2 dimensions."""
    return ops.t(input)


@_named("broadcast_to")
def _mint_broadcast_to(input, shape) -> Tensor:
    """`input` broadcast to `shape` (-1 keeps a dimension)."""
    return ops.broadcast_to(input, tuple(shape))


@_named("tile")
def _mint_tile(input, dims) -> Tensor:
    """Repeat `input` `dims` times along each dimension."""
    return ops.tile(input, tuple(dims))


@_named("flip")
def _mint_flip(input, dims) -> Tensor:
    """Reverse the order along `dims`."""
    return ops.flip(input, (dims,) if isinstance(dims, int) else tuple(dims))


@_named("roll")
def _mint_roll(input, shifts, dims=None) -> Tensor:
    """Rotate elements along `dims` by `shifts` (flattened when dims is None)."""
    return ops.roll(input, shifts, dims)


@_named("repeat_interleave")
def _mint_repeat_interleave(input, repeats, dim=None, *, output_size=None) -> Tensor:
    """Repeat each element `repeats` times (a number or one count per element) along `dim`."""
    return ops.repeat_interleave(input, repeats, dim)


@_named("narrow")
def _mint_narrow(input, dim: int, start: int, length: int) -> Tensor:
    """The slice start:start+length of `dim`."""
    return ops.narrow(input, dim, start, length)


@_named("select")
def _mint_select(input, dim: int, index: int) -> Tensor:
    """The slice at `index` of `dim`, with `dim` removed."""
    d = _norm_dim(dim, input.ndim)
    return ops.squeeze(ops.narrow(input, d, index % input.shape[d], 1), d)


@_named("index_select")
def _mint_index_select(input, dim: int, index) -> Tensor:
    """The slices of `dim` at the positions of the 1-D `index`."""
    return ops.index_select(input, dim, index)


@_named("index_add")
def _mint_index_add(input, dim: int, index, source, *, alpha=1) -> Tensor:
    """`input` with alpha * source's slices added at `index` along `dim`."""
    return ops.index_add(input, index, source if alpha == 1 else ops.mul(source, alpha), _norm_dim(dim, input.ndim))


@_named("scatter")
def _mint_scatter(input, dim: int, index, src) -> Tensor:
    """`input` with src's values (or the number `src`) written at `index` along `dim`."""
    if not isinstance(src, Tensor):
        src = ops.full(tuple(index.shape), src, dtype=input.dtype)
    return ops.scatter(input, dim, index, src)


@_named("scatter_add")
def _mint_scatter_add(input, dim: int, index, src) -> Tensor:
    """`input` with src's values added at `index` along `dim`."""
    return ops.scatter_add(input, dim, index, src)


@_named("masked_select")
def _mint_masked_select(input, mask) -> Tensor:
    """1-D tensor of the elements where `mask` is True."""
    return ops.masked_select(input, mask)


@_named("take")
def _mint_take(input, index) -> Tensor:
    """Elements of the flattened input at `index`."""
    return ops.take(input, index)


@_named("nonzero")
def _mint_nonzero(input, *, as_tuple: bool = False):
    """Indices of the non-zero elements: (n, ndim) int64, or a tuple of 1-D index tensors."""
    return ops.nonzero(input, as_tuple)


@_named("where")
def _mint_where(condition, input=None, other=None):
    """`where(condition, input, other)`: elementwise choice; `where(condition)`: _mint_nonzero(as_tuple=True)."""
    if input is None and other is None:
        return ops.nonzero(condition, True)
    return ops.where(condition, input, other)


@_named("tril")
def _mint_tril(input, diagonal: int = 0) -> Tensor:
    """Lower triangle (elements above `diagonal` zeroed)."""
    return ops.tril(input, diagonal)


@_named("triu")
def _mint_triu(input, diagonal: int = 0) -> Tensor:
    """Upper triangle (elements below `diagonal` zeroed)."""
    return ops.triu(input, diagonal)


@_named("diag")
def _mint_diag(input, diagonal: int = 0) -> Tensor:
    """1-D input: a square matrix with it on diagonal `diagonal`; 2-D input: diagonal `diagonal` of it."""
    if input.ndim == 2:
        return ops.diagonal(input, diagonal, 0, 1)
    if input.ndim != 1:
        raise ValueError(f"diag(): the input must be 1-D or 2-D, but got {input.ndim}-D.")
    return ops.diag_embed(input, diagonal)


@_named("diff")
def _mint_diff(input, n: int = 1, dim: int = -1, prepend=None, append=None) -> Tensor:
    """n-th forward difference along `dim`."""
    return ops.diff(input, n, dim, prepend, append)


@_named("meshgrid")
def _mint_meshgrid(*tensors, indexing=None):
    """Coordinate grids of 1-D tensors ('ij' indexing unless 'xy')."""
    if len(tensors) == 1 and isinstance(tensors[0], (tuple, list)):
        tensors = tuple(tensors[0])
    return ops.meshgrid(*tensors, indexing=indexing or "ij")


@_named("clone")
def _mint_clone(input) -> Tensor:
    """A copy of `input`."""
    return ops.copy(input)


@_named("item")
def _mint_item(input):
    """The value of a one-element tensor as a Python number."""
    return input.item()
