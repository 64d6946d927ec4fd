"""How the dense and convolution layers add their bias: inside their primitive, or apart under amp level 'auto'."""

from __future__ import annotations

from kiln._core.tensor import Parameter
from kiln._pynative.dispatch import auto_dtype
from kiln.nn.cell import Cell


def bias_of(layer: Cell, can_add_apart: bool = True) -> tuple[Parameter | None, bool]:
    """(the bias to hand the layer's primitive, whether to add `layer.bias` after it instead, by BiasAdd).

    MindSpore's layers run MatMul or the convolution, then BiasAdd, which amp level 'auto' casts apart (the product in
    the low dtype, the bias added in float32); Kiln's primitives add it inside, so under that level the bias is added
    after, where `can_add_apart` (BiasAdd takes outputs of two or more dimensions).
    """
    bias = layer.bias if layer.has_bias else None  # MindSpore's layers add it while `has_bias` says so
    if bias is not None and can_add_apart and auto_dtype() is not None:
        return None, True
    return bias, False
