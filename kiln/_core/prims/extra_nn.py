"""Sequence losses: CTCLoss (the forward algorithm in log space, differentiated by the backend)."""

from __future__ import annotations

from kiln._backend import jnp, lax
from kiln._core.primitive import PrimitiveDef, op_error
from kiln._core.prims import _bounds

_NEG = -1e30  # log(0) kept finite, so that the gradients of impossible paths stay 0 rather than NaN


def _check_ctc(log_probs, targets, input_lengths, target_lengths, blank, zero_infinity):
    s = tuple(getattr(log_probs, "shape", ()))
    if len(s) != 3:
        raise op_error("CTCLoss", f"'log_probs' must be (T, N, C), but got shape {s}.")
    t = tuple(getattr(targets, "shape", ()))
    if len(t) != 2 or t[0] != s[1]:
        raise op_error("CTCLoss", f"'targets' must be (N, S) with N = {s[1]}, but got shape {t}.")
    if not 0 <= blank < s[2]:
        raise op_error("CTCLoss", f"'blank' must be in [0, {s[2]}), but got {blank}.")
    for name, v in (("input_lengths", input_lengths), ("target_lengths", target_lengths)):
        if tuple(getattr(v, "shape", ())) != (s[1],):
            raise op_error("CTCLoss", f"'{name}' must have shape ({s[1]},), but got {tuple(getattr(v, 'shape', ()))}.")


def _ctc(log_probs, targets, input_lengths, target_lengths, blank, zero_infinity):
    steps, n, _ = log_probs.shape
    width = 2 * targets.shape[1] + 1
    ext = jnp.full((n, width), blank, jnp.int32).at[:, 1::2].set(targets.astype(jnp.int32))
    lp = jnp.transpose(log_probs, (1, 0, 2))  # (N, T, C)
    emit = jnp.take_along_axis(lp, jnp.broadcast_to(ext[:, None, :], (n, steps, width)), axis=2)  # (N, T, L)
    prev2 = jnp.concatenate([jnp.full((n, 2), -1, jnp.int32), ext[:, :-2]], axis=1)
    skip = (ext != blank) & (ext != prev2)
    neg = jnp.asarray(_NEG, log_probs.dtype)
    alpha0 = jnp.full((n, width), neg, log_probs.dtype).at[:, 0].set(emit[:, 0, 0])
    if width > 1:
        alpha0 = alpha0.at[:, 1].set(emit[:, 0, 1])
    reach = jnp.arange(width)[None, :] <= 2 * target_lengths[:, None]  # positions past the target stay log(0)
    alpha0 = jnp.where((input_lengths > 0)[:, None] & reach, alpha0, neg)

    def step(alpha, t):
        a2 = jnp.concatenate([jnp.full((n, 1), neg, alpha.dtype), alpha[:, :-1]], axis=1)
        a3 = jnp.concatenate([jnp.full((n, 2), neg, alpha.dtype), alpha[:, :-2]], axis=1)
        a3 = jnp.where(skip, a3, neg)
        new = jnp.logaddexp(jnp.logaddexp(alpha, a2), a3) + emit[:, t, :]
        new = jnp.where(reach, jnp.maximum(new, neg), neg)
        new = jnp.where((t < input_lengths)[:, None], new, alpha)  # past its input length a sample stays put
        return new, new

    last, rest = lax.scan(step, alpha0, jnp.arange(1, steps))
    alphas = jnp.concatenate([alpha0[None], rest], axis=0)  # (T, N, L)
    rows = jnp.arange(n)
    end = 2 * target_lengths.astype(jnp.int32)
    ll = jnp.logaddexp(last[rows, end], jnp.where(target_lengths > 0, last[rows, jnp.maximum(end - 1, 0)], neg))
    impossible = ll <= _NEG / 2
    nll = jnp.where(impossible, jnp.inf, -ll).astype(log_probs.dtype)
    if zero_infinity:
        nll = jnp.where(impossible, 0, nll).astype(log_probs.dtype)
    past = jnp.arange(steps)[:, None, None] >= input_lengths[None, :, None]  # rows past a sample's input length
    log_alpha = jnp.where((alphas <= _NEG / 2) | past, -jnp.inf, alphas)
    return nll, jnp.transpose(log_alpha, (1, 0, 2)).astype(log_probs.dtype)


CTCLoss = PrimitiveDef(
    "CTCLoss",
    _ctc,
    attrs={"blank": 0, "zero_infinity": False},
    check=_check_ctc,
    multiple_results=True,
    nondiff=(1, 2, 3),
    bounds=_bounds.ctc_bounds,
)


def _check_unpool(x, indices, out_len):
    if tuple(getattr(x, "shape", ())) != tuple(getattr(indices, "shape", ())):
        raise op_error("MaxUnpool", f"'x' {tuple(x.shape)} and 'indices' {tuple(indices.shape)} must have one shape.")


def _unpool(x, indices, out_len):
    """Scatter x (..., L) to positions `indices` (flat over the spatial dims) of zeros (..., out_len)."""
    lead = x.shape[:-1]
    flat_x = x.reshape(-1, x.shape[-1])
    flat_i = indices.reshape(-1, x.shape[-1]).astype(jnp.int32)
    out = jnp.zeros((flat_x.shape[0], out_len), x.dtype)
    rows = jnp.arange(flat_x.shape[0])[:, None]
    return out.at[rows, flat_i].set(flat_x, mode="drop").reshape(lead + (out_len,))


MaxUnpool = PrimitiveDef("MaxUnpool", _unpool, attrs={"out_len": 0}, check=_check_unpool, nondiff=(1,))
