"""Cell attribute registration, container rules and parameter names, checked against MindSpore 2.10
(cell_goldens_mindspore.json, param_name_goldens_mindspore.json, container_name_goldens_mindspore.json)."""

from __future__ import annotations

import json
import os

import numpy as np
import pytest

import kiln
from tests.nn import cell_cases, container_name_cases, param_name_cases

HERE = os.path.dirname(os.path.abspath(__file__))


def test_cell_rules_match_mindspore():
    with open(os.path.join(HERE, "cell_goldens_mindspore.json")) as f:
        golden = json.load(f)["cases"]
    mine = cell_cases.run(kiln)
    assert mine == golden


def test_parameter_names_paths_and_phase_match_mindspore():
    # the zoo's DCGAN: both train cells hold both networks; names are rebuilt from the path under the last parent
    # (they were `stepG.stepD.netD.netD.conv.weight`, so MindSpore checkpoints did not load), and a zoo cell may
    # assign its own `phase`
    with open(os.path.join(HERE, "param_name_goldens_mindspore.json")) as f:
        golden = json.load(f)["cases"]
    mine = param_name_cases.run(kiln)
    for case, want in golden.items():
        assert mine[case] == want, case


with open(os.path.join(HERE, "container_name_goldens_mindspore.json")) as f:
    CONTAINER_NAMES = json.load(f)["cases"]


@pytest.fixture(scope="module")
def container_names():
    return container_name_cases.run(kiln)


@pytest.mark.parametrize("case", sorted(CONTAINER_NAMES))
def test_parameter_names_in_containers_match_mindspore(case, container_names):
    # MindSpore names a cell added to a container by the prefix the container's cells already carry (`cl.1.weight`
    # after `self.cl = nn.CellList([a]); self.cl.append(b)`), renumbers names on insert and delete, and leaves names
    # alone in insert_child_to_cell; Kiln named by the key alone (`1.weight`), so such checkpoints did not load.
    assert container_names[case] == CONTAINER_NAMES[case]


@pytest.mark.parametrize("mode", [kiln.PYNATIVE_MODE, kiln.GRAPH_MODE])
def test_a_cell_without_construct_says_construct_is_not_defined(mode):
    class NoConstruct(kiln.nn.Cell):
        def forward(self, x):
            return x

    kiln.set_context(mode=mode)
    with pytest.raises(AttributeError, match=r"construct\(\) is not defined in NoConstruct"):
        NoConstruct()(kiln.Tensor([1.0]))


@pytest.mark.parametrize("mode", ["pynative", "graph"])
def test_cls_name_is_the_class_name_in_construct(mode):
    # MindSpore's Cell.cls_name: the zoo's DIEN GRU (research/recommend/DIEN/src/gru.py) passes self.cls_name to its
    # dtype check in construct; an AttributeError under Kiln.
    class Named(kiln.nn.Cell):
        def construct(self, x):
            return x * len(self.cls_name)

    net = Named()
    assert net.cls_name == "Named" and kiln.nn.Dense(2, 3).cls_name == "Dense"
    fn = kiln.jit(net.construct) if mode == "graph" else net
    assert fn(kiln.Tensor([1.0, 2.0], kiln.float32)).asnumpy().tolist() == [5.0, 10.0]


@pytest.mark.parametrize("mode", [kiln.PYNATIVE_MODE, kiln.GRAPH_MODE])
def test_mixed_precision_flags_cast_a_cells_inputs_as_to_float(mode):
    # The zoo's GAT (research/gnn/gat/train.py) runs `gat_net.add_flags_recursive(fp16=True)`: MindSpore's add_flags
    # sets the Cell's mixed-precision type (its to_float is add_flags_recursive of these flags); Kiln recorded the
    # flag and ran in float32.
    class Scale(kiln.nn.Cell):
        def construct(self, x):
            return x * 3.0

    class Outer(kiln.nn.Cell):
        def __init__(self):
            super().__init__()
            self.inner = Scale()

        def construct(self, x):
            return self.inner(x) + 0.0

    kiln.set_context(mode=mode)
    x = np.full((2,), 1 / 3, np.float32)
    want16 = (x.astype(np.float16) * np.float16(3.0)).astype(np.float32)
    flagged = Scale().add_flags(fp16=True)
    assert flagged(kiln.Tensor(x)).dtype == kiln.float16
    np.testing.assert_array_equal(flagged(kiln.Tensor(x)).asnumpy().astype(np.float32), want16)
    both = Scale().add_flags(fp16=True, fp32=True)  # the last True of fp16, fp32, bf16 wins, as in MindSpore
    assert both(kiln.Tensor(x.astype(np.float16))).dtype == kiln.float32
    assert Scale().add_flags(fp16=False)(kiln.Tensor(x)).dtype == kiln.float32
    outer = Outer()
    outer.add_flags(fp16=True)  # this Cell only: its child runs in the dtype it is given
    assert outer.inner.get_flags() == {} and outer(kiln.Tensor(x)).dtype == kiln.float16
    recursive = Outer().add_flags_recursive(bf16=True)
    assert recursive(kiln.Tensor(x)).dtype == kiln.bfloat16


def test_recompute_sets_the_scope_of_the_cell_and_those_below():
    # MindSpore 2.10 (checked with its CPU build): net.pool.recompute() makes pool.get_scope() 'recompute_' (its own
    # tests assert it), the Cells inside it too, and leaves the parent's None until a compile names it.
    net = kiln.nn.SequentialCell([kiln.nn.Dense(2, 2), kiln.nn.SequentialCell([kiln.nn.ReLU()])])
    assert net.get_scope() is None
    net[1].recompute()
    assert (net.get_scope(), net[0].get_scope(), net[1].get_scope(), net[1][0].get_scope()) == (
        None, None, "recompute_", "recompute_")  # fmt: skip


def test_sequences_list_their_cells_as_cell_list():
    """MindSpore's `cell_list` (the zoo's FCN8s shards `self.conv1.cell_list[0].conv2d`)."""
    conv, relu = kiln.nn.Conv2d(3, 4, 3), kiln.nn.ReLU()
    seq = kiln.nn.SequentialCell([conv, relu])
    assert seq.cell_list == [conv, relu] and seq.cell_list[0].conv2d is conv.conv2d
    assert kiln.nn.CellList([relu, conv]).cell_list == [relu, conv]


class _PicksByFloat(kiln.nn.Cell):
    def __init__(self):
        super().__init__()
        self.group = kiln.nn.CellList([kiln.nn.ReLU(), kiln.nn.Tanh()])

    def construct(self, x):
        return self.group[1 / 2 * 2](x)  # the zoo's ALBERT: `layer_idx / num_hidden_layers * num_hidden_groups`


@pytest.mark.parametrize("mode", [kiln.PYNATIVE_MODE, kiln.GRAPH_MODE])
def test_a_container_index_that_is_no_integer_or_out_of_range_names_the_container(mode):
    # The zoo's ALBERT (research/nlp/albert/src/albert_model.py, AlbertTransformer) indexes its CellList by a float;
    # MindSpore 2.10 refuses it in both modes (TypeError in PyNative, naming the CellList), and so does Kiln, but
    # with Python's list message, which named neither the container nor the index.
    kiln.set_context(mode=mode)
    with pytest.raises(TypeError, match=r"CellList index 1\.0 is a float: index a CellList by an int or a slice"):
        _PicksByFloat()(kiln.Tensor([1.0]))
    seq = kiln.nn.SequentialCell([kiln.nn.ReLU(), kiln.nn.Tanh(), kiln.nn.Sigmoid()])
    with pytest.raises(TypeError, match=r"SequentialCell index 0\.0 is a float.*it holds 3 cells"):
        seq[0.0]
    with pytest.raises(IndexError, match=r"CellList index 3 out of range: it holds 3 cells \(-3 to 2\)"):
        kiln.nn.CellList(list(seq))[3]
    with pytest.raises(IndexError, match=r"CellList index -2 out of range: it holds 1 cell \(-1 to 0\)"):
        kiln.nn.CellList([kiln.nn.ReLU()])[-2] = kiln.nn.Tanh()
    # what Python's list takes still indexes: a NumPy integer, an integer Tensor, a negative int
    assert seq[np.int64(1)] is seq[-2] is seq[kiln.Tensor(1, kiln.int32)] is seq.cell_list[1]
