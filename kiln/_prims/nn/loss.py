"""Loss primitives: one primitive per loss, so a loss is one dispatch in PyNative (CTC too).

`reduction` is 'mean', 'sum' or 'none' (KLDivLoss adds 'batchmean'). Class
axis conventions follow MindSpore: inputs (N, C) or (N, C, d1, ...) or (C,).
"""

from __future__ import annotations

import functools

from kiln._backend import jax, jnp, lax
from kiln._core.primitive import PrimitiveDef
from kiln._prims import _bounds
from kiln._prims._checks import broadcast_shapes
from kiln._prims._low_precision import rounds_once_from_float32
from kiln._prims.math import absolute, maximum
from kiln._prims.nn._common import declare, dtype_name, dtype_of, one_of, op_error, require_float, shape_of

REDUCTIONS = ("mean", "sum", "none")


def _reduce(loss, reduction):
    if reduction == "mean":
        return jnp.mean(loss)
    if reduction == "sum":
        return jnp.sum(loss)
    return loss


def _is_int(x) -> bool:
    dt = dtype_of(x)
    return dt is not None and dt.kind in "iub"


# ---- softmax cross-entropy ------------------------------------------------------------------
def _check_sce(logits, labels):
    op = "SoftmaxCrossEntropyWithLogits"
    require_float(op, "logits", logits)
    ls, ys = shape_of(logits), shape_of(labels)
    if len(ls) != 2 or tuple(ys) != tuple(ls):
        raise op_error(
            op,
            f"'logits' and 'labels' must both be 2-D (N, C) with the same shape, but got "
            f"logits {list(ls)} and labels {list(ys)}.",
        )
    ld, yd = dtype_of(logits), dtype_of(labels)
    if ld is not None and yd is not None and ld != yd:
        # MindSpore converts neither input (both modes): float16 logits from a float16 head against float32 labels
        # would otherwise train here and fail there
        raise op_error(
            op,
            f"'logits' ({dtype_name(ld)}) and 'labels' ({dtype_name(yd)}) must have the same dtype; it converts "
            f"neither: cast the labels to the logits' dtype (labels.astype(logits.dtype)) or the logits to float32.",
            TypeError,
        )


def _sce(logits, labels):
    """(loss per row, gradient of the loss with respect to the logits)."""
    logp = jax.nn.log_softmax(logits, axis=-1)
    return -jnp.sum(labels * logp, axis=-1), jnp.exp(logp) - labels


def _sce_vjp(logits, labels, *, out, dout):
    """MindSpore's rule: the logits' gradient is the op's own backprop output (softmax - labels) times the loss's
    cotangent, the labels' is zero. It is the true gradient only where a row's labels sum to 1 (the zoo's
    CrossEntropySmoothMixup feeds rows that do not: VIT trained 1e-3 off MindSpore after one step)."""
    return out[1] * jnp.expand_dims(dout[0], -1).astype(out[1].dtype), jnp.zeros_like(labels)


SoftmaxCrossEntropyWithLogits = declare(
    "SoftmaxCrossEntropyWithLogits", rounds_once_from_float32(_sce), _check_sce, multiple_results=True, vjp=_sce_vjp
)


def _check_sparse_sce(logits, labels, *, is_grad):
    op = "SparseSoftmaxCrossEntropyWithLogits"
    require_float(op, "logits", logits)
    ls, ys = shape_of(logits), shape_of(labels)
    if not _is_int(labels):
        raise op_error(op, f"'labels' must be an integer tensor, but got {dtype_of(labels)}.", TypeError)
    if len(ls) < 1 or tuple(ys) != tuple(ls[:-1]):
        raise op_error(
            op,
            f"'labels' must have the shape of 'logits' without its last (class) axis, but got "
            f"logits {list(ls)} and labels {list(ys)}.",
        )


def _sparse_sce(logits, labels, *, is_grad):
    logp = jax.nn.log_softmax(logits, axis=-1)
    hot = jax.nn.one_hot(labels, logits.shape[-1], dtype=logits.dtype)
    if is_grad:
        return (jnp.exp(logp) - hot) / max(labels.size, 1)
    return -jnp.mean(jnp.sum(hot * logp, axis=-1))


SparseSoftmaxCrossEntropyWithLogits = declare(
    "SparseSoftmaxCrossEntropyWithLogits",
    # float16 logits: MindSpore's kernel computes the loss and the is_grad output in float32 and rounds once (JAX's
    # float16 steps were one ulp off in 31% of the losses and 43% of the gradients)
    rounds_once_from_float32(_sparse_sce),
    _check_sparse_sce,
    attrs={"is_grad": False},
    nondiff=(1,),
    bounds=_bounds.sparse_sce_bounds,
)


# ---- cross_entropy / nll_loss ------------------------------------------------------------------
def _check_class_loss(op, input_name):
    def check(x, target, weight, *, reduction, ignore_index, label_smoothing):
        require_float(op, input_name, x)
        one_of(op, "reduction", reduction, REDUCTIONS)
        if not 0.0 <= label_smoothing <= 1.0:
            raise op_error(op, f"'label_smoothing' must be in [0.0, 1.0], but got {label_smoothing}.")
        xs, ts = shape_of(x), shape_of(target)
        if len(xs) == 0:
            raise op_error(op, f"'{input_name}' must have a class axis, but got a scalar.")
        c = xs[1] if len(xs) >= 2 else xs[0]
        want = tuple(xs[:1] + xs[2:]) if len(xs) >= 2 else ()
        if not _is_int(target) and tuple(ts) == want != tuple(xs):  # labels left as floats (a dataset's column)
            raise op_error(
                op,
                f"'target' has the shape of class indices {list(ts)} but dtype {dtype_name(dtype_of(target))}: "
                f"class indices must be an integer tensor (a floating-point 'target' holds class probabilities, "
                f"with the shape of {input_name} {list(xs)}).",
                TypeError,
            )
        if _is_int(target):
            if tuple(ts) != want:
                raise op_error(
                    op,
                    f"class-index 'target' must have shape {list(want)} for {input_name} "
                    f"{list(xs)}, but got {list(ts)}.",
                )
        elif tuple(ts) != tuple(xs):
            raise op_error(
                op, f"probability 'target' must have the shape of {input_name} {list(xs)}, but got {list(ts)}."
            )
        if weight is not None and tuple(shape_of(weight)) != (c,):
            raise op_error(
                op, f"'weight' must have shape [{c}] (one value per class), but got {list(shape_of(weight))}."
            )

    return check


def _class_loss(logp, target, weight, reduction, ignore_index, label_smoothing):
    """Negative log-likelihood of log-probabilities `logp`, with label smoothing and class weights."""
    c_axis = 1 if logp.ndim >= 2 else 0
    c = logp.shape[c_axis]
    wshape = [1] * logp.ndim
    wshape[c_axis] = c
    w_b = 1.0 if weight is None else weight.astype(logp.dtype).reshape(wshape)
    if not jnp.issubdtype(target.dtype, jnp.integer) and target.dtype != jnp.bool_:
        target = target.astype(logp.dtype)
        if label_smoothing:
            target = target * (1 - label_smoothing) + label_smoothing / c
        loss = -jnp.sum(logp * target * w_b, axis=c_axis)
        total = jnp.asarray(loss.size, logp.dtype)
        return (loss if reduction == "none" else jnp.sum(loss) / (total if reduction == "mean" else 1)), total
    valid = target != ignore_index
    safe = jnp.where(valid, target, 0).astype(jnp.int32)
    picked = jnp.squeeze(jnp.take_along_axis(logp, jnp.expand_dims(safe, c_axis), axis=c_axis), c_axis)
    w_t = valid.astype(logp.dtype) if weight is None else jnp.where(valid, weight.astype(logp.dtype)[safe], 0)
    loss = -picked * w_t
    if label_smoothing:
        smooth = -jnp.sum(logp * w_b, axis=c_axis) / c * valid
        loss = (1 - label_smoothing) * loss + label_smoothing * smooth
    total = jnp.sum(w_t)
    if reduction == "none":
        return loss, total
    return (jnp.sum(loss) / total if reduction == "mean" else jnp.sum(loss)), total


def _cross_entropy(x, target, weight, *, reduction, ignore_index, label_smoothing):
    logp = jax.nn.log_softmax(x, axis=1 if x.ndim >= 2 else 0)
    return _class_loss(logp, target, weight, reduction, ignore_index, label_smoothing)[0]


def _nll_loss(x, target, weight, *, reduction, ignore_index, label_smoothing):
    return _class_loss(x, target, weight, reduction, ignore_index, label_smoothing)


def _declare_class_loss(name: str, impl, input_name: str, **options) -> PrimitiveDef:
    """A class-index loss: (input, target, weight) with the attributes reduction, ignore_index, label_smoothing."""
    return declare(
        name,
        impl,
        _check_class_loss(name, input_name),
        attrs={"reduction": "mean", "ignore_index": -100, "label_smoothing": 0.0},
        bounds=_bounds.class_loss_bounds,
        **options,
    )


CrossEntropy = _declare_class_loss("CrossEntropy", _cross_entropy, "input")
NLLLoss = _declare_class_loss("NLLLoss", _nll_loss, "logits", multiple_results=True)


# ---- binary cross-entropy ------------------------------------------------------------------------
def _check_binary(op, extra=("weight",)):
    def check(x, y, *weights, reduction):
        require_float(op, "logits", x)
        one_of(op, "reduction", reduction, REDUCTIONS)
        xs, ys = shape_of(x), shape_of(y)
        if tuple(xs) != tuple(ys):
            raise op_error(op, f"'logits' and 'labels' must have the same shape, but got {list(xs)} and {list(ys)}.")
        for name, w in zip(extra, weights):
            if w is not None:
                try:
                    broadcast_shapes(op, shape_of(w), xs)
                except ValueError:
                    raise op_error(
                        op, f"'{name}' of shape {list(shape_of(w))} must broadcast to the logits shape {list(xs)}."
                    ) from None

    return check


_LOG_EPS = 1e-12  # probabilities are clamped here before the log, so 0 and 1 give finite losses


@jax.custom_jvp
def _bce_terms(p, y):
    """-(y log p + (1 - y) log(1 - p)), each probability clamped at 1e-12 before its log, with MindSpore 2.10's
    derivative (its BinaryCrossEntropyGrad, also PyTorch's): (p - y) / max(p (1 - p), 1e-12) for p, log(1 - p) -
    log(p) for y (no clamp: inf at p = 0)."""
    eps = jnp.asarray(_LOG_EPS, p.dtype)
    return -(y * jnp.log(jnp.maximum(p, eps)) + (1 - y) * jnp.log(jnp.maximum(1 - p, eps)))


@_bce_terms.defjvp
def _bce_terms_jvp(primals, tangents):
    # The clamps' own derivative gave p = 0 and p = 1 no gradient (MindSpore: -1e12 and 1e12 for a label 1 and 0),
    # shared the tie p = 1e-12, and tested p against the clamped value (see math.maximum): the loss's derivative is
    # MindSpore's formula instead, whose one bound compares p (1 - p) with eps.
    (p, y), (t_p, t_y) = primals, tangents
    eps = jnp.asarray(_LOG_EPS, p.dtype)
    d_p = (p - y) / maximum(p * (1 - p), eps)
    return _bce_terms(p, y), d_p * t_p + (jnp.log(1 - p) - jnp.log(p)) * t_y


def _bce(p, y, weight, *, reduction):
    loss = _bce_terms(p, y.astype(p.dtype))
    if weight is not None:
        loss = loss * weight.astype(p.dtype)
    return _reduce(loss, reduction)


@jax.custom_jvp
def _bce_logits_terms(x, y, pos_weight):
    """(1 - y) x + (1 + (pos_weight - 1) y) log(1 + exp(-x)) elementwise (the backend's value)."""
    return (1 - y) * x + (1 + (pos_weight - 1) * y) * jnp.logaddexp(0, -x)


def _bce_logits_terms_jvp(primals, tangents):
    # The backend's slope in x, (1 - y) - (1 + (pos_weight - 1) y) sigmoid(-x), cancels for a label 0 where x is very
    # negative (1 - sigmoid(-x)): float32 gradients were 33% off at x = -13.5 (MindSpore 2.10's kernel 3.6e-6). The
    # same slope is (1 - y) sigmoid(x) - pos_weight y sigmoid(-x), both sigmoids from one exp(-|x|).
    (x, y, pw), (dx, dy, dpw) = primals, tangents
    softplus_neg = jnp.logaddexp(0, -x)
    e = jnp.exp(-jnp.abs(x))
    big = 1 / (1 + e)  # sigmoid(|x|)
    pos, neg = jnp.where(x >= 0, big, e * big), jnp.where(x >= 0, e * big, big)  # sigmoid(x), sigmoid(-x)
    slope = (1 - y) * pos - pw * y * neg
    out = (1 - y) * x + (1 + (pw - 1) * y) * softplus_neg
    # labels and pos_weight are constants in training: their zero tangents add no work
    terms = [(slope, dx), ((pw - 1) * softplus_neg - x, dy), (y * softplus_neg, dpw)]
    live = [d * t for d, t in terms if not isinstance(t, jax.custom_derivatives.SymbolicZero)]
    return out, functools.reduce(lambda a, b: a + b, live) if live else jnp.zeros_like(out)


_bce_logits_terms.defjvp(_bce_logits_terms_jvp, symbolic_zeros=True)


def _bce_logits(x, y, weight, pos_weight, *, reduction):
    y = y.astype(x.dtype)
    pw = jnp.ones((), x.dtype) if pos_weight is None else pos_weight.astype(x.dtype)
    loss = _bce_logits_terms(x, y, pw)
    if weight is not None:
        loss = loss * weight.astype(x.dtype)
    return _reduce(loss, reduction)


BinaryCrossEntropy = declare(
    "BinaryCrossEntropy", _bce, _check_binary("BinaryCrossEntropy"), attrs={"reduction": "mean"}
)
BCEWithLogitsLoss = declare(
    "BCEWithLogitsLoss",
    _bce_logits,
    _check_binary("BCEWithLogitsLoss", ("weight", "pos_weight")),
    attrs={"reduction": "mean"},
)


# ---- regression losses -----------------------------------------------------------------------------
def _check_pair(op, broadcast=True):
    def check(x, y, *, reduction, **attrs):
        require_float(op, "input", x)
        one_of(op, "reduction", reduction, REDUCTIONS)
        xs, ys = shape_of(x), shape_of(y)
        if broadcast:
            broadcast_shapes(op, xs, ys)
        elif tuple(xs) != tuple(ys):
            raise op_error(op, f"'input' and 'target' must have the same shape, but got {list(xs)} and {list(ys)}.")
        beta = attrs.get("beta")
        if beta is not None and beta < 0:
            raise op_error(op, f"'beta' must be non-negative, but got {beta}.")

    return check


# The difference promotes as MindSpore's Sub does: a float16 input beside a float32 target (a float16 head's output
# against float32 labels) gives float32 losses there, and gave float16 here where the target was cast to the input's
def _mse(x, y, *, reduction):
    return _reduce(jnp.square(x - y), reduction)


def _l1(x, y, *, reduction):
    # derivative 0 where the input equals the target, as MindSpore's L1Loss (the backend's abs gives 1 there)
    return _reduce(absolute(x - y), reduction)


def _smooth_l1(x, y, *, beta, reduction):
    d = jnp.abs(x - y)
    if beta == 0:
        return _reduce(d, reduction)
    return _reduce(jnp.where(d < beta, 0.5 * d * d / beta, d - 0.5 * beta), reduction)


MSELoss = declare("MSELoss", _mse, _check_pair("MSELoss"), attrs={"reduction": "mean"})
L1Loss = declare("L1Loss", _l1, _check_pair("L1Loss"), attrs={"reduction": "mean"})
SmoothL1Loss = declare(
    "SmoothL1Loss",
    rounds_once_from_float32(_smooth_l1),
    _check_pair("SmoothL1Loss", broadcast=False),
    attrs={"beta": 1.0, "reduction": "none"},
)


def _check_kl(x, y, *, reduction):
    op = "KLDivLoss"
    require_float(op, "logits", x)
    one_of(op, "reduction", reduction, REDUCTIONS + ("batchmean",))
    broadcast_shapes(op, shape_of(x), shape_of(y))


def _kl_div(x, y, *, reduction):
    y = y.astype(x.dtype)
    # y * (log y - x) where y > 0, and 0 elsewhere (MindSpore 2.10: a target <= 0 contributes nothing at all).
    loss = jnp.where(y > 0, y * (jnp.log(jnp.where(y > 0, y, 1)) - x), 0)
    if reduction == "batchmean":
        return jnp.sum(loss) / (loss.shape[0] if loss.ndim else 1)
    return _reduce(loss, reduction)


KLDivLoss = declare("KLDivLoss", _kl_div, _check_kl, attrs={"reduction": "mean"})


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


def _ctc_lattice(log_probs, targets, input_lengths, target_lengths, blank):
    """The forward recursion over the extended labels (blanks between and around the targets), in log space.

    Returns (emit (N, T, L): each frame's log-probability of each extended label; ext (N, L): the extended labels;
    skip (N, L): where a path may skip the blank before a label; reach (N, L): the positions within each target;
    alphas (T, N, L): the forward variables, frame by frame, floored at _NEG; ll (N,): each sample's log-likelihood).
    """
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
        # a floor, not a stabiliser: its derivative reaches the loss (math.maximum compares new with the floor)
        new = jnp.where(reach, maximum(new, neg), neg)
        new = jnp.where((t < input_lengths)[:, None], new, alpha)  # past its input length a sample stays put
        return new, new

    last, rest = lax.scan(step, alpha0, jnp.arange(1, steps))
    alphas = jnp.concatenate([alpha0[None], rest], axis=0)  # (T, N, L)
    rows = jnp.arange(n)
    end = 2 * target_lengths.astype(jnp.int32)
    ll = jnp.logaddexp(last[rows, end], jnp.where(target_lengths > 0, last[rows, jnp.maximum(end - 1, 0)], neg))
    return emit, ext, skip, reach, alphas, ll


def _ctc(log_probs, targets, input_lengths, target_lengths, blank, zero_infinity):
    out_dtype = log_probs.dtype
    if jnp.finfo(out_dtype).bits < 32:  # _NEG is -inf in float16 (and NaN gradients come back): run in float32
        log_probs = log_probs.astype(jnp.float32)
    steps = log_probs.shape[0]
    *_, alphas, ll = _ctc_lattice(log_probs, targets, input_lengths, target_lengths, blank)
    impossible = ll <= _NEG / 2
    nll = jnp.where(impossible, jnp.inf, -ll).astype(out_dtype)
    if zero_infinity:
        nll = jnp.where(impossible, 0, nll).astype(out_dtype)
    past = jnp.arange(steps)[:, None, None] >= input_lengths[None, :, None]  # rows past a sample's input length
    log_alpha = jnp.where((alphas <= _NEG / 2) | past, -jnp.inf, alphas)
    return nll, jnp.transpose(log_alpha, (1, 0, 2)).astype(out_dtype)


def _ctc_shapes(log_probs, targets, input_lengths, target_lengths, blank, zero_infinity):
    # declared, not traced: the abstract trace of the recursion (a scan) cost a GRAPH_MODE CRNN build ~0.3 s
    steps, n, _ = log_probs.shape
    width = 2 * targets.shape[1] + 1
    return jax.ShapeDtypeStruct((n,), log_probs.dtype), jax.ShapeDtypeStruct((n, steps, width), log_probs.dtype)


CTCLoss = PrimitiveDef(
    "CTCLoss",
    _ctc,
    attrs={"blank": 0, "zero_infinity": False},
    check=_check_ctc,
    shapes=_ctc_shapes,
    multiple_results=True,
    nondiff=(1, 2, 3),
    bounds=_bounds.ctc_bounds,
)


def _ctc_betas(emit, skip, reach, input_lengths, target_lengths):
    """The backward recursion of `_ctc_lattice`: betas (T, N, L), each the log-probability of the rest of the
    target from that frame and position on, that frame's own emission included; _NEG where no path goes."""
    n, steps, width = emit.shape
    neg = jnp.asarray(_NEG, emit.dtype)
    positions = jnp.arange(width)[None, :]
    end = 2 * target_lengths.astype(jnp.int32)[:, None]
    finals = (positions == end) | ((positions == end - 1) & (target_lengths > 0)[:, None])
    # a blank-free skip from s to s + 2 is allowed where the label at s + 2 may skip the blank before it
    skip_ahead = jnp.concatenate([skip[:, 2:], jnp.zeros((n, 2), bool)], axis=1)

    def step(beta, t):
        b2 = jnp.concatenate([beta[:, 1:], jnp.full((n, 1), neg, beta.dtype)], axis=1)
        b3 = jnp.concatenate([beta[:, 2:], jnp.full((n, 2), neg, beta.dtype)], axis=1)
        b3 = jnp.where(skip_ahead, b3, neg)
        new = jnp.maximum(jnp.logaddexp(jnp.logaddexp(beta, b2), b3) + emit[:, t, :], neg)
        last_frame = (t == input_lengths - 1)[:, None]
        new = jnp.where(last_frame, jnp.where(finals, emit[:, t, :], neg), new)
        new = jnp.where(reach & (t < input_lengths)[:, None], new, neg)
        return new, new

    _, betas = lax.scan(step, jnp.full((n, width), neg, emit.dtype), jnp.arange(steps), reverse=True)
    return betas  # (T, N, L)


def _ctc_tf(logits, targets, input_lengths, target_lengths, keep, blank):
    """(loss (N,), gradient (T, N, C)): the CTC loss of softmax(logits) per sample and its gradient w.r.t. the
    logits. A sample with no alignment (or where `keep` is False) gets an infinite loss and a zero gradient, as
    MindSpore 2.10's kernel gives them.

    The gradient is the forward-backward algorithm's, written out: softmax(logits) minus each label's share of the
    paths through each frame (alpha x beta / emission, over the likelihood). Autodiff of the forward recursion gave
    the same values but cost a GRAPH_MODE CRNN build 0.4 s of tracing (the scan linearised and transposed).
    """
    out_dtype = logits.dtype
    z = logits.astype(jnp.float32) if jnp.finfo(out_dtype).bits < 32 else logits
    steps, _, classes = z.shape
    log_probs = jax.nn.log_softmax(z, axis=2)
    emit, ext, skip, reach, alphas, ll = _ctc_lattice(log_probs, targets, input_lengths, target_lengths, blank)
    betas = _ctc_betas(emit, skip, reach, input_lengths, target_lengths)
    possible = keep & (ll > _NEG / 2)
    # each (frame, sample, position)'s share of the sample's paths; 0 off the sample's frames and positions
    share = jnp.exp(alphas + betas - jnp.transpose(emit, (1, 0, 2)) - ll[None, :, None])
    live = (jnp.arange(steps)[:, None] < input_lengths[None, :]) & possible[None, :]  # (T, N)
    share = jnp.where(live[:, :, None] & (betas > _NEG / 2) & (alphas > _NEG / 2), share, 0)
    labels = jax.nn.one_hot(ext, classes, dtype=z.dtype)  # (N, L, C)
    grad = jnp.where(live[:, :, None], jnp.exp(log_probs), 0) - jnp.einsum("tnl,nlc->tnc", share, labels)
    nll = jnp.where(possible, -ll, jnp.inf)
    return nll.astype(out_dtype), grad.astype(out_dtype)


def _ctc_tf_shapes(logits, targets, input_lengths, target_lengths, keep, blank):
    # declared, not traced: an abstract trace of the loss and its gradient (two scans) is work thrown away
    return jax.ShapeDtypeStruct((logits.shape[1],), logits.dtype), jax.ShapeDtypeStruct(logits.shape, logits.dtype)


def _ctc_tf_vjp(logits, targets, input_lengths, target_lengths, keep, *, out, dout, blank):
    # MindSpore's derivative of this op: the gradient output scaled by each sample's loss cotangent (the gradient
    # output's own cotangent is dropped). It also spares the backend linearising the recursions' scans: 0.2-0.4 s of
    # a GRAPH_MODE CRNN build.
    return (dout[0][None, :, None].astype(out[1].dtype) * out[1], None, None, None, None)


CTCLossTF = PrimitiveDef(
    "CTCLossTF",
    _ctc_tf,
    attrs={"blank": 0},
    shapes=_ctc_tf_shapes,
    multiple_results=True,
    nondiff=(1, 2, 3, 4),
    vjp=_ctc_tf_vjp,
)
