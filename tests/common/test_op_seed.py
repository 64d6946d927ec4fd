"""`mindspore.common.seed`'s names: set_seed/get_seed and the seed pairs of random kernels (_get_graph_seed)."""

import pytest

import kiln
from kiln.common import op_seed as seed
from kiln.common.initializer import (
    _assignment,
    _calculate_correct_fan,
    _calculate_fan_in_and_fan_out,
    _calculate_gain,
)


@pytest.fixture
def _no_global_seed(monkeypatch):
    monkeypatch.setattr(seed, "get_seed", lambda: None)
    monkeypatch.setattr(seed, "_uses", {})


def test_no_seed_lets_the_kernel_choose(_no_global_seed):
    assert seed._get_graph_seed(None, "normal") == (0, 0)
    assert seed._get_graph_seed(0, "normal") == (0, 0)


def test_op_seed_advances_per_use_of_the_kernel(_no_global_seed):
    first = seed._get_graph_seed(5, "dropout")
    second = seed._get_graph_seed(5, "dropout")
    assert first == (0, 5)  # the op seed itself on the first use, as MindSpore gives it
    assert second[0] == 0 and second[1] != 5
    assert seed._get_graph_seed(5, "uniform") == (0, 5)  # counted per kernel
    with pytest.raises(ValueError):
        seed._get_graph_seed(-1, "dropout")


def test_global_seed_is_the_graph_seed(monkeypatch):
    monkeypatch.setattr(seed, "_uses", {})
    monkeypatch.setattr(seed, "get_seed", lambda: 3)
    assert seed._get_graph_seed(None, "normal") == (3, 0)
    assert seed._get_graph_seed(7, "normal") == (3, 7)
    monkeypatch.setattr(seed, "get_seed", lambda: 0)
    assert seed._get_graph_seed(None, "gamma") == (87654321, 0)


def test_set_seed_is_kilns():
    assert seed.set_seed is kiln.set_seed


def test_initializer_private_helpers_match_mindspore():
    # Values from MindSpore 2.10's mindspore.common.initializer.
    assert _calculate_fan_in_and_fan_out((64, 3, 3, 3)) == (27, 576)
    assert _calculate_correct_fan((64, 3, 3, 3), "fan_in") == 27
    assert _calculate_correct_fan([10, 20], "fan_out") == 10
    assert _calculate_gain("leaky_relu", 0.2) == pytest.approx(1.3867504905630728)
    assert _calculate_gain("tanh") == pytest.approx(5 / 3)
    import numpy as np

    arr = np.zeros((2, 2))
    assert _assignment(arr, 3) is arr and (arr == 3).all()
