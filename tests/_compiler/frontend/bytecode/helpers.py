"""Run a program under plain Python (PyNative) and under bytecode capture; compare values and printed output."""

from __future__ import annotations

import contextlib
import io

import numpy as np

import kiln as ms
from kiln import Tensor


def to_py(v):
    """Values with Tensors as NumPy arrays (for comparison)."""
    if isinstance(v, Tensor):
        return ("T", v.asnumpy())
    if isinstance(v, (list, tuple)):
        return (type(v).__name__, [to_py(x) for x in v])
    if isinstance(v, dict):
        return ("dict", {k: to_py(x) for k, x in v.items()})
    return v


def assert_same(a, b, rtol=1e-5):
    if isinstance(a, tuple) and len(a) == 2 and a[0] == "T":
        assert isinstance(b, tuple) and b[0] == "T", (a, b)
        assert a[1].shape == b[1].shape and a[1].dtype == b[1].dtype, (a[1], b[1])
        np.testing.assert_allclose(a[1], b[1], rtol=rtol, atol=1e-6)
    elif isinstance(a, tuple) and len(a) == 2 and a[0] in ("list", "tuple"):
        assert b[0] == a[0] and len(a[1]) == len(b[1]), (a, b)
        for x, y in zip(a[1], b[1], strict=True):
            assert_same(x, y, rtol)
    elif isinstance(a, tuple) and len(a) == 2 and a[0] == "dict":
        assert b[0] == "dict" and list(a[1]) == list(b[1]), (a, b)
        for k in a[1]:
            assert_same(a[1][k], b[1][k], rtol)
    else:
        assert type(a) is type(b) and a == b, (a, b)


def run(fn, *args, **kwargs):
    """(value or exception type, printed text)."""
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        try:
            out = to_py(fn(*args, **kwargs))
        except Exception as err:  # noqa: BLE001  (compared with the other run)
            out = ("raised", type(err))
    return out, buf.getvalue()


def check(fn, *calls):
    """Each call (a tuple of arguments) gives the same value and output under capture as in plain Python."""
    jitted = ms.jit(fn, capture_mode="bytecode")
    for args in calls:
        want, want_text = run(fn, *args)
        got, got_text = run(jitted, *args)
        assert_same(want, got)
        assert got_text == want_text
    return jitted


def t(*shape, seed=0, dtype=np.float32):
    return Tensor(np.random.default_rng(seed).standard_normal(shape).astype(dtype))
