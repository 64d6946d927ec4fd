"""Runs one held-out program in one mode and encodes what it returned, for MindSpore's goldens and Kiln's test.

Imported under MindSpore 2.10 (by make_goldens_mindspore.py) and under Kiln (with the `mindspore` alias), so it
uses only `import mindspore`. A program is a function `prog_NAME(run)` in a programs_*.py file: it builds its
inputs, compiles what it wants with `run(fn_or_cell)` and returns what a user would look at.
"""

from __future__ import annotations

import importlib.util
import math
import os
import sys

import mindspore as ms
import numpy as np
from mindspore import nn

MODES = ("pynative", "graph", "jit", "bytecode")
HERE = os.path.dirname(os.path.abspath(__file__))


class Wrap(nn.Cell):
    """A Cell whose construct calls `fn`: how GRAPH_MODE compiles a plain function."""

    def __init__(self, fn):
        super().__init__()
        self.fn = fn

    def construct(self, *args):
        return self.fn(*args)


class Run:
    """`run(f)`: `f` (a function or a Cell) as it runs in one mode."""

    def __init__(self, mode: str):
        self.mode = mode

    def __call__(self, fn):
        if self.mode == "pynative":
            return fn
        if self.mode == "graph":
            return fn if isinstance(fn, nn.Cell) else Wrap(fn)
        capture = "bytecode" if self.mode == "bytecode" else "ast"
        if isinstance(fn, nn.Cell):
            cell = fn

            def call_cell(*args):
                return cell(*args)

            return ms.jit(call_cell, capture_mode=capture)
        return ms.jit(fn, capture_mode=capture)


def encode(value):
    """A JSON-able record of a program's result: values, dtypes, shapes and Python types."""
    if isinstance(value, ms.Tensor):
        dtype = str(value.dtype)
        wide = value.astype(ms.float32) if dtype in ("BFloat16", "Float16") else value
        array = wide.asnumpy()
        return {"tensor": encode_array(array), "dtype": dtype, "shape": list(array.shape)}
    if isinstance(value, bool | int | float | str) or value is None:
        if isinstance(value, float) and not math.isfinite(value):
            return {"py": repr(value), "type": "float"}
        return {"py": value, "type": type(value).__name__}
    if isinstance(value, list | tuple):
        return {"seq": type(value).__name__, "items": [encode(v) for v in value]}
    if isinstance(value, dict):
        return {"dict": {str(k): encode(v) for k, v in value.items()}}
    if isinstance(value, np.ndarray | np.generic):
        return {"numpy": encode_array(np.asarray(value)), "dtype": str(np.asarray(value).dtype)}
    return {"object": type(value).__name__}


def encode_array(array: np.ndarray):
    """Nested lists of an array's values, with non-finite floats spelled out."""
    if array.dtype.kind == "f":
        return np.vectorize(lambda v: v if math.isfinite(v) else repr(float(v)), otypes=[object])(
            array.astype(np.float64)
        ).tolist()
    return array.tolist()


def run_program(prog, mode: str):
    """The encoded result of `prog` in `mode`, or {"raises": exception type name}."""
    ms.set_context(mode=ms.GRAPH_MODE if mode == "graph" else ms.PYNATIVE_MODE)
    try:
        return encode(prog(Run(mode)))
    except Exception as error:  # noqa: BLE001 - the exception type is the result
        return {"raises": type(error).__name__}
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)


def program_files() -> list[str]:
    """The program files, in name order."""
    return sorted(name for name in os.listdir(HERE) if name.startswith("programs_") and name.endswith(".py"))


def load_programs() -> dict[str, object]:
    """Every program, keyed `file_stem.prog_name`."""
    programs = {}
    for name in program_files():
        stem = name[:-3]
        spec = importlib.util.spec_from_file_location(f"heldout_{stem}", os.path.join(HERE, name))
        module = importlib.util.module_from_spec(spec)
        sys.modules[spec.name] = module
        spec.loader.exec_module(module)
        for attr, fn in vars(module).items():
            if attr.startswith("prog_") and callable(fn):
                programs[f"{stem[len('programs_') :]}.{attr[len('prog_') :]}"] = fn
    return programs


def close(got, want, rtol: float = 1e-5, atol: float = 1e-6) -> str | None:
    """None when two encoded results agree, else a short reason."""
    if type(got) is not type(want):
        return f"{got!r} != {want!r}"
    if isinstance(want, dict):
        if want.keys() != got.keys():
            return f"{got} != {want}"
        for key in want:
            if key in ("tensor", "numpy"):
                reason = close_values(got[key], want[key], rtol, atol)
            else:
                reason = close(got[key], want[key], rtol, atol)
            if reason:
                return f"{key}: {reason}"
        return None
    if isinstance(want, list):
        if len(want) != len(got):
            return f"length {len(got)} != {len(want)}"
        return first_reason(close(g, w, rtol, atol) for g, w in zip(got, want, strict=True))
    if isinstance(want, float):
        return None if math.isclose(got, want, rel_tol=rtol, abs_tol=atol) else f"{got} != {want}"
    return None if got == want else f"{got!r} != {want!r}"


def close_values(got, want, rtol: float, atol: float) -> str | None:
    """Values of two arrays (nested lists, non-finite floats as strings) agree."""
    if isinstance(want, list) or isinstance(got, list):
        if not (isinstance(want, list) and isinstance(got, list)) or len(got) != len(want):
            return f"{got} != {want}"
        return first_reason(close_values(g, w, rtol, atol) for g, w in zip(got, want, strict=True))
    if isinstance(want, str) or isinstance(got, str) or isinstance(want, bool):
        return None if got == want else f"{got!r} != {want!r}"
    return None if math.isclose(got, want, rel_tol=rtol, abs_tol=atol) else f"{got} != {want}"


def first_reason(reasons) -> str | None:
    """The first difference among item-by-item comparisons (evaluated lazily), or None when all agree."""
    return next((r for r in reasons if r), None)
