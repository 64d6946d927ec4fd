"""Loops over time as one primitive: `RecurrentScan` runs an RNN/LSTM/GRU layer's whole sequence.

The time loop is the backend's scan, so a layer is one equation whatever the sequence length: PyNative
compiles one kernel per layer shape, a graph lowers one loop, and the derivative is the backend's transpose of
that loop (compile time flat in the length, step time linear). The step functions are named in `STEPS`, so
another loop over time declares its step there and shares the primitive.
"""

from __future__ import annotations

from kiln._backend import jnp, lax
from kiln._core.primitive import PrimitiveDef


def _lstm_step(carry, gates_x, w_hh, b_hh):
    h, c = carry
    gates = gates_x + (h @ w_hh.T + b_hh)
    i, f, g, o = jnp.split(gates, 4, axis=-1)
    c = lax.logistic(f) * c + lax.logistic(i) * jnp.tanh(g)
    return lax.logistic(o) * jnp.tanh(c), c


def _gru_step(carry, gates_x, w_hh, b_hh):
    h, c = carry
    gh = h @ w_hh.T + b_hh
    i_r, i_z, i_n = jnp.split(gates_x, 3, axis=-1)
    h_r, h_z, h_n = jnp.split(gh, 3, axis=-1)
    r, z = lax.logistic(i_r + h_r), lax.logistic(i_z + h_z)
    n = jnp.tanh(i_n + r * h_n)
    return (1 - z) * n + z * h, c


def _rnn_step(nonlinearity):
    def step(carry, gates_x, w_hh, b_hh):
        h, c = carry
        return nonlinearity(gates_x + (h @ w_hh.T + b_hh)), c

    return step


STEPS = {
    "LSTM": _lstm_step,
    "GRU": _gru_step,
    "RNN_TANH": _rnn_step(jnp.tanh),
    "RNN_RELU": _rnn_step(lambda v: jnp.maximum(v, 0)),
}


def _recurrent_scan(x, h0, c0, w_ih, w_hh, b_ih, b_hh, seq_length, mode: str = "LSTM"):
    """Outputs (T, N, H), final h (N, H) and final c (N, H; c0 unchanged for RNN and GRU) of one direction.

    x is time-major (T, N, I). A sample's state stops changing after its `seq_length` steps and its later
    outputs are zero.
    """
    step = STEPS[mode]
    gates_x = x @ w_ih.T + b_ih  # every step's input projection in one product
    times = jnp.arange(x.shape[0], dtype=seq_length.dtype)

    def body(carry, inputs):
        g, t = inputs
        h, c = step(carry, g, w_hh, b_hh)
        live = (t < seq_length)[:, None]
        new = (jnp.where(live, h, carry[0]), jnp.where(live, c, carry[1]))
        return new, jnp.where(live, h, jnp.zeros_like(h))

    (h, c), ys = lax.scan(body, (h0, c0), (gates_x, times))
    return ys, h, c


recurrent_scan_p = PrimitiveDef(
    "RecurrentScan", _recurrent_scan, attrs={"mode": "LSTM"}, nondiff=(7,), multiple_results=True
)
