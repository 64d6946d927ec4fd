"""Fully connected layers: Dense (x @ w.T + b) and BiasAdd (a bias along the channel axis)."""

from __future__ import annotations

from kiln._backend import jnp
from kiln._core.primitive import PrimitiveDef, op_error
from kiln._prims._checks import same_float_dtype, shape_of
from kiln._prims._low_precision import broadcast_in_float32
from kiln._prims.nn._common import declare, require_float


def _check_dense(x, w, b):
    op = "Dense"
    xs, ws = shape_of(x), shape_of(w)
    require_float(op, "input", x)
    same_float_dtype(op, input=x, weight=w, bias=b)
    if len(ws) not in (1, 2) or len(xs) < 1 or xs[-1] != ws[-1]:
        raise op_error(
            op,
            f"'weight' must be (out_features, in_features) or (in_features,) with in_features equal "
            f"to the last dimension of 'input', but got input {list(xs)} and weight {list(ws)}.",
        )
    want = (ws[0],) if len(ws) == 2 else ()
    if b is not None and tuple(shape_of(b)) not in (want, (1,) if want else ()):
        raise op_error(op, f"'bias' must have shape {list(want)}, but got {list(shape_of(b))}.")


def _dense(x, w, b):
    # The plain product also on the CPU. The rule of ffb2578/d6a3c45 (the weight gradient's output gradient
    # transposed by a dot with the identity) stopped paying once LayerNorm worked on rows: the transformer step ran
    # at 0.96x CPU and 0.94-0.95x wall (p10) without it (each built twice, interleaved in one process, 12 rounds,
    # load 5); XLA's transposed copies now mostly read gradients computed once, not whole recomputed chains.
    # Over 2-D rows, as LayerNorm, the step had 19 fewer kernels but the same CPU time (1.000x; session 14, load 9).
    # Sibling Dense layers on one input (attention's q, k, v) merged into one product over concatenated weights: 12
    # fewer dots in the hand-written JAX step but 1.017-1.029x its CPU time (A/A 0.999-1.008; session 17, load 5-8).
    y = jnp.matmul(x, w.astype(x.dtype).T)
    return y if b is None else y + broadcast_in_float32(b.astype(y.dtype), y.shape)  # float16: db sums in float32


Dense = declare("Dense", _dense, _check_dense)


def _check_bias_add(x, b, data_format="NCHW"):
    same_float_dtype("BiasAdd", input_x=x, bias=b)
    xs, bs = shape_of(x), shape_of(b)
    if len(bs) != 1:
        raise op_error("BiasAdd", f"the dimension of 'bias' must be 1, but got shape {list(bs)}.")
    if len(xs) < 2:
        raise op_error("BiasAdd", f"the dimension of 'input_x' must be at least 2, but got shape {list(xs)}.")
    channel = xs[-1] if data_format == "NHWC" else xs[1]
    if channel != bs[0]:
        raise op_error(
            "BiasAdd",
            f"'bias' must have as many elements as the channel dimension of 'input_x' "
            f"(input_x.shape[{'-1' if data_format == 'NHWC' else '1'}] = {channel}), "
            f"but got bias shape {list(bs)} and input_x shape {list(xs)}.",
        )


def _bias_add(x, b, data_format):
    if data_format != "NHWC" and x.ndim > 2:
        b = b.reshape((1, -1) + (1,) * (x.ndim - 2))
    return x + broadcast_in_float32(b, x.shape)  # float16: the bias gradient sums in float32


BiasAdd = PrimitiveDef("BiasAdd", _bias_add, attrs={"data_format": "NCHW"}, check=_check_bias_add)
