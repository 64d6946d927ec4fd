"""The dataset graph: the `Dataset` base class and the nodes its methods build.

Every node is lazy. Iterating pulls rows (tuples of NumPy arrays, one per
column) through chained generators, so memory does not grow with the size of
the data; `iterators.py` runs the chain on a background thread.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Sequence

import numpy as np

from kiln.dataset import _rng, config
from kiln.dataset.iterators import DictIterator, Run, TupleIterator, ordered_map

INFINITE = math.inf  # size of an endlessly repeated pipeline


def _as_names(columns, what: str) -> list[str] | None:
    if columns is None:
        return None
    names = [columns] if isinstance(columns, str) else list(columns)
    if not names or not all(isinstance(c, str) for c in names):
        raise TypeError(f"{what} must be a column name or a non-empty list of column names, but got {columns!r}.")
    if len(set(names)) != len(names):
        raise ValueError(f"{what} lists a column more than once: {names}.")
    return names


def _check_exist(columns: list[str], existing: list[str], where: str) -> None:
    for c in columns:
        if c not in existing:
            raise ValueError(f"{where}: column {c!r} does not exist; the dataset has columns {existing}.")


def _check_unique(names: list[str], where: str) -> None:
    dup = sorted({n for n in names if names.count(n) > 1})
    if dup:
        raise ValueError(f"{where}: the result would have duplicate column names {dup} (columns: {names}).")


def _check_int(value, name: str, low: int, allow_minus_one: bool = False) -> int:
    if isinstance(value, bool) or not isinstance(value, int | np.integer):
        raise TypeError(f"{name} must be an int, but got {type(value).__name__}.")
    if value < low and not (allow_minus_one and value == -1):
        extra = " or -1" if allow_minus_one else ""
        raise ValueError(f"{name} must be >= {low}{extra}, but got {value}.")
    return int(value)


def _as_datasets(datasets, where: str) -> list[Dataset]:
    items = [datasets] if isinstance(datasets, Dataset) else list(datasets)
    for d in items:
        if not isinstance(d, Dataset):
            raise TypeError(f"{where} expects Dataset objects, but got {type(d).__name__}.")
    return items


class Dataset:
    """Base class of every dataset: sources and the nodes built by the methods below.

    Subclasses implement `get_col_names`, `_rows(run, epoch)` (a generator of
    row tuples) and, when known without reading, `_static_size()`.
    """

    def __init__(self, children: Sequence[Dataset] = ()) -> None:
        self.children: tuple[Dataset, ...] = tuple(children)
        self._counted_size: int | None = None

    # -- graph interface -----------------------------------------------------
    def get_col_names(self) -> list[str]:
        """Names of the columns, in row order."""
        raise NotImplementedError

    def _rows(self, run: Run, epoch: tuple[int, ...]):
        raise NotImplementedError

    def _static_size(self) -> int | float | None:
        """Rows per epoch without reading data: an int, INFINITE, or None when unknown."""
        return None

    def _child_rows(self, run: Run, epoch: tuple[int, ...], index: int = 0):
        return self.children[index]._rows(run, epoch)

    # -- transformations -----------------------------------------------------
    def map(
        self,
        operations: Callable | Sequence[Callable],
        input_columns: str | Sequence[str] | None = None,
        output_columns: str | Sequence[str] | None = None,
        num_parallel_workers: int | None = None,
        python_multiprocessing: bool = False,
    ) -> MapDataset:
        """Apply operations to columns of every row.

        Args:
            operations: a callable or a list of callables applied in order; each
                gets the previous outputs as arguments (a tuple means several).
            input_columns: columns passed to the first operation; all when None.
            output_columns: names of the last operation's outputs; defaults to
                `input_columns`. Needed when their numbers differ.
            num_parallel_workers: threads that run the operations; rows keep
                their order and random transforms give the same results as
                serially. Threads help when the operations spend their time in
                code that releases the GIL (large NumPy kernels, decoding, I/O);
                small per-row ops run fastest serially. Defaults to
                `config.get_num_parallel_workers()` (1).
            python_multiprocessing: accepted for compatibility; threads are used.

        Returns:
            The mapped dataset.
        """
        return MapDataset(self, operations, input_columns, output_columns, num_parallel_workers)

    def filter(
        self, predicate: Callable, input_columns: str | Sequence[str] | None = None, num_parallel_workers=None
    ) -> FilterDataset:
        """Keep the rows for which `predicate(*columns)` is true.

        Args:
            predicate: called with the input columns, returns a bool.
            input_columns: columns passed to the predicate; all when None.
            num_parallel_workers: accepted for compatibility; filtering is serial.

        Returns:
            The filtered dataset.
        """
        return FilterDataset(self, predicate, input_columns)

    def batch(self, batch_size: int, drop_remainder: bool = False, num_parallel_workers: int | None = None):
        """Stack consecutive rows into batches along a new first axis.

        Args:
            batch_size: rows per batch, at least 1.
            drop_remainder: drop a last batch smaller than `batch_size`.
            num_parallel_workers: accepted for compatibility.

        Returns:
            The batched dataset.
        """
        return BatchDataset(self, batch_size, drop_remainder)

    def shuffle(self, buffer_size: int) -> ShuffleDataset:
        """Shuffle rows through a buffer of `buffer_size` rows (>= 2); reshuffled every epoch.

        Args:
            buffer_size: rows held for shuffling; the dataset size gives a full shuffle.

        Returns:
            The shuffled dataset.
        """
        return ShuffleDataset(self, buffer_size)

    def repeat(self, count: int | None = None) -> RepeatDataset:
        """Repeat the dataset `count` times (None or -1: endlessly).

        Args:
            count: number of repetitions.

        Returns:
            The repeated dataset.
        """
        return RepeatDataset(self, count)

    def take(self, count: int = -1) -> TakeDataset:
        """The first `count` rows (-1: all).

        Args:
            count: number of rows to keep.

        Returns:
            The truncated dataset.
        """
        return TakeDataset(self, count)

    def skip(self, count: int) -> SkipDataset:
        """Drop the first `count` rows.

        Args:
            count: number of rows to drop, >= 0.

        Returns:
            The remaining dataset.
        """
        return SkipDataset(self, count)

    def zip(self, datasets) -> ZipDataset:
        """Join rows side by side with other datasets; stops at the shortest.

        Args:
            datasets: a Dataset or a sequence of Datasets; column names must be distinct.

        Returns:
            The zipped dataset.
        """
        return ZipDataset([self, *_as_datasets(datasets, "zip")])

    def concat(self, datasets) -> ConcatDataset:
        """Append the rows of other datasets after this one's.

        Args:
            datasets: a Dataset or a sequence of Datasets with the same columns.

        Returns:
            The concatenated dataset.
        """
        return ConcatDataset([self, *_as_datasets(datasets, "concat")])

    def __add__(self, other: Dataset) -> ConcatDataset:
        return self.concat(other)

    def project(self, columns: str | Sequence[str]) -> ProjectDataset:
        """Keep only `columns`, in the given order.

        Args:
            columns: names of the columns to keep.

        Returns:
            The projected dataset.
        """
        return ProjectDataset(self, columns)

    def rename(self, input_columns: str | Sequence[str], output_columns: str | Sequence[str]) -> RenameDataset:
        """Rename columns.

        Args:
            input_columns: current names.
            output_columns: new names, one per input column.

        Returns:
            The renamed dataset.
        """
        return RenameDataset(self, input_columns, output_columns)

    def apply(self, apply_func: Callable[[Dataset], Dataset]) -> Dataset:
        """`apply_func(self)`, which must return a Dataset."""
        result = apply_func(self)
        if not isinstance(result, Dataset):
            raise TypeError(f"apply_func must return a Dataset, but returned {type(result).__name__}.")
        return result

    # -- iteration -----------------------------------------------------------
    def create_tuple_iterator(
        self, columns: Sequence[str] | None = None, num_epochs: int = -1, output_numpy: bool = False, do_copy=True
    ) -> TupleIterator:
        """An iterator over rows as lists of Tensors (NumPy arrays with `output_numpy`).

        Args:
            columns: columns to yield, in order; all when None.
            num_epochs: epochs the iterator may run (-1: unlimited).
            output_numpy: yield NumPy arrays.
            do_copy: accepted for compatibility.

        Returns:
            The iterator.
        """
        return TupleIterator(self, columns, num_epochs, output_numpy)

    def create_dict_iterator(self, num_epochs: int = -1, output_numpy: bool = False, do_copy=True) -> DictIterator:
        """An iterator over rows as dicts from column name to Tensor (or NumPy array).

        Args:
            num_epochs: epochs the iterator may run (-1: unlimited).
            output_numpy: yield NumPy arrays.
            do_copy: accepted for compatibility.

        Returns:
            The iterator.
        """
        return DictIterator(self, num_epochs, output_numpy)

    def __iter__(self) -> TupleIterator:
        return self.create_tuple_iterator(num_epochs=1)

    # -- metadata ------------------------------------------------------------
    def get_dataset_size(self) -> int:
        """Rows (batches after `batch`) per epoch; -1 for an endless `repeat`.

        Reads the whole pipeline once when the size cannot be known otherwise
        (a generator without `__len__`, `filter`).
        """
        size = self._static_size()
        if size is None:
            if self._counted_size is None:
                rows = self._rows(Run(self, config.pipeline_seed()), (0,))
                try:
                    self._counted_size = sum(1 for _ in rows)
                finally:
                    rows.close()
            return self._counted_size
        return -1 if size == INFINITE else int(size)

    def _first_row(self) -> tuple:
        rows = self._rows(Run(self, config.pipeline_seed()), (0,))
        try:
            row = next(rows, None)
        finally:
            rows.close()
        if row is None:
            raise RuntimeError("The dataset is empty, so its output shapes and types are unknown.")
        return tuple(np.asarray(x) for x in row)

    def output_shapes(self, estimate: bool = False) -> list[list[int]]:
        """Shape of each column, read from the first row."""
        return [list(x.shape) for x in self._first_row()]

    def output_types(self) -> list[np.dtype]:
        """NumPy dtype of each column, read from the first row."""
        return [x.dtype for x in self._first_row()]

    def _walk_first(self, cls):
        node = self
        while node is not None:
            if isinstance(node, cls):
                return node
            node = node.children[0] if node.children else None
        return None

    def get_batch_size(self) -> int:
        """The batch size of the last `batch` in the pipeline, 1 when there is none."""
        node = self._walk_first(BatchDataset)
        return 1 if node is None else node.batch_size

    def get_repeat_count(self) -> int:
        """The count of the last `repeat` in the pipeline (-1: endless), 1 when there is none."""
        node = self._walk_first(RepeatDataset)
        return 1 if node is None else node.count


class MapDataset(Dataset):
    """Rows with `operations` applied to some columns; see `Dataset.map`."""

    def __init__(self, child: Dataset, operations, input_columns, output_columns, num_parallel_workers) -> None:
        super().__init__([child])
        ops = list(operations) if isinstance(operations, list | tuple) else [operations]
        if not ops:
            raise ValueError("map: operations must not be empty.")
        for i, op in enumerate(ops):
            if not callable(op):
                raise TypeError(f"map: operation {i} is not callable (got {type(op).__name__}).")
        names = child.get_col_names()
        in_cols = _as_names(input_columns, "map input_columns") or names
        _check_exist(in_cols, names, "map")
        out_cols = _as_names(output_columns, "map output_columns") or in_cols
        if len(in_cols) == len(out_cols):
            # MindSpore's MapOp: outputs replace the inputs in place ...
            result = list(names)
            for c, new in zip(in_cols, out_cols):
                result[names.index(c)] = new
        else:
            # ... else the outputs come first, followed by the untouched columns.
            result = out_cols + [c for c in names if c not in in_cols]
        _check_unique(result, "map")
        workers = config.get_num_parallel_workers() if num_parallel_workers is None else num_parallel_workers
        self._workers = _check_int(workers, "num_parallel_workers", 1)
        self._ops = ops
        self._in_idx = [names.index(c) for c in in_cols]
        self._keep_idx = [i for i, c in enumerate(names) if c not in in_cols]
        self._in_cols, self._out_cols, self._names = in_cols, out_cols, result

    def get_col_names(self) -> list[str]:
        return list(self._names)

    def _static_size(self):
        return self.children[0]._static_size()

    def _apply(self, row: tuple) -> tuple:
        args = tuple(row[i] for i in self._in_idx)
        for op in self._ops:
            try:
                out = op(*args)
            except Exception as exc:
                exc.add_note(f"(in map operation {op!r} on columns {self._in_cols})")
                raise
            args = out if isinstance(out, tuple) else (out,)
        if len(args) != len(self._out_cols):
            raise RuntimeError(
                f"map: the operations returned {len(args)} column(s) but output_columns names "
                f"{len(self._out_cols)}: {self._out_cols}. Set output_columns to match."
            )
        outs = tuple(np.asarray(a) for a in args)
        if len(self._in_idx) == len(outs):
            new = list(row)
            for i, a in zip(self._in_idx, outs):
                new[i] = a
            return tuple(new)
        return outs + tuple(row[i] for i in self._keep_idx)

    def batchable(self) -> bool:
        """One column in, one out, and every operation has a whole-batch form (`batch_call`)."""
        return (
            len(self._in_idx) == 1
            and len(self._out_cols) == 1
            and all(callable(getattr(op, "batch_call", None)) for op in self._ops)
        )

    def apply_to_batch(self, columns: list) -> list:
        """This map applied to stacked columns at once (only when `batchable`)."""
        i = self._in_idx[0]
        x = columns[i]
        for op in self._ops:
            try:
                x = op.batch_call(x)
            except Exception as exc:
                exc.add_note(f"(in map operation {op!r} on columns {self._in_cols})")
                raise
        columns = list(columns)
        columns[i] = np.asarray(x)
        return columns

    def _rows(self, run, epoch):
        key = run.key(self, epoch)

        def task(item):
            index, row = item
            prev = _rng.enter_row([*key, index])
            try:
                return self._apply(row)
            finally:
                _rng.exit_row(prev)

        src = self._child_rows(run, epoch)
        try:
            yield from ordered_map(task, enumerate(src), self._workers)
        finally:
            src.close()


class FilterDataset(Dataset):
    """Rows for which a predicate holds; see `Dataset.filter`."""

    def __init__(self, child: Dataset, predicate: Callable, input_columns) -> None:
        super().__init__([child])
        if not callable(predicate):
            raise TypeError(f"filter: predicate must be callable, but got {type(predicate).__name__}.")
        names = child.get_col_names()
        cols = _as_names(input_columns, "filter input_columns") or names
        _check_exist(cols, names, "filter")
        self._predicate = predicate
        self._idx = [names.index(c) for c in cols]

    def get_col_names(self) -> list[str]:
        return self.children[0].get_col_names()

    def _rows(self, run, epoch):
        src = self._child_rows(run, epoch)
        try:
            for row in src:
                if bool(self._predicate(*(row[i] for i in self._idx))):
                    yield row
        finally:
            src.close()


class BatchDataset(Dataset):
    """Consecutive rows stacked into batches; see `Dataset.batch`."""

    def __init__(self, child: Dataset, batch_size: int, drop_remainder: bool) -> None:
        super().__init__([child])
        self.batch_size = _check_int(batch_size, "batch_size", 1)
        self.drop_remainder = bool(drop_remainder)

    def get_col_names(self) -> list[str]:
        return self.children[0].get_col_names()

    def _static_size(self):
        n = self.children[0]._static_size()
        if n is None or n == INFINITE:
            return n
        return n // self.batch_size if self.drop_remainder else -(-n // self.batch_size)

    def _stack(self, rows: list[tuple], strict: bool = True) -> tuple | None:
        """Rows stacked per column; with strict=False, None when some column's shapes differ."""
        out = []
        for c, name in enumerate(self.get_col_names()):
            column = [np.asarray(r[c]) for r in rows]
            shapes = {x.shape for x in column}
            if len(shapes) > 1:
                if not strict:
                    return None
                raise RuntimeError(
                    f"batch: column {name!r} has rows of different shapes {sorted(shapes)}; "
                    "resize or pad them to one shape before batching."
                )
            out.append(np.stack(column))
        return tuple(out)

    def _fused_maps(self) -> list[MapDataset]:
        """The chain of batchable maps right below this batch, nearest first."""
        maps, node = [], self.children[0]
        while isinstance(node, MapDataset) and node.batchable() and node._workers == 1:
            maps.append(node)
            node = node.children[0]
        return maps

    def _batch_of(self, pending: list[tuple], maps: list[MapDataset]) -> tuple:
        if maps:
            # Deterministic maps run once on the stacked batch instead of once per row: the same
            # numbers (each op's batch form is its row form over a leading axis), far less overhead.
            stacked = self._stack(pending, strict=False)
            if stacked is not None:
                columns = list(stacked)
                for m in reversed(maps):
                    columns = m.apply_to_batch(columns)
                return tuple(columns)
            for m in reversed(maps):
                pending = [m._apply(row) for row in pending]
        return self._stack(pending)

    def _rows(self, run, epoch):
        maps = self._fused_maps()
        src = maps[-1]._child_rows(run, epoch) if maps else self._child_rows(run, epoch)
        try:
            pending: list[tuple] = []
            for row in src:
                pending.append(row)
                if len(pending) == self.batch_size:
                    yield self._batch_of(pending, maps)
                    pending = []
            if pending and not self.drop_remainder:
                yield self._batch_of(pending, maps)
        finally:
            src.close()


class ShuffleDataset(Dataset):
    """Rows shuffled through a bounded buffer; see `Dataset.shuffle`."""

    def __init__(self, child: Dataset, buffer_size: int) -> None:
        super().__init__([child])
        self.buffer_size = _check_int(buffer_size, "buffer_size", 2)

    def get_col_names(self) -> list[str]:
        return self.children[0].get_col_names()

    def _static_size(self):
        return self.children[0]._static_size()

    def _rows(self, run, epoch):
        rng = np.random.default_rng(run.key(self, epoch))
        src = self._child_rows(run, epoch)
        try:
            buffer: list[tuple] = []
            for row in src:
                if len(buffer) < self.buffer_size:
                    buffer.append(row)
                    continue
                j = int(rng.integers(self.buffer_size))
                buffer[j], row = row, buffer[j]
                yield row
            while buffer:
                j = int(rng.integers(len(buffer)))
                buffer[j], buffer[-1] = buffer[-1], buffer[j]
                yield buffer.pop()
        finally:
            src.close()


class RepeatDataset(Dataset):
    """The child dataset read several times; see `Dataset.repeat`."""

    def __init__(self, child: Dataset, count: int | None) -> None:
        super().__init__([child])
        self.count = -1 if count is None else _check_int(count, "repeat count", 1, allow_minus_one=True)

    def get_col_names(self) -> list[str]:
        return self.children[0].get_col_names()

    def _static_size(self):
        n = self.children[0]._static_size()
        if n is None or n == 0:
            return n
        return INFINITE if self.count == -1 else n * self.count

    def _rows(self, run, epoch):
        repeats = itertools.count() if self.count == -1 else range(self.count)
        for r in repeats:
            # Each pass is a new sub-epoch, so shuffles below reshuffle.
            src = self._child_rows(run, (*epoch, r))
            produced = False
            try:
                for row in src:
                    produced = True
                    yield row
            finally:
                src.close()
            if not produced:
                return  # an empty child repeated forever would spin without yielding


class TakeDataset(Dataset):
    """The first rows of the child; see `Dataset.take`."""

    def __init__(self, child: Dataset, count: int) -> None:
        super().__init__([child])
        self.count = _check_int(count, "take count", 1, allow_minus_one=True)

    def get_col_names(self) -> list[str]:
        return self.children[0].get_col_names()

    def _static_size(self):
        n = self.children[0]._static_size()
        if self.count == -1 or n is None:
            return n
        return min(n, self.count)

    def _rows(self, run, epoch):
        src = self._child_rows(run, epoch)
        try:
            yield from src if self.count == -1 else itertools.islice(src, self.count)
        finally:
            src.close()


class SkipDataset(Dataset):
    """The child without its first rows; see `Dataset.skip`."""

    def __init__(self, child: Dataset, count: int) -> None:
        super().__init__([child])
        self.count = _check_int(count, "skip count", 0)

    def get_col_names(self) -> list[str]:
        return self.children[0].get_col_names()

    def _static_size(self):
        n = self.children[0]._static_size()
        return n if n is None else max(0, n - self.count)

    def _rows(self, run, epoch):
        src = self._child_rows(run, epoch)
        try:
            yield from itertools.islice(src, self.count, None)
        finally:
            src.close()


class ZipDataset(Dataset):
    """Rows of several datasets joined side by side; see `Dataset.zip`."""

    def __init__(self, datasets: Sequence[Dataset]) -> None:
        datasets = _as_datasets(datasets, "zip")
        if not datasets:
            raise ValueError("zip needs at least one dataset.")
        super().__init__(datasets)
        names = [c for d in datasets for c in d.get_col_names()]
        _check_unique(names, "zip")
        self._names = names

    def get_col_names(self) -> list[str]:
        return list(self._names)

    def _static_size(self):
        sizes = [d._static_size() for d in self.children]
        return None if any(s is None for s in sizes) else min(sizes)

    def _rows(self, run, epoch):
        sources = [self._child_rows(run, epoch, i) for i in range(len(self.children))]
        try:
            for parts in zip(*sources):
                yield tuple(x for part in parts for x in part)
        finally:
            for s in sources:
                s.close()


class ConcatDataset(Dataset):
    """Rows of several datasets one after another; see `Dataset.concat`."""

    def __init__(self, datasets: Sequence[Dataset]) -> None:
        datasets = _as_datasets(datasets, "concat")
        if not datasets:
            raise ValueError("concat needs at least one dataset.")
        super().__init__(datasets)
        names = datasets[0].get_col_names()
        for d in datasets[1:]:
            if d.get_col_names() != names:
                raise ValueError(
                    f"concat: datasets must have the same columns, but got {names} and {d.get_col_names()}."
                )
        self._names = names

    def get_col_names(self) -> list[str]:
        return list(self._names)

    def _static_size(self):
        sizes = [d._static_size() for d in self.children]
        return None if any(s is None for s in sizes) else sum(sizes)

    def _rows(self, run, epoch):
        for i in range(len(self.children)):
            src = self._child_rows(run, epoch, i)
            try:
                yield from src
            finally:
                src.close()


class ProjectDataset(Dataset):
    """A subset of the columns, reordered; see `Dataset.project`."""

    def __init__(self, child: Dataset, columns) -> None:
        super().__init__([child])
        names = child.get_col_names()
        self._names = _as_names(columns, "project columns")
        _check_exist(self._names, names, "project")
        self._idx = [names.index(c) for c in self._names]

    def get_col_names(self) -> list[str]:
        return list(self._names)

    def _static_size(self):
        return self.children[0]._static_size()

    def _rows(self, run, epoch):
        src = self._child_rows(run, epoch)
        try:
            for row in src:
                yield tuple(row[i] for i in self._idx)
        finally:
            src.close()


class RenameDataset(Dataset):
    """The same rows under new column names; see `Dataset.rename`."""

    def __init__(self, child: Dataset, input_columns, output_columns) -> None:
        super().__init__([child])
        names = child.get_col_names()
        old = _as_names(input_columns, "rename input_columns")
        new = _as_names(output_columns, "rename output_columns")
        if len(old) != len(new):
            raise ValueError(f"rename: {len(old)} input_columns but {len(new)} output_columns ({old} -> {new}).")
        _check_exist(old, names, "rename")
        result = [new[old.index(c)] if c in old else c for c in names]
        _check_unique(result, "rename")
        self._names = result

    def get_col_names(self) -> list[str]:
        return list(self._names)

    def _static_size(self):
        return self.children[0]._static_size()

    def _rows(self, run, epoch):
        return self._child_rows(run, epoch)


def zip_datasets(datasets: Sequence[Dataset]) -> ZipDataset:
    """Join datasets side by side (`kiln.dataset.zip`).

    Args:
        datasets: a sequence of Datasets with distinct column names.

    Returns:
        The zipped dataset.
    """
    if isinstance(datasets, Dataset):
        raise TypeError("zip expects a tuple or list of datasets, but got a single Dataset.")
    return ZipDataset(datasets)
