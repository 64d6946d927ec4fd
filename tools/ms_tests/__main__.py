"""MindSpore's own tests on Kiln: `python -m tools.ms_tests {extract,run,report,failures} ...` (see README.md)."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from tools.ms_tests import report, runner

DEFAULT_MS_PYTHON = "/tmp/msvenv/bin/python"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m tools.ms_tests", description=__doc__)
    sub = parser.add_subparsers(dest="cmd", required=True)

    p = sub.add_parser("extract", help="write a MindSpore mirror's tests/ tree into a folder")
    p.add_argument("git_dir", help="bare git directory of mindspore-ai/mindspore (e.g. from a mirror)")
    p.add_argument("dest", type=Path)
    p.add_argument("--ref", default="HEAD")

    p = sub.add_parser("run", help="run test files on MindSpore (once, cached) and on Kiln, then print the table")
    p.add_argument("paths", nargs="+", help="test files or folders, relative to --src (e.g. tests/st/ops/cpu)")
    p.add_argument("--src", type=Path, required=True, help="checkout holding MindSpore's tests/ folder")
    p.add_argument("--side", choices=["kiln", "mindspore", "both"], default="both")
    p.add_argument("--ms-python", default=DEFAULT_MS_PYTHON, help="python of a MindSpore 2.10 CPU virtualenv")
    p.add_argument("-j", "--jobs", type=int, default=1, help="files run at once")
    p.add_argument("--test-timeout", type=float, default=60.0, help="seconds per test (setup, call, teardown)")
    p.add_argument("--file-timeout", type=float, default=600.0, help="seconds per test file")
    p.add_argument("--rerun", action="store_true", help="run MindSpore's side again for files already cached")
    p.add_argument("--every", type=int, default=1, help="a fixed sample: one CPU test file in N of each folder")
    p.add_argument("--kiln-root", type=Path, default=None, help="import Kiln from this source tree instead")
    p.add_argument("--resume", action="store_true", help="Kiln: skip files already in its results")
    _report_args(p)

    p = sub.add_parser("report", help="print the table from the cached results")
    p.add_argument("paths", nargs="*", help="only files under these paths")
    _report_args(p)

    p = sub.add_parser("failures", help="list MindSpore-passing tests that fail on Kiln, with their cause")
    p.add_argument("paths", nargs="*", help="only files under these paths")
    p.add_argument("--grep", default="", help="only causes containing this text")
    _results_arg(p)

    args = parser.parse_args(argv)
    if args.cmd == "extract":
        runner.extract(args.git_dir, args.dest, args.ref)
        return
    if args.cmd == "run":
        sides = ["mindspore", "kiln"] if args.side == "both" else [args.side]
        runner.run(args.src, args.paths, sides, args.ms_python, args.jobs, args.test_timeout, args.file_timeout,
                   args.rerun, args.every, args.kiln_root, args.kiln_results, args.resume)  # fmt: skip
    ms, kiln = _load(getattr(args, "paths", []), args.kiln_results)
    if args.cmd == "failures":
        _, failures = report.kiln_outcomes(ms["files"], kiln["files"])
        for rel, items in sorted(failures.items()):
            for name, cause in items:
                if args.grep in cause:
                    print(f"{rel}::{name}  {cause}")
        return
    print(report.format_table(ms, kiln, args.depth, args.top, args.top_all))
    if args.json:
        rows, _ = report.kiln_outcomes(ms["files"], kiln["files"])
        groups = report.group(rows, args.depth)
        for g in groups.values():
            g["causes"] = g["causes"].most_common(args.top)
        args.json.write_text(json.dumps(groups, indent=1) + "\n")


def _results_arg(p: argparse.ArgumentParser) -> None:
    p.add_argument("--kiln-results", type=Path, default=None, help="Kiln's results JSON (default results/kiln.json)")


def _report_args(p: argparse.ArgumentParser) -> None:
    _results_arg(p)
    p.add_argument("--depth", type=int, default=None, help="group by the first N path components")
    p.add_argument("--top", type=int, default=3, help="failure causes listed per directory")
    p.add_argument("--top-all", type=int, default=25, help="failure causes listed over all directories")
    p.add_argument("--json", type=Path, default=None, help="also write the table as JSON")


def _load(paths: list[str], kiln_results: Path | None) -> tuple[dict, dict]:
    ms, kiln = runner.load_results("mindspore"), runner.load_results("kiln", kiln_results)
    if paths:
        prefixes = [p.rstrip("/") for p in paths]

        def keep(rel: str) -> bool:
            return any(rel == p or rel.startswith(p + "/") for p in prefixes)

        ms = {**ms, "files": {k: v for k, v in ms["files"].items() if keep(k)}}
        kiln = {**kiln, "files": {k: v for k, v in kiln["files"].items() if keep(k)}}
    return ms, kiln


if __name__ == "__main__":
    main()
