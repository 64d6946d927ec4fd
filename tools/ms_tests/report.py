"""Per-directory table: MindSpore's passing tests, how many of them pass on Kiln, and why the others fail."""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from pathlib import PurePosixPath


def _base(name: str) -> str:
    return name.split("[", 1)[0]


def _index_by_function(tests: dict[str, list]) -> dict[tuple[str, int], str]:
    """(function, position among its parametrizations) -> test name: matches ids that differ between the sides
    (pytest names a parameter after its value's `__name__` where one side's object has one and the other's not)."""
    count: Counter = Counter()
    index = {}
    for name in tests:
        b = _base(name)
        index[(b, count[b])] = name
        count[b] += 1
    return index


def normalise(error: str) -> str:
    error = re.sub(r"0x[0-9a-fA-F]+", "0x…", error)
    error = re.sub(r" \(/[^()]*\.py\)", "", error)  # "cannot import name 'x' from 'm' (/path/m.py)"
    error = re.sub(r"\s+", " ", error).strip()
    return error[:110] + ("…" if len(error) > 110 else "")


def kiln_outcomes(ms_files: dict, kiln_files: dict) -> tuple[dict, dict]:
    """For each directory: {"ms": n, "kiln": n, "causes": Counter, "private_files": n, "private_tests": n}, and the
    list of (file, test, cause) for every MindSpore-passing test that does not pass on Kiln."""
    rows: dict[str, dict] = defaultdict(
        lambda: {"ms": 0, "kiln": 0, "causes": Counter(), "private_files": 0, "private_tests": 0, "files": 0}
    )
    failures: dict[str, list] = defaultdict(list)
    for rel, ms_entry in ms_files.items():
        passed = [name for name, t in ms_entry.get("tests", {}).items() if t[0] == "passed"]
        if not passed:
            continue
        row = rows[rel]
        k = kiln_files.get(rel)
        if k is None:
            continue  # not run on Kiln (yet)
        if k["status"] == "private":
            row["private_files"] += 1
            row["private_tests"] += len(passed)
            continue
        row["files"] += 1
        ktests = k.get("tests", {})
        by_pos = _index_by_function(ktests)
        ms_pos = {name: pos for pos, name in _index_by_function(ms_entry["tests"]).items()}
        for name in passed:
            row["ms"] += 1
            t = ktests.get(name)
            if t is None and name in ms_pos:
                t = ktests.get(by_pos.get(ms_pos[name], ""))
            if t is not None and t[0] == "passed":
                row["kiln"] += 1
                continue
            if t is None:
                if k["status"] in ("collect_error", "timeout", "crash"):
                    cause = k.get("error", k["status"])
                else:
                    cause = "not collected on Kiln"
            elif t[0] == "skipped":
                cause = "skipped on Kiln: " + (t[1] if len(t) > 1 else "")
            else:
                cause = t[1] if len(t) > 1 else t[0]
            cause = normalise(cause)
            row["causes"][cause] += 1
            failures[rel].append((name, cause))
    return rows, failures


def group(rows: dict[str, dict], depth: int | None) -> dict[str, dict]:
    out: dict[str, dict] = {}
    for rel, row in rows.items():
        parts = PurePosixPath(rel).parent.parts
        key = "/".join(parts[:depth] if depth else parts)
        g = out.setdefault(
            key, {"ms": 0, "kiln": 0, "causes": Counter(), "private_files": 0, "private_tests": 0, "files": 0}
        )
        for f in ("ms", "kiln", "private_files", "private_tests", "files"):
            g[f] += row[f]
        g["causes"].update(row["causes"])
    return dict(sorted(out.items()))


def _pct(a: int, b: int) -> str:
    return f"{100 * a / b:5.1f}" if b else "    -"


def format_table(ms_data: dict, kiln_data: dict, depth: int | None, top: int, top_all: int) -> str:
    rows, _ = kiln_outcomes(ms_data["files"], kiln_data["files"])
    groups = group(rows, depth)
    lines = []
    src = ms_data.get("source", {})
    lines.append(
        f"MindSpore {ms_data.get('version', '?')} (CPU) vs {kiln_data.get('version', 'kiln')} "
        f"@ {kiln_data.get('kiln_commit', '?')}; tests from "
        f"{src.get('origin', '?')} @ {src.get('commit', '?')[:12]}"
    )
    w = max([len(k) for k in groups] + [9])
    head = f"{'directory':<{w}}  files  MS pass  Kiln pass      %  private files (MS-pass tests)"
    lines += [head, "-" * len(head)]
    total = {"ms": 0, "kiln": 0, "private_files": 0, "private_tests": 0, "files": 0}
    all_causes: Counter = Counter()
    for key, g in groups.items():
        lines.append(
            f"{key:<{w}}  {g['files']:5d}  {g['ms']:7d}  {g['kiln']:9d}  {_pct(g['kiln'], g['ms'])}  "
            f"{g['private_files']:5d} ({g['private_tests']})"
        )
        for cause, n in g["causes"].most_common(top):
            lines.append(f"{'':<{w}}    {n:5d} × {cause}")
        for f in total:
            total[f] += g[f]
        all_causes.update(g["causes"])
    lines.append("-" * len(head))
    lines.append(
        f"{'total':<{w}}  {total['files']:5d}  {total['ms']:7d}  {total['kiln']:9d}  "
        f"{_pct(total['kiln'], total['ms'])}  {total['private_files']:5d} ({total['private_tests']})"
    )
    if top_all:
        lines += ["", f"Top {top_all} causes over all directories (tests that pass on MindSpore, fail on Kiln):"]
        lines += [f"  {n:5d} × {cause}" for cause, n in all_causes.most_common(top_all)]
    return "\n".join(lines)
