"""The fault catalogue: bad inputs and faults a user can hit, what Kiln does, and what MindSpore 2.10 did.

Pure data, importable without Kiln: `test_fault_catalogue.py` runs every case on Kiln, and
`catalogue_mindspore.py` runs the same snippets on MindSpore 2.10 (CPU) to re-check the
`mindspore` column, which records what MindSpore did when this table was written.

A case's `code` runs with `ms` bound to the framework (kiln, or mindspore) after `PRELUDE`, with
`tmp` a fresh directory. `exc` is the exception type name Kiln raises (None: it must run, and
`out`, when the code sets it, must satisfy `check`), `fragments` are substrings of the message.
"""

from __future__ import annotations

from dataclasses import dataclass

PRELUDE = """
import os
import numpy as np
ops, nn, Tensor = ms.ops, ms.nn, ms.Tensor

def T(*shape, dtype=np.float32):
    return Tensor(np.ones(shape, dtype))

def I(*values):
    return Tensor(np.array(values, np.int32))

x6 = Tensor(np.arange(6, dtype=np.float32))
x23 = Tensor(np.arange(6, dtype=np.float32).reshape(2, 3))
logits = Tensor(np.random.default_rng(0).standard_normal((3, 4)).astype(np.float32))
"""


@dataclass(frozen=True)
class Fault:
    id: str
    area: str
    code: str
    exc: str | None
    fragments: tuple[str, ...] = ()
    mindspore: str = ""
    check: str = ""  # for exc=None: a Python expression on `out` that must be true
    warns: str = ""  # a warning whose message contains this must be raised (once)
    kiln_only: bool = False  # the snippet uses Kiln's own API; MindSpore has no counterpart


def F(id, area, code, exc, fragments=(), mindspore="", **kw) -> Fault:
    frags = (fragments,) if isinstance(fragments, str) else tuple(fragments)
    return Fault(id, area, code.strip(), exc, frags, mindspore, **kw)


# fmt: off
CASES: list[Fault] = [
    # ---- shapes and dtypes ---------------------------------------------------------------------
    F("matmul-inner-dims", "shapes", "ops.matmul(T(2, 3), T(4, 5))", "ValueError", ("MatMul", "[2, 3]", "[4, 5]"),
      "RuntimeError: For 'MatMulExt' op, shape1[-1] must be equal to shape2[-2], but got 3 and 4"),
    F("add-broadcast", "shapes", "ops.add(T(2, 3), T(4, 5))", "ValueError", ("Add", "[2, 3]", "[4, 5]"),
      "ValueError: For 'Add', input1.shape and input2.shape need to broadcast ... [2, 3] and [4, 5]"),
    F("operator-sub-broadcast", "shapes", "T(5, 1) - T(2, 5, 3, 2)", "ValueError", ("Sub", "[5, 1]"),
      "ValueError: For 'SubExt', input.shape and other.shape need to broadcast"),
    F("reshape-size", "shapes", "ops.reshape(T(2, 3), (4, 2))", "ValueError", ("Reshape", "[2, 3]", "[4, 2]"),
      "ValueError: proposed_shape {4, 2} is invalid for input of size 6 (no op name)"),
    F("concat-shapes", "shapes", "ops.concat((T(2, 3), T(3, 4)), 0)", "ValueError", ("Concat", "[2, 3]", "[3, 4]"),
      "ValueError: For primitive[Concat] only support one axis different ... {2, 3}, {3, 4}"),
    F("stack-shapes", "shapes", "ops.stack((T(2, 3), T(2, 4)))", "ValueError", ("Stack", "[2, 3]", "[2, 4]"),
      "ValueError: All input shape must be the same! {2, 4} And {2, 3} (no op name)"),
    F("transpose-perm", "shapes", "ops.transpose(T(2, 3), (0, 0))", "ValueError", ("Transpose", "perm"),
      "ValueError: For 'Transpose' perms should all be unique dim, but0 is not unique!"),
    F("broadcast-to", "shapes", "ops.broadcast_to(T(2, 3), (4, 3))", "ValueError", ("BroadcastTo", "[2, 3]"),
      "ValueError: For 'BroadcastTo', ... each dimension pair must be equal ... x_shape (2, 3), target (4, 3)"),
    F("bias-add-channels", "shapes", "ops.bias_add(T(2, 3, 4, 4), T(5))", "ValueError", ("BiasAdd", "[5]"),
      "ValueError: For 'BiasAdd', bias[0] shape should be equal to input_x[1] shape ... {5}, {2, 3, 4, 4}"),
    F("dense-in-features", "shapes", "nn.Dense(4, 2)(T(3, 5))", "ValueError", ("[3, 5]",),
      "ValueError: For 'MatMul' the input dimensions must be equal, but got 'x1_col': 5 and 'x2_row': 4"),
    F("softmax-axis", "shapes", "ops.softmax(T(2, 3), 3)", "ValueError", ("Softmax", "axis"),
      "ValueError: For primitive[Softmax], the axis must be in [-2,2), but got 3"),
    F("sum-axis", "shapes", "ops.sum(T(2, 3), 2)", "ValueError", ("ReduceSum", "axis"),
      "ValueError: For primitive[SumExt], the axis value must be in [-2,2), but got 2"),
    F("expand-dims-axis", "shapes", "ops.expand_dims(T(2, 3), 5)", "ValueError", ("ExpandDims",),
      "ValueError: Dimension out of range (expected to be in range of [-3, 3), but got 5)"),
    F("topk-too-big", "shapes", "ops.topk(T(2, 3), 5)", "ValueError", ("TopK",),
      "ValueError: For primitive[TopK], the k must be in (0,3], but got 5"),
    F("split-sizes", "shapes", "ops.split(T(4, 2), [1, 2])", "ValueError", ("Split",),
      "ValueError: The sum of 'split_size_or_sections' should be equal to 4, but got 3"),
    F("squeeze-non-one", "shapes", "out = ops.squeeze(T(2, 3), 0)", None,
      mindspore="runs: returns the input unchanged (a non-1 axis is left alone)", check="out.shape == (2, 3)"),
    F("gather-float-indices", "dtypes", "ops.gather(T(3, 3), T(2), 0)", "TypeError", ("Gather", "integer"),
      "TypeError: Kernel select failed: Select CPU operator[Gather] fail! Unsupported data type!"),
    F("one-hot-negative-depth", "shapes", "ops.one_hot(I(1, 0), -1, Tensor(1.0), Tensor(0.0))", "ValueError",
      ("OneHot", "depth"), "ValueError: For primitive[OneHot], the depth value must be greater than or equal to 0"),
    F("conv2d-rank", "shapes", "nn.Conv2d(1, 2, 3)(T(1, 8, 8))", "ValueError", ("Conv2D",),
      "ValueError: For primitive[Conv2D], the x shape size must be equal to 4, but got 3"),
    F("sparse-sce-float-labels", "dtypes",
      "ops.SparseSoftmaxCrossEntropyWithLogits()(logits, Tensor(np.zeros(3, np.float32)))", "TypeError",
      ("labels", "integer"),
      "TypeError: For primitive[SparseSoftmaxCrossEntropyWithLogits], labels_type must be Tensor[Int32] or "
      "Tensor[Int64], but got Tensor[Float32]"),
    F("cross-entropy-target-shape", "shapes", "ops.cross_entropy(logits, I(0, 1))", "ValueError",
      ("CrossEntropy", "target"),
      "ValueError: For 'MaskedFill', input.shape and mask.shape need to broadcast ... [3, 1] and [2, 1]"),
    # ---- indices: out of range ------------------------------------------------------------------
    F("gather-past-end", "indices", "ops.gather(x6, Tensor([1, 10]), 0)", "IndexError",
      ("Gather", "10", "[-6, 6)", "axis 0"),
      "RuntimeError: For 'Gather', the 'input_indices' should be in the range [0, 6), but got 10"),
    F("gather-below-minus-size", "indices", "ops.gather(x6, Tensor([1, -7]), 0)", "IndexError", ("Gather", "-7"),
      "RuntimeError: For 'Gather', ... should be in the range [0, 6), but got -1 (not the value given)"),
    F("gather-negative-wraps", "indices", "out = ops.gather(x6, Tensor([1, -1]), 0)", None,
      mindspore="runs: [1. 5.] (-1 is the last row)", check="out.asnumpy().tolist() == [1.0, 5.0]"),
    F("gather-axis-1", "indices", "ops.gather(x23, Tensor([0, 5]), 1)", "IndexError", ("Gather", "5", "axis 1"),
      "RuntimeError: For 'Gather', ... should be in the range [0, 3), but got 5"),
    F("gather-batch-dims", "indices", "ops.gather(x23, Tensor([[0, 5], [1, 1]]), 1, batch_dims=1)", "IndexError",
      ("Gather", "5", "[0, 1]"), "RuntimeError: For 'Gather', ... should be in the range [0, 3), but got 5"),
    F("index-select", "indices", "ops.index_select(x23, 1, Tensor([0, 9]))", "IndexError", ("Gather", "9"),
      "RuntimeError: For 'Gather', ... should be in the range [0, 3), but got 9"),
    F("tensor-gather-method", "indices", "x6.gather(Tensor([0, 6]), 0)", "IndexError", ("Gather", "6"),
      "RuntimeError: For 'Gather', ... should be in the range [0, 6), but got 6"),
    F("gather-elements", "indices", "ops.gather_elements(x23, 1, Tensor([[0, 7], [1, 1]]))", "IndexError",
      ("GatherD", "7", "[0, 1]"), "RuntimeError: For 'GatherD', the value of 'index' must be in [-3, 3), but got 7"),
    F("gather-d", "indices", "ops.gather_d(x23, 0, Tensor([[0, 7, 1], [1, 1, 1]]))", "IndexError", ("GatherD", "7"),
      "RuntimeError: For 'GatherD', the value of 'index' must be in [-2, 2), but got 7"),
    F("gather-nd-column", "indices", "ops.gather_nd(x23, Tensor([[0, 5], [1, 1]]))", "IndexError",
      ("GatherNd", "5", "axis 1"), "RuntimeError: For 'GatherNd', the indices[0] {0, 5} does not index into [2, 3]"),
    F("gather-nd-row", "indices", "ops.gather_nd(x23, Tensor([[4, 0], [1, 1]]))", "IndexError",
      ("GatherNd", "4", "axis 0"), "RuntimeError: For 'GatherNd', the indices[0] {4, 0} does not index into [2, 3]"),
    F("gather-nd-negative", "indices", "ops.gather_nd(x23, Tensor([[-1, 0], [1, 1]]))", "IndexError",
      ("GatherNd", "-1", "[0, 2)"), "RuntimeError: For 'GatherNd', the indices[0] {-1, 0} does not index into [2, 3]"),
    F("scatter-nd-past-end", "indices", "ops.scatter_nd(Tensor([[0], [9]]), T(2), (4,))", "IndexError",
      ("ScatterNd", "9", "[0, 4)"), "RuntimeError: For 'ScatterNd', each element in 'indices' should be smaller than "
      "the value of shape, but got 9"),
    F("scatter-nd-negative", "indices", "ops.scatter_nd(Tensor([[0], [-1]]), T(2), (4,))", "IndexError",
      ("ScatterNd", "-1"), "RuntimeError: For 'ScatterNd', each element in 'indice' must be >= 0, but got -1"),
    F("tensor-scatter-update", "indices", "ops.tensor_scatter_update(x6, Tensor([[0], [9]]), T(2))", "IndexValueError",
      ("TensorScatterUpdate", "9"), "ValueError: For 'TensorScatterUpdate', indices out of range for input_x ({9})"),
    F("tensor-scatter-add", "indices", "ops.tensor_scatter_add(x6, Tensor([[0], [9]]), T(2))", "IndexError",
      ("TensorScatterAdd", "9"), "RuntimeError: For 'TensorScatterAdd', the 1-th value of 'indices'[9] is out of "
      "range[6]"),
    F("tensor-scatter-max", "indices", "ops.tensor_scatter_max(x6, Tensor([[0], [9]]), T(2))", "IndexError",
      ("TensorScatterMax", "9"), "RuntimeError: For 'TensorScatterMax', the 1-th value of 'indices'[9] is out of "
      "range[6]"),
    F("tensor-scatter-min-negative", "indices", "ops.tensor_scatter_min(x6, Tensor([[0], [-1]]), T(2))",
      "IndexError", ("TensorScatterMin", "-1"),
      "RuntimeError: For 'TensorScatterMin', the 1-th value of 'indices'[-1] is out of range[6]"),
    F("tensor-scatter-elements", "indices",
      "ops.tensor_scatter_elements(x23, Tensor([[0, 9]]), T(1, 2), 1)", "IndexError", ("TensorScatterElements", "9"),
      "runs silently: the out-of-range update is dropped ([[1. 1. 2.] [3. 4. 5.]])"),
    F("scatter", "indices", "ops.scatter(x23, 1, Tensor([[0, 9]]), T(1, 2))", "IndexError",
      ("TensorScatterElements", "9"), "runs silently: the out-of-range update is dropped"),
    # MindSpore's OneHot defines these rows (off_value wherever indices[j] != i); segmentation losses mask their
    # ignore label with it (the zoo's DeepLabV3, tests/zoo/deeplabv3)
    F("one-hot-past-depth", "indices", "out = ops.one_hot(Tensor([0, 5]), 3, Tensor(1.0), Tensor(0.0))", None,
      mindspore="runs: the row of index 5 is all off_value (TensorFlow semantics)",
      check="out.asnumpy().tolist() == [[1.0, 0.0, 0.0], [0.0, 0.0, 0.0]]"),
    F("one-hot-minus-one", "indices", "out = ops.one_hot(Tensor([0, -1]), 3, Tensor(1.0), Tensor(0.0))", None,
      mindspore="runs: the row of index -1 is all off_value",
      check="out.asnumpy().tolist() == [[1.0, 0.0, 0.0], [0.0, 0.0, 0.0]]"),
    F("embedding-past-end", "indices", "nn.Embedding(4, 2)(Tensor(np.array([[0, 4]], np.int32)))", "IndexError",
      ("Embedding", "4", "4 rows"), "RuntimeError: For 'Gather', ... should be in the range [0, 4), but got 4"),
    F("embedding-negative-wraps", "indices", "out = nn.Embedding(4, 2)(Tensor(np.array([[0, -1]], np.int32)))",
      None, mindspore="runs: -1 reads the last row", check="out.shape == (1, 2, 2)"),
    F("getitem-tensor-index", "indices", "x6[Tensor([0, 9])]", "IndexError", ("9", "axis 0", "size 6"),
      "RuntimeError: For 'Gather', ... should be in the range [0, 6), but got 9"),
    F("getitem-tensor-below", "indices", "x6[Tensor([0, -7])]", "IndexError", ("-7", "axis 0"),
      "RuntimeError: For 'Gather', ... should be in the range [0, 6), but got -1"),
    F("getitem-tensor-negative-wraps", "indices", "out = x6[Tensor([0, -1])]", None, mindspore="runs: [0. 5.]",
      check="out.asnumpy().tolist() == [0.0, 5.0]"),
    F("getitem-second-axis", "indices", "x23[:, Tensor([0, 3])]", "IndexError", ("3", "axis 1", "size 3"),
      "RuntimeError: For 'GatherNd', the indices[1] {0, 3} does not index into [2, 3]"),
    F("getitem-two-tensors", "indices", "x23[Tensor([0, 1]), Tensor([0, 3])]", "IndexError", ("3", "axis 1"),
      "RuntimeError: For 'GatherNd', the indices[1] {1, 3} does not index into [2, 3]"),
    F("getitem-list-index", "indices", "x6[[0, 6]]", "IndexError", ("6", "axis 0"),
      "RuntimeError: For 'Gather', ... should be in the range [0, 6), but got 6"),
    F("getitem-int", "indices", "x23[5]", "IndexError", ("5", "axis 0"),
      "IndexError: index 5 is out of bounds for dimension with size 2"),
    F("setitem-tensor-index", "indices", "y = x6.copy()\ny[Tensor([0, 9])] = 1.0", "IndexError", ("9", "axis 0"),
      "ValueError: For 'TensorScatterUpdate', indices out of range for input_x ({9})"),
    # ---- labels ----------------------------------------------------------------------------------
    F("ctc-loss-label-past-classes", "labels",
      "nn.CTCLoss()(Tensor(np.log(np.full((10, 2, 4), 0.25, np.float32))), Tensor(np.arange(10).reshape(2, 5), "
      "ms.int32), I(10, 10), I(3, 3))", "IndexError", ("CTCLoss", "index 5", "targets[1, 0]", "4 classes"),
      "runs silently: the second sample's labels 5..7 read past the 4 classes and its loss is a finite number"),
    F("sce-sparse-mean-label-past", "labels",
      "nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction='mean')(logits, I(0, 1, 4))", "ValueError",
      ("label 4", "4 classes", "[0, 4)"), "runs silently: the loss is inf"),
    # reduction 'none' is a one-hot of the labels (in MindSpore too), whose out-of-range rows are all off_value
    F("sce-sparse-none-label-past", "labels",
      "out = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction='none')(logits, I(0, 1, 4))", None,
      mindspore="runs silently: the bad row's loss is -0.0, the others are finite",
      check="out.asnumpy()[2] == 0 and bool(np.isfinite(out.asnumpy()).all())"),
    F("sce-sparse-negative-label", "labels",
      "nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction='mean')(logits, I(0, 1, -1))", "ValueError",
      ("label -1",), "RuntimeError: For 'SparseSoftmaxCrossEntropyWithLogits' got error label! label[index] must >= "
      "0, but got index = 2 label[index] = -1"),
    F("sparse-sce-primitive", "labels", "ops.SparseSoftmaxCrossEntropyWithLogits()(logits, I(0, 1, 4))",
      "ValueError", ("SparseSoftmaxCrossEntropyWithLogits", "label 4"), "runs silently: the loss is inf"),
    F("cross-entropy-label-past", "labels", "ops.cross_entropy(logits, I(0, 1, 4))", "ValueError",
      ("CrossEntropy", "label 4", "ignore_index"),
      "RuntimeError: For 'GatherD', the value of 'index' must be in [-4, 4), but got: 4"),
    F("cross-entropy-negative-label", "labels", "ops.cross_entropy(logits, I(0, 1, -1))", "ValueError",
      ("CrossEntropy", "label -1"), "runs silently: -1 wraps to the last class"),
    F("cross-entropy-ignore-index", "labels", "out = ops.cross_entropy(logits, I(0, 1, -100))", None,
      mindspore="runs: -100 (ignore_index) is ignored", check="np.isfinite(out.asnumpy())"),
    F("cross-entropy-custom-ignore", "labels", "out = ops.cross_entropy(logits, I(0, 1, -5), ignore_index=-5)", None,
      mindspore="runs: -5 is ignored", check="np.isfinite(out.asnumpy())"),
    F("cross-entropy-loss-cell", "labels", "nn.CrossEntropyLoss()(logits, I(0, 1, 4))", "ValueError", ("label 4",),
      "RuntimeError: For 'GatherD', the value of 'index' must be in [-4, 4), but got: 4"),
    F("nll-loss-label-past", "labels", "ops.nll_loss(logits, I(0, 1, 4))", "ValueError", ("NLLLoss", "label 4"),
      "RuntimeError: For 'GatherD', the value of 'index' must be in [-4, 4), but got: 4"),
    F("nll-loss-negative-label", "labels", "ops.nll_loss(logits, I(0, 1, -3))", "ValueError", ("NLLLoss", "-3"),
      "runs silently: -3 wraps to class 1"),
    F("nll-loss-cell", "labels", "nn.NLLLoss()(logits, I(0, 1, 4))", "ValueError", ("NLLLoss", "label 4"),
      "RuntimeError: For 'GatherD', the value of 'index' must be in [-4, 4), but got: 4"),
    # ---- context and configuration -----------------------------------------------------------------
    F("device-ascend", "context", "ms.set_context(device_target='Ascend')", "RuntimeError", ("Ascend", "not available"),
      "RuntimeError: Unsupported device target Ascend. This process only supports one of the ['CPU']"),
    F("device-unknown", "context", "ms.set_context(device_target='TPU')", "ValueError", ("device_target", "TPU"),
      "ValueError: 'device_target' must be one of ['CPU', 'GPU', 'Ascend', 'Davinci'], but got TPU"),
    F("device-not-str", "context", "ms.set_context(device_target=1)", "TypeError", ("device_target", "str"),
      "TypeError: The parameter 'device_target' must be str, but got int"),
    F("mode-out-of-range", "context", "ms.set_context(mode=2)", "ValueError", ("mode", "GRAPH_MODE"),
      "ValueError: 'mode' should be context.GRAPH_MODE (0) or context.PYNATIVE_MODE (1), but got 2"),
    F("mode-string", "context", "ms.set_context(mode='graph')", "TypeError", ("mode",),
      "TypeError: The parameter 'mode' must be int, but got str"),
    F("max-call-depth-negative", "context", "ms.set_context(max_call_depth=-5)", "ValueError",
      ("max_call_depth", "positive", "-5"), "ValueError: 'max_call_depth' must be greater than 0, but got -5"),
    F("max-call-depth-zero", "context", "ms.set_context(max_call_depth=0)", "ValueError", ("max_call_depth",),
      "ValueError: 'max_call_depth' must be greater than 0, but got 0"),
    F("max-call-depth-float", "context", "ms.set_context(max_call_depth=1.5)", "TypeError", ("max_call_depth", "int"),
      "TypeError: The parameter 'max_call_depth' must be int, but got float"),
    F("save-graphs-range", "context", "ms.set_context(save_graphs=5)", "ValueError", ("save_graphs", "[0, 3]"),
      "ValueError: value for save_graphs should be 0-3 but got '5'"),
    F("save-graphs-type", "context", "ms.set_context(save_graphs='yes')", "TypeError", ("save_graphs",),
      "TypeError: The parameter 'save_graphs' must be (bool, int), but got str"),
    F("save-graphs-path-type", "context", "ms.set_context(save_graphs_path=1)", "TypeError", ("save_graphs_path",),
      "TypeError: The parameter 'save_graphs_path' must be str, but got int"),
    F("jit-level-unknown", "context", "ms.set_context(jit_level='O3')", "ValueError", ("jit_level", "O3"),
      "runs: accepted without a word"),
    F("jit-level-type", "context", "ms.set_context(jit_level=1)", "TypeError", ("jit_level",),
      "RuntimeError: Got illegal param 87 and value with type int"),
    F("deterministic-value", "context", "ms.set_context(deterministic='yes')", "ValueError", ("deterministic",),
      "ValueError: 'deterministic' must be one of ['ON', 'OFF'], but got yes"),
    F("deterministic-type", "context", "ms.set_context(deterministic=True)", "TypeError", ("deterministic",),
      "TypeError: The parameter 'deterministic' must be str, but got bool"),
    F("device-id-range", "context", "ms.set_context(device_id=-1)", "ValueError", ("device_id", "[0, 4095]"),
      "ValueError: 'device_id' must be in range [0, 4095], but got -1"),
    F("device-id-type", "context", "ms.set_context(device_id='0')", "TypeError", ("device_id",),
      "TypeError: The parameter 'device_id' must be int, but got str"),
    F("jit-syntax-level-value", "context", "ms.set_context(jit_syntax_level=5)", "ValueError", ("jit_syntax_level",),
      "ValueError: For 'jit_syntax_level', the value should be context.STRICT or context.LAX, but got 5"),
    F("bool-option-type", "context", "ms.set_context(pynative_synchronize=1)", "TypeError",
      ("pynative_synchronize", "bool"), "TypeError: The parameter 'pynative_synchronize' must be bool, but got int"),
    F("max-device-memory-format", "context", "ms.set_context(max_device_memory='3G')", "ValueError",
      ("max_device_memory", "GB"), "runs: accepted on CPU (the option only applies to GPU and Ascend)"),
    F("max-device-memory-zero", "context", "ms.set_context(max_device_memory='0GB')", "ValueError",
      ("max_device_memory",), "runs: accepted on CPU (the option only applies to GPU and Ascend)"),
    F("memory-optimize-level", "context", "ms.set_context(memory_optimize_level='O5')", "ValueError",
      ("memory_optimize_level",), "ValueError: 'memory_optimize_level' must be one of ['O0', 'O1'], but got O5"),
    F("runtime-threads", "context", "ms.set_context(runtime_num_threads=-1)", "ValueError", ("runtime_num_threads",),
      "ValueError: The num of thread must bigger than or equal to 0."),
    F("unknown-option", "context", "ms.set_context(foo=1)", "ValueError", ("foo",),
      "ValueError: the keyword argument foo is not recognized!"),
    F("removed-option", "context", "ms.set_context(grad_for_scalar=True)", "ValueError", ("grad_for_scalar",),
      "ValueError: 'grad_for_scalar' has been removed since MindSpore 2.10"),
    F("ascend-option-top-level", "context", "ms.set_context(precision_mode='force_fp16')", "ValueError",
      ("ascend_config",), "ValueError: Please set 'precision_mode' through parameter ascend_config"),
    F("jit-config-key", "context", "ms.set_context(jit_config={'level': 'O0'})", "ValueError", ("jit_config",),
      "ValueError: the key of argument 'jit_config' must be one of {'jit_level': ..., 'infer_boost': ...}"),
    F("get-context-unknown", "context", "ms.get_context('foo')", "ValueError", ("foo",),
      "ValueError: For 'context.get_context', the argument foo is not recognized!"),
    F("no-effect-option-warns", "context", "ms.set_context(enable_graph_kernel=True)", None,
      mindspore="runs: a deprecation line in the log, no Python warning", warns="no effect in Kiln"),
    F("ascend-config-warns", "context", "ms.set_context(ascend_config={'precision_mode': 'force_fp16'})", None,
      mindspore="runs: a line in the log (Ascend-only option ignored), no Python warning", warns="no effect in Kiln"),
    F("runtime-checks-type", "context", "ms.set_context(runtime_checks='off')", "TypeError", ("runtime_checks",),
      mindspore="n/a: Kiln's own option", kiln_only=True),
    F("jit-config-class-level", "context", "ms.JitConfig(jit_level='O9')", "ValueError", ("jit_level",),
      "ValueError: For 'jit_level' must be one of ['O0', 'O1', 'O2']."),
    # ---- checkpoints --------------------------------------------------------------------------------
    F("ckpt-missing", "checkpoint", "ms.load_checkpoint(os.path.join(tmp, 'none.ckpt'))", "ValueError",
      ("does not exist",), "ValueError: For 'load_checkpoint', the checkpoint file: ... does not exist"),
    F("ckpt-corrupt", "checkpoint", """
path = os.path.join(tmp, 'bad.ckpt')
with open(path, 'wb') as f:
    f.write(os.urandom(4096))
ms.load_checkpoint(path)
""", "ValueError", ("bad.ckpt",), "ValueError: Failed to read the checkpoint file ... The file may be corrupted"),
    F("ckpt-truncated", "checkpoint", """
path = os.path.join(tmp, 'net.ckpt')
ms.save_checkpoint(nn.Dense(64, 64), path)
data = open(path, 'rb').read()
with open(path, 'wb') as f:
    f.write(data[: len(data) // 2])
ms.load_checkpoint(path)
""", "ValueError", ("net.ckpt",), "ValueError: Failed to read the checkpoint file ... The file may be corrupted"),
    F("ckpt-empty", "checkpoint", """
path = os.path.join(tmp, 'empty.ckpt')
open(path, 'wb').close()
ms.load_checkpoint(path)
""", "ValueError", ("empty.ckpt",), "ValueError: The loaded parameter dict is empty after filter or specify "
      "(misleading: no filter was set)"),
    F("ckpt-shape-mismatch", "checkpoint", """
path = os.path.join(tmp, 'a.ckpt')
ms.save_checkpoint(nn.Dense(5, 3), path)
ms.load_param_into_net(nn.Dense(4, 3), ms.load_checkpoint(path))
""", "CheckpointMismatchError", ("weight", "[3, 5]", "[3, 4]", "nothing was loaded"),
      "RuntimeError: For 'load_param_into_net', weight in the argument 'net' should have the same shape as weight "
      "in the argument 'parameter_dict'"),
    F("ckpt-save-missing-dir", "checkpoint", "ms.save_checkpoint(nn.Dense(2, 2), os.path.join(tmp, 'no', 'x.ckpt'))",
      "FileNotFoundError", ("does not exist",),
      "FileNotFoundError: [Errno 2] No such file or directory: '.../no/x.tmp'"),
    F("ckpt-save-bad-object", "checkpoint", "ms.save_checkpoint(5, os.path.join(tmp, 'x.ckpt'))", "TypeError",
      ("save_obj",), "TypeError: For 'save_checkpoint', the parameter 'save_obj' must be nn.Cell, list or dict"),
    # ---- datasets -------------------------------------------------------------------------------------
    F("dataset-generator-raises", "dataset", """
def gen():
    for i in range(5):
        if i == 3:
            raise KeyError('row 3 is bad')
        yield (np.array([i], np.float32),)
for _ in ms.dataset.GeneratorDataset(gen, ['x']).create_tuple_iterator():
    pass
""", "KeyError", ("row 3 is bad",), "RuntimeError: Exception thrown from user defined Python function in dataset "
      "(the KeyError and its traceback are inside the message)"),
    F("dataset-map-raises", "dataset", """
def bad(x):
    raise ZeroDivisionError('cannot scale row')
data = ms.dataset.NumpySlicesDataset({'x': np.arange(4, dtype=np.float32)}, shuffle=False).map(bad, ['x'])
for _ in data.create_tuple_iterator():
    pass
""", "ZeroDivisionError", ("cannot scale row",), "RuntimeError: Exception thrown from user defined Python "
      "function in dataset (the ZeroDivisionError is inside the message)"),
    F("dataset-slices-lengths", "dataset",
      "ms.dataset.NumpySlicesDataset({'a': np.zeros(3), 'b': np.zeros(4)})", "ValueError", ("3", "4"),
      "ValueError: Data length in each column is not equal."),
    F("dataset-batch-ragged", "dataset", """
def gen():
    yield (np.zeros(2, np.float32),)
    yield (np.zeros(3, np.float32),)
for _ in ms.dataset.GeneratorDataset(gen, ['x'], shuffle=False).batch(2).create_tuple_iterator():
    pass
""", "RuntimeError", ("batch", "shape"), "RuntimeError: Exception thrown from dataset pipeline (shapes inside "
      "'Dataset Pipeline Error Message')"),
    F("dataset-project-missing-column", "dataset",
      "ms.dataset.NumpySlicesDataset({'x': np.zeros(3)}).project(['y'])", "ValueError", ("'y'", "does not exist"),
      "runs: the bad column is only reported when the data is read"),
    F("dataset-batch-size-zero", "dataset", "ms.dataset.NumpySlicesDataset({'x': np.zeros(3)}).batch(0)",
      "ValueError", ("batch_size",),
      "ValueError: Input batch_size is not within the required interval of [1, 2147483647]."),
    F("dataset-mnist-missing-dir", "dataset", "ms.dataset.MnistDataset(os.path.join(tmp, 'nowhere'))",
      "FileNotFoundError", ("nowhere", "does not exist"),
      "ValueError: The folder ... does not exist or is not a directory or permission denied!"),
    # ---- numerics: IEEE results pass through, as in MindSpore -------------------------------------------
    F("log-negative", "numerics", "out = ops.log(Tensor([-1.0]))", None, mindspore="runs: nan",
      check="np.isnan(out.asnumpy()).all()"),
    F("divide-by-zero", "numerics", "out = Tensor([1.0]) / Tensor([0.0])", None, mindspore="runs: inf",
      check="np.isinf(out.asnumpy()).all()"),
    F("sqrt-negative", "numerics", "out = ops.sqrt(Tensor([-4.0]))", None, mindspore="runs: nan",
      check="np.isnan(out.asnumpy()).all()"),
    F("float16-overflow", "numerics", "out = Tensor(np.array([60000.0], np.float16)) * 2", None,
      mindspore="runs: inf", check="np.isinf(out.asnumpy()).all()"),
    F("softmax-large-logits", "numerics", "out = ops.softmax(Tensor([1000.0, 0.0]))", None,
      mindspore="runs: [1. 0.]", check="np.isfinite(out.asnumpy()).all()"),
    F("exp-overflow", "numerics", "out = ops.exp(Tensor([100.0]))", None, mindspore="runs: inf",
      check="np.isinf(out.asnumpy()).all()"),
    # ---- resources and internal failures ----------------------------------------------------------------
    F("out-of-memory", "resources", "ops.zeros((1 << 22, 1 << 22, 1 << 10), ms.float32)", "MemoryError",
      ("out of memory", "TiB", "Fill"), "RuntimeError: Allocate memory failed (no size, no op name)"),
    # faults injected into a primitive's backend call: dispatch must say what happened, in its own words
    F("backend-out-of-memory", "resources", """
from kiln._core.primitive import REGISTRY, PrimitiveDef
from kiln._pynative.dispatch import apply

def impl(x):
    raise RuntimeError("RESOURCE_EXHAUSTED: Out of memory while trying to allocate 1073741824 bytes.")

apply(REGISTRY.get("FaultOOM") or PrimitiveDef("FaultOOM", impl), (T(2),))
""", "MemoryError", ("FaultOOM", "1.00 GiB", "1073741824 bytes"), "n/a: fault injected into a Kiln primitive",
      kiln_only=True),
    F("backend-recursion", "resources", """
from kiln._core.primitive import REGISTRY, PrimitiveDef
from kiln._pynative.dispatch import apply

def impl(x):
    raise RecursionError("maximum recursion depth exceeded while calling a Python object")

apply(REGISTRY.get("FaultRecursion") or PrimitiveDef("FaultRecursion", impl), (T(2),))
""", "RecursionError", ("FaultRecursion", "recursion depth"), "n/a: fault injected into a Kiln primitive",
      kiln_only=True),
    F("backend-internal-error", "resources", """
from kiln._core.primitive import REGISTRY, PrimitiveDef
from kiln._pynative.dispatch import apply

def impl(x):
    raise TypeError("Traced<ShapedArray(float32[2])> is not valid. For simplicity, JAX ...")

prim = REGISTRY.get("FaultInternal") or PrimitiveDef("FaultInternal", impl, check=lambda x: None)
apply(prim, (T(2),))
""", "RuntimeError", ("FaultInternal", "internally", "bug in Kiln", "repro", "REGISTRY['FaultInternal']"),
      "n/a: fault injected into a Kiln primitive", kiln_only=True),
    F("backend-bad-shapes-without-check", "resources", """
from kiln._core.primitive import REGISTRY, PrimitiveDef
from kiln._pynative.dispatch import apply
import kiln._backend as B

prim = REGISTRY.get("FaultNoCheck") or PrimitiveDef("FaultNoCheck", lambda x, y: B.jnp.dot(x, y))
apply(prim, (T(2, 3), T(4)))
""", "TypeError", ("FaultNoCheck", "[2, 3]", "[4]", "do not fit"), "n/a: Kiln primitive without a check",
      kiln_only=True),
    # ---- whole networks: a user's mistake in a Cell (tests/faults/network_faults.py runs each in PyNative,
    # GRAPH_MODE and under @jit; these are their PyNative halves) ------------------------------------------------
    F("net-conv2d-in-channels", "networks", "nn.Conv2d(3, 8, 3)(T(1, 1, 8, 8))", "ValueError",
      ("Conv2D", "[1, 1, 8, 8]", "[8, 3, 3, 3]"),
      "RuntimeError: For 'Conv2D', 'C_in' of input 'x' shape divide by parameter 'group' must be equal to 'C_in' of "
      "input 'weight' shape: 3, but got 'C_in' of input 'x' shape: 1, and 'group': 1."),
    F("net-flatten-forgotten", "networks", """
class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(1, 4, 3, pad_mode="valid")
        self.fc = nn.Dense(4 * 6 * 6, 10)

    def construct(self, x):
        return self.fc(self.conv(x))

Net()(T(2, 1, 8, 8))
""", "ValueError", ("Dense", "144", "[2, 4, 6, 6]"),
      "ValueError: For 'MatMul' the input dimensions must be equal, but got 'x1_col': 6 and 'x2_row': 144."),
    F("net-sce-sparse-onehot-labels", "networks",
      "nn.SoftmaxCrossEntropyWithLogits(sparse=True)(T(3, 4), T(3, 4, dtype=np.int32))", "ValueError",
      ("SoftmaxCrossEntropyWithLogits", "sparse=True", "[3]", "labels [3, 4]"),
      "ValueError: For primitive[SoftmaxCrossEntropyWithLogits], the dimension of labels must be equal to 2, but "
      "got 3 (the one-hot labels' rank)"),
    F("net-sce-dense-int-labels", "networks",
      "nn.SoftmaxCrossEntropyWithLogits(sparse=False)(T(3, 4), T(3, dtype=np.int32))", "ValueError",
      ("SoftmaxCrossEntropyWithLogits", "[3, 4]", "[3]"),
      "TypeError: For primitive[SoftmaxCrossEntropyWithLogits], the input type must be same (label Int32, logits "
      "Float32)"),
    F("net-sce-half-logits-float-labels", "networks",
      "nn.SoftmaxCrossEntropyWithLogits()(T(3, 4, dtype=np.float16), T(3, 4))", "TypeError",
      ("SoftmaxCrossEntropyWithLogits", "'logits' (Float16)", "'labels' (Float32)", "same dtype"),
      "TypeError: For primitive[SoftmaxCrossEntropyWithLogits], the input type must be same. | "
      "name:[label_type]:Tensor[Float32]."),
    F("net-sce-dense-shape", "networks", "nn.SoftmaxCrossEntropyWithLogits()(T(3, 4), T(3, 5))", "ValueError",
      ("SoftmaxCrossEntropyWithLogits", "[3, 4]", "[3, 5]"),
      "ValueError: For 'SoftmaxCrossEntropyWithLogits', ... 'label' shape: (3, 5), 'logits' shape: (3, 4)"),
    F("net-sce-sparse-float-labels", "networks", "nn.SoftmaxCrossEntropyWithLogits(sparse=True)(T(3, 4), T(3))",
      "TypeError", ("SoftmaxCrossEntropyWithLogits", "integer", "Float32", "[3]"),
      "TypeError: For primitive[OneHot], the input argument[indices] must be a type of {Tensor[Int32], "
      "Tensor[Int64]}, but got Tensor[Float32]"),
    F("net-nll-float-labels", "networks", "nn.NLLLoss()(T(3, 4), T(3))", "TypeError",
      ("NLLLoss", "Float32", "integer", "[3]"),
      "TypeError: For primitive[GatherD], the input argument[index] must be a type of {Tensor[Int32], "
      "Tensor[Int64]}, but got Tensor[Float32]"),
    F("net-cross-entropy-float-labels", "networks", "nn.CrossEntropyLoss()(T(3, 4), T(3))", "TypeError",
      ("CrossEntropy", "Float32", "integer"),
      "TypeError: For 'CrossEntropyLoss', the 'labels' should be Int32, but got 'mindspore.float32'."),
    F("net-nll-labels-shape", "networks", "nn.NLLLoss()(T(3, 4), T(3, 4, dtype=np.int32))", "ValueError",
      ("NLLLoss", "[3]", "[3, 4]"), "runs: -1.0 (labels of the logits' shape are accepted)"),
    F("net-cross-entropy-labels-shape", "networks", "nn.CrossEntropyLoss()(T(3, 4), T(2, dtype=np.int32))",
      "ValueError", ("CrossEntropy", "[3, 4]", "[2]"),
      "ValueError: For 'CrossEntropyLoss', ... 'logits' shape: (3, 4) and 'labels' shape: (2,)"),
    F("net-batchnorm2d-on-2d", "networks", "nn.BatchNorm2d(4)(T(3, 4))", "ValueError", ("BatchNorm2d", "[3, 4]"),
      "ValueError: For 'BatchNorm2d', the in_shape must have 4 dims, but got 2."),
    F("net-embedding-float-index", "networks", "nn.Embedding(10, 4)(T(2, 3))", "TypeError",
      ("Embedding", "integer", "float32"),
      "TypeError: Kernel select failed: Select CPU operator[Gather] fail! Unsupported data type!"),
    F("net-tensor-as-bool", "networks", """
class Net(nn.Cell):
    def construct(self, x):
        if x:
            return x + 1
        return x - 1

Net()(T(3))
""", "ValueError", ("[3]", ".any()"),
      "ValueError: The tensor should have only one element, but got 3, more than one element is ambiguous."),
    F("net-undefined-attribute", "networks", """
class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Dense(3, 3)

    def construct(self, x):
        return self.fc2(x)

Net()(T(2, 3))
""", "AttributeError", ("'Net'", "fc2"), "AttributeError: The 'Net' object has no attribute 'fc2'."),
    F("net-ops-typo", "networks", "ops.reducesum(T(2, 3))", "AttributeError", ("reducesum",),
      "AttributeError: module 'mindspore.ops' has no attribute 'reducesum'"),
    F("net-construct-too-many-args", "networks", """
class Net(nn.Cell):
    def construct(self, x):
        return x * 2

Net()(T(2), T(2))
""", "TypeError", ("construct()", "2 positional"),
      "TypeError: Net.construct() takes 2 positional arguments but 3 were given"),
    F("net-assign-parameter-shape", "networks", """
w = ms.Parameter(T(2, 2), name="w")
ops.assign(w, T(3, 3))
""", "ValueError", ("Assign", "[3, 3]", "[2, 2]"),
      "ValueError: For 'Assign','value' must have the same shape as 'variable' ... (3, 3), (2, 2)"),
    # set_data takes the new shape, as MindSpore's does; the mistake surfaces at the next call, in its op
    F("net-set-data-shape", "networks", """
d = nn.Dense(3, 2)
d.weight.set_data(T(3, 3))
d(T(1, 3))
""", "ValueError", ("Dense", "bias", "[3]", "[2]"),
      "ValueError: For 'BiasAdd', bias[0] shape should be equal to input_x[1] shape ... bias {2}, input {1, 3}"),
    F("net-value-and-grad-position", "networks", "ms.value_and_grad(nn.Dense(3, 2), grad_position=2)(T(1, 3))",
      "IndexError", ("grad_position 2", "1 argument"), "RuntimeError: Position index 2 is exceed input size."),
    F("net-sens-shape", "networks", "ops.GradOperation(sens_param=True)(nn.Dense(3, 2))(T(4, 3), T(4, 5))",
      "ValueError", ("(4, 5)", "(4, 2)"), "ValueError: The shape should be {4, 2}, but got {4, 5}, sens gradient ..."),
    F("net-optimizer-empty", "networks", "nn.Momentum([], 0.1, 0.9)", "ValueError", ("Optimizer", "empty"),
      "ValueError: For 'Optimizer', the argument parameters must not be empty."),
    F("net-optimizer-tensors", "networks", "nn.SGD([T(2, 2)], 0.1)", "TypeError", ("SGD", "Parameters"),
      "TypeError: For 'Optimizer', all elements of the argument 'parameters' must be 'Parameter' or 'dict'"),
    F("net-lr-list-past-its-end", "networks", """
w = ms.Parameter(T(2), name="w")
opt = nn.Momentum([w], [0.1, 0.05, 0.01], 0.9)
for _ in range(4):
    opt((T(2),))
""", "IndexError", ("Momentum", "3 step(s)", "step 4", "global_step 3"),
      "RuntimeError: For 'Gather', the 'input_indices' should be in the range [0, 3), but got 3 (at step 4)"),
    F("net-train-one-step-tensor-sens", "networks", """
net = nn.WithLossCell(nn.Dense(3, 2), nn.MSELoss())
nn.TrainOneStepCell(net, nn.SGD(net.trainable_params(), 0.1), sens=T(2, 2))
""", "TypeError", ("sens", "float"),
      "ValueError: The tensor should have only one element, but got 4 (at the first step)"),
    F("net-load-param-shapes", "networks", """
small, big = nn.Dense(3, 2), nn.Dense(4, 2)
ms.load_param_into_net(big, {p.name: p for p in small.get_parameters()}, strict_load=True)
""", "CheckpointMismatchError", ("load_param_into_net", "[2, 3]", "[2, 4]"),
      "RuntimeError: For 'load_param_into_net', weight ... shape (2, 4) in the argument 'net' and shape (2, 3) in "
      "the argument 'parameter_dict'"),
    F("net-model-train-float-labels", "networks", """
net = nn.Dense(3, 2)
data = {"x": np.ones((4, 3), np.float32), "y": np.zeros((4,), np.float32)}
ds = ms.dataset.NumpySlicesDataset(data, shuffle=False).batch(2)
loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
ms.train.Model(net, loss, nn.SGD(net.trainable_params(), 0.1)).train(1, ds)
""", "TypeError", ("SparseSoftmaxCrossEntropyWithLogits", "integer", "float32"),
      "TypeError: For primitive[SparseSoftmaxCrossEntropyWithLogits], the input argument[labels_type] must be a "
      "type of {Tensor[Int32], Tensor[Int64]}, but got Tensor[Float32]"),
    F("net-forgot-super-init", "networks", """
class Net(nn.Cell):
    def __init__(self):
        self.fc = nn.Dense(3, 2)

Net()
""", "AttributeError", ("super().__init__()",),
      "AttributeError: The 'Net' object has no attribute '_auto_prefix'."),
    F("net-maxpool-kernel-too-big", "networks", "nn.MaxPool2d(kernel_size=5, stride=1)(T(1, 1, 3, 3))",
      "ValueError", ("MaxPool", "[1, 1, 3, 3]"),
      "ValueError: For 'MaxPool', the each element of the output shape must be larger than 0 ... {1, 1, -1, -1}"),
    F("net-dense-int-input", "networks", "nn.Dense(3, 2)(T(2, 3, dtype=np.int32))", "TypeError", ("Dense", "Int32"),
      "TypeError: For 'MatMul', the type of 'x2' should be same as 'x1' ... Tensor[Int32] and Tensor[Float32]"),
    F("net-grad-weights-not-in-net", "networks", """
net, other = nn.Dense(3, 2), nn.Dense(3, 2)
out = ops.GradOperation(get_by_list=True)(net, ms.ParameterTuple(other.trainable_params()))(T(1, 3))
""", None, mindspore="runs: zero gradients for weights the network does not use (PyNative)",
      check="all(not g.asnumpy().any() for g in out)"),
    F("checks-off-switch", "indices", """
ms.set_context(runtime_checks=False)
out = ops.gather(x6, Tensor([1, 2]), 0)
""", None, mindspore="n/a: Kiln's own switch", check="out.asnumpy().tolist() == [1.0, 2.0]", kiln_only=True),
]


@dataclass(frozen=True)
class RunFault:
    """A `kiln run` case: the script, its arguments, the exit status and what stderr must show."""

    id: str
    script: str | None  # None: no script file is written (the path does not exist)
    args: tuple[str, ...]
    status: int
    stderr: tuple[str, ...]  # fragments of stderr ("{script}" stands for the script's path)
    mindspore: str
    lines: int = 0  # when > 0, stderr has exactly this many lines
    absent: tuple[str, ...] = ("runpy", "kiln/cli", "jax", "XLA")


RUN_CASES: list[RunFault] = [
    RunFault("run-missing-file-in-script", 'import mindspore\nprint("start")\nopen("missing.txt")\n', (), 1,
             ("Traceback (most recent call last):", 'File "{script}", line 3, in <module>', 'open("missing.txt")',
              "FileNotFoundError: [Errno 2] No such file or directory: 'missing.txt'"),
             "python script.py: the same traceback, exit status 1"),
    RunFault("run-user-exception-in-function",
             "import mindspore\n\ndef load(n):\n    raise ValueError(f'bad n: {n}')\n\nload(3)\n", (), 1,
             ('File "{script}", line 6, in <module>', 'File "{script}", line 4, in load', "ValueError: bad n: 3"),
             "python script.py: the same traceback, exit status 1"),
    RunFault("run-op-error-names-user-line",
             "import numpy as np\nimport mindspore as ms\nfrom mindspore import ops\n"
             "x = ms.Tensor(np.arange(6.0))\ny = ops.gather(x, ms.Tensor([1, 10]), 0)\n", (), 1,
             ('File "{script}", line 5, in <module>', "IndexError: For 'Gather'", "[-6, 6)"),
             "python script.py: RuntimeError: For 'Gather', ... should be in the range [0, 6), but got 10; exit 1"),
    RunFault("run-system-exit-code", "import mindspore\nraise SystemExit(3)\n", (), 3, (),
             "python script.py: exit status 3"),
    RunFault("run-syntax-error", "import mindspore\nx = (\n", (), 1,
             ('File "{script}", line 2', "SyntaxError"), "python script.py: the same SyntaxError, exit status 1"),
    RunFault("run-script-not-found", None, (), 2, ("no such script",),
             "n/a (no run command); python missing.py: can't open file, exit status 2", lines=1, absent=("Traceback",)),
    RunFault("run-script-is-directory", "<dir>", (), 2, ("is not a file",),
             "n/a (no run command); python DIR: can't find '__main__' module, exit status 1", lines=1,
             absent=("Traceback",)),
    RunFault("run-bad-option", "", ("--no-such-option",), 0, (), "n/a: arguments after SCRIPT belong to the script"),
]
RUN_OPTION_CASES = [
    # (id, argv after `kiln`, exit status, stderr fragment, MindSpore)
    ("cli-unknown-option", ("--bogus",), 2, "unrecognized arguments: --bogus", "n/a: MindSpore has no command line"),
    ("cli-run-without-script", ("run",), 2, "required", "n/a: MindSpore has no command line"),
    ("cli-unknown-command", ("fly",), 2, "invalid choice", "n/a: MindSpore has no command line"),
]

# fmt: on

KILL_MID_SAVE = (
    "a process killed while save_checkpoint writes leaves the previous checkpoint intact (write to a temporary "
    "file, fsync, rename)",
    "MindSpore 2.10 removes the old file first, then writes NAME.tmp and renames it: a kill mid-save leaves no "
    "checkpoint at the path, only a partial .tmp (mindspore/train/serialization.py, _exec_save)",
)
