"""`kiln run SCRIPT [ARGS...]`: run an unmodified MindSpore script on Kiln."""

from __future__ import annotations

import os
import runpy
import sys

from kiln.cli import alias


def run_script(script: str, args: list[str]) -> None:
    """Run `script` as `__main__` with `sys.argv = [script, *args]` and `mindspore` resolved to Kiln.

    Args:
        script: path of a Python file.
        args: the script's own command-line arguments.

    Raises:
        FileNotFoundError: `script` does not exist.
    """
    if not os.path.isfile(script):
        raise FileNotFoundError(f"kiln run: no such script: '{script}'")
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
