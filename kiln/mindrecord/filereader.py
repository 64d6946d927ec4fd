"""FileReader: read the rows of Kiln MindRecord files as dicts (see `kiln.mindrecord`)."""

from __future__ import annotations

import mmap
import os

import numpy as np

from kiln.mindrecord.common import MRMOpenError, ParamTypeError, ParamValueError, decode_row, read_footer, shard_paths


class ShardSet:
    """The shard files of a MindRecord set, memory-mapped, as one sequence of rows."""

    def __init__(self, file_name) -> None:
        if isinstance(file_name, str | os.PathLike):
            path = os.fspath(file_name)
            first = read_footer(path)
            paths = shard_paths(path, first)
        elif isinstance(file_name, list | tuple) and file_name:
            paths = [os.fspath(p) for p in file_name]
        else:
            raise ParamTypeError(f"MindRecord: file_name must be a path or a non-empty list, but got {file_name!r}.")
        self.paths = paths
        self.footers = [read_footer(p) for p in paths]
        schema = self.footers[0]["schema"]
        for p, f in zip(paths, self.footers):
            if f["schema"] != schema:
                raise MRMOpenError(f"MindRecord file {p!r} has another schema than {paths[0]!r}.")
        self.schema = schema
        self.names = list(schema)
        self.index_fields = self.footers[0]["index_fields"]
        self._maps = [None] * len(paths)
        self.starts = np.cumsum([0] + [len(f["offsets"]) for f in self.footers]).tolist()

    def __len__(self) -> int:
        return self.starts[-1]

    def _map(self, k: int):
        if self._maps[k] is None:
            with open(self.paths[k], "rb") as f:
                self._maps[k] = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
        return self._maps[k]

    def locate(self, index: int) -> tuple[int, int]:
        """(shard, row within the shard) of global row `index`."""
        k = int(np.searchsorted(self.starts, index, side="right")) - 1
        return k, index - self.starts[k]

    def read(self, index: int) -> dict:
        k, local = self.locate(index)
        return decode_row(self.schema, self.names, self._map(k), self.footers[k]["offsets"][local])

    def close(self) -> None:
        for m in self._maps:
            if m is not None:
                m.close()
        self._maps = [None] * len(self.paths)


class FileReader:
    """Read every row of a MindRecord file set as a dict.

    Args:
        file_name: one shard file (the whole set it belongs to is read) or a list of shard files.
        num_consumer: accepted for compatibility (1 to the CPU count).
        columns: the fields to return (default all).
        operator: reserved (must be None).
    """

    def __init__(self, file_name, num_consumer: int = 4, columns=None, operator=None) -> None:
        if isinstance(num_consumer, bool) or not isinstance(num_consumer, int) or num_consumer < 1:
            raise ParamValueError(f"FileReader: num_consumer must be a positive int, but got {num_consumer!r}.")
        self._set = ShardSet(file_name)
        if columns is not None:
            if not isinstance(columns, list) or not all(c in self._set.schema for c in columns):
                raise ParamValueError(f"FileReader: columns {columns!r} are not all fields of {self._set.names}.")
        self._columns = columns or list(self._set.names)

    def schema(self) -> dict:
        """The schema dict the files were written with."""
        return {k: dict(v) for k, v in self._set.schema.items()}

    def len(self) -> int:
        """The number of rows."""
        return len(self._set)

    def get_next(self):
        """Yield every row as {field: value}: numbers as Python scalars or NumPy arrays, str, bytes."""
        for i in range(len(self._set)):
            row = self._set.read(i)
            out = {}
            for c in self._columns:
                v = row[c]
                out[c] = v.item() if isinstance(v, np.ndarray) and v.ndim == 0 else v
            yield out

    def close(self) -> None:
        """Release the memory maps."""
        self._set.close()
