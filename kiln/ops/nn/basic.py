"""Functional dropout (element and channel), dense and bilinear layers, embedding, cosine similarity."""

from __future__ import annotations

from kiln._core.random_state import next_key
from kiln._core.tensor import Tensor
from kiln._core.unsupported import GLOBAL_STREAM, ignore_argument
from kiln._prims.nn import dense as prims_dense
from kiln._prims.nn import dropout as prims_dropout
from kiln._prims.nn import embedding as prims_embedding
from kiln.ops import array, math
from kiln.ops._args import check_probability
from kiln.ops._helpers import apply, op_error
from kiln.ops.random import rand

__all__ = ["bidense", "dense", "dropout", "embedding", "cosine_similarity", "dropout1d", "dropout2d", "dropout3d"]


def bidense(input1, input2, weight, bias=None) -> Tensor:
    """Bilinear map y = x1^T W x2 + b.

    Args:
        input1 (Tensor): (..., in1).
        input2 (Tensor): (..., in2).
        weight (Tensor): (out, in1, in2).
        bias (Tensor, optional): (out,).

    Returns:
        Tensor (..., out).
    """
    out = math.einsum("...i,oij,...j->...o", input1, weight, input2)
    return out + bias if bias is not None else out


def dropout(input, p: float = 0.5, training: bool = True, seed=None) -> Tensor:
    """Zero each element with probability `p` and scale the rest by 1 / (1 - p).

    Args:
        input (Tensor): floating-point input.
        p (float): drop probability in [0, 1]. Default: 0.5.
        training (bool): when False the input is returned unchanged. Default: True.
        seed (int, optional): accepted for MindSpore compatibility; draws always come from
            Kiln's global generator (`kiln.set_seed`), so successive calls differ.

    Returns:
        Tensor of the input's shape.
    """
    ignore_argument(
        "ops.dropout",
        "seed",
        seed,
        reason=GLOBAL_STREAM,
    )
    p = check_probability("Dropout", "p", p)
    if not training or p == 0.0:
        return input
    return apply(prims_dropout.Dropout, (next_key(), input), (1.0 - p,))[0]


def dense(input, weight, bias=None) -> Tensor:
    """input @ weight.T + bias.

    Args:
        input (Tensor): (*, in_features).
        weight (Tensor): (out_features, in_features) or (in_features,).
        bias (Tensor, optional): (out_features,).

    Returns:
        Tensor (*, out_features) (or (*) for a 1-D weight).
    """
    return apply(prims_dense.Dense, (input, weight, bias))


def embedding(input, weight, padding_idx=None, max_norm=None, norm_type=2.0, scale_grad_by_freq=False) -> Tensor:
    """Rows of `weight` selected by the integer indices `input`.

    Args:
        input (Tensor): integer indices of any shape.
        weight (Tensor): (num_embeddings, embedding_dim) table.
        padding_idx (int, optional): this row receives no gradient.
        max_norm, norm_type, scale_grad_by_freq: not supported (they rewrite the table in place).

    Returns:
        Tensor of shape input.shape + (embedding_dim,). Out-of-range indices give NaN rows.
    """
    if max_norm is not None or scale_grad_by_freq:
        raise op_error(
            "Embedding", "'max_norm' and 'scale_grad_by_freq' are not supported in Kiln.", NotImplementedError
        )
    return apply(prims_embedding.Embedding, (input, weight), (None if padding_idx is None else int(padding_idx),))


def _channel_dropout(op: str, input, p, training, spatial: int):
    if not isinstance(p, (int, float)) or not 0 <= p <= 1:
        raise op_error(op, f"'p' must be a number in [0, 1], but got {p!r}.")
    if not training or p == 0:
        return input
    if input.ndim not in (spatial + 1, spatial + 2):
        raise op_error(op, f"the input must be {spatial + 1}-D or {spatial + 2}-D, but got {input.ndim}-D.")
    mask_shape = tuple(input.shape[: input.ndim - spatial]) + (1,) * spatial
    if p == 1:
        return array.zeros_like(input)
    keep = math.cast(math.greater_equal(rand(*mask_shape), p), input.dtype)
    return math.mul(input, math.mul(keep, 1.0 / (1.0 - p)))


def dropout1d(input, p=0.5, training=True) -> Tensor:
    """Zero whole channels of (N, C, L) / (C, L) with probability `p`, scaling the rest by 1 / (1 - p)."""
    return _channel_dropout("dropout1d", input, p, training, 1)


def dropout2d(input, p=0.5, training=True) -> Tensor:
    """Zero whole channels of (N, C, H, W) / (C, H, W) with probability `p`, scaling the rest by 1 / (1 - p)."""
    return _channel_dropout("dropout2d", input, p, training, 2)


def dropout3d(input, p=0.5, training=True) -> Tensor:
    """Zero whole channels of (N, C, D, H, W) / (C, D, H, W) with probability `p`, scaling the rest."""
    return _channel_dropout("dropout3d", input, p, training, 3)


def cosine_similarity(x1, x2, dim=1, eps=1e-8) -> Tensor:
    """sum(x1 * x2) / max(||x1|| ||x2||, eps) along `dim` (the inputs broadcast)."""
    dot = math.sum(math.mul(x1, x2), dim)
    n1 = math.sqrt(math.sum(math.square(x1), dim))
    n2 = math.sqrt(math.sum(math.square(x2), dim))
    return math.div(dot, math.maximum(math.mul(n1, n2), eps))
