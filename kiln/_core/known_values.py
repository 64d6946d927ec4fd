"""The host's knowledge of a few small backend arrays' values, so that reading them does not wait for the device.

A host test of a program's state before its launch (`_compiler/input_checks`: the global step indexing a learning
rate per step) needs the state's value. Read back from the device, the previous step's output makes the host wait
for that step, and the next launch loses its overlap with it. A program that provably writes the state as a function
of its old value (`global_step + 1`) records the new array's value here when it launches, so the next test reads
that prediction instead of the device. Any array not known here (set by the user, loaded from a checkpoint, written
by another program) is read from the device once, as before, and its value kept.

PyNative does the same for an op that declares an output as an input plus a constant (`PrimitiveDef.increments`: an
optimizer step's global step + 1), run at once or in the lazy window (`follow`), and its value bounds checks read
the values known here (`Bounds.host_check`). A value the lazy window has not computed yet is known by its `Pending`
until the window gives it its array (`arrived`).

The entries are keyed by the array object itself: each entry holds its array, so no other array can take its id
while the entry lives, and backend arrays never change in place. Only small integer arrays are kept (a step
counter, not data), and only the last `MAX_ENTRIES`: the memory held is bounded.
"""

from __future__ import annotations

import weakref

import numpy as np

MAX_ENTRIES = 64  # a few per optimizer step program (each global step array, the one before it), the oldest dropped
MAX_ELEMENTS = 16  # a step counter has one; anything larger is data, read as before

# id(array) -> (array, its value as a read-only NumPy array)
_known: dict[int, tuple] = {}
# id(pending) -> (weak reference to the pending value, its value): lazy-window outputs not computed yet (empty unless
# an op was followed). Weak: the window returns only the values still referenced, and this must not be one more.
PENDING: dict[int, tuple] = {}


def value(a) -> np.ndarray | None:
    """The host value recorded for backend array (or pending lazy value) `a`, or None when the host does not know
    it."""
    entry = _known.get(id(a))
    if entry is not None:
        return entry[1] if entry[0] is a else None
    if PENDING:
        entry = PENDING.get(id(a))
        if entry is not None and entry[0]() is a:
            return entry[1]
    return None


def remember(a, v: np.ndarray) -> None:
    """Record `v` as the value of `a`, a concrete backend array (a small integer array: others are not kept). `v` is
    kept as given when it is read-only (a NumPy array nothing else writes), else copied."""
    if v.size > MAX_ELEMENTS or v.dtype.kind not in "iu":
        return
    if v.flags.writeable:
        v = v.copy()  # its own, read-only: a caller's later change cannot reach it
        v.flags.writeable = False
    known = _known
    if len(known) >= MAX_ENTRIES and id(a) not in known:
        del known[next(iter(known))]  # the oldest entry (dicts keep insertion order)
    known[id(a)] = (a, v)


def follow(increments: dict, inputs, outputs, pending: bool = False) -> None:
    """Record the value of each of an op's `outputs` that is one of its `inputs` plus a constant (its primitive's
    `increments`), where the host knows that input's value. `inputs`: the op's input arrays (or pending values);
    `outputs`: its output arrays, or with `pending` the lazy window's values for them (see `arrived`)."""
    for k, (j, c) in increments.items():
        v = value(inputs[j])
        out = outputs[k]
        if v is None or tuple(out.shape) != v.shape or out.dtype != v.dtype:
            continue
        new = np.add(v, np.asarray(c, v.dtype))  # in the input's dtype: it wraps as the device's integers do
        new.flags.writeable = False
        if not pending:
            remember(out, new)
            continue
        if len(PENDING) >= MAX_ENTRIES:
            del PENDING[next(iter(PENDING))]
        PENDING[id(out)] = (weakref.ref(out), new)


def arrived() -> None:
    """The lazy window ran: the values recorded for the pending values it computed become their arrays' (a pending
    value holds its array in `array`). Called only while `PENDING` holds something: an entry or two."""
    for key, (ref, v) in list(PENDING.items()):
        p = ref()
        if p is None:
            del PENDING[key]
        elif p.array is not None:
            del PENDING[key]
            remember(p.array, v)


def forget() -> None:
    """Drop every recorded value (tests)."""
    _known.clear()
    PENDING.clear()


__all__ = ["MAX_ELEMENTS", "MAX_ENTRIES", "PENDING", "arrived", "follow", "forget", "remember", "value"]
