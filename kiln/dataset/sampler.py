"""Which rows of a random-access source an epoch reads, and in what order.

Follows MindSpore's DistributedSampler: every shard shuffles with the same
seed, then shard `k` of `n` takes positions k, k + n, k + 2n, ... of the
permutation, wrapping around so that every shard gets ceil(rows / n) samples.
Without shuffling the assignment is MindSpore's exactly (row i goes to shard
i % n, the last shards wrap around to rows 0, 1, ...); with shuffling every
shard draws the same permutation from the pipeline seed (MindSpore's default
seed, 5489, when `config.set_seed` was not called), so shards in different
processes agree and cover every row once per epoch. The permutation itself is
Kiln's, not MindSpore's.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

# Mixed into the seed so that source order and buffer shuffles never share a stream.
_SAMPLER_SALT = 0x5A3


def check_sampling_args(num_samples, shuffle, num_shards, shard_id) -> None:
    """Validate the sampling arguments every source accepts."""
    if num_samples is not None:
        if isinstance(num_samples, bool) or not isinstance(num_samples, int | np.integer):
            raise TypeError(f"num_samples must be an int or None, but got {type(num_samples).__name__}.")
        if num_samples < 1:
            raise ValueError(f"num_samples must be a positive int or None, but got {num_samples}.")
    if shuffle is not None and not isinstance(shuffle, bool | np.bool_):
        raise TypeError(f"shuffle must be a bool or None, but got {type(shuffle).__name__}.")
    if (num_shards is None) != (shard_id is None):
        raise ValueError("num_shards and shard_id must be given together (or both left as None).")
    if num_shards is not None:
        if isinstance(num_shards, bool) or not isinstance(num_shards, int | np.integer) or num_shards < 1:
            raise ValueError(f"num_shards must be a positive int, but got {num_shards!r}.")
        if isinstance(shard_id, bool) or not isinstance(shard_id, int | np.integer):
            raise ValueError(f"shard_id must be an int, but got {shard_id!r}.")
        if not 0 <= shard_id < num_shards:
            raise ValueError(
                f"shard_id must be in [0, {num_shards - 1}] for num_shards={num_shards}, but got {shard_id}."
            )


def sampled_size(num_rows: int, num_samples: int | None, num_shards: int | None) -> int:
    """How many rows one epoch yields."""
    size = num_rows if num_shards is None else math.ceil(num_rows / num_shards)
    if num_rows == 0:
        size = 0
    return size if num_samples is None else min(size, num_samples)


def sample_indices(
    num_rows: int,
    *,
    shuffle: bool,
    num_samples: int | None,
    num_shards: int | None,
    shard_id: int | None,
    seed: int,
    epoch: Sequence[int],
) -> Sequence[int]:
    """The row indices one epoch reads, in order."""
    count = sampled_size(num_rows, num_samples, num_shards)
    if not shuffle and num_shards is None:
        return range(count)  # no array: a sequential pass needs no memory per row
    if num_shards is None:
        positions = np.arange(count)
    else:
        positions = (shard_id + num_shards * np.arange(count)) % num_rows
    if shuffle:
        # Shards must agree on the permutation, so it depends on the seed and epoch only.
        perm = np.random.default_rng([seed, _SAMPLER_SALT, *epoch]).permutation(num_rows)
        positions = perm[positions]
    return positions


class DistributedSampler:
    """Read one shard of a random-access source (MindSpore's `dataset.DistributedSampler`).

    `Dataset(..., sampler=DistributedSampler(n, k))` reads what `Dataset(..., num_shards=n, shard_id=k)`
    reads.

    Args:
        num_shards: the number of shards (usually the number of ranks).
        shard_id: the shard to read, in [0, num_shards).
        shuffle: shuffle the rows (the same permutation in every shard), new every epoch.
        num_samples: rows per epoch at most (in this shard); all when None.
        offset: only -1 (the default) is supported.

    Raises:
        ValueError: a shard out of range, non-positive counts, or another offset.
    """

    def __init__(self, num_shards: int, shard_id: int, shuffle: bool = True, num_samples=None, offset: int = -1):
        if not isinstance(shuffle, bool | np.bool_):
            raise TypeError(f"DistributedSampler: shuffle must be a bool, but got {type(shuffle).__name__}.")
        check_sampling_args(num_samples, bool(shuffle), num_shards, shard_id)
        if offset != -1:
            raise ValueError(f"DistributedSampler: only offset=-1 is supported in Kiln, but got {offset!r}.")
        self.num_shards = int(num_shards)
        self.shard_id = int(shard_id)
        self.shuffle = bool(shuffle)
        self.num_samples = None if num_samples is None else int(num_samples)
        self.offset = offset

    def get_num_samples(self) -> int | None:
        """The `num_samples` given (None: every row of the shard)."""
        return self.num_samples

    def __repr__(self) -> str:
        return (
            f"DistributedSampler(num_shards={self.num_shards}, shard_id={self.shard_id}, shuffle={self.shuffle}, "
            f"num_samples={self.num_samples})"
        )


def resolve_sampler(what: str, sampler, num_samples, shuffle, num_shards, shard_id):
    """The (num_samples, shuffle, num_shards, shard_id) a source reads with, given its `sampler` argument."""
    if sampler is None:
        return num_samples, shuffle, num_shards, shard_id
    if not isinstance(sampler, DistributedSampler):
        raise TypeError(
            f"{what}: sampler must be a dataset.DistributedSampler (the only sampler Kiln has yet), "
            f"but got {type(sampler).__name__}."
        )
    given = {"num_samples": num_samples, "shuffle": shuffle, "num_shards": num_shards, "shard_id": shard_id}
    clash = [k for k, v in given.items() if v is not None]
    if clash:
        raise ValueError(f"{what}: pass either sampler or {', '.join(clash)}, not both (the sampler decides them).")
    return sampler.num_samples, sampler.shuffle, sampler.num_shards, sampler.shard_id
