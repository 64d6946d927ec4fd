"""Programs specialised on the branch a Tensor `if` takes, when its two branches give values of different shapes.

One compiled program cannot give a Tensor whose shape depends on a run-time value, so such an `if` is not
joined: the program is compiled assuming one branch (a *specialisation*) and checks that assumption with a
`BranchGuard` equation, a value check on the condition. A run whose guard fails leaves every Parameter and the
random key as they were (the checked-program rule of `build`), and the call runs again with the other branch
assumed: one executable per combination of such `if`s that calls actually take, each an ordinary program with
an ordinary gradient.

Site keys name an `if` in one trace: (file, line, column, how many times this trace reached it before).
"""

from __future__ import annotations

import numpy as np

from kiln._backend import jnp
from kiln._compiler.errors import GraphCompileError
from kiln._core.primitive import Bounds, PrimitiveDef

SITES: list = []  # the `site` attribute of a BranchGuard equation indexes this list: the site key
SHAPES: dict = {}  # site key -> (file:line of the if that could not join, its true and false branches' values)


class ShapeJoinError(TypeError):
    """The branches of a Tensor `if` give Tensors of different shapes: no one program joins them.

    `site` is the `if` a retrace should specialise (the outermost Tensor `if` around the failure, when it can
    be specialised), else None, and then this is the TypeError the user sees.
    """

    def __init__(self, text: str, found: tuple = ("?", "?", "?"), site=None) -> None:
        super().__init__(text)
        self.found, self.site = found, site  # found: (file:line of the if, true branch's value, false branch's)

    def with_text(self, text: str) -> ShapeJoinError:
        """The same failure with another message (the interpreter adds the user's line to it)."""
        return ShapeJoinError(text, self.found, self.site)


class BranchGuardFailed(Exception):  # noqa: N818  (control flow of the compile cache, not an error the user sees)
    """A run assumed the other branch of the `if` at `site`: nothing it computed was applied."""

    def __init__(self, site) -> None:
        super().__init__("a specialised program's branch guard failed")
        self.site = site


def site_key(loc, visits: int) -> tuple:
    """The key of the `visits`-th arrival (from 0) of one trace at the `if` written at `loc`."""
    return (loc.file, loc.line, loc.col, visits) if loc is not None else ("?", 0, 0, visits)


def register(site: tuple) -> int:
    """The `site` attribute of a BranchGuard equation for `site`."""
    SITES.append(site)
    return len(SITES) - 1


def _taken_as_assumed(pred, xp=jnp, site: int = 0, assumed: bool = True):
    return xp.asarray(pred) == assumed, xp.asarray(np.array([site], np.int64))


def _message(detail, site: int = 0, assumed: bool = True) -> str:
    return f"the if at {describe(SITES[site])} took the branch its program did not assume"


guard_p = PrimitiveDef(
    "BranchGuard",
    lambda pred, site, assumed: pred,
    attrs={"site": 0, "assumed": True},
    nondiff=(0,),
    effect="raise",  # never removed as dead code: its effect is the check
    bounds=Bounds(_taken_as_assumed, _message, RuntimeError),
)


def describe(site: tuple) -> str:
    """`file:line` of a site key."""
    return f"{site[0]}:{site[1]}"


def refused(sites, why: str) -> GraphCompileError:
    """The error for a program that cannot be specialised on the branches at `sites` (site keys)."""
    found = dict.fromkeys(SHAPES.get(site, (describe(site), "?", "?")) for site in sites)
    lines = [
        f"The Tensor if at {at} has branches giving values of different shapes (true branch: {then}; "
        f"false branch: {other})."
        for at, then, other in found
    ]
    lines.append(
        f"Graph mode compiles such a program once per branch taken and runs it again when a call takes the "
        f"other branch, but {why}. Make both branches give the same shape (e.g. pad or mask), or run it in "
        f"PyNative mode."
    )
    return GraphCompileError("\n".join(lines))


def respecialised(plan: tuple, failed) -> tuple:
    """The plan to run after `plan` (the (site, assumed branch) pairs of a program, in program order) failed
    its guard at `failed`: the same assumptions before it, the other branch there (later ones are found by
    tracing)."""
    sites = [s for s, _ in plan]
    i = sites.index(failed)
    return (*plan[:i], (failed, not plan[i][1]))


__all__ = [
    "SHAPES",
    "SITES",
    "BranchGuardFailed",
    "ShapeJoinError",
    "describe",
    "guard_p",
    "refused",
    "register",
    "respecialised",
    "site_key",
]
