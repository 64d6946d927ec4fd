"""Function transformations: `vmap`, `jvp`, `vjp`, `jacfwd`, `jacrev`, `hessian`, `get_grad`.

`vmap`, `jvp` and the Jacobians run the user's function once on the backend's own transformation (batching,
forward mode) with Tensors that stand for its symbolic values, as MindSpore runs them on its graph. Inside a
gradient being taken (the tape is recording), such a call is one opaque step of the tape whose derivative is
the backend's vjp of the whole transformed function. `vjp` runs on the tape itself, like `grad`.
"""

from __future__ import annotations

from collections.abc import Callable

from kiln import _backend as B
from kiln._core import graph as G
from kiln._core.primitive import op_error
from kiln._core.tensor import Parameter, Tensor
from kiln._pynative import autograd, tape
from kiln._pynative.nested import flatten

__all__ = ["get_grad", "hessian", "jacfwd", "jacrev", "jvp", "vjp", "vmap"]


def _to_arrays(value):
    """`value` with every Tensor replaced by its backend array (tuples, lists and dicts kept)."""
    if isinstance(value, Tensor):
        return value._data
    if isinstance(value, (tuple, list)):
        return type(value)(_to_arrays(v) for v in value)
    if isinstance(value, dict):
        return {k: _to_arrays(v) for k, v in value.items()}
    return value


def _to_tensors(value):
    """`value` with every backend array wrapped as a Tensor."""
    if B.is_array(value):
        return Tensor._wrap(value)
    if isinstance(value, (tuple, list)):
        return type(value)(_to_tensors(v) for v in value)
    if isinstance(value, dict):
        return {k: _to_tensors(v) for k, v in value.items()}
    return value


def _pure(fn: Callable, what: str) -> Callable:
    """`fn` as a function of backend arrays (its Tensor arguments and results unwrapped)."""

    def pure(*arrays):
        out = fn(*_to_tensors(arrays))
        if out is None:
            raise TypeError(f"{what}: the function must return Tensors, but it returned None.")
        return _to_arrays(out)

    return pure


def _check_eager(what: str, args) -> None:
    leaves: list = []
    flatten(tuple(args), leaves)
    if G.current() is not None and any(G.is_symbolic(x) for x in leaves):
        raise RuntimeError(
            f"{what} is not supported inside a compiled graph (GRAPH_MODE or @jit) yet: call it in PyNative mode."
        )


def _run(transformed: Callable, args: tuple):
    """Call backend function `transformed` on `args` (Tensors inside containers); Tensors out.

    While the tape records, the call is one step of it, differentiated by the backend's vjp of `transformed`.
    """
    leaves: list = []
    template = flatten(tuple(args), leaves)
    tensors = _tensor_leaves(args)

    def on_leaves(*flat):
        return transformed(*unflatten_arrays(template, iter(flat)))

    if not tape.recording or not any(t._nodes for t in tensors):
        return _to_tensors(on_leaves(*leaves))
    with tape.pause():
        out, pullback = B.vjp(on_leaves, *leaves)
    out_leaves: list = []
    out_template = flatten(_to_tensors(out), out_leaves)
    fresh = tuple(Tensor._wrap(x) for x in out_leaves)

    def rule(cots):
        cot = unflatten_arrays(out_template, (c._data for c in cots))
        grads = pullback(cot)
        return tuple(Tensor._wrap(g) if g.dtype != B.float0 else None for g in grads)

    tape.record_custom(tuple(tensors), fresh, rule)
    return unflatten_arrays(out_template, iter(fresh))  # the recorded Tensors themselves


def _tensor_leaves(value) -> list[Tensor]:
    if isinstance(value, Tensor):
        return [value]
    if isinstance(value, (tuple, list)):
        return [t for v in value for t in _tensor_leaves(v)]
    if isinstance(value, dict):
        return [t for v in value.values() for t in _tensor_leaves(v)]
    return []


def unflatten_arrays(template, it):
    """Like `nested.unflatten`, with backend arrays (not Tensors) at the leaves."""
    kind = template[0]
    if kind == "t":
        return next(it)
    if kind == "c":
        return template[1]
    if kind == "s":
        return template[1](unflatten_arrays(t, it) for t in template[2])
    return dict(zip(template[1], (unflatten_arrays(t, it) for t in template[2]), strict=True))


# ---------------------------------------------------------------------------------------------- vmap


def _axes_like(axes, value, what: str):
    """MindSpore's `in_axes` (int, None, or nested tuple/list) shaped like the arguments, as the backend wants."""
    if axes is None or isinstance(axes, int):
        return axes
    if isinstance(axes, (tuple, list)):
        if not isinstance(value, (tuple, list)) or len(axes) != len(value):
            n = len(value) if isinstance(value, (tuple, list)) else 1
            raise ValueError(f"vmap: {what} has {len(axes)} entries, but they stand for {n} value(s).")
        return type(value)(_axes_like(a, v, what) for a, v in zip(axes, value, strict=True))
    raise TypeError(f"vmap: {what} must be an int, None, or a tuple/list of them, but got {type(axes).__name__}.")


def vmap(fn: Callable, in_axes=0, out_axes=0) -> Callable:
    """Vectorise `fn` over a batch axis of its inputs.

    Args:
        fn: a function or Cell of Tensors.
        in_axes: per argument (nested as the arguments are), the axis that is the batch; None: not batched.
        out_axes: per output, where the batch axis goes.

    Returns:
        The batched function.
    """
    if not callable(fn):
        raise TypeError(f"vmap: 'fn' must be callable, but got {type(fn).__name__}.")

    def batched(*args):
        _check_eager("vmap", args)
        axes = _axes_like(in_axes, args, "in_axes") if isinstance(in_axes, (tuple, list)) else in_axes
        if isinstance(axes, (list)):
            axes = tuple(axes)
        outs = out_axes if not isinstance(out_axes, list) else tuple(out_axes)
        try:
            transformed = B.jax.vmap(_pure(fn, "vmap"), in_axes=axes, out_axes=outs)
            return _run(transformed, args)
        except ValueError as e:
            if "vmap" in str(e) and ("axis" in str(e) or "size" in str(e)):
                raise ValueError(f"vmap: {str(e).splitlines()[0]}") from None
            raise

    batched.__wrapped__ = fn
    return batched


# ---------------------------------------------------------------------------------------------- forward mode


def _split_aux(pure: Callable) -> Callable:
    """`fn` returning `(output, *aux)` as the pair `(output, aux)` that the backend's `has_aux` wants."""

    def split(*a):
        out = pure(*a)
        if not isinstance(out, (tuple, list)) or len(out) < 2:
            raise TypeError("has_aux=True expects the function to return a tuple (output, *aux).")
        return out[0], (out[1] if len(out) == 2 else tuple(out[1:]))

    return split


def _as_tuple(x) -> tuple:
    return tuple(x) if isinstance(x, (tuple, list)) else (x,)


def jvp(fn: Callable, inputs, v, has_aux: bool = False):
    """Forward-mode derivative: `(fn(*inputs), J·v)` (with `aux` third when `has_aux`).

    Args:
        fn: function of Tensors.
        inputs: a Tensor or a tuple of Tensors (the point).
        v: tangents, shaped as `inputs`.
        has_aux: `fn` returns `(output, aux)`; only `output` is differentiated.
    """
    xs, vs = _as_tuple(inputs), _as_tuple(v)
    if len(xs) != len(vs):
        raise ValueError(f"jvp: 'v' holds {len(vs)} tangent(s) for {len(xs)} input(s).")
    _check_eager("jvp", xs)
    pure = _pure(fn, "jvp")
    n = len(xs)

    def transformed(*flat):
        primals, tangents = flat[:n], flat[n:]
        tangents = tuple(t.astype(p.dtype) for p, t in zip(primals, tangents, strict=True))
        if has_aux:
            return B.jax.jvp(_split_aux(pure), primals, tangents, has_aux=True)
        return B.jax.jvp(pure, primals, tangents)

    return _run(transformed, xs + vs)


def vjp(fn: Callable, *inputs, weights=None, has_aux: bool = False):
    """Reverse-mode derivative: `(fn(*inputs), vjp_fn)`; `vjp_fn(v)` gives the tuple of input cotangents
    (and the weights' when `weights` are given); with `has_aux`, `(output, vjp_fn, aux)`."""
    out = fn(*inputs)
    value, aux = (out[0], out[1] if len(out) == 2 else tuple(out[1:])) if has_aux else (out, None)
    positions = tuple(i for i, a in enumerate(inputs) if isinstance(a, Tensor))
    ws = autograd._weights_list(weights) if weights is not None else []

    def vjp_fn(*v):
        sens = v[0] if len(v) == 1 else tuple(v)
        target = (lambda *a: fn(*a)[0]) if has_aux else fn
        _, in_grads, w_grads = autograd.run_with_grad(target, inputs, positions, ws, sens=sens)
        return (in_grads, w_grads) if weights is not None else in_grads

    return (value, vjp_fn, aux) if has_aux else (value, vjp_fn)


def _jacobian(kind: str, fn: Callable, grad_position, has_aux: bool) -> Callable:
    transform = B.jax.jacfwd if kind == "jacfwd" else B.jax.jacrev
    argnums = grad_position if isinstance(grad_position, int) else tuple(grad_position)

    def jac(*args):
        _check_eager(kind, args)
        for p in _as_tuple(argnums):
            if not isinstance(args[p], Tensor):
                raise TypeError(f"{kind}: argument {p} must be a Tensor, but got {type(args[p]).__name__}.")
        pure = _pure(fn, kind)
        if has_aux:
            transformed = transform(_split_aux(pure), argnums=argnums, has_aux=True)
        else:
            transformed = transform(pure, argnums=argnums)
        return _run(transformed, args)

    jac.__wrapped__ = fn
    return jac


def jacfwd(fn: Callable, grad_position=0, has_aux: bool = False) -> Callable:
    """The Jacobian of `fn` w.r.t. the arguments at `grad_position`, by forward mode."""
    return _jacobian("jacfwd", fn, grad_position, has_aux)


def jacrev(fn: Callable, grad_position=0, has_aux: bool = False) -> Callable:
    """The Jacobian of `fn` w.r.t. the arguments at `grad_position`, by reverse mode."""
    return _jacobian("jacrev", fn, grad_position, has_aux)


def hessian(fn: Callable, grad_position=0, has_aux: bool = False) -> Callable:
    """The Hessian of scalar function `fn`: `jacfwd(jacrev(fn))`."""
    return jacfwd(jacrev(fn, grad_position, has_aux), grad_position, has_aux)


def get_grad(gradients, identifier):
    """The gradient of argument position or Parameter `identifier` from a `grad(..., return_ids=True)` result."""
    key = identifier.name if isinstance(identifier, Parameter) else identifier
    found = _find_grad(gradients, key)
    if found is None:
        raise op_error(
            "get_grad", f"no gradient is identified by {identifier!r}: the gradients hold no such position or name."
        )
    return found[0]


def _find_grad(gradients, key):
    if isinstance(gradients, tuple) and len(gradients) == 2 and isinstance(gradients[0], (int, str)):
        if gradients[0] == key and (isinstance(gradients[1], Tensor) or gradients[1] is None):
            return (gradients[1],)
    if isinstance(gradients, (tuple, list)):
        for g in gradients:
            found = _find_grad(g, key)
            if found is not None:
                return found
    return None
