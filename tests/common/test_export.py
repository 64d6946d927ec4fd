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
