"""Side effects happen on every call, in program order, with plain Python's values."""

import numpy as np

import kiln as ms
from kiln import nn, ops

from .helpers import check, t

LOG: list = []
STATE: dict = {}
COUNTER = 0


def effects(x, sink):
    global COUNTER
    y = x * 2
    LOG.append(y)
    sink.append(len(LOG))
    STATE["last"] = y.shape
    COUNTER = COUNTER + 1
    print("count", COUNTER)
    return y + COUNTER


def test_list_dict_global_writes_each_call():
    LOG.clear()
    STATE.clear()
    global COUNTER
    COUNTER = 0
    f = ms.jit(effects, capture_mode="bytecode")
    sink: list = []
    x = t(3)
    outs = [f(x, sink).asnumpy() for _ in range(3)]
    assert COUNTER == 3 and len(LOG) == 3 and sink == [1, 2, 3]
    assert STATE["last"] == (3,)
    for i, o in enumerate(outs):
        np.testing.assert_allclose(o, x.asnumpy() * 2 + i + 1, rtol=1e-6)
    np.testing.assert_allclose(LOG[0].asnumpy(), x.asnumpy() * 2, rtol=1e-6)


def ordered(x, out):
    out.append("a")
    print("first")
    v = float(x.sum().asnumpy())  # break: the effects before it happen before it
    out.append(v > -100)
    print("second", round(v, 3))
    out.append("b")
    return x * 2


def test_order_across_a_break():
    x = t(4)
    want, got = [], []
    ordered(x, want)
    check(ordered, (x, []), (x, []))
    f = ms.jit(ordered, capture_mode="bytecode")
    f(x, got)
    f(x, got)
    assert got == want + want


class Counter(nn.Cell):
    def __init__(self):
        super().__init__()
        self.calls = 0
        self.history = []

    def construct(self, x):
        self.calls = self.calls + 1
        self.history.append(self.calls)
        return ops.relu(x) * self.calls


def test_attribute_writes_each_call():
    net = Counter()
    f = ms.jit(net.construct, capture_mode="bytecode")
    x = t(3)
    for i in range(1, 4):
        np.testing.assert_allclose(f(x).asnumpy(), np.maximum(x.asnumpy(), 0) * i, rtol=1e-6)
    assert net.calls == 3 and net.history == [1, 2, 3]


def mutate_arg(d, x):
    d["y"] = x + 1
    d.setdefault("n", 0)
    d["n"] = d["n"] + 1
    return d


def test_argument_dict_is_the_callers():
    f = ms.jit(mutate_arg, capture_mode="bytecode")
    d = {"n": 5}
    r = f(d, t(2))
    assert r is d and d["n"] == 6
    np.testing.assert_allclose(d["y"].asnumpy(), t(2).asnumpy() + 1, rtol=1e-6)
    d2 = {"n": 5}
    f(d2, t(2))
    assert d2["n"] == 6 and d["n"] == 6


def test_nothing_changes_while_compiling():
    calls = []

    def f(x):
        calls.append(1)
        return x + 1

    g = ms.jit(f, capture_mode="bytecode")
    g(t(2))
    assert calls == [1]
    g(t(2))
    assert calls == [1, 1]


def redirect_inside(x):
    import contextlib
    import io

    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        y = x * 2
        print("inside", y.sum())
    print("captured", buf.getvalue().strip())
    return y


def break_in_try(x, key):
    try:
        v = float(x.sum().asnumpy())
        w = {"a": 1.0}[key]
    except KeyError:
        v, w = -1.0, 0.0
    return x * v + w


def inplace_arg(x):
    x[0] = 5.0
    return x * 2


def test_with_try_and_inplace_like_python():
    check(redirect_inside, (t(3),), (t(3),))
    check(break_in_try, (t(3), "a"), (t(3), "b"), (t(3), "a"))
    a, b = t(3), t(3)
    inplace_arg(a)
    f = ms.jit(inplace_arg, capture_mode="bytecode")
    f(b)
    np.testing.assert_allclose(a.asnumpy(), b.asnumpy())  # the caller's Tensor is updated as in PyNative


class Acc(nn.Cell):
    def __init__(self):
        super().__init__()
        self.w = ms.Parameter(ms.Tensor(np.zeros(2, np.float32)), name="w")

    def construct(self, v):
        ops.assign_add(self.w, v)
        print("w now", self.w)
        return self.w * 1


def test_parameter_state_each_call(capsys):
    a = Acc()
    f = ms.jit(a.construct, capture_mode="bytecode")
    v = ms.Tensor(np.ones(2, np.float32))
    f(v)
    out = f(v)
    np.testing.assert_allclose(out.asnumpy(), [2.0, 2.0])
    np.testing.assert_allclose(a.w.asnumpy(), [2.0, 2.0])
    assert capsys.readouterr().out.splitlines()[-1] == "w now [2. 2.]"
