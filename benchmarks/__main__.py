"""Run the benchmarks: `python -m benchmarks` (all), `python -m benchmarks pynative graph` (some).

Each `benchmarks/bench_<name>.py` runs in its own interpreter (so one case's settings and
caches cannot change another's timings); arguments after `--` are passed to every module.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent


def available() -> list[str]:
    """Names of the benchmark modules that exist (`bench_pynative.py` -> "pynative")."""
    return sorted(p.stem.removeprefix("bench_") for p in HERE.glob("bench_*.py"))


def main(argv: list[str]) -> int:
    if "--" in argv:
        cut = argv.index("--")
        names, extra = argv[:cut], argv[cut + 1 :]
    else:
        names, extra = argv, []
    if any(n in ("-h", "--help") for n in names):
        print(__doc__.strip())
        print("available:", " ".join(available()))
        return 0
    known = available()
    unknown = [n for n in names if n not in known]
    if unknown:
        print(f"unknown benchmark(s) {unknown}; available: {known}", file=sys.stderr)
        return 2
    from benchmarks.common import print_device  # noqa: PLC0415  (imports Kiln, hence the backend)

    print_device()
    failed = []
    for name in names or known:
        print(f"\n=== benchmarks/bench_{name}.py ===", flush=True)
        rc = subprocess.call([sys.executable, "-m", f"benchmarks.bench_{name}", *extra], cwd=HERE.parent)
        if rc != 0:
            failed.append(name)
    if failed:
        print(f"\nfailed: {failed}", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
