"""Gradient transforms over the tape: `grad`, `value_and_grad`, `GradOperation`.

The same code runs in PyNative and inside compiled graphs: there the tensors
are symbolic and the recorded backward becomes part of the one executable.
"""

from __future__ import annotations

import operator
import warnings
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager

import numpy as np

from kiln import _backend as B
from kiln._compiler.ir import graph as G
from kiln._core import random_state
from kiln._core import tensor as _tensor_module
from kiln._core.mutable import is_mutable
from kiln._core.primitive import REGISTRY
from kiln._core.source_site import defined_at
from kiln._core.tensor import Parameter, Tensor, value_mark
from kiln._core.tree import flatten, tensor_leaves, unflatten
from kiln._prims._low_precision import HALF_DTYPES
from kiln._prims.math import add_p
from kiln._pynative import backward_program, tape
from kiln._pynative.dispatch import apply, running_in
from kiln._pynative.nested import call_with_graph_semantics, record

_recorded_order = operator.attrgetter("seq")
_HALF = frozenset(np.dtype(d) for d in HALF_DTYPES)


def _toposort(roots: list[tape.Node], traced: bool) -> list[tape.Node]:
    order, seen, half = [], set(), traced  # (a graph being traced skips the dtype check: it keeps the order)
    for root in roots:
        if id(root) in seen:
            continue
        seen.add(id(root))
        stack = [(root, iter(root.links))]
        while stack:
            node, it = stack[-1]
            for link in it:
                if link is not None and id(link[0]) not in seen:
                    seen.add(id(link[0]))
                    stack.append((link[0], iter(link[0].links)))
                    break
            else:
                stack.pop()
                order.append(node)
                half = half or node.out_avals[0][1] in _HALF
    # With a float16/bfloat16 value on a PyNative tape, the forward's own order (inputs before consumers too): the
    # backward walks it in reverse, so a tensor read by several operations sums its gradients last read first, as
    # MindSpore's PyNative does, and in half precision a sum's order shows (HyperText's MobiusAdd summed x's three
    # gradients depth-first: 8 of 16 were 1 ulp off MindSpore's). A float32 tape keeps the depth-first order,
    # whose programs ran faster (the transformer benchmark's PyNative step took 9% more CPU in the sorted order),
    # and so does a graph being traced (MindSpore's GRAPH_MODE sums in its own order; the sorted order broke the
    # zoo's Wide&Deep semi-auto-parallel program, not investigated)
    if half and not traced:
        order.sort(key=_recorded_order)
    return order


def backward(level: int, outputs: list[tuple[Tensor, Tensor]], targets: list[Tensor]) -> list[Tensor | None]:
    """Cotangents of `targets` (leaves of `level` of the tape) given (output, sensitivity) pairs.

    Each node's backward primitive is dispatched like any op, so an outer level records it; when no outer
    level records and no hook or custom rule needs the intermediate gradients, the whole walk runs as one
    compiled program instead (`backward_program`). A gradient taken inside a `to_float` Cell runs its backward
    in the forward's dtypes (the forward's casts are on the tape), not cast again.
    """
    with running_in(None):
        return _backward(level, outputs, targets)


def _backward(level: int, outputs: list[tuple[Tensor, Tensor]], targets: list[Tensor]) -> list[Tensor | None]:

    def accumulate(slot: list, i: int, value: Tensor) -> None:
        slot[i] = value if slot[i] is None else apply(add_p, (slot[i], value))

    roots, grads = [], {}
    for out, sens in outputs:
        entry = out._nodes.get(level) if out._nodes else None
        if entry is None:
            continue
        node, idx = entry
        slot = grads.setdefault(id(node), [None] * len(node.out_avals))
        accumulate(slot, idx, sens)
        roots.append(node)
    leaf_ids = {id(t._nodes[level][0]) for t in targets if t._nodes and level in t._nodes}
    order = _toposort(roots, any(type(out._buf) is G.Var for out, _ in outputs))
    # Only nodes with a path to a requested leaf need their backward run.
    useful = set(leaf_ids) | {id(node) for node in order if node.anchor}
    for node in order:
        for link in node.links:
            if link is not None and id(link[0]) in useful:
                useful.add(id(node))
                break
    leaf_grads: dict[int, Tensor] = {}
    if tape.FUSED_BACKWARD and not tape.recording:  # no outer level needs to see the backward op by op
        fused = backward_program.run(outputs, order, useful, level)
        if fused is not None:
            leaf_grads, order = fused, []
    for node in reversed(order):
        nid = id(node)
        slot = grads.pop(nid, None)
        if slot is None or nid not in useful:
            continue
        if node.hooks:
            for i, tables in node.hooks.items():
                if slot[i] is not None:
                    slot[i] = conj_complex(run_tensor_hooks(tables, conj_complex(slot[i])))
        if node.prim is None and node.rule is None:  # a leaf
            leaf_grads[nid] = slot[0]
            continue
        wanted = tuple(link is not None and id(link[0]) in useful for link in node.links)
        if node.anchor:
            in_grads = node.rule(tuple(slot))
            for link, g, w in zip(node.links, in_grads, wanted, strict=True):
                if w and g is not None:
                    accumulate(grads.setdefault(id(link[0]), [None] * len(link[0].out_avals)), link[1], g)
            continue
        cots = [
            c if c is not None else Tensor._wrap(B.jnp.zeros(shape, dt if dt.kind in "fc" else B.np.float32))
            for c, (shape, dt) in zip(slot, node.out_avals, strict=True)
        ]
        if node.rule is not None:
            in_grads = node.rule(tuple(cots))
        else:
            bwd = node.prim.backward(wanted)
            partial = apply(bwd, (*node.inputs, *cots), node.attrs)
            it = iter(partial)
            in_grads = [next(it) if w else None for w in wanted]
        for link, g, w in zip(node.links, in_grads, wanted, strict=True):
            if not w or g is None:
                continue
            parent, idx = link
            pslot = grads.setdefault(id(parent), [None] * len(parent.out_avals))
            accumulate(pslot, idx, g)
    result = []
    for t in targets:
        entry = t._nodes.get(level) if t._nodes else None
        g = leaf_grads.get(id(entry[0])) if entry else None
        if g is None and entry is not None and entry[0].hooks:  # a hooked leaf the output does not reach
            g = conj_complex(run_tensor_hooks(entry[0].hooks[0], _zeros_like(t)))
        result.append(g)
    return result


def conj_complex(value):
    """`value` conjugated where it is a complex Tensor (anything else as it is), recorded like any op.

    The tape and the backend carry complex cotangents in the backend's convention, the conjugate of
    MindSpore's (and PyTorch's): MindSpore's gradient of a real loss is the steepest-ascent direction
    `dL/dx + i dL/dy`, so `p - lr * grad` descends. Every place where a gradient meets the user (a sensitivity
    given, a gradient returned, a hook's or a custom bprop's view of the cotangents) conjugates complex ones.
    """
    if isinstance(value, Tensor) and value._buf.dtype.kind == "c":  # (the backend dtype's kind: no Kiln dtype made)
        return apply(REGISTRY["Conj"], (value,))
    return value


def _tensor_hook_gradient(hook: Callable, new) -> Tensor | None:
    """What a tensor hook returned, as the new gradient (a one-element tuple unpacked), or None to keep it."""
    if new is None:
        return None
    if isinstance(new, tuple) and len(new) == 1:
        new = new[0]
    if not isinstance(new, Tensor):
        raise TypeError(
            f"the tensor hook {defined_at(hook)} returned {type(new).__name__}: a hook returns the new "
            f"gradient as a Tensor, or None to keep it."
        )
    return new


def run_tensor_hooks(tables: list[dict], grad: Tensor) -> Tensor:
    """Run a tensor's hooks (Tensor.register_hook) on its gradient, each on the previous one's result."""
    for table in tables:
        for hook in list(table.values()):
            new = _tensor_hook_gradient(hook, hook(grad))
            if new is None:
                continue
            if new.shape != grad.shape:
                raise ValueError(
                    f"the tensor hook {defined_at(hook)} returned a gradient of shape {list(new.shape)} for a tensor "
                    f"of shape {list(grad.shape)}."
                )
            grad = new
    return grad


def check_grad_position(grad_position) -> None:
    """Refuse an empty `grad_position` when the transform is made: it asks for the gradients of no argument.

    Raises:
        RuntimeError: `grad_position` is an empty tuple or list (None, not `()`, asks for no input gradients).
    """
    if isinstance(grad_position, (tuple, list)) and not grad_position:
        raise RuntimeError(
            "grad_position is empty: give the index (or indices) of the arguments to differentiate, or None to "
            "differentiate only the weights."
        )


def _positions(grad_position, args: tuple) -> tuple[int, ...]:
    """The argument indices to differentiate: in range, and only Tensors (as MindSpore, an argument holding no
    Tensor, such as a Python number, gets no gradient: it is left out of the result)."""
    nargs = len(args)
    pos = (grad_position,) if isinstance(grad_position, int) else tuple(grad_position)
    for p in pos:
        if not isinstance(p, int) or not -nargs <= p < nargs:
            raise IndexError(
                f"grad_position {grad_position!r} is out of range: the function was called with {nargs} argument(s)."
            )
    return tuple(p % nargs for p in pos if isinstance(args[p], Tensor) or tensor_leaves(args[p]))


def _is_mutable_container(value) -> bool:
    """A tuple, list or dict marked by `mutable()` holding Tensors: differentiated as one argument, its gradient
    has its structure (MindSpore's documented contract of `mutable`; Kiln keeps it in every mode)."""
    return isinstance(value, (tuple, list, dict)) and is_mutable(value) and bool(tensor_leaves(value))


def _identity(x):
    return x


def _plain(container):
    """A gradient container as a plain tuple, list or dict (not the argument's mutable() type)."""
    if isinstance(container, dict):
        return dict(container)
    return tuple(container) if isinstance(container, tuple) else list(container)


def _spread_mutable(fn: Callable, args: tuple, positions: tuple[int, ...]):
    """Differentiate each mutable() container at `positions` through its Tensors.

    Args:
        fn: the function to differentiate.
        args: its positional arguments.
        positions: the argument indices to differentiate.

    Returns:
        `(call, flat_args, flat_positions, regroup)`: `call(*flat_args)` is `fn(*args)` with each such container
        given as its Tensors (rebuilt before `fn` sees it); `regroup(grads)` turns the gradients of
        `flat_positions` back into one gradient per entry of `positions` (a container's in its structure).
        Without such a container the inputs come back unchanged and `regroup` is None.
    """
    spread = {p for p in positions if _is_mutable_container(args[p])}
    if not spread:
        return fn, args, positions, None
    flat_args: list = []
    slots: list[tuple[int, int, tuple | None]] = []  # per argument: first flat index, count, container template
    for i, a in enumerate(args):
        if i in spread:
            tensors: list = []
            template = flatten(a, tensors, _identity)
            slots.append((len(flat_args), len(tensors), template))
            flat_args.extend(tensors)
        else:
            slots.append((len(flat_args), 1, None))
            flat_args.append(a)

    def call(*flat, **kwargs):
        rebuilt = [
            flat[start] if template is None else unflatten(template, iter(flat[start : start + count]), _identity)
            for start, count, template in slots
        ]
        return fn(*rebuilt, **kwargs)

    flat_positions = tuple(slots[p][0] + k for p in positions for k in range(slots[p][1]))

    def regroup(grads: tuple) -> tuple:
        it, out = iter(grads), []
        for p in positions:
            _, count, template = slots[p]
            if template is None:
                out.append(next(it))
            else:
                out.append(_plain(unflatten(template, iter([next(it) for _ in range(count)]), _identity)))
        return tuple(out)

    return call, tuple(flat_args), flat_positions, regroup


_ONES: dict = {}


def _ones_like(t: Tensor) -> Tensor:
    """The default sensitivity; cached, since eager `ones` costs a backend call per step. Made on the host and
    moved to the device: a compiled `ones` would be one more compile on a network's first step."""
    key = (t.shape, t._buf.dtype)
    ones = _ONES.get(key)
    if ones is None:
        ones = B.as_array(np.ones(*key))
        if B.is_tracer(ones):  # inside a compiled graph: never cache a symbolic value
            return Tensor._wrap(ones)
        if len(_ONES) < 256:
            _ONES[key] = ones
    return Tensor._wrap(ones)


def _zeros_like(t: Tensor) -> Tensor:
    if B.is_tracer(t._data):
        return Tensor._wrap(B.jnp.zeros(t.shape, t._data.dtype))
    return Tensor._wrap(B.as_array(np.zeros(t.shape, t._data.dtype)))  # made on the host: no compile


def _cast(t: Tensor, dtype) -> Tensor:
    return apply(REGISTRY["Cast"], (t,), (np.dtype(dtype),))


def _sens_for(out: Tensor, sens):
    """`sens` for the output `out`; raises ValueError when its shape is not `out`'s. A one-element Tensor of
    another shape for a one-element output is reshaped to `out`'s: zoo train cells pass
    `F.tuple_to_array((sens,))` for a scalar loss (FastText; MindSpore takes it in both modes) and a scalar
    loss-scale Parameter for a `(1,)` loss (BERT; MindSpore's GRAPH_MODE takes it)."""
    if (
        isinstance(sens, Tensor)
        and sens.shape != out.shape
        and int(np.prod(out.shape)) == 1
        and int(np.prod(sens.shape)) == 1
    ):
        return apply(REGISTRY["Reshape"], (sens,), (tuple(out.shape),))
    if isinstance(sens, Tensor) and tuple(sens.shape) != tuple(out.shape):
        # said here, where the user passed it: deferred, it surfaced as the backward program's input error
        raise ValueError(
            f"sens has shape {tuple(sens.shape)} but the output it weighs has shape {tuple(out.shape)}: a "
            "sensitivity must have its output's shape."
        )
    return sens


def _strip(value, level: int):
    """Drop `level`'s history from returned values so finished graphs can be freed."""
    for t in tensor_leaves(value):
        if t._nodes and level in t._nodes:
            nodes = dict(t._nodes)
            del nodes[level]
            t._nodes = nodes or None
    return value


# How many gradients are being taken (their forward calls leave no `note_forward` record)
_GRAD_DEPTH = [0]
# What the @constexpr functions returned (MindSpore runs them in the forward only; its gradient reuses that forward):
# each forward being noted logs them, as (function, value), in call order; the gradient that replays a forward hands
# them back in that order (the innermost replay; a nested gradient without a replay of its own goes on with it).
_CONSTEXPR_LOGS: list[list] = []
_CONSTEXPR_REPLAYS: list[deque | None] = []
_CONSTEXPR_SCOPES: list[tuple] = []  # (the construct being recorded and its signature, {fn: calls so far})


def _cell_params(cell, method: str) -> list:
    """`cell.<method>()` looked up on its class: a Cell may keep a value under a method's name (the zoo's FiBiNET
    TrainStepWrap keeps its list as `self.trainable_params`), which MindSpore's own machinery never calls."""
    return getattr(type(cell), method)(cell)


def note_forward(cell, args: tuple) -> list | None:
    """Before a forward call of `cell` outside any gradient, keep its state as it is now, with the call's
    arguments: its Parameters that take no gradient (BatchNorm's moving statistics), its trainable Parameters
    with the mark of their value (`value_mark`) and the random generator (Dropout's masks). PyNative calls this
    for a Cell marked `set_grad()`, a graph being recorded for every Cell it calls (MindSpore 2.10's GRAPH_MODE
    reuses the forward without set_grad too).

    MindSpore's GradOperation of that Cell on the same arguments reuses this forward, so a train cell that runs
    `loss = net(*x)` then `grad(net, weights)(*x, sens)` updates the state once per step and differentiates the
    loss it returned (the same dropout mask, the weights as they were then, even where another optimizer has
    stepped them since: Pix2Pix's D step between G's loss and G's gradient); Kiln runs the forward again, so
    `run_with_grad` first puts this state back (`_replay_last_forward`), and hands back the values the forward's
    @constexpr functions returned (NumPy draws in the zoo's PointNet++): returns the list that logs them, for the
    caller to pass to `logging_constexprs` around the forward (None when nothing is noted).
    """
    if _GRAD_DEPTH[0]:
        return None
    with running_in(None):  # Kiln's copies, not the user's ops: never cast to a `to_float` Cell's dtype
        saved = [(p, apply(REGISTRY["Identity"], (p,), ())) for p in _cell_params(cell, "untrainable_params")]
        trainable = _cell_params(cell, "trainable_params")
        if G.current() is None:  # a copy: a later write may donate the array
            weights = [(p, value_mark(p), apply(REGISTRY["Identity"], (p,), ())) for p in trainable]
        else:  # in a graph the mark is the value itself (a Var, never written over)
            weights = [(p, mark, Tensor._wrap(mark)) for p in trainable for mark in (value_mark(p),)]
    constexprs: list = []
    record = (tuple(args), saved, weights, random_state.key_mark(), constexprs)
    trace = G.current()
    if trace is None:
        cell.__dict__["_last_forward"] = record
    else:
        trace.forwards[id(cell)] = (cell, record)
    return constexprs


@contextmanager
def logging_constexprs(log: list | None) -> Iterator[None]:
    """Log into `log` (from `note_forward`; None: nothing) what @constexpr functions return until the block ends."""
    if log is None:
        yield
        return
    _CONSTEXPR_LOGS.append(log)
    try:
        yield
    finally:
        _CONSTEXPR_LOGS.pop()


def _signature(values) -> tuple | None:
    """What a graph's type inference sees of `values`: a Tensor's shape and dtype, a constant itself; None when a
    constant cannot be a key."""
    sig = []
    for v in values:
        if isinstance(v, Tensor):
            sig.append(("T", tuple(v.shape), v.dtype))
        else:
            try:
                hash(v)
            except TypeError:
                return None
            sig.append((type(v), v))
    return tuple(sig)


@contextmanager
def constexpr_scope(cell, args: tuple) -> Iterator[None]:
    """While a graph records `cell`'s construct on `args`: its @constexpr calls are numbered, so that the same call
    of the same construct on the same signature gets one value in the whole graph (`constexpr_value`)."""
    if G.current() is None:
        yield
        return
    sig = _signature(args)
    _CONSTEXPR_SCOPES.append(((cell, sig) if sig is not None else None, {}))
    try:
        yield
    finally:
        _CONSTEXPR_SCOPES.pop()


def constexpr_value(fn: Callable, args: tuple, kwargs: dict):
    """`fn(*args, **kwargs)` for a @constexpr function `fn`; inside a gradient's replay of a noted forward, the value
    that forward's call got instead (MindSpore differentiates its forward: a host draw is not drawn again).

    In a graph, a call that the same construct made before on the same signature and arguments (the n-th call of
    `fn` in that construct) gets the value it got then: MindSpore's GRAPH_MODE infers a construct once per
    signature, so a gradient of a Cell that wraps the one called (StarGAN's WGAN-GP penalty in D's loss) or on
    other inputs of the same shapes shares the forward's NumPy draw."""
    replay = _CONSTEXPR_REPLAYS[-1] if _CONSTEXPR_REPLAYS else None
    if replay and replay[0][0] is fn:
        value = replay.popleft()[1]
    else:
        site = None
        trace = G.current()
        if trace is not None and _CONSTEXPR_SCOPES and _CONSTEXPR_SCOPES[-1][0] is not None:
            scope, calls = _CONSTEXPR_SCOPES[-1]
            n = calls[fn] = calls.get(fn, -1) + 1
            sig = _signature((*args, *kwargs.items()))
            site = None if sig is None else (id(scope[0]), scope[1], fn, n, sig)
        if site is not None and site in trace.constexpr_sites:
            value = trace.constexpr_sites[site]
        else:
            value = fn(*args, **kwargs)
            if site is not None:
                trace.constexpr_sites[site] = value
    for log in _CONSTEXPR_LOGS:
        log.append((fn, value))
    return value


def _replay_last_forward(fn, args: tuple):
    """Put back the state `note_forward` kept for `fn`'s last forward call (in the graph being recorded, if any)
    when this gradient's arguments are that call's (the same objects); the record is used once. Returns None when
    nothing was replayed, else what to resume once the gradient is taken: the generators' state before the replay
    and each trainable Parameter written since the forward with its value now (the gradient runs on the old)."""
    trace = G.current()
    if trace is None:
        d = getattr(fn, "__dict__", None)
        record = d.pop("_last_forward", None) if isinstance(d, dict) else None
    else:
        entry = trace.forwards.pop(id(fn), None)
        record = entry[1] if entry is not None and entry[0] is fn else None
    if record is None:
        return None
    forward_args, saved, weights, key, constexprs = record
    if len(forward_args) != len(args) or any(a is not b for a, b in zip(forward_args, args, strict=True)):
        return None
    written = []
    with running_in(None):
        for p, value in saved:
            _put_back(p, value)
        for p, mark, value in weights:
            if value_mark(p) is not mark:
                written.append((p, _taken_out(p)))
                _put_back(p, value)
    resume = random_state.key_mark()
    random_state.key_restore(key)
    return resume, written, constexprs


def _swaps(p: Parameter, value: Tensor | None = None) -> bool:
    """Whether the replay moves arrays between `p` and its record by hand: in PyNative, no gradient being taken of
    the replay itself, the same dtype. Otherwise it goes through Assign (and Identity), whose kernels PyNative
    compiles once per shape (Pix2Pix's D weights: 16 kernels and 8 one-op windows in its first step)."""
    if G.current() is not None or tape.recording:
        return False
    return value is None or (type(value._buf) is not G.Var and value.dtype == p.dtype)


def _taken_out(p: Parameter) -> Tensor:
    """`p`'s value now, to put back once the gradient is taken: its own array (pending or not) where `_swaps`,
    else a copy (an Assign may donate the array)."""
    if _swaps(p):
        return Tensor._wrap(_tensor_module.stored_value(p))
    return apply(REGISTRY["Identity"], (p,), ())


def _put_back(p: Parameter, value: Tensor) -> None:
    """Store `value` in `p`: its array itself where `_swaps` (a record's copy nothing else holds), else Assign."""
    if _swaps(p, value):
        _tensor_module.store_value(p, value._buf)
    else:
        apply(REGISTRY["Assign"], (p, value), ())


def run_with_grad(
    fn: Callable,
    args: tuple,
    positions: tuple[int, ...],
    weights: Sequence[Parameter],
    *,
    has_aux: bool = False,
    sens=None,
    kwargs: dict | None = None,
):
    """Call `fn(*args)` on a fresh tape level and return (output, input grads, weight grads)."""
    resume = _replay_last_forward(fn, args)
    _GRAD_DEPTH[0] += 1
    if resume is not None:
        _CONSTEXPR_REPLAYS.append(deque(resume[2]))
    else:
        _CONSTEXPR_REPLAYS.append(_CONSTEXPR_REPLAYS[-1] if _CONSTEXPR_REPLAYS else None)
    try:
        return _run_with_grad(fn, args, positions, weights, has_aux=has_aux, sens=sens, kwargs=kwargs)
    finally:
        _GRAD_DEPTH[0] -= 1
        _CONSTEXPR_REPLAYS.pop()
        if resume is not None:
            # MindSpore's gradient reuses the forward and draws nothing: every generator goes on from where it was
            # before this call, so a draw between the forward and the gradient is not drawn again
            key, written, _ = resume
            random_state.key_restore(key)
            with running_in(None):
                for p, value in written:
                    _put_back(p, value)


def _run_with_grad(
    fn: Callable,
    args: tuple,
    positions: tuple[int, ...],
    weights: Sequence[Parameter],
    *,
    has_aux: bool = False,
    sens=None,
    kwargs: dict | None = None,
):
    for p in positions:
        a = args[p]
        if not isinstance(a, Tensor):
            raise TypeError(
                f"grad_position {p} asks for the gradient of argument {p}, which is a {type(a).__name__}, not a Tensor."
            )
    if any(not tape.is_differentiable(args[p]) for p in positions):
        return _grad_of_integers(fn, args, positions, weights, has_aux=has_aux, sens=sens, kwargs=kwargs)
    if any(w.dtype.kind in "iub" for w in weights):
        return _grad_of_integer_weights(fn, args, positions, weights, has_aux=has_aux, sens=sens, kwargs=kwargs)
    if G.current() is None and any(not w.requires_grad for w in weights):
        # MindSpore's PyNative gives a frozen Parameter asked for zeros (its graph mode differentiates it anyway)
        live = [w for w in weights if w.requires_grad]
        out, in_grads, w_grads = run_with_grad(fn, args, positions, live, has_aux=has_aux, sens=sens, kwargs=kwargs)
        it = iter(w_grads)
        return out, in_grads, tuple(next(it) if w.requires_grad else _zeros_like(w) for w in weights)
    trace = G.current()
    if trace is not None:
        return _grad_in_graph(trace, fn, args, positions, weights, has_aux, sens, kwargs)
    level = tape.push_level()
    saved = [(w, w._nodes) for w in weights]
    try:
        call_args = list(args)
        # As MindSpore, a gradient belongs to a tensor object: one passed twice is one leaf (its uses summed)
        aliases: dict[int, Tensor] = {}
        for p in positions:
            if id(args[p]) not in aliases:
                aliases[id(args[p])] = tape.watch(args[p], level)
        for i, a in enumerate(args):
            if isinstance(a, Tensor) and id(a) in aliases:
                call_args[i] = aliases[id(a)]
        for w in weights:
            tape.watch(w, level, in_place=True)
        out = fn(*call_args, **(kwargs or {}))
    except BaseException:
        tape.pop_level(level)
        for w, nodes in saved:
            w._nodes = nodes
        raise
    tape.pop_level(level)
    try:
        if has_aux:
            if not isinstance(out, (tuple, list)) or not out:
                raise TypeError("has_aux=True expects the function to return a tuple (output, *aux).")
            targets_out = tensor_leaves(out[0])
        else:
            targets_out = tensor_leaves(out)
        if not targets_out:  # nothing depends on the inputs: zero gradients (as MindSpore)
            n = len(positions)
            zeros = [_zeros_like(leaf) for leaf in [call_args[p] for p in positions] + list(weights)]
            return _strip(out, level), tuple(zeros[:n]), tuple(zeros[n:])
        if sens is None:
            pairs = [(t, _ones_like(t)) for t in targets_out]
        else:
            sens_list = tensor_leaves(sens)
            if len(sens_list) != len(targets_out):
                raise ValueError(
                    f"sens has {len(sens_list)} tensor(s) but the function returned {len(targets_out)} output(s)."
                )
            sens_list = [_sens_for(t, s) for t, s in zip(targets_out, sens_list, strict=True)]
            # A sensitivity of another dtype is taken in the output's (MindSpore casts it)
            pairs = [
                (t, _cast(s, t._buf.dtype) if isinstance(s, Tensor) and s._buf.dtype != t._buf.dtype else s)
                for t, s in zip(targets_out, sens_list, strict=True)
            ]
        leaves = [call_args[p] for p in positions] + list(weights)
        grads = backward(level, [(t, conj_complex(s)) for t, s in pairs], leaves)
        grads = [conj_complex(g) if g is not None else _zeros_like(leaf) for g, leaf in zip(grads, leaves, strict=True)]
        n = len(positions)
        for i, w in enumerate(weights):  # frozen during the forward (requires_grad = False): zeros, as MindSpore
            if not w.requires_grad:
                grads[n + i] = _zeros_like(w)
    finally:
        for w, nodes in saved:
            w._nodes = nodes
    n = len(positions)
    return _strip(out, level), tuple(grads[:n]), tuple(grads[n:])


def _grad_of_integers(fn: Callable, args: tuple, positions: tuple, weights, **options):
    """Gradients with respect to integer (and bool) arguments, as MindSpore defines them.

    An integer or bool argument is differentiated as a real number: the gradient at its float32 value,
    cast back to its dtype. Where the function cannot take it as a float (an index, a shape, a mask
    for select), the gradient is zeros.
    """
    ints = {p for p in positions if args[p].dtype.kind in "iub"}
    as_float = tuple(_cast(a, np.float32) if i in ints else a for i, a in enumerate(args))
    if ints and all(tape.is_differentiable(as_float[p]) for p in positions):
        try:
            out, grads, w_grads = run_with_grad(fn, as_float, positions, weights, **options)
        except Exception:  # noqa: BLE001  (some integer is used where only an integer will do: below)
            pass
        else:
            pairs = zip(positions, grads, strict=True)
            cast = tuple(_cast(g, args[p]._data.dtype) if p in ints else g for p, g in pairs)
            return out, cast, w_grads
    # An index or a shape beside a differentiable integer value: each integer that runs alone as a float is
    # differentiated so, the others get zeros.
    floats = {p for p in sorted(ints) if len(ints) > 1 and _runs_as_float(fn, args, p, weights, options)}
    as_float = tuple(_cast(a, np.float32) if i in floats else a for i, a in enumerate(args))
    real = tuple(p for p in positions if tape.is_differentiable(as_float[p]))
    out, some, w_grads = run_with_grad(fn, as_float, real, weights, **options)
    found = {p: _cast(g, args[p]._data.dtype) if p in floats else g for p, g in zip(real, some, strict=True)}
    return out, tuple(found[p] if p in found else _zeros_like(args[p]) for p in positions), w_grads


def _runs_as_float(fn: Callable, args: tuple, p: int, weights, options: dict) -> bool:
    """Whether `fn` can be differentiated with its integer argument `p` as float32."""
    trial = tuple(_cast(a, np.float32) if i == p else a for i, a in enumerate(args))
    if not tape.is_differentiable(trial[p]):
        return False
    try:
        run_with_grad(fn, trial, (p,), weights, **options)
    except Exception:  # noqa: BLE001  (the argument is used where only an integer will do)
        return False
    return True


def _grad_of_integer_weights(fn: Callable, args: tuple, positions: tuple, weights, **options):
    """Gradients with respect to integer (and bool) Parameters, as for integer arguments (`_grad_of_integers`).

    For the call, each such Parameter holds its float32 value; its gradient is cast back to its dtype and its
    value restored (a value `fn` wrote is kept, in the Parameter's dtype). Where `fn` cannot take the float
    value, the gradient is zeros.
    """
    ints = [w for w in weights if w.dtype.kind in "iub"]
    saved = [(w, w._data) for w in ints]
    floats = [_cast(w, np.float32)._data for w in ints]
    for w, f in zip(ints, floats, strict=True):
        w._data = f
    try:
        out, in_grads, w_grads = run_with_grad(fn, args, positions, weights, **options)
    except Exception:  # noqa: BLE001  (an integer Parameter used where only an integer will do: zeros)
        out = None
    finally:
        for (w, data), f in zip(saved, floats, strict=True):
            written = w._data
            w._data = data if written is f else _cast(Tensor._wrap(written), data.dtype)._data
    if out is None:
        live = [w for w in weights if w.dtype.kind not in "iub"]
        out, in_grads, some = run_with_grad(fn, args, positions, live, **options)
        found = dict(zip(map(id, live), some, strict=True))
        return out, in_grads, tuple(found.get(id(w)) or _zeros_like(w) for w in weights)
    cast = tuple(_cast(g, w._data.dtype) if w.dtype.kind in "iub" else g for w, g in zip(weights, w_grads, strict=True))
    return out, in_grads, cast


def _grad_in_graph(trace, fn, args, positions, weights, has_aux, sens, kwargs):
    """Inside a graph being recorded: record `fn` as a nested graph and emit one `grad` equation."""
    nested = record(
        trace, "grad", lambda *a: call_with_graph_semantics(G.current(), fn, a, kwargs), list(args), positions, weights
    )
    out = nested.result
    if has_aux and (not isinstance(out, (tuple, list)) or not out):
        raise TypeError("has_aux=True expects the function to return a tuple (output, *aux).")
    n_targets = len(tensor_leaves(out[0] if has_aux else out))
    if not n_targets:  # no Tensor output (a constant): zero gradients, as MindSpore
        zeros = tuple(_zeros_like(a) for a in [args[p] for p in positions] + list(weights))
        return out, zeros[: len(positions)], zeros[len(positions) :]
    sens_raw: list = []
    if sens is not None:
        sens_list = tensor_leaves(sens)
        if len(sens_list) != n_targets:
            raise ValueError(f"sens has {len(sens_list)} tensor(s) but the function returned {n_targets} output(s).")
        outs = tensor_leaves(out[0] if has_aux else out)
        flatten([conj_complex(_sens_for(t, s)) for t, s in zip(outs, sens_list, strict=True)], sens_raw)
    graph = nested.graph
    avals = [(tuple(o.shape), o.dtype) for o in graph.outvars] + [(tuple(x.shape), x.dtype) for x in nested.inputs]
    params = {"graph": graph, "n_diff": len(nested.inputs), "n_targets": n_targets, "n_sens": len(sens_raw)}
    results = trace.emit("grad", [*nested.inputs, *sens_raw, *nested.captured], avals, params)
    value = nested.finish(trace, results)
    grads = [conj_complex(Tensor._wrap(g)) for g in results[len(graph.outvars) :]]
    n = len(positions)
    for i, leaf in enumerate([args[p] for p in positions] + list(weights)):
        hooks = getattr(leaf, "_hooks", None)
        if hooks:  # Tensor/Parameter.register_hook made outside the graph: traced on the symbolic gradient
            grads[i] = run_tensor_hooks([hooks], grads[i])
    return value, tuple(grads[:n]), tuple(grads[n:])


def _weights_list(weights) -> list[Parameter]:
    if weights is None:
        return []
    if isinstance(weights, Parameter):
        return [weights]
    ws = list(weights)
    for w in ws:
        if not isinstance(w, Parameter):
            raise TypeError(f"'weights' must hold Parameters, but got {type(w).__name__}.")
    return ws


def _pack(grad_position, weights, return_ids, positions, in_grads, w_grads, ws):
    """The gradients in MindSpore's structure: the inputs' part is the bare gradient when one input is
    differentiated, a tuple otherwise (`()` when no Tensor was at the positions asked for); the weights' part is
    bare for a single Parameter, a tuple for a list; both parts make a pair when both were asked for."""
    if return_ids:
        in_grads = tuple((p, g) for p, g in zip(positions, in_grads, strict=True))
        w_grads = tuple((w.name, g) for w, g in zip(ws, w_grads, strict=True))
    in_part = in_grads[0] if len(in_grads) == 1 else in_grads
    if weights is None:
        return in_part
    w_part = w_grads[0] if isinstance(weights, Parameter) else w_grads
    if grad_position is None:
        return w_part
    return in_part, w_part


def value_and_grad(fn: Callable, grad_position=0, weights=None, has_aux: bool = False, return_ids: bool = False):
    """A function returning `(fn(*args), gradients)`, taken on the tape (arguments as `kiln.ops.value_and_grad`,
    which hands this transform to `jit` in GRAPH_MODE).

    Returns:
        A function of the same arguments as `fn`.
    """
    if grad_position is None and weights is None:
        raise ValueError("value_and_grad needs grad_position or weights (both were None).")
    check_grad_position(grad_position)

    def wrapper(*args, **kwargs):
        positions = () if grad_position is None else _positions(grad_position, args)
        ws = _weights_list(weights)
        call, flat_args, flat_positions, regroup = _spread_mutable(fn, args, positions)
        out, in_grads, w_grads = run_with_grad(call, flat_args, flat_positions, ws, has_aux=has_aux, kwargs=kwargs)
        if regroup is not None:
            in_grads = regroup(in_grads)
        return out, _pack(grad_position, weights, return_ids, positions, in_grads, w_grads, ws)

    wrapper.__wrapped__ = fn
    return wrapper


def grad(fn: Callable, grad_position=0, weights=None, has_aux: bool = False, return_ids: bool = False):
    """A function returning the gradients of `fn` (see `value_and_grad` for the arguments).

    With `has_aux=True` it returns `(gradients, aux)`.
    """
    vg = value_and_grad(fn, grad_position, weights, has_aux, return_ids)

    def wrapper(*args, **kwargs):
        out, grads = vg(*args, **kwargs)
        if has_aux:
            return grads, tuple(out[1:])
        return grads

    wrapper.__wrapped__ = fn
    return wrapper


class GradOperation:
    """MindSpore's higher-order gradient operation.

    Args:
        get_all: return the gradients of all inputs (default: of the first only).
        get_by_list: return the gradients of the Parameters passed as the second argument.
        sens_param: the generated function takes the output sensitivity as its last argument.
    """

    def __init__(self, get_all: bool = False, get_by_list: bool = False, sens_param: bool = False) -> None:
        self.get_all = get_all
        self.get_by_list = get_by_list
        self.sens_param = sens_param

    def __call__(self, fn: Callable, weights=None):

        def grad_fn(*args, **kwargs):
            sens = None
            if self.sens_param:
                if "sens" in kwargs:
                    sens = kwargs.pop("sens")
                elif not args:
                    raise TypeError(
                        "GradOperation(sens_param=True) expects the sensitivity as the last argument (or sens=...)."
                    )
                else:
                    args, sens = args[:-1], args[-1]
            ws = _weights_list(weights) if self.get_by_list else []  # no weights given: an empty tuple
            call, kw_tensors = fn, [k for k, v in kwargs.items() if isinstance(v, Tensor)]
            if (self.get_all or not args) and kw_tensors:
                # get_all also differentiates the Tensors passed by keyword, after the positional ones; with no
                # positional argument, the first keyword Tensor is the first input (MindSpore, in both modes)
                n_pos, rest = len(args), {k: v for k, v in kwargs.items() if k not in kw_tensors}
                args = (*args, *(kwargs[k] for k in kw_tensors))

                def call(*a):
                    return fn(*a[:n_pos], **dict(zip(kw_tensors, a[n_pos:], strict=True)), **rest)

                kwargs = {}
            if self.get_all:
                positions = tuple(i for i, a in enumerate(args) if isinstance(a, Tensor) or _is_mutable_container(a))
            elif self.get_by_list:
                # only the Parameters' gradients are returned: no input is differentiated (an integer first input
                # would otherwise be tried as float32 first, running the forward twice, its weights' gradients
                # taken at the float values when that run succeeded)
                positions = ()
            else:
                positions = (0,) if args and (isinstance(args[0], Tensor) or _is_mutable_container(args[0])) else ()
            call, flat_args, flat_positions, regroup = _spread_mutable(call, args, positions)
            _, in_grads, w_grads = run_with_grad(call, flat_args, flat_positions, ws, sens=sens, kwargs=kwargs)
            if regroup is not None:
                in_grads = regroup(in_grads)
            if not self.get_all and not positions:  # the first argument is not a Tensor: no gradient (MindSpore)
                in_grads = ((),)
            if self.get_by_list and isinstance(weights, Parameter):
                w_grads = w_grads[0]  # one Parameter given (not in a list): its bare gradient, as MindSpore
            if self.get_by_list and not self.get_all:
                return w_grads
            in_part = in_grads if self.get_all else in_grads[0]
            return (in_part, w_grads) if self.get_by_list else in_part

        return grad_fn


def _fit_to_input(g, x):
    """A custom bprop's gradient in its input's shape and dtype: broadcast dimensions summed away, then cast."""
    if not isinstance(g, Tensor) or not isinstance(x, Tensor):
        return g
    if g.shape != x.shape and g.ndim >= x.ndim:
        extra = g.ndim - x.ndim
        axes = tuple(range(extra)) + tuple(
            extra + i for i, d in enumerate(x.shape) if d == 1 and g.shape[extra + i] != 1
        )
        if axes:
            g = apply(REGISTRY["ReduceSum"], (g,), (axes, False))
        g = apply(REGISTRY["Reshape"], (g,), (tuple(x.shape),))
    if g.dtype != x.dtype:
        g = apply(REGISTRY["Cast"], (g,), (x._data.dtype,))
    return g


_WARNED_EXTRA_GRADIENTS: set[type] = set()


def _bprop_gradients(cell, result, n_inputs: int) -> tuple:
    """A Cell bprop's result as one gradient per input. Gradients past the inputs are dropped, with a warning
    once per Cell class (MindSpore ignores them too); fewer gradients than inputs is an error.

    Raises:
        ValueError: the bprop returned fewer gradients than the Cell has inputs.
    """
    result = (result,) if isinstance(result, Tensor) else tuple(result)
    if len(result) < n_inputs:
        raise ValueError(
            f"The bprop of {type(cell).__name__} returned {len(result)} gradient(s) for {n_inputs} input(s)."
        )
    if len(result) > n_inputs:
        if type(cell) not in _WARNED_EXTRA_GRADIENTS:
            _WARNED_EXTRA_GRADIENTS.add(type(cell))
            warnings.warn(
                f"The bprop of {type(cell).__name__} returned {len(result)} values for {n_inputs} input(s); the "
                f"values after the first {n_inputs} are ignored.",
                stacklevel=2,
            )
        result = result[:n_inputs]
    return result


def call_with_custom_bprop(cell, bprop: Callable, construct: Callable, args: tuple):
    """Run a Cell whose user-defined `bprop(*inputs, out, dout)` replaces its backward."""
    trace = G.current()
    if trace is not None and any(isinstance(a, Tensor) and G.is_symbolic(a._data) for a in args):
        return _custom_bprop_in_graph(trace, cell, bprop, construct, args)
    if not tape.recording:
        out = construct(*args)
        # A cell with bprop gives new output tensors, even one that returns its input (as MindSpore)
        ids = {id(a) for a in args if isinstance(a, Tensor)}
        if isinstance(out, Tensor):
            return Tensor._wrap(out._data) if id(out) in ids else out
        if isinstance(out, tuple) and any(id(o) in ids for o in out):
            return tuple(Tensor._wrap(o._data) if id(o) in ids else o for o in out)
        return out
    with tape.pause():
        out = construct(*args)
    outs = tuple(tensor_leaves(out))
    single = isinstance(out, Tensor)

    def rule(cots):
        cots = tuple(conj_complex(c) for c in cots)
        dout = cots[0] if single else type(out)(cots) if isinstance(out, (tuple, list)) else cots
        result = _bprop_gradients(cell, bprop(*args, out, dout), len(args))
        return tuple(conj_complex(_fit_to_input(g, x)) for g, x in zip(result, args, strict=True))

    fresh = tuple(Tensor._wrap(o._data) for o in outs)
    tape.record_custom(args, fresh, rule)
    if single:
        return fresh[0]
    it = iter(fresh)
    return type(out)(next(it) if isinstance(o, Tensor) else o for o in out)


def _custom_bprop_in_graph(trace, cell, bprop: Callable, construct: Callable, args: tuple):
    """Inside a graph: record `construct` and `bprop` as nested graphs of one `custom_vjp` equation."""
    positions = [i for i, a in enumerate(args) if isinstance(a, Tensor)]
    fwd = record(trace, "construct", construct, list(args), positions)
    if fwd.written:
        raise TypeError(
            f"{type(cell).__name__} defines bprop and writes a Parameter in construct: graph mode supports "
            f"custom bprop only for Cells without state updates."
        )
    n_in, n_out = len(positions), fwd.n_leaves
    outs = [Tensor._wrap(o) for o in fwd.graph.outvars]

    def backward(*flat):
        full = list(args)
        for i, x in zip(positions, flat[:n_in], strict=True):
            full[i] = x
        out = unflatten(fwd.template, (t._data for t in flat[n_in : n_in + n_out]))
        dout = unflatten(fwd.template, (conj_complex(t)._data for t in flat[n_in + n_out :]))
        result = _bprop_gradients(cell, bprop(*full, out, dout), len(args))
        return [
            conj_complex(_fit_to_input(result[i], full[i]))
            if isinstance(result[i], Tensor)
            else Tensor(B.np.zeros(args[i].shape, args[i]._data.dtype))
            for i in positions
        ]

    flat = [args[i] for i in positions] + outs + outs
    back = record(trace, "bprop", backward, flat, range(len(flat)))
    params = {"fwd": fwd.graph, "bprop": back.graph, "n_in": n_in, "n_fwd_captures": len(fwd.captured)}
    avals = [(tuple(o.shape), o.dtype) for o in fwd.graph.outvars]
    results = trace.emit("custom_vjp", [*fwd.inputs, *fwd.captured, *back.captured], avals, params)
    return fwd.finish(trace, results)


def _tensors_in(value, found: list) -> None:
    if isinstance(value, Tensor):
        found.append(value)
    elif isinstance(value, (tuple, list)):
        for v in value:
            _tensors_in(v, found)
    elif isinstance(value, dict):
        for v in value.values():
            _tensors_in(v, found)


def _rebuild(value, fresh):
    """`value` with its tensors replaced, in `_tensors_in` order, by the next ones of the iterator `fresh`."""
    if isinstance(value, Tensor):
        return next(fresh)
    if isinstance(value, (tuple, list)):
        items = [_rebuild(v, fresh) for v in value]
        return type(value)(*items) if hasattr(value, "_fields") else type(value)(items)
    if isinstance(value, dict):
        return type(value)((k, _rebuild(v, fresh)) for k, v in value.items())
    return value


def _hook_result(cell, hook, result, expected: int, what: str) -> tuple:
    if isinstance(result, Tensor):
        result = (result,)
    elif isinstance(result, list):
        result = tuple(result)
    if not isinstance(result, tuple) or any(r is not None and not isinstance(r, Tensor) for r in result):
        raise TypeError(
            f"the {what} {defined_at(hook)} of {type(cell).__name__} returned {type(result).__name__}: it returns "
            f"a Tensor or a tuple of Tensors (or None to keep the gradients)."
        )
    if len(result) != expected:
        raise TypeError(
            f"the {what} {defined_at(hook)} of {type(cell).__name__} returned {len(result)} gradient(s), "
            f"but the cell has {expected}."
        )
    return result


def _spread(n: int, positions: list[int], values) -> tuple:
    """A tuple of `n` items: `values` at `positions`, None elsewhere (a hook's view of the floating-point
    tensors' gradients among all of a cell's tensors)."""
    out = [None] * n
    for i, v in zip(positions, values, strict=True):
        out[i] = v
    return tuple(out)


def call_with_backward_hooks(cell, args: tuple, run: Callable):
    """Call `run(*args)` (a Cell's forward) so that its backward runs the cell's backward hooks.

    The cell's tensor inputs and outputs pass through identity nodes of the tape: in the backward pass
    the output node runs `cell._backward_pre_hooks` on the gradients of the outputs (grad_output), and
    the input node, reached once the whole cell's backward is done, runs `cell._backward_hooks` on the
    gradients of the inputs (grad_input) with grad_output.
    """
    trace = G.current()
    ins: list[Tensor] = []
    _tensors_in(args, ins)
    if trace is not None and any(G.is_symbolic(t._data) for t in ins):
        return _backward_hooks_in_graph(trace, cell, args, run)
    if not tape.recording:
        return run(*args)
    state: dict = {}
    # Only floating-point tensors carry gradients: the others pass by, with None in grad_input/grad_output
    in_f = [i for i, t in enumerate(ins) if t.dtype.kind in "fc"]

    def input_rule(cots):
        grad_input = _spread(len(ins), in_f, [conj_complex(c) for c in cots])
        if "grad_output" in state:
            for hook in list(cell._backward_hooks.values()):
                new = hook(cell, grad_input, state["grad_output"])
                if new is not None:
                    grad_input = _hook_result(cell, hook, new, len(grad_input), "backward hook")
        return tuple(conj_complex(grad_input[i]) for i in in_f)

    fresh_ins = list(ins)
    for i in in_f:
        fresh_ins[i] = Tensor._wrap(ins[i]._data)
    tape.record_custom(tuple(ins[i] for i in in_f), tuple(fresh_ins[i] for i in in_f), input_rule, anchor=True)
    out = run(*_rebuild(args, iter(fresh_ins)))
    outs: list[Tensor] = []
    _tensors_in(out, outs)
    out_f = [i for i, t in enumerate(outs) if t.dtype.kind in "fc"]

    def output_rule(cots):
        grad_output = _spread(len(outs), out_f, [conj_complex(c) for c in cots])
        for hook in list(cell._backward_pre_hooks.values()):
            new = hook(cell, grad_output)
            if new is not None:
                grad_output = _hook_result(cell, hook, new, len(grad_output), "backward pre-hook")
        state["grad_output"] = grad_output
        return tuple(conj_complex(grad_output[i]) for i in out_f)

    fresh_outs = list(outs)
    for i in out_f:
        fresh_outs[i] = Tensor._wrap(outs[i]._data)
    tape.record_custom(tuple(outs[i] for i in out_f), tuple(fresh_outs[i] for i in out_f), output_rule, anchor=True)
    return _rebuild(out, iter(fresh_outs))


def _backward_hooks_in_graph(trace, cell, args: tuple, run: Callable):
    """In a graph: the cell call as one `custom_vjp` whose backward runs the pre-hooks, the cell's own
    backward (a nested gradient) and the backward hooks on the symbolic gradients."""
    trainable = [p.name for p in _cell_params(cell, "get_parameters") if p.requires_grad]
    if trainable:
        raise RuntimeError(
            f"{type(cell).__name__} has backward hooks and trainable Parameters ({', '.join(trainable[:3])}"
            f"{', ...' if len(trainable) > 3 else ''}) and is called in a compiled graph (GRAPH_MODE or @jit): Kiln "
            f"runs such hooks in graph mode only on cells without trainable Parameters. Run this cell in PyNative "
            f"mode, or register the hook on a parameterless child cell."
        )
    positions = tuple(i for i, a in enumerate(args) if isinstance(a, Tensor))

    def bprop(*flat):
        inputs, dout = flat[: len(args)], flat[-1]
        douts: list[Tensor] = []
        _tensors_in(dout, douts)
        grad_output = tuple(douts)
        for hook in list(cell._backward_pre_hooks.values()):
            new = hook(cell, grad_output)
            if new is not None:
                grad_output = _hook_result(cell, hook, new, len(grad_output), "backward pre-hook")
        _, grads, _ = run_with_grad(run, tuple(inputs), positions, [], sens=grad_output)
        grad_input = tuple(grads)
        for hook in list(cell._backward_hooks.values()):
            new = hook(cell, grad_input, grad_output)
            if new is not None:
                grad_input = _hook_result(cell, hook, new, len(grad_input), "backward hook")
        it = iter(grad_input)
        return tuple(next(it) if i in positions else None for i in range(len(args)))

    return _custom_bprop_in_graph(trace, cell, bprop, run, args)


def _tensor_hook_in_graph(x: Tensor, hook: Callable) -> Tensor:
    """`x.register_hook(hook)` inside a graph: an identity whose backward is `hook(gradient)`."""
    trace = G.current()

    def bprop(x_, out, dout):
        new = _tensor_hook_gradient(hook, hook(dout))
        return (dout,) if new is None else (new,)

    return _custom_bprop_in_graph(trace, hook, bprop, lambda a: a, (x,))


_tensor_module._GRAPH_TENSOR_HOOK[:] = [_tensor_hook_in_graph]
