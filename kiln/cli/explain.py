"""`kiln explain SCRIPT [ARGS...]`: run a script and report what bytecode capture (PIJit) made of it.

For every function run under `jit(capture_mode="bytecode")` (or every `jit` with `--bytecode`): its graphs,
each graph break (reason, file:line, how to avoid it), the guards of each graph, and the recompiles with the
guard that failed.
"""

from __future__ import annotations

import sys

from kiln._compiler import api
from kiln._compiler.frontend.bytecode import all_explanations
from kiln.cli.run import run_command


def run_explain(script: str, args: list[str], force_bytecode: bool = False, out=None) -> int:
    """Run `script` (as `kiln run` does), then print the capture report.

    Args:
        script: path of the Python script.
        args: its arguments.
        force_bytecode: compile every `jit` of the script with capture_mode="bytecode".
        out: where the report goes (default stdout).

    Returns:
        The exit status (the script's failure is reported, then the report still printed).
    """
    out = out or sys.stdout
    old = dict(api.jit.__kwdefaults__)
    if force_bytecode:
        api.jit.__kwdefaults__["capture_mode"] = "bytecode"
    try:
        status = run_command(script, args)
    finally:
        api.jit.__kwdefaults__.clear()
        api.jit.__kwdefaults__.update(old)
    reports = all_explanations()
    out.write(f"\n== kiln explain: {len(reports)} function(s) under bytecode capture ==\n")
    for rep in reports:
        out.write(str(rep) + "\n")
    if not reports:
        out.write("(none: use jit(..., capture_mode='bytecode') or kiln explain --bytecode)\n")
    return status


__all__ = ["run_explain"]
