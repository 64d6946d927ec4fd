"""Samplers: which rows of a random-access source an epoch reads, and in what order.

Every sampler turns a source of `n` rows into a sequence of row indices. A
sampler may have a child (`add_child`): the child picks rows first and the
parent then samples *positions in the child's output*, as in MindSpore.

DistributedSampler follows MindSpore's: every shard shuffles with the same
seed, then shard `k` of `n` takes positions k, k + n, k + 2n, ... of the
permutation, wrapping around so that every shard gets ceil(rows / n) samples.
Without shuffling the assignment is MindSpore's exactly; with shuffling every
shard draws the same permutation from the pipeline seed (MindSpore's default
seed, 5489, when `config.set_seed` was not called). Random orders are Kiln's
own (NumPy's generator), not MindSpore's mt19937 streams.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence

import numpy as np

# Mixed into the seed so that source order and buffer shuffles never share a stream.
_SAMPLER_SALT = 0x5A3


def _is_int(value) -> bool:
    return isinstance(value, int | np.integer) and not isinstance(value, bool)


def _check_num_samples(num_samples, what: str) -> int | None:
    if num_samples is None:
        return None
    if not _is_int(num_samples):
        raise TypeError(f"{what}: num_samples must be an int or None, but got {type(num_samples).__name__}.")
    if num_samples < 0:
        raise ValueError(f"{what}: num_samples must be >= 0, but got {num_samples}.")
    return None if num_samples == 0 else int(num_samples)  # 0 means all, as in MindSpore


def check_sampling_args(num_samples, shuffle, num_shards, shard_id) -> None:
    """Validate the sampling arguments every source accepts."""
    if num_samples is not None:
        if not _is_int(num_samples):
            raise TypeError(f"num_samples must be an int or None, but got {type(num_samples).__name__}.")
        if num_samples < 0:
            raise ValueError(f"num_samples must be >= 0 or None, but got {num_samples}.")
    if shuffle is not None and not isinstance(shuffle, bool | np.bool_):
        raise TypeError(f"shuffle must be a bool or None, but got {type(shuffle).__name__}.")
    if (num_shards is None) != (shard_id is None):
        raise ValueError("num_shards and shard_id must be given together (or both left as None).")
    if num_shards is not None:
        if not _is_int(num_shards) or num_shards < 1:
            raise ValueError(f"num_shards must be a positive int, but got {num_shards!r}.")
        if not _is_int(shard_id):
            raise ValueError(f"shard_id must be an int, but got {shard_id!r}.")
        if not 0 <= shard_id < num_shards:
            raise ValueError(
                f"shard_id must be in [0, {num_shards - 1}] for num_shards={num_shards}, but got {shard_id}."
            )


class SampleContext:
    """What a sampler may need from the source and the run.

    Args:
        seed: the seed of the run (shards use the dataset seed so that they agree).
        epoch: the epoch key (reshuffles every epoch).
        labels: a callable returning one label per row (for PKSampler), or None.
    """

    __slots__ = ("seed", "epoch", "labels")

    def __init__(self, seed: int, epoch: Sequence[int], labels: Callable[[], np.ndarray] | None = None) -> None:
        self.seed, self.epoch, self.labels = seed, tuple(epoch), labels

    def rng(self, salt: int) -> np.random.Generator:
        return np.random.default_rng([self.seed, _SAMPLER_SALT, salt, *self.epoch])


class Sampler:
    """Base class of samplers; subclass it and implement `__iter__` to sample with Python code.

    A user-defined sampler's `__iter__` yields row indices; `self.dataset_size`
    holds the number of rows of the source while it runs.

    Args:
        num_samples: the most indices to take from `__iter__` (None: all).
    """

    _salt = 0

    def __init__(self, num_samples: int | None = None) -> None:
        self.num_samples = _check_num_samples(num_samples, type(self).__name__)
        self.child_sampler: Sampler | None = None
        self.dataset_size = 0

    def add_child(self, sampler) -> None:
        """Let `sampler` pick rows first; this sampler then samples positions in its output.

        Args:
            sampler: a Sampler (or anything `as_sampler` accepts).
        """
        if self.child_sampler is not None:
            raise RuntimeError(f"{type(self).__name__} already has a child sampler; a sampler takes one child.")
        self.child_sampler = as_sampler(sampler)

    def get_child(self):
        """The child sampler, or None."""
        return self.child_sampler

    def get_num_samples(self) -> int | None:
        """The `num_samples` given (None: no limit)."""
        return self.num_samples

    def is_shuffled(self) -> bool:
        """Whether the order is random."""
        return False

    def is_sharded(self) -> bool:
        """Whether the sampler reads one shard only."""
        return self.child_sampler.is_sharded() if self.child_sampler is not None else False

    # -- sampling -----------------------------------------------------------
    def _own(self, n: int, ctx: SampleContext) -> np.ndarray:
        """Indices into [0, n) this sampler alone picks (subclasses override)."""
        self.dataset_size = n
        out = []
        for i in self.__iter__():
            if self.num_samples is not None and len(out) >= self.num_samples:
                break
            out.append(int(i))
        return np.asarray(out, dtype=np.int64)

    def _own_size(self, n: int) -> int | None:
        return None  # unknown without running __iter__

    def _checked(self, n: int, ctx: SampleContext) -> np.ndarray:
        idx = np.asarray(self._own(n, ctx), dtype=np.int64)
        bad = idx[(idx < 0) | (idx >= n)] if idx.size else idx
        if bad.size:
            raise RuntimeError(
                f"{type(self).__name__}: sample index {int(bad[0])} is out of range for a dataset of {n} rows."
            )
        return idx

    def indices(self, n: int, ctx: SampleContext) -> np.ndarray:
        """The row indices of one epoch over a source of `n` rows."""
        if self.child_sampler is None:
            return self._checked(n, ctx)
        base = self.child_sampler.indices(n, ctx)
        return base[self._checked(len(base), ctx)] if len(base) else base

    def size(self, n: int) -> int | None:
        """Indices per epoch over `n` rows, or None when only running tells."""
        if self.child_sampler is not None:
            m = self.child_sampler.size(n)
            return None if m is None else self._own_size(m)
        return self._own_size(n)

    def __repr__(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in vars(self).items() if k not in ("child_sampler", "dataset_size"))
        return f"{type(self).__name__}({args})"


class BuiltinSampler(Sampler):
    """Base of the samplers MindSpore implements natively."""

    def __iter__(self):
        return iter(self.indices(self.dataset_size, SampleContext(0, (0,))).tolist())

    def _limit(self, count: int) -> int:
        return count if self.num_samples is None else min(count, self.num_samples)


class SequentialSampler(BuiltinSampler):
    """Rows in order, from `start_index`.

    Args:
        start_index: the first row (default 0).
        num_samples: rows to read at most (None: to the end).
    """

    def __init__(self, start_index: int | None = None, num_samples: int | None = None) -> None:
        super().__init__(num_samples)
        if start_index is not None and (not _is_int(start_index) or start_index < 0):
            raise ValueError(f"SequentialSampler: start_index must be a non-negative int, but got {start_index!r}.")
        self.start_index = 0 if start_index is None else int(start_index)

    def _own_size(self, n: int) -> int:
        return self._limit(max(n - self.start_index, 0))

    def _own(self, n, ctx):
        if n and self.start_index >= n:
            raise RuntimeError(
                f"SequentialSampler: start_index {self.start_index} is out of range for a dataset of {n} rows."
            )
        return np.arange(self.start_index, self.start_index + self._own_size(n))


class RandomSampler(BuiltinSampler):
    """Rows in a random order (a new one every epoch), or drawn with replacement.

    Args:
        replacement: draw each sample independently (rows may repeat).
        num_samples: samples per epoch (None: as many as rows).
    """

    _salt = 1

    def __init__(self, replacement: bool = False, num_samples: int | None = None) -> None:
        super().__init__(num_samples)
        if not isinstance(replacement, bool):
            raise TypeError(f"RandomSampler: replacement must be a bool, but got {type(replacement).__name__}.")
        self.replacement = replacement

    def is_shuffled(self) -> bool:
        return True

    def _own_size(self, n: int) -> int:
        if self.replacement and self.num_samples is not None:
            return self.num_samples
        return self._limit(n)

    def _own(self, n, ctx):
        if self.replacement:
            rng = ctx.rng(self._salt)
            return rng.integers(0, n, size=self._own_size(n)) if n else np.zeros(0, np.int64)
        # The stream a shuffled DistributedSampler uses: one shard of n is a slice of this order.
        return np.random.default_rng([ctx.seed, _SAMPLER_SALT, *ctx.epoch]).permutation(n)[: self._own_size(n)]


class DistributedSampler(BuiltinSampler):
    """Read one shard of a random-access source (MindSpore's `dataset.DistributedSampler`).

    `Dataset(..., sampler=DistributedSampler(n, k))` reads what `Dataset(..., num_shards=n, shard_id=k)`
    reads.

    Args:
        num_shards: the number of shards (usually the number of ranks).
        shard_id: the shard to read, in [0, num_shards).
        shuffle: shuffle the rows (the same permutation in every shard), new every epoch.
        num_samples: rows per epoch at most (in this shard); all when None.
        offset: the shard that receives the first row; -1 (MindSpore's default) starts at shard 0 and pads the
            shards to one size with rows from the start, an offset >= 0 does not pad (as MindSpore).

    Raises:
        ValueError: a shard out of range or non-positive counts.
    """

    _salt = 2

    def __init__(self, num_shards: int, shard_id: int, shuffle: bool = True, num_samples=None, offset: int = -1):
        if not isinstance(shuffle, bool | np.bool_):
            raise TypeError(f"DistributedSampler: shuffle must be a bool, but got {type(shuffle).__name__}.")
        check_sampling_args(num_samples, bool(shuffle), num_shards, shard_id)
        super().__init__(num_samples)
        if not _is_int(offset) or offset < -1:
            raise ValueError(f"DistributedSampler: offset must be an int >= -1, but got {offset!r}.")
        if offset > num_shards:
            raise ValueError(f"DistributedSampler: offset must not exceed num_shards ({num_shards}), but got {offset}.")
        self.num_shards = int(num_shards)
        self.shard_id = int(shard_id)
        self.shuffle = bool(shuffle)
        self.offset = int(offset)

    def is_shuffled(self) -> bool:
        return self.shuffle

    def is_sharded(self) -> bool:
        return True

    def _first(self) -> int:
        """The first row of this shard (row i goes to shard (i + offset) % num_shards)."""
        return self.shard_id if self.offset == -1 else (self.shard_id - self.offset) % self.num_shards

    def _own_size(self, n: int) -> int:
        if n == 0:
            return 0
        if self.offset == -1:  # MindSpore's default pads every shard to ceil(n / num_shards) rows ...
            return self._limit(math.ceil(n / self.num_shards))
        return self._limit(max(0, math.ceil((n - self._first()) / self.num_shards)))  # ... an offset does not

    def _own(self, n, ctx):
        count = self._own_size(n)
        if n == 0:
            return np.zeros(0, np.int64)
        positions = (self._first() + self.num_shards * np.arange(count)) % n
        if self.shuffle:
            # Shards must agree on the permutation, so it depends on the seed and epoch only.
            perm = np.random.default_rng([ctx.seed, _SAMPLER_SALT, *ctx.epoch]).permutation(n)
            positions = perm[positions]
        return positions


class SubsetSampler(BuiltinSampler):
    """The given rows, in the given order.

    Args:
        indices: row indices (ints).
        num_samples: the most indices to read (None: all).
    """

    _salt = 3

    def __init__(self, indices: Iterable[int], num_samples: int | None = None) -> None:
        super().__init__(num_samples)
        if _is_int(indices):
            indices = [indices]
        if not isinstance(indices, Iterable) or isinstance(indices, str):
            raise TypeError(f"{type(self).__name__}: indices must be a sequence of ints, but got {indices!r}.")
        indices = list(indices)
        for i in indices:
            if not _is_int(i):
                raise TypeError(f"{type(self).__name__}: indices must be ints, but got {i!r} ({type(i).__name__}).")
        self.indices_list = [int(i) for i in indices]

    def _own_size(self, n: int) -> int:
        return self._limit(len(self.indices_list))

    def _own(self, n, ctx):
        return np.asarray(self.indices_list[: self._own_size(n)], dtype=np.int64)


class SubsetRandomSampler(SubsetSampler):
    """The given rows in a random order, new every epoch.

    Args:
        indices: row indices (ints).
        num_samples: the most indices to read (None: all).
    """

    _salt = 4

    def is_shuffled(self) -> bool:
        return True

    def _own(self, n, ctx):
        perm = ctx.rng(self._salt).permutation(len(self.indices_list))
        return np.asarray(self.indices_list, dtype=np.int64)[perm][: self._own_size(n)]


class WeightedRandomSampler(BuiltinSampler):
    """Rows drawn with probability proportional to `weights`.

    Args:
        weights (list[float]): one non-negative weight per row (row i gets weights[i]), a list as MindSpore requires.
        num_samples: samples per epoch at most (None: as many as the dataset has rows).
        replacement: draw with replacement (default True).
    """

    _salt = 5

    def __init__(self, weights: list[float], num_samples: int | None = None, replacement: bool = True) -> None:
        super().__init__(num_samples)
        # MindSpore's classes: a TypeError for what is not a list of numbers (a tuple or a str too), a RuntimeError
        # (its pipeline's, raised here at once) for an empty list, a negative weight or all weights zero
        items = weights if isinstance(weights, list) else [weights]
        for i, v in enumerate(items):
            if not isinstance(v, (int, float, np.integer, np.floating)):
                raise TypeError(
                    f"WeightedRandomSampler: weights must be a list of numbers, but weights[{i}] is {type(v).__name__}."
                )
        w = np.asarray(items, dtype=np.float64)
        if w.size == 0:
            raise RuntimeError("WeightedRandomSampler: weights must not be empty.")
        if (w < 0).any():
            raise RuntimeError("WeightedRandomSampler: weights must not be negative.")
        if not (w > 0).any():
            raise RuntimeError("WeightedRandomSampler: at least one weight must be positive.")
        if not isinstance(replacement, bool):
            raise TypeError(f"WeightedRandomSampler: replacement must be a bool, but got {replacement!r}.")
        self.weights = w.tolist()
        self.replacement = replacement

    def is_shuffled(self) -> bool:
        return True

    def _own_size(self, n: int) -> int:
        # MindSpore draws as many samples as the dataset has rows, num_samples at most
        return self._limit(n)

    def _own(self, n, ctx):
        w = np.asarray(self.weights)
        count = self._own_size(n)
        if not self.replacement and count > np.count_nonzero(w):
            raise RuntimeError(
                f"WeightedRandomSampler: {count} samples without replacement need at least as many positive "
                f"weights, but there are {np.count_nonzero(w)}."
            )
        return ctx.rng(self._salt).choice(len(w), size=count, replace=self.replacement, p=w / w.sum())


class PKSampler(BuiltinSampler):
    """`num_val` rows of every class (P classes x K samples), drawn at random from each class.

    Classes come in sorted label order (shuffled with `shuffle`); within a class
    rows are drawn uniformly with replacement, as MindSpore does.

    Args:
        num_val: samples per class.
        num_class: must be None (MindSpore does not support it either).
        shuffle: shuffle the order of the classes.
        class_column: the label column (used by sources without built-in labels).
        num_samples: samples per epoch at most.
    """

    _salt = 6

    def __init__(self, num_val: int, num_class=None, shuffle: bool = False, class_column="label", num_samples=None):
        super().__init__(num_samples)
        if not _is_int(num_val) or num_val < 1:
            raise ValueError(f"PKSampler: num_val must be a positive int, but got {num_val!r}.")
        if num_class is not None:
            raise NotImplementedError("PKSampler: num_class is not supported (as in MindSpore); leave it None.")
        if not isinstance(shuffle, bool):
            raise TypeError(f"PKSampler: shuffle must be a bool, but got {type(shuffle).__name__}.")
        self.num_val = int(num_val)
        self.shuffle = shuffle
        self.class_column = class_column

    def is_shuffled(self) -> bool:
        return True

    def _own(self, n, ctx):
        if ctx.labels is None:
            raise RuntimeError("PKSampler needs a dataset with a label column.")
        labels = np.asarray(ctx.labels()).reshape(-1)[:n]
        classes = np.unique(labels)
        rng = ctx.rng(self._salt)
        if self.shuffle:
            classes = rng.permutation(classes)
        out = []
        for c in classes:
            rows = np.flatnonzero(labels == c)
            out.append(rows[rng.integers(0, len(rows), size=self.num_val)])
        idx = np.concatenate(out) if out else np.zeros(0, np.int64)
        return idx[: self._limit(len(idx))]

    def _own_size(self, n: int) -> int | None:
        return None  # depends on the number of classes


class _IndexListSampler(Sampler):
    """A plain list of indices (or any iterable of ints) given as `sampler=`."""

    def __init__(self, indices) -> None:
        super().__init__()
        self._source = indices

    def __iter__(self):
        return iter(self._source)


def as_sampler(sampler) -> Sampler:
    """A Sampler from what MindSpore accepts as `sampler=`: a Sampler, or an iterable of indices."""
    if isinstance(sampler, Sampler):
        return sampler
    if isinstance(sampler, Iterable) and not isinstance(sampler, str | bytes):
        return _IndexListSampler(sampler)
    raise TypeError(f"sampler must be a dataset sampler or an iterable of indices, but got {type(sampler).__name__}.")


def resolve_sampler(what: str, sampler, num_samples, shuffle, num_shards, shard_id) -> Sampler:
    """The sampler a source reads with, from its sampling arguments (MindSpore's rules)."""
    if sampler is not None:
        given = {"num_samples": num_samples, "shuffle": shuffle, "num_shards": num_shards, "shard_id": shard_id}
        clash = [k for k, v in given.items() if v is not None]
        if clash:
            raise ValueError(f"{what}: pass either sampler or {', '.join(clash)}, not both (the sampler decides them).")
        return as_sampler(sampler)
    check_sampling_args(num_samples, shuffle, num_shards, shard_id)
    shuffle = True if shuffle is None else bool(shuffle)
    if num_shards is not None:
        return DistributedSampler(num_shards, shard_id, shuffle=shuffle, num_samples=num_samples)
    if shuffle:
        return RandomSampler(num_samples=num_samples)
    return SequentialSampler(num_samples=num_samples)


class IterSampler(Sampler):
    """A sampler from any iterable of row indices (a list, a generator function's result, an object with
    `__iter__`), re-iterated every epoch.

    Args:
        sampler: the iterable (or an object whose `__iter__` yields indices).
        num_samples: the most indices to take per epoch (None: all).
    """

    def __init__(self, sampler, num_samples: int | None = None) -> None:
        super().__init__(num_samples)
        if not hasattr(sampler, "__iter__"):
            raise TypeError(f"IterSampler: sampler must be iterable, but got {type(sampler).__name__}.")
        self.sampler = sampler

    def __iter__(self):
        return iter(self.sampler)
