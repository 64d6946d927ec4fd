"""Top-level runtime API: RNG state, dtype helpers and aliases, buffers, streams, events, memory statistics."""

from __future__ import annotations

import numpy as np
import pytest

import kiln as ms
from kiln import Tensor, ops
from kiln._core import unsupported
from kiln._core.tensor import LAZY_WINDOWS
from kiln._pynative import dispatch
from kiln.common import runtime


def test_rng_state_roundtrip_and_seeds():
    ms.manual_seed(11)
    assert ms.initial_seed() == 11
    first = ops.rand(3).asnumpy()
    ms.manual_seed(11)
    np.testing.assert_array_equal(ops.rand(3).asnumpy(), first)
    state = ms.get_rng_state()
    a = ops.rand(4).asnumpy()
    ms.set_rng_state(state)
    np.testing.assert_array_equal(ops.rand(4).asnumpy(), a)
    chosen = ms.seed()
    assert isinstance(chosen, int) and ms.initial_seed() == chosen
    assert ms.default_generator.initial_seed() == chosen
    with pytest.raises(ValueError):
        ms.manual_seed(-1)


def test_generator_object():
    g = ms.Generator()
    assert g.initial_seed() == 0
    assert g.manual_seed(5) is g and g.initial_seed() == 5
    s = g.get_state()
    k1 = np.asarray(g._next_key())
    g.set_state(s)
    np.testing.assert_array_equal(np.asarray(g._next_key()), k1)
    with pytest.raises(ValueError):
        g.set_state(Tensor(np.zeros(5, np.uint32)))


def test_dtype_helpers_and_aliases():
    assert ms.float is ms.float32 and ms.int is ms.int32 and ms.long is ms.int64 and ms.bool is ms.bool_
    assert ms.byte is ms.int8 and ms.ubyte is ms.uint8 and ms.cfloat is ms.complex64 and ms.cdouble is ms.complex128
    assert ms.dtype_to_nptype(ms.float16) is np.float16
    assert ms.dtype_to_pytype(ms.int8) is int and ms.dtype_to_pytype(ms.bool_) is bool
    assert ms.dtype_to_pytype(ms.complex64) is complex and ms.dtype_to_pytype(ms.string) is str
    assert ms.get_py_obj_dtype(1) is ms.int64 and ms.get_py_obj_dtype(1.0) is ms.float64
    assert ms.get_py_obj_dtype(True) is ms.bool_ and ms.get_py_obj_dtype(None) is ms.type_none
    assert ms.get_py_obj_dtype((1,)) is ms.tuple_ and ms.get_py_obj_dtype([1]) is ms.list_
    assert ms.get_py_obj_dtype(np.int32) is ms.int32
    assert ms.get_py_obj_dtype(Tensor([1.0])) == ms.TensorType(ms.float32)
    assert str(ms.TensorType(ms.float32)) == "Tensor[Float32]" and str(ms.tensor_type) == "Tensor"
    assert ms.TensorType(ms.int8).element_type() is ms.int8
    assert isinstance(ms.float32, ms.Type) and isinstance(ms.int16, ms.Int) and not isinstance(ms.uint8, ms.Int)
    assert ms.Int(64) is ms.int64 and isinstance(ms.number, ms.Type)


def test_buffers_and_dlpack():
    raw = np.arange(6, dtype=np.float32).tobytes()
    np.testing.assert_array_equal(ms.frombuffer(raw, ms.float32).asnumpy(), np.arange(6))
    np.testing.assert_array_equal(ms.frombuffer(bytearray(raw), ms.float32, count=2, offset=4).asnumpy(), [1, 2])
    t = Tensor(np.arange(5, dtype=np.int32))
    np.testing.assert_array_equal(np.from_dlpack(ms.to_dlpack(t)), np.arange(5))
    back = ms.from_dlpack(ms.to_dlpack(t))
    assert back.dtype == ms.int32
    np.testing.assert_array_equal(back.asnumpy(), np.arange(5))
    np.testing.assert_array_equal(ms.from_dlpack(np.arange(3.0)).asnumpy(), [0.0, 1.0, 2.0])


def test_swap_tensors_and_constexpr():
    a, b = Tensor(np.ones(2, np.float32)), Tensor(np.zeros(3, np.int32))
    ms.swap_tensors(a, b)
    assert a.shape == (3,) and a.dtype == ms.int32 and b.shape == (2,)

    @ms.constexpr
    def double(n):
        return n * 2

    assert double(3) == 6

    @ms.jit
    def f(x):
        return x * double(2)

    np.testing.assert_allclose(f(Tensor(np.ones(2, np.float32))).asnumpy(), [4.0, 4.0])


def test_streams_events_memory():
    s = ms.Stream()
    assert ms.current_stream() == ms.default_stream() == s
    with ms.StreamCtx(s) as inside:
        assert inside is s and ms.current_stream() is s
    x = ops.matmul(Tensor(np.ones((64, 64), np.float32)), Tensor(np.ones((64, 64), np.float32)))
    e = ms.Event()
    e.record()
    e.synchronize()
    assert e.query()
    ms.synchronize()
    assert s.query()
    start, end = ms.Event(enable_timing=True), ms.Event(enable_timing=True)
    start.record()
    x = ops.add(x, 1)
    end.record()
    assert start.elapsed_time(end) >= 0.0
    with pytest.raises(RuntimeError):
        ms.Event().elapsed_time(ms.Event())
    ms.empty_cache()
    target, device_id = ms.get_current_device()
    assert target in ("CPU", "GPU") and device_id >= 0


_STAT_KEYS = ("total_reserved_memory", "total_allocated_memory", "total_idle_memory", "total_eager_free_memory",
              "max_reserved_memory", "max_allocated_memory")  # fmt: skip


def test_memory_stats_on_cpu_are_the_documented_zeros():
    """On CPU the backend keeps no pool: every figure is the documented 0, before and after a 64 MB tensor."""
    if ms.get_current_device()[0] != "CPU":
        pytest.skip("the documented zeros are CPU's; a device with an allocator is checked below")
    big = ops.ones((4096, 4096), ms.float32)
    stats = ms.memory_stats()
    assert {key: stats[key] for key in _STAT_KEYS} == dict.fromkeys(_STAT_KEYS, 0)
    assert stats["device_stats"] == {}
    assert (ms.memory_allocated(), ms.max_memory_allocated(), ms.memory_reserved(), ms.max_memory_reserved()) == (
        0, 0, 0, 0)  # fmt: skip
    summary = ms.memory_summary()
    assert summary.splitlines()[0] == "Kiln device memory summary"
    assert "  total_allocated_memory: 0" in summary.splitlines() and "device_stats" not in summary
    ms.reset_peak_memory_stats()
    assert ms.max_memory_allocated() == 0 and ms.max_memory_reserved() == 0
    del big


def test_memory_allocated_grows_with_a_big_tensor_on_a_device():
    if ms.get_current_device()[0] == "CPU":
        pytest.skip("CPU keeps no allocator statistics (their documented value, 0, is checked above)")
    before = ms.memory_allocated()
    big = ops.ones((4096, 4096), ms.float32)
    ms.synchronize()
    assert ms.memory_allocated() - before >= 4096 * 4096 * 4
    assert ms.max_memory_allocated() >= ms.memory_allocated() and ms.memory_reserved() >= ms.memory_allocated()
    stats = ms.memory_stats()
    assert stats["total_allocated_memory"] == ms.memory_allocated()
    del big


def test_settings_checked(capsys):
    ms.set_recursion_limit(2000)
    with pytest.raises(ValueError):
        ms.set_recursion_limit(0)
    with pytest.raises(TypeError):
        ms.set_deterministic("yes")
    with pytest.raises(ValueError):
        ms.set_memory(max_size=3)
    net = ms.nn.Dense(2, 2)
    ms.set_dump(net)
    assert net._kiln_dump is True
    # one store: the top-level functions are kiln.parallel's (they were a second, separate copy)
    assert ms.set_algo_parameters is ms.parallel.set_algo_parameters
    unsupported._warned.discard(("set_algo_parameters", "fully_use_devices"))  # warned once a process
    with pytest.warns(UserWarning, match="fully_use_devices"):
        ms.set_algo_parameters(fully_use_devices=True)
    assert ms.get_algo_parameters("fully_use_devices") is True
    assert ms.parallel.get_algo_parameters("fully_use_devices") is True
    ms.reset_algo_parameters()
    assert ms.get_algo_parameters("fully_use_devices") is False
    ms.run_check()
    assert "successfully" in capsys.readouterr().out


def test_profiler_writes_a_trace(tmp_path):
    prof = ms.Profiler(output_path=str(tmp_path))
    ops.add(Tensor(np.ones(4, np.float32)), 1).asnumpy()
    prof.analyse()
    assert list(tmp_path.rglob("*.xplane.pb"))


def test_enable_dynamic_device_ctx_recycle(monkeypatch):
    @ms.enable_dynamic(y=Tensor(shape=(-1, 3), dtype=ms.float32))
    @ms.jit
    def f(x, y):
        return x + 1, y + 1

    for rows in (2, 5):
        assert f(Tensor(np.ones(2, np.float32)), Tensor(np.ones((rows, 3), np.float32)))[1].shape == (rows, 3)
    with pytest.raises(ValueError, match="not parameters"):
        ms.enable_dynamic(z=Tensor(shape=(-1,), dtype=ms.float32))(f)
    with pytest.raises(TypeError):
        ms.enable_dynamic(y=3)
    # The recycle's jax.clear_caches would make every later test in this pytest worker compile its programs again
    # (the test took 41 s mid-suite on the 2-core CI machine, 1.8 s alone): the call is recorded, not made.
    dropped = []
    monkeypatch.setattr(runtime, "drop_compiled_programs", lambda: dropped.append(True))
    ms.ms_memory_recycle()
    assert dropped
    np.testing.assert_array_equal(
        f(Tensor(np.ones(2, np.float32)), Tensor(np.ones((1, 3), np.float32)))[0].asnumpy(), 2
    )
    with ms.DeviceCtx("CPU"):
        assert ops.ones(2).asnumpy().tolist() == [1.0, 1.0]
    with pytest.raises(ValueError):
        ms.DeviceCtx("TPU9")


def test_mstype_module_and_runtime_path():
    from kiln._core import dtype as mstype  # noqa: PLC0415  (what `import mindspore.common.dtype` gives)
    from kiln.cli.alias import kiln_name  # noqa: PLC0415

    assert mstype.dtype_to_nptype(mstype.complex128) is np.complex128 and mstype.tensor_type is ms.tensor_type
    assert mstype.get_py_obj_dtype(float) is ms.float64 and mstype.get_py_obj_dtype(1j) is ms.complex128
    assert mstype.get_py_obj_dtype(list) is ms.list_ and mstype.get_py_obj_dtype(type(None)) is ms.type_none
    with pytest.raises(NotImplementedError):
        mstype.get_py_obj_dtype(type)
    assert kiln_name("mindspore.runtime") == "kiln.runtime"
    assert mstype.long is ms.int64 and not hasattr(mstype, "bool")  # its code calls the builtin bool
    assert ops.full((2, 2), 1).dtype is ms.int64


def test_mstype_pytype_to_dtype_maps_a_type():
    # MindSpore 2.10's table (mindspore.common.dtype._simple_types): a type, not a value; float is float64. Kiln's
    # took a value (pytype_to_dtype(np.int8) was "expected a Python number"; 1.0 gave float32).
    from kiln._core import dtype as mstype  # noqa: PLC0415  (what `import mindspore.common.dtype` gives)

    table = {bool: ms.bool_, int: ms.int64, float: ms.float64, complex: ms.complex128, str: ms.string,
             list: ms.list_, tuple: ms.tuple_, type(None): ms.type_none, np.int8: ms.int8, np.uint16: ms.uint16,
             np.float16: ms.float16, np.bool_: ms.bool_}  # fmt: skip
    for py, want in table.items():
        assert mstype.pytype_to_dtype(py) is want, py
    assert mstype.pytype_to_dtype(np.dtype(np.int32)) is ms.int32 and mstype.pytype_to_dtype(ms.float16) is ms.float16
    with pytest.raises(TypeError, match="must be a type"):
        mstype.pytype_to_dtype(1.0)


def test_common_package_and_star_imports():
    import kiln.common as common  # noqa: PLC0415

    assert common.COOTensor is ms.COOTensor and common.Generator is ms.Generator and common.long is ms.int64
    assert common.float is ms.float32 and common.get_py_obj_dtype(1) is ms.int64
    for module in ("kiln", "kiln.common"):
        scope: dict = {}
        exec(f"from {module} import *", scope)
        assert "float" not in scope and "int" not in scope and "bool" not in scope  # the builtins stay
        assert scope["long"] is ms.int64


def test_synchronize_runs_the_recorded_ops_and_raises_their_errors(monkeypatch):
    """`synchronize` waits for PyNative's recorded ops too: a pending result is computed, and an op whose bounds
    check waits for its window (an index computed in it) raises there at the latest, not at a later unrelated read."""
    monkeypatch.setattr(dispatch, "LAZY", True)
    monkeypatch.setenv("KILN_LAZY", "1")
    a = Tensor(np.arange(6, dtype=np.float32))
    y = ops.add(a, a)
    assert LAZY_WINDOWS and LAZY_WINDOWS[0].ops  # recorded, not run
    ms.synchronize()
    assert not LAZY_WINDOWS[0].ops
    np.testing.assert_array_equal(y.asnumpy(), np.arange(6, dtype=np.float32) * 2)
    index = ops.add(Tensor(np.array([1, 2], np.int32)), Tensor(np.array([0, 7], np.int32)))  # 9: past 6
    ops.gather(a, index, 0)
    with pytest.raises(IndexError):
        ms.synchronize()
    np.testing.assert_array_equal(ops.add(a, a).asnumpy(), np.arange(6, dtype=np.float32) * 2)  # nothing left over


def test_runtime_is_a_module_of_the_package():
    """`ms.runtime.synchronize()` and `import mindspore.runtime` (MindSpore 2.10's spelling) reach Kiln's runtime
    controls: the module is bound on the package and importable by path, with the names MindSpore's has that Kiln
    implements."""
    import importlib  # noqa: PLC0415

    module = importlib.import_module("kiln.runtime")
    assert ms.runtime is module
    for name in ("synchronize", "Stream", "Event", "memory_allocated", "max_memory_allocated", "empty_cache"):
        assert callable(getattr(ms.runtime, name)), name
    ms.runtime.synchronize()
