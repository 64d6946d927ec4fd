"""MindSpore's Primitive classes: `ops.MatMul()`, `ops.BiasAdd()`, `ops.ReduceSum(keep_dims=True)`.

Each class stores its attributes at construction and calls the functional op;
both paths end in the same primitive declaration.
"""

from __future__ import annotations

from kiln._core.tensor import Tensor
from kiln.ops import array, math
from kiln.ops import nn as nn_ops
from kiln.ops._helpers import apply, prim
from kiln.ops.faces import CLASSES
from kiln.ops.primitive import Primitive, WithAttrs

__all__: list[str] = []


def _simple(cls_name: str, fn):
    cls = type(cls_name, (Primitive,), {"__call__": lambda self, *args: fn(*args), "__doc__": f"Primitive {cls_name}."})
    cls.__init__ = lambda self: Primitive.__init__(self, cls_name)
    return cls


_SIMPLE = {
    "Div": math.div,
    "RealDiv": math.div,
    "Sigmoid": nn_ops.sigmoid,
    "ReLU": nn_ops.relu,
    "ReLU6": nn_ops.relu6,
    "SiLU": nn_ops.silu,
    "HSwish": nn_ops.hardswish,
    "HSigmoid": nn_ops.hardsigmoid,
    "Mish": nn_ops.mish,
    "SeLU": nn_ops.selu,
    "Softsign": nn_ops.softsign,
    "Select": array.select,
    "ZerosLike": array.zeros_like,
    "OnesLike": array.ones_like,
    "AddN": math.addn,
    "Identity": math.identity,
    "StopGradient": math.stop_gradient,
    "MatrixInverse": math.inverse,
    "Shape": lambda x: x.shape,
    "Rank": lambda x: x.ndim,
    "Size": lambda x: x.size,
    "DType": lambda x: x.dtype,
    "Reshape": array.reshape,
    "Transpose": array.transpose,
    "ExpandDims": array.expand_dims,
    "Tile": array.tile,
    "GatherNd": array.gather_nd,
    "ScatterNd": array.scatter_nd,
    "TensorScatterUpdate": array.tensor_scatter_update,
    "TensorScatterAdd": array.tensor_scatter_add,
    "Slice": array.slice,
    "MaskedFill": array.masked_fill,
    "Cast": math.cast,
    "Zeros": lambda shape, dtype=None: array.zeros(shape, dtype),
    "Ones": lambda shape, dtype=None: array.ones(shape, dtype),
    "Fill": array.fill,
    "Eye": lambda n, m, t: array.eye(n, m, t),
    "Elu": nn_ops.elu,
    "GeLU": nn_ops.gelu,
    "Softplus": nn_ops.softplus,
}
for _name, _cls in CLASSES.items():  # the classes of the faces table
    globals()[_name] = _cls
    __all__.append(_name)
for _name, _fn in _SIMPLE.items():
    globals()[_name] = _simple(_name, _fn)
    __all__.append(_name)


def _attr_class(cls_name: str, defaults: dict, call):
    cls = type(cls_name, (WithAttrs,), {"_defaults": defaults, "__call__": call, "__doc__": f"Primitive {cls_name}."})
    globals()[cls_name] = cls
    __all__.append(cls_name)
    return cls


def _reduce_class(name: str, fn):
    _attr_class(
        name, {"keep_dims": False}, lambda self, x, axis=(): fn(x, axis if axis != () else None, self.keep_dims)
    )


for _name, _fn in {
    "ReduceSum": math.sum, "ReduceMean": math.mean, "ReduceMax": math.amax, "ReduceMin": math.amin,
    "ReduceProd": math.prod, "ReduceAll": math.all, "ReduceAny": math.any,
}.items():  # fmt: skip
    _reduce_class(_name, _fn)

_attr_class(
    "MatMul",
    {"transpose_a": False, "transpose_b": False},
    lambda self, x, y: apply(prim("MatMul"), (x, y), (self.transpose_a, self.transpose_b)),
)
_attr_class(
    "BatchMatMul",
    {"transpose_a": False, "transpose_b": False},
    lambda self, x, y: apply(prim("BatchMatMul"), (x, y), (self.transpose_a, self.transpose_b)),
)
_attr_class("BiasAdd", {"data_format": "NCHW"}, lambda self, x, b: math.bias_add(x, b, self.data_format))
_attr_class("Softmax", {"axis": -1}, lambda self, x: nn_ops.softmax(x, self.axis))
_attr_class("LogSoftmax", {"axis": -1}, lambda self, x: nn_ops.log_softmax(x, self.axis))
_attr_class("LeakyReLU", {"alpha": 0.2}, lambda self, x: nn_ops.leaky_relu(x, self.alpha))
_attr_class("Concat", {"axis": 0}, lambda self, xs: array.concat(xs, self.axis))
_attr_class("Stack", {"axis": 0}, lambda self, xs: array.stack(xs, self.axis))
_attr_class("Unstack", {"axis": 0, "num": None}, lambda self, x: array.unstack(x, self.axis))
_attr_class("Squeeze", {"axis": ()}, lambda self, x: array.squeeze(x, self.axis if self.axis != () else None))
_attr_class("Flatten", {}, lambda self, x: array.flatten(x))
_attr_class(
    "Split",
    {"axis": 0, "output_num": 1},
    lambda self, x: array.split(x, x.shape[self.axis] // self.output_num, self.axis),
)
_attr_class(
    "Argmax",
    {"axis": -1, "output_type": None},
    lambda self, x: (
        math.cast(math.argmax(x, self.axis), self.output_type) if self.output_type else math.argmax(x, self.axis)
    ),
)
_attr_class("Argmin", {"axis": -1, "output_type": None}, lambda self, x: math.argmin(x, self.axis))
_attr_class("ArgMaxWithValue", {"axis": 0, "keep_dims": False}, lambda self, x: apply(
    prim("ArgMaxWithValue"), (x,), (self.axis, self.keep_dims)
))  # fmt: skip
_attr_class("ArgMinWithValue", {"axis": 0, "keep_dims": False}, lambda self, x: apply(
    prim("ArgMinWithValue"), (x,), (self.axis, self.keep_dims)
))  # fmt: skip
_attr_class("CumSum", {"exclusive": False, "reverse": False}, lambda self, x, axis: apply(
    prim("CumSum"), (x,), (int(axis), self.exclusive, self.reverse)
))  # fmt: skip
_attr_class("CumProd", {"exclusive": False, "reverse": False}, lambda self, x, axis: apply(
    prim("CumProd"), (x,), (int(axis), self.exclusive, self.reverse)
))  # fmt: skip
_attr_class("TopK", {"sorted": True}, lambda self, x, k: math.topk(x, int(k), -1, True, self.sorted))
_attr_class("Sort", {"axis": -1, "descending": False}, lambda self, x: math.sort(x, self.axis, self.descending))
_attr_class(
    "OneHot",
    {"axis": -1},
    lambda self, indices, depth, on_value, off_value: array.one_hot(indices, depth, on_value, off_value, self.axis),
)
_attr_class("BroadcastTo", {"shape": ()}, lambda self, x: array.broadcast_to(x, self.shape))
_attr_class("Einsum", {"equation": ""}, lambda self, xs: math.einsum(self.equation, *xs))
_attr_class("Pad", {"paddings": ()}, lambda self, x: apply(prim("Pad"), (x,), (tuple(map(tuple, self.paddings)),
                                                                                "constant", 0)))  # fmt: skip


class Print(Primitive):
    """Print tensors and strings (in PyNative: at once)."""

    def __init__(self) -> None:
        super().__init__("Print")

    def __call__(self, *args):
        print(*(a.asnumpy() if isinstance(a, Tensor) else a for a in args))


__all__.append("Print")
