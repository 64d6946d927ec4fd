"""What the MindRecord writer and readers share: schemas, row checks, errors, and Kiln's earlier layout (read only)."""

from __future__ import annotations

import enum
import json
import os
import struct

import numpy as np

MAGIC = b"KILNMR01"
END_MAGIC = b"KILNMREND"
NUMERIC_TYPES = {"int32": np.int32, "int64": np.int64, "float32": np.float32, "float64": np.float64}
ALL_TYPES = (*NUMERIC_TYPES, "bytes", "string")
U64_LE = struct.Struct("<Q")  # lengths in both layouts (Kiln's, MindSpore's paged one)


class MSRStatus(enum.Enum):
    """Status values MindSpore's mindrecord functions used to return."""

    SUCCESS = 0
    FAILED = 1


SUCCESS = MSRStatus.SUCCESS
FAILED = MSRStatus.FAILED


class MindRecordException(Exception):
    """Base of the mindrecord errors."""


class ParamValueError(MindRecordException, ValueError):
    """An argument has a wrong value."""


class ParamTypeError(MindRecordException, TypeError):
    """An argument has a wrong type."""


class MRMInvalidSchemaError(MindRecordException, ValueError):
    """The schema given to FileWriter.add_schema is not valid."""


class MRMOpenError(MindRecordException, RuntimeError):
    """A MindRecord file cannot be opened or is not a Kiln MindRecord file."""


class MRMValidateDataError(MindRecordException, ValueError):
    """Rows do not match the schema."""


_enc = {"key": None, "mode": "AES-GCM", "dec_mode": "AES-GCM"}


def set_enc_key(enc_key) -> None:
    """Set the key that encrypts written MindRecord files; None (the default) writes them in clear.

    Kiln writes and reads unencrypted files only: any other key raises NotImplementedError.
    """
    if enc_key is not None:
        raise NotImplementedError("Kiln's MindRecord files are not encrypted: set_enc_key accepts only None.")
    _enc["key"] = None


def set_enc_mode(enc_mode: str = "AES-GCM") -> None:
    """Record the encryption mode (used only together with a key, which Kiln does not support)."""
    if not isinstance(enc_mode, str) and not callable(enc_mode):
        raise TypeError(f"set_enc_mode: enc_mode must be a str or a callable, but got {type(enc_mode).__name__}.")
    _enc["mode"] = enc_mode


def set_dec_mode(dec_mode: str = "AES-GCM") -> None:
    """Record the decryption mode (used only together with a key, which Kiln does not support)."""
    if dec_mode is not None and not isinstance(dec_mode, str) and not callable(dec_mode):
        raise TypeError(f"set_dec_mode: dec_mode must be a str or a callable, but got {type(dec_mode).__name__}.")
    _enc["dec_mode"] = dec_mode


# -- rows ------------------------------------------------------------------------------------------------------


def decode_row(schema: dict, names: list[str], buf, offset: int) -> dict:
    """The row stored at `offset` of `buf`: field -> Python bytes/str or NumPy array (0-D for scalars)."""
    out = {}
    pos = offset
    for name in names:
        kind = schema[name]["type"]
        if kind in ("bytes", "string"):
            (n,) = U64_LE.unpack_from(buf, pos)
            raw = bytes(buf[pos + 8 : pos + 8 + n])
            pos += 8 + n
            out[name] = raw.decode("utf-8") if kind == "string" else raw
        else:
            ndim = buf[pos]
            pos += 1
            shape = tuple(U64_LE.unpack_from(buf, pos + 8 * i)[0] for i in range(ndim))
            pos += 8 * ndim
            dt = np.dtype(NUMERIC_TYPES[kind]).newbyteorder("<")
            count = int(np.prod(shape, dtype=np.int64))
            arr = np.frombuffer(buf, dtype=dt, count=count, offset=pos).reshape(shape)
            pos += count * dt.itemsize
            out[name] = arr.astype(NUMERIC_TYPES[kind])
    return out


def validate_schema(content) -> dict:
    """Check a schema dict ({field: {"type": ..., "shape": [...]}}) and return a normalised copy."""
    if not isinstance(content, dict) or not content:
        raise MRMInvalidSchemaError(f"FileWriter: the schema must be a non-empty dict, but got {content!r}.")
    out = {}
    for name, spec in content.items():
        if not isinstance(name, str) or not name or not all(c.isalnum() or c in "_-" for c in name):
            raise MRMInvalidSchemaError(
                f"FileWriter: field name {name!r} is invalid; use letters, digits, '_' and '-' only."
            )
        if not isinstance(spec, dict) or "type" not in spec:
            raise MRMInvalidSchemaError(f"FileWriter: field {name!r} needs a dict with a 'type', got {spec!r}.")
        kind = spec["type"]
        if kind not in ALL_TYPES:
            raise MRMInvalidSchemaError(f"FileWriter: field {name!r} has type {kind!r}; the types are {ALL_TYPES}.")
        unknown = set(spec) - {"type", "shape"}
        if unknown:
            raise MRMInvalidSchemaError(f"FileWriter: field {name!r} has unknown keys {sorted(unknown)}.")
        entry = {"type": kind}
        if "shape" in spec:
            shape = spec["shape"]
            if kind in ("bytes", "string"):
                raise MRMInvalidSchemaError(f"FileWriter: field {name!r} of type {kind} cannot have a shape.")
            if (
                not isinstance(shape, list)
                or not shape
                or not all(isinstance(d, int) and not isinstance(d, bool) and (d > 0 or d == -1) for d in shape)
                or shape.count(-1) > 1
            ):
                raise MRMInvalidSchemaError(
                    f"FileWriter: field {name!r} has shape {shape!r}; a shape is a non-empty list of positive ints "
                    "with at most one -1."
                )
            entry["shape"] = list(shape)
        out[name] = entry
    return out


def validate_row(schema: dict, row) -> tuple[dict | None, str]:
    """The row with its values normalised, or (None, why) when it does not match the schema."""
    if not isinstance(row, dict):
        return None, f"a row must be a dict, but got {type(row).__name__}"
    missing = [n for n in schema if n not in row]
    if missing:
        return None, f"the row lacks field(s) {missing}"
    out = {}
    for name, spec in schema.items():
        value, kind = row[name], spec["type"]
        if kind == "string":
            if not isinstance(value, str | np.str_):
                return None, f"field {name!r} must be a str, got {type(value).__name__}"
            out[name] = str(value)
        elif kind == "bytes":
            if not isinstance(value, bytes | bytearray | np.bytes_):
                return None, f"field {name!r} must be bytes, got {type(value).__name__}"
            out[name] = bytes(value)
        elif "shape" not in spec:
            ok_int = isinstance(value, int | np.integer) and not isinstance(value, bool)
            if kind.startswith("int"):
                if not ok_int:
                    return None, f"field {name!r} must be an int, got {type(value).__name__}"
                info = np.iinfo(NUMERIC_TYPES[kind])
                if not info.min <= int(value) <= info.max:
                    return None, f"field {name!r} value {value} does not fit {kind}"
            elif not (ok_int or isinstance(value, float | np.floating)):
                return None, f"field {name!r} must be a number, got {type(value).__name__}"
            out[name] = np.asarray(value, dtype=NUMERIC_TYPES[kind])
        else:
            if not isinstance(value, np.ndarray):
                return None, f"field {name!r} must be a numpy.ndarray, got {type(value).__name__}"
            if value.dtype != np.dtype(NUMERIC_TYPES[kind]):
                return None, f"field {name!r} must have dtype {kind}, got {value.dtype}"
            shape = spec["shape"]
            ok = value.ndim == len(shape) or (len(shape) == 1 and shape[0] == -1)
            ok = ok and all(d == -1 or d == n for d, n in zip(shape, value.shape))
            if len(shape) == 1 and shape[0] == -1:
                value = value.reshape(-1)
            if not ok:
                return None, f"field {name!r} has shape {list(value.shape)}, the schema says {shape}"
            out[name] = value
    return out, ""


# -- files -----------------------------------------------------------------------------------------------------


def read_footer(path: str) -> dict:
    """The footer of shard file `path` (raises MRMOpenError for anything that is not a Kiln MindRecord file)."""
    if not os.path.isfile(path) or not os.access(path, os.R_OK):
        raise MRMOpenError(f"MindRecord file {path!r} does not exist or permission denied.")
    tail_len = 8 + len(END_MAGIC)
    with open(path, "rb") as f:
        head = f.read(len(MAGIC))
        f.seek(0, os.SEEK_END)
        size = f.tell()
        if head != MAGIC or size < len(MAGIC) + tail_len:
            raise MRMOpenError(f"{path!r} is not a Kiln MindRecord file (its header is missing or invalid).")
        f.seek(size - tail_len)
        tail = f.read(tail_len)
        (n,) = U64_LE.unpack_from(tail, 0)
        if tail[8:] != END_MAGIC or n > size - len(MAGIC) - tail_len:
            raise MRMOpenError(f"{path!r} is not a complete Kiln MindRecord file (was FileWriter.commit called?).")
        f.seek(size - tail_len - n)
        footer = json.loads(f.read(n).decode("utf-8"))
    if not os.path.isfile(path + ".db"):
        raise MRMOpenError(f"the index file {path + '.db'!r} of MindRecord file {path!r} does not exist.")
    return footer


def shard_paths(path: str, footer: dict) -> list[str]:
    """Every shard file of the set `path` belongs to (siblings of `path`)."""
    folder = os.path.dirname(path)
    return [os.path.join(folder, name) for name in footer["shard_files"]]
