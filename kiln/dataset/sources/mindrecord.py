"""MindDataset: rows of MindRecord files, written by Kiln (`FileWriter`, `Dataset.save`) or by MindSpore."""

from __future__ import annotations

import numpy as np

from kiln.dataset.sources.base import SampledSource, Shuffle
from kiln.mindrecord.common import NUMERIC_TYPES
from kiln.mindrecord.filereader import ShardSet


def _column_value(kind: str, value):
    """A stored value as a pipeline column: bytes as a (1,) bytes array, str as a 0-D str array."""
    if kind == "bytes":
        return np.array([value])
    if kind == "string":
        return np.array(value)
    return value


class MindDataset(SampledSource):
    """Rows of MindRecord files written by `kiln.mindrecord.FileWriter`, `Dataset.save` or MindSpore's FileWriter.

    Columns are the schema's fields in name order (or `columns_list`); "bytes" fields are (1,) bytes arrays,
    "string" fields 0-D str arrays, numbers keep their stored dtype and shape.

    Args:
        dataset_files: one shard file (the whole set it belongs to is read) or a list of shard files.
        columns_list: the fields to read, in this order (default all).
        num_parallel_workers: threads reading rows.
        shuffle: True/None (a new global order every epoch), False, or a `Shuffle` (read as a global shuffle).
        num_shards, shard_id: read one shard of the rows.
        sampler: a sampler instead of shuffle/num_shards/shard_id/num_samples.
        padded_sample: a row (dict of field -> value) appended `num_padded` times, to even out shards.
        num_padded: how many padded rows to append.
        num_samples: rows per epoch at most.
        cache: not supported (must be None).
    """

    _concat_shards_in_blocks = True

    # MindSpore's order, own and shared parameters mixed.
    _ORDER = ("dataset_files", "columns_list", "num_parallel_workers", "shuffle", "num_shards", "shard_id", "sampler",
              "padded_sample", "num_padded", "num_samples", "cache")  # fmt: skip

    def _start(self, own: dict, shared: dict) -> None:
        """A `Shuffle` reads as a global shuffle (FILES and INFILE only without num_samples)."""
        shuffle = shared["shuffle"]
        if isinstance(shuffle, Shuffle):
            if shared["num_samples"] is not None and shuffle != Shuffle.GLOBAL:
                raise ValueError("MindDataset: Shuffle.FILES or Shuffle.INFILE cannot be combined with num_samples.")
            shared = {**shared, "shuffle": True}
        super()._start(own, shared)

    # `cache` is an own parameter here: MindDataset refuses one instead of ignoring it.
    def _open(self, dataset_files, columns_list=None, padded_sample=None, num_padded=None, cache=None) -> None:
        if cache is not None:
            raise NotImplementedError("MindDataset: Kiln has no dataset cache server; pass cache=None.")
        self._set = ShardSet(dataset_files)
        schema = self._set.schema
        if columns_list is None:
            columns = sorted(schema)
        else:
            if not isinstance(columns_list, list) or not columns_list:
                raise TypeError(f"MindDataset: columns_list must be a non-empty list of str, got {columns_list!r}.")
            bad = [c for c in columns_list if c not in schema]
            if bad:
                raise RuntimeError(
                    f"MindDataset: columns {bad} are not fields of the MindRecord schema {sorted(schema)}."
                )
            columns = list(columns_list)
        self._columns = columns
        self._kinds = [schema[c]["type"] for c in columns]
        if (padded_sample is None) != (num_padded is None or num_padded == 0):
            raise ValueError("MindDataset: padded_sample and num_padded must be given together.")
        self._padded = None
        self._num_padded = 0
        if padded_sample is not None:
            if not isinstance(padded_sample, dict) or any(c not in padded_sample for c in columns):
                raise ValueError(f"MindDataset: padded_sample must be a dict with the columns {columns}.")
            if isinstance(num_padded, bool) or not isinstance(num_padded, int) or num_padded < 0:
                raise TypeError(f"MindDataset: num_padded must be a non-negative int, got {num_padded!r}.")
            self._padded = tuple(self._convert(k, padded_sample[c]) for c, k in zip(columns, self._kinds))
            self._num_padded = num_padded

    @staticmethod
    def _convert(kind: str, value):
        if kind in NUMERIC_TYPES:
            return np.asarray(value, dtype=NUMERIC_TYPES[kind])
        if kind == "string" and isinstance(value, bytes):
            value = value.decode("utf-8")
        return _column_value(kind, value)

    def get_col_names(self) -> list[str]:
        return list(self._columns)

    def _num_rows(self) -> int:
        return len(self._set) + self._num_padded

    def _read(self, index: int) -> tuple:
        if index >= len(self._set):
            return self._padded
        row = self._set.read(index)
        return tuple(_column_value(k, row[c]) for c, k in zip(self._columns, self._kinds))
