"""`nn.Embedding`: a lookup table of learnable vectors."""

from __future__ import annotations

import numbers

from kiln import ops
from kiln._core import dtype as mstype
from kiln._core.tensor import Parameter
from kiln.common.initializer import initializer
from kiln.nn.cell import Cell

__all__ = ["Embedding"]


class Embedding(Cell):
    """Map integer ids to rows of a (vocab_size, embedding_size) table.

    Args:
        vocab_size (int): number of rows.
        embedding_size (int): length of each vector.
        use_one_hot (bool): MindSpore's one-hot matmul formulation; the result is the same lookup. Default: False.
        embedding_table (Union[Tensor, str, Initializer, numbers.Number]): table initializer. Default: 'normal'
            (N(0, 0.01^2)).
        dtype (mindspore.dtype): the table's dtype when floating point. Default: float32.
        padding_idx (int, optional): this row starts at zero and is never updated.

    Inputs:
        x (Tensor): integer ids of any shape.

    Outputs:
        Tensor of shape x.shape + (embedding_size,).
    """

    def __init__(
        self,
        vocab_size: int,
        embedding_size: int,
        use_one_hot: bool = False,
        embedding_table="normal",
        dtype=mstype.float32,
        padding_idx: int | None = None,
    ) -> None:
        super().__init__()
        for name, v in (("vocab_size", vocab_size), ("embedding_size", embedding_size)):
            if not isinstance(v, numbers.Integral) or isinstance(v, bool) or v <= 0:
                raise ValueError(f"For 'Embedding', '{name}' must be a positive int, but got {v!r}.")
        if padding_idx is not None and not (isinstance(padding_idx, int) and -vocab_size <= padding_idx < vocab_size):
            raise ValueError(
                f"For 'Embedding', 'padding_idx' must be an int in [{-vocab_size}, {vocab_size}), "
                f"but got {padding_idx!r}."
            )
        table_dtype = dtype if mstype.to_dtype(dtype).is_floating else mstype.float32
        self.vocab_size, self.embedding_size = int(vocab_size), int(embedding_size)
        self.use_one_hot, self.dtype = use_one_hot, dtype
        self.padding_idx = None if padding_idx is None else padding_idx % vocab_size
        table = initializer(embedding_table, [vocab_size, embedding_size], table_dtype)
        if self.padding_idx is not None:
            table = ops.tensor_scatter_update(
                table,
                ops.full((1, 1), self.padding_idx, dtype=mstype.int64),
                ops.zeros((1, embedding_size), table_dtype),
            )
        self.embedding_table = Parameter(table, name="embedding_table")

    def construct(self, ids):
        return ops.embedding(ids, self.embedding_table, self.padding_idx)

    def extend_repr(self) -> str:
        return (
            f"vocab_size={self.vocab_size}, embedding_size={self.embedding_size}, use_one_hot={self.use_one_hot}, "
            f"embedding_table={self.embedding_table!r}, dtype={self.dtype}, padding_idx={self.padding_idx}"
        )
