"""Names zoo operators import from MindSpore's ops modules: op_info_register, ops.P, ops.composite, the Ascend
float-status Primitives (stand-ins that build and raise when called) and common.dtype's QuantDtype."""

import os
import subprocess
import sys

import numpy as np
import pytest

import kiln
from kiln import nn, ops
from kiln._core.dtype import QuantDtype
from kiln.ops import operations, python_ops
from kiln.ops.op_info_register import DataType, TBERegOp, op_info_register, registered_op_info
from kiln.ops.operations import math_ops


def test_tbe_description_is_recorded_and_the_kernel_kept():
    info = (
        TBERegOp("MyAbs")
        .fusion_type("ELEMWISE")
        .kernel_name("my_abs")
        .input(0, "x", False, "required", "all")
        .output(0, "y", False, "required", "all")
        .dtype_format(DataType.F16_Default, DataType.F16_Default)
        .dtype_format(DataType.F32_5HD, DataType.F32_5HD)
        .get_op_info()
    )
    assert info["op_name"] == "MyAbs" and info["fusion_type"] == "ELEMWISE" and info["kernel_name"] == "my_abs"
    assert info["dtype_format"] == [
        (("float16", "DefaultFormat"), ("float16", "DefaultFormat")), (("float32", "NC1HWC0"), ("float32", "NC1HWC0")),
    ]  # fmt: skip
    assert [row["name"] for row in info["inputs"]] == ["x"]

    @op_info_register(info)
    def my_abs(x):
        return abs(x)

    assert my_abs(-2) == 2 and registered_op_info("MyAbs") is info
    assert DataType.None_None == ("", "") and DataType.I32_NCHW == ("int32", "NCHW")
    with pytest.raises(AttributeError):
        getattr(TBERegOp("X"), "no_such_field")  # noqa: B009


def test_registration_helpers_have_one_definition():
    module = sys.modules["kiln.ops.op_info_register"]
    for name in set(module.__all__) - {"registered_op_info"}:
        assert getattr(ops, name) is getattr(python_ops, name) is getattr(module, name), name
    assert ops.DataType.F32_Default == ("float32", "DefaultFormat")
    info = ops.CpuRegOp("MyCpuOp").input(0, "x").dtype_format(ops.DataType.F32_Default).get_op_info()

    @ops.op_info_register(info)
    def my_cpu_op(x):
        return x

    assert my_cpu_op.op_info is info and registered_op_info("MyCpuOp") is info


def test_ops_p_and_float_status_stand_ins():
    assert ops.P is operations
    for name in ("NPUAllocFloatStatus", "NPUGetFloatStatus", "NPUClearFloatStatus"):
        # MindSpore's ops and ops.operations.math_ops hold them too (the zoo's Transformer and CenterNet build
        # `ops.NPUAllocFloatStatus()`, an AttributeError under Kiln before)
        assert getattr(ops, name) is getattr(operations, name) is getattr(math_ops, name)
        prim = getattr(operations, name)()  # builds, as MindSpore's does on every device
        assert isinstance(prim, ops.Primitive) and prim.name == name
        with pytest.raises(NotImplementedError, match=f"ops.{name} is not available in Kiln.*Ascend"):
            prim(kiln.Tensor(np.zeros(8, np.float32)))


class _AscendOnlyCheck(nn.Cell):
    """A train cell written for Ascend (the zoo's MMoE TrainStepWrap, Tacotron2's): the float-status Primitives are
    built in __init__ and called only on Ascend (here: when `on_ascend`)."""

    def __init__(self, on_ascend: bool):
        super().__init__()
        self.on_ascend = on_ascend
        self.alloc_status = ops.NPUAllocFloatStatus()
        self.get_status = operations.NPUGetFloatStatus()
        self.clear_status = operations.NPUClearFloatStatus()

    def construct(self, x):
        y = x * 2.0
        if self.on_ascend:
            init = self.alloc_status()
            y = ops.depend(y, self.clear_status(init))
        return y


@pytest.mark.parametrize("mode", [kiln.PYNATIVE_MODE, kiln.GRAPH_MODE])
def test_a_cell_building_float_status_primitives_runs_where_it_does_not_call_them(mode):
    # The zoo's Tacotron2 TrainStepWrap builds NPUAllocFloatStatus and its two siblings in __init__ (MMoE's calls them
    # only when device_target is Ascend): MindSpore builds them on CPU; Kiln raised NotImplementedError at the build.
    kiln.set_context(mode=mode)
    x = np.array([1.0, -2.5, 3.0], np.float32)
    np.testing.assert_array_equal(_AscendOnlyCheck(on_ascend=False)(kiln.Tensor(x)).asnumpy(), x * 2.0)
    with pytest.raises(NotImplementedError, match="ops.NPUAllocFloatStatus is not available in Kiln"):
        _AscendOnlyCheck(on_ascend=True)(kiln.Tensor(x)).asnumpy()


def test_ops_composite_is_bound_by_importing_ops():
    # The zoo's EcapaTDNN writes `ops.composite.MultitypeFuncGraph(...)` after `from mindspore import ops`, which
    # MindSpore's ops package binds; a fresh process, since any earlier import of kiln.ops.composite binds it too.
    code = (
        "import sys\n"
        "from kiln import ops\n"
        "assert ops.composite is sys.modules['kiln.ops.composite'], ops.composite\n"
        "assert ops.composite.MultitypeFuncGraph is ops.MultitypeFuncGraph\n"
        "assert ops.composite.HyperMap is ops.HyperMap\n"
    )
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    env = dict(os.environ, PYTHONPATH=root + os.pathsep + os.environ.get("PYTHONPATH", ""))
    proc = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr


def test_quant_dtype_values():
    assert QuantDtype.INT8.value == 7 and QuantDtype.UINT4.value == 103 and len(QuantDtype) == 32


class _BiLSTMOffAscend(nn.Cell):
    """The zoo's CTPN (official/cv/CTPN/src/ctpn.py): its BiLSTM builds two DynamicRNNs in __init__ on every device,
    and CTPN runs nn.LSTM instead when device_target is not Ascend (here: when `on_ascend` is False)."""

    def __init__(self, on_ascend: bool):
        super().__init__()
        self.on_ascend = on_ascend
        self.rnn1 = operations.DynamicRNN(forget_bias=0.0)
        self.rnn_bw = ops.DynamicRNN(forget_bias=0.0)
        self.gru = operations.nn_ops.DynamicGRUV2(gate_order="zrh")
        self.lstm = nn.LSTM(input_size=3, hidden_size=2)
        self.w = kiln.Parameter(kiln.Tensor(np.full((5, 8), 0.1, np.float16)), name="w")

    def construct(self, x, h, c):
        if self.on_ascend:
            x16 = ops.cast(x, kiln.float16)
            return self.rnn1(x16, self.w, self.w[0], None, ops.cast(h, kiln.float16), ops.cast(c, kiln.float16))[0]
        return self.lstm(x, (h, c))[0]


@pytest.mark.parametrize("mode", [kiln.PYNATIVE_MODE, kiln.GRAPH_MODE])
def test_a_cell_building_ascend_recurrent_primitives_runs_where_it_does_not_call_them(mode):
    # MindSpore 2.10's CPU builds P.DynamicRNN and P.DynamicGRUV2 (checking their arguments) and refuses the kernel
    # only when one is called; Kiln had no such names (AttributeError), so the zoo's CTPN could not be built at all.
    kiln.set_context(mode=mode)
    r = np.random.RandomState(0)
    x, h, c = r.standard_normal((4, 2, 3)), r.standard_normal((1, 2, 2)), r.standard_normal((1, 2, 2))
    args = [kiln.Tensor(a.astype(np.float32)) for a in (x, h, c)]
    off = _BiLSTMOffAscend(on_ascend=False)
    np.testing.assert_array_equal(off(*args).asnumpy(), off.lstm(args[0], (args[1], args[2]))[0].asnumpy())
    assert off.rnn1.name == "DynamicRNN" and off.rnn1.forget_bias == 0.0 and off.gru.attrs["gate_order"] == "zrh"
    with pytest.raises(NotImplementedError, match=r"ops\.DynamicRNN is not available in Kiln.*use nn\.LSTM"):
        _BiLSTMOffAscend(on_ascend=True)(*args).asnumpy()
    with pytest.raises(NotImplementedError, match=r"ops\.DynamicGRUV2 is not available in Kiln.*use nn\.GRU"):
        off.gru(args[0])


@pytest.mark.parametrize(
    ("op", "kwargs", "error"),
    [  # the error class MindSpore 2.10 raises for each (measured on its CPU build)
        ("DynamicRNN", {"forget_bias": 1}, TypeError),
        ("DynamicRNN", {"cell_depth": True}, TypeError),
        ("DynamicRNN", {"cell_type": "GRU"}, ValueError),
        ("DynamicRNN", {"direction": "BIDIRECTIONAL"}, ValueError),
        ("DynamicRNN", {"activation": "relu"}, ValueError),
        ("DynamicRNN", {"time_major": False}, ValueError),
        ("DynamicRNN", {"keep_prob": 2.0}, ValueError),
        ("DynamicRNN", {"num_proj": -1}, ValueError),
        ("DynamicGRUV2", {"gate_order": "xyz"}, ValueError),
        ("DynamicGRUV2", {"reset_after": 1}, TypeError),
    ],
)
def test_ascend_recurrent_primitives_check_their_arguments_as_mindspore(op, kwargs, error):
    name = next(iter(kwargs))
    with pytest.raises(error, match=f"{op}: '{name}' must"):
        getattr(operations, op)(**kwargs)
    # what MindSpore takes builds: DynamicGRUV2 leaves time_major and keep_prob unchecked
    operations.DynamicGRUV2(time_major=False, keep_prob=3.0)
