"""FileWriter: write rows into a set of Kiln MindRecord shard files (see `kiln.mindrecord`)."""

from __future__ import annotations

import json
import math
import os
import sqlite3

from kiln import log
from kiln.mindrecord.common import (
    _U64,
    END_MAGIC,
    MAGIC,
    MRMInvalidSchemaError,
    MRMOpenError,
    ParamTypeError,
    ParamValueError,
    encode_row,
    read_footer,
    shard_paths,
    validate_row,
    validate_schema,
    write_db,
)
from kiln.mindrecord.paged_format import read_header

_MIN_SHARDS, _MAX_SHARDS = 1, 1000


class FileWriter:
    """Write rows (dicts) into `shard_num` MindRecord files, each with its `.db` index.

    Args:
        file_name: the file to write; with shard_num > 1 the files are `file_name + "0"`, `file_name + "1"`, ...
        shard_num: how many files the rows are spread over (1 to 1000).
        overwrite: replace existing files of the same names (else they are an error).

    Rows of one `write_raw_data` call are spread over the shards in contiguous blocks; rows that do not match the
    schema are skipped with a warning.
    """

    def __init__(self, file_name: str, shard_num: int = 1, overwrite: bool = False) -> None:
        if not isinstance(file_name, str) or not file_name:
            raise ParamTypeError(f"FileWriter: file_name must be a non-empty str, but got {file_name!r}.")
        if isinstance(shard_num, bool) or not isinstance(shard_num, int):
            raise ParamTypeError(f"FileWriter: shard_num must be an int, but got {type(shard_num).__name__}.")
        if not _MIN_SHARDS <= shard_num <= _MAX_SHARDS:
            raise ParamValueError(f"FileWriter: shard_num must be in [1, 1000], but got {shard_num}.")
        if not isinstance(overwrite, bool):
            raise ParamTypeError(f"FileWriter: overwrite must be a bool, but got {type(overwrite).__name__}.")
        folder = os.path.dirname(os.path.abspath(file_name))
        if not os.path.isdir(folder):
            raise ParamValueError(f"FileWriter: the folder {folder!r} of {file_name!r} does not exist.")
        self._paths = [file_name] if shard_num == 1 else [f"{file_name}{i}" for i in range(shard_num)]
        existing = [p for path in self._paths for p in (path, path + ".db") if os.path.exists(p)]
        if existing:
            if not overwrite:
                raise RuntimeError(
                    f"FileWriter: MindRecord file(s) {existing} already exist; remove them or pass overwrite=True."
                )
            for p in existing:
                os.remove(p)
        self._schema: dict | None = None
        self._desc = ""
        self._index_fields: list[str] = []
        self._files = None
        self._offsets: list[list[int]] = [[] for _ in self._paths]
        self._index_rows: list[list[tuple]] = [[] for _ in self._paths]
        self._header_size = 1 << 24
        self._page_size = 1 << 25
        self._committed = False

    # -- configuration -----------------------------------------------------------------------------------------
    def add_schema(self, content: dict, desc: str | None = None) -> int:
        """Set the schema: {field: {"type": "int32"|"int64"|"float32"|"float64"|"bytes"|"string", "shape": [...]}}.

        Returns:
            The schema id (0).
        """
        if self._schema is not None:
            raise MRMInvalidSchemaError("FileWriter: the schema was already added; a file set has one schema.")
        if desc is not None and not isinstance(desc, str):
            raise ParamTypeError(f"FileWriter: desc must be a str, but got {type(desc).__name__}.")
        self._schema = validate_schema(content)
        self._desc = desc or ""
        return 0

    def add_index(self, index_fields) -> None:
        """Index these scalar string/number fields in the `.db` files (for MindPage)."""
        if self._schema is None:
            raise MRMInvalidSchemaError("FileWriter: add the schema before the index fields.")
        if not isinstance(index_fields, list) or not index_fields:
            raise ParamTypeError(f"FileWriter: index_fields must be a non-empty list, but got {index_fields!r}.")
        for f in index_fields:
            spec = self._schema.get(f)
            if spec is None:
                raise ParamValueError(f"FileWriter: index field {f!r} is not in the schema.")
            if spec["type"] == "bytes" or "shape" in spec:
                raise ParamValueError(f"FileWriter: index field {f!r} must be a scalar string or number.")
        self._index_fields = list(index_fields)

    def set_header_size(self, header_size: int) -> None:
        """Accepted for compatibility (16 KB to 128 MB): Kiln's footer grows as needed."""
        if isinstance(header_size, bool) or not isinstance(header_size, int) or not 1 << 14 <= header_size <= 1 << 27:
            raise ParamValueError(f"FileWriter: header_size must be in [16 KB, 128 MB], but got {header_size!r}.")
        self._header_size = header_size

    def set_page_size(self, page_size: int) -> None:
        """Accepted for compatibility (32 KB to 256 MB): Kiln's files have no pages."""
        if isinstance(page_size, bool) or not isinstance(page_size, int) or not 1 << 15 <= page_size <= 1 << 28:
            raise ParamValueError(f"FileWriter: page_size must be in [32 KB, 256 MB], but got {page_size!r}.")
        self._page_size = page_size

    # -- writing -----------------------------------------------------------------------------------------------
    def _open(self) -> None:
        if self._files is None:
            self._files = []
            for path in self._paths:
                f = open(path, "wb")  # noqa: SIM115  (closed by commit)
                f.write(MAGIC)
                self._files.append(f)

    def write_raw_data(self, raw_data, parallel_writer: bool = False) -> None:
        """Append rows (a list of dicts matching the schema); rows that do not match are skipped with a warning.

        Args:
            raw_data: the rows.
            parallel_writer: accepted for compatibility (rows are written in order).

        Raises:
            RuntimeError: when none of the rows matches the schema.
        """
        if self._committed:
            raise RuntimeError("FileWriter: the files were committed; open them with open_for_append to add rows.")
        if self._schema is None:
            raise MRMInvalidSchemaError("FileWriter: add_schema must be called before write_raw_data.")
        if not isinstance(raw_data, list):
            raise ParamTypeError(f"FileWriter: raw_data must be a list of dicts, but got {type(raw_data).__name__}.")
        good = []
        for i, row in enumerate(raw_data):
            clean, why = validate_row(self._schema, row)
            if clean is None:
                log.warning("FileWriter: row %d of write_raw_data is skipped: %s.", i, why)
            else:
                good.append(clean)
        if raw_data and not good:
            raise RuntimeError(
                f"FileWriter: none of the {len(raw_data)} rows passed to write_raw_data matches the schema (each "
                "was skipped with a warning saying why), so nothing was written."
            )
        self._open()
        names = list(self._schema)
        per = math.ceil(len(good) / len(self._paths)) if good else 0
        for k, row in enumerate(good):
            shard = k // per
            f = self._files[shard]
            self._offsets[shard].append(f.tell())
            f.write(encode_row(self._schema, names, row))
            if self._index_fields:
                local = len(self._offsets[shard]) - 1
                self._index_rows[shard].append(
                    (local, *(row[n].item() if hasattr(row[n], "item") else row[n] for n in self._index_fields))
                )

    def commit(self) -> None:
        """Finish the files: write every shard's footer and `.db` index, and close them."""
        if self._committed:
            return
        if self._schema is None:
            raise MRMInvalidSchemaError("FileWriter: add_schema must be called before commit.")
        self._open()
        names = [os.path.basename(p) for p in self._paths]
        for k, (path, f) in enumerate(zip(self._paths, self._files)):
            footer = {
                "version": 1,
                "schema": self._schema,
                "desc": self._desc,
                "index_fields": self._index_fields,
                "shard_id": k,
                "shard_files": names,
                "offsets": self._offsets[k],
                "data_end": f.tell(),
            }
            raw = json.dumps(footer).encode("utf-8")
            f.write(raw)
            f.write(_U64.pack(len(raw)))
            f.write(END_MAGIC)
            f.close()
            write_db(path, footer, self._index_rows[k])
        self._committed = True

    # -- appending ---------------------------------------------------------------------------------------------
    @classmethod
    def open_for_append(cls, file_name: str) -> FileWriter:
        """A writer that adds rows to the committed file set `file_name` belongs to (written by Kiln)."""
        if os.path.isfile(file_name) and read_header(file_name) is not None:
            raise MRMOpenError(
                f"FileWriter: {file_name!r} is a MindRecord file in MindSpore's layout, which Kiln reads but does not "
                "append to; write the rows into a new file set instead."
            )
        footer = read_footer(file_name)
        paths = shard_paths(file_name, footer)
        writer = cls.__new__(cls)
        writer._paths = paths
        writer._schema = footer["schema"]
        writer._desc = footer["desc"]
        writer._index_fields = footer["index_fields"]
        writer._header_size, writer._page_size = 1 << 24, 1 << 25
        writer._committed = False
        writer._offsets, writer._index_rows, writer._files = [], [], []
        for path in paths:
            shard = read_footer(path)
            writer._offsets.append(list(shard["offsets"]))
            con = sqlite3.connect(path + ".db")
            try:
                rows = (
                    [tuple(r) for r in con.execute("SELECT * FROM idx ORDER BY row_id")]
                    if shard["index_fields"]
                    else []
                )
            finally:
                con.close()
            writer._index_rows.append(rows)
            f = open(path, "r+b")  # noqa: SIM115  (closed by commit)
            f.truncate(shard["data_end"])
            f.seek(shard["data_end"])
            writer._files.append(f)
        return writer

    def init_append(self, file_name: str) -> None:
        """Not needed in Kiln: use `FileWriter.open_for_append(file_name)`."""
        raise MRMOpenError("FileWriter.init_append is internal in MindSpore; use FileWriter.open_for_append.")

    def __del__(self) -> None:
        files = getattr(self, "_files", None)
        if files and not getattr(self, "_committed", True):
            for f in files:
                if not f.closed:
                    f.close()
