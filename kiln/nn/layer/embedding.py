"""Embedding layers: `nn.Embedding` (a lookup table of learnable vectors), EmbeddingLookup and
MultiFieldEmbeddingLookup."""

from __future__ import annotations

import numbers

import numpy as np

from kiln import ops
from kiln._core import dtype as mstype
from kiln._core.tensor import Parameter, Tensor
from kiln._core.unsupported import warn_once
from kiln._parallel import context as PC
from kiln.common.initializer import initializer
from kiln.nn.cell import Cell
from kiln.nn.layer._held import hold, touched

__all__ = ["Embedding", "EmbeddingLookup", "MultiFieldEmbeddingLookup"]


_LOWEST = -3.402823466e38  # the lowest float32, MindSpore's value for a 'MAX' merge's left-out rows


class Embedding(Cell):
    """Map integer ids to rows of a (vocab_size, embedding_size) table.

    Args:
        vocab_size (int): number of rows.
        embedding_size (int): length of each vector.
        use_one_hot (bool): MindSpore's one-hot matmul formulation; the result is the same lookup. Default: False.
        embedding_table: how the table starts: a Tensor, an initializer's name, an Initializer or a number.
            Default: 'normal' (N(0, 0.01^2)).
        dtype (mindspore.dtype): the table's dtype when floating point. Default: float32.
        padding_idx (int, optional): this row starts at zero; it is trained like any other row (as in
            MindSpore's nn.Embedding, unlike `mint.nn.Embedding` and `ops.embedding`, whose padding row gets no
            gradient).

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
        lookup = {"gather": ops.Gather(), "one_hot": ops.OneHot(), "array_mul": ops.MatMul()}
        shapes = {"reshape": ops.Reshape(), "reshape_flat": ops.Reshape(), "get_shp": ops.Shape()}
        hold(self, **lookup, **shapes, expand=ops.ExpandDims(), concat=ops.Concat(-1))

    def construct(self, ids):
        if not touched(self):
            return ops.embedding(ids, self.embedding_table)
        # MindSpore's lookup by the held primitives: the ids flattened, the rows gathered (or a one-hot product)
        flat = self.reshape_flat(ids, (-1,))
        if self.use_one_hot:
            table = self.embedding_table
            on, off = Tensor(1.0, table.dtype), Tensor(0.0, table.dtype)
            rows = self.array_mul(self.one_hot(flat, self.vocab_size, on, off), table)
        else:
            rows = self.gather(self.embedding_table, flat, 0)
        return self.reshape(rows, self.get_shp(ids) + (self.embedding_size,))

    def extend_repr(self) -> str:
        return (
            f"vocab_size={self.vocab_size}, embedding_size={self.embedding_size}, use_one_hot={self.use_one_hot}, "
            f"embedding_table={self.embedding_table!r}, dtype={self.dtype}, padding_idx={self.padding_idx}"
        )


class EmbeddingLookup(Cell):
    """A lookup table (vocab_size, embedding_size) named `embedding_table`.

    It holds MindSpore's lookup primitives, `gatherv2` (Gather, or SparseGatherV2 when `sparse`) and `embeddinglookup`
    (the `target='CPU'` one). In SEMI_AUTO_PARALLEL/AUTO_PARALLEL, `slice_mode` sets MindSpore's strategies on them
    over `device_num` devices: 'table_row_slice' splits the table's rows, 'table_column_slice' its columns,
    'batch_slice' the ids' first dimension, 'field_slice' the rows (in equal parts: `manual_shapes`, MindSpore's
    uneven split, is checked and warned about once) and the ids' second dimension; as in MindSpore the ids are then
    2-D. Outside those modes `slice_mode` changes nothing. `sparse` picks MindSpore's primitive; Kiln's gradient of
    the table is dense either way, so an optimizer that MindSpore's sparse gradient makes update only the looked-up
    rows (FTRL, lazy Adam) updates every row here, and warns once that it does.
    """

    BATCH_SLICE = "batch_slice"
    FIELD_SLICE = "field_slice"
    TABLE_ROW_SLICE = "table_row_slice"
    TABLE_COLUMN_SLICE = "table_column_slice"
    _SLICE_MODES = (BATCH_SLICE, FIELD_SLICE, TABLE_ROW_SLICE, TABLE_COLUMN_SLICE)

    def __init__(self, vocab_size, embedding_size, param_init="normal", target="CPU", slice_mode="batch_slice",
                 manual_shapes=None, max_norm=None, sparse=True, dtype=mstype.float32) -> None:  # fmt: skip
        super().__init__()
        name = type(self).__name__
        for key, v in (("vocab_size", vocab_size), ("embedding_size", embedding_size)):
            if not isinstance(v, int) or isinstance(v, bool) or v <= 0:
                raise ValueError(f"For '{name}', '{key}' must be a positive int, but got {v!r}.")
        if target not in ("CPU", "DEVICE"):
            raise ValueError(f"For '{name}', 'target' must be 'CPU' or 'DEVICE', but got {target!r}.")
        if not isinstance(sparse, bool):
            raise TypeError(f"For '{name}', 'sparse' must be a bool, but got {type(sparse).__name__}.")
        if target == "CPU" and not sparse:
            raise ValueError(f"For '{name}', the host lookup (target='CPU') is the sparse one: 'sparse' must be True "
                             "there (MindSpore refuses sparse=False with target='CPU').")  # fmt: skip
        self.vocab_size, self.embedding_size, self.target, self.max_norm = vocab_size, embedding_size, target, max_norm
        self.sparse, self.slice_mode = sparse, slice_mode
        self.embedding_table = Parameter(initializer(param_init, (vocab_size, embedding_size), dtype),
                                         name="embedding_table")  # fmt: skip
        self.embedding_table._kiln_sparse_lookup = sparse  # read by the optimizers MindSpore runs sparse kernels in
        hold(self, gatherv2=ops.SparseGatherV2() if sparse else ops.Gather(), embeddinglookup=ops.EmbeddingLookup())
        if PC.parallel_mode() in (PC.SEMI_AUTO_PARALLEL, PC.AUTO_PARALLEL):
            table, ids = _slice_strategies(name, slice_mode, manual_shapes, PC.get_auto_parallel_context("device_num"))
            self.gatherv2.shard((table, ids))
            self.embeddinglookup.shard((table, ids))

    def construct(self, indices):
        if not touched(self):
            out = ops.gather(self.embedding_table, indices, 0)
        elif self.target == "CPU":
            out = self.embeddinglookup(self.embedding_table, indices, 0)
        else:
            out = self.gatherv2(self.embedding_table, indices, 0)
        if self.max_norm is not None:
            norm = ops.sqrt(ops.sum(ops.square(out), -1, True))
            out = out * ops.minimum(1.0, self.max_norm / ops.maximum(norm, 1e-12))
        return out


def _slice_strategies(name: str, slice_mode, manual_shapes, devices: int) -> tuple[tuple, tuple]:
    """MindSpore's (table, 2-D ids) strategies for `slice_mode` over `devices` devices (auto-parallel modes)."""
    if slice_mode == EmbeddingLookup.TABLE_ROW_SLICE:
        return (devices, 1), (1, 1)
    if slice_mode == EmbeddingLookup.TABLE_COLUMN_SLICE:
        return (1, devices), (1, 1)
    if slice_mode == EmbeddingLookup.BATCH_SLICE:
        return (1, 1), (devices, 1)
    if slice_mode == EmbeddingLookup.FIELD_SLICE:
        if not manual_shapes:
            raise ValueError(f"For '{name}', slice_mode 'field_slice' needs 'manual_shapes' (the table rows of each "
                             f"device's part), but got {manual_shapes!r}.")  # fmt: skip
        if not isinstance(manual_shapes, tuple) or not all(
            isinstance(d, int) and not isinstance(d, bool) and d > 0 for d in manual_shapes
        ):
            raise TypeError(f"For '{name}', 'manual_shapes' must be a tuple of positive ints, but got "
                            f"{manual_shapes!r}.")  # fmt: skip
        warn_once(("manual_shapes", name), f"{name}: the table is split in equal parts; 'manual_shapes' "
                  f"{manual_shapes} (MindSpore's uneven split) does not change the layout here, nor the values.",
                  stacklevel=3)  # fmt: skip
        return (devices, 1), (1, devices)
    raise ValueError(f"For '{name}', 'slice_mode' must be one of {list(EmbeddingLookup._SLICE_MODES)} in the "
                     f"auto-parallel modes, but got {slice_mode!r}.")  # fmt: skip


class MultiFieldEmbeddingLookup(EmbeddingLookup):
    """Look up (batch, seq) `input_indices` in `embedding_table`, weight each row by `input_values`, and merge the
    rows of each sample by their `field_ids` into (batch, field_size, embedding_size) with 'SUM', 'MAX' (rows with
    weight 0 are left out; an empty field is 0) or 'MEAN' (sum / sum of |weights|, 0 for an empty field)."""

    def __init__(self, vocab_size, embedding_size, field_size, param_init="normal", target="CPU",
                 slice_mode="batch_slice", feature_num_list=None, max_norm=None, sparse=True, operator="SUM",
                 dtype=mstype.float32):  # fmt: skip
        super().__init__(vocab_size, embedding_size, param_init, target, slice_mode, feature_num_list, max_norm,
                         sparse, dtype=dtype)  # fmt: skip
        if not isinstance(field_size, int) or isinstance(field_size, bool) or field_size <= 0:
            raise ValueError(f"For 'MultiFieldEmbeddingLookup', 'field_size' must be a positive int, but got "
                             f"{field_size!r}.")  # fmt: skip
        if operator not in ("SUM", "MAX", "MEAN"):
            raise ValueError(f"For 'MultiFieldEmbeddingLookup', 'operator' must be one of ['SUM', 'MAX', 'MEAN'], "
                             f"but got {operator!r}.")  # fmt: skip
        self.field_size, self.operator = field_size, operator
        # MindSpore's primitives of the weighting and the merge by field (`merge_op` a segment max for 'MAX')
        merge = ops.UnsortedSegmentMax() if operator == "MAX" else ops.UnsortedSegmentSum()
        hold(self, mul=ops.Mul(), inf_mask_mul=ops.Mul(), bias_add=ops.Add(), inf_add=ops.Add(), merge_op=merge,
             count_op=ops.UnsortedSegmentSum(), abs=ops.Abs(), equal=ops.Equal(), add=ops.Add(), cast=ops.Cast(),
             div_no_nan=ops.DivNoNan(), expand=ops.ExpandDims(), max_mask_mul=ops.Mul(),
             max_no_equal=ops.NotEqual())  # fmt: skip

    def construct(self, input_indices, input_values, field_ids):
        for name, t in (("input_indices", input_indices), ("input_values", input_values), ("field_ids", field_ids)):
            if t.ndim != 2:
                raise ValueError(f"For 'MultiFieldEmbeddingLookup', '{name}' must be 2-D, but got {t.ndim}-D.")
        if touched(self):  # a held primitive sharded or replaced (or the lookup's, by slice_mode): MindSpore's steps
            return self._run_held(input_indices, input_values, field_ids)
        out = super().construct(input_indices)  # (B, S, E)
        weights = ops.expand_dims(ops.cast(input_values, out.dtype), -1)
        emb = out * weights
        onehot = ops.one_hot(ops.cast(field_ids, mstype.int32), self.field_size, Tensor(1.0, out.dtype),
                             Tensor(0.0, out.dtype))  # (B, S, F)  # fmt: skip
        count = ops.sum(ops.abs(ops.expand_dims(ops.cast(input_values, out.dtype), -1)) * onehot, 1)  # (B, F)
        if self.operator == "MAX":
            lowest = Tensor(np.float32(_LOWEST), out.dtype)
            emb = ops.select(ops.broadcast_to(weights == 0, emb.shape), ops.broadcast_to(lowest, emb.shape), emb)
            member = ops.expand_dims(onehot, -1) > 0  # (B, S, F, 1)
            cand = ops.select(ops.broadcast_to(member, member.shape[:3] + (emb.shape[-1],)),
                              ops.broadcast_to(ops.expand_dims(emb, 2), member.shape[:3] + (emb.shape[-1],)),
                              ops.broadcast_to(lowest, member.shape[:3] + (emb.shape[-1],)))  # fmt: skip
            merged = ops.amax(cand, 1)
            return merged * ops.expand_dims(ops.cast(count != 0, out.dtype), -1)
        merged = ops.matmul(ops.transpose(onehot, (0, 2, 1)), emb)  # (B, F, E)
        if self.operator == "MEAN":
            c = ops.expand_dims(count, -1)
            merged = ops.select(ops.broadcast_to(c == 0, merged.shape), ops.zeros_like(merged),
                                merged / ops.select(c == 0, ops.ones_like(c), c))  # fmt: skip
        return merged

    def _run_held(self, input_indices, input_values, field_ids):
        """MindSpore's sequence: each sample's field ids offset by sample * field_size, the weighted rows merged by
        `merge_op` over batch * field_size segments, then 'MAX' masks empty fields and 'MEAN' divides by the sum of
        |weights| (`count_op`)."""
        batch, seq = input_indices.shape
        segments = batch * self.field_size
        offsets = ops.reshape(ops.arange(0, segments, self.field_size, dtype=field_ids.dtype), (batch, -1))
        field_ids = self.bias_add(field_ids, offsets)
        out = EmbeddingLookup.construct(self, input_indices)  # (B, S, E)
        weights = ops.reshape(input_values, (batch, seq, 1))
        embedding = self.mul(weights, out)
        if self.operator == "MAX":  # rows of weight 0 pushed to the lowest float32, so that they never win
            mask = self.inf_mask_mul(self.cast(self.equal(weights, 0), mstype.float32), _LOWEST)
            embedding = ops.reshape(self.inf_add(embedding, mask), (-1, self.embedding_size))
            field_ids = ops.reshape(field_ids, (-1,))
        merged = self.merge_op(embedding, field_ids, segments)
        if self.operator == "MAX":
            count = self.count_op(self.abs(ops.reshape(input_values, (-1,))), field_ids, segments)
            merged = self.max_mask_mul(merged, self.expand(self.cast(self.max_no_equal(count, 0.0), mstype.float32),
                                                           -1))  # fmt: skip
        elif self.operator == "MEAN":
            count = self.count_op(self.abs(input_values), field_ids, segments)
            merged = self.div_no_nan(merged, self.expand(count, -1))
        return ops.reshape(merged, (batch, self.field_size, -1))
