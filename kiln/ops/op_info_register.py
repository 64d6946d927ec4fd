"""Kernel descriptions for custom operators (MindSpore's `mindspore.ops.op_info_register`).

MindSpore registers, for each hand-written Ascend (TBE) kernel, which dtypes and memory formats its inputs and
outputs take. Kiln compiles every op through XLA and keeps no kernel table, so registration records the description
(`registered_op_info`) and changes nothing else: the decorated function is returned as it is.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import Any

__all__ = ["DataType", "TBERegOp", "op_info_register", "registered_op_info"]

_registry: dict[str, dict] = {}


def op_info_register(op_info: dict | str) -> Callable[[Callable], Callable]:
    """Record `op_info` (a `TBERegOp(...).get_op_info()` dict) for the kernel function it decorates.

    Args:
        op_info: the kernel's description.

    Returns:
        A decorator that returns the function unchanged.
    """

    def register(fn: Callable) -> Callable:
        name = op_info.get("op_name", fn.__name__) if isinstance(op_info, dict) else fn.__name__
        _registry[name] = op_info if isinstance(op_info, dict) else {"op_name": name, "info": op_info}
        return fn

    return register


def registered_op_info(op_name: str) -> dict | None:
    """The description `op_info_register` recorded for `op_name` (None if none was)."""
    return _registry.get(op_name)


class TBERegOp:
    """Builder of an Ascend kernel's description: each setter records a field and returns the builder.

    Args:
        op_name: the operator's name.
    """

    _FIELDS = (
        "fusion_type", "async_flag", "binfile_name", "compute_cost", "kernel_name", "partial_flag", "reshape_type",
        "dynamic_shape", "dynamic_rank_support", "dynamic_compile_static", "need_check_supported",
        "is_dynamic_format", "op_pattern", "real_input_index", "input_to_attr_index", "unknown_shape_formats",
    )  # fmt: skip

    def __init__(self, op_name: str) -> None:
        self._info: dict[str, Any] = {"op_name": op_name, "imply_type": "TBE", "inputs": [], "outputs": []}
        self._info.update(attr=[], dtype_format=[])

    def __getattr__(self, field: str) -> Callable[[Any], TBERegOp]:
        if field not in TBERegOp._FIELDS:
            raise AttributeError(f"'TBERegOp' has no field '{field}'")

        def set_field(value: Any) -> TBERegOp:
            self._info[field] = value
            return self

        return set_field

    def input(self, index=None, name=None, need_compile=None, param_type=None, shape=None, **kwargs) -> TBERegOp:
        """Describe input `index`."""
        row = {"index": index, "name": name, "need_compile": need_compile, "param_type": param_type, "shape": shape}
        self._info["inputs"].append({**row, **kwargs})
        return self

    def output(self, index=None, name=None, need_compile=None, param_type=None, shape=None, **kwargs) -> TBERegOp:
        """Describe output `index`."""
        row = {"index": index, "name": name, "need_compile": need_compile, "param_type": param_type, "shape": shape}
        self._info["outputs"].append({**row, **kwargs})
        return self

    def attr(self, name=None, param_type=None, value_type=None, value=None, default_value=None, **kwargs) -> TBERegOp:
        """Describe attribute `name`."""
        row = {"name": name, "param_type": param_type, "type": value_type, "value": value}
        self._info["attr"].append({**row, "default_value": default_value, **kwargs})
        return self

    def dtype_format(self, *args: tuple[str, str]) -> TBERegOp:
        """Add one supported combination: a (dtype, format) pair per input, then per output."""
        self._info["dtype_format"].append(tuple(args))
        return self

    def get_op_info(self) -> dict:
        """The description built so far."""
        return dict(self._info)


class DataType:
    """(dtype, format) pairs for `TBERegOp.dtype_format`: `DataType.F32_Default` is ("float32", "DefaultFormat")."""


_DTYPES = {
    "None": "", "BOOL": "bool", "I8": "int8", "U8": "uint8", "I16": "int16", "U16": "uint16", "I32": "int32",
    "U32": "uint32", "I64": "int64", "U64": "uint64", "F16": "float16", "F32": "float32", "F64": "float64",
    "BF16": "bfloat16", "C64": "complex64", "C128": "complex128",
}  # fmt: skip
_FORMATS = {
    "None": "", "Default": "DefaultFormat", "5HD": "NC1HWC0", "FracZ": "FRACTAL_Z", "FracNZ": "FRACTAL_NZ",
    "C1HWNCoC0": "C1HWNCoC0", "NCHW": "NCHW", "NHWC": "NHWC", "HWCN": "HWCN", "NDHWC": "NDHWC", "NCDHW": "NCDHW",
    "ChannelLast": "ChannelLast", "NDC1HWC0": "NDC1HWC0", "NC1HWC0": "NC1HWC0", "FRACTAL_Z_3D": "FRACTAL_Z_3D",
}  # fmt: skip
for (_short, _dtype), (_fmt_short, _fmt) in itertools.product(_DTYPES.items(), _FORMATS.items()):
    setattr(DataType, f"{_short}_{_fmt_short}", (_dtype, _fmt))
