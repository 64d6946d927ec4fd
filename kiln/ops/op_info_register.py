"""Kernel descriptions for custom operators (MindSpore's `mindspore.ops.op_info_register`): `op_info_register`,
`DataType`, the description builders (`TBERegOp`, `CpuRegOp`, `CustomRegOp`, ...), `custom_info_register`, `kernel`.

MindSpore registers, for each hand-written kernel, which dtypes and memory formats its inputs and outputs take.
Kiln compiles every op through XLA and keeps no kernel table, so registration records the description
(`registered_op_info`, and on the function) and changes nothing else: the decorated function is returned as it is.
`kiln.ops` exports these names (through `kiln.ops.python_ops`); this module is their one definition.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import Any

__all__ = [
    "AiCPURegOp", "AkgAscendRegOp", "AkgGpuRegOp", "CpuRegOp", "CustomRegOp", "DataType", "TBERegOp",
    "custom_info_register", "kernel", "op_info_register", "registered_op_info",
]  # fmt: skip

_registry: dict[str, dict] = {}


def op_info_register(op_info: dict | str) -> Callable[[Callable], Callable]:
    """Record `op_info` (a `TBERegOp(...).get_op_info()` dict) for the kernel function it decorates (in the
    registry and as `fn.op_info`).

    Args:
        op_info: the kernel's description.

    Returns:
        A decorator that returns the function unchanged.
    """

    def register(fn: Callable) -> Callable:
        name = op_info.get("op_name", fn.__name__) if isinstance(op_info, dict) else fn.__name__
        _registry[name] = op_info if isinstance(op_info, dict) else {"op_name": name, "info": op_info}
        try:
            fn.op_info = op_info
        except AttributeError:  # a builtin or slotted callable keeps only the registry entry
            pass
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


# The builders of the other kernel kinds take any field: the description they collect describes nothing Kiln uses,
# so they keep MindSpore's builder interface and return what was collected.
class _RegOp:
    """Builder of a custom op's kernel description (`.input(...)`, `.output(...)`, `.attr(...)`, `.get_op_info()`)."""

    def __init__(self, op_name: str = "Custom") -> None:
        self.op_name = op_name
        self.info: dict = {"op_name": op_name, "inputs": [], "outputs": [], "attr": [], "dtype_format": []}

    def _add(self, key, *args, **kwargs):
        self.info[key].append({"args": args, **kwargs})
        return self

    def input(self, *args, **kwargs):  # noqa: A003
        return self._add("inputs", *args, **kwargs)

    def output(self, *args, **kwargs):
        return self._add("outputs", *args, **kwargs)

    def attr(self, *args, **kwargs):
        return self._add("attr", *args, **kwargs)

    def dtype_format(self, *args):
        self.info["dtype_format"].append(args)
        return self

    def __getattr__(self, name):
        if name.startswith("_"):
            raise AttributeError(name)

        def setter(*args, **kwargs):
            self.info[name] = args[0] if len(args) == 1 and not kwargs else (args, kwargs)
            return self

        return setter

    def get_op_info(self) -> dict:
        return self.info


class CpuRegOp(_RegOp):
    """Kernel description builder for a CPU custom op."""


class AiCPURegOp(_RegOp):
    """Kernel description builder for an AICPU custom op."""


class AkgGpuRegOp(_RegOp):
    """Kernel description builder for an AKG GPU custom op."""


class AkgAscendRegOp(_RegOp):
    """Kernel description builder for an AKG Ascend custom op."""


class CustomRegOp(_RegOp):
    """Kernel description builder for `ops.Custom`."""


def custom_info_register(*reg_info):
    """Decorator recording kernel descriptions on a custom op's function (`fn.reg_info`)."""

    def register(fn):
        try:
            fn.reg_info = list(reg_info)
        except AttributeError:
            pass
        return fn

    return register


def kernel(fn=None, reg_info=None, compile_attrs=None):
    """Decorator marking a function as a custom kernel; Kiln runs it as ordinary Python on Tensors."""

    def mark(f):
        try:
            f.reg_info, f.compile_attrs = reg_info, compile_attrs
        except AttributeError:
            pass
        return f

    return mark if fn is None else mark(fn)
