"""Loops over time as one primitive: `RecurrentScan` runs an RNN/LSTM/GRU layer's whole sequence.

The time loop is the backend's scan, so a layer is one equation whatever the sequence length: PyNative
compiles one kernel per layer shape, a graph lowers one loop, and the derivative is a loop too (compile time
flat in the length, step time linear). The step functions are named in `STEPS`, so another loop over time
declares its step there and shares the primitive.

The derivative is written out (`_time_loop`): the backend's own reverse of a scan would add each step's
weight gradient `dgh_t^T h_t` to a carried (gates x hidden) sum, one small product per step; here the
reverse loop carries only the state's gradients and keeps each step's `dgh_t`, and the weight gradient is
one product over all steps after it. Forward values are the same operations as a plain scan's.
The forward loop of a differentiated layer keeps each step's pullback (its gate activations), so the reverse
loop only scales and adds gradients: a differentiated layer is two loops per direction, not three (reverse
mode goes through `_time_loop`'s forward-mode rule, whose linearisation otherwise ran a third loop to
recompute the gates).
"""

from __future__ import annotations

from functools import partial

from kiln._backend import jax, jnp, lax
from kiln._core.primitive import PrimitiveDef


# A step maps (carry (h, c), gates_x: the input's projection, gh: h @ w_hh.T + b_hh) to the new (h, c);
# c is carried unchanged by the RNN and GRU steps.
def _lstm_step(carry, gates_x, gh):
    h, c = carry
    gates = gates_x + gh
    i, f, g, o = jnp.split(gates, 4, axis=-1)
    c = lax.logistic(f) * c + lax.logistic(i) * jnp.tanh(g)
    return lax.logistic(o) * jnp.tanh(c), c


def _gru_step(carry, gates_x, gh):
    h, c = carry
    i_r, i_z, i_n = jnp.split(gates_x, 3, axis=-1)
    h_r, h_z, h_n = jnp.split(gh, 3, axis=-1)
    r, z = lax.logistic(i_r + h_r), lax.logistic(i_z + h_z)
    n = jnp.tanh(i_n + r * h_n)
    return (1 - z) * n + z * h, c


def _rnn_step(nonlinearity):
    def step(carry, gates_x, gh):
        return nonlinearity(gates_x + gh), carry[1]

    return step


STEPS = {
    "LSTM": _lstm_step,
    "GRU": _gru_step,
    "RNN_TANH": _rnn_step(jnp.tanh),
    "RNN_RELU": _rnn_step(lambda v: jnp.maximum(v, 0)),
}


def _live_steps(steps: int, seq_length):
    """(T, N, 1) booleans: whether each sample is still running at each step."""
    return (jnp.arange(steps, dtype=seq_length.dtype)[:, None] < seq_length)[:, :, None]


def _forward_loop(loop, gates_x, h0, c0, w_hh, b_hh, seq_length, save: bool = False):
    """((outputs, h, c), (h entering each step, each step's pullback)) of the masked loop.

    `loop` is (step function, reverse): a reverse loop runs from the last step to the first, each output kept
    at its own step, and a sample's steps from its `seq_length` on are still skipped (they come first).

    With `save`, the loop also keeps each step's pullback (the backend's vjp of `step`, a pytree of the
    step's residuals: its gate activations), so that the reverse loop is linear in the gradients alone.
    """
    step, reverse = loop

    def body(carry, inputs):
        g, live = inputs
        gh = carry[0] @ w_hh.T + b_hh
        if save:
            (h, c), pull = jax.vjp(step, carry, g, gh)
        else:
            (h, c), pull = step(carry, g, gh), None
        new = (jnp.where(live, h, carry[0]), jnp.where(live, c, carry[1]))
        return new, (jnp.where(live, h, jnp.zeros_like(h)), carry[0], pull)

    live = _live_steps(gates_x.shape[0], seq_length)
    (h, c), (ys, hs, pulls) = lax.scan(body, (h0, c0), (gates_x, live), reverse=reverse)
    return (ys, h, c), (hs, pulls)


@partial(jax.custom_vjp, nondiff_argnums=(0,))
def _reverse_fast_loop(loop, gates_x, h0, c0, w_hh, b_hh, seq_length):
    return _forward_loop(loop, gates_x, h0, c0, w_hh, b_hh, seq_length)[0]


def _loop_fwd(loop, gates_x, h0, c0, w_hh, b_hh, seq_length):
    out, (hs, pulls) = _forward_loop(loop, gates_x, h0, c0, w_hh, b_hh, seq_length, save=True)
    return out, (hs, pulls, w_hh, seq_length)


def _loop_bwd(loop, saved, cotangents):
    # Every non-linear value of a step comes from the forward loop's saved pullbacks: this loop only scales
    # and adds gradients, so differentiating it again (forward mode, second order) adds no loop that
    # recomputes the gates.
    hs, pulls, w_hh, seq_length = saved
    d_ys, d_h, d_c = cotangents

    def body(carry, inputs):
        d_h, d_c = carry
        d_y, pull, live = inputs
        zero = jnp.zeros_like(d_h)
        (d_h_step, d_c_step), d_g, d_gh = pull((jnp.where(live, d_h + d_y, zero), jnp.where(live, d_c, zero)))
        # a finished sample passes its state's gradient through unchanged
        d_h_prev = jnp.where(live, zero, d_h) + d_h_step + d_gh @ w_hh
        d_c_prev = jnp.where(live, zero, d_c) + d_c_step
        return (d_h_prev, d_c_prev), (d_g, d_gh)

    # the masks at the gradients' full shape: a broadcast inside the body would be recomputed by a loop of its
    # own whenever this loop is differentiated
    lives = jnp.broadcast_to(_live_steps(d_ys.shape[0], seq_length), d_ys.shape)
    (d_h0, d_c0), (d_gates_x, d_ghs) = lax.scan(body, (d_h, d_c), (d_ys, pulls, lives), reverse=not loop[1])
    d_w_hh = jnp.einsum("tng,tnh->gh", d_ghs, hs)  # every step's weight gradient in one product
    return d_gates_x, d_h0, d_c0, d_w_hh, d_ghs.sum((0, 1)), None


_reverse_fast_loop.defvjp(_loop_fwd, _loop_bwd)


@partial(jax.custom_jvp, nondiff_argnums=(0,))
def _time_loop(loop, gates_x, h0, c0, w_hh, b_hh, seq_length):
    """The masked loop: (outputs (T, N, H), final h, final c), differentiable in both modes."""
    return _reverse_fast_loop(loop, gates_x, h0, c0, w_hh, b_hh, seq_length)


@_time_loop.defjvp
def _time_loop_jvp(loop, primals, tangents):
    # Forward mode from the reverse rule: the pullback is linear in the output cotangent u, so the vjp of
    # u -> pullback(u) at the input tangents is the Jacobian times them (reverse mode still uses _loop_bwd).
    seq_length = primals[-1]
    out, pull = jax.vjp(lambda *d: _reverse_fast_loop(loop, *d, seq_length), *primals[:-1])
    _, pull_twice = jax.vjp(pull, jax.tree.map(jnp.zeros_like, out))
    (out_tangents,) = pull_twice(tuple(tangents[:-1]))
    return out, out_tangents


def _recurrent_scan(x, h0, c0, w_ih, w_hh, b_ih, b_hh, seq_length, mode: str = "LSTM", reverse: bool = False):
    """Outputs (T, N, H), final h (N, H) and final c (N, H; c0 unchanged for RNN and GRU) of one direction.

    x is time-major (T, N, I). A sample's state stops changing after its `seq_length` steps and its later
    outputs are zero. `reverse` runs a sample's steps from its last (`seq_length` - 1) to its first: a
    bidirectional layer's backward direction, without reversing its input and output.
    """
    gates_x = x @ w_ih.T + b_ih  # every step's input projection in one product
    return _time_loop((STEPS[mode], reverse), gates_x, h0, c0, w_hh, b_hh, seq_length)


recurrent_scan_p = PrimitiveDef(
    "RecurrentScan", _recurrent_scan, attrs={"mode": "LSTM", "reverse": False}, nondiff=(7,), multiple_results=True
)
