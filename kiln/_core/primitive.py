"""The primitive declaration: one record per op, read by every execution path.

A `PrimitiveDef` names an op, lists its attributes with their defaults, gives
its backend implementation (a pure function of backend arrays), an optional
`check` that validates inputs and raises MindSpore-style messages, and an
optional hand-written derivative, and optional `Bounds`: a data-dependent check
(indices, class labels) that shapes cannot decide. PyNative dispatch, the
autograd tape and the graph compiler all read these records; nothing else
describes an op.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

import numpy as np

from kiln._backend import ShapeDtypeStruct, eval_shape, float0, is_tracer, vjp
from kiln._core import dtype as mstype
from kiln._core import known_values

REGISTRY: dict[str, PrimitiveDef] = {}
# how many in-place changes were made to Primitive instances that a layer holds or a compiled program read: a strategy
# set (`Primitive.shard`) or an attribute that changes what the primitive computes (`watch_edits`). A layer holding
# primitives looks at them again when it grows (nn/layer/_held.py); a compiled graph guards each primitive's own
# count instead (`WATCH_MARK`), so a change compiles again only the programs that read that primitive.
PRIMITIVE_EDITS = {"generation": 0}
# MindSpore's Primitive attributes that name or schedule the op but never change its result: set without a count
NAMING_ATTRS = frozenset({"instance_name", "recompute", "primitive_target"})
_SAME_BY_VALUE = (int, float, bool, str, complex, bytes, type(None))


def same_value(old, new) -> bool:
    """Whether an attribute set to `new` keeps `old` (the same object, or an equal scalar or tuple of scalars): setting
    a layer's or a primitive's attribute to what it holds changes nothing a program computed from it."""
    if old is new:
        return True
    t = type(old)
    if t is not type(new):
        return False
    if t in _SAME_BY_VALUE:
        return old == new
    if t is tuple and len(old) == len(new):
        return all(same_value(a, b) for a, b in zip(old, new, strict=True))
    return False


# the key, in the __dict__ of a primitive or a library Cell whose changed attributes are counted, of its own count of
# such changes: a compiled program guards the counts of the objects it read
WATCH_MARK = "_edits_watched"


def watch_edits(value) -> None:
    """Count later changes to `value`'s attributes if it is a Primitive (held by a layer, or read by a program being
    compiled): `Primitive.__setattr__` then bumps its count (and `PRIMITIVE_EDITS`) for an attribute that changes its
    result. Unwatched primitives (made and configured inside a run) change nothing compiled: theirs count nothing."""
    if getattr(type(value), "_counts_edits", False):
        value.__dict__.setdefault(WATCH_MARK, 0)


def count_edit(d: dict) -> None:
    """One more change to the watched object whose __dict__ is `d`: each program that read it compiles again."""
    d[WATCH_MARK] = d[WATCH_MARK] + 1


def edit_guard(value) -> tuple | None:
    """(its __dict__, `WATCH_MARK`, its count) for a watched primitive or library Cell `value`, else None."""
    d = getattr(value, "__dict__", None)
    if type(d) is dict and WATCH_MARK in d:
        return d, WATCH_MARK, d[WATCH_MARK]
    return None


@dataclass(frozen=True, slots=True)
class AbstractTensor:
    """What the compiler and `check` functions know of a tensor: shape and dtype."""

    shape: tuple[int, ...]
    dtype: mstype.DType

    @property
    def ndim(self) -> int:
        return len(self.shape)

    def __str__(self) -> str:
        return f"Tensor[{self.dtype}]{list(self.shape)}"


def op_error(op: str, message: str, kind: type[Exception] = ValueError) -> Exception:
    """An exception in MindSpore's voice: "For 'Op', message"."""
    return kind(f"For '{op}', {message}")


def forward_mode_error(op: str) -> NotImplementedError:
    """The error of forward-mode differentiation (ops.jvp, jacfwd, ...) through `op`, which the backend cannot
    differentiate forward: computed on the host (the Bessel K and Y functions, a PyFunc), or its derivative written
    for reverse mode only. PyNative's dispatch and the compiled graph's lowering raise it in the same words."""
    return op_error(
        op,
        "forward-mode differentiation (ops.jvp, jacfwd, linearize, the Taylor modes) is not implemented: the op "
        "runs on the host or has a reverse-mode derivative only. Take the derivative in reverse mode (ops.grad, "
        "ops.vjp, jacrev) instead.",
        NotImplementedError,
    )


class Bounds:
    """A check of input *values* (indices, class labels) that a primitive declares beside its `impl`.

    The backend clamps or drops an out-of-range index without a word; MindSpore refuses it. Shapes
    cannot tell, so the check is a computation on the input values, usable in two places:

    - in a compiled graph, traced with the op (`xp` left at its default, the backend's jnp):

          ok, detail = bounds.test(*arrays, **attrs)      # two more outputs of the graph
          ...                                            # after the run, on the host:
          if not ok:
              raise bounds.error(op_name, detail, attrs)

    - in PyNative, on the host: `bounds.host_check(arrays, attrs)` copies only the inputs at
      `reads` (small index tensors) to NumPy and runs the same test with `xp=numpy`, so the
      check never waits for the op itself or for the device work queued before it.

    Args:
        test: `test(*arrays, xp=jnp, **attrs) -> (ok, detail)`, a pure function of the op's inputs
            (backend arrays; Python scalars and None where `impl` gets them) and attributes,
            written against the array namespace `xp` (jnp or numpy). Inputs outside `reads` may be
            shape/dtype stand-ins: read only their `.shape`, `.ndim` and `.dtype` (np.shape(x)...).
            With jnp there is no Python control flow on array values, so it traces inside any
            compiled program. `ok` is a boolean scalar, True when every value is in range.
            `detail` is a 1-D int64 array of a length fixed by the input shapes and attributes,
            describing the first offending element (its value, the bound, the axis, its position...);
            it is computed whether or not `ok` holds and only meaningful when it does not. With
            numpy the test may return `(True, None)` at once when everything is in range.
        message: `message(detail, **attrs) -> str`, called on the host with `detail` as a tuple of
            Python ints, only when `ok` is False. It returns the text after "For 'Op', ".
        kind: the exception class raised (IndexError for indices, ValueError for labels).
        reads: positions of the inputs whose values the test reads (a tuple or a range); the
            others are only looked at for their shape and dtype. Default: every input.
        idle: `idle(**attrs) -> bool`, True when with these attributes the test reads no input value
            (an index made of attributes and ints checked before the op): PyNative then skips it.

    Checks are on by default; `KILN_CHECKS=off` in the environment or
    `set_context(runtime_checks=False)` turns them off (see `checks_enabled`).
    """

    __slots__ = ("test", "message", "kind", "reads", "idle")

    def __init__(
        self,
        test: Callable,
        message: Callable,
        kind: type[Exception] = IndexError,
        *,
        reads=None,
        idle: Callable[..., bool] | None = None,
    ) -> None:
        self.test = test
        self.message = message
        self.kind = kind
        self.reads = reads
        self.idle = idle

    def error(self, op: str, detail, attrs: dict[str, Any]) -> Exception:
        """The exception for a failed check, from the concrete `detail` array the test returned."""
        values = tuple(int(v) for v in np.asarray(detail).reshape(-1))
        return op_error(op, self.message(values, **attrs), self.kind)

    def host_check(self, arrays, attrs: dict[str, Any]):
        """(ok, detail) for concrete inputs, computed with NumPy on the host.

        Integer inputs at `reads` are copied to the host (a backend array keeps its host copy, so
        a second check of the same index tensor copies nothing; a small one whose value the host knows,
        `known_values`, is not read); every other array is passed as a
        shape/dtype stand-in. Returns (True, None) without running the test when an input read is
        symbolic (being traced): a compiled graph checks it itself.
        """
        reads, host = self.reads, []
        for i, a in enumerate(arrays):
            dtype = getattr(a, "dtype", None)
            if dtype is None or isinstance(a, np.ndarray):
                host.append(a)
            elif (reads is None or i in reads) and np.dtype(dtype).kind in "iu":
                if is_tracer(a):
                    return True, None
                # a small integer array the host knows (a global step an optimizer step predicted) is not read
                # back: the read would wait for the device
                v = known_values.value(a)
                if v is None:
                    v = np.asarray(a)
                    known_values.remember(a, v)
                host.append(v)
            else:
                host.append(ShapeOnly(tuple(a.shape), dtype))
        return self.test(*host, xp=np, **attrs)


class IndexValueError(IndexError, ValueError):
    """An index out of range where MindSpore raises ValueError (ScatterNdUpdate, TensorScatterUpdate): both a
    user's `except IndexError` (Python's class for it) and `except ValueError` (MindSpore's) catch it."""


class ShapeOnly:
    """Shape and dtype of an input a host-side `Bounds` test does not read (np.shape / np.ndim work on it)."""

    __slots__ = ("shape", "dtype")

    def __init__(self, shape: tuple, dtype) -> None:
        self.shape, self.dtype = shape, dtype

    @property
    def ndim(self) -> int:
        return len(self.shape)

    def __repr__(self) -> str:
        return f"ShapeOnly({self.shape}, {self.dtype})"


_checks = {"on": os.environ.get("KILN_CHECKS", "on").strip().lower() not in ("off", "0", "false", "no")}
_checks_listeners: list[Callable[[bool], None]] = []


def checks_enabled() -> bool:
    """Whether `Bounds` checks run (default on; `KILN_CHECKS=off` or `set_context(runtime_checks=False)`)."""
    return _checks["on"]


def set_checks(enabled: bool) -> None:
    """Turn `Bounds` checks on or off; listeners (e.g. graph caches that compiled checks in) are told."""
    enabled = bool(enabled)
    if enabled != _checks["on"]:
        _checks["on"] = enabled
        for listener in _checks_listeners:
            listener(enabled)


def on_checks_change(listener: Callable[[bool], None]) -> None:
    """Register `listener(enabled)`, called when `set_checks` changes the setting (to drop compiled code)."""
    _checks_listeners.append(listener)


class PrimitiveDef:
    """Declaration of one primitive.

    Args:
        name: MindSpore's name for the op ("MatMul", "BiasAdd").
        impl: backend function `impl(*arrays, **attrs) -> array | tuple[array, ...]`.
        attrs: attribute names with their defaults, in declaration order.
        check: `check(*abstract_inputs, **attrs)`; raises `op_error(...)` on bad input. It may read the inputs'
            shapes and dtypes, the attributes and the types of Python scalar inputs (not their values: a check of
            values is `bounds`). GRAPH_MODE runs it when the op is traced; PyNative the first time each input
            signature meets the op (`validate`), so the backend never runs an input the check refuses.
        vjp: hand-written derivative `vjp(*inputs, out, dout, **attrs) -> tuple`
            of backend arrays (one cotangent per input, None where not differentiable).
            Omitted: derived from the backend's own vjp of `impl`.
        nondiff: input positions that never get gradients (indices, keys, masks): no cotangent flows there, the
            gradient of a Tensor given there is zero (as MindSpore's bprop returns zeros for them).
        differentiable: False for an op with no derivative at all (a user's Python function): a gradient asked
            through it raises (MindSpore: "bprop not defined"); every input is then nondiff.
        multiple_results: `impl` returns a tuple.
        effect: "write0" for state updates: the result replaces input 0 (a Parameter); "host" for an op that runs
            the user's Python on the host (its side effects happen once per call: PyNative runs it at its line,
            never in the lazy window, whose failure reruns the window op by op; in a compiled graph `impl` is called
            with `ordered=True` and must then be an effect the backend keeps, in order); "raise" for a check whose
            failure is its effect.
        random: input 0 is a PRNG key supplied by the random-state owner.
        bounds: a `Bounds` check of input values (indices, labels) that runs with every call
            while checks are enabled; a failure raises before any result or state is visible.
        shapes: `shapes(*structs, **attrs) -> ShapeDtypeStruct | tuple`, the output types computed more cheaply
            than by tracing `impl` (abstract evaluation traces `impl` without it); it must give `impl`'s types.
        amp_cast: inside a Cell run in low precision (`to_float`, the fp16/bf16 flags), the op's floating-point
            Tensor inputs are cast to the Cell's dtype first, as MindSpore's PyNative does. False for the ops
            MindSpore leaves as given there: Cast (its own dtype decides), the views (Reshape, Transpose,
            ExpandDims, ...) and the *Like fills.
        amp_keep: input positions holding state the op updates (BatchNorm's moving statistics, an optimizer's
            parameters and moments; an in-place write's target is always kept): never cast there, as MindSpore
            leaves a written Parameter's dtype. A function of the attributes when the positions depend on them
            (a multi-tensor optimizer step: `amp_keep(**attrs) -> positions`).
        amp_auto: what amp level 'auto' does to the op's floating-point inputs (MindSpore 2.10's op lists, set by
            kiln/_prims/amp_auto.py): "low" casts them to the low-precision dtype, "full" casts half-precision ones
            to float32, "promote" casts them to the widest floating-point dtype among them; None runs the op on
            its inputs as given.
        amp_o1: whether amp level O1 casts the op (MindSpore 2.10's AMP_WHITE_LIST primitives, set by
            kiln/_prims/amp_auto.py): inside such a network its floating-point inputs go to the low-precision
            dtype and its floating-point outputs come back as float32.
        increments: outputs that are an integer input plus a constant, `{output: (input, constant)}` (a multi-tensor
            optimizer step's global step + 1): the compiler then knows such a value on the host without reading it
            back from the device (`_compiler/input_checks.successors`).
    """

    __slots__ = (
        "name", "impl", "attr_names", "attr_defaults", "check", "custom_vjp", "nondiff",
        "differentiable", "multiple_results", "effect", "random", "bounds", "shapes", "amp_cast",
        "amp_keep", "amp_auto", "amp_o1", "increments", "_backward",
    )  # fmt: skip

    def __init__(
        self,
        name: str,
        impl: Callable,
        *,
        attrs: dict[str, Any] | None = None,
        check: Callable | None = None,
        vjp: Callable | None = None,
        nondiff: tuple[int, ...] = (),
        differentiable: bool = True,
        multiple_results: bool = False,
        effect: str | None = None,
        random: bool = False,
        bounds: Bounds | None = None,
        shapes: Callable | None = None,
        amp_cast: bool = True,
        amp_keep: tuple[int, ...] | Callable[..., Iterable[int]] = (),
        increments: dict[int, tuple[int, int]] | None = None,
    ) -> None:
        if name in REGISTRY:
            raise RuntimeError(f"primitive {name!r} is declared twice")
        self.name = name
        self.impl = impl
        attrs = attrs or {}
        self.attr_names = tuple(attrs)
        self.attr_defaults = tuple(attrs.values())
        self.check = check
        self.custom_vjp = vjp
        # (an op with no derivative: every position its inputs may take)
        self.nondiff = frozenset(range(64) if not differentiable else nondiff) | ({0} if random else frozenset())
        self.differentiable = differentiable
        self.multiple_results = multiple_results
        self.effect = effect
        self.random = random
        self.bounds = bounds
        self.shapes = shapes
        self.amp_cast = amp_cast
        self.amp_auto: str | None = None
        self.amp_o1 = False
        written = frozenset({0} if effect == "write0" else ())
        self.amp_keep = (
            (lambda **kw: frozenset(amp_keep(**kw)) | written)
            if callable(amp_keep)
            else (frozenset(amp_keep) | written)
        )
        self.increments = increments or {}
        self._backward: dict[tuple, PrimitiveDef] = {}
        REGISTRY[name] = self

    def __repr__(self) -> str:
        return f"PrimitiveDef({self.name})"

    # -- attributes ---------------------------------------------------------------
    def attrs_dict(self, values: tuple) -> dict[str, Any]:
        return dict(zip(self.attr_names, values, strict=True))

    def amp_kept(self, attrs: tuple) -> frozenset:
        """The input positions `amp_keep` declares for a call with attribute values `attrs`."""
        keep = self.amp_keep
        return keep if type(keep) is frozenset else keep(**self.attrs_dict(attrs))

    # -- abstract evaluation ---------------------------------------------------------
    def validate(self, inputs: tuple, kw: dict[str, Any]) -> tuple:
        """Run `check` (when declared) on `inputs` (Tensors, backend arrays, tracers, abstract values, Python
        scalars) seen as GRAPH_MODE's trace sees them: arrays as AbstractTensors, anything else as given. Returns
        the abstract inputs."""
        abstract = tuple(_to_abstract(x) for x in inputs)
        if self.check is not None:
            self.check(*abstract, **kw)
        return abstract

    def abstract_eval(self, inputs: tuple, attrs: tuple) -> Any:
        """Output AbstractTensor(s) for abstract or concrete inputs; runs `check` first."""
        kw = self.attrs_dict(attrs)
        abstract = self.validate(inputs, kw)
        structs = tuple(ShapeDtypeStruct(a.shape, a.dtype.np) if isinstance(a, AbstractTensor) else a for a in abstract)
        if self.shapes is not None:
            out = self.shapes(*structs, **kw)
        else:
            out = eval_shape(lambda *xs: self.impl(*xs, **kw), *structs)
        if self.multiple_results:
            return tuple(AbstractTensor(tuple(o.shape), mstype.from_np(o.dtype)) for o in out)
        return AbstractTensor(tuple(out.shape), mstype.from_np(out.dtype))

    # -- derivatives -------------------------------------------------------------------
    def backward(self, diff_mask: tuple[bool, ...]) -> PrimitiveDef:
        """The primitive computing input cotangents from (*inputs, *output_cotangents).

        It is an ordinary primitive, so the tape can record it and differentiate
        it again: that is how higher-order gradients work.
        """
        bwd = self._backward.get(diff_mask)
        if bwd is None:
            bwd = _make_backward(self, diff_mask)
            self._backward[diff_mask] = bwd
        return bwd


def _to_abstract(x):
    if isinstance(x, AbstractTensor):
        return x
    shape = getattr(x, "shape", None)
    if shape is not None and hasattr(x, "dtype"):
        dt = x.dtype if isinstance(x.dtype, mstype.DType) else mstype.from_np(x.dtype)
        return AbstractTensor(tuple(shape), dt)
    return x


def _make_backward(prim: PrimitiveDef, diff_mask: tuple[bool, ...]) -> PrimitiveDef:
    n_in = len(diff_mask)
    positions = tuple(i for i, d in enumerate(diff_mask) if d)

    if prim.custom_vjp is not None:
        rule = prim.custom_vjp

        def impl(*args, **attrs):
            inputs, rest = args[:n_in], args[n_in:]
            out = prim.impl(*inputs, **attrs)
            dout = rest if prim.multiple_results else rest[0]
            grads = rule(*inputs, out=out, dout=dout, **attrs)
            return tuple(grads[i] for i in positions)

    else:

        def impl(*args, **attrs):
            inputs, cots = args[:n_in], args[n_in:]

            def fn(*diff):
                full = list(inputs)
                for i, v in zip(positions, diff, strict=True):
                    full[i] = v
                return prim.impl(*full, **attrs)

            primal, pullback = vjp(fn, *(inputs[i] for i in positions))
            outs = primal if prim.multiple_results else (primal,)
            # Integer outputs (indices) take float0 cotangents in the backend's vjp.
            cots = tuple(
                c if _is_inexact(o.dtype) else np.zeros(o.shape, float0) for o, c in zip(outs, cots, strict=True)
            )
            return tuple(pullback(cots if prim.multiple_results else cots[0]))

    name = f"{prim.name}Grad[{''.join('1' if d else '0' for d in diff_mask)}]"
    bwd = PrimitiveDef.__new__(PrimitiveDef)
    bwd.name = name
    bwd.impl = impl
    bwd.attr_names, bwd.attr_defaults = prim.attr_names, prim.attr_defaults
    bwd.check = None
    bwd.custom_vjp = None
    bwd.nondiff = frozenset()
    bwd.differentiable = True
    bwd.multiple_results = True
    bwd.effect = None
    bwd.random = False
    bwd.bounds = None  # the forward call already checked the same inputs
    bwd.amp_cast = False  # a backward takes the forward's dtypes as they were
    bwd.amp_auto = None
    bwd.amp_o1 = False
    bwd.amp_keep = frozenset()
    bwd.increments = {}
    bwd._backward = {}
    return bwd


def _is_inexact(np_dtype) -> bool:
    return mstype.from_np(np_dtype).kind in "fc"
