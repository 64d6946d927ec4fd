"""FileWriter: write rows into a set of MindRecord shard files in MindSpore's paged layout (see `kiln.mindrecord`)."""

from __future__ import annotations

import math
import os

from kiln import log
from kiln.mindrecord.common import (
    MRMInvalidSchemaError,
    MRMOpenError,
    ParamTypeError,
    ParamValueError,
    validate_row,
    validate_schema,
)
from kiln.mindrecord.filereader import ShardSet
from kiln.mindrecord.paged_format import PagedShardWriter, blob_fields_of

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
        self._index_set = False
        self._writers: list[PagedShardWriter] | None = None
        self._header_size = 1 << 24  # MindSpore's defaults; the files are sparse where pages are not full
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
        self._index_set = True

    def set_header_size(self, header_size: int) -> None:
        """The bytes reserved for each file's header (16 KB to 128 MB; MindSpore's default 16 MB)."""
        if isinstance(header_size, bool) or not isinstance(header_size, int) or not 1 << 14 <= header_size <= 1 << 27:
            raise ParamValueError(f"FileWriter: header_size must be in [16 KB, 128 MB], but got {header_size!r}.")
        self._header_size = header_size

    def set_page_size(self, page_size: int) -> None:
        """The size of each file's pages (32 KB to 256 MB; MindSpore's default 32 MB): a record must fit one."""
        if isinstance(page_size, bool) or not isinstance(page_size, int) or not 1 << 15 <= page_size <= 1 << 28:
            raise ParamValueError(f"FileWriter: page_size must be in [32 KB, 256 MB], but got {page_size!r}.")
        self._page_size = page_size

    # -- writing -----------------------------------------------------------------------------------------------
    def _open(self) -> None:
        if self._writers is None:
            if not self._index_set:  # as MindSpore: every scalar field is an index field
                blobs = blob_fields_of(self._schema)
                self._index_fields = sorted(n for n in self._schema if n not in blobs)
            names = [os.path.basename(p) for p in self._paths]
            self._writers = [
                PagedShardWriter(path, k, self._schema, self._desc, self._index_fields,
                                 (self._header_size, self._page_size))
                for k, path in enumerate(self._paths)
            ]  # fmt: skip
            self._shard_names = names

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
        per = math.ceil(len(good) / len(self._paths)) if good else 0
        for k, row in enumerate(good):
            self._writers[k // per].add(row)

    def commit(self) -> None:
        """Finish the files: write every shard's last pages, header and `.db` index, and close them."""
        if self._committed:
            return
        if self._schema is None:
            raise MRMInvalidSchemaError("FileWriter: add_schema must be called before commit.")
        self._open()
        self._committed = True
        for writer in self._writers:
            writer.commit(self._shard_names)

    # -- appending ---------------------------------------------------------------------------------------------
    @classmethod
    def open_for_append(cls, file_name: str) -> FileWriter:
        """A writer that adds rows to the committed file set `file_name` belongs to: its records are read back, and
        `commit` writes the whole set again (in MindSpore's layout, whichever layout it had)."""
        existing = ShardSet(file_name)
        try:
            kept = [[existing.read(i) for i in range(existing.starts[k], existing.starts[k + 1])]
                    for k in range(len(existing.shards))]  # fmt: skip
            desc = existing.shards[0].desc
        finally:
            existing.close()
        writer = cls.__new__(cls)
        writer._paths = list(existing.paths)
        writer._schema = existing.schema
        writer._desc = desc
        writer._index_fields = list(existing.index_fields)
        writer._index_set = True
        writer._writers = None
        writer._header_size, writer._page_size = getattr(existing.shards[0], "sizes", (1 << 24, 1 << 25))
        writer._committed = False
        writer._open()
        for shard, rows in zip(writer._writers, kept, strict=True):
            for row in rows:
                shard.add(row)
        return writer

    def init_append(self, file_name: str) -> None:
        """Not needed in Kiln: use `FileWriter.open_for_append(file_name)`."""
        raise MRMOpenError("FileWriter.init_append is internal in MindSpore; use FileWriter.open_for_append.")

    def __del__(self) -> None:
        if not getattr(self, "_committed", True):
            for writer in getattr(self, "_writers", None) or ():
                writer.abandon()
