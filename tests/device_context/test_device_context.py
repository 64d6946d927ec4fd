"""`kiln.device_context` has MindSpore 2.10's layout: cpu / gpu / ascend, each with device_count and is_available;
gpu.op_precision's two switches act (tests/_backend/test_precision.py); every other setting warns once."""

from __future__ import annotations

import warnings

import pytest

import kiln
from kiln import _backend as B
from kiln.device_context import ascend, cpu, gpu


def test_the_layout_is_mindspores():
    assert kiln.device_context.gpu.op_precision.matmul_allow_tf32 is gpu.matmul_allow_tf32
    assert kiln.device_context.gpu.op_precision.conv_allow_tf32 is gpu.conv_allow_tf32
    assert kiln.device_context.ascend.op_precision.precision_mode is ascend.precision_mode
    for module in (cpu, gpu, ascend):
        assert callable(module.device_count) and callable(module.is_available)


def test_devices_are_counted_as_jax_sees_them():
    assert cpu.is_available() and cpu.device_count() == 1
    assert gpu.is_available() == bool(B.devices("gpu"))
    if gpu.is_available():
        assert gpu.device_count() == len(B.devices("gpu"))
    else:
        with pytest.raises(RuntimeError, match="GPU not exist"):
            gpu.device_count()
    assert not ascend.is_available()
    with pytest.raises(RuntimeError, match="Ascend not exist"):
        ascend.device_count()


@pytest.mark.parametrize(
    "setting",
    [cpu.op_tuning.threads_num, gpu.op_tuning.conv_fprop_algo, gpu.op_tuning.conv_wgrad_algo,
     gpu.op_tuning.conv_dgrad_algo, ascend.op_precision.precision_mode, ascend.op_tuning.op_compile,
     ascend.op_debug.execute_timeout],
)  # fmt: skip
def test_a_setting_kiln_does_not_act_on_warns_once(setting):
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        setting(4)
        setting(8)
    assert len(seen) <= 1  # (none when an earlier test of this process already called it)
    assert all("has no effect in Kiln" in str(w.message) for w in seen)
