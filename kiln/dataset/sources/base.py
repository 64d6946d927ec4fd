"""The base of every source: `SampledSource` (row `i` on demand, with MindSpore's sampling arguments),
`RowFilesSource` (rows of a list of files, MindSpore's non-mappable sharding) and the argument checks
the sources share (dataset folders, files, `usage`, column names)."""

from __future__ import annotations

import copy
import glob
import math
import os
from collections.abc import Sequence
from enum import StrEnum

import numpy as np
import scipy.io

from kiln.dataset import config
from kiln.dataset.engine import Dataset
from kiln.dataset.iterators import Run, ordered_map
from kiln.dataset.sampler import SampleContext, SubsetRandomSampler, SubsetSampler, as_sampler, resolve_sampler


def checked_column_names(column_names, what: str) -> list[str] | None:
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

    def _split_by_sampler(self, sizes: list[int], perm: np.ndarray, randomize: bool) -> tuple:
        """`split` of a source: each part is a copy reading its rows through a subset sampler."""
        base = self._indices(Run(self, config.get_seed()), (0,))
        out, start = [], 0
        for n in sizes:
            part = copy.copy(self)
            picked = base[perm[start : start + n]] if not randomize else base[np.sort(perm[start : start + n])]
            cls = SubsetRandomSampler if randomize else SubsetSampler
            part.sampler = cls(picked.tolist())
            part._counted_size = None
            out.append(part)
            start += n
        return tuple(out)

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


def require_file(path: str, what: str) -> None:
    """FileNotFoundError naming `path` when it is not a file."""
    if not os.path.isfile(path):
        raise FileNotFoundError(f"{what} not found: {path!r} does not exist or is not a file.")


def check_dir(dataset_dir, cls: str) -> str:
    if not isinstance(dataset_dir, str | os.PathLike):
        raise TypeError(f"{cls}: dataset_dir must be a path, but got {type(dataset_dir).__name__}.")
    path = os.fspath(dataset_dir)
    if not os.path.isdir(path):
        raise FileNotFoundError(f"{cls}: dataset_dir {path!r} does not exist or is not a directory.")
    return path


def require_dir(dataset_dir, what: str) -> str:
    path = os.fspath(dataset_dir)
    if not os.path.isdir(path):
        raise ValueError(f"{what}: dataset_dir {path!r} does not exist or is not a directory.")
    return path


def check_usage(usage, allowed: Sequence[str], what: str) -> str:
    usage = "all" if usage is None else usage
    if usage not in allowed:
        raise ValueError(f"{what}: usage must be one of {list(allowed)}, but got {usage!r}.")
    return usage


class Shuffle(StrEnum):
    """How non-mappable sources shuffle: GLOBAL (all rows), FILES (file order), INFILE (rows in files)."""

    GLOBAL = "global"
    FILES = "files"
    INFILE = "infile"


def file_list(dataset_files, what: str) -> list[str]:
    if isinstance(dataset_files, str | os.PathLike):
        pattern = os.fspath(dataset_files)
        files = sorted(glob.glob(pattern)) if any(ch in pattern for ch in "*?[") else [pattern]
    else:
        files = [os.fspath(f) for f in dataset_files]
    if not files:
        raise ValueError(f"{what}: dataset_files is empty.")
    for f in files:
        if not os.path.isfile(f):
            raise ValueError(f"{what}: the file {f!r} does not exist or is not a file.")
    return sorted(files)


class RowFilesSource(SampledSource):
    """Rows read from a list of files, with MindSpore's non-mappable sharding and shuffling."""

    _SORT_FILES = True  # MindSpore reads most multi-file sources in name order

    def __init__(self, files, num_samples, shuffle, num_shards, shard_id, num_parallel_workers) -> None:
        if isinstance(shuffle, Shuffle):
            shuffle = True
        super().__init__(num_samples, shuffle, num_shards, shard_id, num_parallel_workers)
        self._files = sorted(files) if self._SORT_FILES else list(files)
        self._shard = (num_shards, shard_id)
        self._cache: list[tuple] | None = None

    def _read_file(self, path: str) -> list[tuple]:
        raise NotImplementedError

    def _all_rows(self) -> list[tuple]:
        if self._cache is None:
            num_shards, shard_id = self._shard
            files = self._files
            if num_shards is not None and len(files) >= num_shards:
                files = files[shard_id::num_shards]
            rows = [row for f in files for row in self._read_file(f)]
            if num_shards is not None and len(self._files) < num_shards and rows:
                per = math.ceil(len(rows) / num_shards)
                rows = [rows[(shard_id * per + j) % len(rows)] for j in range(per)]
            self._cache = rows
        return self._cache

    def _num_rows(self) -> int:
        return len(self._all_rows())

    def _read(self, index: int) -> tuple:
        return self._all_rows()[index]

    def _static_size(self):
        n = self._num_rows()
        return n if self.num_samples is None else min(n, self.num_samples)

    def _indices(self, run, epoch):
        n = self._num_rows()
        count = self._static_size()
        if self.sampler.is_shuffled():
            seed = config.get_seed() if self._shard[0] is not None else run.seed
            return np.random.default_rng([seed, 0x7E7, *epoch]).permutation(n)[:count]
        return np.arange(count)

    def is_sharded(self) -> bool:
        return self._shard[0] is not None


def loadmat(path: str) -> dict:
    """The variables of a MATLAB .mat file (SVHN, Flowers102, SBD), or FileNotFoundError naming `path`."""
    require_file(path, "MATLAB file")
    return scipy.io.loadmat(path)
