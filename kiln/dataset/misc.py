"""Schema, PaddedDataset, RandomDataset, pipeline callbacks and DatasetCache."""

from __future__ import annotations

import json
import threading
from collections.abc import Sequence

import numpy as np

from kiln._core import dtype as mstype
from kiln.dataset.sources import SampledSource

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


class PaddedDataset(SampledSource):
    """A dataset of the given rows, used to pad a dataset so that it divides evenly into shards.

    Args:
        padded_samples: a non-empty list of dicts with the same keys (column name -> value).
    """

    def __init__(self, padded_samples: list[dict]) -> None:
        super().__init__(None, False, None, None, None, None)
        if not isinstance(padded_samples, list) or not padded_samples:
            raise TypeError("PaddedDataset: padded_samples must be a non-empty list of dicts.")
        for s in padded_samples:
            if not isinstance(s, dict):
                raise TypeError(f"PaddedDataset: every sample must be a dict, but got {type(s).__name__}.")
        names = list(padded_samples[0])
        for s in padded_samples:
            if list(s) != names:
                raise ValueError(f"PaddedDataset: samples have different keys: {names} and {list(s)}.")
        self._names = names
        self._samples = [tuple(np.asarray(s[n]) for n in names) for s in padded_samples]

    def get_col_names(self) -> list[str]:
        return list(self._names)

    def _num_rows(self) -> int:
        return len(self._samples)

    def _read(self, index):
        return tuple(a.copy() for a in self._samples[index])


class RandomDataset(SampledSource):
    """Random rows following a schema (for testing pipelines).

    Row i is generated from (seed, i). Without a schema, MindSpore-like random columns c0, c1, ... are
    made (each of random type and shape, fixed per dataset).

    Args:
        total_rows: number of rows (None: the schema's numRows, else a random number in [1, 1024]).
        schema: a Schema or the path of a JSON schema file.
        columns_list: the columns of the schema to produce (None: all).
        num_samples, num_parallel_workers, shuffle, num_shards, shard_id, cache: as for the other sources.
    """

    def __init__(
        self,
        total_rows=None,
        schema=None,
        columns_list=None,
        num_samples=None,
        num_parallel_workers=None,
        cache=None,
        shuffle=None,
        num_shards=None,
        shard_id=None,
    ) -> None:
        super().__init__(num_samples, shuffle, num_shards, shard_id, num_parallel_workers)
        rng = np.random.default_rng(0x5EED)
        if isinstance(schema, str):
            schema = Schema(schema)
        if schema is None:
            schema = Schema()
            kinds = ["uint8", "int32", "float32", "int64"]
            for i in range(int(rng.integers(1, 4))):
                shape = [int(s) for s in rng.integers(1, 5, size=int(rng.integers(1, 3)))]
                schema.add_column(f"c{i}", kinds[int(rng.integers(len(kinds)))], shape)
        if not isinstance(schema, Schema):
            raise TypeError(f"RandomDataset: schema must be a Schema or a file path, but got {type(schema).__name__}.")
        if columns_list is not None and not isinstance(columns_list, list):
            raise TypeError("RandomDataset: columns_list must be a list of column names.")
        keep = schema.names() if columns_list is None else list(columns_list)
        missing = [c for c in keep if c not in schema.names()]
        if missing:
            raise ValueError(f"RandomDataset: columns {missing} are not in the schema.")
        self._cols = [schema.names().index(c) for c in keep]
        self._schema = schema
        if total_rows is None:
            total_rows = schema.get_num_rows() or int(rng.integers(1, 1025))
        if isinstance(total_rows, bool) or not isinstance(total_rows, int) or total_rows < 0:
            raise ValueError(f"RandomDataset: total_rows must be a non-negative int, but got {total_rows!r}.")
        self._total = total_rows

    def get_col_names(self) -> list[str]:
        names = self._schema.names()
        return [names[i] for i in self._cols]

    def _num_rows(self) -> int:
        return self._total

    def _read(self, index):
        rng = np.random.default_rng([0x5EED, index])
        row = []
        for i in self._cols:
            col = self._schema.columns[i]
            dtype = self._schema.dtype(i)
            shape = col.get("shape") or [int(s) for s in rng.integers(1, 5, size=int(rng.integers(1, 3)))]
            if dtype.kind == "f":
                row.append(rng.random(shape).astype(dtype))
            elif dtype.kind == "b":
                row.append(rng.integers(0, 2, size=shape).astype(bool))
            elif dtype.kind in "iu":
                info = np.iinfo(dtype)
                row.append(rng.integers(max(info.min, -(2**31)), min(info.max, 2**31 - 1), size=shape).astype(dtype))
            else:
                row.append(np.array([f"s{j}" for j in rng.integers(0, 100, size=int(np.prod(shape)))]).reshape(shape))
        return tuple(row)


class DSCallbackParam:
    """What a DSCallback method receives: epoch and step counters of the map it is attached to."""

    def __init__(self, cur_epoch_num: int, cur_step_num_in_epoch: int, cur_step_num: int) -> None:
        self.cur_epoch_num = cur_epoch_num
        self.cur_step_num_in_epoch = cur_step_num_in_epoch
        self.cur_step_num = cur_step_num


class DSCallback:
    """Base class of callbacks attached to `Dataset.map(..., callbacks=[...])`.

    Override ds_begin, ds_epoch_begin, ds_epoch_end, ds_step_begin, ds_step_end; each receives a
    `DSCallbackParam` (cur_epoch_num and step numbers count from 1). Step methods run every `step_size` rows.

    Args:
        step_size: rows between step calls.
    """

    def __init__(self, step_size: int = 1) -> None:
        if isinstance(step_size, bool) or not isinstance(step_size, int) or step_size < 1:
            raise ValueError(f"DSCallback: step_size must be a positive int, but got {step_size!r}.")
        self.step_size = step_size

    def ds_begin(self, ds_run_context) -> None:
        """Called once before the first row."""

    def ds_epoch_begin(self, ds_run_context) -> None:
        """Called before each epoch's first row."""

    def ds_epoch_end(self, ds_run_context) -> None:
        """Called after each epoch's last row."""

    def ds_step_begin(self, ds_run_context) -> None:
        """Called before rows 1, 1 + step_size, ... of an epoch."""

    def ds_step_end(self, ds_run_context) -> None:
        """Called after rows 1, 1 + step_size, ... of an epoch."""

    def create_runtime_obj(self):
        """The callback itself (MindSpore hands a C++ object to its engine here)."""
        return self


class WaitedDSCallback(DSCallback):
    """A DSCallback that holds the pipeline until the training loop finished a step (or epoch).

    Register the same object as a training callback (`Model.train(callbacks=[cb])`) and in
    `map(callbacks=[cb])`: `sync_step_begin` / `sync_epoch_begin` run in the pipeline after training
    finished the previous step / epoch.

    Args:
        step_size: rows per training step (the batch size when the map is before `batch`).
    """

    def __init__(self, step_size: int = 1) -> None:
        super().__init__(step_size)
        self._step_event = threading.Event()
        self._epoch_event = threading.Event()
        self._step_event.set()
        self._epoch_event.set()
        self.training_ended = False

    def sync_epoch_begin(self, train_run_context, ds_run_context) -> None:
        """Override: runs in the pipeline once training finished the previous epoch."""

    def sync_step_begin(self, train_run_context, ds_run_context) -> None:
        """Override: runs in the pipeline once training finished the previous step."""

    # training side
    def step_end(self, run_context) -> None:
        """Training finished a step: let the pipeline go on."""
        self._train_context = run_context
        self._step_event.set()

    def epoch_end(self, run_context) -> None:
        """Training finished an epoch: let the pipeline go on."""
        self._train_context = run_context
        self._epoch_event.set()

    def end(self, run_context) -> None:
        """Training ended: never block the pipeline again."""
        self.training_ended = True
        self._step_event.set()
        self._epoch_event.set()

    on_train_step_end = step_end
    on_train_epoch_end = epoch_end
    on_train_end = end

    # pipeline side
    def _wait(self, event: threading.Event) -> None:
        if not event.wait(timeout=60.0) and not self.training_ended:
            raise RuntimeError("WaitedDSCallback: training did not finish a step within 60 s.")
        if not self.training_ended:
            event.clear()

    def ds_epoch_begin(self, ds_run_context) -> None:
        if ds_run_context.cur_epoch_num > 1:
            self._wait(self._epoch_event)
        self.sync_epoch_begin(getattr(self, "_train_context", None), ds_run_context)

    def ds_step_begin(self, ds_run_context) -> None:
        if ds_run_context.cur_step_num > 1:
            self._wait(self._step_event)
        self.sync_step_begin(getattr(self, "_train_context", None), ds_run_context)


class DatasetCache:
    """MindSpore's cache-server client. Kiln has no cache server: the object is accepted as `cache=` and
    records its arguments; sources read their data directly.

    Args:
        session_id: the cache session id.
        size: the cache size in MB (0: unlimited).
        spilling: spill to disk when memory is full.
        hostname, port, num_connections, prefetch_size: the server connection.
    """

    def __init__(
        self,
        session_id: int,
        size: int = 0,
        spilling: bool = False,
        hostname=None,
        port=None,
        num_connections=None,
        prefetch_size=None,
    ) -> None:
        if isinstance(session_id, bool) or not isinstance(session_id, int) or session_id < 0:
            raise ValueError(f"DatasetCache: session_id must be a non-negative int, but got {session_id!r}.")
        self.session_id, self.size, self.spilling = session_id, size, spilling
        self.hostname, self.port = hostname, port
        self.num_connections, self.prefetch_size = num_connections, prefetch_size

    def get_stat(self) -> dict:
        """Cache statistics (all zero: nothing is cached)."""
        return {"mem_cached": 0, "disk_cached": 0, "avg_cache_sz": 0, "num_mem_cached": 0, "num_disk_cached": 0}
