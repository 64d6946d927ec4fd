"""Every PyNative test runs twice: with the lazy window (ops recorded and run as one program, the default) and
with `KILN_LAZY=0` (each op launched at once). A module pins one mode with `DISPATCH_MODES`."""

import pytest

from kiln._pynative import dispatch
from tests.pynative.window_reset import empty_window

MODES = ("lazy", "eager")


def pytest_generate_tests(metafunc):
    if "dispatch_mode" in metafunc.fixturenames:
        metafunc.parametrize("dispatch_mode", getattr(metafunc.module, "DISPATCH_MODES", MODES), indirect=True)


@pytest.fixture(autouse=True)
def dispatch_mode(request, monkeypatch):
    """The dispatch mode of this run, in this process and in the processes it starts."""
    mode = request.param
    monkeypatch.setattr(dispatch, "LAZY", mode == "lazy")
    monkeypatch.setenv("KILN_LAZY", "1" if mode == "lazy" else "0")
    dispatch.WINDOW.flush()  # nothing recorded by an earlier test runs under this one's mode
    yield mode
    dispatch.WINDOW.flush()


@pytest.fixture
def window(monkeypatch):
    """The dispatch window, empty, with no compiled program and no single-use count."""
    return empty_window(monkeypatch)
