"""The multi-tensor optimizer steps' declared output types (`shapes`): the types JAX gives their `impl`, traced once
per kind of parameter instead of once per parameter."""

from __future__ import annotations

import jax
import numpy as np
import pytest

import kiln
from kiln import Parameter, Tensor, nn, ops
from kiln._prims import state as S

F32, F16 = np.dtype(np.float32), np.dtype(np.float16)
# (primitive, number of per-parameter states, number of shared scalars)
FUSED = [
    (S.FusedMomentum, 1, 1),
    (S.FusedSGD, 2, 1),
    (S.FusedAdam, 2, 5),
    (S.FusedAdamAmsgrad, 3, 5),
    (S.FusedAdamOffload, 2, 5),
    (S.FusedAdamWeightDecay, 2, 3),
]
# parameters of repeated kinds (a kind: the inputs' ranks and dtypes, so (8, 2) is of (4, 16)'s kind), two dtypes, a
# 1-D learning-rate table, a gradient of another dtype
PARAMS = [
    ((4, 16), F32, ()),
    ((16,), F32, ()),
    ((4, 16), F32, ()),
    ((3,), F16, ()),
    ((4, 16), F32, (5,)),
    ((16,), F32, ()),
    ((8, 2), F32, ()),
    ((7,), F32, ()),
]
N = len(PARAMS)


def _inputs(n_states: int, n_scalars: int, weight_decay: tuple, grad_dtype=None):
    s = jax.ShapeDtypeStruct
    params = [s(shape, dt) for shape, dt, _ in PARAMS]
    grads = [s(shape, grad_dtype or dt) for shape, dt, _ in PARAMS]
    states = [s(shape, dt) for _ in range(n_states) for shape, dt, _ in PARAMS]
    lrs = [s(lr, F32) for _, _, lr in PARAMS]
    scalars = [s((), F32) for _ in range(n_scalars)]
    dynamic = [s((1,), F32) for wd in weight_decay if wd is None]
    return (s((1,), np.dtype(np.int32)), *params, *grads, *states, *lrs, *scalars, *dynamic)


def _attrs(weight_decay: tuple, centralize: tuple, loss_scale: float, prim) -> dict:
    options = {"FusedSGD": (0.0, False)}.get(prim.name, (False,))
    if prim is S.FusedAdamAmsgrad or prim is S.FusedAdamWeightDecay:
        options = ()
    return {"n": len(PARAMS), "weight_decay": weight_decay, "grad_centralization": centralize,
            "loss_scale": loss_scale, "options": options}  # fmt: skip


def _types(tree) -> list:
    return [(tuple(x.shape), np.dtype(x.dtype)) for x in jax.tree_util.tree_leaves(tree)]


@pytest.mark.parametrize(("prim", "n_states", "n_scalars"), FUSED, ids=[p.name for p, _, _ in FUSED])
@pytest.mark.parametrize(
    ("weight_decay", "centralize", "loss_scale", "grad_dtype"),
    [
        ((0.0,) * N, (False,) * N, 1.0, None),
        (
            (0.1, None, 0.0, 0.1, None, 0.0, 0.1, None),
            (True, False, False, False, True, False, True, True),
            128.0,
            None,
        ),
        ((0.0,) * N, (False,) * N, 1.0, F16),
    ],
    ids=["plain", "decay-centralize-scale", "f16-gradients"],
)
def test_declared_types_are_the_traced_types(prim, n_states, n_scalars, weight_decay, centralize, loss_scale,
                                             grad_dtype):  # fmt: skip
    args = _inputs(n_states, n_scalars, weight_decay, grad_dtype)
    attrs = _attrs(weight_decay, centralize, loss_scale, prim)
    traced = jax.eval_shape(lambda *a: prim.impl(*a, **attrs), *args)
    assert _types(prim.shapes(*args, **attrs)) == _types(traced)


@pytest.fixture
def fresh_update_traces():
    """The backend's trace caches emptied before and after: the fused optimizers' per-parameter updates are traced
    once per process (`_traced_once`), so a test that patches one must neither see earlier traces nor leave its own."""
    jax.clear_caches()
    yield
    jax.clear_caches()


def test_one_trace_per_kind_of_parameter(monkeypatch, fresh_update_traces):
    calls = []
    adam = S._adam

    def counted(*a):
        calls.append(a[0].shape)
        return adam(*a)

    monkeypatch.setattr(S, "_adam", counted)
    weight_decay = (0.0,) * N
    S.FusedAdam.shapes(*_inputs(2, 5, weight_decay), **_attrs(weight_decay, (False,) * N, 1.0, S.FusedAdam))
    # four kinds: 2-D float32 ((4, 16) twice, (8, 2)), 1-D float32 ((16,) twice, (7,)), 1-D float16 ((3,)), and
    # 2-D float32 with a 1-D learning-rate table, whose update (the rate already read from its table) is the first
    # kind's program: three traces
    assert sorted(calls) == sorted([(4, 16), (16,), (3,)])


def test_an_update_that_does_not_keep_shapes_is_traced_per_shape(monkeypatch, fresh_update_traces):
    # a (hypothetical) update whose outputs are not its parameter's shape: kinds by rank would give (8, 2) the
    # outputs traced on (4, 16), so the declared types come from one trace per exact shape instead
    adam = S._adam

    def flattening(*a):
        return tuple(jax.numpy.ravel(x) for x in adam(*a))

    monkeypatch.setattr(S, "_adam", flattening)
    weight_decay = (0.0,) * N
    args = _inputs(2, 5, weight_decay)
    attrs = _attrs(weight_decay, (False,) * N, 1.0, S.FusedAdam)
    traced = jax.eval_shape(lambda *a: S.FusedAdam.impl(*a, **attrs), *args)
    assert _types(S.FusedAdam.shapes(*args, **attrs)) == _types(traced)


@pytest.mark.parametrize("mode", ["pynative", "graph"])
@pytest.mark.parametrize("optimizer", ["SGD", "Momentum", "ApplyMomentum"])
def test_update_rounds_the_step_before_subtracting(optimizer, mode):
    # XLA's CPU code fused p - lr * g into one multiply-add: 1 - 0.1 * 7 gave 0.29999998, and 8,891 of these 100,000
    # float32 updates were one ulp from MindSpore 2.10's (its SGD and Momentum kernels round lr * g first: 0 of
    # 100,000 apart from this NumPy reference, checked in both modes)
    rng = np.random.default_rng(0)
    p = np.concatenate([[1.0], rng.standard_normal(100_000)]).astype(np.float32)
    g = np.concatenate([[7.0], rng.standard_normal(100_000)]).astype(np.float32)
    kiln.set_context(mode=kiln.GRAPH_MODE if mode == "graph" else kiln.PYNATIVE_MODE)
    try:
        w = Parameter(Tensor(p.copy()), name="w")
        if optimizer == "ApplyMomentum":
            accum = Parameter(Tensor(np.zeros_like(p)), name="accum")
            ops.ApplyMomentum()(w, accum, Tensor(np.float32(0.1)), Tensor(g), Tensor(np.float32(0.9)))
        else:
            opt = nn.SGD([w], 0.1) if optimizer == "SGD" else nn.Momentum([w], 0.1, 0.9)
            opt((Tensor(g),))
    finally:
        kiln.set_context(mode=kiln.PYNATIVE_MODE)
    np.testing.assert_array_equal(w.asnumpy(), p - np.float32(0.1) * g)
    assert w.asnumpy()[0] == np.float32(0.3)


def test_rounded_product_keeps_nan_and_infinity():
    x = jax.numpy.asarray(np.array([np.nan, -np.nan, np.inf, -np.inf, 0.5, -0.0], np.float32))
    got = np.asarray(jax.jit(S._rounded)(x))
    np.testing.assert_array_equal(np.isnan(got), np.isnan(np.asarray(x)))
    np.testing.assert_array_equal(got[2:], np.asarray(x)[2:])
    half = jax.numpy.asarray(np.array([np.nan, 1.5], np.float16))
    assert np.isnan(np.asarray(S._rounded(half))[0])
