"""Leaf datasets fed by Python objects: GeneratorDataset and NumpySlicesDataset.

`SampledSource` is also the base of the file-backed sources: anything that can
read row `i` on demand gets shuffling, sharding and `num_samples` from it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

import numpy as np

from kiln._core import dtype as mstype
from kiln.dataset import config
from kiln.dataset.engine import Dataset
from kiln.dataset.iterators import ordered_map
from kiln.dataset.sampler import SampleContext, as_sampler, resolve_sampler


def _column_names(column_names, what: str) -> list[str] | None:
    if column_names is None:
        return None
    names = [column_names] if isinstance(column_names, str) else list(column_names)
    if not names or not all(isinstance(n, str) for n in names):
        raise TypeError(f"{what}: column_names must be a str or a non-empty list of str, but got {column_names!r}.")
    if len(set(names)) != len(names):
        raise ValueError(f"{what}: column_names has duplicates: {names}.")
    return names


class SampledSource(Dataset):
    """A source that reads row `i` on demand, with MindSpore's sampling arguments.

    Args:
        num_samples: rows per epoch at most (after sharding); all when None.
        shuffle: read rows in a random order, new every epoch; None means True.
        num_shards: split the rows into this many shards ...
        shard_id: ... and read this one; row `i` of the shuffled order goes to shard `i % num_shards`.
            Sharded shuffles use the dataset seed (`config.get_seed()`), so every shard agrees on the order.
        num_parallel_workers: threads reading rows (worth it when reading is slow I/O).
        sampler: a sampler (`SequentialSampler`, `RandomSampler`, `DistributedSampler`, `SubsetSampler`,
            `SubsetRandomSampler`, `WeightedRandomSampler`, `PKSampler`, a user `Sampler`) or a list of
            row indices, instead of shuffle/num_shards/shard_id/num_samples.
    """

    def __init__(
        self, num_samples=None, shuffle=None, num_shards=None, shard_id=None, num_parallel_workers=None, sampler=None
    ):
        super().__init__()
        self.sampler = resolve_sampler(type(self).__name__, sampler, num_samples, shuffle, num_shards, shard_id)
        workers = 1 if num_parallel_workers is None else num_parallel_workers
        if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
            raise ValueError(f"num_parallel_workers must be a positive int, but got {num_parallel_workers!r}.")
        self._read_workers = workers

    @property
    def num_samples(self):
        return self.sampler.get_num_samples()

    def _num_rows(self) -> int:
        raise NotImplementedError

    def _read(self, index: int) -> tuple:
        raise NotImplementedError

    def _labels(self) -> np.ndarray:
        """One label per row, for PKSampler: the "label" column (subclasses may know it without reading)."""
        names = self.get_col_names()
        column = getattr(self.sampler, "class_column", "label")
        if column not in names:
            raise RuntimeError(f"{type(self).__name__}: PKSampler needs a column {column!r}; the columns are {names}.")
        k = names.index(column)
        return np.asarray([np.asarray(self._read(i)[k]).reshape(-1)[0] for i in range(self._num_rows())])

    def _static_size(self):
        return self.sampler.size(self._num_rows())

    def _indices(self, run, epoch) -> np.ndarray:
        # Shards (possibly in other processes) must draw the same permutation: a fixed seed, as MindSpore.
        seed = config.get_seed() if self.sampler.is_sharded() else run.seed
        return self.sampler.indices(self._num_rows(), SampleContext(seed, epoch, self._labels))

    def _rows(self, run, epoch):
        indices = self._indices(run, epoch)
        yield from ordered_map(lambda i: self._read(int(i)), indices, self._read_workers)

    def use_sampler(self, new_sampler) -> None:
        """Read with `new_sampler` from now on (it replaces the current sampler).

        Args:
            new_sampler: a sampler or a list of row indices.
        """
        self.sampler = as_sampler(new_sampler)
        self._counted_size = None

    def add_sampler(self, new_sampler) -> None:
        """Put `new_sampler` on top of the current sampler (the current one becomes its child).

        Args:
            new_sampler: a sampler.
        """
        new = as_sampler(new_sampler)
        new.add_child(self.sampler)
        self.sampler = new
        self._counted_size = None

    def is_shuffled(self) -> bool:
        return self.sampler.is_shuffled() or super().is_shuffled()

    def is_sharded(self) -> bool:
        return self.sampler.is_sharded() or super().is_sharded()


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
        python_multiprocessing: accepted for compatibility; threads are used.

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
        names = _column_names(column_names, "GeneratorDataset")
        if names is None:
            raise ValueError("GeneratorDataset: column_names is required, e.g. column_names=['data', 'label'].")
        if column_types is not None:
            column_types = [None if t is None else mstype.to_dtype(t).np for t in column_types]
            if len(column_types) != len(names):
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
            names = _column_names(column_names, "NumpySlicesDataset") or [f"column_{i}" for i in range(len(columns))]
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
