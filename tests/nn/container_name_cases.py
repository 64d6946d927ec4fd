"""Parameter names in every container pattern, run on MindSpore 2.10 and Kiln (`run(ms)`): CellList, SequentialCell
and CellDict built with cells or empty and then appended to, extended, inserted into, set, sliced and deleted from,
before and after the container is assigned to an attribute; nested containers; insert_child_to_cell; Cells and
Parameters set after __init__; shared Cells and Parameters; ParameterTuple; explicit Parameter names;
update_parameters_name; param_prefix; auto_prefix=False; and an optimizer's state. Each case lists what the network
reports (get_parameters, parameters_and_names, cells_and_names, trainable_params, parameters_dict) and the keys of a
checkpoint it saves. make_container_name_goldens_mindspore.py writes container_name_goldens_mindspore.json; run
under `python -m kiln run tests/nn/container_name_cases.py` (or MindSpore's Python) it prints the names."""

import json
import os
import sys
import tempfile
from collections import OrderedDict

import numpy as np


def run(ms) -> dict:
    """What MindSpore (or Kiln, passed as `ms`) reports for each case: name lists, or the error a step raised."""
    nn, Tensor, Parameter, ParameterTuple = ms.nn, ms.Tensor, ms.Parameter, ms.ParameterTuple
    workdir = tempfile.mkdtemp(prefix="container_names_")
    cases = {}

    def names(net) -> dict:
        path = os.path.join(workdir, f"{len(cases)}.ckpt")
        ms.save_checkpoint(net, path)
        return {
            "get_parameters": [p.name for p in net.get_parameters()],
            "parameters_and_names": [n for n, _ in net.parameters_and_names()],
            "cells_and_names": [n for n, _ in net.cells_and_names()],
            "trainable_params": [p.name for p in net.trainable_params()],
            "parameters_dict": list(net.parameters_dict()),
            "checkpoint": list(ms.load_checkpoint(path)),
        }

    def case(name):
        """Record the names of the network `build()` returns, or the type of the error it raised."""

        def record(build):
            try:
                cases[name] = names(build())
            except Exception as e:  # noqa: BLE001 - the error class is what the case compares
                cases[name] = {"error": type(e).__name__}
            return build

        return record

    def dense():
        return nn.Dense(2, 2)

    def param(value=1.0, **kwargs):
        return Parameter(Tensor(np.full(2, value, np.float32)), **kwargs)

    class Holder(nn.Cell):
        """A network whose body the case fills in."""

        def __init__(self, fill=None):
            super().__init__()
            if fill is not None:
                fill(self)

        def construct(self, x):
            return x

    class Block(nn.Cell):
        def __init__(self):
            super().__init__()
            self.layers = nn.CellList([dense()])

        def construct(self, x):
            return self.layers[0](x)

    def holder(fill):
        return lambda: Holder(fill)

    def wrapped(fill):
        """The network of `fill`, assigned as child `net` of an outer cell (its names rebuilt from the path)."""

        def build():
            outer = Holder()
            outer.net = Holder(fill)
            return outer

        return build

    # -- CellList
    def cl_built(self):
        self.cl = nn.CellList([dense(), dense()])

    def cl_empty_append(self):
        self.cl = nn.CellList()
        self.cl.append(dense())
        self.cl.append(dense())

    def cl_built_append(self):
        self.cl = nn.CellList([dense()])
        self.cl.append(dense())

    def cl_built_extend(self):
        self.cl = nn.CellList([dense()])
        self.cl.extend([dense(), dense()])

    def cl_empty_extend(self):
        self.cl = nn.CellList()
        self.cl.extend([dense(), dense()])

    def cl_iadd(self):
        self.cl = nn.CellList([dense()])
        self.cl += [dense()]

    def cl_insert_middle(self):
        self.cl = nn.CellList([dense(), dense()])
        self.cl.insert(1, dense())

    def cl_insert_front(self):
        self.cl = nn.CellList([dense(), dense()])
        self.cl.insert(0, dense())

    def cl_setitem(self):
        self.cl = nn.CellList([dense(), dense()])
        self.cl[0] = dense()

    def cl_delitem(self):
        self.cl = nn.CellList([dense(), dense(), dense()])
        del self.cl[0]

    def cl_delitem_append(self):
        self.cl = nn.CellList([dense(), dense()])
        del self.cl[0]
        self.cl.append(dense())

    def cl_filled_then_assigned(self):
        cl = nn.CellList()
        cl.append(dense())
        cl.append(dense())
        self.cl = cl

    def cl_first_without_params(self):
        self.cl = nn.CellList([nn.ReLU(), dense()])
        self.cl.append(dense())

    def cl_slice(self):
        self.cl = nn.CellList([dense(), dense(), dense()])
        self.tail = self.cl[1:]

    def cl_no_prefix(self):
        self.cl = nn.CellList([dense()], auto_prefix=False)
        self.cl.append(dense())

    for fill in (cl_built, cl_empty_append, cl_built_append, cl_built_extend, cl_empty_extend, cl_iadd,
                 cl_insert_middle, cl_insert_front, cl_setitem, cl_delitem, cl_delitem_append,
                 cl_filled_then_assigned, cl_first_without_params, cl_slice, cl_no_prefix):  # fmt: skip
        case(fill.__name__)(holder(fill))
    for fill in (cl_empty_append, cl_built_append, cl_insert_front, cl_delitem_append, cl_no_prefix):
        case(fill.__name__ + " (wrapped)")(wrapped(fill))

    # -- SequentialCell
    def seq_built(self):
        self.seq = nn.SequentialCell([dense(), nn.ReLU(), dense()])

    def seq_args(self):
        self.seq = nn.SequentialCell(dense(), dense())

    def seq_dict(self):
        self.seq = nn.SequentialCell(OrderedDict([("fc", dense()), ("act", nn.ReLU()), ("out", dense())]))

    def seq_dict_append(self):
        self.seq = nn.SequentialCell(OrderedDict([("fc", dense())]))
        self.seq.append(dense())

    def seq_built_append(self):
        self.seq = nn.SequentialCell([dense()])
        self.seq.append(dense())

    def seq_empty_append(self):
        self.seq = nn.SequentialCell()
        self.seq.append(dense())
        self.seq.append(dense())

    def seq_setitem(self):
        self.seq = nn.SequentialCell([dense(), dense()])
        self.seq[1] = dense()

    def seq_delitem(self):
        self.seq = nn.SequentialCell([dense(), dense(), dense()])
        del self.seq[0]

    def seq_dict_delitem(self):
        self.seq = nn.SequentialCell(OrderedDict([("a", dense()), ("b", dense()), ("c", dense())]))
        del self.seq[0]

    def seq_slice(self):
        self.seq = nn.SequentialCell([dense(), dense(), dense()])
        self.tail = self.seq[1:]

    def seq_filled_then_assigned(self):
        seq = nn.SequentialCell([dense()])
        seq.append(dense())
        self.seq = seq

    for fill in (seq_built, seq_args, seq_dict, seq_dict_append, seq_built_append, seq_empty_append, seq_setitem,
                 seq_delitem, seq_dict_delitem, seq_slice, seq_filled_then_assigned):  # fmt: skip
        case(fill.__name__)(holder(fill))
    for fill in (seq_built_append, seq_dict_delitem, seq_slice):
        case(fill.__name__ + " (wrapped)")(wrapped(fill))

    # -- CellDict
    def cd_built(self):
        self.cd = nn.CellDict({"a": dense(), "b": dense()})

    def cd_empty_setitem(self):
        self.cd = nn.CellDict()
        self.cd["a"] = dense()
        self.cd["b"] = dense()

    def cd_built_setitem(self):
        self.cd = nn.CellDict({"a": dense()})
        self.cd["b"] = dense()

    def cd_update(self):
        self.cd = nn.CellDict({"a": dense()})
        self.cd.update([("b", dense()), ("c", dense())])

    def cd_pop_add(self):
        self.cd = nn.CellDict({"a": dense(), "b": dense()})
        self.cd.pop("a")
        self.cd["c"] = dense()

    def cd_holds_cell_list(self):
        self.cd = nn.CellDict({"a": nn.CellList([dense()])})

    def cd_no_prefix(self):
        self.cd = nn.CellDict({"a": dense()}, auto_prefix=False)
        self.cd["b"] = dense()

    for fill in (cd_built, cd_empty_setitem, cd_built_setitem, cd_update, cd_pop_add, cd_holds_cell_list,
                 cd_no_prefix):  # fmt: skip
        case(fill.__name__)(holder(fill))
    case("cd_built_setitem (wrapped)")(wrapped(cd_built_setitem))

    # -- nested containers
    def nested_cl_of_blocks(self):
        self.blocks = nn.CellList([Block(), Block()])

    def nested_inner_append(self):
        self.blocks = nn.CellList([Block(), Block()])
        self.blocks[1].layers.append(dense())

    def nested_seq_of_cl(self):
        self.seq = nn.SequentialCell([nn.CellList([dense(), dense()]), dense()])

    def nested_cl_of_seq_append(self):
        self.cl = nn.CellList([nn.SequentialCell([dense()])])
        self.cl.append(nn.SequentialCell([dense(), dense()]))

    def nested_inner_empty_append(self):
        self.cl = nn.CellList([nn.CellList()])
        self.cl[0].append(dense())

    for fill in (nested_cl_of_blocks, nested_inner_append, nested_seq_of_cl, nested_cl_of_seq_append,
                 nested_inner_empty_append):  # fmt: skip
        case(fill.__name__)(holder(fill))
    case("nested_inner_append (wrapped)")(wrapped(nested_inner_append))

    # -- children and parameters added by hand
    def insert_child(self):
        self.a = dense()
        self.insert_child_to_cell("b", dense())

    def insert_child_named_before(self):
        d = dense()
        d.update_parameters_name("custom.")
        self.insert_child_to_cell("b", d)

    def setattr_after_init(self):
        self.a = dense()

    def build_setattr_after_init():
        net = Holder(setattr_after_init)
        net.late = dense()
        net.a.later = dense()  # set on a child: prefixed with its own attribute name only (`later.weight`)
        return net

    def shared_cell(self):
        d = dense()
        self.first = d
        self.seq = nn.SequentialCell([d, dense()])

    def shared_parameter(self):
        self.a = dense()
        self.b = dense()
        self.b.weight = self.a.weight

    def parameter_tuple(self):
        self.w = param()
        self.group = ParameterTuple([param(2.0), param(3.0)])

    def parameter_tuple_named(self):
        self.group = ParameterTuple([param(name="p1"), param(name="p2")])

    def parameter_tuple_clash(self):
        self.group = ParameterTuple([param(name="same"), param(name="same")])

    def explicit_names(self):
        self.w = param(name="my_weight")
        self.inner = Holder()
        self.inner.v = param(name="my_v")

    def explicit_names_child(self):
        inner = Holder()
        inner.v = param(name="my_v")
        self.inner = inner

    def param_in_list_cell(self):
        self.cl = nn.CellList([dense(), dense()])
        self.cl[1].extra = param()
        self.cl[0].named = param(name="given")

    def update_name(self):
        self.a = dense()
        self.cl = nn.CellList([dense()])
        self.update_parameters_name("pre.")

    def update_name_flat(self):
        self.a = dense()
        self.update_parameters_name("pre.", recurse=False)

    def made_in_helper(self):
        def head():
            return nn.SequentialCell([dense(), nn.ReLU(), dense()])

        self.head = head()
        self.heads = nn.CellList([head() for _ in range(2)])

    def delete_then_add(self):
        self.a = dense()
        self.b = dense()
        del self.a
        self.c = dense()

    def delete_then_readd(self):
        self.a = dense()
        del self.a
        self.a = dense()

    def no_prefix_child(self):
        class Flat(nn.Cell):
            def __init__(self):
                super().__init__(auto_prefix=False)
                self.d = dense()
                self.cl = nn.CellList([dense()])

            def construct(self, x):
                return x

        self.flat = Flat()

    def list_of_parameters(self):
        self.ws = [param(name="w0"), param(name="w1")]
        self.b = param()

    for fill in (insert_child, insert_child_named_before, shared_cell, shared_parameter, parameter_tuple,
                 parameter_tuple_named, parameter_tuple_clash, explicit_names, explicit_names_child,
                 param_in_list_cell, update_name, update_name_flat, made_in_helper, delete_then_add,
                 delete_then_readd, no_prefix_child, list_of_parameters):  # fmt: skip
        case(fill.__name__)(holder(fill))
    case("setattr_after_init")(build_setattr_after_init)
    for fill in (insert_child, shared_parameter, explicit_names, param_in_list_cell, update_name):
        case(fill.__name__ + " (wrapped)")(wrapped(fill))

    # -- param_prefix (MindSpore sets it with update_cell_prefix)
    net = Holder(nested_inner_append)
    prefixes = {"before": getattr(net.blocks, "param_prefix", "absent")}
    if hasattr(net, "update_cell_prefix"):
        net.update_cell_prefix()
        prefixes["after"] = [c.param_prefix for _, c in net.cells_and_names()]
    cases["param_prefix"] = prefixes

    # -- an optimizer's state, and a train cell's checkpoint
    def optimizer(make):
        def build():
            class Net(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.fc = dense()
                    self.cl = nn.CellList([dense()])
                    self.cl.append(dense())

                def construct(self, x):
                    return self.cl[1](self.cl[0](self.fc(x))).sum()

            net = Net()
            return nn.TrainOneStepCell(net, make(net.trainable_params()))

        return build

    case("Momentum train cell")(optimizer(lambda p: nn.Momentum(p, learning_rate=0.1, momentum=0.9)))
    case("Adam train cell")(optimizer(lambda p: nn.Adam(p, learning_rate=0.1)))
    case("Adam grouped lr")(optimizer(lambda p: nn.Adam([{"params": p[:2], "lr": 0.1}, {"params": p[2:]}], 0.01)))
    case("Adam optimizer")(lambda: nn.Adam(Holder(cl_built_append).trainable_params(), learning_rate=0.1))
    return cases


if __name__ == "__main__":
    import mindspore  # under `python -m kiln run` this is Kiln

    json.dump(run(mindspore), sys.stdout, indent=1)
    print()
