"""The one owner of random state: a seeded PRNG key, split for every draw.

Eager random ops ask `next_key()` for a fresh key; the graph compiler swaps
in a traced key (`swap_key`) so a compiled graph threads the same state.
"""

from __future__ import annotations

import time

from kiln._backend import is_tracer, jit, random_key_data
from kiln._backend import random as jrandom
from kiln._compiler.ir import graph as G
from kiln._core.primitive import PrimitiveDef

_seed: int | None = None
_key = None


def set_seed(seed: int) -> None:
    """Reset the global generator; the same seed replays the same draws."""
    global _seed, _key
    if not isinstance(seed, int) or isinstance(seed, bool) or seed < 0:
        raise ValueError(f"The seed must be a non-negative int, but got {seed!r}.")
    _seed = seed
    _key = random_key_data(seed)


def get_seed() -> int | None:
    return _seed


def _host_key():
    global _key
    if _key is None:
        _key = random_key_data(time.time_ns() % (2**31))
    return _key


def current_key():
    """The generator's state as a raw uint32 key array (symbolic while a graph is recorded)."""
    trace = G._TRACES[-1] if G._TRACES else None
    if trace is not None:
        return trace.read_state(G.RNG, G.RNG, _host_key())
    return _host_key()


def swap_key(key):
    """Install `key` as the state and return the previous one."""
    global _key
    old = current_key()
    trace = G._TRACES[-1] if G._TRACES else None
    if trace is not None:
        trace.write_state(G.RNG, G.RNG, key)
    else:
        _key = key
    return old


_UNREAD = object()  # key_mark in a graph that has not used the key yet: its value is the graph's input


def key_mark():
    """The generator's state now, to go back to with `key_restore` (a gradient replaying a forward call draws
    that call's numbers again). In a graph being recorded it reads nothing: a graph that has not used the key
    yet is marked as such, and takes no key input for it."""
    trace = G._TRACES[-1] if G._TRACES else None
    if trace is None:
        return _host_key()
    return trace.state.get(G.RNG, _UNREAD)


def key_restore(mark) -> None:
    """Put the generator back to `mark` (from `key_mark`, in the same graph being recorded, or outside any)."""
    global _key
    trace = G._TRACES[-1] if G._TRACES else None
    if trace is None:
        _key = mark
        return
    if mark is _UNREAD:
        mark = trace.state_in.get(G.RNG)
        if mark is None:  # not read since either: nothing drew from it
            return
    trace.write_state(G.RNG, G.RNG, mark)


def next_key():
    """Advance the generator and return a fresh raw key for one random op."""
    global _key
    trace = G._TRACES[-1] if G._TRACES else None
    if trace is not None:
        key, sub = trace.bind(split_key_p, (), [current_key()])
        trace.write_state(G.RNG, G.RNG, key)
        return sub
    key, sub = _split(_host_key())
    _key = key
    return sub


class KeyStream:
    """A private generator (a random Primitive's own seeds): its raw key is state, read and advanced through
    compiled graphs as a Parameter is, so a graph draws new numbers on each call, as PyNative does."""

    __slots__ = ("_data", "__weakref__")

    def __init__(self, raw) -> None:
        self._data = raw


def stream_next_key(stream: KeyStream):
    """Advance `stream` and return a fresh raw key for one random op."""
    trace = G._TRACES[-1] if G._TRACES else None
    if trace is not None:
        current = trace.read_state(id(stream), stream, stream._data)
        key, sub = trace.bind(split_key_p, (), [current])
        trace.write_state(id(stream), stream, key)
        return sub
    stream._data, sub = _split(stream._data)
    return sub


def _split_impl(key):
    pair = jrandom.split(jrandom.wrap_key_data(key))
    return jrandom.key_data(pair[0]), jrandom.key_data(pair[1])


_split_jit = jit(_split_impl)
split_key_p = PrimitiveDef("RandomKeySplit", _split_impl, multiple_results=True)


def _split(key):
    return _split_impl(key) if is_tracer(key) else _split_jit(key)
