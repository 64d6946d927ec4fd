"""float16/bfloat16 programs round after each operation in every mode: a fused program (GRAPH_MODE, @jit, the lazy
window) gives the bits of the same operations run one by one (`xla_allow_excess_precision` off for programs that hold
such values, kiln/_backend/cache.py), and float16 chains give MindSpore's bits (goldens from
make_float16_goldens_mindspore.py); float32 programs keep XLA's defaults and their executables."""

from __future__ import annotations

import json
import os
import re

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import kiln
from kiln import Tensor, nn, ops
from kiln._backend import cache
from kiln._pynative import dispatch

HERE = os.path.dirname(os.path.abspath(__file__))
GOLDENS = os.path.join(HERE, "float16_goldens_mindspore.json")


class _Softmax(nn.Cell):
    """A softmax written out of primitives (each rounds to the input's dtype)."""

    def __init__(self) -> None:
        super().__init__()
        self.exp, self.max, self.sum = ops.Exp(), ops.ReduceMax(keep_dims=True), ops.ReduceSum(keep_dims=True)

    def construct(self, x, w, b):
        e = self.exp(x - self.max(x, -1))
        return e / self.sum(e, -1)


class _DenseGelu(nn.Cell):
    """x @ w.T + b, then the exact (erf) GELU."""

    def __init__(self) -> None:
        super().__init__()
        self.matmul, self.gelu = ops.MatMul(transpose_b=True), nn.GELU(approximate=False)

    def construct(self, x, w, b):
        return self.gelu(self.matmul(x, w) + b)


class _Chain(nn.Cell):
    """The float16 chains of make_float16_goldens_mindspore.py (the same operations, in the same order)."""

    def __init__(self, kind: str) -> None:
        super().__init__()
        self.kind = kind
        self.mean, self.sqrt, self.tanh = ops.ReduceMean(keep_dims=True), ops.Sqrt(), ops.Tanh()

    def construct(self, x, y, z, w):
        if self.kind == "polynomial":
            return ((x * y + z) * w + x) * y - z * w
        if self.kind == "layernorm":
            d = x - self.mean(x, -1)
            return d / self.sqrt(self.mean(d * d, -1) + 1e-5) * y + z
        return 0.5 * x * (1 + self.tanh(0.7978846 * (x + 0.044715 * x * x * x)))


def _run(net, args, how: str, monkeypatch) -> np.ndarray:
    """`net(*args)` op by op, in the lazy window, in GRAPH_MODE or under @jit, as float32 NumPy."""
    try:
        if how == "graph":
            kiln.set_context(mode=kiln.GRAPH_MODE)
            out = net(*args)
        elif how == "jit":
            out = kiln.jit(net)(*args)
        else:
            monkeypatch.setattr(dispatch, "LAZY", how == "lazy")
            out = net(*args)
        return out.astype(kiln.float32).asnumpy()
    finally:
        kiln.set_context(mode=kiln.PYNATIVE_MODE)


def _differing(a: np.ndarray, b: np.ndarray) -> int:
    return int(np.sum((a != b) & ~(np.isnan(a) & np.isnan(b))))


@pytest.mark.parametrize("dtype", ["bfloat16", "float16"])
@pytest.mark.parametrize("net", [_Softmax, _DenseGelu], ids=["softmax", "dense_gelu"])
def test_a_fused_program_rounds_as_the_ops_run_one_by_one(net, dtype, monkeypatch):
    """bfloat16 on the CPU: with XLA's excess precision the fused softmax differed from the op-by-op run in 244 of
    16,384 elements (GRAPH_MODE, @jit) and 15,890 (the lazy window), Dense+GELU in 2,696 of 8,192 (an operation's
    float32 value went on into the next one unrounded). float16 matched already on the CPU."""
    rng = np.random.default_rng(0)
    dt = getattr(kiln, dtype)
    args = [
        Tensor(rng.standard_normal((64, 256)).astype(np.float32), dt),
        Tensor((rng.standard_normal((128, 256)) * 0.1).astype(np.float32), dt),
        Tensor((rng.standard_normal((128,)) * 0.1).astype(np.float32), dt),
    ]
    one_by_one = _run(net(), args, "op by op", monkeypatch)
    for how in ("lazy", "graph", "jit"):
        assert _differing(_run(net(), args, how, monkeypatch), one_by_one) == 0, how


@pytest.mark.parametrize("kind", ["polynomial", "layernorm", "gelu_tanh"])
@pytest.mark.parametrize("how", ["op by op", "lazy", "graph", "jit"])
def test_float16_chains_give_mindspores_bits(kind, how, monkeypatch):
    with open(GOLDENS) as f:
        goldens = json.load(f)
    shape = tuple(goldens["shape"])
    inputs = [Tensor(np.asarray(v, np.uint16).view(np.float16).reshape(shape)) for v in goldens["inputs"]]
    got = _run(_Chain(kind), inputs, how, monkeypatch).astype(np.float16)
    for mode in ("pynative", "graph"):  # MindSpore's two modes agree on these
        want = np.asarray(goldens[kind][mode], np.uint16).view(np.float16).reshape(shape)
        assert _differing(got, want) == 0, mode


def _bf16_softmax(x):
    e = jnp.exp(x - jnp.max(x, -1, keepdims=True))
    return e / jnp.sum(e.astype(jnp.float32), -1, keepdims=True).astype(x.dtype)


def test_only_programs_with_low_precision_values_get_the_option(monkeypatch):
    monkeypatch.setenv("XLA_FLAGS", "")
    f32 = jax.jit(_bf16_softmax).lower(jnp.ones((4, 8), jnp.float32)).as_text()
    bf16 = jax.jit(_bf16_softmax).lower(jnp.ones((4, 8), jnp.bfloat16)).as_text()
    f16_in_f32_program = jax.jit(lambda x: x.astype(jnp.float16).astype(jnp.float32)).lower(1.0).as_text()
    assert cache._program_options(f32, on_cpu=False) is None
    assert cache._program_options(bf16, on_cpu=False) == cache._LOW_PRECISION_OPTIONS
    assert cache._program_options(f16_in_f32_program, on_cpu=False) == cache._LOW_PRECISION_OPTIONS
    assert cache.exact_rounding_options([np.float32, np.int32]) is None
    assert cache.exact_rounding_options([np.float32, jnp.bfloat16]) == cache._LOW_PRECISION_OPTIONS
    monkeypatch.setenv("XLA_FLAGS", "--xla_allow_excess_precision=true")  # the user's setting wins
    assert cache._program_options(bf16, on_cpu=False) is None
    assert cache.exact_rounding_options([jnp.float16]) is None


def test_the_option_leaves_a_float32_program_as_it_was():
    """Why float32 programs need not be told apart for their own sake: XLA compiles them to the same program with the
    option (checked here on the CPU's optimised HLO of a softmax, a dot with GELU and a scan)."""

    def program(x, w):
        h = jax.nn.gelu(x @ w) + jax.nn.softmax(x)
        return jax.lax.scan(lambda c, r: (jnp.tanh(c + r), c.sum()), h[0], h)[0]

    args = (jnp.ones((8, 8), jnp.float32), jnp.ones((8, 8), jnp.float32))
    texts = [
        re.sub(r", metadata=\{[^}]*\}", "", jax.jit(program).lower(*args).compile(options).as_text())
        for options in (None, cache._LOW_PRECISION_OPTIONS)
    ]
    assert texts[0] == texts[1]
