"""nn.RNN / nn.LSTM / nn.GRU: values against a NumPy float64 loop, gradients against finite differences of it,
GRAPH_MODE and jit equal to PyNative, and one loop equation per layer and direction whatever the length."""

import numpy as np
import pytest

import kiln
from kiln import nn, ops
from kiln._compiler.api import jit
from kiln._prims import recurrent

LAYERS = {"LSTM": nn.LSTM, "GRU": nn.GRU, "RNN_TANH": nn.RNN, "RNN_RELU": nn.RNN}


def _sigmoid(v):
    return 1 / (1 + np.exp(-v))


def _reference_direction(mode, x, h, c, w_ih, w_hh, b_ih, b_hh, lengths):
    ys = np.zeros((x.shape[0], x.shape[1], h.shape[1]))
    for t in range(x.shape[0]):
        gx, gh = x[t] @ w_ih.T + b_ih, h @ w_hh.T + b_hh
        if mode == "LSTM":
            i, f, g, o = np.split(gx + gh, 4, axis=-1)
            c_new = _sigmoid(f) * c + _sigmoid(i) * np.tanh(g)
            h_new = _sigmoid(o) * np.tanh(c_new)
        elif mode == "GRU":
            (i_r, i_z, i_n), (h_r, h_z, h_n) = np.split(gx, 3, axis=-1), np.split(gh, 3, axis=-1)
            r, z = _sigmoid(i_r + h_r), _sigmoid(i_z + h_z)
            h_new, c_new = (1 - z) * np.tanh(i_n + r * h_n) + z * h, c
        else:
            pre = gx + gh
            h_new, c_new = (np.tanh(pre) if mode == "RNN_TANH" else np.maximum(pre, 0)), c
        live = (t < lengths)[:, None]
        h, c = np.where(live, h_new, h), np.where(live, c_new, c)
        ys[t] = np.where(live, h_new, 0)
    return ys, h, c


def _reverse_each(x, lengths):
    out = x.copy()
    for b, n in enumerate(lengths):
        out[:n, b] = x[:n, b][::-1]
    return out


def _reference(layer, mode, x, lengths, weights=None):
    """The layer's output and final states in float64, from its own Parameters (or `weights`, same order)."""
    weights = weights or [p.asnumpy().astype(np.float64) for p in layer.trainable_params()]
    per_kind = len(weights) // (4 if layer.has_bias else 2)
    w_ih, w_hh = weights[:per_kind], weights[per_kind : 2 * per_kind]
    b_ih = weights[2 * per_kind : 3 * per_kind] if layer.has_bias else None
    b_hh = weights[3 * per_kind :] if layer.has_bias else None
    steps, batch, hidden = x.shape[0], x.shape[1], layer.hidden_size
    lengths = np.full(batch, steps) if lengths is None else lengths
    layer_in, h_n, c_n = x, [], []
    for layer_index in range(layer.num_layers):
        outs = []
        for direction in range(layer.num_directions):
            k = layer_index * layer.num_directions + direction
            zero = np.zeros((batch, hidden))
            biases = (b_ih[k], b_hh[k]) if b_ih is not None else (0.0, 0.0)
            inp = layer_in if direction == 0 else _reverse_each(layer_in, lengths)
            ys, h, c = _reference_direction(mode, inp, zero, zero, w_ih[k], w_hh[k], *biases, lengths)
            outs.append(ys if direction == 0 else _reverse_each(ys, lengths))
            h_n.append(h)
            c_n.append(c)
        layer_in = np.concatenate(outs, axis=2)
    return layer_in, np.stack(h_n), np.stack(c_n)


def _layer(mode, **kw):
    kiln.set_seed(1)
    extra = {"nonlinearity": "relu" if mode == "RNN_RELU" else "tanh"} if mode.startswith("RNN") else {}
    return LAYERS[mode](3, 4, **extra, **kw)


@pytest.mark.parametrize("mode", list(LAYERS))
@pytest.mark.parametrize("lengths", [None, np.array([5, 2, 4], np.int32)])
@pytest.mark.parametrize("has_bias", [True, False])
def test_bidirectional_two_layers_match_numpy(mode, lengths, has_bias):
    layer = _layer(mode, num_layers=2, bidirectional=True, has_bias=has_bias)
    x = np.random.default_rng(0).standard_normal((5, 3, 3)).astype(np.float32)
    seq = None if lengths is None else kiln.Tensor(lengths)
    out, state = layer(kiln.Tensor(x), seq_length=seq)
    want, h_want, c_want = _reference(layer, mode, x.astype(np.float64), lengths)
    np.testing.assert_allclose(out.asnumpy(), want, rtol=1e-5, atol=1e-5)
    h = state[0] if mode == "LSTM" else state
    np.testing.assert_allclose(h.asnumpy(), h_want, rtol=1e-5, atol=1e-5)
    if mode == "LSTM":
        np.testing.assert_allclose(state[1].asnumpy(), c_want, rtol=1e-5, atol=1e-5)


def _loss_and_grads(layer, x, lengths, probe):
    seq = None if lengths is None else kiln.Tensor(lengths)

    def loss(x):
        out, _ = layer(x, seq_length=seq)
        return (out * probe).sum()

    return kiln.value_and_grad(loss, 0, layer.trainable_params())(x)


@pytest.mark.parametrize("mode", ["LSTM", "GRU", "RNN_TANH"])
def test_gradients_match_finite_differences(mode):
    layer = _layer(mode, bidirectional=True)
    rng = np.random.default_rng(2)
    x = rng.standard_normal((4, 3, 3))
    lengths = np.array([4, 1, 3], np.int32)
    probe = rng.standard_normal((4, 3, 8))
    _, (dx, dweights) = _loss_and_grads(
        layer, kiln.Tensor(x.astype(np.float32)), lengths, kiln.Tensor(probe.astype(np.float32))
    )
    weights = [p.asnumpy().astype(np.float64) for p in layer.trainable_params()]

    def f(x, weights):
        return float((_reference(layer, mode, x, lengths, weights)[0] * probe).sum())

    eps = 1e-6
    for index in [(0, 0, 0), (2, 1, 2), (3, 2, 1)]:
        up, down = x.copy(), x.copy()
        up[index] += eps
        down[index] -= eps
        assert dx.asnumpy()[index] == pytest.approx((f(up, weights) - f(down, weights)) / (2 * eps), rel=1e-3, abs=1e-4)
    for k in range(len(weights)):
        index = tuple(i // 2 for i in weights[k].shape)
        up = [w.copy() for w in weights]
        down = [w.copy() for w in weights]
        up[k][index] += eps
        down[k][index] -= eps
        want = (f(x, up) - f(x, down)) / (2 * eps)
        assert dweights[k].asnumpy()[index] == pytest.approx(want, rel=1e-3, abs=1e-4), layer.trainable_params()[k].name


@pytest.mark.parametrize("how", ["graph_mode", "jit"])
@pytest.mark.parametrize("mode", ["LSTM", "GRU"])
def test_graph_equals_pynative(how, mode):
    layer = _layer(mode, num_layers=2, bidirectional=True)
    rng = np.random.default_rng(3)
    x = kiln.Tensor(rng.standard_normal((6, 3, 3)).astype(np.float32))
    probe = kiln.Tensor(rng.standard_normal((6, 3, 8)).astype(np.float32))
    lengths = np.array([6, 3, 5], np.int32)
    eager = _loss_and_grads(layer, x, lengths, probe)
    try:
        if how == "graph_mode":
            kiln.set_context(mode=kiln.GRAPH_MODE)
            graph = _loss_and_grads(layer, x, lengths, probe)
        else:
            graph = jit(lambda x: _loss_and_grads(layer, x, lengths, probe))(x)
    finally:
        kiln.set_context(mode=kiln.PYNATIVE_MODE)
    np.testing.assert_allclose(float(graph[0]), float(eager[0]), rtol=1e-5, atol=1e-6)
    for g, e in zip([graph[1][0], *graph[1][1]], [eager[1][0], *eager[1][1]], strict=True):
        np.testing.assert_allclose(g.asnumpy(), e.asnumpy(), rtol=1e-4, atol=1e-5)


def test_graph_gradients_use_the_reverse_rule_and_forward_mode_over_them_still_works(monkeypatch):
    """A GRAPH_MODE gradient lowers each layer's loop through its reverse rule alone (the forward-mode rule,
    `_time_loop`, is not traced: half the tracing); forward mode over a gradient keeps that rule and gives what
    PyNative gives."""
    calls = []  # the forward-mode rule's uses by a backend derivative (recording a graph only evaluates shapes)
    time_loop = recurrent._time_loop

    def spy(*args):
        calls.extend(type(a).__name__ for a in args if type(a).__name__ in ("JVPTracer", "LinearizeTracer"))
        return time_loop(*args)

    monkeypatch.setattr(recurrent, "_time_loop", spy)
    layer = _layer("LSTM", num_layers=2, bidirectional=True)
    rng = np.random.default_rng(4)
    x = kiln.Tensor(rng.standard_normal((5, 2, 3)).astype(np.float32))
    probe = kiln.Tensor(rng.standard_normal((5, 2, 8)).astype(np.float32))
    v = kiln.Tensor(rng.standard_normal((5, 2, 3)).astype(np.float32))

    def grad_x(x):
        return ops.grad(lambda x: (layer(x)[0] * probe).sum())(x)

    eager = grad_x(x), ops.jvp(grad_x, x, v)
    calls.clear()
    graph_grad = jit(grad_x)(x)
    assert not calls  # reverse mode alone: the reverse rule, not the forward-mode one
    graph_jvp = jit(lambda x, v: ops.jvp(grad_x, x, v))(x, v)
    assert calls  # forward mode over the gradient: the forward-mode rule
    np.testing.assert_allclose(graph_grad.asnumpy(), eager[0].asnumpy(), rtol=1e-4, atol=1e-5)
    for g, e in zip(graph_jvp, eager[1], strict=True):
        np.testing.assert_allclose(g.asnumpy(), e.asnumpy(), rtol=1e-4, atol=1e-5)


def test_one_loop_equation_per_layer_whatever_the_length():
    layer = _layer("LSTM", num_layers=2, bidirectional=True)

    def equations(steps):
        f = jit(lambda x: layer(x)[0])
        f(kiln.Tensor(np.ones((steps, 2, 3), np.float32)))
        graph = next(iter(f._cache.entries.values()))[0].graph
        names = [e.prim.name for e in graph.eqns]
        return len(names), names.count("RecurrentScan")

    short, long = equations(3), equations(40)
    assert short == long and short[1] == 2  # 2 layers, one scan each running both directions


def test_cells_step_as_before():
    # The one-step cells keep their own path: one LSTMCell step equals the layer on a sequence of length 1.
    kiln.set_seed(4)
    cell = nn.LSTMCell(3, 4)
    layer = nn.LSTM(3, 4)
    for dst, src in zip(layer.trainable_params(), cell.trainable_params(), strict=True):
        dst.set_data(src.value())
    x = kiln.Tensor(np.random.default_rng(5).standard_normal((2, 3)).astype(np.float32))
    h, c = cell(x, (ops.zeros((2, 4)), ops.zeros((2, 4))))
    out, (h_n, c_n) = layer(ops.expand_dims(x, 0))
    np.testing.assert_allclose(h.asnumpy(), h_n.asnumpy()[0], rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(c.asnumpy(), c_n.asnumpy()[0], rtol=1e-6, atol=1e-6)


def test_float32_state_into_a_float16_layer_trains():
    # As under `to_float(float16)` with a float32 initial state (the zoo's CRNN): the state is cast to the
    # layer's dtype, so the gradients exist and equal those of a float16 state.
    kiln.set_seed(6)
    layer = nn.LSTM(3, 4, bidirectional=True).to_float(kiln.float16)
    rng = np.random.default_rng(6)
    x = kiln.Tensor(rng.standard_normal((5, 2, 3)).astype(np.float16))
    state = rng.standard_normal((2, 2, 4)).astype(np.float32)

    def grads(dtype):
        h0, c0 = kiln.Tensor(state.astype(dtype)), kiln.Tensor(state.astype(dtype) * 0.5)

        def loss(x):
            out, _ = layer(x, (h0, c0))
            return ops.cast(out, kiln.float32).sum()

        return kiln.grad(loss, grad_position=None, weights=layer.trainable_params())(x)

    for a, b in zip(grads(np.float32), grads(np.float16), strict=True):
        assert np.isfinite(a.asnumpy()).all() and np.abs(a.asnumpy()).sum() > 0
        np.testing.assert_array_equal(a.asnumpy(), b.asnumpy())


WRONG_INPUTS = {
    # (layer, input, hx): the error names the argument, the expected shape and the given one
    "input_size": (lambda: nn.LSTM(8, 16, batch_first=True), (2, 5, 7), None, "=8, but got x shape [2, 5, 7]"),
    "lstm_c0_batch": (
        lambda: nn.LSTM(8, 16, num_layers=2, bidirectional=True),
        (5, 2, 8),
        ((4, 2, 16), (4, 3, 16)),
        "'c_0' of 'hx' must have shape (num_layers * num_directions, batch, hidden_size) = [4, 2, 16], but got [4, 3",
    ),
    "gru_h0_2d": (lambda: nn.GRU(8, 16), (5, 2, 8), (2, 16), "= [1, 2, 16], but got [2, 16]"),
}


@pytest.mark.parametrize("case", list(WRONG_INPUTS))
@pytest.mark.parametrize("mode", ["pynative", "graph"])
def test_a_wrong_input_or_state_shape_names_the_layer_and_both_shapes(case, mode):
    # it failed inside the loop as an internal op ('RecurrentScan') listing its eight operands, without the
    # layer's name or which argument was wrong
    make, x_shape, hx_shapes, words = WRONG_INPUTS[case]
    net = make()
    x = kiln.Tensor(np.ones(x_shape, np.float32))
    hx = None
    if hx_shapes is not None:
        hx = (
            tuple(kiln.Tensor(np.zeros(s, np.float32)) for s in hx_shapes)
            if isinstance(hx_shapes[0], tuple)
            else kiln.Tensor(np.zeros(hx_shapes, np.float32))
        )
    kiln.set_context(mode=kiln.GRAPH_MODE if mode == "graph" else kiln.PYNATIVE_MODE)
    try:
        with pytest.raises(ValueError) as info:
            net(x) if hx is None else net(x, hx)
    finally:
        kiln.set_context(mode=kiln.PYNATIVE_MODE)
    msg = str(info.value)
    assert msg.startswith(f"For '{type(net).__name__}'") and words in msg
    assert "RecurrentScan" not in msg
