"""`kiln run SCRIPT [ARGS...]`: run an unmodified MindSpore script on Kiln.

`kiln run` reports only its own failures (`RunError`: the script cannot be found or read). Whatever
the script raises goes through as it would under `python SCRIPT`: the traceback starts at the
script's own frames (`user_traceback`), and the exit status is 1 (or the script's `SystemExit` code).
"""

from __future__ import annotations

import os
import runpy
import sys
from types import TracebackType

from kiln.cli import alias

_RUNNER_MODULES = frozenset({"runpy", "kiln.cli.run", "kiln.cli.main"})


class RunError(Exception):
    """A failure of `kiln run` itself (not of the script it runs): one line, exit status 2."""


def run_script(script: str, args: list[str]) -> None:
    """Run `script` as `__main__` with `sys.argv = [script, *args]` and `mindspore` resolved to Kiln.

    Args:
        script: path of a Python file.
        args: the script's own command-line arguments.

    Raises:
        RunError: `script` does not exist, is a directory, or cannot be read.
        BaseException: whatever the script raises, unchanged.
    """
    if not os.path.exists(script):
        raise RunError(f"kiln run: no such script: '{script}'")
    if not os.path.isfile(script):
        raise RunError(f"kiln run: '{script}' is not a file")
    if not os.access(script, os.R_OK):
        raise RunError(f"kiln run: cannot read '{script}' (permission denied)")
    alias.install()
    saved_argv, saved_path0 = sys.argv, sys.path[0] if sys.path else None
    sys.argv = [script, *args]
    # As `python script.py` does: the script's directory comes first on the import path.
    script_dir = os.path.dirname(os.path.abspath(script))
    if sys.path:
        sys.path[0] = script_dir
    else:
        sys.path.append(script_dir)
    try:
        runpy.run_path(script, run_name="__main__")
    finally:
        sys.argv = saved_argv
        if saved_path0 is not None:
            sys.path[0] = saved_path0


def user_traceback(tb: TracebackType | None) -> TracebackType | None:
    """`tb` without its leading frames in the `kiln` command and `runpy`: it starts in the user's script.

    None when no frame is left (a syntax error in the script itself), as Python shows it.
    """
    while tb is not None and tb.tb_frame.f_globals.get("__name__") in _RUNNER_MODULES:
        tb = tb.tb_next
    return tb


def run_command(script: str, args: list[str]) -> int:
    """`kiln run`: exit status 2 with one line for its own failures; the script's errors as Python shows them.

    Args:
        script: path of the Python script.
        args: its arguments.

    Returns:
        The exit status.
    """
    try:
        run_script(script, args)
    except RunError as e:
        print(e, file=sys.stderr)
        return 2
    except SystemExit:
        raise  # the script's own exit status, as under `python SCRIPT`
    except BaseException as e:  # noqa: BLE001  (the script's exception: shown as Python shows an uncaught one)
        tb = user_traceback(e.__traceback__)
        sys.stdout.flush()
        sys.excepthook(type(e), e.with_traceback(tb), tb)
        return 130 if isinstance(e, KeyboardInterrupt) else 1
    return 0
