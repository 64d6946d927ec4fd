"""Loops over time as one primitive: `RecurrentScan` runs an RNN/LSTM/GRU layer's whole sequence.

The time loop is the backend's scan, so a layer is one equation whatever the sequence length: PyNative
compiles one kernel per layer shape, a graph lowers one loop, and the derivative is a loop too (compile time
flat in the length, step time linear). The step functions are named in `STEPS`, so another loop over time
declares its step there and shares the primitive.

A bidirectional layer's two directions run in the same loop, batched along a direction axis: half the
loops to compile. The LSTM's and GRU's step pullbacks are written out (`_lstm_step_vjp`, `_gru_step_vjp`): the
forward loop keeps six (LSTM) or five (GRU) arrays of gradient factors per step where the backend's vjp kept
twelve or ten, and the reverse loop only multiplies (the GRU's train step in benchmarks/bench_rnn's network at
length 500: 0.46x CPU time). Together, on the gradient of a 2-layer bidirectional LSTM(32, 32), batch 4, length 500
(jax.jit with Kiln's CPU options, interleaved with one loop per direction and the backend's vjp): 4 while
loops instead of 8, HLO 1,670 lines instead of 3,263, XLA compile CPU about 0.7x, steady step 0.69-0.76x.

The derivative is written out (`_time_loop`): the backend's own reverse of a scan would add each step's
weight gradient `dgh_t^T h_t` to a carried (gates x hidden) sum, one small product per step; here the
reverse loop carries only the state's gradients and keeps each step's `dgh_t`, and the weight gradient is
one product over all steps after it. Every direction's input projection is one product, (T, N, D * G),
read by the loop at each direction's own time (a reverse direction from the last time to the first: no
reversed or stacked copy), and the LSTM's and RNN's input bias is added to the hidden one inside the loop.
The reverse loop writes the gates gradient as (D * G, T, N) in time order, the layout in which the weight
gradients' products read it without a transposed copy.
The forward loop of a differentiated layer keeps each step's pullback (its gate activations), so the reverse
loop only scales and adds gradients: a differentiated layer is two loops, not three (reverse
mode goes through `_time_loop`'s forward-mode rule, whose linearisation otherwise ran a third loop to
recompute the gates). A compiled gradient that no forward-mode transformation encloses (`reverse_only`) calls
the reverse rule directly instead: the same two loops, for about half the tracing.
"""

from __future__ import annotations

import contextlib
import threading
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


def _lstm_step_vjp(carry, gates_x, gh):
    """`_lstm_step` and its pullback, a pytree of six arrays: the factors that scale each gradient.

    The backend's vjp keeps about twice as many arrays, each written by the loop at every step. The factors
    are products of the activations computed here, so the pullback only multiplies: a product inside it would
    be computed by a loop of its own whenever the reverse loop is differentiated (forward mode). They are kept
    apart: the backend's CPU compiler leaves a concatenate of computed values as a kernel of its own, and the
    loop writes each factor straight from the kernel that computes it.
    """
    c = carry[1]
    # four slices, four kernels: one kernel over the whole row made the train step no faster (session 14, load
    # 4-8): a select between tanh and sigmoid 1.14x at length 50 and 1.02x at 500, tanh of the row scaled per gate
    # 1.00x and 1.02x
    i, f, g, o = jnp.split(gates_x + gh, 4, axis=-1)
    i, f, g, o = lax.logistic(i), lax.logistic(f), jnp.tanh(g), lax.logistic(o)
    c_new = f * c + i * g
    tanh_c = jnp.tanh(c_new)
    # d c_new / d i, f, g pre-activations; d h / d o pre-activation; d h / d c_new
    to_i, to_f, to_g = g * i * (1 - i), c * f * (1 - f), i * (1 - g * g)
    to_o, to_c = tanh_c * o * (1 - o), o * (1 - tanh_c * tanh_c)
    return (o * tanh_c, c_new), jax.tree_util.Partial(_lstm_pullback, to_i, to_f, to_g, to_o, to_c, f)


def _lstm_pullback(to_i, to_f, to_g, to_o, to_c, f, cotangents):
    """Gradients (of h and c, gates_x, gh) of one LSTM step from its factors; linear in `cotangents`."""
    d_h, d_c = cotangents
    d_c_new = d_c + d_h * to_c
    # a kernel of its own; a sum of the parts zero-padded to the row, one kernel, made the step 1.2x (session 14)
    d_gates = jnp.concatenate([d_c_new * to_i, d_c_new * to_f, d_c_new * to_g, d_h * to_o], axis=-1)
    return (jnp.zeros_like(d_h), d_c_new * f), d_gates, d_gates


def _gru_step(carry, gates_x, gh):
    h, c = carry
    i_r, i_z, i_n = jnp.split(gates_x, 3, axis=-1)
    h_r, h_z, h_n = jnp.split(gh, 3, axis=-1)
    r, z = lax.logistic(i_r + h_r), lax.logistic(i_z + h_z)
    n = jnp.tanh(i_n + r * h_n)
    return (1 - z) * n + z * h, c


def _gru_step_vjp(carry, gates_x, gh):
    """`_gru_step` and its pullback: five factors (the backend's vjp kept twice as many arrays a step), each the
    derivative of the new h along one path, so that the reverse loop only multiplies (as `_lstm_step_vjp`)."""
    h, c = carry
    i_r, i_z, i_n = jnp.split(gates_x, 3, axis=-1)
    h_r, h_z, h_n = jnp.split(gh, 3, axis=-1)
    r, z = lax.logistic(i_r + h_r), lax.logistic(i_z + h_z)
    n = jnp.tanh(i_n + r * h_n)
    # d h_new / d of the n, z and r pre-activations (r's through n's); r scales n's hidden part, z carries h
    to_n = (1 - z) * (1 - n * n)
    to_z, to_r = (h - n) * z * (1 - z), to_n * h_n * r * (1 - r)
    return ((1 - z) * n + z * h, c), jax.tree_util.Partial(_gru_pullback, to_r, to_z, to_n, r, z)


def _gru_pullback(to_r, to_z, to_n, r, z, cotangents):
    """Gradients (of h and c, gates_x, gh) of one GRU step from its factors; linear in `cotangents`."""
    d_h, d_c = cotangents
    d_r, d_z, d_n = d_h * to_r, d_h * to_z, d_h * to_n
    return (d_h * z, d_c), jnp.concatenate([d_r, d_z, d_n], axis=-1), jnp.concatenate([d_r, d_z, d_n * r], axis=-1)


def _rnn_step(nonlinearity):
    def step(carry, gates_x, gh):
        return nonlinearity(gates_x + gh), carry[1]

    return step


STEPS = {
    "LSTM": _lstm_step,
    "GRU": _gru_step,
    "RNN_TANH": _rnn_step(jnp.tanh),
    # relu's values (the backend's maximum) with derivative 1 where v > 0, else 0 (at 0 too, as nn.RNNCell's ops.relu
    # and MindSpore's RNN; the maximum's own rule gave 0.5 there and tested v against the result), and no custom
    # JVP, which the reverse-only loop must not trace
    "RNN_RELU": _rnn_step(lambda v: jnp.where(v > 0, v, lax.stop_gradient(jnp.maximum(v, 0)))),
}


# Steps with a hand-written vjp: the step's new state and its pullback, a pytree of the activations it keeps.
STEP_VJPS = {_lstm_step: _lstm_step_vjp, _gru_step: _gru_step_vjp}


def _live_steps(steps: int, seq_length):
    """(T, N, 1) booleans: whether each sample is still running at each step."""
    return (jnp.arange(steps, dtype=seq_length.dtype)[:, None] < seq_length)[:, :, None]


def _step_inputs(gates_x, t, flips):
    """(D, N, G): each direction's input projection at loop step `t` of the (T, N, D * G) product; a flipped
    direction reads time T - 1 - t, so no reversed copy of the product is made."""
    steps = gates_x.shape[0]
    size = gates_x.shape[-1] // len(flips)
    rows = [
        lax.dynamic_index_in_dim(gates_x, steps - 1 - t if flip else t, 0, keepdims=False)[:, d * size : (d + 1) * size]
        for d, flip in enumerate(flips)
    ]
    return jnp.stack(rows)


def _forward_loop(loop, gates_x, h0, c0, w_hh, b_hh, lives, save: bool = False):
    """((outputs, h, c), each step's pullback or None) of the masked loop (h entering each step is not kept: the
    reverse rule rebuilds it from the outputs, `_entering_states`).

    Every state has a direction axis D: h0 and c0 (D, N, H), w_hh (D, G, H), b_hh (D, G), lives (T, D, N, 1),
    so the directions of a bidirectional layer advance together, one batched step per time step. gates_x is
    the input projection of all directions in one product, (T, N, D * G), in time order. `loop` is (step
    function, reverse, flips): a reverse loop runs from the last step to the first, each output kept at its own
    step; a direction with `flips` set reads its inputs from the last time to the first (its `lives` and
    outputs are in loop order); a step whose `lives` entry is False leaves the state as it is.

    With `save`, the loop also keeps each step's pullback (the backend's vjp of `step`, a pytree of the
    step's residuals: its gate activations), so that the reverse loop is linear in the gradients alone.
    This loop is never differentiated by the backend (the derivative is `_loop_bwd`), so it may read its
    inputs by index.
    """
    step, reverse, flips = loop
    # the weight as (D, H, G), transposed once before the loop: the backend's small dot contracting the weight's
    # leading axis took 2.6-3.1 us a step against 5.0-5.7 us contracting its last (D=2, N=8, H=64, G=256)
    w_hg = jnp.swapaxes(w_hh, 1, 2)

    def body(carry, inputs):
        t, live = inputs
        g = _step_inputs(gates_x, t, flips)
        gh = jnp.einsum("dnh,dhg->dng", carry[0], w_hg) + b_hh[:, None, :]
        if save:
            (h, c), pull = STEP_VJPS[step](carry, g, gh) if step in STEP_VJPS else jax.vjp(step, carry, g, gh)
        else:
            (h, c), pull = step(carry, g, gh), None
        new = (jnp.where(live, h, carry[0]), jnp.where(live, c, carry[1]))
        return new, (jnp.where(live, h, jnp.zeros_like(h)), pull)

    # Measured and left (session 16, bench_rnn's step at length 500): the seven per-step outputs as one (T, 7, ...)
    # slab written by one dynamic-update-slice of their stack took the forward body from 19 kernels to 13 but ran
    # the step 1.06x CPU (the fused stack is evaluated element by element); each output in a buffer of its own fill
    # instead of the scan's shared broadcast of zero, which XLA copies into each (14 copies of 2 MB), ran Kiln's
    # step about 0.99x (0.97-0.99 new built second, 0.99-1.00 swapped) and made the forward-mode rule's compile 1.17x.
    # Session 17: XLA's CPU runtime runs a loop body of at most 8 kernels in the caller thread (about 0.4 us an
    # iteration saved in a bare loop), but the forms that reach it cost more: this body at 7 kernels (h and c as
    # one stacked slab, gates by one tanh of the row) with the reverse body at 7 ran the pure-JAX step 1.64x CPU;
    # the slab alone with the factors rebuilt after the loop (one product for every step) 1.31x; one tanh of the
    # row here alone 1.29x; h and c written into one slab by two updates made XLA copy the whole slab each step
    # Session 22 (pure-JAX gradient of bench_rnn's LSTM at length 500, Kiln's CPU options, 9 interleaved rounds, CPU
    # medians; no quiet machine, load 5-12): each direction a loop of its own (two independent while loops a layer,
    # which XLA's CPU runtime could run at once) 34.4 against 32.5 ms CPU at load 5 (wall min 33.7 against 31.5: no
    # overlap seen), 37.8-39.1 against 34.2-34.7 at load 11-12; scan unroll 2 or 4 CPU 1.00x, XLA compile 7.2 and
    # 11.5 s against about 6.5; XLA flags: YNNPACK off for the in-loop dots 1.16x, concurrency-optimised scheduler
    # off 1.00x, single-threaded Eigen 1.01x, copy insertion's region analysis 1.04x. The runtime's sequential-body
    # thresholds (8 thunks, 512-byte buffers) are constants in jaxlib 0.10.2, not flags.
    # Session 23 (bench_rnn's LSTM at length 500, CPU time: the machine ran at load 11-21; pure-JAX gradient, 7-9
    # interleaved rounds, unless said). Where the time goes (perf, Kiln's GRAPH_MODE step): YNNPACK's dot kernels 38% of
    # the CPU samples (27% the products outside the loops, 11% the loops' own), XLA's kernels inside the loops 22%, the
    # loops' runtime about 8%: a step is about 1.7 G multiply-adds, not dispatch alone. XLA's small-while-loop hoisting
    # (xla_cpu_small_while_loop_byte_threshold, read from XLA_FLAGS' xla_backend_extra_options only) makes a loop one
    # kernel only without YNNPACK's dot, and the product is then plain LLVM code: a bare (2,8,64)x(2,64,256) loop took
    # 15-51 ms CPU against 3.3, fast math and 512-bit vectors no help. Multi-output fusion (same route) took these
    # bodies from 19 and 14 kernels to 10 and 8 at 1.00x; keeping the pre-activations and c (3 writes a step, not 7,
    # the pullbacks rebuilt after the loop) 1.06-1.11x; the gates gradient written as (T, D, N, G) and transposed after
    # the loop 1.37-1.47x; no masks (all steps live) 1.01x; fast math 1.00x; YNNPACK off 1.14x; LLVM's 512-bit vectors
    # 0.96x, kept (kiln/_backend/cache.py `_LOOP_OPTIONS`). A bare loop writing k outputs a step cost 3.4 us a step at
    # k = 4-6, 7 at 7-8, 11 at 10, 20 at 14: the runtime runs a body of over 8 kernels as a graph, handing ready kernels
    # to other threads, unless each kernel depends on the one before it.
    # Session 24 (bench_rnn's Kiln GRAPH step at length 500, process CPU, 3-4 interleaved rounds, load 10-17; the
    # bodies are still 19 and 14 kernels): the seven per-step outputs written by seven dynamic-update-slices into
    # one carried (T, 7, D, N, H) slab (a chain on one buffer, no stack) 1.08x; keeping the pre-activations and c
    # (3 writes) with the factors rebuilt by the reverse loop's body 1.05x (forward body 15 kernels, reverse 19: XLA
    # keeps each sigmoid/tanh a kernel of its own); the reverse loops' (D * G, T, N) buffers started from the spent
    # input projection (a bitcast, two 8 MB fills fewer a step) 1.00x; YNNPACK fusion types dot/eltwise no change.
    # Session 25 (load 8-16; CPU time): each group of a body's kernels in a lax.cond on the loop counter (t >= 0, from a
    # fori_loop), so that every thunk sequence has at most 8 and runs in order: XLA keeps the branches, and copies no
    # buffer when the other branch passes the written buffers through (it copied 2 MB a step when that branch gave
    # fresh zeros). A bare loop writing 14 outputs went from 16.4 to 10.5 us a step (two conds of 7). Here, forward
    # body 5 kernels + 3 conds (5, 7, 4 kernels), reverse 6 + 2 (7, 2): the forward loop alone 0.97-1.01x, the reverse
    # 1.00x, the pure-JAX gradient 0.99x, bench_rnn's GRAPH step 0.98x forward alone (5 interleaved pairs), 0.97x both
    # (13 pairs): not taken for a second LSTM loop. The in-loop product as one plain GEMM on
    # a block-diagonal (D * H, D * G) weight: 1.76x forward, 1.87x reverse (the product's loop alone). Per kernel
    # (jax.profiler trace of the forward loop): the product 2.9 us, the gates' sum 1.5, each activation and write
    # 0.5-0.7, a copy 0.3; 8.2-8.7 us a step untraced. xla_cpu_use_thunk_runtime=false is no longer supported.
    # Session 26 (the two directions on the two cores; pure JAX, forward LSTM loop pairs at length 500, load 9-13, so
    # wall minima: the medians measured the other engineers). Two independent loops in one program do not overlap, read
    # from jaxlib 0.10.2's thunk graph (TF_CPP_VMODULE=thunk_executor=6) and buffer assignment: the heap simulator packs
    # the second loop's body temporaries into the same bytes of the temporary buffer as the first loop's (or its dead
    # inputs), from the one-after-the-other schedule, so the second WhileThunk depends on the first (also with each
    # loop's inputs a parameter of its own, and with the concurrency-optimised scheduler type). The memory-optimised one
    # (xla_cpu_scheduler_type=CPU_SCHEDULER_TYPE_MEMORY_OPTIMIZED) drops that edge, yet this loop with save=True, one
    # direction a loop each, took 5.06 ms wall minimum (CPU 6.40) against 3.90 (4.59) batched: the executor runs a ready
    # loop inline and hands ready thunks to other threads only past 8 in its queue or for one that may block (constants,
    # not flags). That scheduler alone, for the whole step: the pure-JAX gradient 0.96x CPU in two interleaved runs
    # (load 12), Kiln's GRAPH step 0.98x and 1.02x at length 500, 0.95x at 50 (median per-round CPU ratios, 8-12 rounds,
    # load 16-18), the same losses: not kept. Forms outside one program: two executables called from two Python threads
    # 3.10 ms wall minimum against 5.82 one after the other for bare 6-kernel loops (medians 5.95 and 5.92, same CPU:
    # they overlap only when a core is free), but with this loop (save=True) 3.38 and 2.85 against 3.36 and 4.41, the
    # batched loop 3.49 and 3.75 (two runs, load 8): its body of over 8 kernels already hands kernels to XLA's other
    # threads (the batched loop's 4.7 ms CPU a call spread over five threads), so less is left to gain; shard_map over
    # two virtual host devices 3.37 against 6.17 batched (bare loops), but it needs the whole program on the two-device
    # mesh (a program whose arguments sit on one device is refused; otherwise all outside the shard_map runs on both
    # devices, the 1.2 G multiply-adds outside the loops twice), and the device-count flag changes what Kiln reads as
    # the device count (the gradient reducer's mean, data-parallel splits); a host callback starting direction B's
    # executable in a thread, joined after A's loop: CPU 9.67 against 6.68 ms, wall minimum 7.52 against 5.95. Not
    # taken; benchmarks/bench_rnn prints the step's GFLOP/s.
    times = jnp.arange(gates_x.shape[0])
    (h, c), (ys, pulls) = lax.scan(body, (h0, c0), (times, lives), reverse=reverse)
    return (ys, h, c), pulls


def _entering_states(ys, h0, lives, reverse: bool):
    """h entering each loop step, rebuilt from the outputs: the previous loop step's output where that step ran,
    else h0.

    Exact at every step that runs (a sample's running steps are contiguous: a prefix of the loop, or a suffix for
    a flipped direction, so a running step's predecessor either ran or left h0 in place); a step that does not
    run gets a finite stand-in, which its zero gradient multiplies in the weight's gradient. The forward loop so
    writes one array a step fewer.
    """
    never = jnp.zeros_like(lives[:1])
    if reverse:
        ran, before = jnp.concatenate([lives[1:], never]), jnp.concatenate([ys[1:], h0[None]])
    else:
        ran, before = jnp.concatenate([never, lives[:-1]]), jnp.concatenate([h0[None], ys[:-1]])
    return jnp.where(ran, before, h0)


@partial(jax.custom_vjp, nondiff_argnums=(0,))
def _reverse_fast_loop(loop, gates_x, h0, c0, w_hh, b_hh, lives):
    return _forward_loop(loop, gates_x, h0, c0, w_hh, b_hh, lives)[0]


def _loop_fwd(loop, gates_x, h0, c0, w_hh, b_hh, lives):
    out, pulls = _forward_loop(loop, gates_x, h0, c0, w_hh, b_hh, lives, save=True)
    return out, (_entering_states(out[0], h0, lives, loop[1]), pulls, w_hh, lives)


def _pullback_shares(pulls, d_ys) -> bool:
    """Whether a step's pullback (a row of the forward loop's `pulls`) gives one array as the gradient of both
    gates_x and gh (an LSTM or RNN step) or two (a GRU step), found by tracing one step."""
    seen = []

    def one(pull, d):
        _, d_g, d_gh = pull((d, d))
        seen.append(d_g is d_gh)
        return d_g

    row = jax.tree.map(lambda a: jax.ShapeDtypeStruct(a.shape[1:], a.dtype), pulls)
    jax.eval_shape(one, row, jax.ShapeDtypeStruct(d_ys.shape[1:], d_ys.dtype))
    return seen[0]


def _loop_bwd(loop, saved, cotangents):
    # Every non-linear value of a step comes from the forward loop's saved pullbacks: this loop only scales
    # and adds gradients, so differentiating it again (forward mode, second order) adds no loop that
    # recomputes the gates.
    hs, pulls, w_hh, lives = saved
    d_ys, d_h, d_c = cotangents
    steps, directions, batch, _ = d_ys.shape
    gates = w_hh.shape[1]
    flips = loop[2]

    shared = _pullback_shares(pulls, d_ys)  # one gradient for gates_x and gh (an LSTM or RNN step), else two
    # (d_h, d_c) carried as one (2, D, N, H) array: 14 kernels a step to 12 (one carry copy and one kernel fewer),
    # the step 1.00x (session 16, pure-JAX step at length 500, load 7)

    def body(carry, inputs):
        d_h, d_c, kept = carry
        d_y, pull, live, t = inputs
        zero = jnp.zeros_like(d_h)
        (d_h_step, d_c_step), d_g, d_gh = pull((jnp.where(live, d_h + d_y, zero), jnp.where(live, d_c, zero)))
        # a finished sample passes its state's gradient through unchanged
        d_h_prev = jnp.where(live, zero, d_h) + d_h_step + jnp.einsum("dng,dgh->dnh", d_gh, w_hh)
        d_c_prev = jnp.where(live, zero, d_c) + d_c_step
        # each direction's gates gradient (and a GRU's gh gradient) into its rows of a (D * G, T, N) array at its
        # own time (a flipped direction's at T - 1 - t): the weight gradients' products read it as it is
        rows = [jnp.swapaxes(g, 1, 2) for g in ((d_g,) if shared else (d_g, d_gh))]
        kept = list(kept)
        for k, row in enumerate(rows):
            for d, flip in enumerate(flips):
                at = (d * gates, steps - 1 - t if flip else t, 0)
                kept[k] = lax.dynamic_update_slice(kept[k], row[d][:, None, :], at)
        return (d_h_prev, d_c_prev, tuple(kept)), None

    # the masks at the gradients' full shape: a broadcast inside the body would be recomputed by a loop of its
    # own whenever this loop is differentiated
    lives = jnp.broadcast_to(lives, d_ys.shape)
    # The gates gradient is kept as (D * G, T, N), in time order, not as the loop's (T, D, N, G) outputs: the
    # input weight's gradient (the product of its transpose and the layer's input) and the hidden weight's
    # read it without the transposed copies the backend's CPU dot made of the outputs (two arrays of
    # T * N * D * G floats per layer, and a concatenate putting a flipped direction back in time order).
    # A GRU's gh gradient differs from its gates_x one (r scales the new gate's hidden part) and is kept alike:
    # bench_rnn's network with nn.GRU at length 500 took 0.93x the CPU time a step that the loop's (T, D, N, G)
    # outputs and their product took (session 24, 3 interleaved rounds, load 13-15)
    buffers = tuple(jnp.zeros((directions * gates, steps, batch), d_ys.dtype) for _ in range(1 if shared else 2))
    inputs = (d_ys, pulls, lives, jnp.arange(steps))
    (d_h0, d_c0, kept), _ = lax.scan(body, (d_h, d_c, buffers), inputs, reverse=not loop[1])
    d_gates_x = kept[0]
    by_direction = kept[-1].reshape(directions, gates, steps * batch)
    hs = jnp.stack([hs[::-1, d] if flip else hs[:, d] for d, flip in enumerate(flips)])
    d_w_hh = jnp.einsum("dgk,dkh->dgh", by_direction, hs.reshape(directions, steps * batch, -1))
    d_b_hh = by_direction.sum(2)
    # the input projection's (T, N, D * G) layout: a transpose the input weight's product folds away
    return jnp.transpose(d_gates_x, (1, 2, 0)), d_h0, d_c0, d_w_hh, d_b_hh, None


_reverse_fast_loop.defvjp(_loop_fwd, _loop_bwd)


@partial(jax.custom_jvp, nondiff_argnums=(0,))
def _time_loop(loop, gates_x, h0, c0, w_hh, b_hh, lives):
    """The masked loop: (outputs (T, D, N, H), final h, final c (D, N, H)), differentiable in both modes."""
    return _reverse_fast_loop(loop, gates_x, h0, c0, w_hh, b_hh, lives)


@_time_loop.defjvp
def _time_loop_jvp(loop, primals, tangents):
    # Forward mode from the reverse rule: the pullback is linear in the output cotangent u, so the vjp of
    # u -> pullback(u) at the input tangents is the Jacobian times them (reverse mode still uses _loop_bwd).
    lives = primals[-1]
    out, pull = jax.vjp(lambda *d: _reverse_fast_loop(loop, *d, lives), *primals[:-1])
    _, pull_twice = jax.vjp(pull, jax.tree.map(jnp.zeros_like, out))
    (out_tangents,) = pull_twice(tuple(tangents[:-1]))
    return out, out_tangents


_REVERSE_ONLY = threading.local()


@contextlib.contextmanager
def reverse_only(on: bool):
    """Within the block, the layers traced are differentiated by reverse mode alone (`on`) or perhaps in forward
    mode too. Reverse mode alone runs the loops' reverse rule (`_reverse_fast_loop`) directly: tracing it costs
    about half of `_time_loop`'s forward-mode rule, which the backend's reverse mode otherwise linearises and
    transposes. A compiler sets it around a gradient that no forward-mode transformation encloses or contains."""
    previous = getattr(_REVERSE_ONLY, "on", None)
    _REVERSE_ONLY.on = on
    try:
        yield
    finally:
        _REVERSE_ONLY.on = previous


def reverse_only_state() -> bool | None:
    """The innermost `reverse_only` setting in force on this thread, None outside any."""
    return getattr(_REVERSE_ONLY, "on", None)


def _recurrent_scan(x, seq_length, h0, c0, *weights, mode: str = "LSTM", reverse: tuple[bool, ...] = (False,)):
    """Outputs (T, N, D * H), final h (D, N, H) and final c (D, N, H; c0 unchanged for RNN and GRU) of the
    D = len(reverse) directions of one layer, run together in one loop.

    x is time-major (T, N, I); `weights` are each direction's (w_ih, w_hh, b_ih, b_hh) in turn. A sample's
    state stops changing after its `seq_length` steps and its later outputs are zero. A direction with
    `reverse` set runs a sample's steps from its last (`seq_length` - 1) to its first: a bidirectional
    layer's backward direction. The loop runs backwards when every direction does; otherwise the loop reads
    a reverse direction's input projection from the last time to the first and its outputs are reversed in
    time outside the loop.
    """
    per_direction = [weights[i : i + 4] for i in range(0, len(weights), 4)]
    scan_reverse = all(reverse)
    flips = tuple(backward != scan_reverse for backward in reverse)
    live = _live_steps(x.shape[0], seq_length)
    # every direction's input projection in one product, (T, N, D * G); the loop reads a flipped direction's
    # steps from the last time to the first, so no reversed or stacked copy of it is made
    gates_x = x @ jnp.concatenate([w[0] for w in per_direction]).T
    lives = jnp.stack([live[::-1] if flip else live for flip in flips], 1)
    w_hh = jnp.stack([w[1] for w in per_direction])
    # the input bias joins the hidden one inside the loop (the GRU's new-gate input bias must stay outside r *)
    if mode == "GRU":
        gates_x = gates_x + jnp.concatenate([w[2] for w in per_direction])
        b_hh = jnp.stack([w[3] for w in per_direction])
    else:
        b_hh = jnp.stack([w[2] + w[3] for w in per_direction])
    loop = (STEPS[mode], scan_reverse, flips)
    time_loop = _reverse_fast_loop if reverse_only_state() else _time_loop
    ys, h, c = time_loop(loop, gates_x, h0, c0, w_hh, b_hh, lives)
    outs = [ys[:, d][::-1] if flip else ys[:, d] for d, flip in enumerate(flips)]
    return (outs[0] if len(outs) == 1 else jnp.concatenate(outs, -1)), h, c


recurrent_scan_p = PrimitiveDef(
    "RecurrentScan",
    _recurrent_scan,
    attrs={"mode": "LSTM", "reverse": (False,)},
    nondiff=(1,),
    multiple_results=True,
)
