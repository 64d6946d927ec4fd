"""dataset.config: the setters built from the option table take MindSpore's parameter, check it and record it."""

from __future__ import annotations

import inspect

import pytest

from kiln.dataset import config

# setting -> (the setter's parameter, a valid value, an invalid value, the error the invalid one raises)
CASES = {
    "prefetch_size": ("size", 8, 0, ValueError),
    "num_parallel_workers": ("num", 2, 0, ValueError),
    "numa_enable": ("numa_enable", True, 1, TypeError),
    "monitor_sampling_interval": ("interval", 10, -1, ValueError),
    "callback_timeout": ("timeout", 5, 0, ValueError),
    "auto_num_workers": ("enable", True, "yes", TypeError),
    "enable_shared_mem": ("enable", False, None, TypeError),
    "auto_offload": ("offload", True, 0, TypeError),
    "autotune_interval": ("interval", 3, -1, ValueError),
    "enable_watchdog": ("enable", False, 1, TypeError),
    "multiprocessing_timeout_interval": ("interval", 30, 0, ValueError),
    "fast_recovery": ("fast_recovery", False, "no", TypeError),
    "dynamic_shape": ("is_dynamic", True, 1, TypeError),
    "multiprocessing_start_method": ("start_method", "spawn", "forkserver", ValueError),
    "video_backend": ("backend", "Ascend", "GPU", ValueError),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_a_table_setter_takes_its_parameter_checks_and_records(name):
    param, good, bad, error = CASES[name]
    setter, getter = getattr(config, f"set_{name}"), getattr(config, f"get_{name}")
    assert list(inspect.signature(setter).parameters) == [param]
    assert setter.__name__ == f"set_{name}" and f"{param}:" in setter.__doc__
    old = getter()
    try:
        setter(**{param: good})
        assert getter() == good
        with pytest.raises(error):
            setter(bad)
        assert getter() == good
        with pytest.raises(TypeError, match=f"set_{name}"):
            setter(good, good)
    finally:
        setter(old)


def test_the_start_method_parameter_defaults_to_fork():
    try:
        config.set_multiprocessing_start_method("spawn")
        config.set_multiprocessing_start_method()
        assert config.get_multiprocessing_start_method() == "fork"
    finally:
        config.set_multiprocessing_start_method("fork")
