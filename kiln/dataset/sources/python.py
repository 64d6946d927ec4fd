"""Sources fed by Python objects: GeneratorDataset, NumpySlicesDataset, PaddedDataset and RandomDataset."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Sequence

import numpy as np

from kiln._core import dtype as mstype
from kiln.dataset.engine import as_column_names
from kiln.dataset.schema import Schema
from kiln.dataset.sources.base import SampledSource


def _to_row(item, num_columns: int, column_types) -> tuple:
    """A generator item as a tuple of arrays (a tuple means several columns)."""
    if isinstance(item, tuple):
        values = item
    elif num_columns > 1 and isinstance(item, list) and len(item) == num_columns:
        values = tuple(item)
    else:
        values = (item,)
    if len(values) != num_columns:
        raise RuntimeError(
            f"GeneratorDataset: the source produced a row of {len(values)} column(s), but column_names "
            f"names {num_columns}. Return a tuple with one item per column."
        )
    row = tuple(np.asarray(v) for v in values)
    if column_types is not None:
        row = tuple(v if t is None else v.astype(t, copy=False) for v, t in zip(row, column_types))
    return row


def _schema_columns(schema, names: list[str] | None, types: list | None) -> tuple[list[str], list]:
    """GeneratorDataset's column names and types with a `schema` (a Schema or a JSON schema file's path)."""
    if isinstance(schema, str | os.PathLike):
        schema = Schema(os.fspath(schema))
    if not isinstance(schema, Schema):
        raise TypeError(f"GeneratorDataset: schema must be a Schema or a file path, but got {type(schema).__name__}.")
    schema_names = schema.names()
    if not schema_names:
        raise ValueError("GeneratorDataset: the schema has no columns.")
    if names is not None and names != schema_names:
        raise ValueError(f"GeneratorDataset: column_names {names} differ from the schema's columns {schema_names}.")
    if types is None:
        types = [schema.dtype(i) for i in range(len(schema_names))]
    return schema_names, types


class GeneratorDataset(SampledSource):
    """A dataset whose rows come from Python.

    Args:
        source: a random-accessible object (`__getitem__` and `__len__`), an
            iterable, or a callable returning an iterator (e.g. a generator
            function). Each item is a tuple with one value per column.
        column_names: names of the columns (required).
        column_types: optional dtypes (kiln or NumPy) the columns are cast to.
        shuffle: shuffle a random-accessible source (default True for those);
            iterables cannot be shuffled.
        num_samples: rows per epoch at most.
        num_parallel_workers: threads calling `source[i]` for random-accessible sources.
        sampler: a `DistributedSampler` (random-accessible sources only), instead of shuffle/num_shards/shard_id.
        num_shards, shard_id: read one shard (random-accessible sources only).
        python_multiprocessing: accepted; threads are used (the rows are the same).
        max_rowsize: accepted; it sizes MindSpore's shared memory between processes, which threads do not use.
        schema: a Schema or the path of a JSON schema file: the column names (when column_names is None, else
            they must agree) and the types the columns are cast to (when column_types is None).

    Returns:
        A Dataset.
    """

    def __init__(
        self,
        source: Callable | Iterable | Sequence,
        column_names: str | Sequence[str] | None = None,
        column_types=None,
        num_samples: int | None = None,
        num_parallel_workers: int = 1,
        shuffle: bool | None = None,
        sampler=None,
        num_shards: int | None = None,
        shard_id: int | None = None,
        python_multiprocessing: bool = True,
        max_rowsize=None,
        schema=None,
    ) -> None:
        self._random_access = hasattr(source, "__getitem__") and hasattr(source, "__len__")
        if not self._random_access:
            if not (callable(source) or hasattr(source, "__iter__")):
                raise TypeError(
                    "GeneratorDataset: source must be random-accessible (__getitem__ and __len__), iterable, "
                    f"or a callable returning an iterator, but got {type(source).__name__}."
                )
            if shuffle:
                raise ValueError(
                    "GeneratorDataset: shuffle=True needs a random-accessible source (__getitem__ and __len__); "
                    "use .shuffle(buffer_size) on an iterable source instead."
                )
            if num_shards is not None or sampler is not None:
                raise ValueError(
                    "GeneratorDataset: sharding or a sampler needs a random-accessible source (__getitem__, __len__)."
                )
            shuffle = False
        super().__init__(num_samples, shuffle, num_shards, shard_id, num_parallel_workers, sampler)
        names = as_column_names(column_names, "GeneratorDataset column_names")
        if column_types is not None:
            column_types = [None if t is None else mstype.to_dtype(t).np for t in column_types]
        if schema is not None:
            names, column_types = _schema_columns(schema, names, column_types)
        if names is None:
            raise ValueError("GeneratorDataset: column_names is required, e.g. column_names=['data', 'label'].")
        if column_types is not None and len(column_types) != len(names):
            raise ValueError(f"GeneratorDataset: {len(column_types)} column_types for {len(names)} columns.")
        self._source = source
        self._names = names
        self._types = column_types

    def get_col_names(self) -> list[str]:
        return list(self._names)

    def _num_rows(self) -> int:
        return len(self._source)

    def _read(self, index: int) -> tuple:
        return _to_row(self._source[index], len(self._names), self._types)

    def _static_size(self):
        if self._random_access:
            return super()._static_size()
        if hasattr(self._source, "__len__"):
            n = len(self._source)
            return n if self.num_samples is None else min(n, self.num_samples)
        return None

    def _rows(self, run, epoch):
        if self._random_access:
            yield from super()._rows(run, epoch)
            return
        items = self._source() if callable(self._source) and not hasattr(self._source, "__iter__") else self._source
        iterator = iter(items)
        try:
            for count, item in enumerate(iterator):
                if self.num_samples is not None and count >= self.num_samples:
                    break
                yield _to_row(item, len(self._names), self._types)
        finally:
            close = getattr(iterator, "close", None)
            if close is not None:
                close()


class NumpySlicesDataset(SampledSource):
    """A dataset that slices in-memory data along its first axis.

    Args:
        data: a list or NumPy array (one column), a tuple (one column per item)
            or a dict (one column per key, named by the key).
        column_names: names of the columns; "column_0", "column_1", ... when
            None. Ignored for dict input.
        shuffle: shuffle rows every epoch (default True).
        num_samples, sampler, num_shards, shard_id, num_parallel_workers: as for the other sources.

    Returns:
        A Dataset.
    """

    def __init__(
        self,
        data,
        column_names: str | Sequence[str] | None = None,
        num_samples: int | None = None,
        num_parallel_workers: int | None = 1,
        shuffle: bool | None = None,
        sampler=None,
        num_shards: int | None = None,
        shard_id: int | None = None,
    ) -> None:
        super().__init__(num_samples, shuffle, num_shards, shard_id, num_parallel_workers, sampler)
        if isinstance(data, dict):
            names = [str(k) for k in data]
            columns = [np.asarray(v) for v in data.values()]
        elif isinstance(data, tuple):
            columns = [np.asarray(v) for v in data]
            names = None
        elif isinstance(data, list | np.ndarray):
            columns = [np.asarray(data)]
            names = None
        else:
            raise TypeError(
                f"NumpySlicesDataset: data must be a list, tuple, dict or ndarray, got {type(data).__name__}."
            )
        if not columns:
            raise ValueError("NumpySlicesDataset: data has no columns.")
        if names is None:
            names = as_column_names(column_names, "NumpySlicesDataset column_names") or [
                f"column_{i}" for i in range(len(columns))
            ]
            if len(names) != len(columns):
                raise ValueError(f"NumpySlicesDataset: {len(names)} column_names for {len(columns)} columns: {names}.")
        for name, col in zip(names, columns):
            if col.ndim == 0:
                raise ValueError(f"NumpySlicesDataset: column {name!r} is a scalar; it needs a first axis to slice.")
        lengths = {name: len(col) for name, col in zip(names, columns)}
        if len(set(lengths.values())) > 1:
            raise ValueError(f"NumpySlicesDataset: columns have different numbers of rows: {lengths}.")
        self._names = names
        self._columns = columns

    def get_col_names(self) -> list[str]:
        return list(self._names)

    def _num_rows(self) -> int:
        return len(self._columns[0])

    def _read(self, index: int) -> tuple:
        return tuple(np.array(col[index]) for col in self._columns)


class PaddedDataset(SampledSource):
    """A dataset of the given rows, used to pad a dataset so that it divides evenly into shards.

    Args:
        padded_samples: a non-empty list of dicts with the same keys (column name -> value).
    """

    def __init__(self, padded_samples: list[dict]) -> None:
        super().__init__(None, False, None, None, None, None)
        if not isinstance(padded_samples, list) or not padded_samples:
            raise TypeError("PaddedDataset: padded_samples must be a non-empty list of dicts.")
        for s in padded_samples:
            if not isinstance(s, dict):
                raise TypeError(f"PaddedDataset: every sample must be a dict, but got {type(s).__name__}.")
        names = list(padded_samples[0])
        for s in padded_samples:
            if list(s) != names:
                raise ValueError(f"PaddedDataset: samples have different keys: {names} and {list(s)}.")
        self._names = names
        self._samples = [tuple(np.asarray(s[n]) for n in names) for s in padded_samples]

    def get_col_names(self) -> list[str]:
        return list(self._names)

    def _num_rows(self) -> int:
        return len(self._samples)

    def _read(self, index):
        return tuple(a.copy() for a in self._samples[index])


class RandomDataset(SampledSource):
    """Random rows following a schema (for testing pipelines).

    Row i is generated from (seed, i). Without a schema, MindSpore-like random columns c0, c1, ... are
    made (each of random type and shape, fixed per dataset).

    Args:
        total_rows: number of rows (None: the schema's numRows, else a random number in [1, 1024]).
        schema: a Schema or the path of a JSON schema file.
        columns_list: the columns of the schema to produce (None: all).
        num_samples, num_parallel_workers, shuffle, num_shards, shard_id, cache: as for the other sources.
    """

    # MindSpore's order (no sampler; cache before shuffle).
    _ORDER = ("total_rows", "schema", "columns_list", "num_samples", "num_parallel_workers", "cache", "shuffle",
              "num_shards", "shard_id")  # fmt: skip

    def _open(self, total_rows=None, schema=None, columns_list=None) -> None:
        rng = np.random.default_rng(0x5EED)
        if isinstance(schema, str):
            schema = Schema(schema)
        if schema is None:
            schema = Schema()
            kinds = ["uint8", "int32", "float32", "int64"]
            for i in range(int(rng.integers(1, 4))):
                shape = [int(s) for s in rng.integers(1, 5, size=int(rng.integers(1, 3)))]
                schema.add_column(f"c{i}", kinds[int(rng.integers(len(kinds)))], shape)
        if not isinstance(schema, Schema):
            raise TypeError(f"RandomDataset: schema must be a Schema or a file path, but got {type(schema).__name__}.")
        if columns_list is not None and not isinstance(columns_list, list):
            raise TypeError("RandomDataset: columns_list must be a list of column names.")
        keep = schema.names() if columns_list is None else list(columns_list)
        missing = [c for c in keep if c not in schema.names()]
        if missing:
            raise ValueError(f"RandomDataset: columns {missing} are not in the schema.")
        self._cols = [schema.names().index(c) for c in keep]
        self._schema = schema
        if total_rows is None:
            total_rows = schema.get_num_rows() or int(rng.integers(1, 1025))
        if isinstance(total_rows, bool) or not isinstance(total_rows, int) or total_rows < 0:
            raise ValueError(f"RandomDataset: total_rows must be a non-negative int, but got {total_rows!r}.")
        self._total = total_rows

    def get_col_names(self) -> list[str]:
        names = self._schema.names()
        return [names[i] for i in self._cols]

    def _num_rows(self) -> int:
        return self._total

    def _read(self, index):
        rng = np.random.default_rng([0x5EED, index])
        row = []
        for i in self._cols:
            col = self._schema.columns[i]
            dtype = self._schema.dtype(i)
            shape = col.get("shape") or [int(s) for s in rng.integers(1, 5, size=int(rng.integers(1, 3)))]
            if dtype.kind == "f":
                row.append(rng.random(shape).astype(dtype))
            elif dtype.kind == "b":
                row.append(rng.integers(0, 2, size=shape).astype(bool))
            elif dtype.kind in "iu":
                info = np.iinfo(dtype)
                row.append(rng.integers(max(info.min, -(2**31)), min(info.max, 2**31 - 1), size=shape).astype(dtype))
            else:
                row.append(np.array([f"s{j}" for j in rng.integers(0, 100, size=int(np.prod(shape)))]).reshape(shape))
        return tuple(row)
