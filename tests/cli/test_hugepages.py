"""`kiln run`'s re-exec with glibc's huge-page tunable: when it applies, that it happens once, what passes through."""

import os
import platform
import subprocess
import sys
import textwrap

import pytest

from kiln.cli import hugepages
from kiln.cli.hugepages import SWITCH, TUNABLE, launcher_command, launcher_environment, reexec_launcher

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
GLIBC = (2, 36)


@pytest.mark.parametrize(
    ("environ", "glibc", "thp", "applies"),
    [
        ({"HOME": "/h"}, GLIBC, "madvise", False),  # off unless asked for
        ({SWITCH: "0"}, GLIBC, "madvise", False),
        ({SWITCH: "1"}, GLIBC, "madvise", True),
        ({SWITCH: "1"}, GLIBC, "always", True),
        ({SWITCH: "1"}, (2, 35), "madvise", True),
        ({SWITCH: "1"}, (2, 34), "madvise", False),  # no such tunable before 2.35
        ({SWITCH: "1"}, None, "madvise", False),  # not glibc
        ({SWITCH: "1"}, GLIBC, "never", False),
        ({SWITCH: "1"}, GLIBC, None, False),  # THP mode unreadable
        # the user's own setting wins
        ({SWITCH: "1", "GLIBC_TUNABLES": "glibc.malloc.arena_max=2"}, GLIBC, "madvise", False),
        ({SWITCH: "1", "GLIBC_TUNABLES": ""}, GLIBC, "madvise", False),
    ],
)
def test_launcher_environment(environ, glibc, thp, applies):
    env = launcher_environment(environ, glibc, thp)
    if not applies:
        assert env is None
        return
    assert env == {**environ, "GLIBC_TUNABLES": "glibc.malloc.hugetlb=1"}
    # the re-executed process sees its own setting and runs as it is: never a second re-exec
    assert launcher_environment(env, glibc, thp) is None


@pytest.mark.parametrize(
    ("orig_argv", "command"),
    [
        (["python", "-m", "kiln", "run", "train.py"], "run"),
        (["python", "-X", "utf8", "-W", "ignore", "-u", "-m", "kiln", "run", "train.py", "-m", "x"], "run"),
        (["python", "-mkiln", "msrun", "train.py"], "msrun"),
        (["python", "-m", "kiln.__main__", "run", "t.py"], "run"),
        (["/venv/bin/python3", "/venv/bin/kiln", "run", "train.py"], "run"),
        (["/venv/bin/python3", "/venv/bin/kiln", "cache", "info"], "cache"),
        (["python", "-m", "kiln"], None),
        (["python", "-m", "pytest", "kiln", "run"], None),
        (["python", "train.py", "run"], None),
        (["python", "-c", "import kiln", "run"], None),
        (["python"], None),
    ],
)
def test_launcher_command(orig_argv, command):
    assert launcher_command(orig_argv) == command


class _Exec(Exception):
    pass


def test_reexec_once_with_the_same_command_line(monkeypatch):
    calls = []

    def execve(path, argv, env):
        calls.append((path, argv, env))
        raise _Exec

    monkeypatch.setattr(os, "execve", execve)
    monkeypatch.setattr(hugepages, "glibc_version", lambda: GLIBC)
    monkeypatch.setattr(hugepages, "thp_mode", lambda path=None: "madvise")
    monkeypatch.delenv("GLIBC_TUNABLES", raising=False)
    monkeypatch.setenv(SWITCH, "1")
    argv = ["/usr/bin/python3", "-X", "utf8", "-m", "kiln", "run", "train.py", "--lr", "0.1"]
    monkeypatch.setattr(sys, "orig_argv", argv)
    with pytest.raises(_Exec):
        reexec_launcher()
    [(path, new_argv, env)] = calls
    assert path == sys.executable and new_argv == [sys.executable, *argv[1:]]
    assert env["GLIBC_TUNABLES"] == TUNABLE and env["PATH"] == os.environ["PATH"]
    # in the re-executed process (its environment as set above) nothing more happens
    monkeypatch.setenv("GLIBC_TUNABLES", env["GLIBC_TUNABLES"])
    reexec_launcher()
    monkeypatch.delenv("GLIBC_TUNABLES")
    monkeypatch.setenv(SWITCH, "0")
    reexec_launcher()
    monkeypatch.delenv(SWITCH)
    reexec_launcher()  # off unless asked for
    monkeypatch.setenv(SWITCH, "1")
    for other in (["python", "-m", "kiln", "cache", "info"], ["python", "-m", "pytest"], ["python", "train.py"]):
        monkeypatch.setattr(sys, "orig_argv", other)
        reexec_launcher()
    assert len(calls) == 1


def _machine_qualifies() -> bool:
    """Whether this machine's glibc and kernel take the tunable, read independently of the module under test."""
    lib, version = platform.libc_ver()
    if lib != "glibc" or tuple(int(p) for p in version.split(".")[:2]) < (2, 35):
        return False
    try:
        with open("/sys/kernel/mm/transparent_hugepage/enabled") as f:
            return "[never]" not in f.read()
    except OSError:
        return False


SCRIPT = textwrap.dedent(
    """
    import os, sys
    print("tunables", repr(os.environ.get("GLIBC_TUNABLES")))
    print("argv", sys.argv[1:])
    print("stdin", repr(sys.stdin.read()))
    sys.exit(7)
    """
)


def _kiln_run(tmp_path, **env_changes):
    script = tmp_path / "show_env.py"
    script.write_text(SCRIPT)
    env = {k: v for k, v in os.environ.items() if k not in ("GLIBC_TUNABLES", SWITCH)}
    env.update(PYTHONPATH=REPO + os.pathsep + env.get("PYTHONPATH", ""), KILN_PROGRESS="0", **env_changes)
    proc = subprocess.run(
        [sys.executable, "-m", "kiln", "run", str(script), "a b", "--flag", "-m"],
        input="line 1\nline 2\n",
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
        check=False,
    )
    lines = dict(line.split(" ", 1) for line in proc.stdout.splitlines() if " " in line)
    return proc, lines


def test_kiln_run_passes_argv_stdin_and_exit_status(tmp_path):
    proc, lines = _kiln_run(tmp_path, **{SWITCH: "1"})
    assert proc.returncode == 7, proc.stderr
    assert lines["argv"] == repr(["a b", "--flag", "-m"]) and lines["stdin"] == repr("line 1\nline 2\n")
    assert lines["tunables"] == repr("glibc.malloc.hugetlb=1" if _machine_qualifies() else None)


@pytest.mark.parametrize(
    ("env_changes", "seen"),
    [
        ({SWITCH: "1", "GLIBC_TUNABLES": "glibc.malloc.arena_max=2"}, "glibc.malloc.arena_max=2"),
        ({SWITCH: "0"}, None),
        ({}, None),
    ],
)
def test_kiln_run_is_off_by_default_and_respects_the_users_variable(tmp_path, env_changes, seen):
    proc, lines = _kiln_run(tmp_path, **env_changes)
    assert proc.returncode == 7, proc.stderr
    assert lines["tunables"] == repr(seen)
