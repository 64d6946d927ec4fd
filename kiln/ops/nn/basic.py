"""Functional dropout, dense and embedding."""

from __future__ import annotations

from kiln._core.random_state import next_key
from kiln._core.tensor import Tensor
from kiln._prims.nn import dense as prims_dense
from kiln._prims.nn import dropout as prims_dropout
from kiln._prims.nn import embedding as prims_embedding
from kiln.ops._helpers import apply, op_error
from kiln.ops.nn._args import check_probability

__all__ = ["dense", "dropout", "embedding"]


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
