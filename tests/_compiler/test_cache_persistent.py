"""Graph executables kept on disk and found before tracing (kiln/_compiler/cache/persistent.py `graph_key`, build.py).

A second process (simulated here by defining the same function again in a fresh module, and once for real
in subprocesses) loads the executable without tracing; any change the graph depends on — the source, a
closure constant, a global the graph read, an input's dtype or shape, a JAX setting — compiles again, and a
damaged entry never fails a call.
"""

import atexit
import functools
import importlib.util
import json
import linecache
import os
import pickle
import random
import shutil
import subprocess
import sys
import tempfile
import textwrap
import types
from pathlib import Path

import jax
import numpy as np
import pytest

import kiln as ms
from kiln import Tensor
from kiln import _backend as B
from kiln._backend import cache as backend_cache
from kiln._compiler import build as build_mod
from kiln._compiler.api import jit
from kiln._compiler.cache import memory
from kiln._compiler.cache import persistent as cache

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def store(tmp_path, monkeypatch):
    monkeypatch.setattr(backend_cache, "_store", backend_cache.DiskCache(tmp_path, 2**30))
    monkeypatch.setattr(backend_cache, "_ours", True)
    monkeypatch.setattr(backend_cache, "_enabled_dir", tmp_path)
    monkeypatch.setenv(cache.ENV_GRAPH_CACHE, "1")
    traced = []
    original = build_mod.trace_program

    def counting(*a, **k):
        traced.append(a[0])
        return original(*a, **k)

    monkeypatch.setattr(build_mod, "trace_program", counting)
    yield types.SimpleNamespace(path=tmp_path, traced=traced)
    backend_cache.flush_writes()


@functools.cache
def _source_dir() -> Path:
    """The folder of the test modules' source files, made when first needed and removed when the process ends
    (made at import time, every collecting worker left an empty folder behind)."""
    path = Path(tempfile.mkdtemp(prefix="kiln-persist-src-"))
    atexit.register(shutil.rmtree, path, ignore_errors=True)
    return path


def _module(source: str, name: str = "kiln_persist_case", **globals_):
    """A fresh module imported from a file holding `source` (what a second process importing the same file
    would have; from a file, so that the graph frontend parses its source and guards what it reads)."""
    path = _source_dir() / f"{name}.py"
    text = textwrap.dedent(source)
    if not path.exists() or path.read_text() != text:
        path.write_text(text)
        linecache.checkcache(str(path))
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    mod.__dict__.update(globals_)
    sys.modules[name] = mod
    spec.loader.exec_module(mod)
    return mod


def _entries(path: Path) -> list[Path]:
    return sorted(path.glob(f"{cache.GRAPH_PREFIX}*{backend_cache.SUFFIX}"))


def _loaded(f) -> list[bool]:
    return [ex.loaded for bucket in f._cache.entries.values() for ex in bucket]


SOURCE = """
import kiln as ms
def f(x):
    for _ in range(len((1,))):  # builtins: guarded as "no global of that name"
        x = ms.ops.relu(x * GAIN) + 1
    return x
"""


def _x(shape=(2, 3), dtype=np.float32):
    return Tensor(np.linspace(-1, 1, int(np.prod(shape))).reshape(shape).astype(dtype))


def _cold_then_warm(store, source=SOURCE, **globals_):
    cold = jit(_module(source, **globals_).f)
    out = cold(_x()).asnumpy()
    backend_cache.flush_writes()
    return out


def test_same_function_in_a_fresh_module_loads_without_tracing(store):
    expected = _cold_then_warm(store, GAIN=2.0)
    assert len(_entries(store.path)) == 1 and len(store.traced) == 1
    warm = jit(_module(SOURCE, GAIN=2.0).f)
    np.testing.assert_array_equal(warm(_x()).asnumpy(), expected)
    assert _loaded(warm) == [True] and len(store.traced) == 1  # nothing traced
    np.testing.assert_array_equal(warm(_x()).asnumpy(), expected)  # and runs again from memory
    assert warm.compile_count == 1
    # the loaded executable's graph is recorded again only when asked for
    graph = next(iter(warm._cache.entries.values()))[0].graph
    assert graph is not None and len(graph.eqns) > 0


def test_a_kept_programs_hit_calls_its_entry_point_and_other_inputs_still_reach_the_wrapper(store, monkeypatch):
    """A hit of a kept executable (a DirectExecutable, loaded or compiled now) calls the backend's C++ entry point
    without the wrapper's Python frame; inputs the executable was not compiled for (another shape, another dtype)
    still reach the wrapper, whose fallback sends the call to its key (compiled again), and a hit made before the
    first call set the entry point goes through the wrapper."""
    calls = []
    original = cache.DirectExecutable.__call__
    monkeypatch.setattr(cache.DirectExecutable, "__call__", lambda self, *a: calls.append(1) or original(self, *a))
    module = _module(SOURCE, GAIN=2.0)
    for f in (jit(module.f), jit(module.f)):  # compiled and kept, then loaded from disk
        x = _x()
        expected = np.maximum(x.asnumpy() * 2.0, 0.0) + 1.0
        np.testing.assert_allclose(f(x).asnumpy(), expected, rtol=1e-6)
        backend_cache.flush_writes()
        assert type(f._cache.written_for[3]) is cache.DirectExecutable and f._cache.written_for[3].fast is not None
        calls.clear()
        for _ in range(3):
            np.testing.assert_allclose(f(x).asnumpy(), expected, rtol=1e-6)
        assert calls == []  # the hit called the entry point itself
        z = _x((4,))
        np.testing.assert_allclose(f(z).asnumpy(), np.maximum(z.asnumpy() * 2.0, 0.0) + 1.0, rtol=1e-6)
        assert calls and f.compile_count == 2
        backend_cache.flush_writes()
    assert _loaded(f) == [True, True]
    fresh = cache.DirectExecutable(None, None)
    entry = (memory._NO_LEAD, 0, None, fresh, None)
    fresh.compiled = lambda: (x._data,)  # no entry point yet: the hit calls the wrapper, which makes none
    calls.clear()
    assert memory._hit_function(f._cache, *entry)(())._buf is x._data and calls == [1]


def test_changed_source_compiles_again(store):
    _cold_then_warm(store, GAIN=2.0)
    changed = jit(_module(SOURCE.replace("+ 1", "+ 10"), GAIN=2.0).f)
    np.testing.assert_allclose(changed(_x()).asnumpy(), np.maximum(_x().asnumpy() * 2, 0) + 10)
    assert _loaded(changed) == [False]


def test_changed_global_compiles_again(store):
    _cold_then_warm(store, GAIN=2.0)
    other = jit(_module(SOURCE, GAIN=3.0).f)
    np.testing.assert_allclose(other(_x()).asnumpy(), np.maximum(_x().asnumpy() * 3, 0) + 1)
    assert _loaded(other) == [False]
    backend_cache.flush_writes()
    assert len(_entries(store.path)) == 2
    for gain in (2.0, 3.0):  # each value finds its own executable
        again = jit(_module(SOURCE, GAIN=gain).f)
        np.testing.assert_allclose(again(_x()).asnumpy(), np.maximum(_x().asnumpy() * gain, 0) + 1)
        assert _loaded(again) == [True]


def test_guarded_global_read_while_tracing_is_checked_when_loading(store):
    """A global the trace read (a guard) is stored with a digest of its value; another value there means the
    entry is not used (and the entry compiled then replaces it)."""
    mod = _module(SOURCE, GAIN=2.0)
    x = _x()
    key = cache.graph_key("f", mod.f, ((("t",),), ()), [x._data], True)
    guards = [(0, mod.__dict__, "GAIN", 2.0, None)]
    described, digest = cache.describe_guards(key, guards)
    assert described == [("g", mod.__name__, "GAIN")]
    assert cache.rebuild_guards(key, described, digest)[0][3] == 2.0
    mod.GAIN = 4.0
    assert cache.rebuild_guards(key, described, digest) is None
    # a guard on a dict held by a global of Kiln's (a counter, a registry) is checked by value too
    counts = memory.STATS
    described, digest = cache.describe_guards(key, [(0, counts, "compiles", counts["compiles"], None)])
    assert described == [("m", "kiln._compiler.cache.memory", "STATS", "compiles")]
    assert cache.rebuild_guards(key, described, digest)[0][1] is counts
    counts["compiles"] += 1
    try:
        assert cache.rebuild_guards(key, described, digest) is None
    finally:
        counts["compiles"] -= 1
    # a guard on an object the key did not reach cannot be checked in another process: not kept
    assert cache.describe_guards(key, [(0, {"a": 1}, "a", 1, None)]) is None


CLOSURE = """
import kiln as ms
def make(k):
    def f(x):
        return x * k
    return f
"""


def test_changed_closure_constant_compiles_again(store):
    first = jit(_module(CLOSURE).make(2.0))
    np.testing.assert_allclose(first(_x()).asnumpy(), _x().asnumpy() * 2)
    backend_cache.flush_writes()
    same = jit(_module(CLOSURE).make(2.0))
    np.testing.assert_allclose(same(_x()).asnumpy(), _x().asnumpy() * 2)
    other = jit(_module(CLOSURE).make(5.0))
    np.testing.assert_allclose(other(_x()).asnumpy(), _x().asnumpy() * 5)
    assert _loaded(same) == [True] and _loaded(other) == [False]


def test_constants_of_equal_bytes_and_other_shapes_have_their_own_entries(store):
    """A 0-d constant and a (1,) or (1, 1) one of the same bytes are different keys (NumPy's ascontiguousarray
    made the 0-d one 1-d, so a (1,) constant loaded the 0-d one's program: the other dtype rule and shape)."""
    one = np.float32(1.5)
    consts = [np.array(one), np.array([one]), np.array([[one]])]
    x = Tensor(np.arange(1, 5, dtype=np.float16))
    key = lambda k: cache.graph_key("f", _module(CLOSURE).make(k), ((("t",),), ()), [x._data], True).name  # noqa: E731
    for kind in (Tensor, np.asarray):
        names = [key(kind(c)) for c in consts]
        assert len(set(names)) == 3, kind
    # end to end, in the order that went wrong: the (1,) constant's call loaded the 0-d one's program
    for c in consts:
        f = jit(_module(CLOSURE).make(Tensor(c)))
        got = f(x)
        backend_cache.flush_writes()
        expected = np.asarray(ms.ops.mul(x, Tensor(c)).asnumpy())  # PyNative: no graph cache
        assert got.dtype == (ms.float16 if c.ndim == 0 else ms.float32)
        assert got.shape == expected.shape and got.asnumpy().dtype == expected.dtype
        np.testing.assert_array_equal(got.asnumpy(), expected)
        assert _loaded(f) == [False]
    assert len(_entries(store.path)) == 3


def test_changed_dtype_or_shape_compiles_again(store):
    _cold_then_warm(store, GAIN=2.0)
    for x in (_x((3, 2)), _x((2, 3), np.int32), _x((2, 3), np.float16)):
        f = jit(_module(SOURCE, GAIN=2.0).f)
        np.testing.assert_allclose(f(x).asnumpy(), np.maximum(x.asnumpy() * 2, 0) + 1, rtol=1e-3)
        assert _loaded(f) == [False]
    backend_cache.flush_writes()
    assert len(_entries(store.path)) == 4


def test_jax_settings_and_context_are_part_of_the_key(store):
    mod = _module(SOURCE, GAIN=2.0)
    x = _x()
    key = lambda: cache.graph_key("f", mod.f, ((("t",),), ()), [x._data], True).name  # noqa: E731
    base = key()
    assert key() == base
    with jax.default_matmul_precision("highest"):
        assert key() != base
    x64 = bool(jax.config.read("jax_enable_x64"))
    jax.config.update("jax_enable_x64", not x64)
    try:
        assert key() != base
    finally:
        jax.config.update("jax_enable_x64", x64)
    ms.set_context(max_call_depth=77)
    try:
        assert key() != base
    finally:
        ms.set_context(max_call_depth=1000)
    assert key() == base


def test_damaged_entry_falls_back_to_compiling(store):
    expected = _cold_then_warm(store, GAIN=2.0)
    (entry,) = _entries(store.path)
    for damage in (b"", b"not a pickle", entry.read_bytes()[:-100]):
        entry.write_bytes(damage)
        f = jit(_module(SOURCE, GAIN=2.0).f)
        np.testing.assert_array_equal(f(_x()).asnumpy(), expected)
        assert _loaded(f) == [False]
        backend_cache.flush_writes()
    f = jit(_module(SOURCE, GAIN=2.0).f)  # a good copy was written in its place
    np.testing.assert_array_equal(f(_x()).asnumpy(), expected)
    assert _loaded(f) == [True]


def test_parameter_shape_changed_after_loading_compiles_again(store):
    src = """
import numpy as np
import kiln as ms
w = ms.Parameter(ms.Tensor(np.ones(3, np.float32)), name="w")
def f(x):
    return (w * x).sum()
"""
    first = jit(_module(src).f)
    assert float(first(ms.Tensor(np.ones(3, np.float32))).asnumpy()) == 3.0
    backend_cache.flush_writes()
    mod = _module(src)
    f = jit(mod.f)
    assert float(f(ms.Tensor(np.ones(3, np.float32))).asnumpy()) == 3.0
    assert _loaded(f) == [True]
    mod.w._data = jax.device_put(np.full(1, 2.0, np.float32))  # broadcasts against x: another program
    assert float(f(ms.Tensor(np.ones(3, np.float32))).asnumpy()) == 6.0


def test_trace_with_output_is_not_kept(store, capsys):
    src = """
import kiln as ms
def f(x):
    print("tracing")
    return x + 1
"""
    f = jit(_module(src).f)
    f(_x())
    backend_cache.flush_writes()
    assert "tracing" in capsys.readouterr().out
    assert _entries(store.path) == []


@pytest.mark.parametrize("generator", ["numpy", "python"])
def test_a_trace_that_draws_from_a_global_random_generator_is_not_kept(store, generator):
    """A `@constexpr` drawing a constant from NumPy's or Python's global generator (the zoo's WGAN-GP alpha) draws
    when the graph is traced, as MindSpore's compile does. A process loading the executable from disk drew nothing:
    it ran on the earlier process's constant and its generator did not advance, so its later draws differed from a
    process that traced. Such a trace is not kept; a second process traces and draws again."""
    draw = "float(np.random.rand())" if generator == "numpy" else "random.random()"
    src = f"""
import random
import numpy as np
import kiln as ms
@ms.ops.constexpr
def alpha():
    return {draw}
def f(x):
    return x * alpha()
"""
    outs, afters = [], []
    for _ in range(2):  # two processes seeded alike
        np.random.seed(5)
        random.seed(5)
        outs.append(jit(_module(src).f)(_x()).asnumpy())
        backend_cache.flush_writes()
        afters.append((np.random.rand(), random.random()))
    assert _entries(store.path) == [] and len(store.traced) == 2
    np.testing.assert_array_equal(outs[0], outs[1])
    assert afters[0] == afters[1]  # the second process's generator advanced past the constant as the first's did


def test_off_by_setting(store, monkeypatch):
    monkeypatch.setenv(cache.ENV_GRAPH_CACHE, "0")
    _cold_then_warm(store, GAIN=2.0)
    assert _entries(store.path) == []


_TRAIN = textwrap.dedent(
    """
    import json
    import numpy as np
    from jax._src import compiler
    compiles = []
    _orig = compiler.backend_compile_and_load
    def _count(*a, **k):
        compiles.append(1)
        return _orig(*a, **k)
    compiler.backend_compile_and_load = _count
    import kiln as ms
    from kiln import nn
    ms.set_context(mode=ms.GRAPH_MODE)
    ms.set_seed(0)
    net = nn.SequentialCell(nn.Dense(6, 5), nn.ReLU(), nn.Dense(5, 3))
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    opt = nn.Momentum(net.trainable_params(), 0.1, 0.9)
    step = nn.TrainOneStepCell(nn.WithLossCell(net, loss), opt)
    x = ms.Tensor(np.linspace(-1, 1, 24, dtype=np.float32).reshape(4, 6))
    y = ms.Tensor(np.array([0, 1, 2, 1], np.int32))
    losses = [float(step(x, y).asnumpy()) for _ in range(3)]
    loaded = [e.loaded for b in step._kiln_graph_cache.entries.values() for e in b]
    print(json.dumps({"losses": losses, "weights": [p.asnumpy().tolist() for p in net.trainable_params()],
                      "compiles": len(compiles), "loaded": loaded}))
    """
)


def _spawn(folder: Path) -> subprocess.Popen:
    env = {**os.environ, "KILN_CACHE_DIR": str(folder), "PYTHONPATH": str(REPO), "KILN_GRAPH_CACHE": "1",
           backend_cache.ENV_SOURCE_KEY: folder.name}  # fmt: skip
    return subprocess.Popen([sys.executable, "-c", _TRAIN], env=env, stdout=subprocess.PIPE, text=True)


def _result(proc: subprocess.Popen) -> dict:
    out, _ = proc.communicate(timeout=300)
    assert proc.returncode == 0
    return json.loads(out.strip().splitlines()[-1])


def test_train_step_in_a_second_process_loads_and_computes_the_same(tmp_path):
    """Two cold processes write the same entry at once; a third loads it: no trace, no XLA compile, the same
    losses and weights bit for bit."""
    folder = tmp_path / "xla"
    cold = [_result(p) for p in [_spawn(folder), _spawn(folder)]]
    # Started together, each compiles; one that starts late (a loaded machine) may load the other's entry instead
    # (seen once in a full run). Either way it is whole: compiled and not loaded, or loaded with no compile.
    assert all(c["loaded"] in ([False], [True]) and (c["compiles"] > 0) != (c["loaded"] == [True]) for c in cold)
    assert any(c["loaded"] == [False] for c in cold)
    assert len(_entries(folder)) == 1
    warm = _result(_spawn(folder))
    assert warm["loaded"] == [True] and warm["compiles"] == 0
    for c in cold:
        assert c["losses"] == warm["losses"] and c["weights"] == warm["weights"]
    assert warm["losses"][2] < warm["losses"][0]


CHECKED = """
def f(logits, labels):
    return LOSS(logits, labels)
"""


def test_value_checks_of_a_loaded_executable_report_the_same_error(store):
    """A loaded graph's value checks (an out-of-range label) raise the error the compiled one raises."""
    from kiln import nn

    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    logits = Tensor(np.zeros((4, 3), np.float32))
    good, bad = Tensor(np.array([0, 1, 2, 1], np.int32)), Tensor(np.array([0, 1, 7, 1], np.int32))
    errors = []
    for _ in range(2):  # compiled, then loaded
        f = jit(_module(CHECKED, LOSS=loss).f)
        np.testing.assert_allclose(f(logits, good).asnumpy(), np.log(3.0), rtol=1e-6)
        with pytest.raises((ValueError, IndexError)) as info:
            f(logits, bad)
        errors.append((type(info.value), str(info.value)))
        backend_cache.flush_writes()
    assert _loaded(f) == [True]
    assert errors[0] == errors[1] and "7" in errors[0][1]


def test_a_loaded_executable_tests_its_labels_before_the_launch(store):
    """Kept with its argument tests: loaded, a good label runs no checked program; a bad one builds it once."""
    from kiln import nn

    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    logits = Tensor(np.zeros((4, 3), np.float32))
    good, bad = Tensor(np.array([0, 1, 2, 1], np.int32)), Tensor(np.array([0, 1, 7, 1], np.int32))
    jit(_module(CHECKED, LOSS=loss).f)(logits, good)
    backend_cache.flush_writes()
    f = jit(_module(CHECKED, LOSS=loss).f)
    runs, builds = build_mod.STATS["checked_runs"], build_mod.STATS["checked_builds"]
    np.testing.assert_allclose(f(logits, good).asnumpy(), np.log(3.0), rtol=1e-6)
    assert _loaded(f) == [True]
    assert build_mod.STATS["checked_runs"] == runs
    for _ in range(2):
        with pytest.raises(ValueError, match="7"):
            f(logits, bad)
    assert (build_mod.STATS["checked_runs"], build_mod.STATS["checked_builds"]) == (runs + 2, builds + 1)


TRAIN_STEP = """
import numpy as np
import kiln as ms
from kiln import nn


class Net(nn.Cell):  # a user Cell: super() puts the class in a closure cell of its own __init__
    def __init__(self):
        super().__init__()
        self.fc = nn.Dense(4, 2, weight_init="ones", bias_init="zeros")

    def construct(self, x):
        return self.fc(x) * SCALE


def step():
    net = Net()
    return nn.TrainOneStepCell(nn.WithLossCell(net, nn.MSELoss()), nn.SGD(net.trainable_params(), 0.1))
"""


def test_standard_train_step_over_a_user_cell_is_kept_and_loaded(store):
    """MindSpore's TrainOneStepCell(WithLossCell(net, loss), opt) over a user-defined Cell: its class refers to
    itself (super()), which once made the fingerprint recurse without end, so the step was never kept on disk."""
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        x, y = Tensor(np.ones((3, 4), np.float32)), Tensor(np.zeros((3, 2), np.float32))
        cold = _module(TRAIN_STEP, name="kiln_persist_train", SCALE=1.0).step()
        expected = [float(cold(x, y)) for _ in range(2)]
        backend_cache.flush_writes()
        assert len(_entries(store.path)) == 1 and len(store.traced) == 1
        warm = _module(TRAIN_STEP, name="kiln_persist_train", SCALE=1.0).step()
        assert [float(warm(x, y)) for _ in range(2)] == expected
        assert len(store.traced) == 1  # loaded, nothing traced
        changed = _module(TRAIN_STEP.replace("* SCALE", "* SCALE * 2"), name="kiln_persist_train", SCALE=1.0).step()
        assert float(changed(x, y)) != expected[0]  # the class's changed method is part of the key
        assert len(store.traced) == 2
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)


def test_a_loaded_train_step_predicts_its_global_step(store, monkeypatch):
    """A training step with a rate per step, kept and loaded: its test of the global step reads the step from the
    device once, then the values the launches predicted (`input_checks.successors`, kept with the executable), and
    the step past the table's end raises."""
    from kiln._compiler import input_checks

    ms.set_context(mode=ms.GRAPH_MODE)
    source = TRAIN_STEP.replace("nn.SGD(net.trainable_params(), 0.1)", "nn.SGD(net.trainable_params(), [0.1] * 4)")
    try:
        x, y = Tensor(np.ones((3, 4), np.float32)), Tensor(np.zeros((3, 2), np.float32))
        cold = _module(source, name="kiln_persist_table", SCALE=1.0).step()
        expected = [float(cold(x, y)) for _ in range(4)]
        backend_cache.flush_writes()
        warm = _module(source, name="kiln_persist_table", SCALE=1.0).step()
        reads = []
        host_value = input_checks._host_value
        monkeypatch.setattr(input_checks, "_host_value", lambda a, *rest: reads.append(a) or host_value(a, *rest))
        assert [float(warm(x, y)) for _ in range(4)] == expected
        assert len(store.traced) == 1  # loaded, nothing traced
        assert len(reads) == 1  # the first global step
        with pytest.raises(IndexError, match=r"4 step\(s\).*step 5 \(global_step 4\)"):
            warm(x, y)
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)


def test_class_digest_of_a_self_referring_class_covers_its_content():
    def make(body):
        namespace = {}
        exec(f"class A:\n    def f(self):\n        return super().{body}\n", {"__name__": "user_mod"}, namespace)
        return namespace["A"]

    first, second = make("__hash__()"), make("__repr__()")
    assert cache._class_digest(first) != cache._class_digest(second)
    assert cache._class_digest(first) == cache._class_digest(make("__hash__()"))


def test_a_program_returning_a_numpy_array_runs(store):
    """The output description holds the array: deciding whether the graph can be kept must not compare it."""
    f = jit(_module("import numpy as np\ndef f(x):\n    return x + 1, np.linspace(1, 10, 4)\n", name="kiln_np_out").f)
    out, arr = f(_x())
    np.testing.assert_array_equal(arr, np.linspace(1, 10, 4))
    np.testing.assert_allclose(out.asnumpy(), _x().asnumpy() + 1)


HELD = """
import numpy as np
import kiln as ms
from kiln import nn


class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc = nn.Dense(3, 2, weight_init="ones", bias_init="zeros")
        self.act = nn.ReLU()

    def construct(self, x):
        return self.act(self.fc(x))


def f(x):
    return NET(x)
"""


def test_a_held_primitive_replaced_after_a_loaded_program_runs_compiles_again(store):
    """A second process (a fresh module) loads the first's program; replacing a held primitive then (the guards rebuilt
    from the disk entry) compiles again, and a network whose primitive was replaced before its first call does not
    load the program of the unreplaced one."""
    x = _x()
    plain = ms.ops.relu(ms.ops.sum(x, 1, keepdim=True)).asnumpy() * np.ones((1, 2), np.float32)
    swapped = ms.ops.sigmoid(ms.ops.sum(x, 1, keepdim=True)).asnumpy() * np.ones((1, 2), np.float32)
    first = _module(HELD, name="kiln_persist_held")
    first.NET = first.Net()
    np.testing.assert_allclose(jit(first.f)(x).asnumpy(), plain, rtol=1e-6)
    backend_cache.flush_writes()
    assert len(store.traced) == 1
    second = _module(HELD, name="kiln_persist_held")
    second.NET = second.Net()
    f = jit(second.f)
    np.testing.assert_allclose(f(x).asnumpy(), plain, rtol=1e-6)
    assert _loaded(f) == [True] and len(store.traced) == 1
    second.NET.act.relu = ms.ops.Sigmoid()
    np.testing.assert_allclose(f(x).asnumpy(), swapped, rtol=1e-6)
    assert len(store.traced) == 2
    backend_cache.flush_writes()
    third = _module(HELD, name="kiln_persist_held")
    third.NET = third.Net()
    third.NET.act.relu = ms.ops.Sigmoid()  # before its first call: the key covers the held primitives
    np.testing.assert_allclose(jit(third.f)(x).asnumpy(), swapped, rtol=1e-6)


EDITED = """
import numpy as np
import kiln as ms
from kiln import nn


class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc = nn.Dense(3, 3, weight_init=ms.Tensor(np.arange(9, dtype=np.float32).reshape(3, 3) - 4),
                           bias_init="zeros")
        self.act = nn.LeakyReLU(0.2)
        self.mm = ms.ops.MatMul()

    def construct(self, x):
        return self.mm(self.act(self.fc(x)), self.fc.weight)


def f(x):
    return NET(x)
"""


@pytest.mark.parametrize(
    "edit",
    [
        lambda net: setattr(net.act, "alpha", 0.7),  # a library Cell's plain attribute
        lambda net: setattr(net.fc.matmul, "transpose_b", False),  # a primitive a layer holds
        lambda net: net.mm.add_prim_attr("transpose_b", True),  # a user Cell's primitive
    ],
    ids=["library cell attribute", "held primitive attribute", "user primitive attribute"],
)
def test_an_attribute_changed_after_a_loaded_program_runs_compiles_again(store, edit):
    """A second process (a fresh module) loads the first's program; changing an attribute that program read then
    compiles again (the loaded entry's guards count edits as a traced one's do), and a network changed before its
    first call does not load the program of the unchanged one (the key covers the attributes)."""
    x = Tensor(np.linspace(-1, 1, 6).reshape(2, 3).astype(np.float32))
    reference = _module(EDITED, name="kiln_persist_edited")
    reference.NET = reference.Net()
    edit(reference.NET)
    changed = reference.NET(x).asnumpy()  # PyNative, after the change
    first = _module(EDITED, name="kiln_persist_edited")
    first.NET = first.Net()
    plain = jit(first.f)(x).asnumpy()
    assert not np.allclose(plain, changed)
    backend_cache.flush_writes()
    traced = len(store.traced)
    second = _module(EDITED, name="kiln_persist_edited")
    second.NET = second.Net()
    f = jit(second.f)
    np.testing.assert_allclose(f(x).asnumpy(), plain, rtol=1e-6)
    assert _loaded(f) == [True] and len(store.traced) == traced
    edit(second.NET)
    np.testing.assert_allclose(f(x).asnumpy(), changed, rtol=1e-5, atol=1e-6)
    backend_cache.flush_writes()
    third = _module(EDITED, name="kiln_persist_edited")
    third.NET = third.Net()
    edit(third.NET)  # before its first call
    np.testing.assert_allclose(jit(third.f)(x).asnumpy(), changed, rtol=1e-5, atol=1e-6)


IDIOMS = """
import functools
import numpy as np
import kiln as ms
from kiln import nn
from kiln.common import dtype as mstype
from kiln.ops import composite as C
from kiln.ops import functional as F
from kiln.ops import operations as P

RNG = np.random.RandomState(SEED)  # a module's weight generator, read by __init__ (a zoo pattern)
_update = C.MultitypeFuncGraph("update")


@_update.register("Tensor", "Tensor", "Tensor")
def _update_one(lr, param, grad):
    return F.depend(lr, F.assign(param, param * DECAY - lr * grad))


class HyperMapSGD(nn.Optimizer):  # a user optimizer: a MultitypeFuncGraph mapped by a held HyperMap
    def __init__(self, params, lr):
        super().__init__(lr, params)
        self.hyper_map = C.HyperMap()

    def construct(self, grads):
        return self.hyper_map(F.partial(_update, self.get_lr()), self.parameters, grads)


class Net(nn.Cell):  # MindSpore's P.Mul() held by a Cell, a partial of a primitive, an ms.dtype attribute
    def __init__(self):
        super().__init__()
        self.fc = nn.Dense(3, 2, weight_init=ms.Tensor(RNG.randn(2, 3).astype(np.float32)), bias_init="zeros")
        self.mul = P.Mul()
        self.scale = functools.partial(P.Mul(), SCALE)
        self.cast = P.Cast()
        self.dtype = DTYPE

    def construct(self, x):
        y = self.scale(self.mul(self.fc(x), self.fc(x)))
        y = y + P.Fill()(P.DType()(y), P.Shape()(y), 0.5)  # primitives made in construct (a zoo train cell's sens)
        return self.cast(self.cast(y, self.dtype), mstype.float32)


def step():
    net = Net()
    return nn.TrainOneStepCell(nn.WithLossCell(net, nn.MSELoss()), HyperMapSGD(net.trainable_params(), 0.1))


if __name__ == "__main__":
    import json
    from jax._src import compiler

    compiles = []
    _compile = compiler.backend_compile_and_load
    compiler.backend_compile_and_load = lambda *a, **k: compiles.append(1) or _compile(*a, **k)
    ms.set_context(mode=ms.GRAPH_MODE)
    s = step()
    x = ms.Tensor(np.linspace(-1, 1, 12, dtype=np.float32).reshape(4, 3))
    y = ms.Tensor(np.linspace(0, 1, 8, dtype=np.float32).reshape(4, 2))
    losses = [float(s(x, y).asnumpy()) for _ in range(3)]
    loaded = [e.loaded for b in s._kiln_graph_cache.entries.values() for e in b]
    print(json.dumps({"losses": losses, "compiles": len(compiles), "loaded": loaded}))
"""
_IDIOM_GLOBALS = {"SEED": 0, "DECAY": 1.0, "SCALE": 2.0, "DTYPE": ms.float16}


def _idiom_step(store, monkeypatch, cached=True, **changed):
    """Three GRAPH_MODE steps of IDIOMS's train cell (a fresh module: what a second process builds): the losses and
    whether the program was loaded; `cached=False` compiles it with the disk cache off (the fresh compile)."""
    x = Tensor(np.linspace(-1, 1, 12, dtype=np.float32).reshape(4, 3))
    y = Tensor(np.linspace(0, 1, 8, dtype=np.float32).reshape(4, 2))
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        with monkeypatch.context() as m:
            m.setenv(cache.ENV_GRAPH_CACHE, "1" if cached else "0")
            step = _module(IDIOMS, name="kiln_persist_idioms", **{**_IDIOM_GLOBALS, **changed}).step()
            losses = [float(step(x, y).asnumpy()) for _ in range(3)]
            backend_cache.flush_writes()
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    return losses, [e.loaded for b in step._kiln_graph_cache.entries.values() for e in b]


@pytest.mark.parametrize(
    "changed",
    [{"SCALE": 3.0}, {"DTYPE": ms.float32}, {"DECAY": 0.5}, {"SEED": 1}],
    ids=["partial's bound constant", "dtype attribute", "a global of the optimizer's registered function", "seed"],
)
def test_zoo_idioms_are_kept_and_what_they_mean_is_in_the_key(store, monkeypatch, changed):
    """MindSpore's idioms (`P.Mul()` held by a Cell, primitives made and called in construct, `functools.partial` of a
    primitive, an `ms.dtype` attribute, a user optimizer mapping a MultitypeFuncGraph with a held HyperMap, a
    module-level numpy RandomState read by `__init__`) are kept on disk and loaded by a second module. The face
    modules a method names (`P`, `C`, `F`, `ops`) are module subclasses, once walked as objects into an unkeyable
    mappingproxy: never kept. Changing what an idiom means gives another key: the result equals a fresh compile's."""
    first, loaded = _idiom_step(store, monkeypatch)
    assert loaded == [False] and len(_entries(store.path)) == 1
    again, loaded = _idiom_step(store, monkeypatch)
    assert loaded == [True] and again == first and len(store.traced) == 1
    other, loaded = _idiom_step(store, monkeypatch, **changed)
    assert loaded == [False] and len(store.traced) == 2
    assert other == _idiom_step(store, monkeypatch, cached=False, **changed)[0]
    assert other != first


def test_zoo_idioms_in_a_second_process_compile_nothing(tmp_path):
    """The IDIOMS train step run as a script twice on one cache folder: the second process loads the step's program
    and compiles nothing (no XLA compile at all), with the first's losses."""
    script = tmp_path / "idioms_step.py"
    script.write_text(textwrap.dedent(IDIOMS).replace("DECAY", "1.0").replace("SCALE", "2.0")
                      .replace("SEED", "0").replace("DTYPE", "mstype.float16"))  # fmt: skip
    env = {**os.environ, "KILN_CACHE_DIR": str(tmp_path / "xla"), "PYTHONPATH": str(REPO), "KILN_GRAPH_CACHE": "1",
           backend_cache.ENV_SOURCE_KEY: tmp_path.name}  # fmt: skip
    runs = []
    for _ in range(2):
        done = subprocess.run([sys.executable, str(script)], env=env, capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, done.stderr[-2000:]
        runs.append(json.loads(done.stdout.strip().splitlines()[-1]))
    assert runs[0]["loaded"] == [False] and runs[0]["compiles"] > 0
    assert runs[1]["loaded"] == [True] and runs[1]["compiles"] == 0
    assert runs[1]["losses"] == runs[0]["losses"]


def test_a_random_generator_is_keyed_by_its_state():
    """A held generator (numpy's RandomState/Generator, Python's Random) is spelled by its state: the same state
    gives the same key in every process, another state another key (a trace that drew from it baked the draw in);
    one without a state to read is not kept."""

    def key(x):
        fp = cache.Fingerprint()
        fp.add(x)
        return fp.digest()

    for make in (np.random.RandomState, np.random.default_rng, random.Random):
        assert key(make(3)) == key(make(3)) != key(make(4))
        drawn = make(3)
        drawn.random() if hasattr(drawn, "getstate") else drawn.uniform()
        assert key(drawn) != key(make(3))
    with pytest.raises(cache._NoKey):
        key(random.SystemRandom())


def test_kilns_own_log_during_a_trace_does_not_keep_the_program_off_the_disk(monkeypatch, capsys):
    """`KILN_LOG=compiles,cache` lines written while a graph traces (a PyNative kernel compiled for a constant) are
    Kiln's log, not the program's output: they once made every such graph "printed or warned", not kept on disk, so
    turning the log on changed what it reported. A user's print still counts."""
    monkeypatch.setenv("KILN_LOG", "compiles,cache")
    with cache.watch_output() as watch:
        B.compile_log._on_duration(B.compile_log._EVENT, 0.01, fun_name="jit(the PyNative kernel of Fill)")
        cache.not_kept("f", "a reason")
    assert not watch.noisy
    with cache.watch_output() as watch:
        print("a user's line")
    assert watch.noisy
    assert "XLA compiled the PyNative kernel of Fill" in capsys.readouterr().err


TWO_PROGRAMS = """
    import json, sys
    import numpy as np
    import kiln
    from kiln import Tensor, nn, ops
    from kiln._backend import cache, tiers

    kiln.set_context(mode=kiln.GRAPH_MODE)


    class Chain(nn.Cell):
        def __init__(self, depth):
            super().__init__()
            self.depth = depth

        def construct(self, x, w):
            for _ in range(self.depth):  # a few hundred operations: a program with a quick tier (tiers.MIN_OPS)
                x = ops.tanh(ops.matmul(x, w) + 0.5) * 0.9 + x * 0.1
            return x.sum()


    rng = np.random.default_rng(0)
    x = Tensor(rng.standard_normal((16, 32)).astype(np.float32))
    w = Tensor((0.1 * rng.standard_normal((32, 32))).astype(np.float32))
    nets = [Chain(30), Chain(31)]
    out = {"first": [float(n(x, w).asnumpy()) for n in nets]}
    if sys.argv[1:] == ["settle"]:  # a process that runs on: the optimised tiers take over and replace the entries
        tiers.wait()
        out["settled"] = [float(n(x, w).asnumpy()) for n in nets]
        out["swaps"] = tiers.stats["swaps"]
        cache.flush_writes()
    print(json.dumps(out))
"""


def test_programs_whose_optimised_compile_had_not_run_at_exit_are_loaded_by_the_next_process(tmp_path):
    """Two GRAPH_MODE programs run once each in a short process: their optimised compiles had not run when it exited
    (beyond the exit budget; before, the second one's was dropped at exit, queued behind the first's, and the first's
    compiled whatever its cost). Each quick tier is stored at once with the
    program's text, so the next process loads both and compiles nothing (before, it traced and compiled the second
    again: the zoo's fibinet, ssd and hake drivers each did); a process that runs on tiers them up from the stored
    text and replaces the entries, which the next process loads, optimised, to the same values."""
    script = tmp_path / "two_programs.py"
    script.write_text(textwrap.dedent(TWO_PROGRAMS))
    env = {
        **os.environ,
        "KILN_CACHE_DIR": str(tmp_path / "xla"),
        "PYTHONPATH": str(REPO),
        "KILN_GRAPH_CACHE": "1",
        "KILN_LOG": "compiles",
        backend_cache.ENV_SOURCE_KEY: tmp_path.name,
        B.tiers.EXIT_ENV: "0",  # programs too costly to compile within the exit budget
    }
    env.pop(B.tiers.ENV, None)

    def run(*args):
        done = subprocess.run([sys.executable, str(script), *args], env=env, capture_output=True, text=True,
                              timeout=300)  # fmt: skip
        assert done.returncode == 0, done.stderr[-2000:]
        graphs = [line for line in done.stderr.splitlines() if "XLA compiled the graph" in line]
        return json.loads(done.stdout.strip().splitlines()[-1]), graphs

    cold, compiled = run()
    assert len(compiled) >= 2
    warm, compiled = run("settle")
    assert len(compiled) == 2 and all("(optimized tier, from its stored text)" in line for line in compiled)
    assert warm["swaps"] == 2
    np.testing.assert_allclose(warm["first"], cold["first"], rtol=1e-5)
    np.testing.assert_allclose(warm["settled"], cold["first"], rtol=1e-5)
    entries = [p for p in (tmp_path / "xla").iterdir() if p.name.startswith(cache.GRAPH_PREFIX)]
    assert len(entries) == 2 and all("quick" not in pickle.loads(p.read_bytes()) for p in entries)
    optimised, compiled = run()
    assert compiled == [] and optimised["first"] == warm["settled"]
