"""Fixtures shared by the whole suite.

Every test starts in PyNative mode, so a test that switches to Graph mode and fails
cannot change how the tests after it run.
"""

from __future__ import annotations

import numpy as np
import pytest

import kiln


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
