"""pytest plugin loaded into each child pytest run (`-p ms_tests_plugin`), on either side.

It lives in a folder of its own, put on PYTHONPATH by the runner, so that neither side's import path
gains Kiln's repository root (whose `tests` package would shadow MindSpore's).

Environment:
    MS_TESTS_SIDE     "kiln": `import mindspore` gives Kiln (as `kiln run` does); "mindspore": untouched.
    MS_TESTS_OUT      JSON-lines file that receives one record per test phase and per collection error.
    MS_TESTS_TIMEOUT  seconds allowed to each test's setup, call and teardown (SIGALRM; 0 disables).
"""

from __future__ import annotations

import importlib
import json
import os
import signal
import sys
import types

import pytest

SIDE = os.environ.get("MS_TESTS_SIDE", "mindspore")
OUT = os.environ.get("MS_TESTS_OUT")
TIMEOUT = float(os.environ.get("MS_TESTS_TIMEOUT", "0") or 0)

# Platform marks of MindSpore's `arg_mark`: a test that carries some of them but not `cpu_linux` is not a CPU test.
PLATFORM_MARKS = {"platform_ascend", "platform_ascend910b", "platform_ascend310p", "platform_gpu", "cpu_linux",
                  "cpu_windows", "cpu_macos"}  # fmt: skip

if SIDE == "kiln":
    importlib.import_module("kiln.cli.alias").install()  # before any test module is imported
    # `tests/ut/python/__init__.py` imports MindSpore's debug-VM kernel registrations (backend internals no test
    # calls): an empty stand-in keeps them out of Kiln's side (the runner's BACKEND_ONLY_HELPERS).
    _vm = types.ModuleType("tests.vm_impl.vm")
    sys.modules["tests.vm_impl"] = types.ModuleType("tests.vm_impl")
    sys.modules["tests.vm_impl"].vm = sys.modules["tests.vm_impl.vm"] = _vm


class TestTimeout(BaseException):
    """Raised in the test's own frame when its time is up (BaseException: `except Exception` won't swallow it)."""


def _write(record: dict) -> None:
    if OUT:
        with open(OUT, "a", encoding="utf-8") as f:
            f.write(json.dumps(record) + "\n")


def first_error_line(longrepr) -> str:
    """The first line of the error that ended a test or a collection: `ExceptionType: message`."""
    crash = getattr(longrepr, "reprcrash", None)
    if crash is not None and crash.message:
        return crash.message.strip().splitlines()[0][:300]
    text = str(longrepr)
    for line in text.splitlines():
        if line.startswith("E "):
            return line[1:].strip()[:300]
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    return lines[-1][:300] if lines else "unknown error"


def pytest_collection_modifyitems(config, items):
    keep, drop = [], []
    for item in items:
        marks = {m.name for m in item.iter_markers()} & PLATFORM_MARKS
        (drop if marks and "cpu_linux" not in marks else keep).append(item)
    if drop:
        config.hook.pytest_deselected(items=drop)
        items[:] = keep


def _on_alarm(signum, frame):
    raise TestTimeout(f"test ran past the per-test limit of {TIMEOUT:g} s")


@pytest.hookimpl(wrapper=True)
def pytest_runtest_protocol(item, nextitem):
    if TIMEOUT > 0:
        signal.signal(signal.SIGALRM, _on_alarm)
    return (yield)


def _timed():
    if TIMEOUT > 0:
        signal.setitimer(signal.ITIMER_REAL, TIMEOUT)
    try:
        return (yield)
    finally:
        if TIMEOUT > 0:
            signal.setitimer(signal.ITIMER_REAL, 0)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_setup(item):
    return (yield from _timed())


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item):
    return (yield from _timed())


@pytest.hookimpl(wrapper=True)
def pytest_runtest_teardown(item, nextitem):
    return (yield from _timed())


def pytest_runtest_logreport(report):
    record = {"nodeid": report.nodeid, "when": report.when, "outcome": report.outcome}
    if report.failed:
        record["error"] = first_error_line(report.longrepr)
    elif report.skipped and hasattr(report, "wasxfail"):
        record["outcome"] = "xfailed"
    elif report.skipped and isinstance(report.longrepr, tuple):
        record["error"] = str(report.longrepr[-1])[:300]  # the skip reason
    _write(record)


def pytest_collectreport(report):
    if report.failed:
        _write({"collect_error": report.nodeid, "error": first_error_line(report.longrepr)})
