"""`Dataset.save`: the rows of one epoch of a pipeline written as MindRecord files, readable with MindDataset."""

from __future__ import annotations

import numpy as np

from kiln.mindrecord import FileWriter
from kiln.mindrecord.common import NUMERIC_TYPES

_SAVE_TYPES = {
    "b": "int32",
    "i1": "int32",
    "i2": "int32",
    "i4": "int32",
    "u1": "int32",
    "u2": "int32",
    "i8": "int64",
    "u4": "int64",
    "u8": "int64",
    "f2": "float32",
    "f4": "float32",
    "f8": "float64",
}


def _schema_of(names: list[str], row: tuple) -> dict:
    schema = {}
    for name, value in zip(names, row):
        arr = np.asarray(value)
        if arr.dtype.kind == "U":
            if arr.ndim:
                raise RuntimeError(f"save: column {name!r} holds a string array; only scalar strings can be saved.")
            schema[name] = {"type": "string"}
        elif arr.dtype.kind == "S":
            schema[name] = {"type": "bytes"}
        else:
            key = "b" if arr.dtype.kind == "b" else f"{arr.dtype.kind}{arr.dtype.itemsize}"
            if key not in _SAVE_TYPES:
                raise RuntimeError(f"save: column {name!r} has dtype {arr.dtype}, which MindRecord cannot store.")
            schema[name] = {"type": _SAVE_TYPES[key]}
            if arr.ndim:
                schema[name]["shape"] = [-1, *arr.shape[1:]]
    return schema


def _record(schema: dict, names: list[str], row: tuple) -> dict:
    out = {}
    for name, value in zip(names, row):
        kind = schema[name]["type"]
        arr = np.asarray(value)
        if kind == "string":
            out[name] = str(arr.item())
        elif kind == "bytes":
            out[name] = arr.item() if arr.size == 1 else b"".join(arr.reshape(-1).tolist())
        elif "shape" in schema[name]:
            fixed = schema[name]["shape"][1:]
            if arr.ndim != len(fixed) + 1 or list(arr.shape[1:]) != fixed:
                raise RuntimeError(
                    f"save: column {name!r} has shape {list(arr.shape)} where [-1, *{fixed}] was expected; "
                    "MindRecord stores fixed shapes except for dimension 0. Reshape the column to one shape first."
                )
            out[name] = arr.astype(NUMERIC_TYPES[kind])
        else:
            out[name] = arr.astype(NUMERIC_TYPES[kind]).item()
    return out


def save(dataset, file_name: str, num_files: int = 1, file_type: str = "mindrecord") -> None:
    """Write every row of one epoch of `dataset` into MindRecord files (see `Dataset.save`)."""
    if file_type != "mindrecord":
        raise ValueError(f"save: file_type must be 'mindrecord', but got {file_type!r}.")
    if isinstance(num_files, bool) or not isinstance(num_files, int) or not 1 <= num_files <= 1000:
        raise ValueError(f"save: num_files must be an int in [1, 1000], but got {num_files!r}.")
    names = dataset.get_col_names()
    writer = FileWriter(file_name, num_files)
    schema = None
    pending: list[dict] = []
    for row in dataset.create_tuple_iterator(num_epochs=1, output_numpy=True):
        if schema is None:
            schema = _schema_of(names, row)
            writer.add_schema(schema, "saved by kiln.dataset.Dataset.save")
        pending.append(_record(schema, names, row))
    if schema is None:
        raise RuntimeError("save: the dataset has no rows to save.")
    writer.write_raw_data(pending)
    writer.commit()
