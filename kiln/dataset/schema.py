"""Schema: the column names, types and shapes of a dataset, as MindSpore's JSON schema files describe them."""

from __future__ import annotations

import json
from collections.abc import Sequence

import numpy as np

from kiln._core import dtype as mstype

# MindSpore's schema type names -> NumPy dtypes.
_SCHEMA_TYPES = {
    "bool": np.bool_,
    "int8": np.int8,
    "uint8": np.uint8,
    "int16": np.int16,
    "uint16": np.uint16,
    "int32": np.int32,
    "uint32": np.uint32,
    "int64": np.int64,
    "uint64": np.uint64,
    "float16": np.float16,
    "float32": np.float32,
    "float64": np.float64,
    "string": np.str_,
    "bytes": np.bytes_,
}


def _schema_type(de_type) -> str:
    if isinstance(de_type, str):
        if de_type not in _SCHEMA_TYPES:
            raise ValueError(f"Schema: unknown type {de_type!r}; use one of {sorted(_SCHEMA_TYPES)}.")
        return de_type
    np_type = np.dtype(mstype.to_dtype(de_type).np) if not isinstance(de_type, type | np.dtype) else np.dtype(de_type)
    for name, t in _SCHEMA_TYPES.items():
        if np.dtype(t) == np_type:
            return name
    raise ValueError(f"Schema: type {de_type!r} has no schema name.")


class Schema:
    """Column names, types and shapes of a dataset (for RandomDataset, TFRecordDataset, GeneratorDataset).

    Args:
        schema_file: a JSON schema file ({"columns": {name: {"type": ..., "rank": ..., "shape": [...]}}}),
            or None for an empty schema filled with `add_column`.
    """

    def __init__(self, schema_file: str | None = None) -> None:
        self.columns: list[dict] = []
        self.num_rows: int | None = None
        if schema_file is not None:
            with open(schema_file) as f:
                self.from_json(json.load(f))

    def add_column(self, name: str, de_type, shape: Sequence[int] | None = None) -> None:
        """Add a column.

        Args:
            name: the column name.
            de_type: a kiln/NumPy dtype or a type name ("int32", "float32", "string", ...).
            shape: the shape of one row of the column (None: unknown).
        """
        if not isinstance(name, str) or not name:
            raise ValueError(f"Schema: a column name must be a non-empty str, but got {name!r}.")
        column = {"name": name, "type": _schema_type(de_type)}
        if shape is not None:
            column["shape"] = [int(s) for s in shape]
            column["rank"] = len(column["shape"])
        self.columns.append(column)

    def parse_columns(self, columns) -> None:
        """Replace the columns by a MindSpore column description: a dict name -> {"type", "shape"} or a list of
        dicts with "name".

        Args:
            columns: the description.
        """
        self.columns = []
        items = columns.items() if isinstance(columns, dict) else [(c["name"], c) for c in columns]
        for name, spec in items:
            if "type" not in spec:
                raise RuntimeError(f"Schema: column {name!r} has no 'type'.")
            self.add_column(name, spec["type"], spec.get("shape"))

    def to_json(self) -> str:
        """The schema as a JSON string."""
        columns = {c["name"]: {k: v for k, v in c.items() if k != "name"} for c in self.columns}
        out = {"columns": columns}
        if self.num_rows is not None:
            out["numRows"] = self.num_rows
        return json.dumps(out, indent=2)

    def from_json(self, json_obj: dict) -> None:
        """Load columns (and "numRows") from a parsed JSON schema.

        Args:
            json_obj: the dict.
        """
        if "columns" not in json_obj:
            raise RuntimeError("Schema: the JSON has no 'columns'.")
        self.parse_columns(json_obj["columns"])
        self.num_rows = json_obj.get("numRows")

    def get_num_rows(self) -> int | None:
        """The "numRows" of the schema file, or None."""
        return self.num_rows

    def names(self) -> list[str]:
        return [c["name"] for c in self.columns]

    def dtype(self, i: int):
        return np.dtype(_SCHEMA_TYPES[self.columns[i]["type"]])

    def __str__(self) -> str:
        return self.to_json()
