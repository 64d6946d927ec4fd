"""Check the zoo's import pairs on MindSpore 2.10 (cached) and under Kiln's `mindspore` alias; the figures."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections import Counter
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO_ROOT = HERE.parent.parent
PROBE = HERE / "probe.py"
PAIRS_FILE = HERE / "zoo_pairs.json"
MINDSPORE_VERDICTS = HERE / "mindspore_verdicts.json"
MINDSPORE_ATTRIBUTE_VERDICTS = HERE / "mindspore_attribute_verdicts.json"
KILN_RESULTS = HERE / "kiln_results.json"
DEFAULT_MS_PYTHON = "/work/msvenv/bin/python"


def pair_key(module: str, name: str | None) -> str:
    """One string per pair, as the verdict files store it: `module` or `module:name`."""
    return module if name is None else f"{module}:{name}"


def probe(python: str, pairs: list, kiln_root: Path | None = None, chains: bool = False) -> list[str]:
    """The verdicts of `pairs` ([module, name] rows, or attribute chains with `chains`) in one subprocess of
    `python` (Kiln's alias with kiln_root)."""
    cmd = [python, str(PROBE), *(["--chains"] if chains else [])]
    env = dict(os.environ)
    if kiln_root is not None:
        cmd.append("--kiln")
        env["PYTHONPATH"] = str(kiln_root)
    proc = subprocess.run(cmd, input=json.dumps(pairs), capture_output=True, text=True, env=env, timeout=1800)
    if proc.returncode != 0:
        raise RuntimeError(f"probe failed under {python}:\n{proc.stderr[-3000:]}")
    return json.loads(proc.stdout)


def _cached_verdicts(path: Path, keys: list[str], rows: list, ms_python: str, rerun: bool, chains: bool):
    """MindSpore 2.10's verdict per key, from the cache file `path`; rows not cached are probed (needs `ms_python`)."""
    cache = {} if rerun or not path.exists() else json.loads(path.read_text())
    todo = [(key, row) for key, row in zip(keys, rows, strict=True) if key not in cache]
    if todo:
        if not Path(ms_python).exists():
            raise FileNotFoundError(f"{len(todo)} rows are not in {path.name}; no MindSpore at {ms_python}")
        verdicts = probe(ms_python, [row for _, row in todo], chains=chains)
        for (key, _), verdict in zip(todo, verdicts, strict=True):
            cache[key] = verdict
        path.write_text(json.dumps(dict(sorted(cache.items())), indent=0) + "\n")
    return cache


def mindspore_verdicts(pairs: list[list], ms_python: str, rerun: bool = False) -> dict[str, str]:
    """MindSpore 2.10's verdict per pair key, from the cache; pairs not cached are probed (needs `ms_python`)."""
    keys = [pair_key(m, n) for m, n, *_ in pairs]
    return _cached_verdicts(MINDSPORE_VERDICTS, keys, [[m, n] for m, n, *_ in pairs], ms_python, rerun, False)


def mindspore_attribute_verdicts(chains: list[str], ms_python: str, rerun: bool = False) -> dict[str, str]:
    """MindSpore 2.10's verdict per attribute chain, from the cache; chains not cached are probed."""
    return _cached_verdicts(MINDSPORE_ATTRIBUTE_VERDICTS, chains, chains, ms_python, rerun, True)


def evaluate_attributes(rows: list[list], ms: dict[str, str], kiln: dict[str, str]) -> dict:
    """The attribute figures: distinct chains valid in MindSpore 2.10 that Kiln resolves, and their reads (a chain
    counted once per file reading it)."""
    valid = [(chain, uses) for chain, uses in rows if ms[chain] == "ok"]
    resolves = lambda chain: kiln[chain] == "ok" or kiln[chain].startswith("unavailable:")
    missing = sorted(
        ({"chain": chain, "uses": uses, "kiln": kiln[chain]} for chain, uses in valid if not resolves(chain)),
        key=lambda row: (-row["uses"], row["chain"]),
    )
    return {
        "valid_chains": len(valid),
        "resolving_chains": len(valid) - len(missing),
        "valid_reads": sum(uses for _, uses in valid),
        "resolving_reads": sum(uses for chain, uses in valid if resolves(chain)),
        "unavailable_chains": [chain for chain, _ in valid if kiln[chain].startswith("unavailable:")],
        "missing": missing,
    }


def evaluate(scan: dict, ms: dict[str, str], kiln: dict[str, str]) -> dict:
    """The figures: distinct valid pairs resolving under Kiln, and files whose every valid pair resolves.

    A pair is valid when MindSpore 2.10 imports it. A Kiln verdict "unavailable: ..." (a stand-in that raises
    NotImplementedError when used) resolves, and is counted apart. Files count when they import `mindspore`.
    """
    keys = [pair_key(m, n) for m, n, _ in scan["pairs"]]
    valid = [i for i, k in enumerate(keys) if ms[k] == "ok"]
    resolving = {i for i in valid if kiln[keys[i]] == "ok" or kiln[keys[i]].startswith("unavailable:")}
    unavailable = [keys[i] for i in valid if kiln[keys[i]].startswith("unavailable:")]
    files = files_ok = 0
    failing_files: Counter[str] = Counter()  # first missing pair -> files it stops
    for count, *group in scan["file_groups"]:
        files += count
        missing = [i for i in group if ms[keys[i]] == "ok" and i not in resolving]
        if missing:
            for i in missing:
                failing_files[keys[i]] += count
        else:
            files_ok += count
    missing_pairs = sorted(
        ({"pair": keys[i], "uses": scan["pairs"][i][2], "kiln": kiln[keys[i]]} for i in valid if i not in resolving),
        key=lambda row: (-row["uses"], row["pair"]),
    )
    return {
        "commit": scan["commit"],
        "pairs": len(keys),
        "valid_pairs": len(valid),
        "resolving_pairs": len(resolving),
        "unavailable_pairs": unavailable,
        "files": files,
        "files_resolving": files_ok,
        "missing": missing_pairs,
        "files_stopped_by": dict(failing_files.most_common()),
    }


def run(scan: dict, ms_python: str, kiln_root: Path, rerun_mindspore: bool = False) -> dict:
    """Check every pair of `scan` on MindSpore (cached) and under Kiln; return `evaluate`'s figures."""
    ms = mindspore_verdicts(scan["pairs"], ms_python, rerun_mindspore)
    valid_rows = [[m, n] for m, n, _ in scan["pairs"] if ms[pair_key(m, n)] == "ok"]
    kiln = {pair_key(m, n): "not valid in MindSpore" for m, n, _ in scan["pairs"]}
    for (m, n), verdict in zip(valid_rows, probe(sys.executable, valid_rows, kiln_root), strict=True):
        kiln[pair_key(m, n)] = verdict
    result = evaluate(scan, ms, kiln)
    if "attributes" in scan:
        chains = [chain for chain, _ in scan["attributes"]]
        ms_chains = mindspore_attribute_verdicts(chains, ms_python, rerun_mindspore)
        valid_chains = [chain for chain in chains if ms_chains[chain] == "ok"]
        kiln_chains = dict.fromkeys(chains, "not valid in MindSpore")
        kiln_chains.update(zip(valid_chains, probe(sys.executable, valid_chains, kiln_root, chains=True), strict=True))
        result["attributes"] = evaluate_attributes(scan["attributes"], ms_chains, kiln_chains)
    return result


def format_report(result: dict) -> str:
    """The figures as text, then every valid pair that does not resolve with the files it is used in."""
    pct = lambda a, b: 100.0 * a / b if b else 0.0
    lines = [
        f"zoo commit {result['commit'][:12]}: {result['pairs']} distinct mindspore import pairs, "
        f"{result['valid_pairs']} valid in MindSpore 2.10",
        f"pairs resolving under Kiln: {result['resolving_pairs']}/{result['valid_pairs']} "
        f"({pct(result['resolving_pairs'], result['valid_pairs']):.1f}%), "
        f"of which {len(result['unavailable_pairs'])} raise NotImplementedError when used",
        f"files whose every valid mindspore import resolves: {result['files_resolving']}/{result['files']} "
        f"({pct(result['files_resolving'], result['files']):.1f}%)",
    ]
    if result["missing"]:
        lines.append("missing (files using the pair, Kiln's error):")
        lines += [f"  {row['uses']:4d}  {row['pair']}  | {row['kiln'][:100]}" for row in result["missing"]]
    if result["unavailable_pairs"]:
        lines.append("resolving to a stand-in that raises NotImplementedError when used:")
        lines += [f"  {key}" for key in result["unavailable_pairs"]]
    attributes = result.get("attributes")
    if attributes:
        lines += [
            f"attribute chains read through mindspore names (valid in MindSpore 2.10) resolving under Kiln: "
            f"{attributes['resolving_chains']}/{attributes['valid_chains']} "
            f"({pct(attributes['resolving_chains'], attributes['valid_chains']):.1f}%); counted per file reading "
            f"them {attributes['resolving_reads']}/{attributes['valid_reads']} "
            f"({pct(attributes['resolving_reads'], attributes['valid_reads']):.1f}%)",
        ]
        if attributes["missing"]:
            lines.append("missing attribute chains (files reading the chain, Kiln's error):")
            lines += [f"  {row['uses']:4d}  {row['chain']}  | {row['kiln'][:100]}" for row in attributes["missing"]]
    return "\n".join(lines)
