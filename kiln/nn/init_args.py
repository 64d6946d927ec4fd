"""Decorators that record the arguments a Cell or an optimizer was constructed with.

MindSpore's `cell_attr_register` (in `mindspore._extends`) and `opt_init_args_register` (in
`mindspore.nn.optim.optimizer`): zoo Cells and optimizers wrap their `__init__` with them so that the arguments
can be read back (`cell.cell_init_args`, `optimizer.init_args`) to describe or rebuild the object.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from typing import Any

__all__ = ["cell_attr_register", "opt_init_args_register"]


def _bound_arguments(fn: Callable, self: Any, args: tuple, kwargs: dict) -> dict[str, Any]:
    """`fn`'s arguments by name (defaults filled in), `self` left out."""
    bound = inspect.signature(fn).bind(self, *args, **kwargs)
    bound.apply_defaults()
    arguments = dict(bound.arguments)
    arguments.pop(next(iter(inspect.signature(fn).parameters)))
    return arguments


def cell_attr_register(fn: Callable | None = None, attrs: list[str] | None = None) -> Callable:
    """Wrap a Cell's `__init__` to record its arguments as `self.cell_init_args` (a string naming the class).

    Usable bare (`@cell_attr_register`) or with `attrs`, the argument names to record (all by default).

    Args:
        fn: the `__init__` to wrap.
        attrs: the names of the arguments to record.

    Returns:
        The wrapped `__init__` (or the decorator, when called with `attrs` only).
    """

    def decorate(init: Callable) -> Callable:
        @functools.wraps(init)
        def wrapper(self, *args, **kwargs):
            arguments = _bound_arguments(init, self, args, kwargs)
            if attrs is not None:
                arguments = {name: arguments[name] for name in attrs if name in arguments}
            init(self, *args, **kwargs)
            shown = ", ".join(f"{name}={value!r}" for name, value in arguments.items())
            object.__setattr__(self, "cell_init_args", f"{type(self).__name__}({shown})")

        return wrapper

    if fn is None:
        return decorate
    if isinstance(fn, list):  # `@cell_attr_register(["a", "b"])`
        attrs, fn = fn, None
        return decorate
    return decorate(fn)


def opt_init_args_register(fn: Callable) -> Callable:
    """Wrap an optimizer's `__init__` to record its arguments as `self.init_args` (name -> value).

    Args:
        fn: the `__init__` to wrap.

    Returns:
        The wrapped `__init__`.
    """

    @functools.wraps(fn)
    def wrapper(self, *args, **kwargs):
        arguments = _bound_arguments(fn, self, args, kwargs)
        object.__setattr__(self, "init_args", arguments)
        fn(self, *args, **kwargs)

    return wrapper
