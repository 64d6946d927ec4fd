"""Function transformations: `vmap`, `jvp`, `vjp`, `jacfwd`, `jacrev`, `hessian`, `get_grad`.

`vmap`, `jvp` and the Jacobians run the user's function once on the backend's own transformation (batching,
forward mode) with Tensors that stand for its symbolic values, as MindSpore runs them on its graph. Inside a
gradient being taken (the tape is recording), such a call is one opaque step of the tape whose derivative is
the backend's vjp of the whole transformed function. `vjp` runs on the tape itself, like `grad`.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from kiln import _backend as B
from kiln._compiler.ir import graph as G
from kiln._core.primitive import op_error
from kiln._core.tensor import Parameter, Tensor
from kiln._core.tree import flatten, tensor_leaves, unflatten
from kiln._prims.recurrent import reverse_only
from kiln._pynative import autograd, tape
from kiln._pynative.nested import call_with_graph_semantics, record
from kiln.ops.array import stack

__all__ = ["get_grad", "hessian", "jacfwd", "jacrev", "jvp", "linearize", "vjp", "vmap"]


def _same(x):
    return x


def _to_arrays(value):
    """`value` with every Tensor replaced by its backend array (containers kept)."""
    leaves: list = []
    return unflatten(flatten(value, leaves), iter(leaves), _same)


def _to_tensors(value):
    """`value`, as a backend transform returns it, with every backend array wrapped as a Tensor.

    Such a value is the backend's own pytree (its containers rebuilt by the backend), so the backend's tree
    map walks it; Kiln's `flatten` walks values holding Tensors."""
    return B.tree_util.tree_map(lambda x: Tensor._wrap(x) if B.is_array(x) else x, value)


def _pure(fn: Callable, what: str) -> Callable:
    """`fn` as a function of backend arrays (its Tensor arguments and results unwrapped)."""

    def pure(*arrays):
        out = fn(*_to_tensors(arrays))
        if out is None:
            raise TypeError(f"{what}: the function must return Tensors, but it returned None.")
        return _to_arrays(out)

    return pure


def _any_symbolic(args) -> bool:
    leaves: list = []
    flatten(tuple(args), leaves)
    return any(G.is_symbolic(x) for x in leaves)


def _run(transformed: Callable, args: tuple):
    """Call backend function `transformed` on `args` (Tensors inside containers); Tensors out.

    While the tape records, the call is one step of it, differentiated by the backend's vjp of `transformed`.
    """
    leaves: list = []
    template = flatten(tuple(args), leaves)
    tensors = tensor_leaves(args)

    def on_leaves(*flat):
        return transformed(*unflatten(template, iter(flat), _same))

    if not tape.recording or not any(t._nodes for t in tensors):
        return _to_tensors(on_leaves(*leaves))
    with tape.pause():
        out, pullback = B.vjp(on_leaves, *leaves)
    out_leaves: list = []
    out_template = flatten(_to_tensors(out), out_leaves)
    fresh = tuple(Tensor._wrap(x) for x in out_leaves)

    def rule(cots):
        cot = unflatten(out_template, (c._data for c in cots), _same)
        grads = pullback(cot)
        return tuple(Tensor._wrap(g) if g.dtype != B.float0 else None for g in grads)

    tape.record_custom(tuple(tensors), fresh, rule)
    return unflatten(out_template, iter(fresh), _same)  # the recorded Tensors themselves


# ---------------------------------------------------------------------------------------------- vmap


def _leaf_axes(axes, value, what: str) -> list:
    """The batch axis of each Tensor leaf of `value` (in `tensor_leaves` order), from MindSpore's nested `axes`."""

    def walk(a, v) -> list:
        if a is None or isinstance(a, int):
            return [a] * len(tensor_leaves(v))
        return [x for sub, item in zip(a, v, strict=True) for x in walk(sub, item)]

    return walk(_axes_like(axes, value, what), value)


def _vmap_in_graph(trace, fn: Callable, args: tuple, in_axes, out_axes):
    """Inside a graph being recorded: record `fn` on one example as a nested graph, emit one `vmap` equation.

    Every Tensor argument becomes an input of the nested graph, without its batch axis; the lowering maps the
    nested graph over the batch with the backend's vmap, so gradients, value checks and control flow inside
    `fn` work as they do outside.
    """

    args = tuple(args)
    tensors = tensor_leaves(args)
    axes = _leaf_axes(in_axes, args, "in_axes")
    sizes = set()
    for t, a in zip(tensors, axes, strict=True):
        if a is not None:
            if not -t.ndim <= a < t.ndim:
                raise ValueError(f"vmap: in_axes {a} is out of range for an input of shape {list(t.shape)}.")
            sizes.add(t.shape[a])
    if len(sizes) != 1:
        got = "no input is batched" if not sizes else f"the batched inputs have sizes {sorted(sizes)}"
        raise ValueError(f"vmap: all batched inputs must share one batch size, but {got}.")
    (size,) = sizes
    axes = [None if a is None else a % t.ndim for t, a in zip(tensors, axes, strict=True)]

    # One example: each batched Tensor with its batch axis dropped (shapes only: the nested graph's inputs).
    example = [
        t if a is None else Tensor._wrap(_Aval(t.shape[:a] + t.shape[a + 1 :], t._data.dtype))
        for t, a in zip(tensors, axes, strict=True)
    ]
    nested = record(
        trace,
        "vmap",
        lambda *xs: call_with_graph_semantics(G.current(), fn, _replace_leaves(args, iter(xs))),
        example,
        list(range(len(tensors))),
    )
    if nested.written:
        raise RuntimeError(
            "vmap: the function writes Parameters (or draws random numbers); inside a compiled graph a batched "
            "function must not change state."
        )
    outs = nested.graph.outvars
    o_axes = _leaf_axes(out_axes, nested.result, "out_axes") if isinstance(out_axes, (tuple, list)) else None
    if o_axes is None:
        o_axes = [out_axes] * len(outs)
    o_axes = [None if a is None else a % (len(o.shape) + 1) for a, o in zip(o_axes, outs, strict=True)]
    avals = []
    for o, a in zip(outs, o_axes, strict=True):
        shape = list(o.shape)
        if a is not None:  # None: an output the same for every example, returned once
            shape.insert(a, size)
        avals.append((tuple(shape), o.dtype))
    params = {"graph": nested.graph, "in_axes": (*axes, *[None] * len(nested.captured)), "out_axes": tuple(o_axes)}
    results = trace.emit("vmap", [t._data for t in tensors] + list(nested.captured), avals, params)
    return _batch_constants(nested.finish(trace, results), out_axes, size)


def _batch_constants(value, axes, size: int):
    """A Python number that `fn` returns where `out_axes` asks for a batch axis becomes a Tensor of `size`
    copies (as MindSpore's vmap returns it)."""
    if isinstance(value, (tuple, list)):
        subs = axes if isinstance(axes, (tuple, list)) and len(axes) == len(value) else [axes] * len(value)
        return type(value)(_batch_constants(v, a, size) for v, a in zip(value, subs, strict=True))
    if isinstance(axes, int) and isinstance(value, (int, float)) and not isinstance(value, bool):
        return Tensor(np.full(size, value))
    return value


class _Aval:
    """Shape and dtype only: what `record` reads of an argument to make a nested graph's input."""

    __slots__ = ("shape", "dtype")

    def __init__(self, shape: tuple, dtype) -> None:
        self.shape, self.dtype = shape, dtype


def _replace_leaves(value, it):
    """`value` with each Tensor leaf (in `tensor_leaves` order) replaced by the next item of `it`."""
    return unflatten(flatten(value, []), it, _same)


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
    if _is_cell_list(fn):
        return _ensemble(fn, in_axes, out_axes)
    if not callable(fn):
        raise TypeError(f"vmap: 'fn' must be callable, but got {type(fn).__name__}.")

    def batched(*args):
        trace = G.current()
        if trace is not None and _any_symbolic(args):
            return _vmap_in_graph(trace, fn, args, in_axes, out_axes)
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


def _is_cell_list(fn) -> bool:
    """A CellList (by its class, which kiln.ops cannot import): vmap runs its i-th Cell on the i-th slice."""
    return any(c.__name__ == "CellList" for c in type(fn).__mro__)


def _ensemble(cells, in_axes, out_axes) -> Callable:
    """vmap over a CellList (a model ensemble): Cell i runs on slice i of each batched argument, and the outputs
    are stacked along `out_axes`; the Cells' count is the batch size."""

    def batched(*args):
        axes = _axes_like(in_axes, args, "in_axes") if isinstance(in_axes, (tuple, list)) else in_axes
        per_arg = axes if isinstance(axes, (tuple, list)) else (axes,) * len(args)
        outs = []
        for i, cell in enumerate(cells):
            sliced = [
                a if ax is None else a[(slice(None),) * (ax % a.ndim) + (i,)]
                for a, ax in zip(args, per_arg, strict=True)
            ]
            outs.append(cell(*sliced))
        if isinstance(outs[0], (tuple, list)):
            out_ax = out_axes if isinstance(out_axes, (tuple, list)) else (out_axes,) * len(outs[0])
            return tuple(stack([o[k] for o in outs], ax) for k, ax in enumerate(out_ax))
        return stack(outs, out_axes)

    batched.__wrapped__ = cells
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


def _require_tensors(what: str, **groups) -> None:
    for name, values in groups.items():
        for i, x in enumerate(values):
            if not isinstance(x, Tensor):
                raise TypeError(
                    f"{what}: '{name}' must be a Tensor or a tuple of Tensors, but item {i} is {type(x).__name__}."
                )


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
    _require_tensors("jvp", inputs=xs, v=vs)
    if len(xs) != len(vs):
        raise ValueError(f"jvp: 'v' holds {len(vs)} tangent(s) for {len(xs)} input(s).")
    trace = G.current()
    if trace is not None and _any_symbolic(xs + vs):
        return _jvp_in_graph(trace, fn, xs, vs, has_aux)
    pure = _pure(fn, "jvp")
    n = len(xs)

    def transformed(*flat):
        primals, tangents = flat[:n], flat[n:]
        # Integer inputs are differentiated as real numbers (float32), as MindSpore does; values as given.
        real = tuple(p if B.jnp.issubdtype(p.dtype, B.jnp.inexact) else p.astype(B.jnp.float32) for p in primals)
        tangents = tuple(t.astype(r.dtype) for r, t in zip(real, tangents, strict=True))
        target = _split_aux(pure) if has_aux else pure
        with reverse_only(False):  # a GRAPH_MODE Cell called inside runs its ops, which forward mode can see
            res = B.jax.jvp(target, real, tangents, has_aux=has_aux)
        if all(r is p for r, p in zip(real, primals, strict=True)):
            return res
        value = target(*primals)
        out = value[0] if has_aux else value
        cast = B.jax.tree_util.tree_map(lambda o, t: t.astype(o.dtype), out, res[1])
        return (out, cast, value[1]) if has_aux else (out, cast)

    return _run(transformed, xs + vs)


def linearize(fn: Callable, inputs):
    """`fn` at `inputs` and its linear map there: `(fn(*inputs), jvp_fn)`, `jvp_fn(v)` giving J·v.

    Args:
        fn: function (or Cell) of Tensors returning a Tensor or a tuple of Tensors.
        inputs: a Tensor or a tuple/list of Tensors (the point).

    Returns:
        The output of `fn(*inputs)`, and `jvp_fn(v)` (v: tangents shaped as `inputs`, a Tensor or a tuple)
        returning the tangent of the output (each call runs the forward derivative again).
    """
    xs = _as_tuple(inputs)
    _require_tensors("linearize", inputs=xs)
    output = fn(*xs)

    def jvp_fn(v):
        return jvp(fn, xs, v)[1]

    return output, jvp_fn


def _jvp_in_graph(trace, fn: Callable, xs: tuple, vs: tuple, has_aux: bool):
    """Inside a graph being recorded: `fn` recorded as a nested graph, one `jvp` equation (the backend's
    forward mode over the nested graph when lowered)."""

    nested = record(
        trace, "jvp", lambda *a: call_with_graph_semantics(G.current(), fn, a), list(xs), list(range(len(xs)))
    )
    if nested.written:
        raise RuntimeError(
            "jvp: inside a compiled graph the function must not write Parameters or draw random numbers."
        )
    result = nested.result
    if has_aux and (not isinstance(result, (tuple, list)) or len(result) < 2):
        raise TypeError("has_aux=True expects the function to return a tuple (output, *aux).")
    outs = nested.graph.outvars
    avals = [(tuple(o.shape), o.dtype) for o in outs] * 2
    ins = [x._data for x in xs] + [t._data for t in vs] + list(nested.captured)
    results = trace.emit("jvp", ins, avals, {"graph": nested.graph, "n_primals": len(xs)})
    value = nested.finish(trace, results[: len(outs)])
    tangent = nested.finish(trace, results[len(outs) :])
    if has_aux:
        aux = value[1] if len(value) == 2 else tuple(value[1:])
        return value[0], tangent[0], aux
    return value, tangent


def _parameters_of(fn) -> list:
    """The Parameters of `fn` when it is a Cell or a Cell's bound method (none for a plain function)."""
    owner = fn if callable(getattr(fn, "get_parameters", None)) else getattr(fn, "__self__", None)
    get = getattr(owner, "get_parameters", None)
    return list(get()) if callable(get) else []


def vjp(fn: Callable, *inputs, weights=None, has_aux: bool = False):
    """Reverse-mode derivative: `(fn(*inputs), vjp_fn)`; `vjp_fn(v)` gives the tuple of input cotangents
    (and the weights' when `weights` are given); with `has_aux`, `(output, vjp_fn, aux)`."""
    _require_tensors("vjp", inputs=inputs)
    ws = autograd._weights_list(weights) if weights is not None else []
    # Each vjp_fn call runs `fn` again on the tape, from the Parameter values the forward started from, and puts
    # back the values the forward left: the forward's state writes (a BatchNorm's moving statistics) happen
    # once, however often vjp_fn is called.
    state = list({id(p): p for p in [*_parameters_of(fn), *ws]}.values())
    before = [p._data for p in state]
    out = fn(*inputs)
    after = [p._data for p in state]
    value, aux = (out[0], out[1] if len(out) == 2 else tuple(out[1:])) if has_aux else (out, None)
    positions = tuple(i for i, a in enumerate(inputs) if isinstance(a, Tensor))

    def vjp_fn(*v):
        sens = v[0] if len(v) == 1 else tuple(v)
        target = (lambda *a: fn(*a)[0]) if has_aux else fn
        for p, data in zip(state, before, strict=True):
            p._data = data
        try:
            _, in_grads, w_grads = autograd.run_with_grad(target, inputs, positions, ws, sens=sens)
        finally:
            for p, data in zip(state, after, strict=True):
                p._data = data
        return (in_grads, w_grads) if weights is not None else in_grads

    return (value, vjp_fn, aux) if has_aux else (value, vjp_fn)


def _jacobian(kind: str, fn: Callable, grad_position, has_aux: bool) -> Callable:
    transform = B.jax.jacfwd if kind == "jacfwd" else B.jax.jacrev
    argnums = grad_position if isinstance(grad_position, int) else tuple(grad_position)

    def jac(*args):
        for p in _as_tuple(argnums):
            if not isinstance(args[p], Tensor):
                raise TypeError(f"{kind}: argument {p} must be a Tensor, but got {type(args[p]).__name__}.")
        trace = G.current()
        if trace is not None and _any_symbolic(args):
            return _jacobian_in_graph(trace, kind, fn, args, argnums, has_aux)
        pure = _pure(fn, kind)
        if has_aux:
            transformed = transform(_split_aux(pure), argnums=argnums, has_aux=True)
        else:
            transformed = transform(pure, argnums=argnums)
        if kind != "jacfwd":
            return _run(transformed, args)
        with reverse_only(False):  # as in jvp
            return _run(transformed, args)

    jac.__wrapped__ = fn
    return jac


def _jacobian_in_graph(trace, kind: str, fn: Callable, args: tuple, argnums, has_aux: bool):
    """Inside a graph being recorded: `fn` recorded as a nested graph, one `jacobian` equation (the backend's
    jacfwd/jacrev over it when lowered), the result in the structure the eager path gives."""
    positions = _as_tuple(argnums)
    nested = record(trace, kind, lambda *a: call_with_graph_semantics(G.current(), fn, a), list(args), list(positions))
    if nested.written:
        raise RuntimeError(
            f"{kind}: inside a compiled graph the function must not write Parameters or draw random numbers."
        )
    result = nested.result
    if has_aux and (not isinstance(result, (tuple, list)) or len(result) < 2):
        raise TypeError("has_aux=True expects the function to return a tuple (output, *aux).")
    output = result[0] if has_aux else result
    targets = tensor_leaves(output)
    outs = nested.graph.outvars
    inputs = [args[p] for p in positions]
    avals = [(tuple(o.shape), o.dtype) for o in outs]
    avals += [(tuple(t.shape) + tuple(x.shape), t._data.dtype) for t in targets for x in inputs]
    params = {"graph": nested.graph, "n_diff": len(inputs), "n_targets": len(targets), "kind": kind}
    results = trace.emit("jacobian", [x._data for x in inputs] + list(nested.captured), avals, params)
    value = nested.finish(trace, results[: len(outs)])
    jacs = iter(Tensor._wrap(j) for j in results[len(outs) :])
    per_output = [tuple(next(jacs) for _ in inputs) for _ in targets]
    if isinstance(argnums, int):
        per_output = [row[0] for row in per_output]
    else:
        per_output = [tuple(row) for row in per_output]
    # The Jacobian has the structure of the differentiated output, each leaf replaced by its row
    jac = unflatten(flatten(output, []), iter(per_output), _same)
    if has_aux:
        return jac, value[1] if len(value) == 2 else tuple(value[1:])
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
    """The gradient of argument position or Parameter `identifier` from a `grad(..., return_ids=True)` result.

    Args:
        gradients: what `grad(..., return_ids=True)` returned.
        identifier: an argument position (int) or a Parameter.

    Returns:
        The gradient paired with `identifier`.

    Raises:
        RuntimeError: no gradient is paired with `identifier` (the error MindSpore documents for get_grad).
    """
    key = identifier.name if isinstance(identifier, Parameter) else identifier
    found = _find_grad(gradients, key)
    if found is None:
        raise op_error(
            "get_grad",
            f"no gradient is identified by {identifier!r}: the gradients hold no such position or name.",
            RuntimeError,
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
