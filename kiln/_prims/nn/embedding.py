"""Embedding lookup: rows of a weight table, with a padding row whose gradient is 0."""

from __future__ import annotations

from kiln._backend import jnp, lax
from kiln._core.primitive import op_error
from kiln._prims import _bounds
from kiln._prims._checks import shape_of
from kiln._prims.nn._common import declare, dtype_of


def _check_embedding(indices, weight, *, padding_idx):
    op = "Embedding"
    dt = dtype_of(indices)
    if dt is not None and dt.kind not in "iu":
        raise op_error(op, f"'input' must be an integer tensor of indices, but got {dt}.", TypeError)
    ws = shape_of(weight)
    if len(ws) != 2:
        raise op_error(op, f"'weight' must be 2-D (num_embeddings, embedding_dim), but got shape {list(ws)}.")
    if padding_idx is not None and not -ws[0] <= padding_idx < ws[0]:
        raise op_error(op, f"'padding_idx' must be in [{-ws[0]}, {ws[0]}), but got {padding_idx}.")


def _embedding(indices, weight, *, padding_idx):
    if padding_idx is not None:  # the padding row is looked up but never trained
        weight = weight.at[padding_idx].set(lax.stop_gradient(weight[padding_idx]))
    # Out-of-range indices are refused by the bounds check; with checks off they read NaN, not a clamped row.
    return jnp.take(weight, indices, axis=0, mode="fill")


Embedding = declare(
    "Embedding",
    _embedding,
    _check_embedding,
    attrs={"padding_idx": None},
    nondiff=(0,),
    bounds=_bounds.embedding_bounds,
)
