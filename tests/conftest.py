"""Fixtures shared by the whole suite.

Every test starts in PyNative mode, so a test that switches to Graph mode and fails
cannot change how the tests after it run.
"""

from __future__ import annotations

import os

import numpy as np
import pytest

# Tests watch what tracing does: graphs are not loaded from the on-disk cache (a second run of the suite on the
# same folder would trace nothing). The tests of that cache turn it on in their own processes.
os.environ.setdefault("KILN_GRAPH_CACHE", "0")

import kiln  # noqa: E402


@pytest.fixture(autouse=True)
def _pynative_mode(tmp_path_factory):
    # Graph dumps and analyze_fail.ir go to a scratch folder, never into the working tree.
    kiln.set_context(mode=kiln.PYNATIVE_MODE, save_graphs_path=str(tmp_path_factory.getbasetemp()))
    yield
    kiln.set_context(mode=kiln.PYNATIVE_MODE)


@pytest.fixture
def rng() -> np.random.Generator:
    """A NumPy generator with a fixed seed, for test data."""
    return np.random.default_rng(0)


def _has_gpu() -> bool:
    from kiln._backend import devices

    return bool(devices("gpu"))


def pytest_collection_modifyitems(config, items):
    """Tests marked `gpu` need an NVIDIA GPU visible to JAX (`pip install "kiln[cuda12]"`); skip them without."""
    gpu_tests = [item for item in items if item.get_closest_marker("gpu")]
    if gpu_tests and not _has_gpu():
        skip = pytest.mark.skip(reason="needs a GPU: JAX sees none (install kiln[cuda12] on a machine with one)")
        for item in gpu_tests:
            item.add_marker(skip)
