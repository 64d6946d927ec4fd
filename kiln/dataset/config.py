"""Global settings of the data pipeline, as in `mindspore.dataset.config`."""

from __future__ import annotations

import numpy as np

from kiln.dataset import _rng

_DEFAULT_SEED = 5489  # std::mt19937::default_seed, what MindSpore reports when no seed was set
_MAX_SEED = 2**32 - 1

_state = {"seed": None, "prefetch_size": 4, "num_parallel_workers": 1}


def _check_positive_int(value, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int | np.integer):
        raise TypeError(f"{name} must be an int, but got {type(value).__name__}.")
    if value < 1:
        raise ValueError(f"{name} must be a positive int, but got {value}.")
    return int(value)


def set_seed(seed: int) -> None:
    """Seed every shuffle and random transform of pipelines created afterwards.

    Args:
        seed: an int in [0, 2**32 - 1].
    """
    if isinstance(seed, bool) or not isinstance(seed, int | np.integer):
        raise TypeError(f"seed must be an int, but got {type(seed).__name__}.")
    if not 0 <= seed <= _MAX_SEED:
        raise ValueError(f"seed must be in [0, {_MAX_SEED}], but got {seed}.")
    _state["seed"] = int(seed)
    _rng.reseed_eager(int(seed))


def get_seed() -> int:
    """The seed set by `set_seed`, or MindSpore's default seed (5489) when none was set."""
    return _DEFAULT_SEED if _state["seed"] is None else _state["seed"]


def set_prefetch_size(size: int) -> None:
    """How many ready items the background thread of an iterator may hold.

    Args:
        size: a positive int; larger hides more latency and holds more memory.
    """
    _state["prefetch_size"] = _check_positive_int(size, "prefetch size")


def get_prefetch_size() -> int:
    """The prefetch queue size set by `set_prefetch_size` (default 4)."""
    return _state["prefetch_size"]


def set_num_parallel_workers(num: int) -> None:
    """The default number of worker threads of `map` when it is not given one.

    Args:
        num: a positive int.
    """
    _state["num_parallel_workers"] = _check_positive_int(num, "num_parallel_workers")


def get_num_parallel_workers() -> int:
    """The default number of `map` worker threads (default 1)."""
    return _state["num_parallel_workers"]


def pipeline_seed() -> int:
    """The seed one iterator runs with: the set seed, or fresh entropy when none was set.

    Unseeded pipelines are random from run to run, as in MindSpore.
    """
    if _state["seed"] is not None:
        return _state["seed"]
    return int(np.random.SeedSequence().entropy % (_MAX_SEED + 1))
