"""JAX's CPU platform beside an accelerator (kiln/_backend/platforms.py): host callbacks run on JAX's CPU device, so
`JAX_PLATFORMS=cuda` alone failed every host step inside a compiled program on the H200 (41 tests, session 20)."""

from __future__ import annotations

import jax
import pytest

from kiln import _backend as B
from kiln._backend import platforms


@pytest.mark.parametrize(
    ("named", "wanted"),
    [("cuda", "cuda,cpu"), ("cuda, rocm", "cuda,rocm,cpu"), ("tpu", "tpu,cpu"), ("cuda,cpu", None), ("cpu", None),
     ("", None), (None, None)],
)  # fmt: skip
def test_cpu_is_added_to_the_platforms_named(named, wanted):
    assert platforms.with_cpu(named) == wanted


@pytest.fixture
def named_platforms():
    before = jax.config.jax_platforms
    yield lambda value: jax.config.update("jax_platforms", value)
    jax.config.update("jax_platforms", before)


def test_before_jax_starts_cpu_is_added(named_platforms, monkeypatch):
    named_platforms("cuda")
    monkeypatch.setattr(platforms, "_started", lambda: False)
    assert platforms.ensure_cpu() == "cuda,cpu"
    assert jax.config.jax_platforms == "cuda,cpu"


def test_after_jax_started_without_cpu_a_warning_says_what_to_set(named_platforms):
    named_platforms("cuda")  # (this process's platforms are started: the setting changes nothing now)
    with pytest.warns(RuntimeWarning, match="JAX_PLATFORMS='cuda,cpu'"):
        assert platforms.ensure_cpu() is None
    assert jax.config.jax_platforms == "cuda"


def test_nothing_changes_when_cpu_is_named_or_nothing_is(named_platforms):
    for value in ("cpu", None):
        named_platforms(value)
        assert platforms.ensure_cpu() is None
        assert jax.config.jax_platforms == value


class _GpuDevice:  # JAX accepts a default device whose type name holds "Device"
    platform = "gpu"


@pytest.fixture
def default_device():
    before = jax.config.jax_default_device
    yield lambda value: jax.config.update("jax_default_device", value)
    jax.config.update("jax_default_device", before)


def test_the_platform_is_that_of_the_device_chosen(default_device):
    # device_target="CPU" on a GPU machine: the lowerings that depend on the platform (conv, pooling) must follow
    # the chosen device, not JAX's default backend (the GPU)
    default_device(_GpuDevice())
    assert B.default_platform() == "gpu"
    B.set_platform("CPU")
    assert B.default_platform() == "cpu"
    default_device("gpu")
    assert B.default_platform() == "gpu"
    default_device(None)
    assert B.default_platform() == jax.default_backend()
