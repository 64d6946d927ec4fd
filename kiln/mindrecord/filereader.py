"""FileReader: read the rows of MindRecord files, Kiln's or MindSpore's layout, as dicts (see `kiln.mindrecord`)."""

from __future__ import annotations

import mmap
import os
import sqlite3

import numpy as np

from kiln.mindrecord.common import MRMOpenError, ParamTypeError, ParamValueError, decode_row, read_footer, shard_paths
from kiln.mindrecord.paged_format import PagedShard, read_header


class KilnShard:
    """One shard file in Kiln's own layout (see `kiln.mindrecord`), memory-mapped."""

    def __init__(self, path: str) -> None:
        footer = read_footer(path)
        self.path = path
        self.schema = footer["schema"]
        self.desc = footer["desc"]
        self.index_fields = footer["index_fields"]
        self.siblings = shard_paths(path, footer)
        self._offsets = footer["offsets"]
        self._names = list(self.schema)
        self._map = None

    def __len__(self) -> int:
        return len(self._offsets)

    def read(self, local: int) -> dict:
        """Record `local` of this shard: field -> Python bytes/str or NumPy array (0-D for scalars)."""
        if self._map is None:
            with open(self.path, "rb") as f:
                self._map = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
        return decode_row(self.schema, self._names, self._map, self._offsets[local])

    def index_values(self, field: str) -> list:
        """Each record's value of index field `field` as text (SQLite's spelling), in record order."""
        con = sqlite3.connect(self.path + ".db")
        try:
            rows = con.execute(f'SELECT row_id, CAST("{field}" AS TEXT) FROM idx ORDER BY row_id')
            return [value for _, value in rows]
        finally:
            con.close()

    def close(self) -> None:
        if self._map is not None:
            self._map.close()
            self._map = None


def open_shard(path: str) -> KilnShard | PagedShard:
    """Shard file `path`, in Kiln's layout or in MindSpore's paged one (a set converted by MindSpore)."""
    header = read_header(path) if os.path.isfile(path) and os.access(path, os.R_OK) else None
    return PagedShard(path, header) if header is not None else KilnShard(path)


class ShardSet:
    """The shard files of a MindRecord set, memory-mapped, as one sequence of rows."""

    def __init__(self, file_name) -> None:
        if isinstance(file_name, str | os.PathLike):
            first = open_shard(os.fspath(file_name))
            same = os.path.abspath(first.path)
            shards = [first if os.path.abspath(p) == same else open_shard(p) for p in first.siblings]
        elif isinstance(file_name, list | tuple) and file_name:
            shards = [open_shard(os.fspath(p)) for p in file_name]
        else:
            raise ParamTypeError(f"MindRecord: file_name must be a path or a non-empty list, but got {file_name!r}.")
        self.shards = shards
        self.paths = [s.path for s in shards]
        schema = shards[0].schema
        for s in shards:
            if s.schema != schema:
                raise MRMOpenError(f"MindRecord file {s.path!r} has another schema than {shards[0].path!r}.")
        self.schema = schema
        self.names = list(schema)
        self.index_fields = shards[0].index_fields
        self.starts = np.cumsum([0] + [len(s) for s in shards]).tolist()

    def __len__(self) -> int:
        return self.starts[-1]

    def locate(self, index: int) -> tuple[int, int]:
        """(shard, row within the shard) of global row `index`."""
        k = int(np.searchsorted(self.starts, index, side="right")) - 1
        return k, index - self.starts[k]

    def read(self, index: int) -> dict:
        k, local = self.locate(index)
        return self.shards[k].read(local)

    def close(self) -> None:
        for s in self.shards:
            s.close()


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
