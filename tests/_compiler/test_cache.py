"""Recompiles: new constants and shapes recompile, mutable() does not, stale entries are never used."""

from types import SimpleNamespace

import numpy as np
import pytest

import kiln as ms
from kiln import Tensor, nn
from kiln._backend import jax
from kiln._compiler.api import jit, mutable
from kiln._compiler.cache import memory as cache

GAIN = 2.0
TABLE = [1.0, 2.0]


def _x(shape=(2, 3), seed=0):
    return Tensor(np.random.default_rng(seed).standard_normal(shape).astype(np.float32))


def test_scalar_value_recompiles_and_mutable_does_not():
    @jit
    def f(x, n):
        return x * n

    x = _x()
    np.testing.assert_allclose(f(x, 2).asnumpy(), x.asnumpy() * 2)
    np.testing.assert_allclose(f(x, 3).asnumpy(), x.asnumpy() * 3)
    f(x, 2)
    assert f.compile_count == 2

    @jit
    def g(x, n):
        return x * n

    for n in (2, 3, 4):
        np.testing.assert_allclose(g(x, mutable(n)).asnumpy(), x.asnumpy() * n, rtol=1e-6)
    assert g.compile_count == 1
    np.testing.assert_allclose(g(x, mutable(5)).asnumpy(), x.asnumpy() * 5, rtol=1e-6)
    assert g.compile_count == 1
    np.testing.assert_allclose(g(x, 6).asnumpy(), x.asnumpy() * 6, rtol=1e-6)  # a plain int is a constant
    assert g.compile_count == 2


def test_mutable_tuple():
    @jit
    def f(x, t):
        return x * t[0] + t[1]

    x = _x()
    for t in ((1.0, 2.0), (3.0, 4.0)):
        np.testing.assert_allclose(f(x, mutable(t)).asnumpy(), x.asnumpy() * t[0] + t[1], rtol=1e-6)
    assert f.compile_count == 1


def test_mutable_bool_is_a_graph_variable():
    # MindSpore documents mutable() for every scalar, bool included (this test asserted a TypeError before)
    @jit
    def f(x, flag):
        return x + 1 if flag else x - 1

    x = _x()
    for flag in (True, False):
        np.testing.assert_allclose(f(x, mutable(flag)).asnumpy(), x.asnumpy() + (1 if flag else -1), rtol=1e-6)
    assert f.compile_count == 1
    assert repr(mutable(False)) == "False" and mutable(True) == 1


def test_new_shape_recompiles():
    @jit
    def f(x):
        return x.sum(axis=0)

    f(_x((2, 3)))
    f(_x((2, 3), 1))
    assert f.compile_count == 1
    assert f(_x((4, 5))).shape == (5,)
    assert f.compile_count == 2
    f(_x((2, 3), 2))  # the first shape's executable is still cached
    f(_x((4, 5), 3))
    assert f.compile_count == 2


def test_global_change_invalidates():
    global GAIN

    @jit
    def f(x):
        return x * GAIN

    x = _x()
    np.testing.assert_allclose(f(x).asnumpy(), x.asnumpy() * 2.0)
    old = GAIN
    try:
        GAIN = 5.0
        np.testing.assert_allclose(f(x).asnumpy(), x.asnumpy() * 5.0)
        assert f.compile_count == 2
    finally:
        GAIN = old


def test_list_mutated_in_place_invalidates():
    @jit
    def f(x):
        return x * TABLE[1]

    x = _x()
    np.testing.assert_allclose(f(x).asnumpy(), x.asnumpy() * 2.0)
    np.testing.assert_allclose(f(x).asnumpy(), x.asnumpy() * 2.0)
    assert f.compile_count == 1
    TABLE[1] = 7.0
    try:
        np.testing.assert_allclose(f(x).asnumpy(), x.asnumpy() * 7.0)
        assert f.compile_count == 2
        np.testing.assert_allclose(f(x).asnumpy(), x.asnumpy() * 7.0)
        assert f.compile_count == 2
    finally:
        TABLE[1] = 2.0
    np.testing.assert_allclose(f(x).asnumpy(), x.asnumpy() * 2.0)  # never the stale 7.0 entry


def test_closure_change_invalidates():
    k = 1.0

    @jit
    def f(x):
        return x + k

    x = _x()
    np.testing.assert_allclose(f(x).asnumpy(), x.asnumpy() + 1.0)
    assert f.compile_count == 1
    k = 4.0  # noqa: F841  (read through the closure cell)
    np.testing.assert_allclose(f(x).asnumpy(), x.asnumpy() + 4.0)
    np.testing.assert_allclose(f(x).asnumpy(), x.asnumpy() + 4.0)
    assert f.compile_count == 2


class Scaled(nn.Cell):
    def __init__(self):
        super().__init__()
        self.scale = 2.0
        self.fc = nn.Dense(3, 2)

    def construct(self, x):
        if self.training:
            x = x * 10
        return self.fc(x) * self.scale


def test_attribute_and_train_mode_invalidate():
    ms.set_context(mode=ms.GRAPH_MODE)
    net = Scaled()
    x = _x()
    a = net(x).asnumpy()
    net.scale = 3.0
    np.testing.assert_allclose(net(x).asnumpy(), a * 1.5, rtol=1e-5)
    net.set_train(True)
    ms.set_context(mode=ms.PYNATIVE_MODE)
    expected = net(x).asnumpy()
    ms.set_context(mode=ms.GRAPH_MODE)
    np.testing.assert_allclose(net(x).asnumpy(), expected, rtol=1e-5)
    assert net._kiln_graph_cache.compiles == 3


def test_compile_log_names_reason(monkeypatch, capfd):
    monkeypatch.setenv("KILN_LOG", "compiles")

    @jit
    def f(x, n):
        return x + n

    f(_x(), 1)
    f(_x(), 2)
    f(_x(seed=3), 1)  # cached: no line
    f(_x(seed=4), 2)
    err = capfd.readouterr().err
    assert "first call" in err and "new input signature" in err
    lines = [line for line in err.splitlines() if line.startswith("[kiln] compiled")]
    assert len(lines) == 2 == f.compile_count, err
    assert "first call" in lines[0] and "new input signature" in lines[1], lines


def test_global_counter_counts_compiles():
    before = cache.STATS["compiles"]

    @jit
    def f(x):
        return x - 1

    f(_x())
    f(_x())
    assert cache.STATS["compiles"] == before + 1


def test_set_inputs_dynamic_dims(monkeypatch, capfd):
    monkeypatch.setenv("KILN_LOG", "compiles")
    ms.set_context(mode=ms.GRAPH_MODE)
    net = Scaled()
    # Tensor(shape=(None, 3)) is not constructible yet in Kiln: a stand-in with shape and dtype.
    net.set_inputs(SimpleNamespace(shape=(None, 3), dtype=ms.float32))
    assert net(_x((4, 3))).shape == (4, 2)
    assert net(_x((5, 3))).shape == (5, 2)
    capfd.readouterr()
    for rows in (4, 5, 4):  # shapes seen before: nothing compiles
        assert net(_x((rows, 3), rows)).shape == (rows, 2)
    assert "[kiln] compiled" not in capfd.readouterr().err
    with pytest.raises(ValueError, match=r"signature"):
        net(_x((5, 4)))


def test_cache_hit_runs_neither_frontend_nor_backend_compile(monkeypatch):
    # Speed is measured in benchmarks (bench_graph (b)); here: a hit touches only the cache and the executable.
    from kiln._compiler import build

    @jit
    def f(x, y):
        return x * y + 1

    x, y = _x(), _x(seed=1)
    expected = f(x, y).asnumpy()

    def no_trace(*args, **kwargs):
        raise AssertionError("the frontend ran on a cache hit")

    monkeypatch.setattr(build, "trace_program", no_trace)
    for _ in range(20):
        np.testing.assert_allclose(f(x, y).asnumpy(), expected)
    assert f.compile_count == 1


def test_a_jit_functions_hit_is_its_call_and_the_general_call_comes_back():
    @jit
    def f(x, y):
        return x * y + GAIN

    x, y = _x(), _x(seed=1)
    assert f._entry.__func__ is type(f)._call  # before the first call: the general call
    f(x, y)
    assert f._entry.__code__.co_filename == "<kiln cache hit>"  # the cache's generated hit is the call
    np.testing.assert_allclose(f(x, y).asnumpy(), x.asnumpy() * y.asnumpy() + GAIN, rtol=1e-6)
    np.testing.assert_allclose(f(x, y=y).asnumpy(), x.asnumpy() * y.asnumpy() + GAIN, rtol=1e-6)  # keywords
    with pytest.raises(TypeError):
        f(x)  # another argument count goes to the general call, which says what is wrong
    z = _x((4,), seed=2)
    np.testing.assert_allclose(f(z, z).asnumpy(), z.asnumpy() ** 2 + GAIN, rtol=1e-6)
    assert f.compile_count >= 2 and f._entry.__func__ is type(f)._call  # two executables: the general call
    assert isinstance(f, type(jit(lambda v: v)))  # every jit function keeps one class
    grads = ms.grad(lambda a: f(a, y).sum())(x)  # a recorded gradient sees the ops
    np.testing.assert_allclose(grads.asnumpy(), y.asnumpy(), rtol=1e-6)


def test_a_jit_functions_hit_hands_every_other_argument_count_to_the_general_call_as_passed():
    @jit
    def f(x, y, z=None):
        return x * y if z is None else x * y + z

    @jit
    def const():
        return Tensor(np.ones(2, np.float32)) * GAIN

    x, y = _x(), _x(seed=1)
    f(x, y)
    assert f._entry.__code__.co_filename == "<kiln cache hit>"
    np.testing.assert_allclose(f(x, y, x).asnumpy(), x.asnumpy() * y.asnumpy() + x.asnumpy(), rtol=1e-6)
    with pytest.raises(TypeError):
        f(x, y, x, x)  # one argument too many: the general call says what is wrong
    with pytest.raises(TypeError):
        f()
    for _ in range(2):
        np.testing.assert_allclose(const().asnumpy(), np.full(2, GAIN, np.float32))
    assert const._entry.__code__.co_filename == "<kiln cache hit>"  # no arguments: a hit too
    with pytest.raises(TypeError):
        const(x)


def test_the_key_free_hit_path_still_tells_shapes_dtypes_globals_and_cells_apart():
    @jit
    def f(x, y):
        return x * y + GAIN

    x, y = _x(), _x(seed=1)
    f(x, y)
    assert f._cache.fast is not None  # one executable, Tensors only: the next call skips the key build
    np.testing.assert_allclose(f(x, y).asnumpy(), x.asnumpy() * y.asnumpy() + GAIN, rtol=1e-6)
    assert f.compile_count == 1
    z = _x((4,), seed=2)
    np.testing.assert_allclose(f(z, z).asnumpy(), z.asnumpy() ** 2 + GAIN, rtol=1e-6)  # other shapes
    assert f.compile_count == 2 and f._cache.fast is None  # two executables: back to the key
    i = Tensor(np.arange(6, dtype=np.int32).reshape(2, 3))

    @jit
    def g(x):
        return x + 1

    g(x)
    np.testing.assert_array_equal(g(i).asnumpy(), i.asnumpy() + 1)  # another dtype, same shape
    assert g.compile_count == 2

    @jit
    def h(x):
        return x * TABLE[0]

    h(x)
    TABLE[0] = 5.0  # a guarded list changed in place: compiled again
    try:
        np.testing.assert_allclose(h(x).asnumpy(), x.asnumpy() * 5.0, rtol=1e-6)
    finally:
        TABLE[0] = 1.0
    assert h.compile_count == 2


def test_the_key_free_hit_path_refuses_a_parameter_a_scalar_or_another_count_where_tensors_were():
    x, y = _x(), _x(seed=1)
    w = ms.Parameter(Tensor(np.full((2, 3), 3.0, np.float32)), name="w")
    for other, expected in ((w, x.asnumpy() * 3.0), (4.0, x.asnumpy() * 4.0), (None, x.asnumpy() * 2.0)):

        @jit
        def f(x, y=None):
            return x * 2 if y is None else x * y

        f(x, y)
        assert f._cache.fast is not None  # the next call is offered to the key-free hit first
        got = f(x) if other is None else f(x, other)  # a Parameter is state, a float a constant: a new key each
        np.testing.assert_allclose(got.asnumpy(), expected, rtol=1e-6)
        assert f.compile_count == 2


def test_a_graph_mode_cell_sharing_its_cache_with_another_runs_its_own_parameters():
    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.dense = nn.Dense(3, 2)

        def construct(self, x):
            return self.dense(x)

    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        net, x = Net(), _x()
        first = net(x).asnumpy()
        net(x)
        twin = Net()
        twin.__dict__["_kiln_graph_cache"] = net.__dict__["_kiln_graph_cache"]  # as a copied __dict__ would
        twin.dense.weight.set_data(Tensor(np.zeros((2, 3), np.float32)))
        np.testing.assert_allclose(twin(x).asnumpy(), np.broadcast_to(twin.dense.bias.asnumpy(), (2, 2)), rtol=1e-6)
        np.testing.assert_allclose(net(x).asnumpy(), first, rtol=1e-6)
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)


def test_a_compiled_step_reads_and_writes_parameters_after_the_lazy_window_and_other_steps():
    w = ms.Parameter(Tensor(np.ones((2, 3), np.float32)), name="w")

    @jit
    def step(x):
        ms.ops.assign(w, w * 2 + x)
        return w.sum()

    x = _x()
    expected = np.ones((2, 3), np.float32)
    for _ in range(3):  # the first call compiles; the others are cache hits reading the arrays the last one wrote
        expected = expected * 2 + x.asnumpy()
        np.testing.assert_allclose(step(x).asnumpy(), expected.sum(), rtol=1e-5)
        np.testing.assert_allclose(w.asnumpy(), expected, rtol=1e-5)
    doubled = w * 2  # PyNative: recorded by the lazy window; it must run before the step donates w's buffer
    expected_doubled = expected * 2
    expected = expected * 2 + x.asnumpy()
    np.testing.assert_allclose(step(x).asnumpy(), expected.sum(), rtol=1e-5)
    np.testing.assert_allclose(doubled.asnumpy(), expected_doubled, rtol=1e-5)
    np.testing.assert_allclose(w.asnumpy(), expected, rtol=1e-5)
    assert step.compile_count == 1


def _launched(c) -> bool:
    """Whether the cache's hit runs its executable itself (a `Launch`), not through jax.jit's call."""
    return c.written_for is not None and isinstance(c.written_for[5], cache.Launch)


def test_a_hit_that_launches_the_executable_checks_what_jax_jits_call_checked():
    @jit
    def f(x, y):
        return x * y + GAIN

    x, y = _x(), _x(seed=1)
    f(x, y)
    assert _launched(f._cache)  # the call that ran the program found its launch
    ref = jax.jit(lambda a, b: a * b + GAIN)
    for _ in range(3):
        np.testing.assert_array_equal(f(x, y).asnumpy(), np.asarray(ref(x._data, y._data)))
    out = f(f(x, y), y)  # an output of a launch is an input of the next one
    np.testing.assert_allclose(out.asnumpy(), (x.asnumpy() * y.asnumpy() + GAIN) * y.asnumpy() + GAIN, rtol=1e-6)
    pending = x + 1  # a value the lazy window holds: run before the launch reads it
    np.testing.assert_allclose(f(pending, y).asnumpy(), (x.asnumpy() + 1) * y.asnumpy() + GAIN, rtol=1e-6)
    assert f.compile_count == 1
    # the XLA executable takes any buffer of the same size: an int32 (2, 3) where a float32 (2, 3) was compiled
    # must not reach it (its bits read as floats), nor a float64 where a float32 was
    i, j = (Tensor(np.arange(6, dtype=np.int32).reshape(2, 3) + k) for k in (0, 7))
    np.testing.assert_array_equal(f(i, j).asnumpy(), i.asnumpy() * j.asnumpy() + 2)
    assert f.compile_count == 2

    @jit
    def g(x):
        return x * 3

    d = Tensor(np.linspace(0, 1, 6).reshape(2, 3))  # float64
    g(_x())
    assert _launched(g._cache)
    np.testing.assert_allclose(g(d).asnumpy(), d.asnumpy() * 3, rtol=1e-12)
    assert g(d).dtype == ms.float64 and g.compile_count == 2


def test_a_hit_that_launches_the_executable_takes_weak_types_and_another_shape_to_jax_jits_call():
    @jit
    def f(x):
        return x * 2

    x = Tensor(np.full((2, 3), 1.5, np.float64))
    f(x)
    assert _launched(f._cache)
    weak = Tensor._wrap(jax.lax.full((2, 3), 1.5))  # float64, weakly typed: another aval than the compiled one
    assert weak._data.weak_type
    np.testing.assert_array_equal(f(weak).asnumpy(), np.full((2, 3), 3.0))
    np.testing.assert_array_equal(f(Tensor(np.ones((3, 2)))).asnumpy(), np.full((3, 2), 2.0))
    assert f.compile_count == 2


def test_a_graph_mode_cell_without_parameters_launches_its_executable_and_still_retraces_on_its_attribute():
    class Scale(nn.Cell):
        def __init__(self):
            super().__init__()
            self.k = 2.0

        def construct(self, x):
            return x * self.k

    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        net, x = Scale(), _x()
        np.testing.assert_allclose(net(x).asnumpy(), x.asnumpy() * 2.0, rtol=1e-6)
        c = net.__dict__["_kiln_graph_cache"]
        assert _launched(c)
        np.testing.assert_allclose(net(x).asnumpy(), x.asnumpy() * 2.0, rtol=1e-6)
        net.k = 5.0  # a Cell attribute the graph read: compiled again
        np.testing.assert_allclose(net(x).asnumpy(), x.asnumpy() * 5.0, rtol=1e-6)
        assert c.compiles == 2
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)


def test_a_graph_mode_cells_hit_path_still_honours_a_later_signature_and_a_recorded_gradient():
    class Mul(nn.Cell):
        def construct(self, x, y):
            return x * y + GAIN

    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        net, x, y = Mul(), _x(), _x(seed=1)
        net(x, y)
        assert net.__dict__["_kiln_graph_cache"].fast is not None  # the next call takes the hit path first
        np.testing.assert_allclose(net(x, y).asnumpy(), x.asnumpy() * y.asnumpy() + GAIN, rtol=1e-6)
        grads = ms.grad(lambda a: net(a, y).sum())(x)  # recorded: the tape sees each op of construct
        np.testing.assert_allclose(grads.asnumpy(), y.asnumpy(), rtol=1e-6)
        net.set_inputs(SimpleNamespace(shape=(3, 3), dtype=ms.float32), SimpleNamespace(shape=(3, 3), dtype=ms.float32))
        with pytest.raises(ValueError, match=r"signature"):
            net(x, y)  # declared after the hit path was set up: still checked
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
