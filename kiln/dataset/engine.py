"""The dataset graph: the `Dataset` base class and the nodes its methods build.

Every node is lazy. Iterating pulls rows (tuples of NumPy arrays, one per
column) through chained generators, so memory does not grow with the size of
the data; `iterators.py` runs the chain on a background thread.
"""

from __future__ import annotations

import itertools
import json
import math
import threading
from collections.abc import Callable, Sequence

import numpy as np

from kiln.dataset import _rng, config
from kiln.dataset.callbacks import DSCallbackParam
from kiln.dataset.iterators import DictIterator, Run, TupleIterator, ordered_map, process_ordered_map
from kiln.dataset.mindrecord_export import save as save_mindrecord
from kiln.dataset.sampler import DistributedSampler, RandomSampler, SequentialSampler
from kiln.dataset.validator_helpers import check_non_negative_int

INFINITE = math.inf  # size of an endlessly repeated pipeline


def as_column_names(columns, what: str) -> list[str] | None:
    """`columns` (a name or a list of names) as a list of distinct str (None stays None), or a TypeError/ValueError
    naming `what`."""
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


_MAP_NOTE = "(in map operation {!r} on columns {})"


def _call_noting(fn: Callable, args: tuple, note: str, *note_args):
    """`fn(*args)`; an exception from it gets the note `note.format(*note_args)` saying where it was raised.

    The note is formatted only when an exception passes, not once per row.
    """
    try:
        return fn(*args)
    except Exception as exc:
        exc.add_note(note.format(*note_args))
        raise


def _output_columns(out, output_columns: list, producer: str, advice: str = "") -> tuple:
    """What a map's operations or a per_batch_map returned, as a tuple with one entry per output column."""
    out = out if isinstance(out, tuple) else (out,)
    if len(out) != len(output_columns):
        raise RuntimeError(
            f"{producer} returned {len(out)} column(s) but output_columns names "
            f"{len(output_columns)}: {output_columns}.{advice}"
        )
    return out


def _replaced(row, indices: list[int], values) -> tuple:
    """`row` with `values` put at the positions `indices` (the input columns replaced in place)."""
    new = list(row)
    for i, value in zip(indices, values, strict=True):
        new[i] = value
    return tuple(new)


def _check_max_rowsize(value, where: str) -> None:
    """MindSpore's max_rowsize (shared-memory MB per row): an int, or a list of two ints (input, output)."""
    if value is None:
        return
    ok = (isinstance(value, int) and not isinstance(value, bool)) or (
        isinstance(value, list)
        and len(value) == 2
        and all(isinstance(v, int) and not isinstance(v, bool) for v in value)
    )
    if not ok:
        raise TypeError(f"{where}: max_rowsize must be an int or a list of two ints, but got {value!r}.")
    if any(v < -1 for v in (value if isinstance(value, list) else [value])):
        raise ValueError(f"{where}: max_rowsize values must be >= -1, but got {value!r}.")


def _first_of(rows):
    """The first item of the generator `rows` (None when it is empty); the generator is closed after."""
    try:
        return next(rows, None)
    finally:
        rows.close()


def _check_keywords(kwargs: dict, accepted: set[str], method: str) -> None:
    """TypeError for a keyword `method` does not take; MindSpore's `max_rowsize`, when given, is checked."""
    unknown = set(kwargs) - accepted
    if unknown:
        raise TypeError(f"{method}() got unexpected keyword argument(s) {sorted(unknown)}.")
    _check_max_rowsize(kwargs.get("max_rowsize"), method)


def _as_datasets(datasets, where: str) -> list[Dataset]:
    items = [datasets] if isinstance(datasets, Dataset) else list(datasets)
    for d in items:
        if not isinstance(d, Dataset):
            raise TypeError(f"{where} expects Dataset objects, but got {type(d).__name__}.")
    return items


def _column_layout(names: list[str], input_columns, output_columns, where: str):
    """The input columns, output columns and resulting column order of a map or per-batch map over `names`.

    Returns:
        (in_cols, out_cols, result); a missing input or a duplicate result name is an error naming `where`.
    """
    in_cols = as_column_names(input_columns, f"{where} input_columns") or names
    _check_exist(in_cols, names, where)
    out_cols = as_column_names(output_columns, f"{where} output_columns") or in_cols
    if len(in_cols) == len(out_cols):
        # MindSpore's MapOp: outputs replace the inputs in place ...
        result = list(names)
        for c, new in zip(in_cols, out_cols):
            result[names.index(c)] = new
    else:
        # ... else the outputs come first, followed by the untouched columns.
        result = out_cols + [c for c in names if c not in in_cols]
    _check_unique(result, where)
    return in_cols, out_cols, result


def _split_sizes(sizes, total: int) -> list[int]:
    """`Dataset.split`'s sizes as row counts (MindSpore's rounding rules)."""
    sizes = list(sizes)
    if not sizes:
        raise ValueError("split: sizes must not be empty.")
    if all(isinstance(x, int | np.integer) and not isinstance(x, bool) for x in sizes):
        if any(x < 1 for x in sizes):
            raise ValueError(f"split: sizes must be positive, but got {sizes}.")
        if sum(sizes) != total:
            raise RuntimeError(f"split: sizes {sizes} sum to {sum(sizes)}, but the dataset has {total} rows.")
        return [int(x) for x in sizes]
    if not all(isinstance(x, float) for x in sizes):
        raise TypeError(f"split: sizes must be all ints or all floats, but got {sizes}.")
    if any(not 0 < x <= 1 for x in sizes) or abs(sum(sizes) - 1) > 1e-6:
        raise ValueError(f"split: fractions must lie in (0, 1] and sum to 1, but got {sizes}.")
    absolute = [int(round(f * total)) for f in sizes]
    if any(n == 0 for n in absolute):
        raise RuntimeError(f"split: a split would be empty ({absolute} rows of {total}).")
    diff = total - sum(absolute)
    if diff > 0:
        absolute[0] += diff
    elif diff < 0:
        for i, n in enumerate(absolute):
            if n + diff >= 1:
                absolute[i] += diff
                break
    return absolute


SERIALIZED_TAG = "__kiln__"  # marks the non-JSON values of a serialized pipeline (read by serialization.py)


def _describe_value(value):
    if isinstance(value, Dataset):
        return {SERIALIZED_TAG: "child"}
    if value is None or isinstance(value, bool | int | float | str):
        return value
    if isinstance(value, np.integer | np.floating):
        return value.item()
    if isinstance(value, list | tuple):
        return [_describe_value(v) for v in value]
    if isinstance(value, dict) and all(isinstance(k, str) for k in value):
        return {k: _describe_value(v) for k, v in value.items()}
    init = getattr(value, "_init_args", None)
    if init is not None and not isinstance(value, Dataset):
        cls = type(value)
        args, kwargs = init
        return {
            SERIALIZED_TAG: "object",
            "class": f"{cls.__module__}.{cls.__qualname__}",
            "args": _describe_value(list(args)),
            "kwargs": _describe_value(kwargs),
        }
    if hasattr(value, "value") and hasattr(type(value), "__members__"):  # an Enum
        cls = type(value)
        return {SERIALIZED_TAG: "enum", "class": f"{cls.__module__}.{cls.__qualname__}", "name": value.name}
    return {SERIALIZED_TAG: "opaque", "repr": repr(value)}


def _describe_node(dataset: Dataset) -> dict:
    args, kwargs = getattr(dataset, "_init_args", ((), {}))
    return {
        "op_type": type(dataset).__name__,
        "op_module": type(dataset).__module__,
        "args": _describe_value(list(args)),
        "kwargs": _describe_value(dict(kwargs)),
        "children": [_describe_node(c) for c in dataset.children],
    }


class Dataset:
    """Base class of every dataset: sources and the nodes built by the methods below.

    Subclasses implement `get_col_names`, `_rows(run, epoch)` (a generator of
    row tuples) and, when known without reading, `_static_size()`.
    """

    def __new__(cls, *args, **kwargs):
        obj = super().__new__(cls)
        obj._init_args = (args, kwargs)  # read by serialize()
        return obj

    def __init__(self, children: Sequence[Dataset] = ()) -> None:
        self.children: tuple[Dataset, ...] = tuple(children)
        self._counted_size: int | None = None

    def __len__(self) -> int:
        """`get_dataset_size()`."""
        return self.get_dataset_size()

    def __bool__(self) -> bool:
        return True  # a dataset is an object, not a container: truth must not count its rows

    @property
    def input_indexs(self):
        """User data attached to the pipeline (MindSpore's `input_indexs`): this node's value, else the first
        child's that has one, else ()."""
        own = getattr(self, "_input_indexs", None)
        if own is not None:
            return own
        for c in self.children:
            value = c.input_indexs
            if value != ():
                return value
        return ()

    @input_indexs.setter
    def input_indexs(self, value) -> None:
        self._input_indexs = value

    def is_shuffled(self) -> bool:
        """Whether some node of the pipeline shuffles."""
        return any(c.is_shuffled() for c in self.children)

    def is_sharded(self) -> bool:
        """Whether the source reads one shard only."""
        return any(c.is_sharded() for c in self.children)

    def get_class_indexing(self) -> dict:
        """The class name -> label dict of the source (ImageFolderDataset, ...); {} when it has none."""
        for c in self.children:
            return c.get_class_indexing()
        return {}

    def num_classes(self) -> int | None:
        """The number of classes of the source, or None when it does not know."""
        indexing = self.get_class_indexing()
        return len(indexing) if indexing else None

    def to_json(self, filename: str | None = None) -> dict:
        """The pipeline as a JSON-ready dict (see `kiln.dataset.serialize`); also written to `filename`."""
        out = _describe_node(self)
        if filename:
            with open(filename, "w") as f:
                json.dump(out, f, indent=2)
        return out

    def sync_wait(self, condition_name: str, num_batch: int = 1, callback=None) -> SyncWaitDataset:
        """Block the pipeline here every `num_batch` rows until `sync_update(condition_name)` is called.

        Args:
            condition_name: the name `sync_update` refers to.
            num_batch: rows let through per update.
            callback: called with the data passed to `sync_update`.

        Returns:
            The dataset with the wait point.
        """
        if self._find_sync(condition_name) is not None:
            raise RuntimeError(
                f"sync_wait: the pipeline already has a sync_wait named {condition_name!r}; give each its own name."
            )
        return SyncWaitDataset(self, condition_name, num_batch, callback)

    def sync_update(self, condition_name: str, num_batch: int | None = None, data=None) -> None:
        """Let the rows of a `sync_wait` point through (the next `num_batch`, or the point's own count).

        Args:
            condition_name: the name given to `sync_wait`.
            num_batch: rows to release (default: the point's num_batch).
            data: passed to the point's callback.
        """
        node = self._find_sync(condition_name)
        if node is None:
            raise RuntimeError(f"sync_update: the pipeline has no sync_wait named {condition_name!r}.")
        if num_batch is not None and (isinstance(num_batch, bool) or not isinstance(num_batch, int) or num_batch < 1):
            raise RuntimeError(f"sync_update: num_batch (rows or batches to release) must be >= 1, got {num_batch}.")
        node.release(num_batch, data)

    def disable_sync(self) -> None:
        """Turn every `sync_wait` point of the pipeline off: rows flow without waiting for `sync_update`."""
        stack = [self]
        while stack:
            node = stack.pop()
            if isinstance(node, SyncWaitDataset):
                node.disable()
            stack.extend(node.children)

    def _find_sync(self, name: str):
        stack = [self]
        while stack:
            node = stack.pop()
            if isinstance(node, SyncWaitDataset) and node.condition_name == name:
                return node
            stack.extend(node.children)
        return None

    # -- graph interface -----------------------------------------------------
    def get_col_names(self) -> list[str]:
        """Names of the columns, in row order."""
        raise NotImplementedError

    def _rows(self, run: Run, epoch: tuple[int, ...]):
        raise NotImplementedError

    # A source that reads row i on demand through a sampler (MindSpore's "mappable" dataset).
    _reads_by_index = False
    # Sharded inside a concat by contiguous blocks rather than every n-th row (MindSpore's MindDataset).
    _concat_shards_in_blocks = False

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
        **kwargs,
    ) -> MapDataset:
        """Apply operations to columns of every row.

        Args:
            operations: a callable or a list of callables applied in order; each
                gets the previous outputs as arguments (a tuple means several).
            input_columns: columns passed to the first operation; the first column when None (as MindSpore).
            output_columns: names of the last operation's outputs; defaults to
                `input_columns`. Needed when their numbers differ.
            num_parallel_workers: workers that run the operations; rows keep their
                order and random transforms give the same results as serially.
                Defaults to `config.get_num_parallel_workers()` (1).
            python_multiprocessing: run the workers as processes (forked, as
                MindSpore's default start method) instead of threads: Python-heavy
                operations then run truly in parallel. Rows are pickled between
                processes. Threads suit operations that release the GIL (NumPy
                kernels, decoding, I/O).
            **kwargs: `callbacks` (DSCallback objects), and MindSpore's `max_rowsize`, `cache`, `offload`
                (accepted, without effect).

        Returns:
            The mapped dataset.
        """
        _check_keywords(kwargs, {"callbacks", "max_rowsize", "cache", "offload"}, "map")
        return MapDataset(
            self,
            operations,
            input_columns,
            output_columns,
            num_parallel_workers,
            python_multiprocessing=python_multiprocessing,
            callbacks=kwargs.get("callbacks"),
        )

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

    def batch(self, batch_size, drop_remainder: bool = False, num_parallel_workers: int | None = None, **kwargs):
        """Stack consecutive rows into batches along a new first axis.

        Args:
            batch_size: rows per batch (an int >= 1), or a callable taking a `BatchInfo` and returning one.
            drop_remainder: drop a last batch smaller than `batch_size`.
            num_parallel_workers: accepted for compatibility.
            **kwargs: `per_batch_map` (called with one list of rows per input column and a `BatchInfo`,
                returns a tuple with one list or array per output column), `input_columns`,
                `output_columns` (as for `map`); `python_multiprocessing`, `max_rowsize` are accepted.

        Returns:
            The batched dataset.
        """
        accepted = {
            "per_batch_map",
            "input_columns",
            "output_columns",
            "python_multiprocessing",
            "max_rowsize",
            "pad_info",
        }
        _check_keywords(kwargs, accepted, "batch")
        return BatchDataset(
            self,
            batch_size,
            drop_remainder,
            kwargs.get("per_batch_map"),
            kwargs.get("input_columns"),
            kwargs.get("output_columns"),
            kwargs.get("pad_info"),
        )

    def padded_batch(
        self, batch_size, drop_remainder: bool = False, num_parallel_workers: int | None = None, pad_info=None
    ) -> BatchDataset:
        """Batch rows, padding columns of different shapes to one shape.

        Args:
            batch_size: rows per batch, or a callable taking a `BatchInfo`.
            drop_remainder: drop a last batch smaller than `batch_size`.
            num_parallel_workers: accepted for compatibility.
            pad_info: column -> (shape, pad_value); a None shape (or None in a dimension) pads to the
                largest row of the batch, a None pad_value pads with 0. `{}` pads every column to the
                largest row with 0; None pads nothing (as `batch`).

        Returns:
            The batched dataset.
        """
        return BatchDataset(self, batch_size, drop_remainder, pad_info=pad_info)

    def bucket_batch_by_length(
        self,
        column_names,
        bucket_boundaries,
        bucket_batch_sizes,
        element_length_function=None,
        pad_info=None,
        pad_to_bucket_boundary: bool = False,
        drop_remainder: bool = False,
    ):
        """Group rows into buckets by length and batch each bucket.

        A row of length L goes to bucket i where bucket_boundaries[i-1] <= L < bucket_boundaries[i]
        (bucket 0 below the first boundary, the last bucket from the last boundary up).

        Args:
            column_names: the columns passed to `element_length_function`.
            bucket_boundaries: strictly increasing positive ints.
            bucket_batch_sizes: batch size per bucket, one more than the boundaries.
            element_length_function: the length of a row from its `column_names` values; by default the
                first dimension of the one column named.
            pad_info: as for `padded_batch`; None or {} pads every column to its longest row with 0 (as
                MindSpore).
            pad_to_bucket_boundary: pad the None dimensions to bucket_boundaries[i] - 1.
            drop_remainder: drop each bucket's last incomplete batch.

        Returns:
            The batched dataset.
        """
        return BucketBatchDataset(
            self,
            column_names,
            bucket_boundaries,
            bucket_batch_sizes,
            element_length_function,
            pad_info,
            pad_to_bucket_boundary,
            drop_remainder,
        )

    def flat_map(self, func: Callable) -> FlatMapDataset:
        """Replace every row by the rows of the Dataset `func(*row)` returns.

        Args:
            func: a callable taking one row's columns and returning a Dataset.

        Returns:
            The flattened dataset.
        """
        return FlatMapDataset(self, func)

    def split(self, sizes, randomize: bool = True) -> tuple:
        """Split into non-overlapping datasets.

        Args:
            sizes: absolute sizes summing to the dataset size, or fractions summing to 1 (each split gets
                round(f * size); the difference goes to the first split, as in MindSpore).
            randomize: split a random permutation (fixed by the dataset seed) instead of consecutive rows.

        Returns:
            A tuple of datasets.
        """
        if self.is_sharded():
            raise RuntimeError("split: the dataset must not be sharded before split.")
        total = self.get_dataset_size()
        absolute = _split_sizes(sizes, total)
        perm = np.arange(total)
        if randomize:
            perm = np.random.default_rng([config.get_seed(), 0x5917]).permutation(total)
        parts = self._split_by_sampler(absolute, perm, randomize)
        if parts is not None:
            return parts
        out, start = [], 0
        for n in absolute:
            node = self
            if randomize:
                node = ShuffleDataset(node, max(total, 2), reshuffle_each_epoch=False)
            if start:
                node = node.skip(start)
            out.append(node.take(n))
            start += n
        return tuple(out)

    def _split_by_sampler(self, sizes: list[int], perm: np.ndarray, randomize: bool) -> tuple | None:
        """Sources that sample rows split by giving each part a subset sampler; other nodes return None."""
        return None

    def shuffle(self, buffer_size: int) -> ShuffleDataset:
        """Shuffle rows through a buffer of `buffer_size` rows (>= 2); reshuffled every epoch.

        Args:
            buffer_size: rows held for shuffling; the dataset size gives a full shuffle.

        Returns:
            The shuffled dataset.
        """
        if _sync_below(self) is not None:
            raise RuntimeError(
                "shuffle: the pipeline has a sync_wait below this point, and a shuffle buffer would reorder the rows "
                "it releases step by step; call shuffle before sync_wait."
            )
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

    def save(self, file_name: str, num_files: int = 1, file_type: str = "mindrecord") -> None:
        """Write the rows of one epoch into MindRecord files, readable with `MindDataset`.

        Args:
            file_name: the file (or, with num_files > 1, the prefix of the files) to write.
            num_files: how many shard files to write.
            file_type: "mindrecord".

        The schema comes from the first row: integers narrower than 32 bits and bools are stored as int32,
        uint32/uint64 as int64, float16 as float32, str scalars as strings, bytes as bytes.
        """
        save_mindrecord(self, file_name, num_files, file_type)

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
        return TupleIterator(self, columns, num_epochs, output_numpy, getattr(self, "_init_step", 0))

    def create_dict_iterator(self, num_epochs: int = -1, output_numpy: bool = False, do_copy=True) -> DictIterator:
        """An iterator over rows as dicts from column name to Tensor (or NumPy array).

        Args:
            num_epochs: epochs the iterator may run (-1: unlimited).
            output_numpy: yield NumPy arrays.
            do_copy: accepted for compatibility.

        Returns:
            The iterator.
        """
        return DictIterator(self, num_epochs, output_numpy, getattr(self, "_init_step", 0))

    def set_init_step(self, init_step: int) -> None:
        """Start the iterators created from now on at global step `init_step` (resuming a run).

        Steps are rows (batches after `batch`) counted over epochs: the iterator begins in epoch
        `init_step // get_dataset_size()` at the step after the others; data, shuffles and random transforms are
        those of an uninterrupted run (under the same seed).

        Args:
            init_step: a non-negative int.
        """
        self._init_step = check_non_negative_int(init_step, "set_init_step: init_step")

    def __iter__(self) -> TupleIterator:
        return self.create_tuple_iterator(num_epochs=1)

    # -- metadata ------------------------------------------------------------
    def get_dataset_size(self) -> int:
        """Rows (batches after `batch`) per epoch; an endless `repeat` counts as one pass of its child (as
        MindSpore counts it).

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
        row = _first_of(self._rows(Run(self, config.pipeline_seed()), (0,)))
        if row is None:
            raise RuntimeError("The dataset is empty, so its output shapes and types are unknown.")
        return tuple(np.asarray(x) for x in row)

    def output_shapes(self, estimate: bool = False) -> list[list[int | None]]:
        """Shape of each column.

        Args:
            estimate: False reads the first row; True reads one whole epoch and marks an axis whose length varies
                between rows as None (a column whose rank varies is a RuntimeError).

        Returns:
            One shape (a list) per column.
        """
        if not isinstance(estimate, bool):
            raise TypeError(f"output_shapes: estimate must be a bool, but got {type(estimate).__name__}.")
        if not estimate:
            return [list(x.shape) for x in self._first_row()]
        shapes: list[list[int | None]] | None = None
        for row in self.create_tuple_iterator(num_epochs=1, output_numpy=True):
            if shapes is None:
                shapes = [list(np.shape(x)) for x in row]
                continue
            for k, x in enumerate(row):
                shape = np.shape(x)
                if len(shape) != len(shapes[k]):
                    raise RuntimeError(
                        f"output_shapes: column {k} has rows of rank {len(shapes[k])} and {len(shape)}; "
                        "only the lengths of axes may vary."
                    )
                shapes[k] = [s if s == n else None for s, n in zip(shapes[k], shape)]
        if shapes is None:
            raise RuntimeError("The dataset is empty, so its output shapes are unknown.")
        return shapes

    def output_types(self) -> list[np.dtype]:
        """NumPy dtype of each column, read from the first row (a str or bytes column is np.str_ or np.bytes_,
        without a length, as MindSpore reports it)."""
        generic = {"U": np.dtype(np.str_), "S": np.dtype(np.bytes_)}
        return [generic.get(x.dtype.kind, x.dtype) for x in self._first_row()]

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
        if node is None:
            return 1
        return -1 if callable(node.batch_size) else node.batch_size  # -1: decided per batch by a function

    def get_repeat_count(self) -> int:
        """The count of the last `repeat` in the pipeline (-1: endless), 1 when there is none."""
        node = self._walk_first(RepeatDataset)
        return 1 if node is None else node.count


class MapDataset(Dataset):
    """Rows with `operations` applied to some columns; see `Dataset.map`."""

    def __init__(
        self,
        child: Dataset,
        operations,
        input_columns,
        output_columns,
        num_parallel_workers,
        python_multiprocessing: bool = False,
        callbacks=None,
    ) -> None:
        super().__init__([child])
        if callbacks is None:
            callbacks = []
        elif not isinstance(callbacks, list | tuple):
            callbacks = [callbacks]
        self._callbacks = list(callbacks)
        self._processes = bool(python_multiprocessing)
        self._begun = False
        ops = list(operations) if isinstance(operations, list | tuple) else [operations]
        if not ops:
            raise ValueError("map: operations must not be empty.")
        for i, op in enumerate(ops):
            if not callable(op):
                raise TypeError(f"map: operation {i} is not callable (got {type(op).__name__}).")
        names = child.get_col_names()
        if input_columns is None:
            input_columns = names[:1]  # MindSpore's map: no input_columns means the first column only
        in_cols, out_cols, result = _column_layout(names, input_columns, output_columns, "map")
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
            out = _call_noting(op, args, _MAP_NOTE, op, self._in_cols)
            args = out if isinstance(out, tuple) else (out,)
        args = _output_columns(args, self._out_cols, "map: the operations", " Set output_columns to match.")
        outs = tuple(np.asarray(a) for a in args)
        if len(self._in_idx) == len(outs):
            return _replaced(row, self._in_idx, outs)
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
            x = _call_noting(op.batch_call, (x,), _MAP_NOTE, op, self._in_cols)
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
        if self._processes and self._workers > 1:
            rows = process_ordered_map(task, enumerate(src), self._workers)
        else:
            rows = ordered_map(task, enumerate(src), self._workers)
        try:
            if not self._callbacks:
                yield from rows
                return
            yield from self._with_callbacks(rows, epoch)
        finally:
            rows.close()
            src.close()

    def _with_callbacks(self, rows, epoch):
        e = epoch[0] + 1
        if not self._begun:
            self._begun = True
            for cb in self._callbacks:
                cb.ds_begin(DSCallbackParam(e, 0, 0))
        for cb in self._callbacks:
            cb.ds_epoch_begin(DSCallbackParam(e, 0, 0))
        step = 0
        total = getattr(self, "_total_steps", 0)
        iterator = iter(rows)
        while True:
            step += 1
            param = DSCallbackParam(e, step, total + step)
            for cb in self._callbacks:
                if (step - 1) % cb.step_size == 0:
                    cb.ds_step_begin(param)
            try:
                row = next(iterator)
            except StopIteration:
                break
            yield row
            for cb in self._callbacks:
                if (step - 1) % cb.step_size == 0:
                    cb.ds_step_end(param)
        self._total_steps = total + step - 1
        for cb in self._callbacks:
            cb.ds_epoch_end(DSCallbackParam(e, step - 1, self._total_steps))


class FilterDataset(Dataset):
    """Rows for which a predicate holds; see `Dataset.filter`."""

    def __init__(self, child: Dataset, predicate: Callable, input_columns) -> None:
        super().__init__([child])
        if not callable(predicate):
            raise TypeError(f"filter: predicate must be callable, but got {type(predicate).__name__}.")
        names = child.get_col_names()
        cols = as_column_names(input_columns, "filter input_columns") or names
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


class BatchInfo:
    """What a callable `batch_size` or a `per_batch_map` learns about the batch being built.

    Args:
        batch_num: the number of this batch in the epoch, from 0.
        epoch_num: the epoch, from 0.
    """

    def __init__(self, batch_num: int, epoch_num: int) -> None:
        self._batch_num, self._epoch_num = batch_num, epoch_num

    def get_batch_num(self) -> int:
        """The number of the batch in the epoch, from 0."""
        return self._batch_num

    def get_epoch_num(self) -> int:
        """The epoch, from 0."""
        return self._epoch_num


def _pad_column(column: list, name: str, spec, pad_value) -> np.ndarray:
    """Rows of one column padded (or cut) to one shape (`spec`: None or a shape with None for "largest"), stacked."""
    arrays = [np.asarray(x) for x in column]
    ndim = arrays[0].ndim
    if any(a.ndim != ndim for a in arrays):
        raise RuntimeError(f"padded batch: rows of column {name!r} have different ranks; they cannot be padded.")
    largest = [max(a.shape[d] for a in arrays) for d in range(ndim)]
    if spec is None:
        target = largest
    else:
        spec = list(spec)
        if len(spec) != ndim:
            raise RuntimeError(
                f"padded batch: pad shape {spec} of column {name!r} has {len(spec)} dimension(s), its rows have {ndim}."
            )
        target = [largest[d] if spec[d] is None else int(spec[d]) for d in range(ndim)]
    dtype = arrays[0].dtype
    fill = 0 if pad_value is None else pad_value
    if dtype.kind in "US":
        fill = "" if pad_value is None else pad_value
    out = np.full([len(arrays), *target], fill, dtype=dtype)
    for i, a in enumerate(arrays):
        # Rows larger than the pad shape are cut (MindSpore pads in some dimensions and truncates in others).
        keep = tuple(slice(0, min(n, t)) for n, t in zip(a.shape, target))
        out[(i, *keep)] = a[keep]
    return out


class BatchDataset(Dataset):
    """Consecutive rows stacked into batches; see `Dataset.batch` and `Dataset.padded_batch`."""

    def __init__(
        self,
        child: Dataset,
        batch_size,
        drop_remainder: bool,
        per_batch_map: Callable | None = None,
        input_columns=None,
        output_columns=None,
        pad_info: dict | None = None,
    ) -> None:
        super().__init__([child])
        if callable(batch_size):
            self.batch_size = batch_size
        else:
            self.batch_size = _check_int(batch_size, "batch_size", 1)
        self.drop_remainder = bool(drop_remainder)
        names = child.get_col_names()
        if pad_info is not None:
            if not isinstance(pad_info, dict):
                raise TypeError(f"pad_info must be a dict, but got {type(pad_info).__name__}.")
            _check_exist(list(pad_info), names, "padded_batch")
        self._pad_info = pad_info
        self._map = per_batch_map
        self._names = names
        if per_batch_map is not None:
            if not callable(per_batch_map):
                raise TypeError(f"batch: per_batch_map must be callable, but got {type(per_batch_map).__name__}.")
            in_cols, out_cols, result = _column_layout(names, input_columns, output_columns, "batch")
            self._in_idx = [names.index(c) for c in in_cols]
            self._keep_idx = [i for i, c in enumerate(names) if c not in in_cols]
            self._out_cols = out_cols
            self._names = result
        elif input_columns is not None or output_columns is not None:
            raise ValueError("batch: input_columns and output_columns need per_batch_map.")
        if isinstance(self.batch_size, int):
            # A sync_wait below this batch counts batches, not rows (as MindSpore's does).
            for node in _syncs_down_to_batch(child):
                node.rows_per_step = self.batch_size

    def get_col_names(self) -> list[str]:
        return list(self._names)

    def _static_size(self):
        n = self.children[0]._static_size()
        if n is None or n == INFINITE:
            return n
        if callable(self.batch_size):
            return None  # counted by reading
        return n // self.batch_size if self.drop_remainder else -(-n // self.batch_size)

    def _stack(self, rows: list[tuple], strict: bool = True, names=None) -> tuple | None:
        """Rows stacked per column; with strict=False, None when some column's shapes differ."""
        names = self.children[0].get_col_names() if names is None else names
        out = []
        for c, name in enumerate(names):
            column = [r[c] for r in rows]
            if self._pad_info is not None and (not self._pad_info or name in self._pad_info):
                spec = self._pad_info.get(name)
                shape, value = (None, None) if spec is None else spec
                out.append(_pad_column(column, name, shape, value))
                continue
            column = [np.asarray(x) for x in column]
            shapes = {x.shape for x in column}
            if len(shapes) > 1:
                if not strict:
                    return None
                raise RuntimeError(
                    f"batch: column {name!r} has rows of different shapes {sorted(shapes)}; "
                    "resize or pad them to one shape before batching (or use padded_batch)."
                )
            out.append(np.stack(column))
        return tuple(out)

    def _fused_maps(self) -> list[MapDataset]:
        """The chain of batchable maps right below this batch, nearest first."""
        if self._map is not None or self._pad_info is not None:
            return []
        maps, node = [], self.children[0]
        while isinstance(node, MapDataset) and node.batchable() and node._workers == 1:
            maps.append(node)
            node = node.children[0]
        return maps

    def _apply_map(self, pending: list[tuple], info: BatchInfo) -> tuple:
        columns = [[r[i] for r in pending] for i in self._in_idx]
        out = _call_noting(self._map, (*columns, info), "(in batch per_batch_map {!r})", self._map)
        out = _output_columns(out, self._out_cols, "batch: per_batch_map")
        for name, col in zip(self._out_cols, out):
            # A list is one entry per row (an array is taken as the batch whatever its length), as MindSpore.
            if isinstance(col, list | tuple) and len(col) != len(pending):
                raise RuntimeError(
                    f"batch: per_batch_map returned {len(col)} row(s) for column {name!r} of a batch of "
                    f"{len(pending)}; return one entry per row (or an array for the whole batch)."
                )
        stacked = [
            np.stack([np.asarray(x) for x in col]) if isinstance(col, list | tuple) else np.asarray(col) for col in out
        ]
        child_names = self.children[0].get_col_names()
        if len(self._in_idx) == len(stacked):
            # Only the other columns are stacked: the map's inputs may be ragged (images of several sizes that
            # the map resizes, as the zoo's YOLO multi-scale map does).
            others = [i for i in range(len(child_names)) if i not in self._in_idx]
            row = [None] * len(child_names)
            if others:
                kept = self._stack(
                    [tuple(r[i] for i in others) for r in pending], names=[child_names[i] for i in others]
                )
                for i, value in zip(others, kept, strict=True):
                    row[i] = value
            return _replaced(row, self._in_idx, stacked)
        kept = (
            self._stack(
                [tuple(r[i] for i in self._keep_idx) for r in pending], names=[child_names[i] for i in self._keep_idx]
            )
            if self._keep_idx
            else ()
        )
        return tuple(stacked) + tuple(kept)

    def _batch_of(self, pending: list[tuple], maps: list[MapDataset], info: BatchInfo) -> tuple:
        if self._map is not None:
            return self._apply_map(pending, info)
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

    def _size_for(self, info: BatchInfo) -> int:
        if not callable(self.batch_size):
            return self.batch_size
        size = self.batch_size(info)
        if isinstance(size, bool) or not isinstance(size, int | np.integer) or size < 1:
            raise RuntimeError(f"batch: the batch_size function returned {size!r}; it must return a positive int.")
        return int(size)

    def _rows(self, run, epoch):
        maps = self._fused_maps()
        src = maps[-1]._child_rows(run, epoch) if maps else self._child_rows(run, epoch)
        number = 0
        info = BatchInfo(number, epoch[0])
        size = self._size_for(info)
        try:
            pending: list[tuple] = []
            for row in src:
                pending.append(row)
                if len(pending) == size:
                    yield self._batch_of(pending, maps, info)
                    pending = []
                    number += 1
                    info = BatchInfo(number, epoch[0])
                    size = self._size_for(info)
            if pending and not self.drop_remainder:
                yield self._batch_of(pending, maps, info)
        finally:
            src.close()


class BucketBatchDataset(Dataset):
    """Rows grouped into buckets by length, each bucket batched on its own; see `Dataset.bucket_batch_by_length`."""

    def __init__(
        self,
        child: Dataset,
        column_names,
        bucket_boundaries,
        bucket_batch_sizes,
        element_length_function,
        pad_info,
        pad_to_bucket_boundary,
        drop_remainder,
    ) -> None:
        super().__init__([child])
        names = child.get_col_names()
        cols = as_column_names(column_names, "bucket_batch_by_length column_names")
        _check_exist(cols, names, "bucket_batch_by_length")
        bounds = list(bucket_boundaries)
        if not bounds or any(isinstance(b, bool) or not isinstance(b, int | np.integer) or b < 1 for b in bounds):
            raise ValueError(f"bucket_boundaries must be a non-empty list of positive ints, but got {bounds!r}.")
        if any(b >= c for b, c in zip(bounds, bounds[1:])):
            raise ValueError(f"bucket_boundaries must be strictly increasing, but got {bounds!r}.")
        sizes = [_check_int(b, "bucket_batch_sizes item", 1) for b in bucket_batch_sizes]
        if len(sizes) != len(bounds) + 1:
            raise ValueError(
                f"bucket_batch_sizes must have one more item than bucket_boundaries ({len(bounds) + 1}), "
                f"but has {len(sizes)}."
            )
        if element_length_function is None and len(cols) != 1:
            raise ValueError("bucket_batch_by_length: element_length_function is required for several columns.")
        if pad_info is not None:
            _check_exist(list(pad_info), names, "bucket_batch_by_length")
        self._cols = [names.index(c) for c in cols]
        self._bounds, self._sizes = bounds, sizes
        self._length = element_length_function
        self._pad_info = pad_info
        self._pad_to_boundary = bool(pad_to_bucket_boundary)
        self.drop_remainder = bool(drop_remainder)

    def get_col_names(self) -> list[str]:
        return self.children[0].get_col_names()

    def _bucket(self, row) -> int:
        args = [row[i] for i in self._cols]
        length = np.asarray(args[0]).shape[0] if self._length is None else self._length(*args)
        return int(np.searchsorted(self._bounds, int(length), side="right"))

    def _make(self, rows: list[tuple], bucket: int) -> tuple:
        out = []
        for c, name in enumerate(self.get_col_names()):
            column = [r[c] for r in rows]
            if self._pad_info is not None and name in self._pad_info:
                spec = self._pad_info[name]
                shape, value = (None, None) if spec is None else spec
                if self._pad_to_boundary and bucket < len(self._bounds):
                    ndim = np.asarray(column[0]).ndim
                    shape = list(shape) if shape is not None else [None] * ndim
                    shape = [self._bounds[bucket] - 1 if s is None else s for s in shape]
                out.append(_pad_column(column, name, shape, value))
            elif not self._pad_info:
                # No pad_info (None or {}): MindSpore pads every column to its longest row, with 0 (or "").
                out.append(_pad_column(column, name, None, None))
            else:
                arrays = [np.asarray(x) for x in column]
                if len({a.shape for a in arrays}) > 1:
                    raise RuntimeError(
                        f"bucket_batch_by_length: column {name!r} has rows of different shapes; give it a pad_info."
                    )
                out.append(np.stack(arrays))
        return tuple(out)

    def _rows(self, run, epoch):
        buckets: list[list[tuple]] = [[] for _ in self._sizes]
        src = self._child_rows(run, epoch)
        try:
            for row in src:
                b = self._bucket(row)
                buckets[b].append(row)
                if len(buckets[b]) == self._sizes[b]:
                    yield self._make(buckets[b], b)
                    buckets[b] = []
        finally:
            src.close()
        if not self.drop_remainder:
            for b, rows in enumerate(buckets):
                if rows:
                    yield self._make(rows, b)


class FlatMapDataset(Dataset):
    """The rows of the datasets `func` returns for every row; see `Dataset.flat_map`."""

    def __init__(self, child: Dataset, func: Callable) -> None:
        super().__init__([child])
        if not callable(func):
            raise TypeError(f"flat_map: func must be callable, but got {type(func).__name__}.")
        self._func = func
        self._names: list[str] | None = None

    def get_col_names(self) -> list[str]:
        if self._names is None:
            first = _first_of(self._child_rows(Run(self, config.pipeline_seed()), (0,)))
            if first is None:
                raise RuntimeError("flat_map: the dataset is empty, so its columns are unknown.")
            self._names = self._expand(first).get_col_names()
        return list(self._names)

    def _expand(self, row) -> Dataset:
        out = self._func(*row)
        if not isinstance(out, Dataset):
            raise TypeError(f"flat_map: func must return a Dataset, but returned {type(out).__name__}.")
        return out

    def _rows(self, run, epoch):
        src = self._child_rows(run, epoch)
        try:
            for i, row in enumerate(src):
                inner = self._expand(row)
                rows = inner._rows(Run(inner, run.seed), (*epoch, i))
                try:
                    yield from rows
                finally:
                    rows.close()
        finally:
            src.close()


class ShuffleDataset(Dataset):
    """Rows shuffled through a bounded buffer; see `Dataset.shuffle`."""

    def __init__(self, child: Dataset, buffer_size: int, reshuffle_each_epoch: bool = True) -> None:
        super().__init__([child])
        self.buffer_size = _check_int(buffer_size, "buffer_size", 2)
        self.reshuffle_each_epoch = bool(reshuffle_each_epoch)

    def is_shuffled(self) -> bool:
        return True

    def get_col_names(self) -> list[str]:
        return self.children[0].get_col_names()

    def _static_size(self):
        return self.children[0]._static_size()

    def _rows(self, run, epoch):
        if self.reshuffle_each_epoch:
            rng = np.random.default_rng(run.key(self, epoch))
        else:
            rng = np.random.default_rng([config.get_seed(), 0x5917, 1])
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
        # MindSpore counts an endless repeat as one pass of its child (get_dataset_size is rows per epoch).
        return n if self.count == -1 else n * self.count

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


class _Joined(Dataset):
    """Rows of several datasets joined (`zip`, `concat`); `_columns` checks and names the joined columns, `_combine`
    joins the children's row counts."""

    _what = ""

    def __init__(self, datasets: Sequence[Dataset]) -> None:
        datasets = _as_datasets(datasets, self._what)
        if not datasets:
            raise ValueError(f"{self._what} needs at least one dataset.")
        super().__init__(datasets)
        self._names = self._columns(datasets)

    def get_col_names(self) -> list[str]:
        return list(self._names)

    def _static_size(self):
        sizes = [d._static_size() for d in self.children]
        return None if any(s is None for s in sizes) else self._combine(sizes)


class ZipDataset(_Joined):
    """Rows of several datasets joined side by side; see `Dataset.zip`."""

    _what = "zip"
    _combine = staticmethod(min)

    @staticmethod
    def _columns(datasets) -> list[str]:
        names = [c for d in datasets for c in d.get_col_names()]
        _check_unique(names, "zip")
        return names

    def _rows(self, run, epoch):
        sources = [self._child_rows(run, epoch, i) for i in range(len(self.children))]
        try:
            for parts in zip(*sources):
                yield tuple(x for part in parts for x in part)
        finally:
            for s in sources:
                s.close()


class ConcatDataset(_Joined):
    """Rows of several datasets one after another; see `Dataset.concat`."""

    _what = "concat"
    _combine = staticmethod(sum)

    @staticmethod
    def _columns(datasets) -> list[str]:
        names = datasets[0].get_col_names()
        for d in datasets[1:]:
            if d.get_col_names() != names:
                raise ValueError(
                    f"concat: datasets must have the same columns, but got {names} and {d.get_col_names()}."
                )
        return names

    def __init__(self, datasets: Sequence[Dataset]) -> None:
        super().__init__(datasets)
        self._sampler: DistributedSampler | RandomSampler | None = None

    def use_sampler(self, sampler: DistributedSampler | RandomSampler) -> None:
        """Read the concatenation through `sampler`, as MindSpore's concat does.

        A `DistributedSampler(num_shards, shard_id, shuffle=False)` keeps the rows whose position in the whole
        concatenation is `shard_id` modulo `num_shards` (shards may differ by one row: nothing is padded); a
        `RandomSampler()` interleaves the children at random, each child keeping its own order.

        Args:
            sampler: a DistributedSampler without shuffle or num_samples, or a RandomSampler without replacement
                or num_samples.
        """
        if not isinstance(sampler, DistributedSampler | RandomSampler):
            raise TypeError(
                f"concat.use_sampler: the sampler must be a DistributedSampler or a RandomSampler, but got {sampler!r}."
            )
        what = type(sampler).__name__
        if isinstance(sampler, RandomSampler) and sampler.replacement:
            raise ValueError("concat.use_sampler: a RandomSampler with replacement=True cannot interleave a concat.")
        if isinstance(sampler, DistributedSampler) and sampler.shuffle:
            raise ValueError("concat.use_sampler: the DistributedSampler must have shuffle=False.")
        if sampler.get_num_samples() is not None:
            raise ValueError(f"concat.use_sampler: the {what} must not set num_samples.")
        for child in self.children:
            if isinstance(child, BatchDataset):
                raise TypeError(
                    "concat.use_sampler: a batched dataset cannot be sharded or interleaved row by row; "
                    "concat before batch."
                )
        if isinstance(sampler, DistributedSampler):
            # MindSpore gives each source child (a random-access one) a sequential sampler: its shuffle is dropped.
            for child in self.children:
                if child._reads_by_index and getattr(child, "_random_access", True):
                    child.use_sampler(SequentialSampler())
        self._sampler = sampler
        self._counted_size = None

    def _static_size(self):
        total = super()._static_size()
        if total is None or not isinstance(self._sampler, DistributedSampler):
            return total
        n, k = self._sampler.num_shards, self._sampler.shard_id
        return max(0, (int(total) - k + n - 1) // n)

    def _rows(self, run, epoch):
        if isinstance(self._sampler, RandomSampler):
            yield from self._interleaved_rows(run, epoch)
            return
        n, k = (self._sampler.num_shards, self._sampler.shard_id) if self._sampler is not None else (1, 0)
        position = 0  # in the whole concatenation: shards take every n-th row across the children
        for i, child in enumerate(self.children):
            if n > 1 and child._concat_shards_in_blocks:
                # MindSpore's MindDataset gives each shard one contiguous block, in shard order; the size % n
                # blocks one row longer are those of the shards that come first from the child's offset on.
                size = child.get_dataset_size()
                lengths = [size // n + ((shard - position) % n < size % n) for shard in range(n)]
                start = sum(lengths[:k])
                stop = start + lengths[k]
                keep = lambda j, start=start, stop=stop: start <= j < stop  # noqa: E731
            else:
                keep = lambda j, offset=position: (offset + j) % n == k  # noqa: E731
            src = self._child_rows(run, epoch, i)
            try:
                j = 0
                for j, row in enumerate(src, 1):
                    if keep(j - 1):
                        yield row
            finally:
                src.close()
            position += j

    def _interleaved_rows(self, run, epoch):
        """Every interleaving of the children's rows equally likely: the next row comes from a child with
        probability proportional to the rows it has left."""
        rng = np.random.default_rng(run.key(self, epoch))
        left = [child.get_dataset_size() for child in self.children]
        sources = [self._child_rows(run, epoch, i) for i in range(len(self.children))]
        try:
            while sum(left):
                i = int(rng.choice(len(left), p=np.asarray(left, np.float64) / sum(left)))
                left[i] -= 1
                yield next(sources[i])
        finally:
            for src in sources:
                src.close()


class ProjectDataset(Dataset):
    """A subset of the columns, reordered; see `Dataset.project`."""

    def __init__(self, child: Dataset, columns) -> None:
        super().__init__([child])
        names = child.get_col_names()
        self._names = as_column_names(columns, "project columns")
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
        old = as_column_names(input_columns, "rename input_columns")
        new = as_column_names(output_columns, "rename output_columns")
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


def _sync_below(node: Dataset):
    """The first SyncWaitDataset under `node` (itself included), or None."""
    stack = [node]
    while stack:
        n = stack.pop()
        if isinstance(n, SyncWaitDataset):
            return n
        stack.extend(n.children)
    return None


def _syncs_down_to_batch(node: Dataset) -> list:
    """The SyncWaitDatasets under `node` that no other batch separates from it."""
    found, stack = [], [node]
    while stack:
        n = stack.pop()
        if isinstance(n, BatchDataset | BucketBatchDataset):
            continue
        if isinstance(n, SyncWaitDataset):
            found.append(n)
        stack.extend(n.children)
    return found


class SyncWaitDataset(Dataset):
    """A point that holds rows back until `sync_update` releases them; see `Dataset.sync_wait`.

    Each epoch starts with `num_batch` steps let through; a step is one row, or one batch of rows when a `batch`
    follows (with no other batch between them), as in MindSpore.
    """

    def __init__(self, child: Dataset, condition_name: str, num_batch: int, callback) -> None:
        super().__init__([child])
        if not isinstance(condition_name, str):
            raise TypeError(f"sync_wait: condition_name must be a str, but got {type(condition_name).__name__}.")
        if isinstance(num_batch, bool) or not isinstance(num_batch, int):
            raise TypeError(f"sync_wait: num_batch must be an int, but got {type(num_batch).__name__}.")
        if num_batch < 1:
            raise ValueError(f"sync_wait: num_batch must be greater than 0, but got {num_batch}.")
        self.condition_name = condition_name
        self.num_batch = num_batch
        self.rows_per_step = 1
        self._callback = callback
        self._cond = threading.Condition()
        self._allowed = self.num_batch
        self._disabled = False

    def disable(self) -> None:
        """Stop waiting: every row passes from now on."""
        with self._cond:
            self._disabled = True
            self._cond.notify_all()

    def get_col_names(self) -> list[str]:
        return self.children[0].get_col_names()

    def _static_size(self):
        return self.children[0]._static_size()

    def release(self, num_batch, data) -> None:
        steps = self.num_batch if num_batch is None else _check_int(num_batch, "num_batch", 1)
        if self._callback is not None:
            self._callback(data)
        with self._cond:
            self._allowed += steps * self.rows_per_step
            self._cond.notify_all()

    def _rows(self, run, epoch):
        src = self._child_rows(run, epoch)
        with self._cond:
            self._allowed = self.num_batch * self.rows_per_step
        try:
            for row in src:
                with self._cond:
                    while self._allowed <= 0 and not self._disabled:
                        if not self._cond.wait(timeout=60.0):
                            raise RuntimeError(
                                f"sync_wait {self.condition_name!r}: no sync_update within 60 s; the pipeline "
                                "would wait forever."
                            )
                    self._allowed -= 1
                yield row
        finally:
            src.close()


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
