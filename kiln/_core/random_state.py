"""The one owner of random state: a seeded PRNG key, split for every draw.

Eager random ops ask `next_key()` for a fresh key; the graph compiler swaps
in a traced key (`swap_key`) so a compiled graph threads the same state.
"""

from __future__ import annotations

import time
import weakref

from kiln._backend import is_tracer, jit, random_key_data
from kiln._backend import random as jrandom
from kiln._compiler.ir import graph as G
from kiln._core.primitive import PrimitiveDef

_seed: int | None = None
_key = None


def set_seed(seed: int) -> None:
    """Reset the global generator and restart the functional ops' seeded streams; the same seed replays the same
    draws."""
    global _seed, _key
    if not isinstance(seed, int) or isinstance(seed, bool) or seed < 0:
        raise ValueError(f"The seed must be a non-negative int, but got {seed!r}.")
    _seed = seed
    _key = random_key_data(seed)
    for stream in SEEDED_STREAMS.values():
        stream._data = stream.first


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


_UNREAD = object()  # key_mark in a graph that has not used a key yet: its value is the graph's input
# Every private generator (KeyStream) alive: a mark keeps each one's state too (an op with its own seed draws the
# forward's numbers again when a gradient replays that forward, as one drawing from the global generator does)
_STREAMS: weakref.WeakSet = weakref.WeakSet()


def key_mark():
    """The generators' state now (the global one and every private stream), to go back to with `key_restore`: a
    gradient replaying a forward call draws that call's numbers again. In a graph being recorded it reads
    nothing: a generator the graph has not used yet is marked as such, and takes no key input for it."""
    trace = G._TRACES[-1] if G._TRACES else None
    if trace is None:
        return _host_key(), {s: s._data for s in _STREAMS}
    return trace.state.get(G.RNG, _UNREAD), {s: trace.state.get(id(s), _UNREAD) for s in _STREAMS}


def key_restore(mark) -> None:
    """Put the generators back to `mark` (from `key_mark`, in the same graph being recorded, or outside any). A
    private stream made since the mark goes back to its first state (it drew only after the mark)."""
    global _key
    key, streams = mark
    trace = G._TRACES[-1] if G._TRACES else None
    if trace is None:
        _key = key
        for s in list(_STREAMS):
            s._data = streams.get(s, s.first)
        return
    _restore_in_graph(trace, G.RNG, G.RNG, key)
    for s in list(_STREAMS):
        _restore_in_graph(trace, id(s), s, streams.get(s, _UNREAD))


def _restore_in_graph(trace, key, obj, mark) -> None:
    if mark is _UNREAD:
        mark = trace.state_in.get(key)
        if mark is None:  # not read since either: nothing drew from it
            return
    trace.write_state(key, obj, mark)


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

    __slots__ = ("_data", "first", "__weakref__")

    def __init__(self, raw) -> None:
        self._data = self.first = raw
        _STREAMS.add(self)


# The functional random ops' streams by (op, seed) (`ops.uniform(..., seed=5)`): set_seed restarts them, as MindSpore
# 2.10's does; a Primitive instance's own stream (`StandardNormal(3, 4)`) carries on across set_seed, as there.
SEEDED_STREAMS: dict[tuple, KeyStream] = {}


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
