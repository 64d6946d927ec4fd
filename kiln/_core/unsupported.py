"""What Kiln takes from MindSpore's API but does not act on: arguments refused or warned about once, and names that
import but raise NotImplementedError when used (`unavailable`)."""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

_warned: set[tuple] = set()  # what has been warned about once (`warn_once` keys and (where, name) pairs)

# Why a random op's `generator` / `seed` has no effect: every draw takes the next key of the one global state.
GLOBAL_STREAM = "draws come from Kiln's global generator (kiln.set_seed, kiln.default_generator)"


def _is_default(value: Any, default: Any) -> bool:
    if value is default:
        return True
    if isinstance(value, (bool, int, float, str, tuple, dict)) and type(value) is type(default):
        return value == default
    return False


def refuse_argument(where: str, name: str, value: Any, default: Any = None, *, reason: str) -> None:
    """Raise NotImplementedError when a caller sets `name` to anything but its default.

    For arguments whose value would change the result and that Kiln does not implement.

    Args:
        where: the public function or class, as the user wrote it (`"ops.max"`).
        name: the parameter.
        value: what the caller passed.
        default: the value Kiln does implement.
        reason: what Kiln does instead, or why it cannot.
    """
    if not _is_default(value, default):
        raise NotImplementedError(f"{where}: {name}={value!r} is not supported by Kiln ({reason}).")


def ignore_argument(where: str, name: str, value: Any, default: Any = None, *, reason: str) -> None:
    """Warn once per (where, name) that a caller set an argument that has no effect in Kiln.

    For arguments that steer something Kiln does not have (a device stream, a profiler option) and whose
    absence leaves every computed value as it is.

    Args:
        where: the public function or class, as the user wrote it (`"Stream"`).
        name: the parameter.
        value: what the caller passed.
        default: the value that needs no warning.
        reason: what Kiln does instead.
    """
    if _is_default(value, default) or (where, name) in _warned:
        return
    _warned.add((where, name))
    shown = ", ".join(sorted(value)) if isinstance(value, dict) else repr(value)
    warnings.warn(f"{where}: {name}={shown} has no effect in Kiln ({reason}).", UserWarning, stacklevel=3)


def warn_once(key: tuple, message: str, stacklevel: int = 2) -> None:
    """Warn `message` (a UserWarning) the first time this process meets `key`; later calls with it say nothing.

    Args:
        key: what the warning is about, led by a tag naming the kind (`("strategy unused", reason)`).
        message: the warning's text.
        stacklevel: as `warnings.warn`'s, counted from the caller of `warn_once`.
    """
    if key not in _warned:
        _warned.add(key)
        warnings.warn(message, UserWarning, stacklevel=stacklevel + 1)


def ignored(name: str, reason: str) -> Callable[..., Any]:
    """A stand-in for MindSpore's setting function `name` that accepts any arguments, does nothing, and warns once.

    For settings that steer something Kiln does not have (an Ascend compiler option, a cuDNN algorithm choice that
    XLA makes itself) and whose absence leaves every computed value as it is.

    Args:
        name: the name as MindSpore spells it (`"device_context.gpu.op_tuning.conv_fprop_algo"`).
        reason: what Kiln does instead.

    Returns:
        A function that warns once (per name) and returns None.
    """

    def stand_in(*args: Any, **kwargs: Any) -> None:
        if (name, "") not in _warned:
            _warned.add((name, ""))
            warnings.warn(f"{name} has no effect in Kiln ({reason}).", UserWarning, stacklevel=2)

    stand_in.__name__ = stand_in.__qualname__ = name.rsplit(".", 1)[-1]
    stand_in.__doc__ = f"Has no effect in Kiln ({reason}); warns once when called."
    return stand_in


def unavailable(name: str, reason: str) -> Callable[..., Any]:
    """A stand-in for MindSpore's function `name` that imports, and raises NotImplementedError when called.

    For names programs import (so that the rest of a script runs) whose work Kiln cannot do meaningfully. The
    reason is kept as `__kiln_unavailable__`, which tools/zoo_imports counts apart from implemented names.

    Args:
        name: the name as MindSpore spells it (`"nn.optim.thor"`).
        reason: why Kiln does not implement it, and what to use instead.

    Returns:
        A function that raises NotImplementedError naming `name` and `reason`.
    """

    def stand_in(*args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError(f"{name} is not available in Kiln: {reason}.")

    stand_in.__name__ = stand_in.__qualname__ = name.rsplit(".", 1)[-1]
    stand_in.__doc__ = f"Not available in Kiln ({reason}); raises NotImplementedError when called."
    stand_in.__kiln_unavailable__ = reason
    return stand_in
