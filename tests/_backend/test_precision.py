"""float32 matmuls in full float32 and convolutions in TF32 on a GPU, as MindSpore's defaults (kiln/_backend/
precision.py, `kiln.device_context.gpu.op_precision`). On the H200 JAX's default ran a float32 matmul in TF32
(3,045 of 4,096 entries off by up to 0.0127 against NumPy, session 20).

The CPU's programs must stay exactly as they were; a GPU machine is simulated for the rest (the settings only choose
the `precision` each dot and convolution carries into XLA, which the lowered program shows)."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import kiln
from kiln import Tensor, ops
from kiln import _backend as B
from kiln._backend import precision
from kiln._prims.nn.conv import _forward
from kiln.device_context.gpu import op_precision


def _lowered(x, w):
    """The program of a matmul and a convolution, as XLA receives it."""

    def both(x, w):
        return jnp.matmul(x[0, 0], x[0, 0].T), _forward(x, w, (1, 1), [(0, 0), (0, 0)], (1, 1), 1, "NCHW")

    return jax.jit(both).lower(x, w).as_text()


def _precisions(text: str) -> tuple[str, str]:
    dot = text.split("stablehlo.dot_general", 1)[1].split("\n", 1)[0]
    conv = text.split("stablehlo.convolution", 1)[1].split("\n", 1)[0]
    return ("HIGHEST" if "HIGHEST" in dot else "DEFAULT"), ("HIGHEST" if "HIGHEST" in conv else "DEFAULT")


X, W = jnp.ones((1, 1, 4, 4), jnp.float32), jnp.ones((1, 1, 3, 3), jnp.float32)


def test_a_cpu_machines_programs_are_unchanged():
    assert jax.config.jax_default_matmul_precision is None
    assert precision.conv_precision() is None
    text = _lowered(X, W)
    assert "HIGHEST" not in text
    # exactly what plain JAX lowers for the same computation (no precision chosen)
    plain = jax.jit(
        lambda x, w: (
            jnp.matmul(x[0, 0], x[0, 0].T),
            jax.lax.conv_general_dilated(x, w, (1, 1), [(0, 0), (0, 0)], dimension_numbers=("NCHW", "OIHW", "NCHW")),
        )
    )
    assert _precisions(text) == _precisions(plain.lower(X, W).as_text()) == ("DEFAULT", "DEFAULT")


@pytest.fixture
def gpu_machine(monkeypatch):
    monkeypatch.setattr(precision, "_machine_has_gpu", lambda: True)
    precision._apply()
    yield
    monkeypatch.undo()
    precision.set_allowed(matmul_tf32=False, conv_tf32=True)
    assert jax.config.jax_default_matmul_precision is None


def test_on_a_gpu_matmuls_are_full_float32_and_convolutions_tf32_by_default(gpu_machine):
    assert _precisions(_lowered(X, W)) == ("HIGHEST", "DEFAULT")


@pytest.mark.filterwarnings("ignore:.*applies on a GPU only")
def test_each_switch_reaches_its_own_operation(gpu_machine):
    op_precision.matmul_allow_tf32(True)
    assert _precisions(_lowered(X, W)) == ("DEFAULT", "DEFAULT")
    op_precision.conv_allow_tf32(False)
    assert _precisions(_lowered(X, W)) == ("DEFAULT", "HIGHEST")
    op_precision.matmul_allow_tf32(False)
    assert _precisions(_lowered(X, W)) == ("HIGHEST", "HIGHEST")
    assert precision.allowed() == (False, False)


@pytest.mark.filterwarnings("ignore:.*applies on a GPU only")
def test_a_switch_compiles_again(gpu_machine):
    @kiln.jit
    def fn(x):
        return ops.matmul(x, x.T)

    x = Tensor(np.arange(6, dtype=np.float32).reshape(2, 3))
    fn(x)
    ops.matmul(x, x.T).asnumpy()  # a PyNative kernel too
    compiles, key = fn._cache.compiles, B.cache.env_key()
    assert B.cache.resident() > 0
    fn(x)
    assert fn._cache.compiles == compiles  # (a hit)
    op_precision.conv_allow_tf32(False)
    assert B.cache.resident() == 0  # every kernel's executable forgotten
    assert B.cache.env_key() != key  # what is kept on disk is keyed on the setting
    np.testing.assert_allclose(fn(x).asnumpy(), x.asnumpy() @ x.asnumpy().T)
    assert fn._cache.compiles == compiles + 1


def test_the_settings_take_bools_only():
    with pytest.raises(TypeError, match="must be bool"):
        op_precision.matmul_allow_tf32(1)
    with pytest.raises(TypeError, match="must be bool"):
        op_precision.conv_allow_tf32("yes")


def test_a_users_own_jax_matmul_precision_stays(monkeypatch):
    jax.config.update("jax_default_matmul_precision", "bfloat16")
    try:
        monkeypatch.setattr(precision, "_machine_has_gpu", lambda: True)
        precision._apply()
        assert jax.config.jax_default_matmul_precision == "bfloat16"
    finally:
        jax.config.update("jax_default_matmul_precision", None)
        monkeypatch.undo()
        precision._apply()
    assert jax.config.jax_default_matmul_precision is None
