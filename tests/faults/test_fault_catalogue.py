"""The fault catalogue (tests/faults/cases.py) run on Kiln: every bad input fails loudly, in Kiln's own words.

Each case states the exception type and fragments of its message; no case may show the backend's
wording. `kiln run` cases run the command in a subprocess and check its exit status and stderr. The
MindSpore 2.10 behaviour recorded beside each case is re-checked by `catalogue_mindspore.py`.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import warnings

import numpy as np
import pytest

import kiln
from kiln import context as ctx
from kiln._core import primitive
from tests.faults.cases import CASES, KILL_MID_SAVE, PRELUDE, RUN_CASES, RUN_OPTION_CASES

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
# Backend words a user must never see in an error (case-sensitive where the word is also English).
BACKEND_WORDS = ("jax", "Jax", "JAX", "jaxlib", "XLA", "Traced", "For simplicity", "ShapedArray")


@pytest.fixture
def clean_context():
    """Each case may change settings: restore them, and let 'warn once' warn again."""
    saved = dict(ctx._context)
    saved_checks = primitive.checks_enabled()
    ctx._warned.clear()
    yield
    ctx._context.clear()
    ctx._context.update(saved)
    primitive.set_checks(saved_checks)
    ctx._warned.clear()


def _shown_chain(err: BaseException) -> list[BaseException]:
    """The exceptions Python prints for `err`: itself and its causes / unsuppressed contexts."""
    chain = [err]
    while True:
        e = chain[-1]
        nxt = e.__cause__ if e.__cause__ is not None else (None if e.__suppress_context__ else e.__context__)
        if nxt is None or nxt in chain:
            return chain
        chain.append(nxt)


def _no_backend_words(text: str) -> None:
    for word in BACKEND_WORDS:
        assert word not in text, f"backend wording {word!r} reached the user: {text}"


def _run_case(case, tmp_path):
    env = {"ms": kiln}
    exec(PRELUDE, env)
    env["tmp"] = str(tmp_path)
    exec(case.code, env)
    # as a user waiting for the device would: an op whose check runs when its recorded window runs raises here
    kiln.synchronize()
    return env


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_fault(case, tmp_path, clean_context):
    assert case.mindspore, f"{case.id}: record what MindSpore 2.10 does"
    if case.exc is None:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            env = _run_case(case, tmp_path)
        if case.check:
            assert eval(case.check, env), f"{case.id}: {case.check} is false for {env.get('out')}"
        if case.warns:
            messages = [str(w.message) for w in caught]
            assert any(case.warns in m for m in messages), f"{case.id}: no warning with {case.warns!r}: {messages}"
        return
    with pytest.raises(BaseException) as info:
        _run_case(case, tmp_path)
    err = info.value
    assert type(err).__name__ == case.exc, f"{case.id}: {type(err).__name__}: {err}"
    message = str(err)
    for fragment in case.fragments:
        assert fragment in message, f"{case.id}: {fragment!r} missing from: {message}"
    for shown in _shown_chain(err):
        _no_backend_words(str(shown))


def test_catalogue_size_and_ids():
    ids = [c.id for c in CASES] + [c.id for c in RUN_CASES] + [c[0] for c in RUN_OPTION_CASES]
    assert len(ids) == len(set(ids)), "case ids must be unique"
    assert len(ids) >= 80
    areas = {c.area for c in CASES}
    assert {"shapes", "dtypes", "indices", "labels", "context", "checkpoint", "dataset", "numerics"} <= areas


def test_bad_index_raises_before_anything_is_written():
    x = kiln.Tensor(np.zeros(4, np.float32))
    with pytest.raises(IndexError):
        x[kiln.Tensor([0, 7])] = 1.0
    np.testing.assert_array_equal(x.asnumpy(), np.zeros(4, np.float32))


def test_checks_switch_restores():
    x6 = kiln.Tensor(np.arange(6, dtype=np.float32))
    kiln.set_context(runtime_checks=False)
    try:
        out = kiln.ops.gather(x6, kiln.Tensor([1, 10]), 0)  # unchecked: the backend's own result, no error
        assert out.shape == (2,)
    finally:
        kiln.set_context(runtime_checks=True)
    with pytest.raises(IndexError):
        kiln.ops.gather(x6, kiln.Tensor([1, 10]), 0)


def test_bounds_check_in_gradient_code():
    # the forward call checks; the recorded backward of a checked op runs unchecked and stays correct
    x = kiln.Tensor(np.arange(6, dtype=np.float32))
    grad = kiln.grad(lambda t: kiln.ops.gather(t, kiln.Tensor([1, -1, 1]), 0).sum())(x)
    np.testing.assert_array_equal(grad.asnumpy(), [0, 2, 0, 0, 0, 1])
    with pytest.raises(IndexError, match="Gather"):
        kiln.grad(lambda t: kiln.ops.gather(t, kiln.Tensor([1, 6]), 0).sum())(x)


# ---- kiln run ---------------------------------------------------------------------------------------
def _kiln(args, cwd):
    env = dict(os.environ)
    env["PYTHONPATH"] = REPO + os.pathsep + env.get("PYTHONPATH", "")
    return subprocess.run(
        [sys.executable, "-m", "kiln", *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=300
    )


@pytest.mark.parametrize("case", RUN_CASES, ids=[c.id for c in RUN_CASES])
def test_kiln_run(case, tmp_path):
    assert case.mindspore
    script = str(tmp_path / "user_script.py")
    if case.script == "<dir>":
        script = str(tmp_path)
    elif case.script is not None:
        with open(script, "w") as f:
            f.write(case.script)
    out = _kiln(["run", script, *case.args], cwd=tmp_path)
    assert out.returncode == case.status, f"{case.id}: exit {out.returncode}\n{out.stderr}"
    for fragment in case.stderr:
        fragment = fragment.replace("{script}", script)
        assert fragment in out.stderr, f"{case.id}: {fragment!r} missing from stderr:\n{out.stderr}"
    for word in case.absent:
        assert word not in out.stderr, f"{case.id}: {word!r} in stderr:\n{out.stderr}"
    if case.lines:
        assert len(out.stderr.strip().splitlines()) == case.lines, out.stderr
    if "Traceback" in out.stderr:  # the traceback starts in the user's script, as under `python script.py`
        first_frame = out.stderr.split("Traceback (most recent call last):\n", 1)[1].splitlines()[0]
        assert f'File "{script}"' in first_frame, out.stderr


@pytest.mark.parametrize(("case_id", "argv", "status", "fragment", "mindspore"), RUN_OPTION_CASES)
def test_kiln_command_line(case_id, argv, status, fragment, mindspore, tmp_path):
    out = _kiln(list(argv), cwd=tmp_path)
    assert out.returncode == status, out.stderr
    assert fragment in out.stderr and len(out.stderr.strip().splitlines()) == 1, out.stderr
    assert mindspore


# ---- checkpoints: a kill mid-save ---------------------------------------------------------------------
def test_kill_mid_save_leaves_the_old_checkpoint(tmp_path):
    """KILL_MID_SAVE: the old file stays whole when the process dies while writing the new one."""
    assert all(KILL_MID_SAVE)
    path = str(tmp_path / "net.ckpt")
    old = {"w": kiln.Tensor(np.full((64, 64), 1.0, np.float32))}
    kiln.save_checkpoint(old, path)
    writer = textwrap.dedent(
        f"""
        import os, signal
        import numpy as np
        import kiln
        from kiln._core import atomic_files as _atomic

        real_write = _atomic._write

        def dying_write(f, chunk):
            real_write(f, chunk[: len(chunk) // 2])
            f.flush()
            os.kill(os.getpid(), signal.SIGKILL)  # killed halfway through the new file

        _atomic._write = dying_write
        kiln.save_checkpoint({{"w": kiln.Tensor(np.full((64, 64), 2.0, np.float32))}}, {path!r})
        """
    )
    env = dict(os.environ)
    env["PYTHONPATH"] = REPO + os.pathsep + env.get("PYTHONPATH", "")
    proc = subprocess.run([sys.executable, "-c", writer], env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == -signal.SIGKILL, proc.stderr
    loaded = kiln.load_checkpoint(path)
    np.testing.assert_array_equal(loaded["w"].asnumpy(), np.full((64, 64), 1.0, np.float32))
