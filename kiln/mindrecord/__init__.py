"""MindRecord files (`mindspore.mindrecord`): FileWriter, FileReader, MindPage.

Files are written in MindSpore's paged layout (`kiln.mindrecord.paged_format`), so a set written by Kiln is read by
MindSpore and the other way round: a JSON header, blob pages (bytes and arrays) and raw pages (the scalar fields as
MessagePack), and each shard file `F` has its SQLite index `F.db`. Kiln also reads the simpler layout earlier Kiln
versions wrote (magic b"KILNMR01" | rows | JSON footer | its length | b"KILNMREND", with the index table `idx`).
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
