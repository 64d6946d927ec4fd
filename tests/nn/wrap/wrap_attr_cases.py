"""The public attributes MindSpore 2.10's wrapper and training cells set in `__init__`, run on MindSpore and Kiln
(`run(ms)`): WithLossCell, WithEvalCell, WithGradCell, ForwardValueAndGrad, TrainOneStepCell (plain, `sens`,
`return_grad`, data-parallel), TrainOneStepWithLossScaleCell (Tensor scale, dynamic and fixed update cells), the
update cells, DistributedGradReducer, PipelineCell, MicroBatchInterleaved, GradAccumulationCell,
VirtualDatasetCellTriple and `amp.build_train_network`'s results. Each case records, per attribute, the class name
of its value and the value itself where it is simple (numbers, strings, Tensors, Parameters, tuples of those), and
the cell's children, trainable parameters and printed form. Also the names given to Parameters that no Cell names
(`Parameter#N`, and `Parameter$N` once a ParameterTuple is registered). make_wrap_attr_goldens_mindspore.py writes
wrap_attr_goldens_mindspore.json."""

import copy
import os
import tempfile

import numpy as np

# The first unnamed Parameter of a fresh process (after importing the framework and its usual packages)
FRESH_PROCESS_FIRST_NAME = """
import numpy as np
import {ms} as ms
import {ms}.nn, {ms}.train, {ms}.dataset, {ms}.ops
print(ms.Parameter(ms.Tensor(np.ones(2, np.float32))).name)
"""


def _describe(ms, value):
    """The class name of `value` and, where it is simple, the value."""
    kind = type(value).__name__
    if isinstance(value, ms.Parameter):
        return {"type": kind, "name": value.name, "dtype": str(value.dtype), "value": value.asnumpy().tolist()}
    if isinstance(value, ms.Tensor):
        return {"type": kind, "dtype": str(value.dtype), "value": value.asnumpy().tolist()}
    if value is None or isinstance(value, (bool, int, float, str)):
        return {"type": kind, "value": value}
    if isinstance(value, (tuple, list)):
        return {"type": kind, "items": [_describe(ms, v) for v in value]}
    return {"type": kind}


def attribute_names(ms, cell) -> list:
    """The attributes `cell` has beyond a plain Cell's: its public instance attributes, children and Parameters."""
    base = set(vars(ms.nn.Cell()))
    names = [k for k in vars(cell) if not k.startswith("_") and k not in base]
    names += list(cell._cells) + list(cell._params)
    return sorted(set(names))


def run(ms, wanted=None) -> dict:
    """What MindSpore (or Kiln, passed as `ms`) sets on each wrapper cell. `wanted` ({case: [attribute]}) names
    attributes to describe beyond those the cell lists itself (a Kiln attribute kept elsewhere than its `__dict__`)."""
    nn, Tensor, ParameterTuple = ms.nn, ms.Tensor, ms.ParameterTuple
    wanted = wanted or {}
    cases = {}

    def record(name, build):
        try:
            cell = build()
        except Exception as e:  # noqa: BLE001 - the error class is what the case compares
            cases[name] = {"error": type(e).__name__}
            return
        names = sorted(set(attribute_names(ms, cell)) | set(wanted.get(name, ())))
        attrs = {}
        for a in names:
            try:
                attrs[a] = _describe(ms, getattr(cell, a))
            except AttributeError:
                attrs[a] = {"type": "missing"}
        cases[name] = {
            "attrs": attrs,
            "cells_and_names": [n for n, _ in cell.cells_and_names()],
            "name_cells": list(cell.name_cells()),
            "trainable_params": [p.name for p in cell.trainable_params()],
            "repr": str(cell),
        }

    def dense():
        return nn.Dense(2, 2, weight_init="ones", bias_init="zeros")

    def momentum(net):
        return nn.Momentum(net.trainable_params(), learning_rate=0.1, momentum=0.9)

    def loss_net():
        return nn.WithLossCell(dense(), nn.MSELoss())

    def train(**kwargs):
        net = loss_net()
        return nn.TrainOneStepCell(net, momentum(net), **kwargs)

    def scaled(scale):
        net = loss_net()
        return nn.TrainOneStepWithLossScaleCell(net, momentum(net), scale_sense=scale)

    def in_data_parallel(build):
        def built():
            if ms.__name__ == "kiln":
                # MindSpore's CPU build takes data-parallel mode without a group (it forms none outside mpirun);
                # Kiln asks for init() first, which forms a one-process group here
                ms.communication.init()
            ms.set_auto_parallel_context(parallel_mode="data_parallel", gradients_mean=True)
            try:
                return build()
            finally:
                ms.reset_auto_parallel_context()

        return built

    record("WithLossCell", loss_net)
    record("WithEvalCell", lambda: nn.WithEvalCell(dense(), nn.MSELoss()))
    record("WithEvalCell add_cast_fp32", lambda: nn.WithEvalCell(dense(), nn.MSELoss(), add_cast_fp32=True))
    record("WithGradCell", lambda: nn.WithGradCell(dense(), nn.MSELoss()))
    record("WithGradCell sens", lambda: nn.WithGradCell(dense(), nn.MSELoss(), sens=2.0))
    record("WithGradCell no loss", lambda: nn.WithGradCell(loss_net()))
    record("ForwardValueAndGrad", lambda: nn.ForwardValueAndGrad(loss_net()))

    def fvg_weights():
        net = loss_net()
        return nn.ForwardValueAndGrad(net, ParameterTuple(net.trainable_params()), get_by_list=True, sens_param=True)

    record("ForwardValueAndGrad weights", fvg_weights)
    record("TrainOneStepCell", train)
    record("TrainOneStepCell sens", lambda: train(sens=2.0))
    record("TrainOneStepCell return_grad", lambda: train(return_grad=True))
    record("TrainOneStepCell data_parallel", in_data_parallel(train))
    record("TrainOneStepWithLossScaleCell Tensor", lambda: scaled(Tensor(np.float32(1024.0))))
    record("TrainOneStepWithLossScaleCell dynamic", lambda: scaled(nn.DynamicLossScaleUpdateCell(2.0**12, 2, 1000)))
    record("TrainOneStepWithLossScaleCell fixed", lambda: scaled(nn.FixedLossScaleUpdateCell(1024.0)))
    record("DynamicLossScaleUpdateCell", lambda: nn.DynamicLossScaleUpdateCell(2.0**12, 2, 1000))
    record("FixedLossScaleUpdateCell", lambda: nn.FixedLossScaleUpdateCell(1024.0))
    record(
        "DistributedGradReducer",
        in_data_parallel(lambda: nn.DistributedGradReducer(dense().trainable_params(), mean=True, degree=2)),
    )
    record("PipelineCell", lambda: nn.PipelineCell(loss_net(), 2))
    record("MicroBatchInterleaved", lambda: nn.MicroBatchInterleaved(loss_net(), 2))
    record("GradAccumulationCell", lambda: nn.GradAccumulationCell(loss_net(), 2))
    record("VirtualDatasetCellTriple", lambda: nn.VirtualDatasetCellTriple(dense()))

    def amp_build(level, **kwargs):
        def built():
            net = dense()
            return ms.amp.build_train_network(net, momentum(net), nn.MSELoss(), level=level, **kwargs)

        return built

    record("build_train_network O0", amp_build("O0"))
    # MindSpore's CPU build refuses a loss scale that may skip a step (a dynamic one, the O2 default, or a fixed one
    # that drops overflowing steps), so those builds are compared through TrainOneStepWithLossScaleCell above
    record("build_train_network O2", amp_build("O2", loss_scale_manager=None))
    record("build_train_network O3", amp_build("O3"))
    record(
        "build_train_network O2 fixed scale",
        amp_build("O2", loss_scale_manager=ms.amp.FixedLossScaleManager(128.0, drop_overflow_update=False)),
    )
    cases["unnamed parameters"] = unnamed_parameter_names(ms)
    return cases


def unnamed_parameter_names(ms) -> dict:
    """The names of Parameters made without one: alone, after `name=None`/`""`, in lists and ParameterTuples held by
    a Cell, cloned and copied, in an optimizer, in a checkpoint saved from a list; and how many numbers a Generator,
    a network and a training step take from the count (the difference between two fresh names around them)."""
    nn, Tensor, Parameter, ParameterTuple = ms.nn, ms.Tensor, ms.Parameter, ms.ParameterTuple
    out = {}

    def param(**kwargs):
        return Parameter(Tensor(np.ones(2, np.float32)), **kwargs)

    def number(p) -> int:
        """N of a name `Parameter#N` (-1000 for another name, so that differences of it show up as wrong)."""
        name = p.name if isinstance(p.name, str) else ""
        return int(name.split("#")[1]) if name.startswith("Parameter#") else -1000

    first = param()
    out["first"] = first.name.startswith("Parameter#")  # its number: FRESH_PROCESS_FIRST_NAME
    out["empty name"] = param(name="").name
    out["blank name"] = param(name="  a ").name
    try:
        param(name=3)
        out["int name"] = "OK"
    except (TypeError, ValueError) as e:
        out["int name"] = type(e).__name__
    p = param()
    p.name = None
    out["set to None"] = number(p) - number(first)
    out["explicit Parameter"] = param(name="Parameter").name
    out["next after four"] = number(param()) - number(first)

    class Holder(nn.Cell):
        def __init__(self):
            super().__init__()
            self.plist = [param(), param()]
            self.tuple_params = ParameterTuple([param(), param(name="Parameter"), param(name="Parameter#99")])
            self.w = param()
            self.more = ParameterTuple([param()])

        def construct(self, x):
            return x

    start = param()
    holder = Holder()
    out["list attribute"] = [number(q) - number(start) for q in holder.plist]
    out["ParameterTuple attribute"] = [q.name for q in holder.tuple_params] + [q.name for q in holder.more]
    out["holder parameters"] = [n for n, _ in holder.parameters_and_names()]
    q = param()
    out["clone"] = [q.clone().name == q.name, q.clone(init="zeros").name == q.name]
    out["copy"] = copy.copy(q).name == q.name
    out["deepcopy"] = copy.deepcopy(q).name == q.name
    out["numbers taken by clone and copies"] = number(param()) - number(q) - 1
    tup = ParameterTuple([param(), param()])
    out["tuple clone"] = [c.name.replace(str(number(tup[0])), "N").replace(str(number(tup[1])), "M")
                          for c in tup.clone("m", "zeros")]  # fmt: skip
    try:
        ParameterTuple([param(name="a"), param(name="a")])
        out["ParameterTuple of one name twice"] = "OK"
    except ValueError as e:
        out["ParameterTuple of one name twice"] = type(e).__name__
    same = param(name="b")
    out["ParameterTuple of one Parameter twice"] = len(ParameterTuple([same, same]))
    out["Momentum"] = [n.name for n in nn.Momentum([param(), param()], 0.1, 0.9).get_parameters()]
    out["Adam"] = [n.name for n in nn.Adam([param(), param()], 0.1).get_parameters()]
    out["SGD groups"] = [n.name for n in nn.SGD([{"params": [param()]}, {"params": [param()], "lr": 0.2}], 0.1)
                         .get_parameters()]  # fmt: skip
    path = os.path.join(tempfile.mkdtemp(prefix="wrap_attr_"), "list.ckpt")
    a, b = param(), param()
    try:
        ms.save_checkpoint([a, b], path)
        out["checkpoint of a list"] = [k.replace(a.name, "A").replace(b.name, "B") for k in ms.load_checkpoint(path)]
    except ValueError as e:  # Kiln wrote both under `Parameter`, one key twice, and could not read the file back
        out["checkpoint of a list"] = type(e).__name__
    ms.save_checkpoint([{"name": "x", "data": param()}, {"name": "y", "data": Tensor(np.ones(2, np.float32))}], path)
    out["checkpoint of dicts"] = list(ms.load_checkpoint(path))

    def taken(build) -> int:
        before = param()
        build()
        return number(param()) - number(before) - 1

    out["numbers taken by a Generator"] = taken(ms.Generator)

    def step():
        net = nn.WithLossCell(nn.Dense(2, 2), nn.MSELoss())
        nn.TrainOneStepCell(net, nn.Momentum(net.trainable_params(), 0.1, 0.9))

    out["numbers taken by a Dense training step"] = taken(step)
    out["numbers taken by Conv2d, BatchNorm2d, LayerNorm, Embedding"] = taken(
        lambda: (nn.Conv2d(1, 2, 3), nn.BatchNorm2d(2), nn.LayerNorm((2,)), nn.Embedding(4, 2))
    )
    out["numbers taken by LSTMCell, GRUCell, RNNCell"] = taken(
        lambda: (nn.LSTMCell(3, 4), nn.GRUCell(3, 4), nn.RNNCell(3, 4, has_bias=False))
    )
    out["numbers taken by LSTM, GRU, MultiheadAttention"] = taken(
        lambda: (nn.LSTM(3, 4, 2, bidirectional=True), nn.GRU(3, 4), nn.MultiheadAttention(4, 2))
    )
    out["numbers taken by deep copies of a Dense"] = taken(lambda: copy.deepcopy(nn.Dense(2, 2)))
    out["numbers taken by AdamWeightDecay, Lamb, Adam with a dynamic rate"] = taken(
        lambda: (
            nn.AdamWeightDecay(nn.Dense(2, 2).trainable_params(), 0.1),
            nn.Lamb(nn.Dense(2, 2).trainable_params(), 0.1),
            nn.Adam(nn.Dense(2, 2).trainable_params(), nn.ExponentialDecayLR(0.1, 0.9, 4)),
        )
    )
    out["numbers taken by Adam and a loss-scaled step"] = taken(
        lambda: nn.TrainOneStepWithLossScaleCell(
            nn.WithLossCell(nn.Dense(2, 2), nn.MSELoss()),
            nn.Adam(nn.Dense(2, 2).trainable_params(), 0.1),
            nn.DynamicLossScaleUpdateCell(2.0**12, 2, 1000),
        )
    )
    return out
