"""Differential corpus: generated programs under bytecode capture equal plain Python on every call.

Each program (see `program_gen`) runs on a sequence of calls that changes values, shapes, Python constants and a
global between calls; the return values, the printed text, the raised exception type, and the caller's dict,
list and the module's global list after each call must equal plain Python's. KILN_BYTECODE_CORPUS sets the
number of programs (default 16).
"""

import os

import numpy as np
import pytest

import kiln as ms
from kiln import Tensor

from . import program_gen
from .helpers import assert_same, run, to_py

N = int(os.environ.get("KILN_BYTECODE_CORPUS", "16"))


def _calls():
    rng = np.random.default_rng(7)

    def arr(n):
        return Tensor(rng.standard_normal(n).astype(np.float32))

    return [
        dict(x=arr(4), y=arr(4), c=1.0, gain=1.5),
        dict(x=arr(4), y=arr(4), c=1.0, gain=1.5),
        dict(x=arr(5), y=arr(5), c=1.0, gain=1.5),
        dict(x=arr(4), y=arr(4), c=4.0, gain=0.5),
    ]


@pytest.mark.parametrize("seed", range(N))
def test_program_equals_plain_python(seed):
    src = program_gen.make_program(seed)
    ns = {"__name__": f"bytecode_corpus_{seed}"}
    exec(compile(src, f"<bytecode corpus {seed}>", "exec"), ns)  # noqa: S102  (a generated test program)
    prog = ns["prog"]
    jitted = ms.jit(prog, capture_mode="bytecode")
    for i, call in enumerate(_calls()):
        results = []
        for fn in (prog, jitted):
            ns["G_LIST"][:] = [0.5]
            ns["G_CFG"]["gain"] = call["gain"]
            cfg, acc = {"a": 1}, []
            out, text = run(fn, call["x"], call["y"], call["c"], cfg, acc)
            results.append((out, text, to_py(cfg), to_py(acc), list(ns["G_LIST"])))
        want, got = results
        where = f"program {seed}, call {i}:\n{src}"
        try:
            assert_same(want[0], got[0])
            assert want[1] == got[1], (want[1], got[1])
            assert_same(want[2], got[2])
            assert_same(want[3], got[3])
            assert want[4] == got[4]
        except AssertionError as err:
            raise AssertionError(f"{where}\n{err}") from None
