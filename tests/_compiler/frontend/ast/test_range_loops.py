"""`for i in range(N)` with N a Python int of at least `control.RANGE_LOOP_MIN` trips compiles to one `while`
with `i` a Tensor when its body allows it, and is unrolled otherwise (a body that needs `i` as a Python int, a
Tensor condition, `break`/`return`, a changed Python value, a mutated list, an attribute write, a host call).
Either way, values and gradients equal PyNative's and the unrolled loop's."""

from __future__ import annotations

import numpy as np
import pytest

import kiln as ms
from kiln import Parameter, Tensor, nn, ops
from kiln._compiler.frontend.ast import control
from tests._compiler.frontend.ast.modes import compiled

N = 24  # above RANGE_LOOP_MIN (16)
SHORT = control.RANGE_LOOP_MIN - 1


@pytest.fixture
def outcomes(monkeypatch):
    """The outcome of each loop tried as a compiled loop: True compiled, False unrolled. The bodies here are small:
    the size rule (`RANGE_LOOP_MIN_WORK`) is lifted so that the loops themselves decide (its own test sets it)."""
    monkeypatch.setattr(control, "RANGE_LOOP_MIN_WORK", 0)
    seen: list = []
    tried = control.range_loop

    def recording(ctx, hframe, node, slot):
        out = tried(ctx, hframe, node, slot)
        seen.append(out is not None)
        return out

    monkeypatch.setattr(control, "range_loop", recording)
    return seen


def _values(out) -> list:
    outs = out if isinstance(out, tuple) else (out,)
    return [np.asarray(o.asnumpy() if isinstance(o, Tensor) else o) for o in outs]


def _check(fn, args, mode, outcomes, compiles, monkeypatch, rtol=1e-6):
    """`fn` in `mode` equals PyNative and the unrolled loop; `compiles`: the outcome of every loop tried (None:
    no loop is tried)."""
    want = _values(fn(*args))
    got = _values(compiled(mode, fn)(*args))
    assert set(outcomes) == (set() if compiles is None else {compiles})
    monkeypatch.setattr(control, "RANGE_LOOP_MIN", 10**9)
    unrolled = _values(compiled(mode, fn)(*args))
    for w, g, u in zip(want, got, unrolled, strict=True):
        assert g.dtype == u.dtype and g.shape == w.shape
        np.testing.assert_allclose(g, w, rtol=rtol, atol=1e-6)
        np.testing.assert_allclose(g, u, rtol=rtol, atol=1e-6)


_X = Tensor(np.random.RandomState(0).standard_normal((5, 3)).astype(np.float32))
_IDX = Tensor((np.arange(N) * 3 % 5).astype(np.int32))


# -- compiled ------------------------------------------------------------------------------------------------


def _setitem(x):
    c = ops.zeros((N, 3), ms.float32)
    for i in range(N):
        c[i] = x[i % 5] * 2 + i
    return c


def _gather(x, idx):
    acc = ops.zeros((3,), ms.float32)
    for i in range(N):
        acc = acc + ops.gather(x, idx[i], 0) * 0.5 + x[idx[i]]
    return acc


def _accumulate(x):
    acc = x[0]
    big = x * 0
    for _ in range(N):
        acc = ops.sin(acc) + x[1]
        big = big + acc
    return acc, big


def _nested(x):
    c = ops.zeros((N, 3), ms.float32)
    for i in range(N):
        row = x[0] * 0
        for j in range(N):
            row = row + x[(i + j) % 5]
        c[i] = row
    return c


@pytest.mark.parametrize("mode", ["graph", "jit"])
@pytest.mark.parametrize(
    "fn, args",
    [(_setitem, (_X,)), (_gather, (_X, _IDX)), (_accumulate, (_X,)), (_nested, (_X,))],
    ids=["setitem", "gather", "accumulator", "nested"],
)
def test_a_long_range_loop_compiles_to_one_loop_with_pynatives_values(fn, args, mode, outcomes, monkeypatch):
    _check(fn, args, mode, outcomes, True, monkeypatch)


def test_the_compiled_loop_is_one_while_equation(outcomes):
    f = ms.jit(_setitem)
    f(_X)
    graph = next(iter(f._cache.entries.values()))[0].graph
    assert [e.name for e in graph.eqns].count("while") == 1 and outcomes == [True]


class _Scan(nn.Cell):
    def __init__(self):
        super().__init__()
        self.w = Parameter(Tensor(np.array([0.9, 1.1, 0.5], np.float32)), name="w")

    def construct(self, x):
        c = ops.zeros((N, 3), ms.float32)
        acc = x[0]
        for i in range(N):
            acc = ops.sin(acc * self.w) + x[i % 5]
            c[i] = acc
        return (c * c).sum() + acc.sum()


def _grads(mode):
    ms.set_context(mode=mode)
    net = _Scan()
    v, (gx, (gw,)) = ms.value_and_grad(net, grad_position=0, weights=net.trainable_params())(_X)
    return [v.asnumpy(), gx.asnumpy(), gw.asnumpy()]


def test_a_gradient_through_the_compiled_loop_equals_pynative_and_the_unrolled_loop(outcomes, monkeypatch):
    want = _grads(ms.PYNATIVE_MODE)
    got = _grads(ms.GRAPH_MODE)
    assert outcomes and all(outcomes)
    monkeypatch.setattr(control, "RANGE_LOOP_MIN", 10**9)
    unrolled = _grads(ms.GRAPH_MODE)
    for w, g, u in zip(want, got, unrolled, strict=True):
        np.testing.assert_allclose(g, w, rtol=2e-5, atol=1e-5)
        np.testing.assert_allclose(g, u, rtol=2e-5, atol=1e-5)


class _Writer(nn.Cell):
    """A Parameter written every trip: loop state of the compiled loop."""

    def __init__(self):
        super().__init__()
        self.p = Parameter(Tensor(np.zeros(3, np.float32)), name="p")

    def construct(self, x):
        for i in range(N):
            ops.assign(self.p, self.p * 0.5 + x[i % 5])
        return self.p * 1


def test_a_parameter_written_in_the_loop_ends_as_in_pynative(outcomes):
    want = _Writer()(_X).asnumpy()
    ms.set_context(mode=ms.GRAPH_MODE)
    net = _Writer()
    got = net(_X).asnumpy()
    assert outcomes == [True]
    np.testing.assert_allclose(got, want, rtol=1e-6)
    np.testing.assert_allclose(net.p.asnumpy(), want, rtol=1e-6)


def _short(x):
    acc = x[0]
    for i in range(SHORT):
        acc = acc + x[i % 5]
    return acc


def test_a_short_range_loop_is_unrolled_without_a_try(outcomes, monkeypatch):
    _check(_short, (_X,), "jit", outcomes, None, monkeypatch)


# -- unrolled: the body needs `i` as a Python int, or does what one compiled loop would not repeat -------------


def _list_index(x):
    ws = [x[0], x[1] * 2, x[2] - 1]
    acc = x[3]
    for i in range(N):
        acc = acc * 0.5 + ws[i % 3]
    return acc


def _shape(x):
    acc = x[0] * 0
    for i in range(N):
        acc = acc + ops.ones((i + 1,), ms.float32).sum()
    return acc


def _python_if(x):
    acc = x[0]
    for i in range(N):
        if i % 7 == 3:
            acc = acc * 2
        else:
            acc = acc + 1
    return acc


def _break(x):
    acc = x[0]
    for _ in range(N):
        acc = acc + 1
        if acc.sum() > 20:
            break
    return acc


def _return(x):
    acc = x[0]
    for i in range(N):
        acc = acc + x[i % 5]
        if i == 19:
            return acc * 3
    return acc


def _counter(x):
    n = 0
    acc = x[0]
    for _ in range(N):
        acc = acc + x[1]
        n += 2
    return acc * n, n


def _append(x):
    rows = []
    for i in range(N):
        rows.append(x[i % 5] * i)
    return ops.stack(rows)


def _growing(x):
    acc = x[0]
    for _ in range(N):
        acc = ops.concat((acc, x[1]))
    return acc


def _slice(x):
    big = ops.tile(x, (N, 1))
    acc = x[0]
    for i in range(N):
        acc = acc + big[i : i + 2].sum(0)
    return acc


@pytest.mark.parametrize("mode", ["graph", "jit"])
@pytest.mark.parametrize(
    "fn",
    [_list_index, _shape, _python_if, _break, _return, _counter, _append, _growing, _slice],
    ids=["list-index", "shape", "python-if", "break", "return", "python-counter", "list-append", "growing", "slice"],
)
def test_a_body_that_needs_the_unrolled_loop_is_unrolled(fn, mode, outcomes, monkeypatch):
    _check(fn, (_X,), mode, outcomes, False, monkeypatch)


class _AttributeWriter(nn.Cell):
    def __init__(self, tensor: bool):
        super().__init__()
        self.tensor = tensor
        self.last = Tensor(np.zeros(3, np.float32)) if tensor else 0

    def construct(self, x):
        acc = x[0]
        for i in range(N):
            acc = acc + x[i % 5]
            self.last = acc if self.tensor else i
        return acc


@pytest.mark.parametrize("tensor", [False, True], ids=["python-value", "tensor"])
def test_an_attribute_written_in_the_body_unrolls_the_loop_and_ends_as_in_pynative(tensor, outcomes):
    eager = _AttributeWriter(tensor)
    want = eager(_X).asnumpy()
    ms.set_context(mode=ms.GRAPH_MODE)
    net = _AttributeWriter(tensor)
    np.testing.assert_allclose(net(_X).asnumpy(), want, rtol=1e-6)
    assert outcomes == [False]
    np.testing.assert_allclose(np.asarray(_values(net.last)[0]), np.asarray(_values(eager.last)[0]), rtol=1e-6)


def _prints(x):
    acc = x[0]
    for i in range(N):
        acc = acc + x[i % 5]
        print("trip", i, acc.sum())
    return acc


def test_a_run_time_print_stays_in_the_compiled_loop_and_prints_as_the_unrolled_one(outcomes, monkeypatch, capsys):
    ms.jit(_prints)(_X)
    assert outcomes == [True]
    lines = capsys.readouterr().out.splitlines()
    monkeypatch.setattr(control, "RANGE_LOOP_MIN", 10**9)
    ms.jit(_prints)(_X)
    assert lines == capsys.readouterr().out.splitlines() and len(lines) == N


def _host_step(x):
    acc = x[0]
    for i in range(N):
        acc = Tensor(np.tanh(acc.asnumpy())) + x[i % 5]
    return acc


def test_a_host_step_in_the_body_unrolls_the_loop(outcomes, monkeypatch):
    _check(_host_step, (_X,), "jit", outcomes, False, monkeypatch)


def _large_carry(x):
    big = ops.zeros((1024, 1024), ms.float32)  # 4 MiB carried: a gradient would record only 16 trips
    for i in range(N):
        big = big * 0.5 + x[i % 5].sum()
    return big.sum()


def test_a_loop_whose_gradient_would_not_record_every_trip_is_unrolled(outcomes, monkeypatch):
    _check(_large_carry, (_X,), "jit", outcomes, False, monkeypatch)


def test_a_small_unrolled_program_stays_unrolled(outcomes, monkeypatch):
    """Below `RANGE_LOOP_MIN_WORK` equations in all (trips x body) the unrolled loop compiles about as fast and runs
    faster: the try is undone and the loop unrolled, with the same values."""
    monkeypatch.setattr(control, "RANGE_LOOP_MIN_WORK", 1000)

    def f(x):
        for _ in range(N):
            x = ops.tanh(x * 0.9 + 0.5)
        return x

    _check(f, (_X,), "graph", outcomes, False, monkeypatch)
