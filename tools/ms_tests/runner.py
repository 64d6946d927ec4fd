"""Run MindSpore's own test files under Kiln and under MindSpore, one pytest process per file and side.

Results are kept as JSON (one file per side under `results/`), updated file by file, so that a run can be
interrupted and resumed, and MindSpore's side (slow, and fixed) is run once and reused.
"""

from __future__ import annotations

import ast
import fcntl
import json
import os
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

HERE = Path(__file__).resolve().parent
PLUGIN_DIR = HERE / "plugin"
RESULTS_DIR = HERE / "results"
REPO = HERE.parent.parent
SOURCE_FILE = ".ms_tests_source.json"  # written into a checkout by `extract`: where it came from

# MindSpore modules and names a public program never imports: a test file that uses them (directly or through the
# checkout's helpers it imports) is reported apart, not run.
PRIVATE_ATTRS = {"_c_expression", "_pynative_executor", "_cell_graph_executor", "_grad_ops", "_inner_ops", "_extends",
                 "_c_dataengine", "_c_mindrecord"}  # fmt: skip

# MindSpore's debug-VM op registrations, imported by `tests/ut/python/__init__.py` for every file below it. They
# register Python kernels with MindSpore's own backend (through private modules) and no test calls them: on
# Kiln's side the plugin stands an empty module in for them, and privacy is judged on what the test file uses.
BACKEND_ONLY_HELPERS = ("tests/vm_impl/",)

# Private MindSpore names that Kiln offers a compatible stand-in for (kiln/common/api.py, kiln/ops/primitive.py): a
# file that imports only these is measured. `_pynative_executor` is imported for its `sync()` (wait for queued device
# work), `_cell_graph_executor` for its `compile(net, *inputs)`.
STAND_INS = {
    "mindspore.common.api._pynative_executor",
    "mindspore.common.api._cell_graph_executor",
    "mindspore.common.api._no_recursive",
    "mindspore.ops.primitive._primexpr",
}


def results_path(side: str, kiln_results: Path | None = None) -> Path:
    if side == "mindspore":
        return RESULTS_DIR / "mindspore.json"
    return kiln_results or RESULTS_DIR / "kiln.json"


def load_results(side: str, kiln_results: Path | None = None) -> dict:
    path = results_path(side, kiln_results)
    if path.exists():
        return json.loads(path.read_text())
    return {"side": side, "files": {}}


def save_results(side: str, data: dict, kiln_results: Path | None = None) -> None:
    path = results_path(side, kiln_results)
    path.parent.mkdir(parents=True, exist_ok=True)
    # Several runs may share a results file (MindSpore's side above all): under a lock, merge this run's files
    # into what is on disk now, so that one run never drops the files another stored meanwhile.
    with open(path.with_suffix(".lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        on_disk = json.loads(path.read_text())["files"] if path.exists() else {}
        data["files"] = dict(sorted({**on_disk, **data["files"]}.items()))
        tmp = path.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_text(json.dumps(data, indent=1, sort_keys=False) + "\n")
        tmp.replace(path)


# ---------------------------------------------------------------------------------------------- finding test files


def find_test_files(src: Path, paths: list[str], every: int = 1) -> list[str]:
    """CPU test files (`test_*.py`) under `paths` (relative to the checkout `src`), as paths relative to `src`.

    A file whose tests all carry platform marks other than `cpu_linux` is left out; `every` > 1 keeps one file in
    `every` of each folder given (in name order), a fixed sample.
    """
    found: list[str] = []
    for p in paths:
        full = src / p
        if full.is_file():
            found.append(p)
        elif full.is_dir():
            files = sorted(str(f.relative_to(src)) for f in full.rglob("test_*.py") if f.is_file())
            files = [f for f in files if is_cpu_file(src / f)]
            found += files[::every]
        else:
            raise SystemExit(f"ms_tests: no such test path in {src}: {p}")
    return sorted(dict.fromkeys(found))


def is_cpu_file(path: Path) -> bool:
    """False for a file whose tests are marked for Ascend or GPU only (MindSpore's `arg_mark` or plain marks)."""
    text = path.read_text(encoding="utf-8", errors="replace")
    marked = "plat_marks" in text or "pytest.mark.platform_" in text or "pytest.mark.env_" in text
    return not marked or "cpu_linux" in text


def _local_module_file(src: Path, module: str, here: Path, level: int) -> Path | None:
    """The checkout's file for module `module` (absolute when level == 0, relative to `here` otherwise)."""
    if level:
        base = here.parent
        for _ in range(level - 1):
            base = base.parent
        parts = module.split(".") if module else []
    else:
        if not module.startswith("tests"):
            return None
        base, parts = src, module.split(".")
    target = base.joinpath(*parts) if parts else base
    for cand in (target.with_suffix(".py"), target / "__init__.py"):
        if cand.is_file():
            return cand
    return None


def private_uses(src: Path, rel: str) -> list[str]:
    """MindSpore-private names used by test file `rel`, following its imports of the checkout's own helpers.

    The package `__init__.py` and `conftest.py` files pytest imports with it are harness, not the test: a private
    name they need is not held against the file (it runs; where Kiln lacks the name, its tests fail on Kiln).
    """
    found: set[str] = set()
    seen: set[Path] = set()
    todo = [src / rel]
    while todo:
        path = todo.pop()
        if path in seen or any(h in path.as_posix() for h in BACKEND_ONLY_HELPERS):
            continue
        seen.add(path)
        try:
            tree = ast.parse(path.read_text(encoding="utf-8", errors="replace"))
        except SyntaxError:
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                for a in node.names:
                    if a.name.startswith("mindspore") and any(p.startswith("_") for p in a.name.split(".")):
                        found.add(a.name)
                    elif (f := _local_module_file(src, a.name, path, 0)) is not None:
                        todo.append(f)
            elif isinstance(node, ast.ImportFrom):
                mod = node.module or ""
                if node.level == 0 and mod.startswith("mindspore"):
                    if any(p.startswith("_") for p in mod.split(".")):
                        found.add(mod)
                    found.update(f"{mod}.{a.name}" for a in node.names if a.name.startswith("_"))
                else:
                    for name in [mod] + [f"{mod}.{a.name}" if mod else a.name for a in node.names]:
                        if (f := _local_module_file(src, name, path, node.level)) is not None:
                            todo.append(f)
            elif isinstance(node, ast.Attribute) and node.attr in PRIVATE_ATTRS:
                found.add(node.attr)
    return sorted(found - STAND_INS)


# ---------------------------------------------------------------------------------------------- running


def _python_for(side: str, ms_python: str) -> str:
    return ms_python if side == "mindspore" else sys.executable


def run_file(
    src: Path, rel: str, side: str, python: str, test_timeout: float, file_timeout: float, kiln_root: Path | None
) -> dict:
    """Run one test file with pytest on one side; returns its entry for the results JSON.

    `kiln_root`: a Kiln source tree to import instead of the installed one (e.g. an older commit's).
    """
    fd, out = tempfile.mkstemp(prefix="ms_tests_", suffix=".jsonl")
    os.close(fd)
    env = dict(os.environ)
    env.update(
        PYTHONPATH=os.pathsep.join([str(kiln_root)] * (kiln_root is not None and side == "kiln") + [str(PLUGIN_DIR)]),
        MS_TESTS_SIDE=side,
        MS_TESTS_OUT=out,
        MS_TESTS_TIMEOUT=str(test_timeout),
        GLOG_v="3",  # MindSpore: errors only
        PYTHONDONTWRITEBYTECODE="1",
        PYTHONWARNINGS="ignore",
    )
    cmd = [python, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "ms_tests_plugin", "--rootdir", str(src),
           "-o", "addopts=", "-o", "python_files=test_*.py", "-W", "ignore", rel]  # fmt: skip
    start = time.monotonic()
    status, rc = "ok", None
    try:
        proc = subprocess.run(cmd, cwd=src, env=env, capture_output=True, text=True, timeout=file_timeout)
        rc = proc.returncode
        tail = (proc.stdout + proc.stderr)[-2000:]
    except subprocess.TimeoutExpired as e:
        status = "timeout"
        tail = ((e.stdout or b"") if isinstance(e.stdout, bytes) else (e.stdout or "").encode())[-2000:].decode(
            errors="replace"
        )
    seconds = round(time.monotonic() - start, 1)
    records = []
    with open(out, encoding="utf-8") as f:
        for line in f:
            try:
                records.append(json.loads(line))
            except json.JSONDecodeError:
                pass
    os.unlink(out)

    tests: dict[str, list] = {}
    entry: dict = {"status": status, "rc": rc, "seconds": seconds}
    for r in records:
        if "collect_error" in r:
            entry["status"] = "collect_error"
            entry["error"] = r["error"]
            continue
        name = r["nodeid"].split("::", 1)[-1]
        prev = tests.get(name)
        outcome, error = r["outcome"], r.get("error", "")
        if r["when"] == "call" or prev is None or (outcome == "failed" and prev[0] != "failed"):
            if prev is not None and prev[0] == "failed" and outcome != "failed":
                continue  # a failed setup/call stays failed whatever the teardown says
            tests[name] = [outcome, error] if error else [outcome]
    if status == "ok" and rc not in (0, 1, 5) and "error" not in entry:  # 2: interrupted, others: crashes
        entry["status"] = "crash"
        lines = [ln for ln in tail.splitlines() if ln.strip()]
        entry["error"] = f"pytest exited with {rc}: " + (lines[-1][:200] if lines else "")
    if status == "timeout":
        entry["error"] = f"file ran past {file_timeout:g} s"
    entry["tests"] = tests
    return entry


def run(
    src: Path,
    paths: list[str],
    sides: list[str],
    ms_python: str,
    jobs: int,
    test_timeout: float,
    file_timeout: float,
    rerun: bool,
    every: int = 1,
    kiln_root: Path | None = None,
    kiln_results: Path | None = None,
    resume: bool = False,
) -> None:
    """Run `paths` on each side in `sides` and store the results (see `python -m tools.ms_tests run --help`)."""
    files = find_test_files(src, paths, every)
    source = json.loads((src / SOURCE_FILE).read_text()) if (src / SOURCE_FILE).exists() else {}
    for side in sides:
        data = load_results(side, kiln_results)
        data["side"] = side
        if source:
            data["source"] = source
        data["test_timeout_s"], data["file_timeout_s"] = test_timeout, file_timeout
        data["version"] = _version(side, ms_python, kiln_root)
        if side == "kiln":
            data["kiln_commit"] = _kiln_commit(kiln_root)
        todo = []
        if side == "mindspore":  # all files, private ones too (to count what they hold), once
            todo = [rel for rel in files if rerun or rel not in data["files"]]
        else:  # Kiln runs only what can count: public files where MindSpore passed something
            ms = load_results("mindspore")["files"]
            for rel in files:
                if not any(t[0] == "passed" for t in ms.get(rel, {}).get("tests", {}).values()):
                    data["files"].pop(rel, None)
                elif priv := private_uses(src, rel):
                    data["files"][rel] = {"status": "private", "private": priv, "tests": {}}
                elif not (resume and data["files"].get(rel, {}).get("status", "private") != "private"):
                    todo.append(rel)  # (a file counted private before a stand-in existed runs now)
        print(f"[{side}] {len(todo)} files to run ({len(files) - len(todo)} cached, private or idle)", flush=True)
        python = _python_for(side, ms_python)
        done = 0
        t0 = time.monotonic()

        def one(rel: str, python: str = python, side: str = side) -> tuple[str, dict]:
            return rel, run_file(src, rel, side, python, test_timeout, file_timeout, kiln_root)

        with ThreadPoolExecutor(max_workers=jobs) as pool:
            for rel, entry in pool.map(one, todo):
                data["files"][rel] = entry
                done += 1
                n_pass = sum(1 for t in entry["tests"].values() if t[0] == "passed")
                print(f"[{side}] {done}/{len(todo)} {rel}: {entry['status']} {n_pass}/{len(entry['tests'])} passed "
                      f"({entry['seconds']} s, {time.monotonic() - t0:.0f} s in all)", flush=True)  # fmt: skip
                if done % 10 == 0:
                    save_results(side, data, kiln_results)
        save_results(side, data, kiln_results)


def _kiln_commit(kiln_root: Path | None) -> str:
    """The commit of the Kiln being run: `kiln_root/COMMIT` for a source tree, else this checkout's HEAD (with
    "+changes" when kiln/ differs from it)."""
    if kiln_root is not None:
        marker = Path(kiln_root) / "COMMIT"
        return marker.read_text().strip() if marker.exists() else str(kiln_root)
    git = ["git", "-C", str(REPO)]
    head = subprocess.run(git + ["rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip()
    dirty = subprocess.run(git + ["diff", "--quiet", "HEAD", "--", "kiln"]).returncode != 0
    return head + ("+changes" if dirty else "")


def _version(side: str, ms_python: str, kiln_root: Path | None = None) -> str:
    if side == "mindspore":
        code = "import mindspore; print(mindspore.__version__)"
    else:
        code = "import kiln.version as v; print('kiln', v.KILN_VERSION)"
    env = dict(os.environ, PYTHONPATH=str(kiln_root)) if kiln_root and side == "kiln" else None
    try:
        out = subprocess.run(
            [_python_for(side, ms_python), "-c", code], capture_output=True, text=True, timeout=120, env=env, cwd="/"
        )
        return out.stdout.strip().splitlines()[-1]
    except (subprocess.SubprocessError, IndexError):
        return "unknown"


# ---------------------------------------------------------------------------------------------- extracting


def extract(git_dir: str, dest: Path, ref: str = "HEAD", subdir: str = "tests") -> None:
    """Write the `subdir` tree of commit `ref` of bare repository `git_dir` into `dest`.

    Unlike `git archive`, blobs missing from a partial mirror are skipped (and counted) rather than fatal.
    """
    git = ["git", f"--git-dir={git_dir}"]
    commit = subprocess.run(git + ["rev-parse", ref], capture_output=True, text=True, check=True).stdout.strip()
    listing = subprocess.run(git + ["ls-tree", "-r", commit, subdir], capture_output=True, text=True, check=True)
    rows = [line.split(None, 3) for line in listing.stdout.splitlines()]
    blobs = [(mode, sha, path) for mode, kind, sha, path in rows if kind == "blob" and mode != "120000"]
    missing = 0
    with subprocess.Popen(git + ["cat-file", "--batch"], stdin=subprocess.PIPE, stdout=subprocess.PIPE) as proc:
        for _mode, sha, path in blobs:
            proc.stdin.write(sha.encode() + b"\n")
            proc.stdin.flush()
            header = proc.stdout.readline().split()
            if header[-1] == b"missing":
                missing += 1
                continue
            data = proc.stdout.read(int(header[2]))
            proc.stdout.read(1)
            target = dest / path
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(data)
        proc.stdin.close()
    url = subprocess.run(git + ["config", "--get", "remote.origin.url"], capture_output=True, text=True).stdout
    (dest / SOURCE_FILE).write_text(json.dumps({"commit": commit, "origin": url.strip() or git_dir}) + "\n")
    print(f"extracted {len(blobs) - missing} files of {subdir}/ at {commit[:12]} into {dest} ({missing} missing blobs)")
