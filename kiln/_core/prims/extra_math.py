"""Distances, counting and searching: Cdist, Bincount, SearchSorted."""

from __future__ import annotations

from kiln._backend import jax, jnp
from kiln._core.primitive import PrimitiveDef, op_error


def _check_cdist(x1, x2, p):
    s1, s2 = tuple(getattr(x1, "shape", ())), tuple(getattr(x2, "shape", ()))
    if len(s1) < 2 or len(s1) != len(s2):
        raise op_error("Cdist", f"'x1' and 'x2' must have the same rank, at least 2, but got shapes {s1} and {s2}.")
    if s1[-1] != s2[-1]:
        raise op_error("Cdist", f"'x1' and 'x2' must have the same last dimension, but got shapes {s1} and {s2}.")
    if s1[:-2] != s2[:-2]:
        raise op_error("Cdist", f"the batch dimensions of 'x1' {s1[:-2]} and 'x2' {s2[:-2]} must be equal.")
    if p < 0:
        raise op_error("Cdist", f"'p' must be non-negative, but got {p}.")


def _cdist(x1, x2, p):
    d = jnp.abs(x1[..., :, None, :] - x2[..., None, :, :])
    if p == 0:
        return jnp.sum((d != 0).astype(d.dtype), axis=-1)
    if p == float("inf"):
        return jnp.max(d, axis=-1)
    s = jnp.sum(d**p, axis=-1)
    # At zero distance the p-th root has no derivative: there the gradient is 0 (as MindSpore gives), not NaN.
    pos = s > 0
    return jnp.where(pos, jnp.where(pos, s, 1) ** (1.0 / p), 0)


Cdist = PrimitiveDef("Cdist", _cdist, attrs={"p": 2.0}, check=_check_cdist)


def _check_bincount(x, weights, length):
    dt = getattr(x, "dtype", None)
    if dt is not None and not jnp.issubdtype(jnp.dtype(dt), jnp.integer):
        raise op_error("Bincount", f"'input' must be an integer tensor, but got {dt}.", TypeError)
    if len(getattr(x, "shape", ())) != 1:
        raise op_error("Bincount", f"'input' must be 1-D, but got shape {tuple(getattr(x, 'shape', ()))}.")
    if weights is not None and tuple(weights.shape) != tuple(x.shape):
        raise op_error("Bincount", f"'weights' must have the shape of 'input' {tuple(x.shape)}, got {weights.shape}.")


def _bincount(x, weights, length):
    # MindSpore 2.10 counts in float32, with or without weights.
    w = None if weights is None else weights.astype(jnp.float32)
    return jnp.bincount(x, w, length=length).astype(jnp.float32)


Bincount = PrimitiveDef("Bincount", _bincount, attrs={"length": 0}, check=_check_bincount, nondiff=(0,))


def _check_searchsorted(seq, values, right, out_int32):
    s, v = tuple(getattr(seq, "shape", ())), tuple(getattr(values, "shape", ()))
    if len(s) == 0:
        raise op_error("SearchSorted", "'sorted_sequence' must have at least one dimension.")
    if len(s) > 1 and (len(v) != len(s) or v[:-1] != s[:-1]):
        raise op_error(
            "SearchSorted",
            f"the leading dimensions of 'sorted_sequence' {s} and 'values' {v} must be equal "
            "(or 'sorted_sequence' must be 1-D).",
        )


def _searchsorted(seq, values, right, out_int32):
    side = "right" if right else "left"
    if seq.ndim == 1:
        out = jnp.searchsorted(seq, values, side=side)
    else:
        rows = seq.reshape(-1, seq.shape[-1])
        vals = values.reshape(rows.shape[0], -1)
        out = jax.vmap(lambda r, q: jnp.searchsorted(r, q, side=side))(rows, vals).reshape(values.shape)
    return out.astype(jnp.int32 if out_int32 else jnp.int64)


SearchSorted = PrimitiveDef(
    "SearchSorted",
    _searchsorted,
    attrs={"right": False, "out_int32": False},
    check=_check_searchsorted,
    nondiff=(0, 1),
)


def _check_diagonal(x, offset, dim1, dim2):
    nd = len(getattr(x, "shape", ()))
    if nd < 2:
        raise op_error("Diagonal", f"the input must have at least 2 dimensions, but got {nd}.")
    d1, d2 = dim1 % nd if -nd <= dim1 < nd else None, dim2 % nd if -nd <= dim2 < nd else None
    if d1 is None or d2 is None or d1 == d2:
        raise op_error("Diagonal", f"'dim1' {dim1} and 'dim2' {dim2} must be two different axes of a {nd}-D input.")


Diagonal = PrimitiveDef(
    "Diagonal",
    lambda x, offset, dim1, dim2: jnp.diagonal(x, offset, dim1, dim2),
    attrs={"offset": 0, "dim1": 0, "dim2": 1},
    check=_check_diagonal,
)


NextAfter = PrimitiveDef("NextAfter", lambda x, y: jnp.nextafter(x, y), nondiff=(0, 1))
