"""RecurrentScan's written-out derivative: the same gradients as the backend's reverse of the plain scan, in
reverse mode, forward mode and second order, with `seq_length` masking, for every step kind; a bidirectional
layer's two directions batched in one loop give what each direction gives alone."""

from __future__ import annotations

import numpy as np
import pytest

from benchmarks import bench_rnn
from kiln._backend import jax, jnp, lax
from kiln._prims import recurrent
from kiln._prims.recurrent import STEPS, _recurrent_scan

T, N, I, H = 7, 3, 4, 5
_GATES = {"LSTM": 4, "GRU": 3, "RNN_TANH": 1, "RNN_RELU": 1}


def _plain_scan(x, h0, c0, w_ih, w_hh, b_ih, b_hh, seq_length, mode):
    """The loop as a plain scan, differentiated by the backend (the reference)."""
    step = STEPS[mode]
    times = jnp.arange(x.shape[0], dtype=seq_length.dtype)

    def body(carry, inputs):
        g, t = inputs
        h, c = step(carry, g, carry[0] @ w_hh.T + b_hh)
        live = (t < seq_length)[:, None]
        return (jnp.where(live, h, carry[0]), jnp.where(live, c, carry[1])), jnp.where(live, h, 0 * h)

    (h, c), ys = lax.scan(body, (h0, c0), (x @ w_ih.T + b_ih, times))
    return ys, h, c


def _one_direction(x, h0, c0, w_ih, w_hh, b_ih, b_hh, seq_length, mode, reverse=False):
    """One direction through `_recurrent_scan` (whose states carry a direction axis)."""
    ys, h, c = _recurrent_scan(x, seq_length, h0[None], c0[None], w_ih, w_hh, b_ih, b_hh, mode=mode, reverse=(reverse,))
    return ys, h[0], c[0]


def _inputs(mode):
    rng = np.random.default_rng(0)
    g = _GATES[mode] * H

    def arr(*shape):
        return jnp.asarray(rng.standard_normal(shape).astype(np.float32) * 0.5)

    diff = (arr(T, N, I), arr(N, H), arr(N, H), arr(g, I), arr(g, H), arr(g), arr(g))
    probes = (arr(T, N, H), arr(N, H), arr(N, H))
    return diff, jnp.asarray(np.array([T, 3, 5], np.int32)), probes


def _loss(scan, mode, seq_length, probes):
    def loss(*diff):
        ys, h, c = scan(*diff, seq_length, mode)
        return (ys * probes[0]).sum() + (h * probes[1]).sum() + (jnp.tanh(c) * probes[2]).sum()

    return loss


def _close(a, b):
    for x, y in zip(jax.tree.leaves(a), jax.tree.leaves(b), strict=True):
        np.testing.assert_allclose(np.asarray(x), np.asarray(y), rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("mode", sorted(STEPS))
def test_values_and_reverse_gradients_match_the_plain_scan(mode):
    diff, seq_length, probes = _inputs(mode)
    new, ref = _loss(_one_direction, mode, seq_length, probes), _loss(_plain_scan, mode, seq_length, probes)
    argnums = tuple(range(len(diff)))
    _close(jax.value_and_grad(new, argnums)(*diff), jax.value_and_grad(ref, argnums)(*diff))
    assert float(jnp.abs(jax.grad(new, 1)(*diff)[2]).sum()) > 0  # a finished sample's state still has a gradient


@pytest.mark.parametrize("mode", sorted(STEPS))
def test_reverse_only_gradients_match_the_plain_scan(mode):
    """Under `reverse_only(True)` a layer is differentiated by the loop's reverse rule alone (no forward-mode rule
    is traced), with the same values and gradients, and a gradient of that gradient still runs."""
    diff, seq_length, probes = _inputs(mode)
    new, ref = _loss(_one_direction, mode, seq_length, probes), _loss(_plain_scan, mode, seq_length, probes)
    argnums = tuple(range(len(diff)))
    with recurrent.reverse_only(True):
        got = jax.value_and_grad(new, argnums)(*diff)
        text = str(jax.make_jaxpr(new)(*diff))
        twice = jax.grad(lambda h: jax.grad(new, 1)(diff[0], h, *diff[2:]).sum())(diff[1])
    assert "custom_vjp_call" in text and "custom_jvp_call" not in text
    _close(got, jax.value_and_grad(ref, argnums)(*diff))
    _close(twice, jax.grad(lambda h: jax.grad(ref, 1)(diff[0], h, *diff[2:]).sum())(diff[1]))
    assert recurrent.reverse_only_state() is None


@pytest.mark.parametrize("mode", ["LSTM", "GRU"])
def test_forward_mode_and_second_order_match_the_plain_scan(mode):
    diff, seq_length, probes = _inputs(mode)
    new, ref = _loss(_one_direction, mode, seq_length, probes), _loss(_plain_scan, mode, seq_length, probes)
    tangents = tuple(jnp.ones_like(d) * 0.1 for d in diff)
    _close(jax.jvp(new, diff, tangents), jax.jvp(ref, diff, tangents))
    h0 = diff[1]

    def on_h0(loss):
        return lambda h: loss(diff[0], h, *diff[2:])

    _close(jax.jvp(jax.grad(on_h0(new)), (h0,), (h0,)), jax.jvp(jax.grad(on_h0(ref)), (h0,), (h0,)))
    _close(jax.grad(lambda h: jax.grad(on_h0(new))(h).sum())(h0), jax.grad(lambda h: jax.grad(on_h0(ref))(h).sum())(h0))


def _reversed_in_place(x, seq_length):
    """Each sample's first seq_length steps of time-major x in reverse order; its later steps stay."""
    t = jnp.arange(x.shape[0])[:, None]
    index = jnp.where(t < seq_length[None, :], seq_length[None, :] - 1 - t, t)
    return jnp.take_along_axis(x, index.reshape(index.shape + (1,) * (x.ndim - 2)), axis=0)


def _plain_reverse_scan(x, h0, c0, w_ih, w_hh, b_ih, b_hh, seq_length, mode):
    """The backward direction as a bidirectional layer used to run it: reverse, run forward, reverse back."""
    ys, h, c = _plain_scan(_reversed_in_place(x, seq_length), h0, c0, w_ih, w_hh, b_ih, b_hh, seq_length, mode)
    return _reversed_in_place(ys, seq_length), h, c


@pytest.mark.parametrize("mode", sorted(STEPS))
def test_a_reverse_loop_equals_the_loop_over_each_reversed_sequence(mode):
    diff, seq_length, probes = _inputs(mode)

    def new(*args):
        return _one_direction(*args, reverse=True)

    argnums = tuple(range(len(diff)))
    loss, ref = _loss(new, mode, seq_length, probes), _loss(_plain_reverse_scan, mode, seq_length, probes)
    _close(jax.value_and_grad(loss, argnums)(*diff), jax.value_and_grad(ref, argnums)(*diff))
    tangents = tuple(jnp.ones_like(d) * 0.1 for d in diff)
    _close(jax.jvp(loss, diff, tangents), jax.jvp(ref, diff, tangents))


def _both_directions(x, h0, c0, w_ih, w_hh, b_ih, b_hh, seq_length, mode):
    """A bidirectional layer in one loop; the backward direction's weights are the forward's, scaled."""
    back = (w_ih * 0.7, w_hh * -0.9, b_ih * 1.3, b_hh * 0.5)
    ys, h, c = _recurrent_scan(
        x, seq_length, jnp.stack([h0, -h0]), jnp.stack([c0, c0 * 0.5]), w_ih, w_hh, b_ih, b_hh, *back, mode=mode,
        reverse=(False, True),
    )  # fmt: skip
    return ys, h, c


def _directions_apart(x, h0, c0, w_ih, w_hh, b_ih, b_hh, seq_length, mode):
    """The same two directions, each in a loop of its own (the reference)."""
    back = (w_ih * 0.7, w_hh * -0.9, b_ih * 1.3, b_hh * 0.5)
    forward = _one_direction(x, h0, c0, w_ih, w_hh, b_ih, b_hh, seq_length, mode)
    backward = _one_direction(x, -h0, c0 * 0.5, *back, seq_length, mode, reverse=True)
    return (
        jnp.concatenate([forward[0], backward[0]], -1),
        jnp.stack([forward[1], backward[1]]),
        jnp.stack([forward[2], backward[2]]),
    )


@pytest.mark.parametrize("mode", sorted(STEPS))
def test_both_directions_in_one_loop_equal_each_direction_alone(mode):
    diff, seq_length, (probe_ys, probe_h, probe_c) = _inputs(mode)
    probes = (jnp.concatenate([probe_ys, probe_ys[::-1] * 0.5], -1), jnp.stack([probe_h, -probe_h]),
              jnp.stack([probe_c, probe_c * 2]))  # fmt: skip
    loss = _loss(_both_directions, mode, seq_length, probes)
    ref = _loss(_directions_apart, mode, seq_length, probes)
    argnums = tuple(range(len(diff)))
    expected = jax.value_and_grad(ref, argnums)(*diff)
    _close(jax.value_and_grad(loss, argnums)(*diff), expected)
    # the reverse rule alone (a compiled gradient's path): the flipped direction's gates gradient goes back to
    # time order inside the reverse loop
    with recurrent.reverse_only(True):
        _close(jax.value_and_grad(loss, argnums)(*diff), expected)
    tangents = tuple(jnp.ones_like(d) * 0.1 for d in diff)
    _close(jax.jvp(loss, diff, tangents), jax.jvp(ref, diff, tangents))


@pytest.mark.parametrize("mode", ["LSTM", "GRU"])
def test_a_written_out_step_pullback_equals_the_backends_and_keeps_fewer_arrays(mode):
    """The LSTM's and GRU's steps have written-out pullbacks (the forward loop keeps their factors at every step):
    the same new state and the same gradients as the backend's vjp of the step, from fewer kept arrays."""
    step = STEPS[mode]
    assert step in recurrent.STEP_VJPS
    rng = np.random.default_rng(1)

    def arr(*shape):
        return jnp.asarray(rng.standard_normal(shape).astype(np.float32))

    g = _GATES[mode] * H
    carry, gates_x, gh = (arr(2, N, H), arr(2, N, H)), arr(2, N, g), arr(2, N, g)
    cotangents = (arr(2, N, H), arr(2, N, H))
    new, pull = recurrent.STEP_VJPS[step](carry, gates_x, gh)
    ref_new, ref_pull = jax.vjp(step, carry, gates_x, gh)
    _close(new, ref_new)
    _close(pull(cotangents), ref_pull(cotangents))
    assert len(jax.tree.leaves(pull)) < len(jax.tree.leaves(ref_pull))


def test_a_grus_reverse_loop_keeps_its_gradients_in_time_order_arrays():
    """The GRU's gh gradient (unlike the LSTM's, not its gates_x one) goes into a (D * G, T, N) array carried by
    the reverse loop, as the gates_x one does, so no loop writes a (T, D, N, G) output a step."""
    diff, seq_length, probes = _inputs("GRU")
    loss = _loss(_one_direction, "GRU", seq_length, probes)
    with recurrent.reverse_only(True):
        jaxpr = jax.make_jaxpr(jax.grad(loss, (0, 4)))(*diff)
    scans = [e for e in jaxpr.jaxpr.eqns if e.primitive.name == "scan"]
    assert len(scans) == 2
    per_step = [v.aval.shape for e in scans for v in e.outvars[e.params["num_carry"] :]]
    assert (T, 1, N, 3 * H) not in per_step and per_step


def _dot_multiply_adds(jaxpr, times: int = 1) -> tuple[int, int]:
    """(multiply-adds of the products outside any loop, inside loops) of a jaxpr, a scan's body counted per step."""
    outside = inside = 0
    for e in jaxpr.eqns:
        if e.primitive.name == "dot_general":
            (contracting, _), _ = e.params["dimension_numbers"]
            shape = e.invars[0].aval.shape
            count = times * int(np.prod(e.outvars[0].aval.shape)) * int(np.prod([shape[i] for i in contracting]))
            outside, inside = (outside + count, inside) if times == 1 else (outside, inside + count)
        steps = times * e.params["length"] if e.primitive.name == "scan" else times
        for value in e.params.values():
            for sub in value if isinstance(value, (list, tuple)) else (value,):
                inner = getattr(sub, "jaxpr", sub)  # a closed jaxpr's own, or a jaxpr
                if hasattr(inner, "eqns"):
                    o, i = _dot_multiply_adds(inner, steps)
                    outside, inside = outside + o, inside + i
    return outside, inside


def test_bench_rnns_multiply_add_count_is_the_gradient_programs():
    """benchmarks/bench_rnn prints its network's train step as multiply-adds and GFLOP/s: the count equals the
    products in the gradient program of its 2-layer bidirectional LSTM and Dense head (inside the time loops and
    outside them), so the figure it prints is the program's."""
    steps, batch, hidden = 6, bench_rnn.BATCH, bench_rnn.HIDDEN
    rng = np.random.default_rng(2)

    def arr(*shape):
        return jnp.asarray(rng.standard_normal(shape).astype(np.float32) * 0.1)

    layers = []
    for layer in range(bench_rnn.LAYERS):
        width = bench_rnn.INPUT if layer == 0 else bench_rnn.DIRECTIONS * hidden
        layers.append([arr(4 * hidden, width), arr(4 * hidden, hidden), arr(4 * hidden), arr(4 * hidden)] * 2)
    head = (arr(bench_rnn.CLASSES, 2 * hidden), arr(bench_rnn.CLASSES))
    lengths = jnp.full((batch,), steps, jnp.int32)

    def loss(layers, head, x):
        h0 = jnp.zeros((bench_rnn.DIRECTIONS, batch, hidden))
        for weights in layers:
            x, _, _ = _recurrent_scan(x, lengths, h0, h0, *weights, mode="LSTM", reverse=(False, True))
        return jax.nn.log_softmax(x[-1] @ head[0].T + head[1]).sum()

    with recurrent.reverse_only(True):
        jaxpr = jax.make_jaxpr(jax.grad(loss, (0, 1)))(layers, head, arr(steps, batch, bench_rnn.INPUT))
    outside, inside = _dot_multiply_adds(jaxpr.jaxpr)
    assert bench_rnn.step_multiply_adds(steps) == {"outside": outside, "loops": inside}
