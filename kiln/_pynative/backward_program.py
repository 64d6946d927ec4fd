"""One compiled program for a whole PyNative backward pass.

`autograd.backward` walks the tape and dispatches each node's backward primitive: one kernel compiled per
(primitive, attributes, shapes) and one launch per node. When nothing needs to see the backward op by op —
no outer grad level records it (higher-order gradients), no tensor or Cell hook and no custom rule runs
Python on an intermediate gradient, no input is symbolic (a graph being recorded) — the same walk is
instead written down as a *plan* (which backward primitive runs on which inputs, where each input
cotangent is summed), and the plan is compiled once as a single program: the first step of a network
compiles one backward kernel instead of one per op, and every later step with the same tape structure
launches it once (XLA fuses across the ops and the accumulations).

A plan longer than `lazy.MAX_OPS` steps is split into pieces of at most that many steps, each its own program:
XLA's compile time grows faster than the program (DIEN's 3117-step backward, its auxiliary network unrolled over
the time steps, compiled for 9 minutes as one program). A piece takes the gradients still being summed when the
pieces before it end as arrays (as the plan's seeds) and returns those the pieces after it need. A plan that
repeats a block (a network called in a Python loop) is cut at multiples of the block's period, and each piece names
the tape positions it touches in their order of appearance: the pieces inside the repetition are then one plan, one
primitive and one compiled program (`_cuts`, `_renumbered`).

The plan is a pure function of the tape's structure, so it is also the cache key; the arrays (the recorded
inputs and the output sensitivities) are the program's arguments. The backend caches again on their shapes
and dtypes. `KILN_FUSED_BACKWARD=0` turns this off (`tape.FUSED_BACKWARD`: every backward op dispatched
on its own, each kernel compiled ahead on a worker thread while the forward runs, as before).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from kiln import _backend as B
from kiln._compiler.ir import graph as G
from kiln._core.primitive import PrimitiveDef
from kiln._core.tensor import Tensor
from kiln._prims.math import add_p
from kiln._pynative import dispatch, lazy

MAX_PROGRAMS = 128  # compiled backward programs kept (one per tape structure); the oldest goes first
# A network whose tape changes shape every step (data-dependent control flow, ever new input shapes) would
# compile a whole new program per step where the op-by-op walk reuses its per-op kernels: while this many
# programs have run only once, a plan not compiled yet goes op by op. A plan refused so that comes again is not a
# one-off: it is compiled in place of the oldest single-use mark (`lazy.compiles_again`).
MAX_SINGLE_USE = 16

_programs: dict[tuple, object] = {}
_single_use: set[tuple] = set()  # plans whose program has run once only
_refused: dict[tuple, None] = {}  # plans walked op by op while _single_use was full (insertion-ordered)


class NotFusable(Exception):
    """The tape holds something the single program cannot express; the caller walks it op by op."""


def plan(outputs: list, order: list, useful: set, level: int) -> tuple[tuple, list, list]:
    """The backward walk over `order` (inputs before consumers) as a hashable plan.

    Args:
        outputs: (output Tensor, sensitivity Tensor) pairs the backward starts from.
        order: the tape's nodes of `level`, inputs before consumers.
        useful: ids of the nodes that have a path to a requested leaf (or must run).
        level: the grad level being differentiated.

    Returns:
        (plan, arrays, leaf ids): the plan (seeds, steps, and no gradient carried out: `split`); the arrays it
        runs on, in argument order; the ids of the leaf nodes whose gradients the program returns, in its output
        order.

    Raises:
        NotFusable: a node with hooks, a custom rule or an anchor; an input that is neither a Tensor nor a
            hashable constant.
    """
    position = {id(node): i for i, node in enumerate(order)}
    arrays: list = []
    refs: dict[int, int] = {}

    def ref(x):
        if isinstance(x, Tensor):
            if type(x._buf) is G.Var:
                raise NotFusable
            r = refs.get(id(x))
            if r is None:
                r = refs[id(x)] = len(arrays)
                arrays.append(x)
            return r
        try:
            hash(x)
        except TypeError:
            raise NotFusable from None
        return ("const", type(x), x)  # the type too: 1, 1.0 and True hash alike but trace differently

    seeds = []
    has_grad = set()
    for out, sens in outputs:
        entry = out._nodes.get(level) if out._nodes else None
        if entry is None:
            continue
        node, idx = entry
        seeds.append((position[id(node)], idx, ref(sens)))
        has_grad.add(id(node))
    steps, leaves = [], []
    # (run once per backward pass over every node of the tape: `ref` and the comprehensions are written out inline)
    for node in reversed(order):
        nid = id(node)
        if nid not in has_grad or nid not in useful:
            continue
        if node.hooks or node.anchor or node.rule is not None:
            raise NotFusable
        pos = position[nid]
        if node.prim is None:  # a leaf
            leaves.append(nid)
            steps.append(("leaf", pos))
            continue
        wanted, targets = [], []
        for link in node.links:
            if link is not None:
                pid = id(link[0])
                if pid in useful:
                    wanted.append(True)
                    targets.append((position[pid], link[1]))
                    has_grad.add(pid)
                    continue
            wanted.append(False)
        inputs = []
        for a in node.inputs:
            if type(a) is Tensor or isinstance(a, Tensor):
                r = refs.get(id(a))
                if r is None:
                    if type(a._buf) is G.Var:
                        raise NotFusable
                    r = refs[id(a)] = len(arrays)
                    arrays.append(a)
                inputs.append(r)
            else:
                inputs.append(ref(a))
        steps.append(
            (pos, node.prim.backward(tuple(wanted)), node.attrs, tuple(inputs), node.out_avals, tuple(targets))
        )
    return (tuple(seeds), tuple(steps), ()), arrays, leaves


def split(the_plan: tuple, n_arrays: int) -> list[tuple[tuple, tuple, int]]:
    """`the_plan` as pieces of at most `lazy.MAX_OPS` steps, run one after the other.

    Returns:
        [(piece, sources, number of leaves)]: each piece is a plan whose arguments are the gradients the piece
        before it carries out (its seeds, first) then its own arrays; `sources` names them, an int for the
        whole plan's array and ("carry", i) for the i-th carried gradient of the piece before; the piece returns
        its leaves' gradients, then the gradients it carries (its plan's third part, (position, index) each).
    """
    seeds, steps, _ = the_plan
    if len(steps) <= lazy.MAX_OPS:
        return [(the_plan, tuple(range(n_arrays)), sum(1 for s in steps if s[0] == "leaf"))]
    pieces = []
    live: dict[tuple[int, int], None] = {(pos, idx): None for pos, idx, _ in seeds}  # gradients being summed
    bounds = _cuts(steps, lazy.MAX_OPS)
    for start, end in zip(bounds, bounds[1:], strict=False):
        chunk = steps[start:end]
        sources: list = []
        local: dict[int, int] = {}  # the whole plan's array position -> this piece's argument position

        def arg(r, sources=sources, local=local):
            if type(r) is not int:
                return r
            if r not in local:
                local[r] = len(sources)
                sources.append(r)
            return local[r]

        if start == 0:
            piece_seeds = [(pos, idx, arg(r)) for pos, idx, r in seeds]
        else:
            piece_seeds = [(pos, idx, i) for i, (pos, idx) in enumerate(live)]  # the carried gradients come first
            sources.extend(("carry", i) for i in range(len(live)))
        piece_steps = []
        n_leaves = 0
        for step in chunk:
            if step[0] == "leaf":
                live.pop((step[1], 0), None)
                n_leaves += 1
                piece_steps.append(step)
                continue
            pos, bwd, attrs, inputs, out_avals, targets = step
            for i in range(len(out_avals)):
                live.pop((pos, i), None)
            live.update(dict.fromkeys(targets))
            piece_steps.append((pos, bwd, attrs, tuple(arg(r) for r in inputs), out_avals, targets))
        carry = tuple(live)
        pieces.append((_renumbered(piece_seeds, piece_steps, carry), tuple(sources), n_leaves))
    return pieces


_last_cuts: list = [None, 0, None]  # the steps and bound `_cuts` saw last, and its answer (a training step's plan)


def _cuts(steps: tuple, bound: int) -> list[int]:
    """Where to cut `steps` into pieces of at most `bound`: [0, ..., len(steps)].

    A plan that repeats a block of P steps (a network called in a Python loop: DIEN's auxiliary network, run per
    sample) is cut at multiples of P inside the repetition, in pieces of P * (bound // P) steps, so that those
    pieces are the same plan (once `_renumbered`) and compile once; elsewhere every `bound` steps."""
    if _last_cuts[1] == bound and _last_cuts[0] == steps:
        return _last_cuts[2]
    n = len(steps)
    kinds: dict = {}
    # a step's kind: its backward primitive, attributes and output types (or a leaf); the wiring is compared by
    # the pieces' plans themselves
    ids = np.array([kinds.setdefault(s[1:3] + s[4:5] if s[0] != "leaf" else "leaf", len(kinds)) for s in steps])
    best = (0, 0, 0)  # (length of the run where step i is of step i + P's kind, -P, its start)
    for period in range(1, bound // 2 + 1):
        same = np.concatenate(([False], ids[:-period] == ids[period:], [False]))
        edges = np.flatnonzero(same[1:] != same[:-1])  # run starts and ends, alternating
        if len(edges):
            lengths = edges[1::2] - edges[::2]
            i = int(lengths.argmax())
            best = max(best, (int(lengths[i]), -period, int(edges[2 * i])))
    run, period, first = best[0], -best[1], best[2]
    length = period * (bound // period) if period else 0
    cuts = [0]
    if period and run + period >= 2 * length:  # at least two pieces of the repetition
        end = first + run + period  # steps [first, end) repeat with this period
        pos = 0
        while pos < n:
            if first <= pos and pos + length <= end:
                pos += length
            elif pos < first < pos + bound:  # the first cut inside the repetition falls on a period's start
                pos = min(first + period * ((pos + bound - first) // period), n)
            else:
                pos = min(pos + bound, n)
            cuts.append(pos)
    else:
        cuts.extend(range(bound, n, bound))
        cuts.append(n)
    _last_cuts[:] = [steps, bound, cuts]
    return cuts


def _renumbered(seeds: list, steps: list, carry: tuple) -> tuple:
    """A piece's plan with each tape position it names replaced by the order in which the piece first names it:
    two pieces that do the same thing at different places of the tape are then the same plan."""
    names: dict[int, int] = {}
    name = names.setdefault
    new_seeds = tuple((name(pos, len(names)), idx, r) for pos, idx, r in seeds)
    new_steps = []
    for step in steps:
        if step[0] == "leaf":
            new_steps.append(("leaf", name(step[1], len(names))))
            continue
        pos, bwd, attrs, inputs, out_avals, targets = step
        pos = name(pos, len(names))
        targets = tuple((name(p, len(names)), i) for p, i in targets)
        new_steps.append((pos, bwd, attrs, inputs, out_avals, targets))
    new_carry = tuple((name(pos, len(names)), idx) for pos, idx in carry)
    return new_seeds, tuple(new_steps), new_carry


def _zeros(shape, dtype):
    return B.jnp.zeros(shape, dtype if dtype.kind in "fc" else B.np.float32)


def _sum_gradients(the_plan: tuple, arrays: tuple, wrap: Callable, run_op: Callable) -> dict:
    """Walk the plan's steps over its `arrays`: {(position, output index): the gradient summed there}.

    `wrap` turns one of `arrays` (or a zero cotangent) into what `run_op(prim, inputs, attrs)` takes, and
    `run_op` runs a backward primitive or the add that sums two gradients: traced backend functions for the
    program (`_runner`), eager kernels for its diagnosis (`_walk`)."""
    seeds, steps, _ = the_plan
    grads: dict[tuple[int, int], object] = {}

    def accumulate(pos, idx, value):
        old = grads.get((pos, idx))
        grads[(pos, idx)] = value if old is None else run_op(add_p, (old, value), ())

    for pos, idx, r in seeds:
        accumulate(pos, idx, wrap(arrays[r]))
    for step in steps:
        if step[0] == "leaf":
            continue
        pos, bwd, attrs, inputs, out_avals, targets = step
        cots = [grads.get((pos, i)) for i in range(len(out_avals))]
        cots = [c if c is not None else wrap(_zeros(*aval)) for c, aval in zip(cots, out_avals, strict=True)]
        ins = (*(r[2] if type(r) is tuple else wrap(arrays[r]) for r in inputs), *cots)
        for (parent, idx), g in zip(targets, run_op(bwd, ins, attrs), strict=True):
            if g is not None:  # a custom rule's "no gradient": a leaf left without one fails the plan
                accumulate(parent, idx, g)
    return grads


def _traced(prim: PrimitiveDef, inputs: tuple, attrs: tuple):
    # each (backward primitive, attributes, constants) is traced once per input signature (`lazy.traceable`): a
    # plan repeats its layers' steps; a constant input (a hashable non-array) stays a Python value, as in a direct call
    consts = tuple((i, type(x), x) for i, x in enumerate(inputs) if not B.is_array(x))
    if not consts:
        return lazy.traceable(prim, attrs)(*inputs)
    return lazy.traceable(prim, attrs, consts)(*(x for x in inputs if B.is_array(x)))


def _runner(the_plan: tuple):
    """The function of the plan's arrays that returns the leaves' gradients, then the gradients it carries to the
    next piece (traced once per signature)."""
    steps, carry = the_plan[1], the_plan[2]
    leaves = [(step[1], 0) for step in steps if step[0] == "leaf"]

    def run(*arrays):
        grads = _sum_gradients(the_plan, arrays, lambda a: a, _traced)
        return (*(grads[k] for k in leaves), *(grads[k] for k in carry))

    return run


def _walk(the_plan: tuple):
    """The BackwardProgram's `check`, which `dispatch.diagnose` calls on the arrays of a program that failed: the
    plan walked op by op, each backward primitive through its own kernel, so the failure is raised in the failing
    op's words, as the op-by-op backward walk (`KILN_LAZY=0`) raises it, not as the whole program's."""

    def check(*arrays) -> None:
        _sum_gradients(the_plan, arrays, Tensor._wrap, dispatch.run_now)

    return check


def _program(the_plan: tuple, label: str):
    fn = _programs.get(the_plan)
    if fn is not None:
        _single_use.discard(the_plan)
        return fn
    if len(_single_use) >= MAX_SINGLE_USE and not lazy.compiles_again(the_plan, _programs, _single_use, _refused):
        raise NotFusable
    fn = B.cache.persistent_jit(_runner(the_plan), _disk_key(the_plan), label=label)
    if len(_programs) >= MAX_PROGRAMS:
        oldest = next(iter(_programs))
        del _programs[oldest]
        _single_use.discard(oldest)
    _programs[the_plan] = fn
    _single_use.add(the_plan)
    return fn


def _disk_key(the_plan: tuple) -> str | None:
    """The plan as text that means the same program in every process, or None (kept in memory only) when a
    primitive or a constant has no such text (`dispatch._disk_key`)."""
    seeds, steps, carry = the_plan
    parts = [f"seeds{list(seeds)}"]
    for step in steps:
        if step[0] == "leaf":
            parts.append(f"leaf{step[1]}")
            continue
        pos, bwd, attrs, inputs, out_avals, targets = step
        name = dispatch._disk_key(bwd, attrs)
        if name is None:
            return None
        try:
            ins = ",".join(str(r) if type(r) is int else dispatch._attr_text(r[2]) for r in inputs)
        except TypeError:
            return None
        avals = ",".join(f"{dt.str}{list(shape)}" for shape, dt in out_avals)
        parts.append(f"{pos}:{name}({ins})[{avals}]->{list(targets)}")
    if carry:
        parts.append(f"carry{list(carry)}")
    return "Backward{" + ";".join(parts) + "}"


def run(outputs: list, order: list, useful: set, level: int) -> dict[int, Tensor] | None:
    """The leaves' gradients ({leaf node id: gradient}) computed by one compiled program (by one per piece for a
    plan longer than `lazy.MAX_OPS` steps, `split`), or None when the tape cannot be run that way (the caller then
    walks it op by op, which also raises any error in the op's own words).

    With the lazy window on, the program is recorded there as one op: the forward ops still pending, the
    backward and what follows it (the optimizer's update) then run as one program, unless that would take the
    window past its bound (a piece of a long plan then runs in a window of its own).
    """
    try:
        the_plan, tensors, leaves = plan(outputs, order, useful, level)
    except NotFusable:
        return None
    pieces = split(the_plan, len(tensors))
    grads: list[Tensor] = []
    carried: tuple = ()
    for k, (piece, sources, n_leaves) in enumerate(pieces):
        args = tuple(carried[s[1]] if type(s) is tuple else tensors[s] for s in sources)
        label = f"backward piece {k + 1} of {len(pieces)}, {len(piece[1])} steps"
        if len(pieces) == 1:  # the gradients' types are the leaves' own: no abstract evaluation
            avals = _leaf_avals(order, leaves)
        else:
            avals = None  # (the carried gradients' types too: `defer` evaluates them, once per piece and signature)
        out = None
        if dispatch.deferring():
            try:
                out = dispatch.defer(_primitive(piece, label), args, (), avals)
            except Exception:  # noqa: BLE001  (the plan does not trace: the op-by-op walk says why in the op's terms)
                return None
        if out is None:
            try:
                out = tuple(Tensor._wrap(g) for g in _program(piece, label)(*(t._data for t in args)))
            except Exception:  # noqa: BLE001  (NotFusable; or the op-by-op walk reports the failure in the op's terms)
                _programs.pop(piece, None)
                _single_use.discard(piece)
                return None
        grads.extend(out[:n_leaves])
        carried = out[n_leaves:]
    return dict(zip(leaves, grads, strict=True))


def _leaf_avals(order: list, leaves: list) -> tuple:
    """The gradients' types: each leaf's own (a cotangent has its primal's shape and dtype)."""
    wanted = set(leaves)
    avals = {id(node): node.out_avals[0] for node in order if node.prim is None and id(node) in wanted}
    return tuple(_struct(*avals[nid]) for nid in leaves)


_structs: dict[tuple, object] = {}  # (shape, dtype) -> its ShapeDtypeStruct (immutable: one per type is enough)


def _struct(shape: tuple, dtype):
    struct = _structs.get((shape, dtype))
    if struct is None:
        struct = B.ShapeDtypeStruct(shape, dtype)
        if len(_structs) >= 4096:  # the oldest goes: a full cache keeps caching the types now in use
            del _structs[next(iter(_structs))]
        _structs[(shape, dtype)] = struct
    return struct


_primitives: dict[tuple, PrimitiveDef] = {}  # plan -> the primitive the lazy window records for it
_last: list = [None, None]  # the plan `_primitive` returned last, and its primitive


def _primitive(the_plan: tuple, label: str) -> PrimitiveDef:
    """The plan as one primitive (unregistered, like a derived backward primitive) for the lazy window; its
    name across processes is the plan's text (`dispatch.PROGRAM_NAMES`); `label` names it in the compile log."""
    last_plan, last_prim = _last
    if last_prim is not None and the_plan == last_plan:  # a training step's plan, step after step: compared, not
        return last_prim  # hashed as well (a tuple does not keep its hash: each lookup walks the whole plan)
    prim = _primitives.get(the_plan)
    if prim is not None:
        _last[:] = [the_plan, prim]
        return prim
    if len(_primitives) >= MAX_PROGRAMS:
        dispatch.forget_program(_primitives.pop(next(iter(_primitives))))
        _last[:] = [None, None]
    prim = PrimitiveDef.__new__(PrimitiveDef)
    prim.name = "BackwardProgram"
    prim.impl = _runner(the_plan)
    prim.attr_names, prim.attr_defaults = (), ()
    prim.custom_vjp = prim.bounds = None
    prim.check = _walk(the_plan)  # read only when the program fails (dispatch: `PROGRAM_NAMES`)
    prim.nondiff = frozenset()
    prim.differentiable = True
    prim.multiple_results = True
    prim.effect = None
    prim.random = prim.amp_cast = False
    prim.amp_auto = None
    prim.amp_o1 = False
    prim.amp_keep = frozenset()
    prim.increments = {}
    prim._backward = {}
    dispatch.PROGRAM_NAMES[prim] = _disk_key(the_plan)
    lazy.WEIGHTS[prim] = len(the_plan[1])  # the window's bound counts the steps it runs
    lazy.LABELS[prim] = label
    _primitives[the_plan] = prim
    _last[:] = [the_plan, prim]
    return prim
