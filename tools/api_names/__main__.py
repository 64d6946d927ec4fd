"""MindSpore 2.10's public names under Kiln: `python -m tools.api_names {dump,check}` (README.md)."""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO_ROOT = HERE.parent.parent
NAMES = HERE / "names.py"
MINDSPORE_NAMES = HERE / "mindspore_names.json"
KILN_MISSING = HERE / "kiln_missing.json"
DEFAULT_MS_PYTHON = "/work/msvenv/bin/python"

# The modules a MindSpore script reaches for most
MODULES = (
    "mindspore", "mindspore.nn", "mindspore.ops", "mindspore.ops.functional", "mindspore.ops.operations",
    "mindspore.ops.composite", "mindspore.mint", "mindspore.mint.nn", "mindspore.mint.nn.functional",
    "mindspore.train", "mindspore.train.callback", "mindspore.common", "mindspore.amp", "mindspore.parallel",
    "mindspore.communication", "mindspore.dataset", "mindspore.dataset.vision", "mindspore.dataset.transforms",
    "mindspore.dataset.text", "mindspore.dataset.audio", "mindspore.numpy", "mindspore.nn.probability",
    "mindspore.experimental.optim", "mindspore.runtime", "mindspore.scipy", "mindspore.hal",
)  # fmt: skip


def _run(python: str, args: list[str], stdin: str | None = None, kiln_root: Path | None = None) -> dict:
    env = dict(os.environ)
    if kiln_root is not None:
        env["PYTHONPATH"] = str(kiln_root)
    proc = subprocess.run([python, str(NAMES), *args], input=stdin, capture_output=True, text=True, env=env,
                          timeout=1800)  # fmt: skip
    if proc.returncode != 0:
        raise RuntimeError(f"{python} {NAMES.name} failed:\n{proc.stderr[-3000:]}")
    return json.loads(proc.stdout)


def missing_names(mindspore: dict, kiln_root: Path = REPO_ROOT) -> dict[str, list[str]]:
    """Per module, MindSpore's public names that Kiln's alias does not resolve (every name where the module itself
    is missing)."""
    wanted = {m: names for m, names in mindspore.items() if names}
    found = _run(sys.executable, ["--kiln"], json.dumps(wanted), kiln_root)
    return {m: sorted(set(names) - set(found[m] or ())) for m, names in wanted.items()}


def report(mindspore: dict, missing: dict[str, list[str]]) -> str:
    """One line per module (names resolving / MindSpore's), the total, then the missing names."""
    lines, have_total, all_total = [], 0, 0
    for module, gone in missing.items():
        total = len(mindspore[module])
        have_total, all_total = have_total + total - len(gone), all_total + total
        lines.append(f"{module:<32} {total - len(gone):5d} / {total:5d}  ({100 * (total - len(gone)) / total:5.1f}%)")
    lines.append(f"{'all':<32} {have_total:5d} / {all_total:5d}  ({100 * have_total / all_total:5.1f}%)")
    for module, gone in missing.items():
        if gone:
            lines.append(f"{module} lacks {len(gone)}: {' '.join(gone)}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m tools.api_names", description=__doc__)
    sub = parser.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("dump", help="MindSpore's public names of MODULES, from its interpreter")
    p.add_argument("--ms-python", default=DEFAULT_MS_PYTHON)
    p = sub.add_parser("check", help="which of them Kiln resolves; the figures, and the missing names saved")
    p.add_argument("--kiln-root", type=Path, default=REPO_ROOT, help="import Kiln from this source tree")
    p.add_argument("--out", type=Path, default=KILN_MISSING)
    args = parser.parse_args(argv)
    if args.cmd == "dump":
        names = _run(args.ms_python, list(MODULES))
        MINDSPORE_NAMES.write_text(json.dumps(names, indent=0) + "\n")
        print(f"{sum(len(v or ()) for v in names.values())} names in {len(names)} modules -> {MINDSPORE_NAMES}")
        return
    mindspore = {m: v for m, v in json.loads(MINDSPORE_NAMES.read_text()).items() if v}
    missing = missing_names(mindspore, args.kiln_root.resolve())
    args.out.write_text(json.dumps(missing, indent=0) + "\n")
    print(report(mindspore, missing))


if __name__ == "__main__":
    main()
