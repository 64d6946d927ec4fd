"""Which rows of a random-access source an epoch reads, and in what order.

Follows MindSpore's DistributedSampler: every shard shuffles with the same
seed, then shard `k` of `n` takes positions k, k + n, k + 2n, ... of the
permutation, wrapping around so that every shard gets ceil(rows / n) samples.
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
