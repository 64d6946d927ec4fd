"""Run a model-zoo training script of tests/zoo (under `kiln run` or another Python) and read what it prints.

The scripts print one `name: v1 v2 ...` line per measured sequence (`losses: ...`, `state: ...`, or with the
mode first, `GRAPH_MODE losses: ...`); only the standard library and NumPy are used here, so that the golden
scripts can import it under MindSpore's Python. A zoo test is `run_driver` and `assert_close` (or, for the common
case, `assert_modes_match`).
"""

import json
import os
import subprocess
import sys

import numpy as np

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SEQUENCES = ("losses", "state")
MODES = ("PYNATIVE_MODE", "GRAPH_MODE")


def parse(stdout: str) -> dict[str, list[float]]:
    """The `name: numbers` lines of `stdout` whose name ends in one of SEQUENCES, as {name: [floats]}."""
    printed = {}
    for line in stdout.splitlines():
        key, _, values = line.partition(": ")
        if key.split(" ")[-1] in SEQUENCES:
            printed[key] = [float(v) for v in values.split()]
    return printed


def run_script(
    script: str, *args: str, python: str | None = None, timeout: float = 600, env: dict[str, str] | None = None
) -> dict[str, list[float]]:
    """Run `script` (a path) with `args` from its own folder and return what it printed (see `parse`).

    Args:
        script: the MindSpore training script.
        args: its command-line arguments.
        python: the interpreter that runs it as a plain script (MindSpore's); None runs it with this interpreter
            under `kiln run`, importing the Kiln of this checkout.
        timeout: seconds before the run is abandoned.
        env: variables set for the run (a test pinning Kiln's compile tier, `KILN_TIERED`, whose numbers it holds).

    Returns:
        {name: values}; an AssertionError with the script's output when it fails or prints no losses.
    """
    env = dict(os.environ, KILN_PROGRESS="0", **(env or {}))
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


def write_goldens(script: str, golden: str, *args: str, version: str, modes: tuple[str, ...] = MODES) -> None:
    """Run `script` (a path) with `args` once per mode under this interpreter (MindSpore's) and write what it
    printed in `modes` (both, unless MindSpore fails in one) to the JSON file `golden`, with MindSpore's `version`:
    the golden scripts' one job.

    Each mode runs in a process of its own, as a MindSpore user runs it (MindSpore's mode is best set once per
    process).
    """
    printed = {}
    for mode in modes:
        printed.update(run_script(script, *args, mode, python=sys.executable))
    with open(golden, "w") as f:
        json.dump({"mindspore": version, "printed": printed}, f, indent=1)


def read_goldens(golden: str) -> dict[str, list[float]]:
    """What MindSpore printed, as `write_goldens` kept it in the JSON file `golden`: {name: values}."""
    with open(golden) as f:
        return json.load(f)["printed"]


def run_driver(
    test_file: str,
    *args: str,
    script: str | None = None,
    goldens: str | None = None,
    timeout: float = 600,
    env: dict[str, str] | None = None,
) -> tuple[dict[str, list[float]], dict[str, list[float]]]:
    """Run the training script beside `test_file` under `kiln run` and read MindSpore's goldens for it.

    Args:
        test_file: the test's `__file__`; its folder NET holds `train_NET.py` and `NET_goldens_mindspore.json`.
        args: the script's command-line arguments (usually the modes, `*MODES`).
        script: another script of that folder, by file name.
        goldens: another goldens file of that folder, by file name.
        timeout: seconds before the run is abandoned.
        env: variables set for Kiln's run (see `run_script`).

    Returns:
        (what Kiln printed, what MindSpore printed), each {name: values} (see `parse`).
    """
    here = os.path.dirname(os.path.abspath(test_file))
    net = os.path.basename(here)
    got = run_script(os.path.join(here, script or f"train_{net}.py"), *args, timeout=timeout, env=env)
    return got, read_goldens(os.path.join(here, goldens or f"{net}_goldens_mindspore.json"))


def assert_close(
    got: dict[str, list[float]],
    want: dict[str, list[float]],
    key: str,
    *,
    rtol: float,
    atol: float = 0.0,
    golden: str | None = None,
    length: int | None = None,
    items: slice | list[int] | np.ndarray = slice(None),
) -> None:
    """Assert that Kiln's `got[key]` has as many values as MindSpore's `want[golden or key]` (and `length`, when
    given) and that each of their `items` (default: all) is within `atol + rtol * |golden value|`.

    `atol` may be an array, one tolerance per compared item. A failure names the keys and the values off.
    """
    golden = golden or key
    where = key if golden == key else f"Kiln {key} against MindSpore {golden}"
    if length is not None:
        assert len(want[golden]) == length, (where, len(want[golden]))
    assert len(got[key]) == len(want[golden]), (where, len(got[key]), len(want[golden]))
    index = np.arange(len(want[golden]))[items]
    kiln, mindspore = np.asarray(got[key], np.float64)[index], np.asarray(want[golden], np.float64)[index]
    off = np.abs(kiln - mindspore)
    bound = np.broadcast_to(atol + rtol * np.abs(mindspore), off.shape)
    bad = np.flatnonzero(~(off <= bound))  # NaN is off
    assert bad.size == 0, f"{where}: {bad.size} of {index.size} values off: " + ", ".join(
        f"[{index[i]}] {float(kiln[i])!r} against {float(mindspore[i])!r} (off {off[i]:.3g}, allowed {bound[i]:.3g})"
        for i in bad[:8]
    )


def assert_modes_match(
    got: dict[str, list[float]],
    want: dict[str, list[float]],
    *,
    steps: int,
    losses: tuple[float, float],
    state: tuple[float, float],
    modes: tuple[str, ...] = MODES,
) -> None:
    """Assert, in each of `modes`, that Kiln's `steps` losses and its state sums are MindSpore's in the same mode
    within the (rtol, atol) of `losses` and `state`."""
    for mode in modes:
        assert_close(got, want, f"{mode} losses", rtol=losses[0], atol=losses[1], length=steps)
        assert_close(got, want, f"{mode} state", rtol=state[0], atol=state[1])


def assert_each_mode_held(
    got: dict[str, list[float]],
    want: dict[str, list[float]],
    *,
    steps: int,
    spread: tuple | dict[str, tuple],
    kind: str = "",
) -> None:
    """Assert that each of Kiln's modes gives each MindSpore mode's `steps` losses and state sums (Kiln's two modes
    give one answer; MindSpore's two differ). `spread`: (losses rtol, state atol), or one such pair per MindSpore mode.
    `kind` names one of several runs the driver prints ("{mode} {kind} losses")."""
    name = f" {kind}" if kind else ""
    for mode in MODES:
        loss_rtol, state_atol = spread[mode] if isinstance(spread, dict) else spread
        for kiln_mode in MODES:
            losses, state = f"{mode}{name} losses", f"{mode}{name} state"
            assert_close(got, want, f"{kiln_mode}{name} losses", golden=losses, rtol=loss_rtol, length=steps)
            assert_close(got, want, f"{kiln_mode}{name} state", golden=state, rtol=0, atol=state_atol)
