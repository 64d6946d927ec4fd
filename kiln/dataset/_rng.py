"""Where random transforms and shuffles get their random numbers.

Inside a pipeline every row gets its own generator, keyed by (seed, node,
epoch, row). That keeps a parallel `map` bit-identical to a serial one: which
thread handles a row does not change the numbers that row sees. Outside a
pipeline (a transform called eagerly) a process-wide generator is used.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence

import numpy as np

_local = threading.local()
_eager_lock = threading.Lock()
_eager: list[np.random.Generator] = [np.random.default_rng()]


def reseed_eager(seed: int | None) -> None:
    """Restart the generator used outside pipelines (called by `config.set_seed`)."""
    with _eager_lock:
        _eager[0] = np.random.default_rng(seed)


def generator() -> np.random.Generator:
    """The generator a random transform should draw from right now."""
    key = getattr(_local, "key", None)
    if key is None:
        return _eager[0]
    gen = _local.gen
    if gen is None:
        # Built on first use only: most rows go through deterministic ops and
        # seeding a generator per row would cost more than the ops themselves.
        gen = _local.gen = np.random.default_rng(key)
    return gen


def enter_row(key: Sequence[int]) -> tuple:
    """Make `generator()` return the generator of one pipeline row; returns what `exit_row` restores.

    A pair of plain functions rather than a context manager: this runs once per
    row and per map, where contextlib's overhead shows.
    """
    prev = (getattr(_local, "key", None), getattr(_local, "gen", None))
    _local.key, _local.gen = key, None
    return prev


def exit_row(prev: tuple) -> None:
    """Restore the state saved by `enter_row`."""
    _local.key, _local.gen = prev
