"""An empty dispatch window for tests that count the lazy window's programs and compiles."""

from kiln._pynative import dispatch


def empty_window(monkeypatch):
    """The dispatch window, flushed, with no compiled program, no single-use count and nothing refused (restored
    after the test by `monkeypatch`)."""
    w = dispatch.WINDOW
    w.flush()
    monkeypatch.setattr(w, "programs", {})
    monkeypatch.setattr(w, "single_use", set())
    monkeypatch.setattr(w, "refused", {})
    return w
