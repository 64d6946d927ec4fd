"""MindSpore's random-number generator API (`mindspore.Generator`, `seed`, `manual_seed`, `initial_seed`,
`get_rng_state`, `set_rng_state`) over Kiln's PRNG state.

`default_generator` is the global state every random op draws from (`kiln._core.random_state`): seeding it
replays the same draws, and its state (a Tensor holding the raw PRNG key) can be saved and restored. Other
`Generator` objects keep a state of their own, with the same methods.
"""

from __future__ import annotations

import time

import numpy as np

from kiln._backend import as_array, random_key_data
from kiln._backend import random as jrandom
from kiln._core import random_state
from kiln._core.tensor import Tensor, generated_parameter_name

__all__ = ["Generator", "default_generator", "get_rng_state", "initial_seed", "manual_seed", "seed", "set_rng_state"]


def _check_seed(value) -> int:
    if isinstance(value, Tensor):
        value = int(value.asnumpy())
    if not isinstance(value, (int, np.integer)) or isinstance(value, bool) or value < 0:
        raise ValueError(f"The seed must be a non-negative int, but got {value!r}.")
    return int(value)


def _key_of(value: int) -> np.ndarray:
    return np.asarray(random_key_data(value))  # the host-built key: seeding compiles nothing


def _random_seed() -> int:
    return time.time_ns() % (2**31)


class Generator:
    """A PRNG state: `manual_seed(s)` resets it, `seed()` picks a fresh seed, `get_state()`/`set_state()`
    save and restore it (a uint32 Tensor)."""

    def __init__(self) -> None:
        _take_parameter_numbers()
        self._seed = 0
        self._state = _key_of(0)

    def manual_seed(self, seed) -> Generator:
        self._seed = _check_seed(seed)
        self._state = _key_of(self._seed)
        return self

    def seed(self) -> int:
        value = _random_seed()
        self.manual_seed(value)
        return value

    def initial_seed(self) -> int:
        return self._seed

    def get_state(self) -> Tensor:
        return Tensor(np.array(self._state, copy=True))

    def set_state(self, state) -> Generator:
        self._state = _state_array(state, np.shape(self._state))
        return self

    def _next_key(self):
        """A fresh raw key for one draw (advances this generator)."""
        pair = jrandom.split(jrandom.wrap_key_data(as_array(self._state)))
        self._state = np.asarray(jrandom.key_data(pair[0]))
        return jrandom.key_data(pair[1])


def _state_array(state, shape) -> np.ndarray:
    host = state.asnumpy() if isinstance(state, Tensor) else np.asarray(state)
    if host.shape != tuple(shape):
        raise ValueError(f"set_state: the state must have shape {tuple(shape)}, but got {host.shape}.")
    return host.astype(np.uint32)


def _take_parameter_numbers() -> None:
    """MindSpore keeps a generator's seed and offset in two unnamed Parameters, which take two `Parameter#<n>`
    numbers: taking them here too gives a script's own unnamed Parameters MindSpore's names (and checkpoint keys)."""
    generated_parameter_name()
    generated_parameter_name()


class _DefaultGenerator(Generator):
    """The global generator: its state is the one Kiln's random ops draw from."""

    def __init__(self) -> None:
        _take_parameter_numbers()
        self._seed = 0

    def manual_seed(self, seed) -> Generator:
        self._seed = _check_seed(seed)
        random_state.set_seed(self._seed)
        return self

    def initial_seed(self) -> int:
        current = random_state.get_seed()
        return self._seed if current is None else current

    def get_state(self) -> Tensor:
        return Tensor(np.array(random_state.current_key(), copy=True))

    def set_state(self, state) -> Generator:
        shape = np.shape(random_state.current_key())
        random_state.swap_key(as_array(_state_array(state, shape)))
        return self

    def _next_key(self):
        return random_state.next_key()


default_generator = _DefaultGenerator()


def seed() -> int:
    """Seed the global generator with a fresh random seed and return it."""
    return default_generator.seed()


def manual_seed(seed) -> None:  # noqa: A002  (MindSpore's name)
    """Seed the global generator (random ops replay the same draws after the same seed)."""
    default_generator.manual_seed(seed)


def initial_seed() -> int:
    """The seed the global generator was last seeded with."""
    return default_generator.initial_seed()


def get_rng_state() -> Tensor:
    """The global generator's state (a Tensor to give back to `set_rng_state`)."""
    return default_generator.get_state()


def set_rng_state(state) -> None:
    """Restore the global generator's state saved by `get_rng_state`."""
    default_generator.set_state(state)
