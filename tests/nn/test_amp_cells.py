"""Mixed precision inside a Cell against MindSpore 2.10 (amp_goldens_mindspore.json, from amp_cases.py), each mode
against the goldens MindSpore wrote in that mode: PyNative casts the floating-point inputs of every op inside a
`to_float` Cell; GRAPH_MODE casts the Cell's inputs, its Tensor constants and the Parameters its code hands to an
operator (kiln/_compiler/frontend/ast/precision.py), so a value cast to float32 inside stays float32. Gradients
against float32 finite differences and against JAX on the same float16 casts."""

import json
import os
import threading

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import kiln
from kiln import nn, ops
from tests.nn import amp_cases

HERE = os.path.dirname(os.path.abspath(__file__))
with open(os.path.join(HERE, "amp_goldens_mindspore.json")) as f:
    GOLDENS = json.load(f)


@pytest.fixture(params=["pynative", "graph"])
def results(request):
    try:
        yield request.param, amp_cases.run(kiln, request.param)
    finally:
        kiln.set_context(mode=kiln.PYNATIVE_MODE)


# MindSpore's GRAPH_MODE refuses these with a TypeError (a float16 input meets a float32 Parameter in a functional
# MatMul: it casts the Parameter only where the Cell's own code hands it to an operator); Kiln runs them
REFUSED_BY_MINDSPORE_GRAPH = {"ops", "amp O2", "amp O3", "custom black list"}


def test_dtypes_and_values_as_mindspore_in_the_same_mode(results):
    mode, got = results
    want = GOLDENS[mode]
    assert got.keys() == want.keys()
    for name, w in want.items():
        g = got[name]
        assert not isinstance(g, str), (mode, name, g)
        if mode == "graph" and name in REFUSED_BY_MINDSPORE_GRAPH:
            assert w == "TypeError", name
            continue
        assert g["dtypes"] == w["dtypes"], (mode, name)
        # float16 results (and the float32 gradients, whose backward runs on float16 values): both frameworks
        # round the same float16 inputs; one float16 ulp (2**-10 relative) is the most a different order of
        # summation inside a MatMul, a reduction or a fused program moves them. Float32 ones differ by the float32
        # transcendentals (exp, softmax), which XLA and MindSpore's CPU kernels round differently (2e-6 seen).
        for gv, wv, dt in zip(g["values"], w["values"], w["dtypes"], strict=True):
            rtol = 1e-3 if dt == "Float16" or name == "gradients" else 1e-5
            np.testing.assert_allclose(gv, wv, rtol=rtol, atol=1e-6, err_msg=f"{mode} {name}")


def test_the_modes_differ_where_mindspores_do():
    # the goldens' cases whose dtypes differ between MindSpore's two modes: each mode of Kiln follows its own
    pyn, graph = GOLDENS["pynative"], GOLDENS["graph"]
    differ = {
        n
        for n in pyn
        if (pyn[n] if isinstance(pyn[n], str) else pyn[n]["dtypes"])
        != (graph[n] if isinstance(graph[n], str) else graph[n]["dtypes"])
    }
    assert differ == {"ops", "returns", "nested float32 in float16", "flag on the parent only",
                      "integer and float64 inputs", "jit function inside", "amp O2", "amp O3",
                      "custom black list", "float32 inside", "parameter uses"}  # fmt: skip
    assert {graph[n] for n in REFUSED_BY_MINDSPORE_GRAPH} == {"TypeError"}


class _Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.w = kiln.Parameter(kiln.Tensor(np.array([0.3, -0.6, 0.9], np.float32)), name="w")

    def construct(self, x):
        return (ops.exp(x * self.w) * 1.5 + ops.sin(x)).sum()


def _jax_loss(x, w, dtype):
    # the same ops with their inputs cast as a `to_float(dtype)` Cell casts them
    h = (x.astype(dtype) * w.astype(dtype)).astype(dtype)
    return (jnp.exp(h) * dtype(1.5) + jnp.sin(x.astype(dtype))).sum()


@pytest.mark.parametrize("mode", ["pynative", "graph"])
def test_gradients_of_a_float16_cell(mode):
    kiln.set_context(mode=kiln.GRAPH_MODE if mode == "graph" else kiln.PYNATIVE_MODE)
    try:
        net = _Net().to_float(kiln.float16)
        x = np.array([0.8, -0.5, 1.75], np.float32)
        gx, (gw,) = kiln.grad(net, grad_position=0, weights=net.trainable_params())(kiln.Tensor(x))
    finally:
        kiln.set_context(mode=kiln.PYNATIVE_MODE)
    w = net.w.asnumpy()
    assert (gx.dtype, gw.dtype, net.w.dtype) == (kiln.float32, kiln.float32, kiln.float32)
    # JAX on the same float16 casts: the cast's gradient returns each cotangent to float32 as Kiln's does
    jx, jw = jax.grad(_jax_loss, argnums=(0, 1))(jnp.asarray(x), jnp.asarray(w), jnp.float16)
    np.testing.assert_allclose(gx.asnumpy(), jx, rtol=2e-3, atol=0)
    np.testing.assert_allclose(gw.asnumpy(), jw, rtol=2e-3, atol=0)
    # float32 central differences on a float32 copy: the float16 forward rounds each op's inputs and outputs
    # (unit roundoff 2**-11 = 4.9e-4) through about four ops on each path, so 4e-3 relative bounds the gap
    f32 = jax.jit(lambda x, w: _jax_loss(x, w, jnp.float32))
    eps = np.float32(1e-3)
    for got, arg in ((gx.asnumpy(), 0), (gw.asnumpy(), 1)):
        fd = []
        for i in range(3):
            step = [np.zeros(3, np.float32), np.zeros(3, np.float32)]
            step[arg][i] = eps
            plus, minus = f32(x + step[0], w + step[1]), f32(x - step[0], w - step[1])
            fd.append((float(plus) - float(minus)) / (2 * float(eps)))
        np.testing.assert_allclose(got, fd, rtol=4e-3, atol=1e-3)


class _Float32Inside(nn.Cell):
    # a zoo pattern: the activations cast to float32 before an op that overflows float16 (exp(12) > 65504)
    def __init__(self):
        super().__init__()
        self.w = kiln.Parameter(kiln.Tensor(np.array([1.0, 0.5, -0.25], np.float32)), name="w")

    def construct(self, x):
        c = ops.cast(x * self.w, kiln.float32)
        return (ops.exp(c) * self.w).sum()


def _jax_float32_inside(x, w, graph):
    # MindSpore's GRAPH_MODE: the input and the Parameter an operator takes are cast, `c` stays float32 (and meets
    # the float16 Parameter, promoting); its PyNative casts `c` and the Parameter back to float16 at exp and `*`
    h = x.astype(jnp.float16) * w.astype(jnp.float16)
    c = h.astype(jnp.float32) if graph else h
    return (jnp.exp(c) * w.astype(jnp.float16)).astype(jnp.float32).sum()


@pytest.mark.parametrize("mode", ["pynative", "graph"])
def test_a_value_cast_to_float32_stays_float32_in_graph_mode_only(mode):
    kiln.set_context(mode=kiln.GRAPH_MODE if mode == "graph" else kiln.PYNATIVE_MODE)
    x = np.array([12.0, -1.0, 0.5], np.float32)
    small = np.array([3.0, -1.0, 0.5], np.float32)  # the gradient's path back through `x * w` is float16: finite here
    try:
        net = _Float32Inside().to_float(kiln.float16)
        loss = net(kiln.Tensor(x))
        gx, (gw,) = kiln.grad(net, grad_position=0, weights=net.trainable_params())(kiln.Tensor(small))
    finally:
        kiln.set_context(mode=kiln.PYNATIVE_MODE)
    graph = mode == "graph"
    w = net.w.asnumpy()
    want = _jax_float32_inside(jnp.asarray(x), jnp.asarray(w), graph)
    assert loss.dtype == (kiln.float32 if graph else kiln.float16)
    assert np.isfinite(float(want)) == graph  # float16 overflows in PyNative, as MindSpore's PyNative does
    np.testing.assert_allclose(loss.asnumpy().astype(np.float32), want, rtol=1e-3)
    jx, jw = jax.grad(_jax_float32_inside, argnums=(0, 1))(jnp.asarray(small), jnp.asarray(w), graph)
    assert (gx.dtype, gw.dtype) == (kiln.float32, kiln.float32)
    np.testing.assert_allclose(gx.asnumpy(), jx, rtol=2e-3, atol=1e-6)
    np.testing.assert_allclose(gw.asnumpy(), jw, rtol=2e-3, atol=1e-6)


class _Scale(nn.Cell):
    def construct(self, x):
        return x * 2.0


def test_to_float_after_a_graph_mode_call_compiles_again():
    # the compiled graph holds the casts: a new run dtype (or none) must not reuse it
    kiln.set_context(mode=kiln.GRAPH_MODE)
    try:
        net, x = _Scale(), kiln.Tensor(np.array([1.0, 2.0], np.float32))
        dtypes = [net(x).dtype]
        net.to_float(kiln.float16)
        dtypes.append(net(x).dtype)
        net.to_float(kiln.float32)
        dtypes.append(net(x).dtype)
    finally:
        kiln.set_context(mode=kiln.PYNATIVE_MODE)
    assert dtypes == [kiln.float32, kiln.float16, kiln.float32]


def test_another_threads_ops_are_not_cast():
    # a data-loading thread runs its ops while the network runs: a float16 Cell's casts are its own thread's
    seen, go, done = [], threading.Event(), threading.Event()

    def worker():
        go.wait()
        seen.append((kiln.Tensor(np.ones(2, np.float32)) * 2.0).dtype)
        done.set()

    class Waits(nn.Cell):
        def construct(self, x):
            go.set()
            done.wait(timeout=60)
            return x * 2.0

    thread = threading.Thread(target=worker)
    thread.start()
    out = Waits().to_float(kiln.float16)(kiln.Tensor(np.ones(2, np.float32)))
    thread.join()
    assert (out.dtype, seen) == (kiln.float16, [kiln.float32])


def test_gradients_after_a_float16_cell_ran():
    # once a to_float Cell has run, every op tests its primitive's amp_cast: the derived backward primitives
    # and the fused backward program carry it too
    _Scale().to_float(kiln.float16)(kiln.Tensor(np.ones(2, np.float32)))
    x = np.array([0.5, -1.25, 2.0], np.float32)
    # a second-order gradient: the outer level records the inner backward, which then runs op by op
    first = kiln.grad(lambda t: (ops.sin(t) * t).sum())
    got = kiln.grad(lambda t: first(t).sum())(kiln.Tensor(x))
    want = jax.grad(lambda t: jax.grad(lambda u: (jnp.sin(u) * u).sum())(t).sum())(x)
    np.testing.assert_allclose(got.asnumpy(), want, rtol=1e-5)


def _dense_batchnorm_float16():
    rng = np.random.RandomState(0)
    net = nn.SequentialCell([nn.Dense(4, 4), nn.BatchNorm1d(4)])
    net[0].weight.set_data(kiln.Tensor(rng.randn(4, 4).astype(np.float32)))
    net[0].bias.set_data(kiln.Tensor(rng.randn(4).astype(np.float32)))
    net[1].moving_mean.set_data(kiln.Tensor(np.array([0.1234567, -0.7654321, 0.3141593, 0.2718282], np.float32)))
    net.to_float(kiln.float16)
    net.set_train()
    return net, kiln.Tensor(rng.randn(8, 4).astype(np.float32))


def test_batchnorm_moving_statistics_stay_float32_inside_a_float16_cell():
    """BatchNorm's moving statistics are state (`amp_keep`): updated in float32 from the float16 batch, the
    Parameter's dtype kept. The values are MindSpore 2.10 PyNative's on this net (`_dense_batchnorm_float16` with
    `mindspore` for `kiln`, net(x) once); casting the statistics gave float16 Parameters rounded to float16
    (0.2393799 for the first)."""
    net, x = _dense_batchnorm_float16()
    net(x)
    mean = net[1].moving_mean
    assert mean.dtype == kiln.float32
    mindspore = [0.2393275797367096, -0.7661563754081726, 0.34249982237815857, 0.1314251571893692]
    np.testing.assert_allclose(mean.asnumpy(), mindspore, rtol=2e-6)


def test_a_float16_cells_gradient_replays_its_forward_state_exactly():
    """A forward then a gradient of a set_grad Cell moves BatchNorm's statistics once (the replay restores them):
    Kiln's saved copies are not cast to the Cell's float16."""

    class Loss(nn.Cell):
        def __init__(self, net):
            super().__init__()
            self.net = net

        def construct(self, x):
            return self.net(x).sum()

    net, x = _dense_batchnorm_float16()
    loss = Loss(net)
    loss.to_float(kiln.float16)
    loss.set_grad()
    loss.set_train()
    loss(x)
    after_forward = net[1].moving_mean.asnumpy().copy()
    ops.GradOperation(get_by_list=True)(loss, loss.trainable_params())(x)
    np.testing.assert_array_equal(net[1].moving_mean.asnumpy(), after_forward)
