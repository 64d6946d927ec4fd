"""Host steps of a compiled program whose failure the backend reports only once the program's effects are waited
for, as on a GPU (a program runs there after its launch returns, and its host callbacks on another thread).

Session 20 on an H200: one host step's failure (a user's exception, or a host step's new result shape, which Kiln
raises on purpose to compile again) surfaced at a later read as the backend's error, and JAX's token of ordered
effects then carried it into every later program with a print or host step of the process. `callbacks.settle` waits
for the effects where Kiln runs such a program, raises the failure there, and drops the failed token.

The CPU runs a callback during its launch; the deferral is simulated: the host callback keeps its exception and
returns placeholder values, and JAX's effects barrier raises it, as the GPU's runtime token does.
"""

from __future__ import annotations

import numpy as np
import pytest

import kiln
from kiln import Tensor, ops
from kiln import _backend as B
from kiln._backend import callbacks
from kiln._compiler import lower


@pytest.fixture
def deferred(monkeypatch):
    """Host callbacks of compiled programs fail as on a GPU: at the effects barrier, not during the launch."""
    failures: list[BaseException] = []
    real_io_callback = B.io_callback

    def io_callback(fn, structs, *values, **kwargs):
        def later(*xs):
            try:
                return fn(*xs)
            except Exception as err:  # noqa: BLE001  (reported at the barrier, as the GPU's token reports it)
                failures.append(RuntimeError(f"INTERNAL: CpuCallback error calling callback: {err}"))
                return tuple(np.zeros(s.shape, s.dtype) for s in structs)

        return real_io_callback(later, structs, *values, **kwargs)

    real_barrier = B.jax.effects_barrier

    def barrier():
        real_barrier()
        if failures:
            raise failures.pop()

    monkeypatch.setattr(lower.B, "io_callback", io_callback)
    monkeypatch.setattr(B.jax, "effects_barrier", barrier)
    return failures


def test_a_host_step_failing_after_launch_raises_the_users_error_at_the_call(deferred):
    @kiln.jit
    def fn(x):
        return Tensor(np.linalg.cholesky(x.asnumpy())) * 2  # a host step: NumPy on the run-time value

    # the first call types the host step on its inputs (it runs while compiling); the second runs it in the program
    eye = np.eye(2, dtype=np.float32)
    np.testing.assert_array_equal(fn(Tensor(eye)).asnumpy(), 2 * eye)
    with pytest.raises(np.linalg.LinAlgError):
        fn(Tensor(-eye))  # not positive definite: the host step raises when the program runs
    assert not deferred  # reported once, at the call
    np.testing.assert_allclose(fn(Tensor(4 * eye)).asnumpy(), 4 * eye)


def test_a_host_step_of_a_new_shape_compiles_again_when_reported_after_launch(deferred):
    # masked_select's count changes: its host step raises HostShapeChanged, the call compiles again (it was the
    # backend's error at a later read on the GPU)
    def fn(x, mask):
        return ops.masked_select(x, mask).sum() * 2

    f = kiln.jit(fn)
    x = np.arange(6, dtype=np.float32)
    for mask in (x > 2, x > 0, x > 4):
        np.testing.assert_allclose(f(Tensor(x), Tensor(mask)).asnumpy(), x[mask].sum() * 2)
    assert not deferred


class _FailedToken:
    def block_until_ready(self):
        raise RuntimeError("INTERNAL: CpuCallback error calling callback: [kiln user callback #-1]")


def test_settle_raises_a_failed_token_once_and_drops_it(capsys):
    tokens = B.jax._src.dispatch.runtime_tokens
    tokens.current_tokens["a failed host step"] = _FailedToken()
    with pytest.raises(RuntimeError, match="CpuCallback"):
        callbacks.settle()
    assert not tokens.current_tokens and not tokens.output_runtime_tokens
    callbacks.settle()  # nothing left to raise

    @kiln.jit
    def prints(x):
        print("x is", x)
        return x + 1

    np.testing.assert_array_equal(prints(Tensor(np.ones(2, np.float32))).asnumpy(), [2, 2])
    assert "x is" in capsys.readouterr().out


class _FailsAtRead:
    """An output whose program failed after its launch: reading it raises the backend's error (as a GPU's does)."""

    def __init__(self, text: str) -> None:
        self.text = text

    def __array__(self, dtype=None, copy=None):
        raise RuntimeError(self.text)


def test_an_allocation_failure_reported_at_a_read_is_a_memory_error():
    backend_text = (
        "RESOURCE_EXHAUSTED: Out of memory while trying to allocate 64.00PiB with allocator GPU_0_bfc on device 0. "
        "[executable_name='jit_a_lazy_window_of_4_ops']"
    )
    with pytest.raises(MemoryError, match=r"ran out of memory while allocating 65536\.00 TiB") as err:
        B.distributed.to_host(_FailsAtRead(backend_text))
    assert "jax" not in str(err.value).lower() and err.value.__cause__ is None


def test_a_host_callbacks_failure_reported_at_a_read_is_the_users_exception():
    def user_function(x):
        raise KeyError("the user's own")

    with pytest.raises(Exception) as carried:  # noqa: PT011  (Kiln's carrier: the token the backend's text holds)
        callbacks.guarded(user_function, "the 'PyFunc' op")(1)
    with pytest.raises(KeyError, match="the user's own"):
        B.distributed.to_host(_FailsAtRead(f"INTERNAL: CpuCallback error calling callback: {carried.value}"))


def test_other_failures_at_a_read_stay_the_backends():
    with pytest.raises(RuntimeError, match="something else"):
        B.distributed.to_host(_FailsAtRead("INTERNAL: something else"))
