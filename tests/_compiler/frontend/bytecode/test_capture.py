"""Bytecode capture gives plain Python's values and printed output (one graph when nothing breaks)."""

import contextlib

import numpy as np
import pytest

import kiln as ms
from kiln import Tensor, nn, ops

from .helpers import assert_same, check, run, t, to_py

SCALE = 3.0


def _helper(a, b=2.0):
    return a * b + SCALE


def prog_calls(x, y):
    z = _helper(x) + _helper(y, b=0.5)
    return ops.relu(z - 1.0), z.shape


def prog_args(*xs, **kw):
    total = xs[0]
    for v in xs[1:]:
        total = total + v
    for k in sorted(kw):
        total = total * kw[k]
    return total


def prog_closure(x):
    k = 2.0

    def inner(v):
        return v * k

    k = 4.0
    return inner(x) + (lambda w: w - k)(x)


def prog_comprehensions(x):
    parts = [x * i for i in range(3) if i != 1]
    d = {f"p{i}": p.sum() for i, p in enumerate(parts)}
    s = {len(parts), 2}
    return parts, d, len(s)


def prog_walrus_fstring(x, n):
    if (m := n * 2) > 3:
        label = f"big {m:03d} {n!r}"
    else:
        label = f"small {m}"
    return x + m, label


def prog_try(x, key):
    table = {"a": 1.0, "b": 2.0}
    try:
        v = table[key]
    except KeyError:
        v = -1.0
    finally:
        x = x * 2
    return x + v


class Ctx:
    def __init__(self):
        self.entered = 0

    def __enter__(self):
        self.entered += 1
        return 10.0

    def __exit__(self, *exc):
        return False


def prog_with(x):
    c = Ctx()
    with c as v:
        y = x * v
    return y, c.entered


def prog_containers(x, cfg):
    out = []
    for name, w in cfg.items():
        if name.startswith("s"):
            out.append(x * w)
        else:
            out.insert(0, x - w)
    a, *rest = out
    return a, tuple(rest), len(out)


def prog_unpack_tensor(x):
    a, b = x
    return b - a, x[0, 1:], x[:, ::-1]


def prog_dtype_logic(x):
    if x.dtype == ms.float32 and x.shape[0] == 2:
        return ops.cast(x, ms.float16)
    return x


@pytest.mark.parametrize(
    ("fn", "calls"),
    [
        (prog_calls, [(t(2, 3), t(2, 3, seed=1))]),
        (prog_args, [(t(2), t(2, seed=1), t(2, seed=2))]),
        (prog_closure, [(t(3),)]),
        (prog_comprehensions, [(t(2, 2),)]),
        (prog_walrus_fstring, [(t(2), 1), (t(2), 5)]),
        (prog_try, [(t(2), "a"), (t(2), "zz")]),
        (prog_with, [(t(2),)]),
        (prog_containers, [(t(2), {"s1": 2.0, "x": 1.0, "s2": 3.0})]),
        (prog_unpack_tensor, [(t(2, 3),)]),
        (prog_dtype_logic, [(t(2, 3),), (t(3, 3),)]),
    ],
)
def test_values_equal_plain_python(fn, calls):
    from kiln._compiler.frontend.bytecode import explain

    jitted = check(fn, *calls, *calls)
    e = explain(jitted)
    assert e.break_count == 0 and not e.eager, str(e)
    assert e.last_call == {"graphs": 1, "steps": 0}


def test_kwargs_program():
    jitted = check(prog_args, (t(2), t(2, seed=1)))
    want = run(prog_args, t(2), t(2, seed=1), a=2.0, b=3.0)
    got = run(jitted, t(2), t(2, seed=1), a=2.0, b=3.0)
    assert_same(want[0], got[0])


def test_one_graph_without_break():
    f = ms.jit(prog_calls, capture_mode="bytecode")
    f(t(2, 3), t(2, 3))
    f(t(2, 3), t(2, 3))
    from kiln._compiler.frontend.bytecode import explain

    e = explain(f)
    assert e.graph_count == 1 and e.break_count == 0
    assert e.last_call == {"graphs": 1, "steps": 0}


class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc = nn.Dense(3, 4)
        self.scale = 2.0

    @ms.jit(capture_mode="bytecode")
    def construct(self, x):
        h = self.fc(x)
        return ops.tanh(h) * self.scale


class PlainNet(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc = nn.Dense(3, 4)
        self.inner = Inner()

    def construct(self, x):
        return self.inner(self.fc(x))


class Inner(nn.Cell):
    def construct(self, x):
        return ops.sigmoid(x) + 1


def test_construct_and_cells():
    ms.set_seed(0)
    net = Net()
    x = t(2, 3)
    got = net(x)
    want = ops.tanh(net.fc(x)) * 2.0
    np.testing.assert_allclose(got.asnumpy(), want.asnumpy(), rtol=1e-6)
    net2 = PlainNet()
    f = ms.jit(net2.construct, capture_mode="bytecode")
    np.testing.assert_allclose(f(x).asnumpy(), net2(x).asnumpy(), rtol=1e-6)
    g = ms.jit(net2, mode="PIJit")
    np.testing.assert_allclose(g(x).asnumpy(), net2(x).asnumpy(), rtol=1e-6)


def test_jit_config_and_graph_mode():
    ms.set_context(mode=ms.GRAPH_MODE)
    f = ms.jit(prog_calls, capture_mode="bytecode", jit_config=ms.JitConfig(jit_level="O0"))
    want = to_py(prog_calls(t(2, 3), t(2, 3, seed=1)))
    assert_same(want, to_py(f(t(2, 3), t(2, 3, seed=1))))


def test_no_fallback_warning(recwarn):
    f = ms.jit(prog_closure, capture_mode="bytecode")
    f(t(3))
    assert not [w for w in recwarn if "bytecode" in str(w.message)]


def loss_fn(x, w):
    y = ops.tanh(x * w)
    return (y * y).sum()


def test_gradients_equal_pynative():
    x, w = t(3), t(3, seed=1)
    jitted = ms.jit(loss_fn, capture_mode="bytecode")
    g_want = ms.grad(loss_fn, grad_position=(0, 1))(x, w)
    g_got = ms.grad(jitted, grad_position=(0, 1))(x, w)
    for a, b in zip(g_want, g_got, strict=True):
        np.testing.assert_allclose(a.asnumpy(), b.asnumpy(), rtol=1e-5)


def prog_grad_inside(x, w):
    g = ms.grad(loss_fn, grad_position=1)(x, w)
    return g * 2


def test_grad_inside_capture():
    x, w = t(3), t(3, seed=1)
    check(prog_grad_inside, (x, w))


def prog_raises(x, n):
    if n > 2:
        raise ValueError("n too large")
    return x * n


def test_exceptions_like_python():
    check(prog_raises, (t(2), 1), (t(2), 5), (t(2), 1))


def test_method_of_plain_object():
    class Model:
        def __init__(self):
            self.k = 2.0

        def step(self, x):
            return x * self.k

    m = Model()
    f = ms.jit(m.step, capture_mode="bytecode")
    np.testing.assert_allclose(f(t(2)).asnumpy(), (t(2) * 2.0).asnumpy())
    m.k = 5.0  # the attribute guard fails: a new graph
    np.testing.assert_allclose(f(t(2)).asnumpy(), (t(2) * 5.0).asnumpy())


def test_redirected_print_and_order():
    def fn(x):
        print("a")
        y = x + 1
        print("b", y)
        return y

    f = ms.jit(fn, capture_mode="bytecode")
    import io

    for _ in range(2):
        buf = io.StringIO()
        with contextlib.redirect_stdout(buf):
            f(Tensor(np.ones(2, np.float32)))
        assert buf.getvalue().splitlines()[0] == "a"
        assert buf.getvalue().startswith("a\nb ")


def builds_cell(x):
    dense = nn.Dense(3, 2, weight_init="ones", bias_init="zeros")
    return dense(x) * 2


def test_cell_built_inside():
    check(builds_cell, (t(4, 3),), (t(4, 3, seed=1),))
