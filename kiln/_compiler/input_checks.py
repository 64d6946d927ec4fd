"""Value checks that depend only on a program's inputs, found in its graph and tested on the host before launch.

A compiled program with value checks (`Bounds`: label and index ranges) returns an error code that the host
must read after every call, and selects over each state output so that a failed check leaves the state as
it was. Both cost a step its overlap with the next one. When every check of a program reads only the
program's own inputs (the labels passed in, possibly through reshapes and integer casts), the checks can run
first, on the host with NumPy as PyNative runs them, and the program can be compiled without them. When such
a test fails, the caller runs the program with every check compiled in, so the error and the state it leaves
are exactly those of the checked program.

`find(graph, n_leaves)` gives the tests (or None when some check reads a computed value); `passes(tests,
leaves)` runs them on a call's inputs.

A test may read a Parameter the program reads before writing it (the global step indexing a rate per step). Read
back from the device, the previous step's value would make the host wait for that step before each launch. So when
the program provably writes such a state as its old value plus a constant (`successors`: `global_step + 1`), the
launch records the new array's value on the host (`_core/known_values`), and the next test reads that; an array
the host does not know (set by the user, loaded, written by another program) is read from the device once.
"""

from __future__ import annotations

import operator
import pickle

import numpy as np

from kiln._compiler.ir.graph import Graph, Var
from kiln._compiler.lower import has_checks
from kiln._compiler.specialise import guard_p
from kiln._core import known_values
from kiln._core.primitive import REGISTRY, ShapeOnly
from kiln._prims.array import build_index
from kiln._prims.control import raise_p

# Primitives that hand their input's values on unchanged but for the layout: the host applies them as a reshape.
_RESHAPES = frozenset({"Reshape", "ExpandDims", "Squeeze", "Flatten", "Identity", "StopGradient"})


def find(graph: Graph, n_leaves: int, state: tuple = ()) -> tuple | None:
    """The value checks of `graph` as host tests over its first `n_leaves` inputs (and the state inputs at
    `state`), in program order.

    Args:
        graph: the optimised program graph.
        n_leaves: how many of its inputs are the call's arguments (the rest are Parameters and the random key).
        state: positions of state inputs (Parameters, after the arguments) a test may read as the program reads
            them before writing them (an optimizer's global step indexing its rates per step): such a test reads
            the Parameter's value before the launch (`tester`'s `state`).

    Returns:
        A tuple of (primitive, attributes, input specs), one per check; None when some check (a user's raise,
        a branch guard, or an op check on a computed value or inside a loop or a vmap) cannot be tested before
        the launch. An input spec is ("leaf", index, shape, dtype, steps) for a value read from an argument
        (steps applied in order: ("reshape", shape), ("cast", dtype), ("transpose", perm), ("getitem", key),
        ("concat", (axis, parts)) with None for the argument among constant parts), ("shape", ShapeOnly) for an input
        the check only looks at, or ("value", constant).
    """
    read = [*range(n_leaves), *state]
    origin = {
        graph.invars[i]: ("leaf", i, tuple(graph.invars[i].shape), np.dtype(graph.invars[i].dtype), ()) for i in read
    }
    found: list = []
    return _distinct(found) if _walk(graph, origin, found) else None


def _distinct(found: list) -> tuple:
    """The tests once each: a value indexed several times (a forward run again under its gradient, `z[i]` in two
    losses) is checked once per call (SGCN's training step: 124 checks, 28 distinct)."""
    seen: set = set()
    kept = []
    for test in found:
        prim, kw, specs = test
        try:
            key = pickle.dumps((prim.name, kw, specs))
        except Exception:  # noqa: BLE001  (a test it cannot spell: kept as is)
            kept.append(test)
            continue
        if key not in seen:
            seen.add(key)
            kept.append(test)
    return tuple(kept)


def _walk(graph: Graph, origin: dict, found: list) -> bool:
    """Add the checks of `graph` to `found`; False as soon as one cannot be tested on the inputs."""
    for e in graph.eqns:
        prim = e.prim
        if type(prim) is str:
            if not _walk_nested(e, origin, found):
                return False
            continue
        if prim.bounds is not None:
            test = _test_of(e, origin)
            if test is None:
                return False
            found.append(test)
        if len(e.outputs) == 1:
            _follow(e, origin)
    return True


def _follow(e, origin: dict) -> None:
    """Record `e`'s output as computed from an argument when `e` only moves that argument's values: a reshape, an
    integer cast, a transpose, an index by constants (`row, col = edge_index`), or a concatenation with constants
    (a graph network's self loops `Concat((edge_index, arange))`): the host applies the same steps."""
    pos = [j for j, x in enumerate(e.inputs) if type(x) is Var]
    if len(pos) != 1 or e.inputs[pos[0]] not in origin:
        return
    src, out, name = e.inputs[pos[0]], e.outputs[0], e.prim.name
    if len(e.inputs) == 1 and name in _RESHAPES:
        step = ("reshape", tuple(out.shape))
    elif len(e.inputs) == 1 and name == "Cast" and src.dtype.kind in "iu" and out.dtype.kind in "iu":
        step = ("cast", np.dtype(out.dtype))
    elif len(e.inputs) == 1 and name == "Transpose":
        step = ("transpose", tuple(e.prim.attrs_dict(e.attrs)["perm"]))
    elif len(e.inputs) == 1 and name == "TensorGetItem":  # a single input: every index item is a constant
        step = ("getitem", build_index(e.prim.attrs_dict(e.attrs)["spec"], ()))
    elif name == "Concat" and src.dtype.kind in "iu" and all(_int_constant(x) for x in e.inputs if x is not src):
        parts = tuple(None if j == pos[0] else np.asarray(x) for j, x in enumerate(e.inputs))
        step = ("concat", (e.prim.attrs_dict(e.attrs)["axis"], parts))
    else:
        return
    kind, i, shape, dtype, steps = origin[src]
    origin[out] = (kind, i, shape, dtype, (*steps, step))


def _int_constant(x) -> bool:
    """A backend constant of integers (what a Concat may join an argument with, the host holding a copy)."""
    return type(x) is not Var and hasattr(x, "dtype") and np.dtype(x.dtype).kind in "iu"


def _walk_nested(e, origin: dict, found: list) -> bool:
    """The checks of a structural equation's nested graphs that run on values the outer graph passes in as is."""
    p = e.params
    ins = e.inputs
    if e.prim == "grad":  # the graph's inputs: the differentiated ones, then the rest (after the sensitivities)
        n_diff, n_sens = p["n_diff"], p["n_sens"]
        nested = [(p["graph"], [*ins[:n_diff], *ins[n_diff + n_sens :]])]
    elif e.prim in ("jacobian", "remat"):
        nested = [(p["graph"], list(ins))]
    elif e.prim == "cond":  # a check in a branch not taken fails its test too: the checked program then decides
        nested = [(p["then"], list(ins[1:])), (p["else"], list(ins[1:]))]
    elif e.prim == "custom_vjp":  # the bprop graph runs without checks
        nested = [(p["fwd"], list(ins[: p["n_in"] + p["n_fwd_captures"]]))]
    else:
        return not any(has_checks(g) for g in e.subgraphs())
    for g, outer in nested:
        if len(g.invars) != len(outer):  # a layout this walk does not know: the checks stay in the program
            return False
        inner = {v: origin[x] for v, x in zip(g.invars, outer, strict=True) if type(x) is Var and x in origin}
        if not _walk(g, inner, found):
            return False
    return True


def _test_of(e, origin: dict) -> tuple | None:
    """(primitive, attributes, input specs) of check equation `e`, or None when it reads a computed value."""
    prim = e.prim
    if prim is raise_p or prim is guard_p:
        return None
    kw = prim.attrs_dict(e.attrs) if e.attrs else {}
    reads = prim.bounds.reads
    specs = []
    for i, x in enumerate(e.inputs):
        read = reads is None or i in reads
        if type(x) is Var:
            if read and x.dtype.kind in "iu":
                spec = origin.get(x)
                if spec is None:
                    return None
                specs.append(spec)
            else:
                specs.append(("shape", ShapeOnly(tuple(x.shape), np.dtype(x.dtype))))
        elif hasattr(x, "dtype") and not isinstance(x, np.ndarray):  # a backend constant
            if read and np.dtype(x.dtype).kind in "iu":
                specs.append(("value", np.asarray(x)))
            else:
                specs.append(("shape", ShapeOnly(tuple(x.shape), np.dtype(x.dtype))))
        else:
            specs.append(("value", x))
    return (prim, kw, tuple(specs))


def _host_value(a, shape, dtype, steps):
    """The input array `a` on the host after its recorded steps (reshape, astype); None when it has another shape or
    dtype than the program was recorded for, False when it cannot be read on the host (a value being traced)."""
    if a.shape != shape or a.dtype != dtype:
        return None
    try:
        v = np.asarray(a)  # a backend array keeps its host copy: a second read copies nothing
    except Exception:  # noqa: BLE001  (a value being traced: the checked program decides)
        return False
    for step, arg in steps:
        v = _HOST_STEPS[step](v, arg)
    return v


def _concat(v: np.ndarray, arg: tuple) -> np.ndarray:
    axis, parts = arg
    return np.concatenate([v if p is None else p for p in parts], axis=axis)


def _state_value(a, shape, dtype, steps):
    """`_host_value` of a state array (a Parameter the program reads), from the host's record of its value when it
    has one (`known_values`: the value the launch that made it predicted); else read once and recorded."""
    v = known_values.value(a)
    if v is None:
        v = _host_value(a, shape, dtype, ())
        if v is None or v is False:
            return v
        if type(a) is not np.ndarray:  # (a NumPy array may change in place)
            known_values.remember(a, v)
    elif v.shape != shape or v.dtype != dtype:  # (the value's type is its array's)
        return None
    for step, arg in steps:
        v = _HOST_STEPS[step](v, arg)
    return v


def _assign(v: np.ndarray, arg: tuple) -> np.ndarray:
    shape, dtype = arg  # Assign's value as the variable holds it (its dtype, broadcast to its shape)
    return np.broadcast_to(v.astype(dtype), shape)


# each step of a "leaf" spec as NumPy applies it to the argument's host value (and of a `successors` prediction)
_HOST_STEPS = {
    "reshape": np.reshape,
    "cast": lambda v, dtype: v.astype(dtype),
    "transpose": np.transpose,
    "getitem": lambda v, key: v[key],
    "concat": _concat,
    # a constant in the output's integer dtype, and so is the value (`_steps_to` casts it first where it is not):
    # the result wraps as the device's integers do
    "add": np.add,
    "sub": np.subtract,
    "assign": _assign,
}


def successors(graph: Graph, wanted: list) -> tuple:
    """How the program's new value of some state follows from its old one on the host, where the graph shows it.

    Args:
        graph: the optimised program graph.
        wanted: (output position, input position) pairs: a written state's new value and its value before the
            program (a Parameter the tests read).

    Returns:
        A tuple of (output position, input position, steps), one per pair whose output is the input through integer
        additions or subtractions of constants (`Add`, `Sub`, `AssignAdd`, `AssignSub`, a primitive's declared
        `increments`: an optimizer step's global step + 1), reshapes, integer casts and `Assign`s, and nothing
        else; `steps` apply in order to the input's host value (see `predict`). Any other write (a value computed
        from other inputs, a constant set by `Assign`, a nested graph) gives no entry: its new value is read back.
    """
    producer = {}
    for e in graph.eqns:
        if type(e.prim) is not str:  # a structural equation's outputs stay unknown
            for j, out in enumerate(e.outputs):
                producer[out] = (e, j)
    found = []
    for o, i in wanted:
        steps = _steps_to(graph.outvars[o], graph.invars[i], producer)
        if steps is not None:
            found.append((o, i, steps))
    return tuple(found)


def _steps_to(out, src: Var, producer: dict) -> tuple | None:
    """The host steps from `src`'s value to `out`'s (see `successors`), or None. Steps that change nothing (an
    `Assign` of a value of the variable's shape and dtype) are left out: they run at every launch."""
    steps = []
    v = out
    while v is not src:
        if type(v) is not Var or v.dtype.kind not in "iu" or v not in producer:
            return None
        e, j = producer[v]
        name, ins, shape, dtype = e.prim.name, e.inputs, tuple(v.shape), np.dtype(v.dtype)
        increment = e.prim.increments.get(j)
        if increment is not None:
            k, c = increment
            op, x = "add", ins[k]
        elif name in ("Add", "Sub", "AssignAdd", "AssignSub") and len(ins) == 2 and type(ins[0]) is Var:
            # the Var first and an integer constant second (`global_step + 1`); the rest is not followed
            op, x, c = "sub" if "Sub" in name else "add", ins[0], ins[1]
        elif name == "Add" and len(ins) == 2 and type(ins[1]) is Var:
            op, x, c = "add", ins[1], ins[0]
        elif name in _RESHAPES and len(ins) == 1:
            op, x = "reshape", ins[0]
        elif name == "Cast" and len(ins) == 1:
            op, x = "cast", ins[0]
        elif name == "Assign" and len(ins) == 2:  # its output is the value, as the variable holds it
            op, x = "assign", ins[1]
        else:
            return None
        if type(x) is not Var or x.dtype.kind not in "iu":
            return None
        same = tuple(x.shape) == shape and np.dtype(x.dtype) == dtype
        if op in ("add", "sub"):
            if not (_int_constant(c) or (type(c) is int and not isinstance(c, bool))):
                return None
            if np.broadcast_shapes(tuple(x.shape), np.shape(c)) != shape:
                return None  # (a broadcast the device does otherwise is not followed)
            steps.append((op, np.asarray(c).astype(dtype)))
            if np.dtype(x.dtype) != dtype:
                steps.append(("cast", dtype))  # applied first: the sum in the output's dtype
        elif op == "reshape" and tuple(x.shape) != shape:
            steps.append(("reshape", shape))
        elif op == "cast" and np.dtype(x.dtype) != dtype:
            steps.append(("cast", dtype))
        elif op == "assign" and not same:
            steps.append(("assign", (shape, dtype)))
        v = x
    if type(src) is not Var or src.dtype.kind not in "iu":
        return None
    return tuple(reversed(steps))


def predict(value: np.ndarray, steps: tuple) -> np.ndarray:
    """The new value of a state from its old `value` on the host, by the `steps` of `successors` (read-only: it is
    kept as the value of the state's new array, `known_values`)."""
    for step, arg in steps:
        value = _HOST_STEPS[step](value, arg)
    value.flags.writeable = False
    return value


def passes(tests: tuple, leaves: list) -> bool | None:
    """Run the tests on a call's input arrays: True when every value is in range, False when one is not (or
    cannot be read on the host: a value being traced), None when an argument read has another shape or dtype
    than the program was recorded for."""
    for prim, kw, specs in tests:
        args = []
        for spec in specs:
            kind = spec[0]
            if kind == "leaf":
                _, i, shape, dtype, steps = spec
                v = _host_value(leaves[i], shape, dtype, steps)
                if v is None or v is False:
                    return v
                args.append(v)
            else:
                args.append(spec[1])
        try:
            ok, _ = prim.bounds.host_check(args, kw)
        except Exception:  # noqa: BLE001  (a test the host cannot run: the checked program decides)
            return False
        if not ok:
            return False
    return True


def tester(tests: tuple):
    """`passes(tests, leaves)` as one function `run(leaves, state)` of the leaves, its specs unpacked once (`state`:
    the program's state arrays, after the leaves, when a test reads one: `run.last_read >= len(leaves)`; see `find`;
    a state array's value comes from `known_values` when the host knows it): each test's `Bounds.test` is called
    directly with NumPy, on the argument values and the `ShapeOnly` stand-ins (what `Bounds.host_check` would hand
    it from these inputs, without its per-input loop: the LeNet5 step's label test takes 2.4 us of CPU instead of
    3.0). `passes` stays the reference it is tested against.
    """
    plans = []
    for prim, kw, specs in tests:
        fixed = [spec[1] for spec in specs]  # ShapeOnly stand-ins and constants, as host_check passes them
        reads = tuple((j, *spec[1:]) for j, spec in enumerate(specs) if spec[0] == "leaf")
        plans.append((prim.bounds.test, {**kw, "xp": np}, fixed, reads, tuple(r[1] for r in reads)))
    # the argument arrays each test last passed on: backend arrays are immutable, so the same ones pass again (a
    # graph network's edge lists, passed unchanged each step, are tested once)
    passed: list = [None] * len(plans)

    reads_state = max((i for plan in plans for i in plan[4]), default=-1)

    def run(leaves: list, state: list | None = None) -> bool | None:
        n = len(leaves)
        if reads_state >= n:
            leaves = [*leaves, *state]
        for k, (test, kw, fixed, reads, read_leaves) in enumerate(plans):
            arrays = [leaves[i] for i in read_leaves]
            last = passed[k]
            if last is not None and all(map(operator.is_, last, arrays)):
                continue
            args = fixed.copy()
            for j, i, shape, dtype, steps in reads:
                # a state array's value may be known on the host without waiting for the device (`successors`)
                v = (_host_value if i < n else _state_value)(leaves[i], shape, dtype, steps)
                if v is None or v is False:
                    return v
                args[j] = v
            try:
                ok, _ = test(*args, **kw)
            except Exception:  # noqa: BLE001  (a test the host cannot run: the checked program decides)
                return False
            if not ok:
                return False
            # (a NumPy array may change in place: tested at each call)
            passed[k] = arrays if arrays and not any(isinstance(a, np.ndarray) for a in arrays) else None
        return True

    run.last_read = reads_state  # the last input position a test reads: a state input when past the leaves
    return run


def to_names(tests: tuple) -> list | None:
    """The tests with each primitive by its registered name (kept on disk with the executable); None when one is
    not registered under its name."""
    if any(REGISTRY.get(prim.name) is not prim for prim, _, _ in tests):
        return None
    return [(prim.name, kw, specs) for prim, kw, specs in tests]


def from_names(named) -> tuple | None:
    """The inverse of `to_names` (None stays None)."""
    if named is None:
        return None
    return tuple((REGISTRY[name], kw, specs) for name, kw, specs in named)


__all__ = ["find", "from_names", "passes", "predict", "successors", "tester", "to_names"]
