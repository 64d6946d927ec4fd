"""set/get/reset_cost_model_context: MindSpore 2.10's keys, defaults and checks, kept and read back; setting one
warns once that Kiln has no strategy-search cost model (the zoo's Arcface sets three before init())."""

import warnings

import pytest

from kiln._core import unsupported
from kiln.parallel import _cost_model_context as cost_model_context

# What MindSpore 2.10's get_cost_model_context returns for these keys before any set (probed with it on CPU)
MINDSPORE_DEFAULTS = {
    "device_memory_capacity": 17179869184.0,
    "costmodel_beta": 400.0,
    "costmodel_gamma": 0.0010000000474974513,
    "run_phase": 0,
    "costmodel_allreduce_fusion_times": 0,
    "costmodel_allreduce_fusion_tail_percent": 0.1,
}


@pytest.fixture(autouse=True)
def _fresh(monkeypatch):
    monkeypatch.setattr(unsupported, "_warned", set())
    cost_model_context.reset_cost_model_context()
    yield
    cost_model_context.reset_cost_model_context()


def test_defaults_are_mindspores():
    assert {k: cost_model_context.get_cost_model_context(k) for k in MINDSPORE_DEFAULTS} == MINDSPORE_DEFAULTS


def test_arcface_settings_are_kept_warned_once_and_reset():
    with pytest.warns(UserWarning, match="set_cost_model_context has no effect in Kiln"):
        cost_model_context.set_cost_model_context(
            device_memory_capacity=32.0 * 1024.0 * 1024.0 * 1024.0, costmodel_gamma=0.001, costmodel_beta=280.0
        )
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        cost_model_context.set_cost_model_context(run_phase=1)  # said once
    assert cost_model_context.get_cost_model_context("costmodel_beta") == 280.0
    assert cost_model_context.get_cost_model_context("run_phase") == 1
    cost_model_context.reset_cost_model_context()
    assert cost_model_context.get_cost_model_context("costmodel_beta") == 400.0


def test_bad_keys_and_values_are_refused():
    with pytest.raises(ValueError, match="unknown key 'foo'"):
        cost_model_context.set_cost_model_context(foo=1)
    with pytest.raises(TypeError, match="'costmodel_alpha' must be a float, but got 1"):
        cost_model_context.set_cost_model_context(costmodel_alpha=1)
    with pytest.raises(ValueError, match="'run_phase' must be 0 .training. or 1"):
        cost_model_context.set_cost_model_context(run_phase=2)
    with pytest.raises(ValueError, match="unknown key 'bar'"):
        cost_model_context.get_cost_model_context("bar")
    assert cost_model_context.get_cost_model_context("costmodel_alpha") == 1.0
