"""The user's Python functions that a compiled program calls on the host (a pyfunc op, graph mode's host steps).

The backend turns an exception raised in such a callback into its own runtime error, which keeps the user's
exception only as text (and logs a page of its own frames). `guarded(fn)` sets the user's exception aside under a
token that the backend's error text carries; `user_error(err)` gives it back, so Kiln raises the user's own
exception (their type, message and the frames of their function) instead of an internal-looking one.
"""

from __future__ import annotations

import itertools
import logging
import re
from collections import OrderedDict
from collections.abc import Callable

import jax
from jax._src import dispatch as _jax_dispatch  # JAX's tokens of ordered host effects (no public name for them)

_HELD: OrderedDict[int, tuple[BaseException, str]] = OrderedDict()  # token -> (the user's exception, what ran fn)
_MAX_HELD = 32  # a failure the backend swallows (a window rerun op by op) leaves its entry: keep only the latest
_TOKENS = itertools.count()
_TOKEN_RE = re.compile(r"\[kiln user callback #(\d+)\]")


class _CallbackRaised(Exception):  # noqa: N818  (a carrier through the backend, never shown to the user)
    """Raised inside the backend in place of the user's exception; its text is the token to find that again."""


def guarded(fn: Callable, what: str, owner: Callable | None = None) -> Callable:
    """`fn`, raising a token in place of any exception of its own (`user_error` finds that exception again).

    `what`: how Kiln ran it, for the note added to the exception (e.g. "the 'PyFunc' op"); `owner`: the user's
    function that `fn` calls (`fn` itself by default), whose frames the exception keeps."""
    owner = fn if owner is None else owner

    def call(*args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except Exception as err:  # noqa: BLE001  (the user's; given back by user_error)
            token = next(_TOKENS)
            _HELD[token] = (err.with_traceback(_from_owner(err.__traceback__, owner)), _note(owner, err, what))
            while len(_HELD) > _MAX_HELD:
                _HELD.popitem(last=False)
            raise _CallbackRaised(f"[kiln user callback #{token}]") from None

    return call


def held(err: BaseException) -> BaseException | None:
    """The exception `user_error(err)` would give back, left held."""
    m = _TOKEN_RE.search(str(err))
    entry = _HELD.get(int(m.group(1))) if m else None
    return None if entry is None else entry[0]


def user_error(err: BaseException) -> BaseException | None:
    """The user's exception that a guarded callback raised, when `err` is the backend's error reporting it."""
    m = _TOKEN_RE.search(str(err))
    held = _HELD.pop(int(m.group(1)), None) if m else None
    if held is None:
        return None
    exc, note = held
    if note not in getattr(exc, "__notes__", ()):
        exc.add_note(note)
    exc.__cause__, exc.__suppress_context__ = None, True
    return exc


def settle(result=None) -> None:
    """Wait for `result` and for the host callbacks of the programs launched so far, raising a failed one's error
    here, where the caller turns it into the user's.

    On a GPU a program runs after its launch returns: a host step's failure (the user's exception, a host step's
    new result shape) surfaced at a later read, as the backend's error. And JAX hands the last token of each ordered
    effect to the next program with one: a failed token failed that program and every later one with a host step
    (a GPU process failed all its prints after one). A failed token is dropped here. On the CPU a callback runs
    during its launch, so this finds everything done."""
    leaves = jax.tree_util.tree_leaves(result)
    if any(isinstance(x, jax.core.Tracer) for x in leaves):
        return  # called inside another trace: nothing has run yet
    try:
        if leaves:
            jax.block_until_ready(leaves)
        jax.effects_barrier()
    except Exception:
        tokens = getattr(_jax_dispatch, "runtime_tokens", None)
        if tokens is not None:
            tokens.clear()
        raise


def _from_owner(tb, owner: Callable):
    """The traceback from the owner's frame on (Kiln's wrapper frames before it say nothing to the user)."""
    code, first = getattr(owner, "__code__", None), tb.tb_next  # tb: this module's `call`
    t = first
    while t is not None and t.tb_frame.f_code is not code:
        t = t.tb_next
    return first if t is None else t


def _note(owner: Callable, err: BaseException, what: str) -> str:
    name = getattr(owner, "__qualname__", None) or type(owner).__name__
    code = getattr(owner, "__code__", None)
    place, tb = "", err.__traceback__
    while tb is not None:  # the line of the owner that raised, or called what raised
        if tb.tb_frame.f_code is code:
            place = f" ({code.co_filename}:{tb.tb_lineno})"
        tb = tb.tb_next
    if not place:  # Kiln's check of what the function returned
        return f"(while Kiln ran your function {name} on the host as {what})"
    return f"(raised in your function {name}{place}, which Kiln ran on the host as {what})"


class _QuietCallbackFailures(logging.Filter):
    """The backend logs every failed callback with its own frames; a user's exception is raised, not logged."""

    def filter(self, record: logging.LogRecord) -> bool:
        return not (record.exc_info and record.exc_info[0] is _CallbackRaised)


logging.getLogger("jax._src.callback").addFilter(_QuietCallbackFailures())
