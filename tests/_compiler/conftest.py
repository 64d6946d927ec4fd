"""Fixtures of the graph-compiler tests: the mode is reset and IR files go to a temporary folder."""

import pytest

import kiln
import kiln._compiler.api
import kiln.nn

kiln._compiler.api.install_cell_runner(kiln.nn.Cell)


@pytest.fixture(autouse=True)
def _reset_mode(tmp_path):
    kiln.set_context(mode=kiln.PYNATIVE_MODE, save_graphs=0, save_graphs_path=str(tmp_path))
    yield
    kiln.set_context(mode=kiln.PYNATIVE_MODE, save_graphs=0, save_graphs_path=".", jit_syntax_level=None)
