"""A primitive's declared `check` runs in PyNative the first time each input signature meets the op, as GRAPH_MODE
runs it when it traces the op: a bad input the backend would accept (a shape that broadcasts, a dtype JAX promotes,
an attribute out of range) raises the same error class in both modes, instead of PyNative returning a value.

`CASES` are the bad calls `tools/check_scan.py` found PyNative running (session 19): the op table's own calls of
each primitive with a check, mutated (a dtype changed, a dimension added or dropped, an attribute pushed out of
range), on which the check refuses and, before the fix, PyNative returned the value noted beside each."""

from __future__ import annotations

import numpy as np
import pytest

import kiln
from kiln import Tensor
from kiln._core.primitive import REGISTRY, PrimitiveDef
from kiln._pynative import dispatch
from kiln._pynative.dispatch import apply

# (primitive, attributes, inputs: ("T", shape, dtype) for a Tensor, ("S", value) for anything else)
# fmt: off
CASES = [
    ("BesselK0", (), (("T", (3, 4), "|b1"),)),  # a bool input: PyNative returned Bool[3, 4]
    ("BesselK0e", (), (("T", (3, 4), "|b1"),)),  # Bool[3, 4]
    ("BesselK1", (), (("T", (3, 4), "|b1"),)),  # Bool[3, 4]
    ("BesselK1e", (), (("T", (3, 4), "|b1"),)),  # Bool[3, 4]
    ("BesselY0", (), (("T", (3, 4), "<c8"),)),  # a complex input: Complex64[3, 4]
    ("BesselY1", (), (("T", (3, 4), "<c8"),)),  # Complex64[3, 4]
    ("Bincount", (5,), (("T", (12,), "|b1"), ("S", None))),  # bool counts: Float32[5]
    ("CTCLoss", (7, False), (("T", (6, 2, 4), "<f4"), ("T", (2, 3), "<i4"), ("T", (2,), "<i8"), ("T", (2,), "<i8"))),
    # (blank=7 of 4 classes: Float32[2] and Float32[2, 6, 7])
    ("CTCLoss", (-9, False), (("T", (6, 2, 4), "<f4"), ("T", (2, 3), "<i4"), ("T", (2,), "<i8"), ("T", (2,), "<i8"))),
    ("Cdist", (0.0,), (("T", (2, 4, 3), "<f4"), ("T", (5, 3), "<f4"))),  # ranks 3 and 2: Float32[2, 4, 5]
    ("Cdist", (0.0,), (("T", (4, 3), "<f4"), ("T", (2, 5, 3), "<f4"))),  # Float32[2, 4, 5]
    ("Gcd", (), (("T", (3, 4), "|b1"), ("T", (3, 4), "|b1"))),  # bool with bool (MindSpore raises too)
    ("Im2Col", ((2, 2), (1, 1), (0, 0), (-9, 2)), (("T", (1, 2, 4, 4), "<f4"),)),  # dilation -9: Float32[1, 8, 0]
    ("SearchSorted", (False, False), (("T", (2, 7), "<f4"), ("T", (3, 4), "<f4"))),  # leading dims 2, 3: Int64[3, 4]
    ("SearchSorted", (True, True), (("T", (2, 6), "<f4"), ("T", (2, 2, 5), "<f4"))),  # Int32[2, 2, 5]
    ("SearchSorted", (True, True), (("T", (2, 6), "<f4"), ("T", (2,), "<f4"))),  # Int32[2]
    ("UnsortedSegmentMax", (3,), (("T", (), "<f4"), ("T", (5,), "<i4"))),  # a 0-d input: Float32[3]
    ("UnsortedSegmentMax", (3,), (("T", (5, 2), "<f4"), ("T", (2, 5), "<i4"))),  # ids not a prefix: Float32[3]
    ("UnsortedSegmentMin", (3,), (("T", (), "<f4"), ("T", (5,), "<i4"))),
    ("UnsortedSegmentMin", (3,), (("T", (5, 2), "<f4"), ("T", (2, 5), "<i4"))),
    ("UnsortedSegmentProd", (3,), (("T", (), "<f4"), ("T", (5,), "<i4"))),
    ("UnsortedSegmentProd", (3,), (("T", (5, 2), "<f4"), ("T", (2, 5), "<i4"))),
    ("UnsortedSegmentSum", (3,), (("T", (), "<f4"), ("T", (5,), "<i4"))),
    ("UnsortedSegmentSum", (3,), (("T", (5, 2), "<f4"), ("T", (2, 5), "<i4"))),
]
# fmt: on


def _inputs(spec) -> tuple:
    out = []
    for s in spec:
        if s[0] == "T":
            n = int(np.prod(s[1], dtype=np.int64))
            out.append(Tensor((np.arange(n) % 3).reshape(s[1]).astype(np.dtype(s[2]))))
        else:
            out.append(s[1])
    return tuple(out)


def _graph(prim: PrimitiveDef, attrs: tuple, args: tuple):
    """The op compiled in GRAPH_MODE (traced), its Tensors as the graph's inputs."""
    at = [i for i, a in enumerate(args) if isinstance(a, Tensor)]

    def fn(*tensors):
        full = list(args)
        for i, t in zip(at, tensors, strict=True):
            full[i] = t
        return apply(prim, tuple(full), attrs)

    return kiln.jit(fn, capture_mode="trace")(*(args[i] for i in at))


def _raised(run) -> type | None:
    try:
        out = run()
        for o in out if isinstance(out, tuple) else (out,):
            o.asnumpy()
    except (TypeError, ValueError, IndexError) as err:
        return type(err)
    return None


@pytest.mark.parametrize(("name", "attrs", "spec"), CASES, ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)])
def test_pynative_raises_what_graph_mode_raises(name, attrs, spec):
    prim = REGISTRY[name]
    graph = _raised(lambda: _graph(prim, attrs, _inputs(spec)))
    assert graph is not None, f"GRAPH_MODE ran {name} on {spec}"
    assert _raised(lambda: apply(prim, _inputs(spec), attrs)) is graph


_calls: list = []


def _counted_check(x, y):
    _calls.append((tuple(x.shape), tuple(y.shape)))
    if tuple(x.shape) != tuple(y.shape):
        raise ValueError("CountedCheck: the shapes must be equal")


COUNTED = REGISTRY.get("CountedCheck") or PrimitiveDef("CountedCheck", lambda x, y: x + y, check=_counted_check)


def test_check_runs_once_per_input_signature():
    """Calls with input types already seen find the checked kernel (or the window's cached output types): no check
    runs; a new signature is checked, and one the check refuses raises although the backend would broadcast it."""
    a, b = Tensor(np.ones((2, 3), np.float32)), Tensor(np.ones((2, 3), np.float32))
    apply(COUNTED, (a, b)).asnumpy()
    seen = len(_calls)
    for _ in range(3):
        np.testing.assert_array_equal(apply(COUNTED, (a, b)).asnumpy(), np.full((2, 3), 2.0, np.float32))
    assert len(_calls) == seen
    n = 5 + len(_calls)  # a size no earlier call had
    apply(COUNTED, (Tensor(np.ones((n,), np.float32)), Tensor(np.ones((n,), np.float32)))).asnumpy()
    assert ((n,), (n,)) in _calls[seen:]
    with pytest.raises(ValueError, match="CountedCheck"):
        apply(COUNTED, (a, Tensor(np.ones((3,), np.float32)))).asnumpy()


def test_a_full_signature_cache_keeps_caching(monkeypatch):
    """A process that has met MAX_KERNELS signatures still caches the new ones (the oldest goes): the check does not
    come back at every call of a long-running program (CI's earlier tests once filled the cache and it did)."""
    full = {("filler", i): None for i in range(dispatch.MAX_KERNELS)}
    monkeypatch.setattr(dispatch, "_avals", full)
    test_check_runs_once_per_input_signature()
    assert len(dispatch._avals) <= dispatch.MAX_KERNELS
