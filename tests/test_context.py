"""Parameter-server settings (kiln/context.py): MindSpore 2.10's keys, defaults and checks; enable_ps without a
server role trains as without it, as MindSpore 2.10 does when no MS_ROLE is set."""

import warnings

import numpy as np
import pytest

import kiln as ms
from kiln import context, nn

# What MindSpore 2.10 returns from get_ps_context after reset_ps_context (probed with it on CPU)
MINDSPORE_DEFAULTS = {
    "enable_ps": False,
    "config_file_path": "",
    "enable_ssl": False,
    "ms_role": "MS_NOT_PS",
    "worker_num": 0,
    "server_num": 0,
    "scheduler_ip": "127.0.0.1",
    "scheduler_port": 6667,
}


@pytest.fixture(autouse=True)
def _fresh_ps_context(monkeypatch):
    monkeypatch.delenv("MS_ROLE", raising=False)
    monkeypatch.setattr(context, "_warned", set())
    ms.reset_ps_context()
    yield
    ms.reset_ps_context()


def test_defaults_are_mindspores_and_reachable_from_both_modules():
    assert {k: ms.get_ps_context(k) for k in MINDSPORE_DEFAULTS} == MINDSPORE_DEFAULTS
    assert context.set_ps_context is ms.set_ps_context and ms.context.get_ps_context is ms.get_ps_context


def test_settings_are_kept_and_reset():
    ms.set_ps_context(config_file_path="/tmp/recovery.json", enable_ssl=True, scheduler_port=1234)
    assert ms.get_ps_context("config_file_path") == "/tmp/recovery.json"
    assert ms.get_ps_context("enable_ssl") is True and ms.get_ps_context("scheduler_port") == 1234
    ms.reset_ps_context()
    assert ms.get_ps_context("scheduler_port") == 6667


def test_bad_keys_and_types_are_refused_and_nothing_is_set():
    with pytest.raises(ValueError, match="unknown key 'foo'"):
        ms.set_ps_context(foo=1)
    with pytest.raises(TypeError, match="'enable_ps' must be a bool, but got int 1"):
        ms.set_ps_context(enable_ps=1)
    with pytest.raises(TypeError, match="'worker_num' must be a int"):
        ms.set_ps_context(scheduler_port=1, worker_num="2")
    assert ms.get_ps_context("scheduler_port") == 6667
    ms.set_ps_context(client_password="secret")  # settable, as in MindSpore, but never read back
    with pytest.raises(ValueError, match="unknown key 'client_password'"):
        ms.get_ps_context("client_password")


def _one_sgd_step():
    net = nn.Dense(2, 1, weight_init="ones", bias_init="zeros")
    step = nn.TrainOneStepCell(nn.WithLossCell(net, nn.MSELoss()), nn.SGD(net.trainable_params(), 0.1))
    step(ms.Tensor(np.ones((2, 2), np.float32)), ms.Tensor(np.zeros((2, 1), np.float32)))
    return net.weight.asnumpy()


def test_enable_ps_without_a_server_role_trains_as_without_it_and_says_so_once():
    plain = _one_sgd_step()
    with pytest.warns(UserWarning, match="no parameter server"):
        ms.set_ps_context(enable_ps=True)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ms.set_ps_context(enable_ps=True)  # said once
    assert ms.get_ps_context("enable_ps") is True
    np.testing.assert_array_equal(_one_sgd_step(), plain)
    np.testing.assert_allclose(plain, 1 - 0.1 * 2 * 2, rtol=1e-6)  # d/dw mean((x.w)^2) = 2 * x.w * x = 4


@pytest.mark.parametrize("role", ["MS_PSERVER", "MS_SCHED"])
def test_enable_ps_in_a_server_or_scheduler_process_is_refused(monkeypatch, role):
    monkeypatch.setenv("MS_ROLE", role)
    with pytest.raises(NotImplementedError, match=f"in a {role} process"):
        ms.set_ps_context(enable_ps=True)
    assert ms.get_ps_context("enable_ps") is False
