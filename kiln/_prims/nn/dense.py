"""Fully connected layers: Dense (x @ w.T + b) and BiasAdd (a bias along the channel axis)."""

from __future__ import annotations

import math

from kiln._backend import default_platform, jax, jnp, lax
from kiln._core.primitive import PrimitiveDef, op_error
from kiln._prims._checks import shape_of
from kiln._prims.nn._common import declare, require_float


def _check_dense(x, w, b):
    op = "Dense"
    xs, ws = shape_of(x), shape_of(w)
    require_float(op, "input", x)
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
    w = w.astype(x.dtype)
    y = _rows_dense(x, w) if _gradient_transposed_by_dot(x, w) else jnp.matmul(x, w.T)
    return y if b is None else y + b.astype(y.dtype)


# Most output features whose gradient `_rows_dense` transposes by a dot with the identity (out x out multiply-adds
# per row). The transformer benchmark's GRAPH_MODE step, in one process, the matmul's derivative against this
# rule for every Dense and for out <= 64 only: 1.04/0.90/0.84/0.94x and 1.04/0.77/0.77/0.85x; its 128-wide MLP
# layer's identity dot took 95-111 us, more than the copy it replaced (whose chain is one GELU derivative).
IDENTITY_TRANSPOSE_MAX_OUT = 64


def _gradient_transposed_by_dot(x, w) -> bool:
    """Whether `x @ w.T` takes `_rows_dense`'s derivative: on the CPU, a 2-D weight of at most
    `IDENTITY_TRANSPOSE_MAX_OUT` rows over static batches of rows of floats. A 2-D `x` keeps the matmul: there
    this XLA's dot reads the output gradient's rows without a copy."""
    if w.ndim != 2 or x.ndim < 3 or not jnp.issubdtype(x.dtype, jnp.floating):
        return False
    if w.shape[0] > IDENTITY_TRANSPOSE_MAX_OUT:
        return False
    return all(type(d) is int for d in x.shape) and default_platform() == "cpu"


@jax.custom_jvp
def _rows_dense(x, w):
    """`x @ w.T` over batches of rows `x` (..., rows, in), differentiated so that `w`'s gradient reads the
    output gradient as stored.

    The backend's weight gradient is `g^T @ x`, contracting the output gradient `g` over its rows. This XLA CPU
    build's dot library wants that operand as a transposed copy, and its fusion pass builds the copy by
    recomputing the whole elementwise chain that produces `g` (in a transformer, every later residual branch's
    LayerNorm backward): the four largest kernels of the transformer step, 66-228 us each for a 256x64 copy.
    The tangent below makes the backward transpose `g` by a dot with the identity, which the dot library runs on
    `g` as already computed (18-19 us for 256x64, one core, loaded). Values and derivatives are the matmul's
    to float rounding (the identity product is exact), except that an infinite or NaN entry of `g` makes the
    whole weight gradient NaN where the matmul's has one row of infinities or NaN (either way not finite).
    """
    return jnp.matmul(x, w.T)


@_rows_dense.defjvp
def _rows_dense_jvp(primals, tangents):
    x, w = primals
    dx, dw = tangents
    rows = x.reshape((math.prod(x.shape[:-1]), x.shape[-1]))
    dw_rows = lax.dot_general(dw, rows, (((1,), (1,)), ((), ())))  # (x @ dw.T).T: (out, rows)
    # transposed back by a dot with the identity, so that the transpose of this tangent is a dot too
    eye = jnp.eye(w.shape[0], dtype=w.dtype)
    x_dw = lax.dot_general(dw_rows, eye, (((0,), (0,)), ((), ())))
    return _rows_dense(x, w), jnp.matmul(dx, w.T) + x_dw.reshape(x.shape[:-1] + (w.shape[0],))


Dense = declare("Dense", _dense, _check_dense)


def _check_bias_add(x, b, data_format="NCHW"):
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
    if data_format == "NHWC" or x.ndim == 2:
        return x + b
    return x + b.reshape((1, -1) + (1,) * (x.ndim - 2))


BiasAdd = PrimitiveDef("BiasAdd", _bias_add, attrs={"data_format": "NCHW"}, check=_check_bias_add, check_eagerly=True)
