"""`KILN_HUGEPAGES=1 kiln run` starts the script with glibc's transparent huge pages for large allocations.

XLA's CPU client allocates every output and every run's temporaries with malloc. A block of 64 MB or more allocated
on one of XLA's threads is a fresh mmap at each run, returned at free (glibc's heaps for threads other than the main
one are 64 MB; `kiln._backend.host_memory` keeps the main thread's), so each run faults all its pages in again,
4 KB at a time: 213,000 minor page faults a step for the zoo's ResNet-50 at batch 16, 112x112. With the tunable,
glibc asks the kernel for transparent huge pages on those mappings (2 MB pages): about 2,000 faults a step, the same
peak memory. glibc reads tunables only when a process starts, and `mallopt` has no equivalent, so `kiln run` adds
the setting to the environment and re-executes itself once, before Kiln is imported (`import kiln` calls
this module first, whose import calls `reexec_launcher`: nothing happens unless the process is `kiln run`).

It is opt-in (`KILN_HUGEPAGES=1`): where the kernel's THP defrag is `madvise` (the default), a huge-page fault that
finds no free huge page compacts memory synchronously, and one run on a busy, fragmented machine spent 20x the system
time. It is left out when the user has set `GLIBC_TUNABLES` (their settings win; after the re-exec the variable is
set, so it never loops), with a C library other than glibc 2.35 or later (earlier ones do not know the tunable) and
where the kernel's transparent huge pages are `never`.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping, Sequence

__all__ = ["SWITCH", "TUNABLE", "glibc_version", "launcher_command", "launcher_environment", "reexec_launcher"]

TUNABLE = "glibc.malloc.hugetlb=1"
SWITCH = "KILN_HUGEPAGES"  # "1": `kiln run` adds the tunable
THP_ENABLED = "/sys/kernel/mm/transparent_hugepage/enabled"
MIN_GLIBC = (2, 35)  # the first glibc with glibc.malloc.hugetlb

# interpreter options that take the next argument as their value (python --help)
_OPTIONS_WITH_VALUE = frozenset({"-W", "-X", "--check-hash-based-pycs"})


def glibc_version() -> tuple[int, int] | None:
    """glibc's (major, minor) version, or None when the C library is not glibc."""
    try:
        name = os.confstr("CS_GNU_LIBC_VERSION") or ""
    except (ValueError, OSError, AttributeError):
        return None
    lib, _, version = name.partition(" ")
    parts = version.split(".")
    if lib != "glibc" or len(parts) < 2 or not (parts[0].isdigit() and parts[1].isdigit()):
        return None
    return int(parts[0]), int(parts[1])


def thp_mode(path: str = THP_ENABLED) -> str | None:
    """The kernel's transparent huge page mode (`always`, `madvise` or `never`), or None when it cannot be read."""
    try:
        with open(path) as f:
            text = f.read()
    except OSError:
        return None
    start, end = text.find("["), text.find("]")
    return text[start + 1 : end] if 0 <= start < end else None


def launcher_environment(
    environ: Mapping[str, str], glibc: tuple[int, int] | None, thp: str | None
) -> dict[str, str] | None:
    """The environment `kiln run` re-executes itself with, or None when it runs as it is.

    Args:
        environ: the process's environment.
        glibc: glibc's (major, minor) version, None for another C library.
        thp: the kernel's transparent huge page mode, None when unknown.
    """
    if environ.get(SWITCH, "").strip() != "1" or "GLIBC_TUNABLES" in environ:
        return None
    if glibc is None or glibc < MIN_GLIBC or thp in (None, "never"):
        return None
    return {**environ, "GLIBC_TUNABLES": TUNABLE}


def launcher_command(orig_argv: Sequence[str]) -> str | None:
    """The `kiln` subcommand (`run`, `msrun`, ...) when the process is Kiln's command line, else None.

    `orig_argv` is the interpreter's command line (`sys.orig_argv`): `python [options] -m kiln COMMAND ...`, or the
    `kiln` console script, `python [options] .../kiln COMMAND ...`.
    """
    args = list(orig_argv[1:])
    i = 0
    while i < len(args):
        arg = args[i]
        if arg == "-m" or (arg.startswith("-m") and not arg.startswith("--")):
            module = args[i + 1] if arg == "-m" and i + 1 < len(args) else arg[2:]
            rest = args[i + 2 :] if arg == "-m" else args[i + 1 :]
            return rest[0] if module in ("kiln", "kiln.__main__") and rest else None
        if arg in ("-c", "-") or arg.startswith("-c"):
            return None
        if arg in _OPTIONS_WITH_VALUE:
            i += 2
            continue
        if arg.startswith("-"):
            i += 1
            continue
        return args[i + 1] if os.path.basename(arg) == "kiln" and i + 1 < len(args) else None
    return None


def reexec_launcher() -> None:
    """Re-execute this process with `TUNABLE` added to its environment when it is `kiln run` and asked for it.

    Same interpreter, same command line, same process id (stdin, stdout and the exit status are the process's own).
    Returns when nothing is to be done.
    """
    orig_argv = getattr(sys, "orig_argv", None)
    if not orig_argv or not sys.executable or launcher_command(orig_argv) != "run":
        return
    env = launcher_environment(os.environ, glibc_version(), thp_mode())
    if env is None:
        return
    sys.stdout.flush()
    sys.stderr.flush()
    os.execve(sys.executable, [sys.executable, *orig_argv[1:]], env)


# `import kiln` imports this module before anything else of Kiln's: the re-exec costs no import time
reexec_launcher()
