"""The model zoo's `mindspore` imports under Kiln: `python -m tools.zoo_imports {scan,check,report}` (README.md)."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from tools.zoo_imports import check, scan


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m tools.zoo_imports", description=__doc__)
    sub = parser.add_subparsers(dest="cmd", required=True)

    p = sub.add_parser("scan", help="collect the import pairs of a mindspore-ai/models git directory")
    p.add_argument("git_dir", help="bare git directory of mindspore-ai/models")
    p.add_argument("--ref", default="HEAD")
    p.add_argument("--out", type=Path, default=check.PAIRS_FILE, help="where to save the pair list")

    p = sub.add_parser("check", help="check the pairs on MindSpore (cached) and under Kiln, print the figures")
    p.add_argument("--git-dir", default=None, help="scan this git directory first (else use --pairs)")
    p.add_argument("--pairs", type=Path, default=check.PAIRS_FILE, help="a saved pair list")
    p.add_argument("--ms-python", default=check.DEFAULT_MS_PYTHON, help="python of a MindSpore 2.10 environment")
    p.add_argument("--rerun-mindspore", action="store_true", help="probe MindSpore again for every pair")
    p.add_argument("--kiln-root", type=Path, default=check.REPO_ROOT, help="import Kiln from this source tree")
    p.add_argument("--out", type=Path, default=check.KILN_RESULTS, help="where to save the results")

    p = sub.add_parser("report", help="print the figures of the saved results")
    p.add_argument("--results", type=Path, default=check.KILN_RESULTS)

    args = parser.parse_args(argv)
    if args.cmd == "scan":
        save(args.out, scan.scan(args.git_dir, args.ref))
        return
    if args.cmd == "check":
        pairs = scan.scan(args.git_dir) if args.git_dir else json.loads(args.pairs.read_text())
        if args.git_dir:
            save(args.pairs, pairs)
        result = check.run(pairs, args.ms_python, args.kiln_root.resolve(), args.rerun_mindspore)
        args.out.write_text(json.dumps(result, indent=1) + "\n")
    else:
        result = json.loads(args.results.read_text())
    print(check.format_report(result))


def save(path: Path, scanned: dict) -> None:
    """Write a scan compactly: one pair or file group per line, so that a rescan's diff reads line by line."""
    lists = ("pairs", "file_groups", "attributes")
    head = {k: v for k, v in scanned.items() if k not in lists}
    body = json.dumps(head, indent=1)[:-2]
    rows = [f' "{key}": [\n' + ",\n".join("  " + json.dumps(row) for row in scanned[key]) + "\n ]" for key in lists]
    path.write_text(body + ",\n" + ",\n".join(rows) + "\n}\n")


if __name__ == "__main__":
    main()
