"""`python -m tools.ops_sweep {run,graph}`: where Kiln's ops differ from MindSpore 2.10's, or its GRAPH_MODE from its
PyNative, on standard inputs (README.md)."""

from __future__ import annotations

import argparse
import os
import pickle
import subprocess
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
REPO_ROOT = HERE.parent.parent
CALLS = HERE / "calls.py"
DEFAULT_MS_PYTHON = "/work/msvenv/bin/python"
KINDS = ("ops", "methods", "primitives", "numpy")
RTOL, ATOL = 1e-4, 1e-5


def _sweep(command: list[str], kind: str, path: Path, env: dict | None = None, cwd: Path | None = None) -> None:
    """Run `calls.py kind path` until it finishes, skipping each name it crashed in (at most 100 crashes)."""
    for _ in range(100):
        done = subprocess.run([*command, str(CALLS), kind, str(path)], env=env, cwd=cwd, capture_output=True, text=True)
        current = Path(f"{path}.current")
        if done.returncode == 0 and not current.exists():
            return
        name = current.read_text() if current.exists() else "?"
        print(f"  {kind}: crashed in {name} (rc {done.returncode}); skipping it", file=sys.stderr)
        with open(f"{path}.skip", "a") as f:
            f.write(name + "\n")
    raise SystemExit(f"{kind}: gave up after 100 crashes")


def _kiln(kiln_root: Path) -> tuple[list[str], dict]:
    env = {**os.environ, "PYTHONPATH": str(kiln_root)}
    return [sys.executable, "-m", "kiln", "run"], env


def difference(ms, kiln) -> str | None:
    """Why two stored results differ, or None."""
    if ms[0] != kiln[0]:
        return f"{ms[0]} vs {kiln[0]}"
    if ms[0] == "T":
        if ms[1].lower() != kiln[1].lower():
            return f"dtype {ms[1]} vs {kiln[1]}"
        if tuple(ms[2]) != tuple(kiln[2]):
            return f"shape {ms[2]} vs {kiln[2]}"
        a, b = np.asarray(ms[3]), np.asarray(kiln[3])
        if a.dtype.kind in "fc" or b.dtype.kind in "fc":
            if not np.allclose(a, b, rtol=RTOL, atol=ATOL, equal_nan=True):
                with np.errstate(invalid="ignore"):
                    return f"values, largest difference {np.nanmax(np.abs(a.astype(complex) - b.astype(complex))):.3g}"
        elif not np.array_equal(a, b):
            return "values"
    elif ms[0] == "L":
        if len(ms[1]) != len(kiln[1]):
            return f"{len(ms[1])} results vs {len(kiln[1])}"
        for i, (x, y) in enumerate(zip(ms[1], kiln[1], strict=True)):
            why = difference(x, y)
            if why:
                return f"[{i}] {why}"
    elif ms[0] == "V" and ms[1] != kiln[1]:
        try:
            if np.allclose(complex(ms[1]), complex(kiln[1]), rtol=RTOL, atol=ATOL):
                return None
        except (TypeError, ValueError):
            pass
        return f"{ms[1]!r} vs {kiln[1]!r}"
    return None


def compare(ms_results: dict, kiln_results: dict) -> dict[str, list[str]]:
    report = {"missing in Kiln": [], "Kiln raises": [], "differ": []}
    for name, by_input in sorted(ms_results.items()):
        ran = {k: v for k, v in by_input.items() if v[0] != "E"}
        if not ran:
            continue
        if name not in kiln_results or not kiln_results[name] and ran:
            report["missing in Kiln"].append(name)
            continue
        for key, ms in ran.items():
            kiln = kiln_results[name].get(key)
            if kiln is None:
                continue
            if kiln[0] == "E":
                report["Kiln raises"].append(f"{name}[{key}]: {kiln[1]}: {kiln[2][:120]}")
            elif why := difference(ms, kiln):
                report["differ"].append(f"{name}[{key}]: {why}")
    return report


def graph_report(results: dict) -> dict[str, list[str]]:
    """Where a call's result in `jit` differs from its PyNative result, or `jit` raised."""
    report = {"GRAPH_MODE raises": [], "differ": []}
    for name, by_input in sorted(results.items()):
        for key, (eager, compiled) in by_input.items():
            if compiled[0] == "E":
                report["GRAPH_MODE raises"].append(f"{name}[{key}]: {compiled[1]}: {compiled[2][:120]}")
            elif why := difference(eager, compiled):
                report["differ"].append(f"{name}[{key}]: {why}")
    return report


def _print(title: str, report: dict[str, list[str]]) -> None:
    print(f"== {title}: " + ", ".join(f"{len(v)} {k}" for k, v in report.items()))
    for kind, lines in report.items():
        for line in lines:
            print(f"  {kind}: {line}")


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m tools.ops_sweep", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    run = sub.add_parser("run", help="MindSpore against Kiln")
    run.add_argument("--ms-python", default=DEFAULT_MS_PYTHON)
    graph = sub.add_parser("graph", help="Kiln's GRAPH_MODE (jit) against its PyNative")
    for p in (run, graph):
        p.add_argument("--kinds", default=",".join(KINDS), help=f"comma-separated, of {', '.join(KINDS)}")
        p.add_argument("--out", type=Path, default=Path("/tmp/ops_sweep"), help="where results are kept (resumable)")
        p.add_argument("--kiln-root", type=Path, default=REPO_ROOT)
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    kiln_command, env = _kiln(args.kiln_root)
    for kind in args.kinds.split(","):
        if args.command == "graph":
            path = args.out / f"kiln_graph_{kind}.pkl"
            _sweep(kiln_command, f"graph-{kind}", path, env, args.kiln_root)
            _print(f"{kind}: Kiln GRAPH_MODE against PyNative", graph_report(pickle.load(open(path, "rb"))))
            continue
        ms_path, kiln_path = args.out / f"mindspore_{kind}.pkl", args.out / f"kiln_{kind}.pkl"
        _sweep([args.ms_python], kind, ms_path)
        _sweep(kiln_command, kind, kiln_path, env, args.kiln_root)  # (`-m` puts the working directory first)
        ms_results, kiln_results = (pickle.load(open(p, "rb")) for p in (ms_path, kiln_path))
        _print(f"{kind}: Kiln against MindSpore", compare(ms_results, kiln_results))


if __name__ == "__main__":
    main()
