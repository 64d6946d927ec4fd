"""kiln.export / kiln.load: a network written as StableHLO in Kiln's container and run back without its source."""

from __future__ import annotations

import numpy as np
import pytest

import kiln as ms
from kiln import Tensor, nn
from kiln.nn.graph_cell import GraphCell


class _TwoOut(nn.Cell):
    def construct(self, a, b):
        return a + b, a * b


def test_export_load_roundtrip(tmp_path):
    net = nn.SequentialCell([nn.Conv2d(3, 4, 3), nn.BatchNorm2d(4), nn.ReLU(), nn.Flatten(), nn.Dense(4 * 6 * 6, 5)])
    net.set_train(False)
    x = Tensor(np.random.default_rng(0).uniform(size=(2, 3, 6, 6)).astype(np.float32))
    ms.export(net, x, file_name=str(tmp_path / "net"))
    graph = ms.load(str(tmp_path / "net.mindir"))
    np.testing.assert_allclose(graph(x).asnumpy(), net(x).asnumpy(), rtol=1e-5, atol=1e-6)
    cell = GraphCell(graph)
    np.testing.assert_allclose(cell(x).asnumpy(), net(x).asnumpy(), rtol=1e-5, atol=1e-6)
    with pytest.raises(ValueError, match="input 0"):
        graph(Tensor(np.ones((1, 3, 6, 6), np.float32)))


def test_tuple_outputs_and_formats(tmp_path):
    a, b = Tensor(np.full(3, 2, np.float32)), Tensor(np.full(3, 3, np.float32))
    path = str(tmp_path / "two.stablehlo")
    ms.export(_TwoOut(), a, b, file_name=path, file_format="STABLEHLO")
    s, p = ms.load(path)(a, b)
    np.testing.assert_array_equal(s.asnumpy(), 5.0)
    np.testing.assert_array_equal(p.asnumpy(), 6.0)
    with pytest.raises(NotImplementedError, match="ONNX"):
        ms.export(_TwoOut(), a, b, file_name=str(tmp_path / "x"), file_format="ONNX")
    (tmp_path / "bad.mindir").write_bytes(b"\x08\x01protobuf")
    with pytest.raises(ValueError, match="not a graph exported by Kiln"):
        ms.load(str(tmp_path / "bad.mindir"))


class _Nested(nn.Cell):
    """Outputs nested as the zoo's Viterbi decoders return them: a tuple of 1-tuples (backpointers), then a Tensor."""

    def construct(self, a, b):
        return ((a + b,), (a * b,)), a - b


def test_nested_tuple_outputs_keep_their_nesting(tmp_path):
    # MindSpore exports the zoo's LSTM-CRF decoder (((bp,), (bp,), ...), best_tag) and its loaded GraphCell returns
    # that nesting; Kiln refused any tuple holding a tuple (TypeError).
    a, b = Tensor(np.full(3, 2, np.float32)), Tensor(np.full(3, 3, np.float32))
    ms.export(_Nested(), a, b, file_name=str(tmp_path / "nested"))
    out = GraphCell(ms.load(str(tmp_path / "nested.mindir")))(a, b)
    assert isinstance(out, tuple) and len(out) == 2
    (first, second), diff = out
    assert isinstance(first, tuple) and len(first) == 1 and isinstance(second, tuple) and len(second) == 1
    np.testing.assert_array_equal(first[0].asnumpy(), 5.0)
    np.testing.assert_array_equal(second[0].asnumpy(), 6.0)
    np.testing.assert_array_equal(diff.asnumpy(), -1.0)


class _NotATensor(nn.Cell):
    def construct(self, a):
        return a, (a, 1.0)


def test_output_that_is_not_a_tensor_is_named(tmp_path):
    a = Tensor(np.ones(2, np.float32))
    site = r"_NotATensor.construct \(File \".*test_export.py\", line \d+\)"
    with pytest.raises(TypeError, match=site + " returned float inside tuple"):
        ms.export(_NotATensor(), a, file_name=str(tmp_path / "bad"))


def test_failed_write_leaves_old_file(tmp_path, monkeypatch):
    """A write that fails half-way keeps the previous export whole and leaves no partial file."""
    a, b = Tensor(np.full(3, 2, np.float32)), Tensor(np.full(3, 3, np.float32))
    path = tmp_path / "two.stablehlo"
    ms.export(_TwoOut(), a, b, file_name=str(path), file_format="STABLEHLO")
    before = path.read_bytes()
    written = []

    def fail_after_first(f, chunk):
        if written:
            raise OSError("disk full")
        written.append(chunk)
        f.write(chunk)

    monkeypatch.setattr("kiln._core.atomic_files._write", fail_after_first)
    with pytest.raises(OSError, match="disk full"):
        ms.export(_TwoOut(), b, a, file_name=str(path), file_format="STABLEHLO")
    assert path.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["two.stablehlo"]


class _CastWithConstant(nn.Cell):
    """As the zoo's TextRCNN: Casts (an op without a check) of the input and of a constant Tensor of the Cell."""

    def __init__(self):
        super().__init__()
        self.cast = ms.ops.Cast()
        self.pad = Tensor(np.full((2, 3), 0.5, np.float32))

    def construct(self, x):
        return self.cast(x, ms.float16) * 2 + self.cast(self.pad, ms.float16)


def test_pynative_export_with_the_disk_cache_off(tmp_path, monkeypatch):
    # With the on-disk cache off (KILN_CACHE_DIR=off, or a folder that cannot be written), a PyNative kernel is a
    # jax.jit compiled with Kiln's XLA options; export traces the network's kernels into one program, where JAX
    # refuses compiler options on a nested jit: export failed ("Kiln failed internally running the op"), for a
    # tracer input and for a constant alike. Found by exporting the zoo's TextRCNN as its export.py does.
    from kiln._backend import cache
    from kiln._pynative import dispatch

    monkeypatch.setattr(cache, "_store", None)
    monkeypatch.setattr(dispatch, "_compiled", {})  # kernels made before are PersistentJits of the cache
    ms.set_context(mode=ms.PYNATIVE_MODE)
    x = Tensor(np.arange(6, dtype=np.float32).reshape(2, 3))
    net = _CastWithConstant()
    want = np.arange(6, dtype=np.float16).reshape(2, 3) * 2 + np.float16(0.5)
    np.testing.assert_array_equal(net(x).asnumpy(), want)  # the kernels at top level, with the options
    ms.export(net, x, file_name=str(tmp_path / "cast"))
    got = ms.load(str(tmp_path / "cast.mindir"))(x)
    assert got.dtype == ms.float16
    np.testing.assert_array_equal(got.asnumpy(), want)
