"""The AST frontend's Python-level rewrites (each checked on a small program and differentially) and the save_graphs
dumps."""

import os

import numpy as np
import pytest

import kiln as ms
from kiln import Tensor, nn, ops
from kiln._compiler.api import jit
from kiln._compiler.frontend.ast import ops as O
from kiln._compiler.frontend.ast.parser import parse_function
from kiln._compiler.frontend.ast.printer import print_graphs, to_dot
from kiln._compiler.frontend.ast.rewrites import (
    cse,
    dce,
    drop_unused_params,
    fold_constants,
    inline_single_jumps,
    op_of,
    optimize,
)
from tests._compiler.frontend.ast.modes import MODES, Wrap, compiled


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


def two_differences_one_written(x, y):
    z = x - y
    z1 = x - y
    ops.assign(z, z + y)  # a write in place to one of two equal expressions
    return z + y, z1


def test_cse_keeps_two_equal_expressions_apart_when_one_is_passed_to_a_call():
    """MindSpore's tensor_inplace test_tensor_inplace_sub_inplace_add_add_twice: sharing `x - y` made the write to
    `z` reach `z1` (2 instead of -1)."""
    graphs = list(parse_function(two_differences_one_written).graph.walk())
    assert cse(graphs) == 0
    x, y = Tensor(2, ms.int32), Tensor(3, ms.int32)
    expected = [int(t.asnumpy()) for t in two_differences_one_written(x, y)]
    assert expected == [5, -1]
    for mode in ("graph", "jit", "bytecode"):
        fn = compiled(mode, two_differences_one_written)
        assert [int(t.asnumpy()) for t in fn(x, y)] == expected, mode
    ms.set_context(mode=ms.PYNATIVE_MODE)


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
    # `common` has one repeated expression (x + 1) and one dead one (x * 5), nothing to fold or inline.
    assert (stats["cse"], stats["dce"], stats["fold"], stats["inline"]) == (1, 1, 0, 0), stats
    stats = optimize(parse_function(folding))
    assert stats["fold"] >= 2 and stats["cse"] == 0 and stats["dce"] == 0, stats  # 2 * 3 + 1 and "a" + "b"


def test_printers():
    pf = parse_function(branches)
    text = print_graphs([pf.graph])
    assert "funcgraph branches" in text and "if(" in text and "test_rewrites_and_dumps.py:" in text
    dot = to_dot([pf.graph])
    assert dot.startswith("digraph") and "cluster_" in dot


class Small(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc = nn.Dense(3, 2)

    def construct(self, x):
        return ops.relu(self.fc(x))


def _stages(folder) -> dict[str, str]:
    """{stage: text} of the dumps in `folder` (files NN_stage_name.ext), in the order they were written."""
    names = sorted((f for f in os.listdir(folder) if f.split("_")[0].isdigit()), key=lambda f: int(f.split("_")[0]))
    out = {}
    for f in names:
        rest = f.split("_", 1)[1]
        stage = next((s for s in STAGES if rest.startswith(s + "_")), None)
        if stage is not None:  # a stage this test does not know is left out
            out[stage + (".dot" if f.endswith(".dot") else "")] = (folder / f).read_text()
    return out


PARSE_STAGES = ("parse", "pass_inline", "pass_fold", "pass_cse", "pass_unused_params", "pass_dce", "analyze")
TENSOR_STAGES = ("tensor_record", "tensor_inline", "tensor_simplify", "tensor_fold", "tensor_cse", "tensor_dce")
STAGES = (*PARSE_STAGES, *TENSOR_STAGES, "lower")


def test_save_graphs_writes_each_stage(tmp_path):
    ms.set_context(mode=ms.GRAPH_MODE, save_graphs=3, save_graphs_path=str(tmp_path))
    Small()(Tensor(np.ones((2, 3), np.float32)))
    files = sorted(os.listdir(tmp_path))
    assert any("_parse_" in f and f.endswith(".ir") for f in files)
    assert any("_analyze_" in f and f.endswith(".ir") for f in files)
    assert any("_analyze_" in f and f.endswith(".dot") for f in files)
    assert any("_lower_" in f for f in files)
    stages = _stages(tmp_path)
    analyzed = stages["analyze"]
    assert "Tensor[Float32][2, 2]" in analyzed and "Cell[Dense]" in analyzed
    # The parsed construct, with the user's source line on its nodes.
    assert "funcgraph construct" in stages["parse"] and "return ops.relu(self.fc(x))" in stages["parse"]
    assert stages["analyze.dot"].startswith("digraph") and "cluster_" in stages["analyze.dot"]
    # The tensor IR: x and the two Parameters are inputs; Dense then ReLU, with their shapes.
    tensor = stages["tensor_record"]
    signature = tensor.splitlines()[1]
    assert signature.count("f32[2,3]") == 2 and signature.count("f32[2]") == 1, tensor
    assert "f32[2,2] = Dense(" in tensor and "f32[2,2] = ReLU(" in tensor, tensor
    assert tensor.index("Dense(") < tensor.index("ReLU("), tensor
    assert "f32[2,2]" in stages["lower"], stages["lower"]


# `common` again, parsed for the first time with save_graphs on: parse and pass stages are dumped when a function
# is first parsed.
def common_dumped(x):
    a = x + 1
    b = x + 1
    unused = x * 5  # noqa: F841
    return a * b


def test_pass_dumps_show_what_each_pass_changed(tmp_path):
    ms.set_context(save_graphs=1, save_graphs_path=str(tmp_path))
    x = Tensor(np.arange(3, dtype=np.float32))
    np.testing.assert_allclose(jit(common_dumped)(x).asnumpy(), (x.asnumpy() + 1) ** 2)
    stages = _stages(tmp_path)
    parsed, after_cse, after_dce = stages["parse"], stages["pass_cse"], stages["pass_dce"]
    assert parsed.count("Add(%para1, 1)") == 2 and "Mult(%para1, 5)" in parsed, parsed
    assert after_cse.count("Add(%para1, 1)") == 1 and "Mult(%para1, 5)" in after_cse, after_cse
    assert after_dce.count("Add(%para1, 1)") == 1 and "Mult(%para1, 5)" not in after_dce, after_dce
    assert "pass_fold" not in stages and "pass_inline" not in stages  # a pass that changed nothing is not dumped
    node_lines = [line for line in stages["analyze"].splitlines() if line.strip().startswith("%")]
    assert node_lines and all("Tensor[Float32][3]" in line for line in node_lines), stages["analyze"]
    tensor = stages["tensor_record"]
    assert tensor.count("= Add(") == 1 and tensor.count("= Mul(") == 1 and "f32[3]" in tensor, tensor


def _bare_undefined_name(x):
    undefined_in_this_module  # noqa: B018, F821  (a statement that only looks the name up)
    return x + x


def _unused_sum_with_undefined_name(x):
    undefined_in_this_module + x  # noqa: B018, F821
    return x + x


def _bare_undefined_name_in_a_loop(x):
    for i in (1, 2):
        undefined_in_this_module  # noqa: B018, F821
        x = x + i
    return x


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("fn", [_bare_undefined_name, _unused_sum_with_undefined_name, _bare_undefined_name_in_a_loop])
def test_an_unused_lookup_of_an_undefined_name_is_still_a_name_error(mode, fn):
    # dce drops unused pure applies, but a name lookup raises in Python even when its value is unused
    with pytest.raises(NameError, match="undefined_in_this_module"):
        compiled(mode, fn)(Tensor([1.0, 2.0]))


def _bare_defined_names(x):
    x  # noqa: B018
    x - x  # noqa: B018
    ops  # noqa: B018
    return x + x


@pytest.mark.parametrize("mode", MODES)
def test_unused_lookups_of_defined_names_still_run(mode):
    np.testing.assert_allclose(compiled(mode, _bare_defined_names)(Tensor([1.0, 2.0])).asnumpy(), [2.0, 4.0])


def test_ms_dev_save_graphs_set_after_import_dumps_the_next_compile(tmp_path, monkeypatch):
    # MindSpore reads MS_DEV_SAVE_GRAPHS(_PATH) when a graph compiles, so a program may set them after importing
    monkeypatch.setenv("MS_DEV_SAVE_GRAPHS", "1")
    monkeypatch.setenv("MS_DEV_SAVE_GRAPHS_PATH", str(tmp_path / "env"))
    x = Tensor(np.arange(3, dtype=np.float32))

    def twice(v):
        return v * 2

    for capture_mode in ("ast", "bytecode"):
        np.testing.assert_allclose(jit(twice, capture_mode=capture_mode)(x).asnumpy(), x.asnumpy() * 2)
    files = os.listdir(tmp_path / "env")
    # the program handed to the backend is the `tensor_validate` stage (MindSpore's name for its last stage)
    validated = sorted(f for f in files if "_tensor_validate_" in f and f.endswith(".ir"))
    assert len(validated) == 2, files
    assert "Mul(" in (tmp_path / "env" / validated[0]).read_text()
    monkeypatch.delenv("MS_DEV_SAVE_GRAPHS")
    jit(twice)(Tensor(np.arange(4, dtype=np.float32)))
    assert len(os.listdir(tmp_path / "env")) == len(files)  # off again: nothing more written


def test_ms_dev_dump_ir_passes_writes_only_the_named_stages(tmp_path, monkeypatch):
    # MS_DEV_DUMP_IR_PASSES names parts of the dump files' names, comma-separated; other stages are not written
    monkeypatch.setenv("MS_DEV_SAVE_GRAPHS", "1")
    monkeypatch.setenv("MS_DEV_SAVE_GRAPHS_PATH", str(tmp_path))
    monkeypatch.setenv("MS_DEV_DUMP_IR_PASSES", "_validate,lower")

    def plus_one(v):
        return v + 1

    ms.set_context(mode=ms.GRAPH_MODE)
    np.testing.assert_allclose(Wrap(plus_one)(Tensor([1.0, 2.0])).asnumpy(), [2.0, 3.0])
    stages = sorted(f.split("_", 1)[1].split("_Wrap")[0] for f in os.listdir(tmp_path))
    assert stages == ["lower", "tensor_validate"], os.listdir(tmp_path)
