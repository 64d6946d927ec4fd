"""A user's Python function that Kiln runs on the host (ops.Custom pyfunc, PyFunc) raises its own exception.

The backend reports a failed callback as its own runtime error (text only); Kiln reported that as "Kiln failed
internally". The user's exception must come back as itself, with the frames of their function, in PyNative (lazy
window and op by op), GRAPH_MODE and @jit.
"""

from __future__ import annotations

import logging
import traceback

import numpy as np
import pytest

import kiln
from kiln import Tensor, nn, ops
from kiln._pynative import dispatch

RAISED: list[BaseException] = []


class UserProblem(Exception):
    """The user's own exception type (no Kiln or backend code raises it)."""


def _user_function(x):
    err = UserProblem(f"the user's function refused {x.shape}")
    RAISED.append(err)
    raise err  # the user's failing line


USER_LINE = _user_function.__code__.co_firstlineno + 3


def _custom():
    return ops.Custom(_user_function, out_shape=(3,), out_dtype=kiln.float32, func_type="pyfunc")


class _Net(nn.Cell):
    def __init__(self) -> None:
        super().__init__()
        self.op = _custom()

    def construct(self, x):
        return self.op(x * 2) + 1


def _call(how: str, monkeypatch):
    x = Tensor(np.arange(3, dtype=np.float32))
    if how == "graph":
        kiln.set_context(mode=kiln.GRAPH_MODE)
        return _Net()(x)
    if how == "jit":
        return kiln.jit(lambda v: _custom()(v * 2) + 1)(x)
    monkeypatch.setattr(dispatch, "LAZY", how == "lazy")
    return (_custom()(x * 2) + 1).asnumpy()


@pytest.mark.parametrize("how", ["lazy", "op by op", "graph", "jit"])
def test_the_users_exception_comes_back_as_itself(how, monkeypatch, caplog):
    RAISED.clear()
    with caplog.at_level(logging.ERROR), pytest.raises(UserProblem) as err:
        _call(how, monkeypatch)
    # the object the user raised (the lazy window raises a copy of it, as it does for every op's error)
    assert err.value is RAISED[-1] or (how == "lazy" and err.value.args == RAISED[-1].args)
    assert str(err.value) == "the user's function refused (3,)"
    frames = traceback.extract_tb(err.value.__traceback__)
    assert (frames[-1].filename, frames[-1].lineno, frames[-1].name) == (__file__, USER_LINE, "_user_function")
    shown = "".join(traceback.format_exception(err.value))
    assert "jax" not in shown.lower().replace("kiln_lazy", "")
    assert "internal" not in shown.lower()
    assert f"_user_function ({__file__}:{USER_LINE})" in shown  # the note names the function, its file and line
    assert not [r for r in caplog.records if r.exc_info]  # the backend logged no page of its own frames
    # Kiln goes on working after it
    kiln.set_context(mode=kiln.PYNATIVE_MODE)
    np.testing.assert_array_equal((Tensor(np.ones(2, np.float32)) * 3).asnumpy(), [3, 3])


@pytest.mark.parametrize("how", ["lazy", "op by op", "graph"])
def test_a_result_that_does_not_match_the_declaration_is_the_users_error(how, monkeypatch):
    x = Tensor(np.arange(3, dtype=np.float32))
    two = ops.Custom(lambda v: (v, v), out_shape=(3,), out_dtype=kiln.float32, func_type="pyfunc")
    if how == "graph":
        kiln.set_context(mode=kiln.GRAPH_MODE)
        run = kiln.jit(two)
    else:
        monkeypatch.setattr(dispatch, "LAZY", how == "lazy")
        run = two
    with pytest.raises(ValueError, match="returned 2 value"):
        Tensor(run(x)).asnumpy()


def test_an_internal_failure_is_still_reported_as_kilns():
    # the user's-exception path only takes failures of a user's function: any other backend failure stays Kiln's
    err = RuntimeError("INTERNAL: something in the backend")
    out = dispatch.diagnose(dispatch.REGISTRY["Neg"], (Tensor(np.ones(2)),), (), err)
    assert isinstance(out, RuntimeError)
    assert "failed internally" in str(out)


CALLS: list[str] = []


def _counted(name: str, fails: bool):
    def fn(v):
        CALLS.append(name)  # the user's side effect: must happen once per call of the op
        if fails:
            raise UserProblem(name)
        return v

    return ops.Custom(fn, out_shape=lambda s: s, out_dtype=lambda t: t, func_type="pyfunc")


@pytest.mark.parametrize("how", ["lazy", "op by op", "graph", "jit"])
def test_a_failing_users_function_runs_once_per_call(how, monkeypatch):
    # the lazy window ran its program (the functions ran), failed, then reran its ops one by one to find the
    # failing one (they ran again): a counter counted 2 where KILN_LAZY=0 and MindSpore 2.10 count 1
    CALLS.clear()
    passes, fails = _counted("passes", False), _counted("fails", True)

    def step(v):
        return fails(passes(v * 2) + 1) + 1

    x = Tensor(np.arange(3, dtype=np.float32))
    if how in ("graph", "jit"):
        kiln.set_context(mode=kiln.GRAPH_MODE if how == "graph" else kiln.PYNATIVE_MODE)
        step = kiln.jit(step)
    else:
        monkeypatch.setattr(dispatch, "LAZY", how == "lazy")
    try:
        with pytest.raises(UserProblem, match="fails"):
            Tensor(step(x)).asnumpy()
    finally:
        kiln.set_context(mode=kiln.PYNATIVE_MODE)
    assert CALLS == ["passes", "fails"]


@pytest.mark.parametrize("lazy", [True, False])
def test_a_users_function_in_a_gradient_runs_once_per_call(lazy, monkeypatch):
    # the lazy window ran a pyfunc when a value was needed, after the line that called it (here: after the gradient
    # returned); MindSpore 2.10 PyNative and KILN_LAZY=0 run it at its line, once per call
    monkeypatch.setattr(dispatch, "LAZY", lazy)
    CALLS.clear()
    forward, backward = _counted("forward", False), _counted("backward", False)
    c = Tensor(np.ones(3, np.float32))

    class Doubled(nn.Cell):
        def construct(self, v):
            return v * 2

        def bprop(self, v, out, dout):
            return (backward(dout) * 2,)

    doubled = Doubled()

    def loss(v):
        return (forward(c) * doubled(v)).sum()

    x = Tensor(np.arange(3, dtype=np.float32))
    grad = kiln.grad(loss)(x)
    assert CALLS == ["forward", "backward"]  # before any value is read
    np.testing.assert_allclose(grad.asnumpy(), np.full(3, 2.0))
    assert CALLS == ["forward", "backward"]


@pytest.mark.parametrize("lazy", [True, False])
def test_a_users_function_called_for_its_side_effect_runs(lazy, monkeypatch):
    # the lazy window computed only the outputs still referenced when it ran: a pyfunc whose result was dropped
    # never ran (MindSpore 2.10 PyNative and KILN_LAZY=0 run it at its line)
    monkeypatch.setattr(dispatch, "LAZY", lazy)
    CALLS.clear()
    x = Tensor(np.arange(3, dtype=np.float32))
    _counted("logged", False)(x * 2)
    np.testing.assert_array_equal((x + 1).asnumpy(), np.arange(3) + 1)
    assert CALLS == ["logged"]
