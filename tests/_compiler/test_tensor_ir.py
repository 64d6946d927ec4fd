"""Kiln's tensor IR: the recorded text form, each pass on a crafted graph, and lowering of nested graphs."""

import numpy as np
import pytest

import kiln as ms
from kiln import Parameter, Tensor, ops
from kiln._compiler import passes as passes
from kiln._compiler.ir import graph as G
from kiln._compiler.lower import eval_graph
from kiln._core import random_state
from kiln._core.primitive import REGISTRY

P = REGISTRY


def _graph(build, *shapes):
    """Record `build(trace, *inputs)` (returning output Vars) as a graph over f32 inputs of `shapes`."""
    trace = G.Trace(name="crafted")
    xs = [trace.new_input(s, np.float32) for s in shapes]
    with G.recording(trace):
        outs = build(trace, *xs)
    return trace.graph(list(outs))


def _run(graph, *arrays):
    return [np.asarray(v) for v in eval_graph(graph, list(arrays))]


def _inputs(graph, seed=0):
    rng = np.random.default_rng(seed)
    return [rng.standard_normal(v.shape).astype(np.float32) for v in graph.invars]


def _check_pass(name, build, shapes, removed_at_least):
    graph = _graph(build, *shapes)
    arrays = _inputs(graph)
    before, n_before = _run(graph, *arrays), graph.count()
    changes = dict(passes.run(graph, skip=tuple(n for n, _ in passes.PASSES if n != name)))[name]
    after = _run(graph, *arrays)
    assert changes >= removed_at_least and graph.count() <= n_before - removed_at_least, (changes, str(graph))
    for a, b in zip(before, after, strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-6)
    return graph


def test_printed_form_is_stable():
    def build(t, x, w):
        y = t.bind(P["MatMul"], (False, False), [x, w])
        return [t.bind(P["Add"], (), [y, np.float32(1.0)])]

    text = str(_graph(build, (2, 3), (3, 4)))
    ids = [v for v in text.replace("(", " ").replace(")", " ").replace(",", " ").split() if v.startswith("%")]
    rename = {old: f"%{i}" for i, old in enumerate(dict.fromkeys(v.rstrip(":") for v in ids))}
    for old, new in sorted(rename.items(), key=lambda kv: -len(kv[0])):
        text = text.replace(old + ":", new + ":").replace(old + ",", new + ",").replace(old + ")", new + ")")
    assert text == (
        "crafted(%0: f32[2,3], %1: f32[3,4]) {\n"
        "  %2: f32[2,4] = MatMul[transpose_a=False, transpose_b=False](%0, %1)\n"
        "  %3: f32[2,4] = Add(%2, 1.0:f32[])\n"
        "  return (%3)\n"
        "}"
    )


def test_simplify_removes_identities():
    def build(t, x):
        a = t.bind(P["Mul"], (), [x, np.float32(1.0)])
        b = t.bind(P["Add"], (), [a, np.zeros((), np.float32)])
        c = t.bind(P["Transpose"], ((1, 0),), [b])
        d = t.bind(P["Transpose"], ((1, 0),), [c])
        e = t.bind(P["Cast"], (np.dtype(np.float32),), [d])
        return [t.bind(P["Neg"], (), [t.bind(P["Neg"], (), [e])])]

    graph = _check_pass("simplify", build, [(3, 2)], 5)
    assert [e.name for e in graph.eqns if e.name not in ("Transpose", "Neg")] == []


def test_cse_merges_repeated_work():
    def build(t, x, w):
        a = t.bind(P["MatMul"], (False, False), [x, w])
        b = t.bind(P["MatMul"], (False, False), [x, w])
        return [t.bind(P["Add"], (), [a, b])]

    graph = _check_pass("cse", build, [(2, 3), (3, 2)], 1)
    assert sum(e.name == "MatMul" for e in graph.eqns) == 1


def test_cse_keeps_each_narrowing_cast():
    # Shared, a float16 cast's uses would sum their gradients in float16 (see the gradient test below)
    def build(t, x):
        a = t.bind(P["Cast"], (np.dtype(np.float16),), [x])
        b = t.bind(P["Cast"], (np.dtype(np.float16),), [x])
        c = t.bind(P["Cast"], (np.dtype(np.float32),), [t.bind(P["Add"], (), [a, b])])
        return [t.bind(P["Add"], (), [t.bind(P["Exp"], (), [x]), t.bind(P["Exp"], (), [x])]), c]

    graph = _check_pass("cse", build, [(3,)], 1)
    assert [e.name for e in graph.eqns].count("Cast") == 3 and [e.name for e in graph.eqns].count("Exp") == 1


class _RepeatedHalfCast(ms.nn.Cell):
    def __init__(self):
        super().__init__()
        self.w = Parameter(Tensor(np.ones(2, np.float32)), name="w")

    def construct(self, x):
        out = 0
        for t in range(5):
            out = out + (ops.cast(self.w, ms.float16) * x[t]).astype(ms.float32).sum()
        return out


@pytest.mark.parametrize("mode", ["PYNATIVE_MODE", "GRAPH_MODE"])
def test_gradient_of_repeated_half_casts_sums_in_the_input_dtype(mode):
    # Each cast sends its float16 gradient back to the float32 weight, summed there: 5 * 1001 = 5005, as MindSpore 2.10
    # gives in both modes (the zoo's ATAE-LSTM casts its LSTM weights to float16 at every time step). Kiln's GRAPH_MODE
    # shared the five casts and summed in float16: 5004.
    net = _RepeatedHalfCast()
    ms.set_context(mode=getattr(ms, mode))
    try:
        grad = ops.GradOperation(get_by_list=True)(net, ms.ParameterTuple(net.trainable_params()))
        (g,) = grad(Tensor(np.full((5, 2), 1001.0, np.float16)))
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    assert g.dtype == ms.float32
    np.testing.assert_array_equal(g.asnumpy(), [5005.0, 5005.0])


def test_dce_drops_unused_work_but_keeps_effects():
    def build(t, x):
        t.bind(P["Exp"], (), [x])  # unused
        t.emit("callback", [x], [], {"fn": lambda v: None})  # an effect: kept
        return [t.bind(P["Neg"], (), [x])]

    graph = _check_pass("dce", build, [(4,)], 1)
    assert [e.name for e in graph.eqns] == ["callback", "Neg"]


def test_fold_computes_constant_equations():
    def build(t, x):
        c = np.arange(4, dtype=np.float32)
        k = t.emit("cond", [np.bool_(True), c], [((4,), np.float32)], _branches(t))[0]  # constant operands
        return [t.bind(P["Mul"], (), [x, k])]

    # Folding needs constant inputs: inline the constant cond first, then its Exp folds.
    graph = _graph(build, (4,))
    arrays = _inputs(graph)
    before = _run(graph, *arrays)
    stats = dict(passes.run(graph, skip=("simplify", "cse", "dce")))
    assert stats["inline"] == 1 and stats["fold"] >= 1
    assert [e.name for e in graph.eqns] == ["Mul"]
    np.testing.assert_allclose(_run(graph, *arrays)[0], before[0], rtol=1e-6)


def _branches(parent):
    """then: exp(c); else: -c, as nested graphs over one operand."""
    graphs = {}
    for name, prim in (("then", "Exp"), ("else", "Neg")):
        sub = G.Trace(parent, name)
        c = sub.new_input((4,), np.float32)
        with G.recording(sub):
            out = sub.bind(P[prim], (), [c])
        graphs[name] = G.Graph([c], sub.eqns, [out], name)
    return graphs


def test_inline_takes_the_branch_of_a_constant_condition():
    def build(t, x):
        return t.emit("cond", [np.bool_(False), x], [((4,), np.float32)], _branches(t))

    graph = _check_pass("inline", build, [(4,)], 1)
    assert [e.name for e in graph.eqns] == ["Neg"]


def test_cond_runs_only_the_taken_branch(capsys):
    @ms.jit
    def f(x):
        if x.sum() > 0:
            print("then")
            y = ops.log(x)
        else:
            print("else")
            y = x * x
        return y

    capsys.readouterr()
    f(Tensor([1.0, 2.0])).asnumpy()
    f(Tensor([-1.0, -2.0])).asnumpy()
    f(Tensor([3.0, 2.0])).asnumpy()
    assert capsys.readouterr().out.split() == ["then", "else", "then"]  # at run time, per call, one branch
    graph = next(iter(f._cache.entries.values()))[0].graph
    assert [e.name for e in graph.eqns].count("cond") == 1


def test_recording_changes_no_parameter_and_no_random_state(monkeypatch):
    w = Parameter(Tensor(np.ones(3, np.float32)), name="w")

    @ms.jit
    def step(x):
        ops.assign(w, w * 2 + ops.uniform((3,), Tensor(0.0), Tensor(1.0)))
        return w + x

    before_data, before_key = w._data, random_state.current_key()
    seen = []
    bind = G.Trace.bind

    def spying_bind(self, prim, attrs, inputs):  # looks at the real state while each op is recorded
        seen.append((Tensor._data.__get__(w, Parameter), random_state._host_key()))
        return bind(self, prim, attrs, inputs)

    monkeypatch.setattr(G.Trace, "bind", spying_bind)
    step(Tensor(np.zeros(3, np.float32)))
    assert len(seen) >= 4
    assert all(data is before_data and key is before_key for data, key in seen)
    assert w._data is not before_data  # the compiled graph's output was written back when it ran


@pytest.mark.parametrize("n", [0, 3, 40])
def test_while_gradient_matches_finite_differences(n):
    def f(x, k):
        i = Tensor(0)
        while i < k:
            x = ops.sin(x) * 1.1 + 0.1
            i = i + 1
        return (x * x).sum()

    x = Tensor(np.array([0.3, -0.7], np.float32))
    g = ms.jit(ms.grad(f))(x, Tensor(n)).asnumpy()

    def f64(v):
        for _ in range(n):
            v = np.sin(v) * 1.1 + 0.1
        return (v * v).sum()

    eps = 1e-6
    x64 = x.asnumpy().astype(np.float64)
    fd = np.array([(f64(x64 + eps * e) - f64(x64 - eps * e)) / (2 * eps) for e in np.eye(2)])
    np.testing.assert_allclose(g, fd, rtol=2e-3, atol=1e-5)


def test_while_gradient_past_the_state_buffer_is_exact(monkeypatch):
    # Iterations beyond the buffer are recomputed from its last state: force a tiny buffer.
    from kiln._compiler import lower

    monkeypatch.setattr(lower, "_buffer_len", lambda carry: 4)

    def f(x, k):
        i = Tensor(0)
        while i < k:
            x = x * 0.9 + ops.sin(x)
            i = i + 1
        return x.sum()

    x = Tensor(np.array([0.2, 0.5], np.float32))
    expected = ms.grad(f)(x, Tensor(10)).asnumpy()  # PyNative: the loop runs as Python
    np.testing.assert_allclose(ms.jit(ms.grad(f))(x, Tensor(10)).asnumpy(), expected, rtol=1e-5)
