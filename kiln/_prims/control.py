"""A `raise` inside a compiled graph: it fails the call only when the branch holding it runs.

Graph mode records the branches of a Tensor `if` as nested graphs, so a `raise` in one of them cannot
happen while compiling: it becomes a `Raise` equation, a value check (`Bounds`) that always fails.
The compiled program carries the failure out as its error code, and the call raises the user's
exception, as PyNative would have at that line.
"""

from __future__ import annotations

import numpy as np

from kiln._backend import jnp
from kiln._core.primitive import Bounds, PrimitiveDef

RAISED: list[BaseException] = []  # the `site` attribute of a Raise equation indexes this list
KEPT: list[tuple] = []  # per site: the state keys whose values (the equation's inputs after the token) it keeps


def register(exc: BaseException, kept: tuple = ()) -> int:
    """The site number of a compiled `raise exc`.

    Args:
        exc: the exception the call raises when the equation runs.
        kept: the state keys (Parameters, the random key) written before the raise: their values at the raise,
            the equation's inputs after its token, are what the call leaves in them (as PyNative does).

    Returns:
        The site number (the equation's `site` attribute).
    """
    RAISED.append(exc)
    KEPT.append(tuple(kept))
    return len(RAISED) - 1


def _always_fails(token, *kept_values, xp=jnp, site: int = 0):
    return xp.asarray(False), xp.asarray(np.array([site], np.int64))


def _message(detail, site: int = 0) -> str:
    return str(RAISED[site])


raise_p = PrimitiveDef(
    "Raise",
    lambda token, *kept_values, site: token,
    attrs={"site": 0},
    nondiff=(0,),
    effect="raise",  # never removed as dead code: its effect is the failure
    bounds=Bounds(_always_fails, _message, RuntimeError),
)


class RaisedInGraph(Exception):  # noqa: N818  (control flow of the compiler, not an error the user sees)
    """Every path from here raises, at run time: the Raise equations are recorded in the current graph.

    The enclosing Tensor branch catches it (that branch's outcome is "raises"); a whole program that
    always raises compiles to one whose call raises.
    """

    _kiln_annotated = True  # passes through the interpreter's error annotation unchanged

    def __init__(self, exc: BaseException | None, loc) -> None:
        super().__init__("raise under a Tensor condition")
        self.exc, self.loc = exc, loc


def raised(site: int) -> BaseException:
    """The exception of a failed Raise equation (a fresh copy of the user's, same type and arguments)."""
    exc = RAISED[site]
    try:
        return type(exc)(*exc.args)
    except Exception:  # noqa: BLE001  (an exception class with an unusual constructor)
        return exc
