"""Run a model-zoo training script of tests/zoo (under `kiln run` or another Python) and read what it prints.

The scripts print one `name: v1 v2 ...` line per measured sequence (`losses: ...`, `state: ...`, or with the
mode first, `GRAPH_MODE losses: ...`); only the standard library is used here, so that the golden scripts
can import it under MindSpore's Python.
"""

import json
import os
import subprocess
import sys

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SEQUENCES = ("losses", "state")


def parse(stdout: str) -> dict[str, list[float]]:
    """The `name: numbers` lines of `stdout` whose name ends in one of SEQUENCES, as {name: [floats]}."""
    printed = {}
    for line in stdout.splitlines():
        key, _, values = line.partition(": ")
        if key.split(" ")[-1] in SEQUENCES:
            printed[key] = [float(v) for v in values.split()]
    return printed


def run_script(script: str, *args: str, python: str | None = None, timeout: float = 600) -> dict[str, list[float]]:
    """Run `script` (a path) with `args` from its own folder and return what it printed (see `parse`).

    Args:
        script: the MindSpore training script.
        args: its command-line arguments.
        python: the interpreter that runs it as a plain script (MindSpore's); None runs it with this interpreter
            under `kiln run`, importing the Kiln of this checkout.
        timeout: seconds before the run is abandoned.

    Returns:
        {name: values}; an AssertionError with the script's output when it fails or prints no losses.
    """
    env = dict(os.environ, KILN_PROGRESS="0")
    if python is None:
        env["PYTHONPATH"] = REPO + os.pathsep + os.environ.get("PYTHONPATH", "")
        cmd = [sys.executable, "-m", "kiln", "run", script, *args]
    else:
        cmd = [python, script, *args]
    proc = subprocess.run(cmd, cwd=os.path.dirname(script), env=env, capture_output=True, text=True, timeout=timeout)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    printed = parse(proc.stdout)
    assert any(key.endswith("losses") for key in printed), proc.stdout
    return printed


def write_goldens(script: str, golden: str, *args: str, version: str) -> None:
    """Run `script` (a path) with `args` once per mode under this interpreter (MindSpore's) and write what it
    printed in both modes to the JSON file `golden`, with MindSpore's `version`: the golden scripts' one job.

    Each mode runs in a process of its own, as a MindSpore user runs it (MindSpore's mode is best set once per
    process).
    """
    printed = {}
    for mode in ("PYNATIVE_MODE", "GRAPH_MODE"):
        printed.update(run_script(script, *args, mode, python=sys.executable))
    with open(golden, "w") as f:
        json.dump({"mindspore": version, "printed": printed}, f, indent=1)


def read_goldens(golden: str) -> dict[str, list[float]]:
    """What MindSpore printed, as `write_goldens` kept it in the JSON file `golden`: {name: values}."""
    with open(golden) as f:
        return json.load(f)["printed"]
