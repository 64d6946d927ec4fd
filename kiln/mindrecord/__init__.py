"""MindRecord files (`mindspore.mindrecord`): FileWriter, FileReader, MindPage.

Kiln writes its own simple, self-describing layout, and reads both it and MindSpore's paged layout (datasets
converted by MindSpore's FileWriter: `kiln.mindrecord.paged_format`); MindSpore cannot read Kiln's files. A set of
`shard_num` files is written; each shard file holds

    magic b"KILNMR01" | rows | footer (JSON) | footer length (u64, little-endian) | magic b"KILNMREND"

where the footer carries the schema, the description, the index fields, the names of every shard file of the set
and the byte offset of each row. Every shard file `F` has a companion `F.db`: an SQLite database with the index
fields of every row (table `idx`) and the footer (table `meta`), used by MindPage and checked when reading.

A row stores its fields in schema order: "bytes"/"string" as a u64 length and the bytes (UTF-8 for strings),
numbers as a u8 rank, the dimensions (u64 each) and the raw little-endian values.
"""

from kiln.mindrecord.common import (
    FAILED,
    SUCCESS,
    MindRecordException,
    MRMInvalidSchemaError,
    MRMOpenError,
    MRMValidateDataError,
    ParamTypeError,
    ParamValueError,
    set_dec_mode,
    set_enc_key,
    set_enc_mode,
)
from kiln.mindrecord.filereader import FileReader
from kiln.mindrecord.filewriter import FileWriter
from kiln.mindrecord.mindpage import MindPage

__all__ = [
    "FAILED",
    "FileReader",
    "FileWriter",
    "MRMInvalidSchemaError",
    "MRMOpenError",
    "MRMValidateDataError",
    "MindPage",
    "MindRecordException",
    "ParamTypeError",
    "ParamValueError",
    "SUCCESS",
    "set_dec_mode",
    "set_enc_key",
    "set_enc_mode",
]
