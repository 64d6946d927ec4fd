"""PyNative's per-primitive executables on disk (kiln/_pynative/dispatch.py + kiln/_backend/cache.py).

A fresh process on a warm cache folder must run its first eager ops without tracing, lowering or compiling
them, compute exactly what a cold process computes, and never read back an executable compiled for another
program (another primitive, other attributes, other input types, other JAX settings or Kiln sources).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

from kiln import Tensor, ops
from kiln._backend import cache, jax
from kiln._core import dtype as mstype
from kiln._core.primitive import REGISTRY, PrimitiveDef
from kiln._pynative import dispatch, tape

REPO = Path(__file__).resolve().parents[2]


def test_disk_key_names_primitive_and_attributes():
    matmul = REGISTRY["MatMul"]
    key = dispatch._disk_key(matmul, (False, True))
    assert key == "MatMul(bool:False,bool:True)"
    assert dispatch._disk_key(matmul, (True, False)) != key
    bwd = matmul.backward((True, False))
    assert dispatch._disk_key(bwd, (False, True)) == "MatMulGrad[10](bool:False,bool:True)"
    assert dispatch._disk_key(matmul.backward((True, True)), (False, True)) != dispatch._disk_key(bwd, (False, True))


@pytest.mark.parametrize(
    ("a", "b"),
    [
        (1, True),  # equal in Python, different programs
        (1, 1.0),
        (0.1, 0.1 + 1e-17 * 2**3),
        ((1, 2), [1, 2]),
        (np.dtype(np.float32), np.dtype(np.float64)),
        (mstype.float32, mstype.float16),
        (np.float32(1.5), 1.5),
        (slice(0, 2), slice(0, 3)),
        ("a", "a "),
        (None, "None"),
    ],
)
def test_disk_key_tells_attribute_values_apart(a, b):
    prim = REGISTRY["MatMul"]
    ka, kb = dispatch._disk_key(prim, (a, 0)), dispatch._disk_key(prim, (b, 0))
    assert ka is not None and kb is not None
    assert (ka == kb) == (a == b and type(a) is type(b) and repr(a) == repr(b))


@pytest.mark.parametrize("value", [lambda x: x, np.arange(3), object(), {"a": 1}, (1, np.arange(2))])
def test_inexact_attribute_keeps_the_kernel_in_memory(value):
    assert dispatch._disk_key(REGISTRY["MatMul"], (value, False)) is None


def test_primitive_from_user_code_is_not_persisted():
    prim = PrimitiveDef("KilnTestUserPrim", lambda x: x * 2)  # declared here, in a test module
    try:
        assert dispatch._disk_key(prim, ()) is None
        assert dispatch._disk_key(prim.backward((True,)), ()) is None
        assert dispatch._disk_key(REGISTRY["ReLU"], ()) is not None  # its impl is JAX's own relu
    finally:
        REGISTRY.pop("KilnTestUserPrim")


def test_environment_is_part_of_the_entry_name():
    before = cache._env_key()
    assert jax.__version__ in before and cache.source_fingerprint() in before
    old = jax.config.jax_default_matmul_precision
    jax.config.update("jax_default_matmul_precision", "highest")
    try:
        assert cache._env_key() != before
    finally:
        jax.config.update("jax_default_matmul_precision", old)
    assert cache._env_key() == before


def test_signature_and_device_are_part_of_the_entry_name():
    x32 = jax.device_put(np.ones((2, 3), np.float32))
    x64 = jax.device_put(np.ones((2, 3), np.float64))
    dev = jax.devices()[0]
    text = lambda *xs: cache._entry_text("k", tuple(cache._describe(x) for x in xs), dev)  # noqa: E731
    assert text(x32) != text(x64)
    assert text(x32) != text(jax.device_put(np.ones((3, 2), np.float32)))
    assert text(x32, 1) != text(x32, 1.0) != text(x32, None)
    assert dev.platform in text(x32)


def test_weak_and_strong_inputs_get_their_own_executables(tmp_path, monkeypatch):
    # A weak-typed input traces to another program (its result is weak too): in memory and on disk it is kept
    # apart from a strong input of the same shape and dtype.
    monkeypatch.setattr(cache, "_store", cache.DiskCache(tmp_path, 2**30))
    weak = jax.numpy.asarray(2.0)  # (made the same way: the same placement)
    strong = jax.numpy.asarray(np.array(2.0, weak.dtype))
    assert weak.weak_type and not strong.weak_type
    fn = cache.PersistentJit(lambda a: a + 1, "test-weak")
    outs = [fn(x) for x in (strong, weak, strong, weak)]
    assert [o.weak_type for o in outs] == [False, True, False, True]
    assert len(fn._mem) == 2
    dev = jax.devices()[0]
    assert cache._entry_text("k", (cache._describe(weak),), dev) != cache._entry_text(
        "k", (cache._describe(strong),), dev
    )
    cache.flush_writes()


def test_source_fingerprint_follows_the_sources(tmp_path, monkeypatch):
    (tmp_path / "pkg").mkdir()
    src = tmp_path / "pkg" / "mod.py"
    src.write_text("X = 1\n")
    first = cache.source_fingerprint(tmp_path)
    assert cache.source_fingerprint(tmp_path) == first
    src.write_text("X = 22\n")
    assert cache.source_fingerprint(tmp_path) != first
    monkeypatch.setenv(cache.ENV_SOURCE_KEY, "release-1")
    assert cache.source_fingerprint() == "key:release-1"
    monkeypatch.delenv(cache.ENV_SOURCE_KEY)
    assert cache.source_fingerprint() != "key:release-1"


def _rewrite_keeping_times(path: Path, text: str) -> None:
    """Write `text` over `path` and set its times back (`cp -p`, `rsync -t`, a wheel or image with fixed times)."""
    st = path.stat()
    path.write_text(text)
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))


def test_source_fingerprint_follows_contents_not_times(tmp_path, monkeypatch):
    """Another file of the same size and modification time is other code: the fingerprint hashed sizes and times,
    so a tree copied or installed with fixed times loaded the executables of another tree's code. A copy of the
    same code with new times has the same fingerprint (its entries are shared)."""
    tree = tmp_path / "tree"
    (tree / "pkg").mkdir(parents=True)
    src = tree / "pkg" / "mod.py"
    src.write_text("SCALE = 0.5\n")
    (tree / "pkg" / "other.py").write_text("def f():\n    return 1\n")
    first = cache.source_fingerprint(tree)
    _rewrite_keeping_times(src, "SCALE = 0.7\n")
    assert cache.source_fingerprint(tree) != first
    _rewrite_keeping_times(src, "SCALE = 0.5\n")
    assert cache.source_fingerprint(tree) == first
    copy = tmp_path / "copy"
    shutil.copytree(tree, copy, copy_function=shutil.copy)  # new modification times, same contents
    assert cache.source_fingerprint(copy) == first


def test_source_fingerprint_reads_only_files_written_since_its_stamp(tmp_path, monkeypatch):
    """The stamp in the cache folder keeps each file's digest under its stat: a second process reads no file, and
    after a rewrite that keeps the size and times, it reads that file (its change time moved) and sees new code."""
    tree, stamps = tmp_path / "tree", tmp_path / "xla"
    (tree / "pkg").mkdir(parents=True)
    stamps.mkdir()
    for name in ("a", "b", "c"):
        (tree / "pkg" / f"{name}.py").write_text(f"NAME = {name!r}\n")
    read = []
    digest = cache.file_digest
    monkeypatch.setattr(cache, "file_digest", lambda p: read.append(Path(p).name) or digest(p))
    first = cache.source_fingerprint(tree, stamp_dir=stamps)
    assert sorted(read) == ["a.py", "b.py", "c.py"] and len(list(stamps.glob("kiln-sources-*.json"))) == 1
    read.clear()
    assert cache.source_fingerprint(tree, stamp_dir=stamps) == first and read == []
    _rewrite_keeping_times(tree / "pkg" / "b.py", "NAME = 'x'\n")
    assert cache.source_fingerprint(tree, stamp_dir=stamps) != first and read == ["b.py"]
    (stamps / next(stamps.glob("kiln-sources-*.json")).name).write_text("{damaged")
    read.clear()
    assert cache.source_fingerprint(tree, stamp_dir=stamps) != first and len(read) == 3


def _drain_background_work() -> None:
    ahead = cache._threads.get(cache._AHEAD)
    if ahead is not None:
        ahead.submit(lambda: None).result()  # one worker: what came before is done
    cache.wait_optimized()
    cache.flush_writes()


@pytest.mark.parametrize("chosen", [None, "device", "platform"])
def test_a_program_without_array_inputs_is_kept_on_disk(tmp_path, monkeypatch, chosen):
    """A program of no array input (a lazy window of `ms.numpy.zeros`, a Fill: MobileNetV2's weight init made eight)
    had no input placement to name its device, so it was never stored and every process compiled it again. Also
    after `set_context(device_target=...)` chose JAX's default device (most zoo scripts do): that went unstored."""
    _drain_background_work()  # an earlier test's compile-ahead or optimised tier must not land in this store
    default = {None: None, "device": jax.devices("cpu")[0], "platform": "cpu"}[chosen]
    before = jax.config.jax_default_device
    jax.config.update("jax_default_device", default)
    try:
        _check_one_entry_and_one_compile(tmp_path, monkeypatch)
    finally:
        jax.config.update("jax_default_device", before)


def _check_one_entry_and_one_compile(tmp_path, monkeypatch) -> None:
    monkeypatch.setattr(cache, "_store", cache.DiskCache(tmp_path, 2**30))
    monkeypatch.setattr(cache, "_ours", True)
    compiled = []
    compile_with_options = cache._compile_with_options

    def counting(*a, **k):
        compiled.append(1)
        return compile_with_options(*a, **k)

    monkeypatch.setattr(cache, "_compile_with_options", counting)
    for _ in range(2):  # the second PersistentJit (a later process's) loads the first's entry
        fn = cache.PersistentJit(lambda: jax.numpy.full((3,), 2.0, np.float32), "test-no-inputs")
        np.testing.assert_array_equal(np.asarray(fn()), [2.0, 2.0, 2.0])
        cache.flush_writes()
    assert len(list(tmp_path.glob("kiln-k3-*"))) == 1 and compiled == [1]


def test_memory_is_bounded_per_kernel(tmp_path, monkeypatch):
    monkeypatch.setattr(cache, "_store", cache.DiskCache(tmp_path, 2**30))
    monkeypatch.setattr(cache, "MAX_SIGNATURES", 2)
    fn = cache.PersistentJit(lambda a: a + 1, "test-bound")
    for n in range(1, 5):
        np.testing.assert_array_equal(np.asarray(fn(jax.device_put(np.zeros(n, np.float32)))), np.ones(n))
        assert len(fn._mem) <= 2
    cache.flush_writes()


def test_kernels_are_bounded_across_attributes(tmp_path, monkeypatch):
    """Attributes may hold shapes (Reshape's): a process meeting ever new ones keeps at most MAX_KERNELS kernels, the
    oldest dropped, and a dropped kernel computes the same when it is needed again."""
    monkeypatch.setattr(cache, "_store", cache.DiskCache(tmp_path, 2**30))
    monkeypatch.setattr(dispatch, "LAZY", False)
    monkeypatch.setattr(dispatch, "MAX_KERNELS", 3, raising=False)
    monkeypatch.setattr(dispatch, "_compiled", dict(dispatch._compiled))
    a = np.arange(24, dtype=np.float32)
    shapes = [(2, 12), (3, 8), (4, 6), (6, 4), (8, 3), (12, 2), (24, 1)]
    for shape in [*shapes, shapes[0]]:
        before = len(dispatch._compiled)
        np.testing.assert_array_equal(ops.reshape(Tensor(a), shape).asnumpy(), a.reshape(shape))
        assert len(dispatch._compiled) <= max(3, before)
    # the kernel run twice is optimised on a background thread and stored: into this test's folder, not the next's
    cache.wait_optimized()
    cache.flush_writes()


def test_damaged_entry_is_replaced(tmp_path, monkeypatch):
    monkeypatch.setattr(cache, "_store", cache.DiskCache(tmp_path, 2**30))
    x = jax.device_put(np.arange(4, dtype=np.float32))
    cache.PersistentJit(lambda a: a * 3, "test-damaged")(x)
    cache.flush_writes()
    (entry,) = tmp_path.glob(f"kiln-*{cache.SUFFIX}")
    entry.write_bytes(b"not an executable")
    np.testing.assert_array_equal(np.asarray(cache.PersistentJit(lambda a: a * 3, "test-damaged")(x)), [0, 3, 6, 9])
    cache.flush_writes()
    assert entry.read_bytes() != b"not an executable"  # a good copy was written in its place
    np.testing.assert_array_equal(np.asarray(cache.PersistentJit(lambda a: a * 3, "test-damaged")(x)), [0, 3, 6, 9])


_STEP = textwrap.dedent(
    """
    import json, time
    import numpy as np
    from jax._src import compiler
    compiles = []
    _orig = compiler.backend_compile_and_load
    def _count(*a, **k):
        compiles.append(1)
        return _orig(*a, **k)
    compiler.backend_compile_and_load = _count
    import kiln as ms
    from kiln import nn, ops
    from kiln._backend import cache
    ms.set_seed(0)
    net = nn.SequentialCell(nn.Dense(6, 5), nn.ReLU(), nn.Dense(5, 3))
    loss_fn = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    opt = nn.Momentum(net.trainable_params(), 0.1, 0.9)
    grad_fn = ms.value_and_grad(lambda x, y: loss_fn(net(x), y), None, opt.parameters)
    x = ms.Tensor(np.linspace(-1, 1, 24, dtype=np.float32).reshape(4, 6))
    y = ms.Tensor(np.array([0, 1, 2, 1], np.int32))
    losses = []
    for _ in range(2):
        loss, grads = grad_fn(x, y)
        opt(grads)
        losses.append(float(loss.asnumpy()))
    print(json.dumps({"losses": losses, "weights": [p.asnumpy().tolist() for p in net.trainable_params()],
                      "compiles": len(compiles), "fingerprint": cache.source_fingerprint()}))
    """
)


def _run_step(folder: Path) -> dict:
    # Kiln's sources are edited while the suite runs (the fingerprint would change between the two processes)
    env = {**os.environ, "KILN_CACHE_DIR": str(folder), "PYTHONPATH": str(REPO), cache.ENV_SOURCE_KEY: folder.name}
    done = subprocess.run([sys.executable, "-c", _STEP], env=env, capture_output=True, text=True, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_warm_process_compiles_nothing_and_computes_the_same(tmp_path, dispatch_mode):
    """A training step in a fresh process: cold, it compiles and stores its kernels (before it exits); warm,
    it loads every one of them (no XLA compile at all) and gets bit-identical losses and weights. Op by op
    (KILN_LAZY=0) that is a kernel per op; with the lazy window, the whole step is one program."""
    folder = tmp_path / "xla"
    cold = _run_step(folder)
    entries = cache.info(folder).entries
    warm = _run_step(folder)
    assert cold["fingerprint"] == warm["fingerprint"] == "key:xla"
    assert cold["compiles"] > (0 if dispatch_mode == "lazy" else 5) and entries >= cold["compiles"] - 3
    assert warm["compiles"] == 0
    assert cache.info(folder).entries == entries  # nothing new written
    assert warm["losses"] == cold["losses"] and warm["weights"] == cold["weights"]
    assert warm["losses"][1] < warm["losses"][0]


def test_cache_off_still_computes_the_same(tmp_path):
    on = _run_step(tmp_path / "xla")
    env = {**os.environ, "KILN_CACHE_DIR": "off", "PYTHONPATH": str(REPO)}
    done = subprocess.run([sys.executable, "-c", _STEP], env=env, capture_output=True, text=True, check=True)
    off = json.loads(done.stdout.strip().splitlines()[-1])
    assert off["losses"] == on["losses"] and off["weights"] == on["weights"]


def _grad_of_small_net(seed: int):
    import kiln as ms
    from kiln import Parameter, Tensor, ops

    rng = np.random.default_rng(seed)
    w = Parameter(Tensor(rng.standard_normal((4, 3)).astype(np.float32)), name="w")
    x = Tensor(rng.standard_normal((5, 4)).astype(np.float32))

    def f(x):
        return ops.reduce_sum(ops.tanh(ops.matmul(x, w)) * 2.0)

    loss, (gw,) = ms.value_and_grad(f, None, [w])(x)
    return float(loss.asnumpy()), gw.asnumpy()


def test_backward_kernels_compile_ahead_on_a_worker(tmp_path, monkeypatch):
    """While the forward runs, each recorded op's backward kernel is compiled on the compile-ahead thread; the
    gradient is the same as without it. (The op-by-op backward: with the backward run as one program, the
    per-op kernels are not compiled at all.)"""
    import threading

    monkeypatch.setattr(tape, "FUSED_BACKWARD", False)
    monkeypatch.setattr(dispatch, "LAZY", False)  # forward ops launched one by one, as the backward's are
    monkeypatch.setattr(cache, "_store", cache.DiskCache(tmp_path, 2**30))
    monkeypatch.setattr(cache, "_ours", True)
    where = []
    original = cache.PersistentJit._load_or_compile

    def spy(self, sig, args):
        where.append((self._key.split("(")[0], threading.current_thread().name))
        return original(self, sig, args)

    monkeypatch.setattr(cache.PersistentJit, "_load_or_compile", spy)
    results, counts = {}, {}
    for ahead in (False, True):
        monkeypatch.setattr(dispatch, "COMPILE_BACKWARD_AHEAD", ahead)
        monkeypatch.setattr(dispatch, "_compiled", {})
        where.clear()
        results[ahead] = _grad_of_small_net(0)
        counts[ahead] = len(where)
        grads = [(k, t) for k, t in where if "Grad[" in k]
        assert grads, where
        on_worker = [k for k, t in grads if t.startswith("kiln-compile-ahead")]
        assert (len(on_worker) == len(grads)) if ahead else not on_worker, where
    assert counts[True] == counts[False]  # the predicted backward kernels were the ones needed: none wasted
    assert results[True][0] == results[False][0]
    np.testing.assert_array_equal(results[True][1], results[False][1])
    cache.flush_writes()


def test_persistent_jit_with_donated_inputs(tmp_path, monkeypatch):
    """Graph mode's executables donate their state buffers: the stored executable keeps doing so."""
    monkeypatch.setattr(cache, "_store", cache.DiskCache(tmp_path, 2**30))
    monkeypatch.setattr(cache, "_ours", True)
    make = lambda: cache.persistent_jit(lambda x, s: (x * 2, s + x), "test-donate", donate_argnums=(1,))  # noqa: E731
    x = jax.device_put(np.arange(3, dtype=np.float32))
    fn = make()
    out, state = fn(x, jax.device_put(np.ones(3, np.float32)))
    cache.flush_writes()
    (entry,) = tmp_path.glob(f"kiln-*{cache.SUFFIX}")
    assert entry.stat().st_size > 0
    fn2 = make()  # a new function object: it loads the entry
    out2, state2 = fn2(x, jax.device_put(np.ones(3, np.float32)))
    np.testing.assert_array_equal(np.asarray(out2), np.asarray(out))
    np.testing.assert_array_equal(np.asarray(state2), [1, 2, 3])
    assert len(list(tmp_path.glob(f"kiln-*{cache.SUFFIX}"))) == 1
    assert "donate" in fn2._key and "donate" not in cache.PersistentJit(lambda x: x, "k")._key


def test_settings_in_force_are_part_of_the_key(tmp_path, monkeypatch):
    """A JAX setting changed for a block of code (here the matmul precision) gets its own executable, in memory
    and on disk, as jax.jit would."""
    monkeypatch.setattr(cache, "_store", cache.DiskCache(tmp_path, 2**30))
    x = jax.device_put(np.arange(6, dtype=np.float32).reshape(2, 3))
    fn = cache.PersistentJit(lambda a, b: a @ b, "test-precision")
    fn(x, x.T)
    with jax.default_matmul_precision("highest"):
        np.testing.assert_allclose(np.asarray(fn(x, x.T)), np.asarray(x) @ np.asarray(x).T)
    fn(x, x.T)
    assert len(fn._mem) == 2
    cache.flush_writes()
    assert len(list(tmp_path.glob(f"kiln-*{cache.SUFFIX}"))) == 2
