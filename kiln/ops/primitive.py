"""MindSpore's `mindspore.ops.primitive` module: the Primitive base classes and their decorators."""

from kiln.ops.multitype import constexpr, primexpr
from kiln.ops.primitives import Primitive, PrimitiveWithInfer, prim_attr_register

PrimitiveWithCheck = Primitive  # MindSpore's base for primitives that check their inputs; Kiln's checks are built in
prim_arg_register = prim_attr_register

__all__ = [
    "Primitive", "PrimitiveWithCheck", "PrimitiveWithInfer", "constexpr", "prim_arg_register", "prim_attr_register",
    "primexpr",
]  # fmt: skip
