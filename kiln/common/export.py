"""`export` / `load` (MindSpore's `mindspore.export`, `mindspore.load`) on StableHLO.

`export(net, *inputs, file_name=...)` traces the network once in PyNative mode at the inputs' shapes and dtypes
(the weights become constants of the program, as in a MindIR file) and writes the XLA program as serialized
StableHLO (JAX's export format) in Kiln's own small container:

    b"KILNHLO1" | 8-byte little-endian header length | JSON header (avals, platforms...) | StableHLO bytecode

The file is not MindIR (MindSpore cannot read it, and Kiln cannot read MindIR), but the round trip is real:
`load(file)` gives a callable graph that runs the exported program on CPU or GPU without the Python source,
and `nn.GraphCell(graph)` (kiln/nn/graph_cell.py) wraps it as a Cell. The program is exported for CPU and CUDA
where the lowering allows.
"""

from __future__ import annotations

import json
import os
import struct

import numpy as np

from kiln import context
from kiln._backend.stablehlo import export_program, load_program, shape_struct
from kiln._core import dtype as mstype
from kiln._core.atomic_files import atomic_write
from kiln._core.source_site import defined_at
from kiln._core.tensor import Tensor

__all__ = ["ExportedGraph", "export", "load"]

_MAGIC = b"KILNHLO1"
_FORMATS = ("MINDIR", "STABLEHLO")
_SUFFIX = {"MINDIR": ".mindir", "STABLEHLO": ".stablehlo"}


def _as_struct(value):
    if isinstance(value, Tensor):
        return shape_struct(value.shape, value.dtype.np)
    if isinstance(value, np.ndarray):
        return shape_struct(value.shape, value.dtype)
    raise TypeError(f"export: the inputs must be Tensors (their shapes and dtypes are exported), but got "
                    f"{type(value).__name__}.")  # fmt: skip


def _network_site(net) -> str:
    """Where the exported network's outputs come from: its construct, or the function itself."""
    fn = getattr(net, "construct", net)
    return defined_at(fn, f"{type(net).__name__}.construct" if fn is not net else getattr(net, "__name__", None))


def _flat_outputs(out, net) -> tuple[tuple, int | list]:
    """The arrays of `out` (a Tensor, or tuples and lists of Tensors nested to any depth, as the zoo's Viterbi
    decoders return) in order, and its nesting: a leaf's index into them, a list for each tuple or list."""
    arrays = []

    def flatten(value):
        if isinstance(value, Tensor):
            arrays.append(value._data)
            return len(arrays) - 1
        if isinstance(value, (tuple, list)):
            return [flatten(v) for v in value]
        raise TypeError(
            f"export: the network must return a Tensor or (nested) tuples of Tensors, but {_network_site(net)} "
            f"returned {type(value).__name__}" + ("" if value is out else f" inside {type(out).__name__}") + "."
        )

    nesting = flatten(out)
    return tuple(arrays), nesting


def _nest(nesting, arrays: tuple):
    """The outputs `_flat_outputs` flattened, rebuilt as Tensors in tuples (MindSpore's graph outputs are tuples)."""
    if isinstance(nesting, int):
        return Tensor._wrap(arrays[nesting])
    return tuple(_nest(n, arrays) for n in nesting)


def export(net, *inputs, file_name: str, file_format: str = "MINDIR", **kwargs) -> None:
    """Write `net` (a Cell or a function of Tensors), traced at the shapes/dtypes of `inputs`, to `file_name`.

    The network returns a Tensor or tuples of Tensors nested to any depth; the graph `load` reads gives them back
    with that nesting (lists as tuples), as MindSpore's GraphCell does.

    Args:
        net: the network; call `net.set_train(False)` first for inference.
        inputs: example Tensors fixing the input shapes and dtypes.
        file_name: the path; ".mindir" (or ".stablehlo") is appended when it has no such suffix.
        file_format: "MINDIR" (Kiln's StableHLO container under MindSpore's suffix) or "STABLEHLO". "AIR" and
            "ONNX" are not produced by Kiln.
    """
    fmt = str(file_format).upper()
    if fmt not in _FORMATS:
        raise NotImplementedError(
            f"export: file_format={file_format!r} is not produced by Kiln; use 'MINDIR' (written as StableHLO in "
            "Kiln's container) or 'STABLEHLO'."
        )
    for key in ("enc_key", "obf_config", "custom_func"):
        if kwargs.get(key) is not None:
            raise NotImplementedError(f"export: '{key}' (MindIR encryption/obfuscation) is not supported by Kiln.")
    if not inputs:
        raise ValueError("export: give example input Tensors (they fix the exported shapes and dtypes).")
    structs = tuple(_as_struct(x) for x in inputs)
    shape = {"nesting": None}

    def program(*arrays):
        out = net(*(Tensor._wrap(a) for a in arrays))
        flat, shape["nesting"] = _flat_outputs(out, net)
        return flat

    mode = context.get_context("mode")
    context.set_context(mode=context.PYNATIVE_MODE)
    try:
        facts, module = export_program(program, structs)
    finally:
        context.set_context(mode=mode)
    nesting = shape["nesting"]
    header = {**facts, "tuple_output": isinstance(nesting, list), "output_nesting": nesting, "format": fmt}
    path = file_name if os.path.splitext(file_name)[1] in _SUFFIX.values() else file_name + _SUFFIX[fmt]
    text = json.dumps(header).encode()
    atomic_write(path, (_MAGIC, struct.pack("<Q", len(text)), text, module))


class ExportedGraph:
    """A program read by `load`: call it with Tensors of the exported shapes and dtypes."""

    def __init__(self, run, header: dict) -> None:
        self._run = run
        self.header = header

    @property
    def input_shapes(self) -> list[tuple]:
        return [tuple(s) for s, _ in self.header["inputs"]]

    def __call__(self, *inputs):
        want = self.header["inputs"]
        if len(inputs) != len(want):
            raise ValueError(f"the exported graph takes {len(want)} input(s), but got {len(inputs)}.")
        arrays = []
        for i, (x, (shape, dtype)) in enumerate(zip(inputs, want, strict=True)):
            x = x if isinstance(x, Tensor) else Tensor(np.asarray(x))
            if tuple(x.shape) != tuple(shape) or x.dtype.np != np.dtype(dtype):
                raise ValueError(f"input {i} must be {mstype.from_np(np.dtype(dtype))}{list(shape)}, "
                                 f"but got {x.dtype}{list(x.shape)}.")  # fmt: skip
            arrays.append(x._data)
        out = tuple(self._run(*arrays))
        if "output_nesting" in self.header:
            return _nest(self.header["output_nesting"], out)
        out = tuple(Tensor._wrap(o) for o in out)  # written before nested outputs: one Tensor or a flat tuple
        return out if self.header["tuple_output"] else out[0]

    def __repr__(self) -> str:
        return f"ExportedGraph(inputs={self.header['inputs']}, outputs={self.header['outputs']})"


def load(file_name: str, **kwargs) -> ExportedGraph:
    """Read a file written by `export`; the result is callable (or wrap it: `GraphCell(load(path))`)."""
    if kwargs.get("dec_key") is not None:
        raise NotImplementedError("load: encrypted MindIR ('dec_key') is not supported by Kiln.")
    with open(file_name, "rb") as f:
        blob = f.read()
    if not blob.startswith(_MAGIC):
        raise ValueError(
            f"load: {file_name!r} is not a graph exported by Kiln (MindSpore's MindIR protobuf files cannot be "
            "read by Kiln; export the network with kiln.export)."
        )
    (size,) = struct.unpack("<Q", blob[len(_MAGIC) : len(_MAGIC) + 8])
    start = len(_MAGIC) + 8
    header = json.loads(blob[start : start + size].decode())
    module = blob[start + size :]
    return ExportedGraph(load_program(header, module), header)
