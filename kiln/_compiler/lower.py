"""Lowering: one loop from Kiln IR equations to backend calls.

A primitive equation calls the primitive's declared backend implementation
(wrapped in a custom derivative where the declaration has a hand-written one).
Structural equations lower their nested graphs recursively: `cond` to
`lax.cond` (only the taken branch runs, in value and in gradient), `while` to a
reverse-differentiable `lax.while_loop`, `grad` to the backend's `vjp`,
`custom_vjp` to a custom derivative, `callback` to an ordered host callback.

How a `while` is differentiated: the forward pass records the carried state
entering each of the first K iterations into a buffer (K chosen so the buffer
stays under ~64 MiB, at most 1024); the backward pass walks the iterations in
reverse, taking the vjp of one body step at each recorded state. Iterations
past K are recomputed from the K-th state, so any trip count is exact: cost
O(n) up to K iterations, O(n^2) body steps beyond. The forward and backward
passes' own loops are built the same way, so gradients of gradients work too.
"""

from __future__ import annotations

import contextlib
import functools

import numpy as np

from kiln import _backend as B
from kiln._backend import distributed as _distributed
from kiln._compiler.errors import GraphCompileError, located, no_derivative, where
from kiln._compiler.ir.graph import Graph, Var
from kiln._core.primitive import forward_mode_error
from kiln._prims import recurrent
from kiln._prims.control import KEPT, raise_p, raised

jax, jnp, lax = B.jax, B.jnp, B.lax


def eval_graph(graph: Graph, args, checks: list | None = None, replay: bool = False) -> list:
    """Evaluate `graph` on backend values (concrete or traced by the backend).

    With `checks` (a list), the value checks that primitives declare (`bounds`) run too: each appends
    an (error code, detail) pair to `checks`, nested graphs included (see `fold_checks`). With `replay`
    (evaluating a graph prefix at compile time), effects are skipped and host calls give the results
    they gave when compiled.
    """
    env: dict = {}
    for v, a in zip(graph.invars, args, strict=True):
        env[v] = a
    repeated = _repeated(graph)
    # a job of several processes: a constant the program cannot hold is read from its inputs (`lifted_constants`)
    spans = not replay and _distributed.is_initialized()
    for e in graph.eqns:
        ins = [env[x] if type(x) is Var else _constant(e, x) if spans else x for x in e.inputs]
        prim = e.prim
        if type(prim) is str:
            if replay and prim in ("callback", "host_call"):
                outs = e.params.get("first", [])
            else:
                outs = RULES[prim](e, ins, checks)
        else:
            if checks is not None and prim.bounds is not None:
                checks.append(_run_check(e, ins))
            if prim.nondiff and prim.differentiable:  # no gradient flows to these inputs (zero, as on the tape)
                ins = [lax.stop_gradient(x) if i in prim.nondiff and _is_array(x) and _inexact(x) else x
                       for i, x in enumerate(ins)]  # fmt: skip
            if prim.effect == "host":  # the user's Python: once per call, in order, never dropped (as in PyNative)
                out = _host_effect(e, ins)
            else:
                out = _impl(prim, e.attrs, ins, e in repeated)
            outs = out if prim.multiple_results else (out,)
        for o, val in zip(e.outputs, outs, strict=True):
            env[o] = val
    return [env[o] if type(o) is Var else _constant(None, o) if spans else o for o in graph.outvars]


# -- constants of a job of several processes ------------------------------------------------------------------
# A primitive's rule may close over a literal input (a branch of lax.cond, a loop body); JAX then reads the array's
# value in this process, which fails for one split across processes. Such constants are the program's last inputs:
# `lifted_constants` finds them before the program is built, and while it is traced `_LIFTED` maps each to its input.
_LIFTED: list = [{}]


def lifted_constants(graph: Graph) -> list:
    """The concrete arrays `graph` (nested graphs included) holds as constants that are split across the job's
    processes, each once, in a fixed order; [] in a single process."""
    if not _distributed.is_initialized():
        return []
    found: dict = {}

    def walk(g: Graph) -> None:
        for e in g.eqns:
            for x in e.inputs:
                if type(x) is not Var and _distributed.needs_lifting(x):
                    found.setdefault(id(x), x)
            for sub in e.subgraphs():
                walk(sub)
        for x in g.outvars:
            if type(x) is not Var and _distributed.needs_lifting(x):
                found.setdefault(id(x), x)

    walk(graph)
    return list(found.values())


@contextlib.contextmanager
def lifted_inputs(constants: list, values):
    """Trace with each of `constants` (`lifted_constants`) read as the matching traced input of `values`."""
    previous = _LIFTED[0]
    _LIFTED[0] = {id(c): v for c, v in zip(constants, values, strict=True)}
    try:
        yield
    finally:
        _LIFTED[0] = previous


def _constant(e, x):
    """A literal input of `e` (None: an output of the graph) as the program may hold it: its traced input when it
    is lifted, else `distributed.program_constant`. No primitive's rule closes over an array of other processes'
    devices, whatever it does with its inputs."""
    lifted = _LIFTED[0].get(id(x))
    if lifted is not None:
        return lifted
    try:
        return _distributed.program_constant(x)
    except ValueError as err:
        op = "the graph's output" if e is None else f"'{getattr(e.prim, 'name', e.prim)}'"
        raise ValueError(f"For {op}, {err}" + ("" if e is None else f"\n{where(e.loc)}")) from None


# -- value checks in compiled graphs ----------------------------------------------------------------
# A checked equation yields its error: (code, detail, *kept values, *kept flags). code is -1 when its values
# are in range, else the index of its site in CHECK_SITES (primitive, attributes, source location); the first
# failure wins. A user's `raise` also carries what the Parameters written before it hold at that point: one
# slot per state a raise of the program keeps (`kept_state`), flagged when this raise sets it.

DETAIL_LEN = 16
CHECK_SITES: list = []
_KEPT_LAYOUT: list = [None]  # while a program is lowered: ({state key: slot}, [(shape, dtype) per slot])


@contextlib.contextmanager
def kept_state(keys: list, avals: list):
    """Lower with one kept-value slot per state key in `keys` (shapes and dtypes `avals`) in every error."""
    previous = _KEPT_LAYOUT[0]
    _KEPT_LAYOUT[0] = ({k: i for i, k in enumerate(keys)}, list(avals))
    try:
        yield
    finally:
        _KEPT_LAYOUT[0] = previous


def kept_keys(graph: Graph) -> set:
    """The state keys some `raise` of `graph` (nested graphs included) keeps when it fails."""
    keys: set = set()
    for e in graph.eqns:
        if e.prim is raise_p:
            keys.update(KEPT[e.attrs[0]])
        for g in e.subgraphs():
            keys |= kept_keys(g)
    return keys


def _no_kept() -> tuple:
    avals = _KEPT_LAYOUT[0][1] if _KEPT_LAYOUT[0] is not None else []
    return (*(jnp.zeros(shape, dtype) for shape, dtype in avals), *(jnp.asarray(False) for _ in avals))


def _run_check(e, ins):
    kw = e.prim.attrs_dict(e.attrs) if e.attrs else {}
    ok, detail = e.prim.bounds.test(*ins, **kw)
    detail = jnp.asarray(detail, jnp.int64).reshape(-1)
    n = int(detail.shape[0])
    CHECK_SITES.append((e.prim, kw, e.loc, n))
    detail = jnp.pad(detail[:DETAIL_LEN], (0, max(DETAIL_LEN - n, 0)))
    kept = list(_no_kept())
    if e.prim is raise_p and _KEPT_LAYOUT[0] is not None:
        slots, avals = _KEPT_LAYOUT[0]
        for key, value in zip(KEPT[kw["site"]], ins[1:], strict=True):
            i = slots.get(key)
            if i is not None:
                kept[i], kept[len(avals) + i] = jnp.asarray(value, avals[i][1]), jnp.asarray(True)
    return (jnp.where(ok, -1, len(CHECK_SITES) - 1).astype(jnp.int32), detail, *kept)


NO_ERROR = (np.int32(-1), np.zeros(DETAIL_LEN, np.int64))


def no_error() -> tuple:
    """The error of a program part where nothing failed (with the kept-value slots of the program lowered)."""
    return (*NO_ERROR, *_no_kept())


def _never(flag) -> bool:
    """True when `flag` is a constant False (an error that keeps no state: an op's check, no failure)."""
    return not B.is_tracer(flag) and not bool(flag)


def fold_checks(checks: list, first=None) -> tuple:
    """One error: the first failing check in program order (after `first`, if given)."""
    acc = list(first) if first is not None else list(no_error())
    n_kept = (len(acc) - len(NO_ERROR)) // 2
    for err in checks:
        earlier = acc[0] >= 0
        for i, (a, b) in enumerate(zip(acc, err, strict=True)):
            value_slot = len(NO_ERROR) <= i < len(NO_ERROR) + n_kept
            # a kept value matters only where its flag is set: an error that never sets it leaves the slot alone
            if not (value_slot and _never(err[i + n_kept])):
                acc[i] = jnp.where(earlier, a, b)
    return (jnp.asarray(acc[0], jnp.int32), jnp.asarray(acc[1], jnp.int64), *acc[2:])


def _failed_so_far(checks: list | None):
    """The first failure among the checks lowered so far at this level (None: none yet, or checks are off).
    The list is folded in place to that one entry, so later folds do not repeat the work."""
    if not checks:
        return None
    checks[:] = [fold_checks(checks)]
    return checks[0]


def check_error(code: int, detail) -> Exception:
    """The user-facing error of a failed check: the op's message and the line that applied it."""
    prim, kw, loc, n = CHECK_SITES[code]
    err = raised(kw["site"]) if prim is raise_p else prim.bounds.error(prim.name, np.asarray(detail)[:n], kw)
    if loc is not None and getattr(loc, "line", None):
        err = located(err, f"The failing expression (graph mode):\n{where(loc)}")
    return err


def has_checks(graph: Graph, only=None) -> bool:
    """True when some equation (nested graphs included) declares a value check (of primitive `only`)."""
    for e in graph.eqns:
        if type(e.prim) is not str and e.prim.bounds is not None and (only is None or e.prim is only):
            return True
        if any(has_checks(g, only) for g in e.subgraphs()):
            return True
    return False


def _repeated(graph: Graph) -> set:
    """The primitive equations of `graph` whose primitive, attributes and input types another equation repeats
    (a Cell applied N times): lowered through one shared function (`_shared_impl`). An equation met once is
    lowered directly: a shared function costs more than it saves when nothing reuses it (LeNet5)."""
    seen: dict = {}
    repeated: set = set()
    for e in graph.eqns:
        if type(e.prim) is str:
            continue
        key = (e.prim, e.attrs, *((x.shape, x.dtype) if type(x) is Var else (type(x), x) for x in e.inputs))
        try:
            first = seen.setdefault(key, e)
        except TypeError:  # an unhashable Python input: lowered on its own
            continue
        if first is not e:
            repeated.add(first)
            repeated.add(e)
    return repeated


def _impl(prim, attrs: tuple, ins: list, shared: bool = False):
    # A Python number reaches the primitive as PyNative's jitted kernel sees it: a weakly typed array, so the
    # primitive's scalar promotion (int Tensor + 0.5 -> float32) and its array methods are those of PyNative.
    ins = [_as_pynative_sees(x) for x in ins]
    with _forward_mode_named(prim.name):
        if shared and any(map(B.is_tracer, ins)):
            fn = _shared_impl(prim, attrs, ins)
            if fn is not None:
                return fn(*(x for x in ins if _is_array(x)))
        return _direct_impl(prim, attrs, ins)


_NUMBERS = (bool, int, float, complex)


def _as_pynative_sees(x):
    """A Python number as the array a jitted call makes of it (weakly typed); anything else, and an int outside
    int32 (PyNative refuses it; a folded graph may still hold one as a static value), as it is."""
    if type(x) in _NUMBERS:
        try:
            return jnp.asarray(x)
        except OverflowError:
            return x
    return x


@contextlib.contextmanager
def _forward_mode_named(op: str):
    """Inside ops.jvp / jacfwd, the backend's refusal to differentiate `op` forward (a host op, a derivative for
    reverse mode only) as Kiln's error naming the op: the backend's words name none."""
    try:
        yield
    except (TypeError, ValueError) as err:
        if B.forward_mode_refused(err):
            raise forward_mode_error(op) from None
        raise


def _direct_impl(prim, attrs: tuple, ins: list):
    kw = prim.attrs_dict(attrs) if attrs else {}
    # A backend custom derivative has no forward mode: inside ops.jvp / jacfwd the backend differentiates the
    # primitive's own implementation (it raised "can't apply forward-mode autodiff" for Conv2D, MaxPool, ...)
    if prim.custom_vjp is None or recurrent.reverse_only_state() is False:
        return prim.impl(*ins, **kw)
    return _with_custom_vjp(prim, kw, ins)


# (primitive, attributes, each input's Python value or None for an array) -> the primitive as one jitted backend
# function of its array inputs, shared by the repeated equations of that key: the backend runs the primitive's
# Python once per input types and inlines the recorded program at each equation, so the lowered module is the
# one per-equation lowering gives (zoo transformer: lowering's CPU time 0.76-0.81x).
_SHARED: dict = {}


def _shared_impl(prim, attrs: tuple, ins: list):
    """The jitted function of `prim`'s array inputs (the other inputs fixed), or None when a Python input or an
    attribute is not hashable."""
    statics = tuple(None if _is_array(x) else (type(x), x) for x in ins)
    # the backend keeps the trace of the primitive it made first: a trace for reverse mode alone is not reused where
    # forward mode may differentiate it
    key = (prim, attrs, statics, recurrent.reverse_only_state())
    try:
        fn = _SHARED.get(key)
    except TypeError:
        return None
    if fn is None:

        def run(*arrays):
            given = iter(arrays)
            return _direct_impl(prim, attrs, [next(given) if s is None else s[1] for s in statics])

        fn = jax.jit(run, inline=True)
        if len(_SHARED) < 50_000:
            _SHARED[key] = fn
    return fn


def _is_array(x) -> bool:
    return hasattr(x, "shape") and hasattr(x, "dtype")


def _inexact(x) -> bool:
    return jnp.issubdtype(x.dtype, jnp.inexact)


def _with_arrays(ins: list, pos: list, arrays) -> list:
    """`ins` with its arrays (at `pos`) replaced by `arrays`: the traced values a custom derivative's function gets,
    the Python arguments kept static."""
    args = list(ins)
    for i, a in zip(pos, arrays, strict=True):
        args[i] = a
    return args


def _with_custom_vjp(prim, kw: dict, ins: list):
    """The primitive with its declared derivative (Python arguments stay static)."""
    pos = [i for i, x in enumerate(ins) if _is_array(x)]
    full = functools.partial(_with_arrays, ins, pos)

    @jax.custom_vjp
    def f(*arrays):
        return prim.impl(*full(arrays), **kw)

    def fwd(*arrays):
        out = prim.impl(*full(arrays), **kw)
        return out, (arrays, out)

    def bwd(res, dout):
        arrays, out = res
        grads = prim.custom_vjp(*full(arrays), out=out, dout=dout, **kw)
        result = []
        for i, a in zip(pos, arrays, strict=True):
            g = grads[i] if i < len(grads) else None
            result.append(None if g is None or not _inexact(a) else jnp.asarray(g, a.dtype).reshape(a.shape))
        return tuple(result)

    f.defvjp(fwd, bwd)
    return f(*(ins[i] for i in pos))


def _host_effect(e, ins: list):
    """A host op (effect "host") as the ordered effect its `impl` gives with `ordered=True`; with no derivative
    (a user's Python function), a gradient that reaches it fails, naming its line, and one cut by stop_gradient or
    flowing elsewhere never calls the backward rule."""
    pos = [i for i, x in enumerate(ins) if _is_array(x)]
    kw = {**e.prim.attrs_dict(e.attrs), "ordered": True}
    if e.prim.differentiable:
        return e.prim.impl(*ins, **kw)
    full = functools.partial(_with_arrays, ins, pos)
    if recurrent.reverse_only_state() is False:
        # inside ops.jvp / jacfwd: the backend refuses a custom vjp only when the program compiles, in words that name
        # no op; a custom jvp refuses at once, and only when a tangent reaches the op
        g = jax.custom_jvp(lambda *arrays: e.prim.impl(*full(arrays), **kw))

        @g.defjvp
        def _forward(primals, tangents):
            raise forward_mode_error(e.prim.name)

        return g(*(ins[i] for i in pos))

    @jax.custom_vjp
    def f(*arrays):
        return e.prim.impl(*full(arrays), **kw)

    def fwd(*arrays):
        return f(*arrays), None

    def bwd(res, dout):
        raise GraphCompileError(no_derivative(e.prim.name, where(e.loc)))

    f.defvjp(fwd, bwd)
    return f(*(ins[i] for i in pos))


# -- structural equations -------------------------------------------------------------------------

RULES: dict = {}


def _rule(name):
    def deco(fn):
        RULES[name] = fn
        return fn

    return deco


@_rule("cond")
def _cond(e, ins, checks):
    then_g, else_g = e.params["then"], e.params["else"]
    pred, operands = ins[0], tuple(ins[1:])

    earlier = _failed_so_far(checks)  # a loop in a branch does not start after an earlier failure

    def branch(g):
        def run(ops):
            if checks is None:
                return tuple(eval_graph(g, ops)), NO_ERROR
            inner: list = [] if earlier is None else [earlier]
            outs = tuple(eval_graph(g, ops, inner))
            return outs, fold_checks(inner)

        return run

    outs, err = lax.cond(pred, branch(then_g), branch(else_g), operands)
    if checks is not None:
        checks.append(err)
    return list(outs)


@_rule("callback")
def _callback(e, ins, checks):
    jax.debug.callback(e.params["fn"], *ins, ordered=True)
    return []


@_rule("dim_value")
def _dim_value(e, ins, checks):
    """A symbolic dimension (`set_inputs` with None) as an int64 scalar, known when the graph runs."""
    return [jnp.asarray(e.params["dim"], jnp.int64)]


@_rule("host_call")
def _host_call(e, ins, checks):
    structs = tuple(B.ShapeDtypeStruct(o.shape, o.dtype) for o in e.outputs)
    name = e.params.get("name", "a host step")
    run = _opaque(
        e.params["fn"],
        structs,
        e,
        f"'{name}' runs on the host when the graph runs (it needs Tensor values known only then), and",
    )
    pullback = e.params.get("vjp")
    if pullback is None:
        return list(run(*ins))
    # The host step's derivative runs on the host too (effects.host_call's pullback of the step's Python)
    call = jax.custom_vjp(run)

    def fwd(*values):
        # `call` itself: a second gradient differentiates this forward by the same host pullback
        return call(*values), values

    def bwd(values, cts):
        wanted = [i for i, v in enumerate(values) if _inexact(v)]
        sens = [c for c, s in zip(cts, structs, strict=True) if _inexact(s)]
        grad_structs = tuple(B.ShapeDtypeStruct(values[i].shape, values[i].dtype) for i in wanted)
        back = _opaque(pullback, grad_structs, e, f"the gradient of '{name}' runs on the host, and")
        grads = iter(back(*values, *sens))
        return tuple(next(grads) if _inexact(v) else None for v in values)

    call.defvjp(fwd, bwd)
    return list(call(*ins))


def _opaque(fn, structs: tuple, e, what: str):
    """`fn` called on the host in program order, with no derivative of its own (one raises a GraphCompileError
    naming the user's line: `what` says which host step)."""

    @jax.custom_jvp
    def call(*values):
        return tuple(B.io_callback(fn, structs, *values, ordered=True))

    @call.defjvp
    def _no_derivative(primals, tangents):
        raise GraphCompileError(
            f"{what} a host step has no derivative: this gradient cannot be compiled. Take it in PyNative mode, or "
            f"write the computation with Tensor operations.\n{where(e.loc)}"
        )

    return call


@_rule("while")
def _while(e, ins, checks):
    n = e.params["n_consts"]
    cond_g, body_g = e.params["cond"], e.params["body"]
    extra = 0 if checks is None else len(no_error())  # the loop carries the first failed check

    def cond_f(consts, carry):
        go = eval_graph(cond_g, (*consts, *carry[: len(carry) - extra]))[0]
        # A failed check (a `raise`) ends the program there: the loop takes no further trip. A raising branch's
        # values are placeholders, so running on could repeat the failing trip forever.
        return go if not extra else jnp.logical_and(go, carry[len(carry) - extra] < 0)

    def body_f(consts, carry):
        values = carry[: len(carry) - extra]
        inner: list | None = None if checks is None else []
        out = eval_graph(body_g, (*consts, *values), inner)
        out = tuple(jnp.asarray(o, c.dtype) for o, c in zip(out, values, strict=True))
        return out if inner is None else (*out, *fold_checks(inner, carry[len(carry) - extra :]))

    earlier = _failed_so_far(checks)  # a failure before the loop: it takes no trip
    first_err = no_error() if earlier is None else earlier
    init = tuple(ins[n:]) + (tuple(jnp.asarray(x) for x in first_err) if extra else ())
    outs = list(differentiable_while(cond_f, body_f, tuple(ins[:n]), init))
    if extra:
        checks.append(tuple(outs[-extra:]))
        outs = outs[:-extra]
    return outs


def _buffer_len(carry) -> int:
    return while_buffer_len(sum(int(np.prod(c.shape)) * c.dtype.itemsize for c in carry))


def while_buffer_len(nbytes: int) -> int:
    """The trips of a `while` whose differentiated carry takes `nbytes` that its gradient records (beyond them,
    each trip is recomputed from the last recorded state: O(n^2) body steps)."""
    return int(max(16, min(1024, (64 << 20) // max(nbytes, 1))))


def _split(values, mask):
    return tuple(v for v, m in zip(values, mask, strict=True) if m)


def _merge(values, mask, floats):
    it = iter(floats)
    return tuple(next(it) if m else v for v, m in zip(values, mask, strict=True))


def differentiable_while(cond_f, body_f, consts: tuple, init: tuple):
    """`while cond_f(consts, c): c = body_f(consts, c)`, reverse-differentiable in `consts` and `init`, to any
    order: the loops of its own forward and backward passes are `differentiable_while`s too (a gradient of a
    gradient differentiates them), each a plain `while_loop` when no further gradient is taken.

    `cond_f` and `body_f` receive every value they depend on through their arguments (a value they closed
    over would be a constant to the derivative).
    """
    consts = tuple(jnp.asarray(c) for c in consts)
    init = tuple(jnp.asarray(c) for c in init)

    def plain(consts, init):
        return lax.while_loop(lambda c: cond_f(consts, c), lambda c: body_f(consts, c), init)

    loop = jax.custom_vjp(plain)
    k_len = _buffer_len(init)
    n_c = len(init)

    def fwd(consts, init):
        buf = tuple(jnp.zeros((k_len, *c.shape), c.dtype) for c in init)

        def step(consts, s):  # s: the trip count, the carry, the buffer of recorded carries
            i, c, buf = s[0], s[1 : 1 + n_c], s[1 + n_c :]
            idx = jnp.minimum(i, k_len - 1)
            keep = i < k_len
            buf = tuple(
                lax.dynamic_update_index_in_dim(b, jnp.where(keep, x, b[k_len - 1]), idx, 0)
                for b, x in zip(buf, c, strict=True)
            )
            return (i + 1, *body_f(consts, c), *buf)

        out = differentiable_while(
            lambda consts, s: cond_f(consts, s[1 : 1 + n_c]), step, consts, (jnp.int64(0), *init, *buf)
        )
        n, final, buf = out[0], out[1 : 1 + n_c], out[1 + n_c :]
        return final, (consts, buf, n)

    def bwd(res, ct):
        consts, buf, n = res
        n_k = len(consts)
        kmask = tuple(_inexact(c) for c in consts)
        cmask = tuple(_inexact(b) for b in buf)
        n_ct = sum(cmask)

        def state_at(consts, buf, i):
            def stored():
                return tuple(lax.dynamic_index_in_dim(b, i, 0, keepdims=False) for b in buf)

            def recompute():  # trips past the buffer: from the last recorded carry
                start = tuple(b[k_len - 1] for b in buf)
                out = differentiable_while(
                    lambda ki, s: s[0] < ki[-1],
                    lambda ki, s: (s[0] + 1, *body_f(ki[:-1], s[1:])),
                    (*consts, i),
                    (jnp.asarray(k_len - 1, i.dtype), *start),
                )
                return tuple(out[1:])

            return lax.cond(i < k_len, stored, recompute)

        def back(kb, s):  # kb: consts, buffer, trip count; s: j, the carry's cotangent, the consts' cotangent
            consts, buf, n = kb[:n_k], kb[n_k:-1], kb[-1]
            j, ct_c, ct_k = s[0], s[1 : 1 + n_ct], s[1 + n_ct :]
            c_i = state_at(consts, buf, n - 1 - j)

            def one_step(kf, cf):
                return _split(body_f(_merge(consts, kmask, kf), _merge(c_i, cmask, cf)), cmask)

            _, pull = jax.vjp(one_step, _split(consts, kmask), _split(c_i, cmask))
            d_k, d_c = pull(tuple(ct_c))
            return (j + 1, *d_c, *(a + b for a, b in zip(ct_k, d_k, strict=True)))

        ct_c = tuple(jnp.asarray(c, b.dtype) for c, b in zip(_split(ct, cmask), _split(buf, cmask), strict=True))
        zero_k = tuple(jnp.zeros_like(c) for c in _split(consts, kmask))
        out = differentiable_while(
            lambda kb, s: s[0] < kb[-1], back, (*consts, *buf, n), (jnp.zeros_like(n), *ct_c, *zero_k)
        )
        itc, itk = iter(out[1 : 1 + n_ct]), iter(out[1 + n_ct :])
        return (
            tuple(next(itk) if m else None for m in kmask),
            tuple(next(itc) if m else None for m in cmask),
        )

    loop.defvjp(fwd, bwd)
    return loop(consts, init)


def _eval_checked(graph: Graph, args, checks: list | None):
    """`graph` evaluated inside a backend transformation: (outputs, the folded check result, or None when
    checks are off). The result rides out of the transformation beside the outputs."""
    inner: list | None = None if checks is None else []
    outs = tuple(eval_graph(graph, args, inner))
    return outs, None if inner is None else fold_checks(inner)


@_rule("grad")
def _grad(e, ins, checks):
    p = e.params
    g: Graph = p["graph"]
    n_diff, n_targets, n_sens = p["n_diff"], p["n_targets"], p["n_sens"]
    diff, sens, rest = ins[:n_diff], ins[n_diff : n_diff + n_sens], ins[n_diff + n_sens :]

    def f(*d):
        outs, err = _eval_checked(g, (*d, *rest), checks)
        return outs[:n_targets], (outs[n_targets:], err)

    # reverse mode alone, unless a forward-mode transformation encloses this gradient (then its loops keep their
    # forward-mode rule); the rules of forward-mode transformations inside `g` set it off for what they trace
    with recurrent.reverse_only(recurrent.reverse_only_state() is not False):
        targets, pull, (others, err) = jax.vjp(f, *diff, has_aux=True)
    if err is not None:
        checks.append(err)
    if n_sens:
        cts = tuple(jnp.asarray(s, t.dtype) for s, t in zip(sens, targets, strict=True))
    else:
        cts = tuple(jnp.ones(t.shape, t.dtype) if _inexact(t) else np.zeros(t.shape, B.float0) for t in targets)
    grads = pull(cts)
    grads = [jnp.zeros(x.shape, x.dtype) if not _inexact(x) else gr for gr, x in zip(grads, diff, strict=True)]
    return [*targets, *others, *grads]


@_rule("jacobian")
def _jacobian(e, ins, checks):
    """jacfwd/jacrev of a nested graph: its outputs, then one Jacobian per (differentiated output, input) pair,
    output-major (`kiln.ops.jacfwd`/`jacrev` rebuild the structure)."""
    p = e.params
    g: Graph = p["graph"]
    n_diff, n_targets = p["n_diff"], p["n_targets"]
    diff, rest = ins[:n_diff], ins[n_diff:]

    def f(*d):
        outs, err = _eval_checked(g, (*d, *rest), checks)
        return outs[:n_targets], (outs, err)

    transform = jax.jacfwd if p["kind"] == "jacfwd" else jax.jacrev
    with recurrent.reverse_only(p["kind"] != "jacfwd" and recurrent.reverse_only_state() is not False):
        jac, (outs, err) = transform(f, argnums=tuple(range(n_diff)), has_aux=True)(*diff)
    if err is not None:
        checks.append(err)
    return [*outs, *(j for per_output in jac for j in per_output)]


@_rule("taylor")
def _taylor(e, ins, checks):
    """Taylor mode (`kiln.ops.jet`/`derivative`) over a nested graph: its outputs, then each output's series
    stacked (order, *shape)."""
    p = e.params
    g: Graph = p["graph"]
    n = p["n_primals"]
    primals, series, rest = ins[:n], ins[n : 2 * n], ins[2 * n :]
    if checks is not None:  # the graph's value checks, on the primal values
        checks.append(_eval_checked(g, (*primals, *rest), checks)[1])

    def f(*xs):
        return tuple(eval_graph(g, (*xs, *rest)))

    terms = tuple([term for term in jnp.asarray(s, x.dtype)] for x, s in zip(primals, series, strict=True))
    with recurrent.reverse_only(False):
        outs, out_series = B.taylor_jet(f, tuple(primals), terms)
    return [*outs, *(jnp.stack(t) for t in out_series)]


@_rule("vmap")
def _vmap(e, ins, checks):
    p = e.params
    graph, in_axes, out_axes = p["graph"], p["in_axes"], p["out_axes"]

    def body(*xs):
        return _eval_checked(graph, xs, checks)

    err_axes = None if checks is None else tuple(0 for _ in no_error())
    outs, err = jax.vmap(body, in_axes=in_axes, out_axes=(out_axes, err_axes))(*ins)
    if err is not None:
        # One check result per example: report the first example that failed.
        first = jnp.argmax(err[0] >= 0)
        checks.append(tuple(x[first] for x in err))
    return list(outs)


@_rule("jvp")
def _jvp(e, ins, checks):
    graph, n = e.params["graph"], e.params["n_primals"]
    primals, tangents, captured = ins[:n], ins[n : 2 * n], ins[2 * n :]

    def f(*p):
        return _eval_checked(graph, (*p, *captured), checks)

    with recurrent.reverse_only(False):
        if all(_inexact(p) for p in primals):
            tangents = [jnp.asarray(t, p.dtype) for p, t in zip(primals, tangents, strict=True)]
            outs, out_tangents, err = jax.jvp(f, tuple(primals), tuple(tangents), has_aux=True)
        else:
            # As MindSpore (and Kiln's grad): integer inputs are differentiated as real numbers, in float32, and
            # each output's tangent is cast back to the output's dtype; the values come from the inputs as given.
            outs, err = f(*primals)
            real = [p if _inexact(p) else jnp.asarray(p, jnp.float32) for p in primals]
            tangents = [jnp.asarray(t, r.dtype) for r, t in zip(real, tangents, strict=True)]
            _, out_tangents, _ = jax.jvp(f, tuple(real), tuple(tangents), has_aux=True)
    out_tangents = [
        jnp.zeros(o.shape, o.dtype) if t.dtype == B.float0 else jnp.asarray(t, o.dtype)
        for o, t in zip(outs, out_tangents, strict=True)
    ]
    if err is not None:
        checks.append(err)
    return [*outs, *out_tangents]


@_rule("remat")
def _remat(e, ins, checks):
    graph = e.params["graph"]

    def body(*xs):
        return _eval_checked(graph, xs, checks)

    outs, err = jax.checkpoint(body)(*ins)
    if err is not None:
        checks.append(err)
    return list(outs)


@_rule("custom_vjp")
def _custom_vjp(e, ins, checks):
    p = e.params
    fwd_g, bprop_g = p["fwd"], p["bprop"]
    n_in, n_fcap = p["n_in"], p["n_fwd_captures"]
    inputs, fcaps, bcaps = tuple(ins[:n_in]), tuple(ins[n_in : n_in + n_fcap]), tuple(ins[n_in + n_fcap :])

    @jax.custom_vjp
    def f(inputs, fcaps, bcaps):
        return _eval_checked(fwd_g, (*inputs, *fcaps), checks)  # the checks' (code, detail) ride along

    def fwd(inputs, fcaps, bcaps):
        out = f(inputs, fcaps, bcaps)
        return out, (inputs, out[0], bcaps)

    def bwd(res, ct):
        inputs, out, bcaps = res
        ct = ct[0]
        grads = eval_graph(bprop_g, (*inputs, *out, *ct, *bcaps))
        g_in = tuple(
            jnp.asarray(gr, x.dtype).reshape(x.shape) if _inexact(x) else None
            for gr, x in zip(grads, inputs, strict=True)
        )
        return g_in, tuple(None for _ in fcaps), tuple(None for _ in bcaps)

    f.defvjp(fwd, bwd)
    outs, err = f(inputs, fcaps, bcaps)
    if err is not None:
        checks.append(err)
    return list(outs)


__all__ = [
    "CHECK_SITES",
    "RULES",
    "check_error",
    "differentiable_while",
    "while_buffer_len",
    "eval_graph",
    "fold_checks",
    "has_checks",
    "kept_keys",
    "kept_state",
    "no_error",
]
