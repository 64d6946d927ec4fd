"""The IR passes (each checked on a small program and differentially) and the save_graphs dumps."""

import os

import numpy as np

import kiln as ms
from kiln import Tensor, nn, ops
from kiln._compiler.api import jit
from kiln._compiler.frontend import parse_function
from kiln._compiler.ir import ops as O
from kiln._compiler.ir.printer import print_graphs, to_dot
from kiln._compiler.passes import cse, dce, drop_unused_params, fold_constants, inline_single_jumps, optimize
from kiln._compiler.passes.util import op_of


def _ops(pf):
    return [op_of(a) for g in pf.graph.walk() for a in g.nodes]


def folding(x):
    k = 2 * 3 + 1
    name = "a" + "b"
    return x * k, name


def common(x):
    a = x + 1
    b = x + 1
    unused = x * 5  # noqa: F841
    return a * b


def branches(x, flag):
    unused = 3
    if flag:
        y = x * 2
    else:
        y = x - 1
        unused = 4  # noqa: F841
    return y


def test_fold_constants():
    pf = parse_function(folding)
    assert fold_constants(list(pf.graph.walk())) >= 2
    assert O.OPS["Add"] not in _ops(pf) and O.OPS["Mult"] in _ops(pf)
    x = Tensor(np.ones(2, np.float32))
    out, name = jit(folding)(x)
    assert name == "ab" and np.allclose(out.asnumpy(), 7.0)


def test_cse_and_dce():
    pf = parse_function(common)
    graphs = list(pf.graph.walk())
    assert cse(graphs) == 1
    assert dce(graphs) == 1
    assert _ops(pf).count(O.OPS["Add"]) == 1 and O.OPS["Mult"] in _ops(pf)
    x = Tensor(np.arange(3, dtype=np.float32))
    np.testing.assert_allclose(jit(common)(x).asnumpy(), common(x).asnumpy())


def test_inline_and_unused_params():
    pf = parse_function(branches)
    graphs = list(pf.graph.walk())
    join = [g for g in graphs if g.kind == "join"][0]
    assert join.param_names == ["y", "unused"]
    assert drop_unused_params(graphs) == 1
    assert join.param_names == ["y"]
    pf2 = parse_function(early)
    n_before = len(list(pf2.graph.walk()))
    assert inline_single_jumps(list(pf2.graph.walk())) >= 1
    assert len(list(pf2.graph.walk())) < n_before
    x = Tensor(np.ones(2, np.float32))
    for flag in (True, False):
        np.testing.assert_allclose(jit(branches)(x, flag).asnumpy(), branches(x, flag).asnumpy())
        np.testing.assert_allclose(jit(early)(x, flag).asnumpy(), early(x, flag).asnumpy())


def early(x, flag):
    if flag:
        return x * 3
    x = x + 1
    return x


def test_optimize_reports_each_pass():
    stats = optimize(parse_function(common))
    assert set(stats) == {"inline", "fold", "cse", "unused_params", "dce"}


def test_printers():
    pf = parse_function(branches)
    text = print_graphs([pf.graph])
    assert "funcgraph branches" in text and "if(" in text and "test_passes_and_dumps.py:" in text
    dot = to_dot([pf.graph])
    assert dot.startswith("digraph") and "cluster_" in dot


class Small(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc = nn.Dense(3, 2)

    def construct(self, x):
        return ops.relu(self.fc(x))


def test_save_graphs_writes_each_stage(tmp_path):
    ms.set_context(mode=ms.GRAPH_MODE, save_graphs=3, save_graphs_path=str(tmp_path))
    Small()(Tensor(np.ones((2, 3), np.float32)))
    files = sorted(os.listdir(tmp_path))
    assert any("_parse_" in f and f.endswith(".ir") for f in files)
    assert any("_analyze_" in f and f.endswith(".ir") for f in files)
    assert any("_analyze_" in f and f.endswith(".dot") for f in files)
    assert any("_lower_" in f for f in files)
    analyzed = (tmp_path / next(f for f in files if "_analyze_" in f and f.endswith(".ir"))).read_text()
    assert "Tensor[Float32][2, 2]" in analyzed and "Cell[Dense]" in analyzed
