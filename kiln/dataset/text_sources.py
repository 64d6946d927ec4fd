"""Text datasets: TextFileDataset, CSVDataset and the corpora stored as text or CSV files.

These are MindSpore's "non-mappable" sources: files are read in sorted order,
rows (lines or CSV records) follow one another, and sharding gives each shard
whole files when there are at least as many files as shards, else contiguous
blocks of ceil(rows / shards) rows (wrapping around), as MindSpore does.
`shuffle` shuffles all rows (MindSpore's Shuffle.GLOBAL). Every string column
is a NumPy str array.

Kiln reads the files in order; MindSpore's default of several reader threads
interleaves the rows of different files, so an unshuffled multi-file read
matches MindSpore with num_parallel_workers=1.
"""

from __future__ import annotations

import csv
import glob
import math
import os
from collections.abc import Sequence
from enum import StrEnum

import numpy as np

from kiln.dataset import config
from kiln.dataset.sources import SampledSource


class Shuffle(StrEnum):
    """How non-mappable sources shuffle: GLOBAL (all rows), FILES (file order), INFILE (rows in files)."""

    GLOBAL = "global"
    FILES = "files"
    INFILE = "infile"


def _file_list(dataset_files, what: str) -> list[str]:
    if isinstance(dataset_files, str | os.PathLike):
        pattern = os.fspath(dataset_files)
        files = sorted(glob.glob(pattern)) if any(ch in pattern for ch in "*?[") else [pattern]
    else:
        files = [os.fspath(f) for f in dataset_files]
    if not files:
        raise ValueError(f"{what}: dataset_files is empty.")
    for f in files:
        if not os.path.isfile(f):
            raise ValueError(f"{what}: the file {f!r} does not exist or is not a file.")
    return sorted(files)


class _RowFilesSource(SampledSource):
    """Rows read from a list of files, with MindSpore's non-mappable sharding and shuffling."""

    _SORT_FILES = True  # MindSpore reads most multi-file sources in name order

    def __init__(self, files, num_samples, shuffle, num_shards, shard_id, num_parallel_workers) -> None:
        if isinstance(shuffle, Shuffle):
            shuffle = True
        super().__init__(num_samples, shuffle, num_shards, shard_id, num_parallel_workers)
        self._files = sorted(files) if self._SORT_FILES else list(files)
        self._shard = (num_shards, shard_id)
        self._cache: list[tuple] | None = None

    def _read_file(self, path: str) -> list[tuple]:
        raise NotImplementedError

    def _all_rows(self) -> list[tuple]:
        if self._cache is None:
            num_shards, shard_id = self._shard
            files = self._files
            if num_shards is not None and len(files) >= num_shards:
                files = files[shard_id::num_shards]
            rows = [row for f in files for row in self._read_file(f)]
            if num_shards is not None and len(self._files) < num_shards and rows:
                per = math.ceil(len(rows) / num_shards)
                rows = [rows[(shard_id * per + j) % len(rows)] for j in range(per)]
            self._cache = rows
        return self._cache

    def _num_rows(self) -> int:
        return len(self._all_rows())

    def _read(self, index: int) -> tuple:
        return self._all_rows()[index]

    def _static_size(self):
        n = self._num_rows()
        return n if self.num_samples is None else min(n, self.num_samples)

    def _indices(self, run, epoch):
        n = self._num_rows()
        count = self._static_size()
        if self.sampler.is_shuffled():
            seed = config.get_seed() if self._shard[0] is not None else run.seed
            return np.random.default_rng([seed, 0x7E7, *epoch]).permutation(n)[:count]
        return np.arange(count)

    def is_sharded(self) -> bool:
        return self._shard[0] is not None


def _text_lines(path: str, skip_empty: bool = True) -> list[str]:
    with open(path, encoding="utf-8") as f:
        lines = [line.rstrip("\n").rstrip("\r") for line in f]
    return [line for line in lines if line] if skip_empty else lines


class TextFileDataset(_RowFilesSource):
    """Lines of text files, one row per non-empty line; column "text" (str).

    Args:
        dataset_files: a file, a glob pattern or a list of files (read in sorted order).
        num_samples: rows to read at most (None: all).
        num_parallel_workers: accepted for compatibility.
        shuffle: shuffle the rows (True, a `Shuffle` or None: shuffled; False: file order).
        num_shards, shard_id: read one shard (whole files when there are enough files).
        cache: accepted for compatibility.

    Returns:
        A Dataset.
    """

    def __init__(
        self,
        dataset_files,
        num_samples=None,
        num_parallel_workers=None,
        shuffle=Shuffle.GLOBAL,
        num_shards=None,
        shard_id=None,
        cache=None,
    ) -> None:
        super().__init__(
            _file_list(dataset_files, "TextFileDataset"),
            num_samples,
            shuffle,
            num_shards,
            shard_id,
            num_parallel_workers,
        )

    def get_col_names(self) -> list[str]:
        return ["text"]

    def _read_file(self, path):
        return [(np.array(line),) for line in _text_lines(path)]


def _parse_field(value: str, default, column: str, path: str):
    if isinstance(default, str) or default is None:
        return np.array(value if value != "" or default is None else default)
    if value == "":
        return np.array(default, dtype=np.int32 if isinstance(default, int) else np.float32)
    try:
        if isinstance(default, int):
            return np.array(int(value), dtype=np.int32)
        return np.array(float(value), dtype=np.float32)
    except ValueError:
        raise RuntimeError(
            f"CSVDataset: {path!r}: field {value!r} of column {column!r} is not a {type(default).__name__}, "
            "the type of its column_defaults entry."
        ) from None


class CSVDataset(_RowFilesSource):
    """Records of CSV files.

    Args:
        dataset_files: a file, a glob pattern or a list of files.
        field_delim: the field delimiter (default ",").
        column_defaults: one default per column, whose type (int, float or str) is the column's type
            (int32, float32 or str); an empty field takes the default. Default: every column is str.
        column_names: the column names; None reads them from the first line of the first file (then the
            first line of every file is a header and skipped).
        num_samples, num_parallel_workers, shuffle, num_shards, shard_id, cache: as for TextFileDataset.

    Returns:
        A Dataset.
    """

    def __init__(
        self,
        dataset_files,
        field_delim: str = ",",
        column_defaults=None,
        column_names=None,
        num_samples=None,
        num_parallel_workers=None,
        shuffle=Shuffle.GLOBAL,
        num_shards=None,
        shard_id=None,
        cache=None,
    ) -> None:
        files = _file_list(dataset_files, "CSVDataset")
        if not isinstance(field_delim, str) or len(field_delim) != 1 or field_delim in '"\r\n':
            raise ValueError(
                f"CSVDataset: field_delim must be one character (not a quote or newline): {field_delim!r}."
            )
        super().__init__(files, num_samples, shuffle, num_shards, shard_id, num_parallel_workers)
        self._delim = field_delim
        self._header = column_names is None
        if column_names is None:
            with open(files[0], newline="", encoding="utf-8") as f:
                first = next(csv.reader(f, delimiter=field_delim), None)
            if not first:
                raise ValueError(f"CSVDataset: {files[0]!r} has no header line to take column names from.")
            column_names = first
        names = list(column_names)
        if len(set(names)) != len(names):
            raise RuntimeError(f"CSVDataset: duplicate column names {names}.")
        if column_defaults is not None:
            column_defaults = list(column_defaults)
            for d in column_defaults:
                if isinstance(d, bool) or not isinstance(d, int | float | str):
                    raise TypeError(f"CSVDataset: column_defaults must be ints, floats or strs, but got {d!r}.")
            if len(column_defaults) != len(names):
                raise ValueError(
                    f"CSVDataset: {len(column_defaults)} column_defaults for {len(names)} columns {names}."
                )
        self._names = names
        self._defaults = column_defaults or [None] * len(names)

    def get_col_names(self) -> list[str]:
        return list(self._names)

    def _read_file(self, path):
        with open(path, newline="", encoding="utf-8") as f:
            records = list(csv.reader(f, delimiter=self._delim))
        if self._header:
            records = records[1:]
        rows = []
        for line, rec in enumerate(records):
            if not rec:
                continue
            if len(rec) != len(self._names):
                raise RuntimeError(
                    f"CSVDataset: {path!r} record {line}: {len(rec)} fields, but there are {len(self._names)} columns."
                )
            rows.append(tuple(_parse_field(v, d, c, path) for v, d, c in zip(rec, self._defaults, self._names)))
        return rows


def _check_usage(usage, allowed: Sequence[str], what: str) -> str:
    usage = "all" if usage is None else usage
    if usage not in allowed:
        raise ValueError(f"{what}: usage must be one of {list(allowed)}, but got {usage!r}.")
    return usage


def _require_dir(dataset_dir, what: str) -> str:
    path = os.fspath(dataset_dir)
    if not os.path.isdir(path):
        raise ValueError(f"{what}: dataset_dir {path!r} does not exist or is not a directory.")
    return path


class _CsvCorpus(_RowFilesSource):
    """A corpus of train.csv / test.csv files without header, every column a string."""

    _COLUMNS: tuple[str, ...] = ()

    def __init__(
        self,
        dataset_dir,
        usage=None,
        num_samples=None,
        num_parallel_workers=None,
        shuffle=Shuffle.GLOBAL,
        num_shards=None,
        shard_id=None,
        cache=None,
    ) -> None:
        what = type(self).__name__
        root = _require_dir(dataset_dir, what)
        usage = _check_usage(usage, ("train", "test", "all"), what)
        parts = ["train", "test"] if usage == "all" else [usage]
        files = [os.path.join(root, f"{p}.csv") for p in parts]
        files = [f for f in files if os.path.isfile(f)] if usage == "all" else files
        for f in files:
            if not os.path.isfile(f):
                raise ValueError(f"{what}: {f!r} not found.")
        super().__init__(files, num_samples, shuffle, num_shards, shard_id, num_parallel_workers)

    def get_col_names(self) -> list[str]:
        return list(self._COLUMNS)

    def _read_file(self, path):
        with open(path, newline="", encoding="utf-8") as f:
            return [tuple(np.array(v) for v in rec) for rec in csv.reader(f) if rec]


class AGNewsDataset(_CsvCorpus):
    """AG's News (train.csv / test.csv); columns index, title, description (str).

    Args:
        dataset_dir: the folder holding train.csv and test.csv.
        usage: "train", "test" or "all" (None: all).
        num_samples, num_parallel_workers, shuffle, num_shards, shard_id, cache: as for TextFileDataset.
    """

    _COLUMNS = ("index", "title", "description")


class AmazonReviewDataset(_CsvCorpus):
    """Amazon Review (Polarity or Full; train.csv / test.csv); columns label, title, content (str).

    Args:
        dataset_dir: the folder holding train.csv and test.csv.
        usage: "train", "test" or "all" (None: all).
        num_samples, num_parallel_workers, shuffle, num_shards, shard_id, cache: as for TextFileDataset.
    """

    _COLUMNS = ("label", "title", "content")


class DBpediaDataset(_CsvCorpus):
    """DBpedia (train.csv / test.csv); columns class, title, content (str).

    Args:
        dataset_dir: the folder holding train.csv and test.csv.
        usage: "train", "test" or "all" (None: all).
        num_samples, num_parallel_workers, shuffle, num_shards, shard_id, cache: as for TextFileDataset.
    """

    _COLUMNS = ("class", "title", "content")


class SogouNewsDataset(_CsvCorpus):
    """Sogou News (train.csv / test.csv); columns index, title, content (str).

    Args:
        dataset_dir: the folder holding train.csv and test.csv.
        usage: "train", "test" or "all" (None: all).
        num_samples, num_parallel_workers, shuffle, num_shards, shard_id, cache: as for TextFileDataset.
    """

    _COLUMNS = ("index", "title", "content")
    _SORT_FILES = False  # MindSpore reads train.csv before test.csv here


class YahooAnswersDataset(_CsvCorpus):
    """Yahoo! Answers (train.csv / test.csv); columns class, title, content, answer (str).

    Args:
        dataset_dir: the folder holding train.csv and test.csv.
        usage: "train", "test" or "all" (None: all).
        num_samples, num_parallel_workers, shuffle, num_shards, shard_id, cache: as for TextFileDataset.
    """

    _COLUMNS = ("class", "title", "content", "answer")


class YelpReviewDataset(_CsvCorpus):
    """Yelp Review (Polarity or Full; train.csv / test.csv); columns label, text (str).

    Args:
        dataset_dir: the folder holding train.csv and test.csv.
        usage: "train", "test" or "all" (None: all).
        num_samples, num_parallel_workers, shuffle, num_shards, shard_id, cache: as for TextFileDataset.
    """

    _COLUMNS = ("label", "text")
    _SORT_FILES = False  # MindSpore reads train.csv before test.csv here


class _LineCorpus(_RowFilesSource):
    """A corpus of text files with one file per usage; column "text"."""

    _FILES: dict[str, str] = {}
    _SKIP_EMPTY = True

    def __init__(
        self,
        dataset_dir,
        usage=None,
        num_samples=None,
        num_parallel_workers=None,
        shuffle=Shuffle.GLOBAL,
        num_shards=None,
        shard_id=None,
        cache=None,
    ) -> None:
        what = type(self).__name__
        root = _require_dir(dataset_dir, what)
        usage = _check_usage(usage, (*self._FILES, "all"), what)
        parts = list(self._FILES) if usage == "all" else [usage]
        files = [os.path.join(root, self._FILES[p]) for p in parts]
        if usage == "all":
            files = [f for f in files if os.path.isfile(f)]
        for f in files:
            if not os.path.isfile(f):
                raise ValueError(f"{what}: {f!r} not found.")
        super().__init__(files, num_samples, shuffle, num_shards, shard_id, num_parallel_workers)

    def get_col_names(self) -> list[str]:
        return ["text"]

    def _read_file(self, path):
        return [(np.array(line),) for line in _text_lines(path, self._SKIP_EMPTY)]


class PennTreebankDataset(_LineCorpus):
    """Penn Treebank (ptb.train.txt, ptb.test.txt, ptb.valid.txt); column "text", one row per line.

    Args:
        dataset_dir: the folder holding the files.
        usage: "train", "test", "valid" or "all" (None: all).
        num_samples, num_parallel_workers, shuffle, num_shards, shard_id, cache: as for TextFileDataset.
    """

    _FILES = {"train": "ptb.train.txt", "test": "ptb.test.txt", "valid": "ptb.valid.txt"}


class WikiTextDataset(_LineCorpus):
    """WikiText-2 / -103 (wiki.train.tokens, wiki.test.tokens, wiki.valid.tokens); column "text".

    Args:
        dataset_dir: the folder holding the files.
        usage: "train", "test", "valid" or "all" (None: all).
        num_samples, num_parallel_workers, shuffle, num_shards, shard_id, cache: as for TextFileDataset.
    """

    _FILES = {"train": "wiki.train.tokens", "test": "wiki.test.tokens", "valid": "wiki.valid.tokens"}


class EnWik9Dataset(_LineCorpus):
    """EnWik9 (the file "enwik9"); column "text", one row per line.

    Args:
        dataset_dir: the folder holding enwik9.
        num_samples, num_parallel_workers, shuffle, num_shards, shard_id, cache: as for TextFileDataset.
    """

    _FILES = {"all": "enwik9"}
    _SKIP_EMPTY = False  # MindSpore keeps the empty lines of enwik9

    def __init__(
        self,
        dataset_dir,
        num_samples=None,
        num_parallel_workers=None,
        shuffle=True,
        num_shards=None,
        shard_id=None,
        cache=None,
    ) -> None:
        super().__init__(dataset_dir, "all", num_samples, num_parallel_workers, shuffle, num_shards, shard_id)


class IMDBDataset(SampledSource):
    """IMDB reviews ({train,test}/{pos,neg}/*.txt); columns text (str) and label (uint32: pos 1, neg 0).

    Args:
        dataset_dir: the folder holding train/ and test/.
        usage: "train", "test" or "all" (None: all).
        num_samples, num_parallel_workers, shuffle, sampler, num_shards, shard_id, cache: as for MnistDataset.
    """

    def __init__(
        self,
        dataset_dir,
        usage=None,
        num_samples=None,
        num_parallel_workers=None,
        shuffle=None,
        sampler=None,
        num_shards=None,
        shard_id=None,
        cache=None,
    ) -> None:
        super().__init__(num_samples, shuffle, num_shards, shard_id, num_parallel_workers, sampler)
        root = _require_dir(dataset_dir, "IMDBDataset")
        usage = _check_usage(usage, ("train", "test", "all"), "IMDBDataset")
        parts = ["train", "test"] if usage == "all" else [usage]
        self._items: list[tuple[str, int]] = []
        for part in parts:
            for name, label in (("pos", 1), ("neg", 0)):
                folder = os.path.join(root, part, name)
                if not os.path.isdir(folder):
                    continue
                for f in sorted(os.listdir(folder)):
                    if f.endswith(".txt"):
                        self._items.append((os.path.join(folder, f), label))

    def get_col_names(self) -> list[str]:
        return ["text", "label"]

    def _num_rows(self) -> int:
        return len(self._items)

    def _labels(self):
        return np.asarray([label for _, label in self._items])

    def _read(self, index):
        path, label = self._items[index]
        with open(path, encoding="utf-8") as f:
            return np.array(f.read()), np.array(label, dtype=np.uint32)


class SST2Dataset(_RowFilesSource):
    """SST-2 (train.tsv, dev.tsv: sentence and label; test.tsv: sentence), all str.

    Args:
        dataset_dir: the folder holding the .tsv files.
        usage: "train", "test" or "dev" (None: train).
        num_samples, num_parallel_workers, shuffle, num_shards, shard_id, cache: as for TextFileDataset.
    """

    def __init__(
        self,
        dataset_dir,
        usage=None,
        num_samples=None,
        num_parallel_workers=None,
        shuffle=Shuffle.GLOBAL,
        num_shards=None,
        shard_id=None,
        cache=None,
    ) -> None:
        root = _require_dir(dataset_dir, "SST2Dataset")
        usage = "train" if usage is None else usage
        if usage not in ("train", "test", "dev"):
            raise ValueError(f"SST2Dataset: usage must be 'train', 'test' or 'dev', but got {usage!r}.")
        path = os.path.join(root, f"{usage}.tsv")
        if not os.path.isfile(path):
            raise ValueError(f"SST2Dataset: {path!r} not found.")
        self._usage = usage
        super().__init__([path], num_samples, shuffle, num_shards, shard_id, num_parallel_workers)

    def get_col_names(self) -> list[str]:
        return ["sentence"] if self._usage == "test" else ["sentence", "label"]

    def _read_file(self, path):
        rows = []
        with open(path, encoding="utf-8") as f:
            for line in list(f)[1:]:  # the first line is a header
                fields = line.rstrip("\n").split("\t")
                if self._usage == "test":
                    rows.append((np.array(fields[-1]),))  # test.tsv: index, sentence
                else:
                    rows.append((np.array(fields[0]), np.array(fields[1])))
        return rows


_CLUE_COLUMNS = {
    "AFQMC": (["label", "sentence1", "sentence2"], ["id", "sentence1", "sentence2"]),
    "CMNLI": (["label", "sentence1", "sentence2"], ["id", "sentence1", "sentence2"]),
    "TNEWS": (["keywords", "label", "label_desc", "sentence"], ["id", "keywords", "sentence"]),
    "IFLYTEK": (["label", "label_des", "sentence"], ["id", "sentence"]),
    "WSC": (
        ["idx", "label", "span1_index", "span1_text", "span2_index", "span2_text", "text"],
        ["idx", "span1_index", "span1_text", "span2_index", "span2_text", "text"],
    ),
    "CSL": (["abst", "id", "keyword", "label"], ["abst", "id", "keyword"]),
}


class CLUEDataset(_RowFilesSource):
    """CLUE benchmark JSON-lines files (one JSON object per line).

    Columns depend on the task and usage (train/eval have labels, test has ids): AFQMC and CMNLI
    label/sentence1/sentence2, TNEWS keywords/label/label_desc/sentence, IFLYTEK label/label_des/sentence, WSC
    idx/label/span1_index/span1_text/span2_index/span2_text/text, CSL abst/id/keyword/label. Integers are uint32,
    lists 1-D arrays, the rest str.

    Args:
        dataset_files: a file, a glob pattern or a list of files.
        task: "AFQMC", "TNEWS", "IFLYTEK", "CMNLI", "WSC" or "CSL".
        usage: "train", "test" or "eval".
        num_samples, num_parallel_workers, shuffle, num_shards, shard_id, cache: as for TextFileDataset.
    """

    def __init__(
        self,
        dataset_files,
        task="AFQMC",
        usage="train",
        num_samples=None,
        num_parallel_workers=None,
        shuffle=Shuffle.GLOBAL,
        num_shards=None,
        shard_id=None,
        cache=None,
    ) -> None:
        if task not in _CLUE_COLUMNS:
            raise ValueError(f"CLUEDataset: task must be one of {sorted(_CLUE_COLUMNS)}, but got {task!r}.")
        usage = _check_usage(usage, ("train", "test", "eval"), "CLUEDataset")
        files = _file_list(dataset_files, "CLUEDataset")
        super().__init__(files, num_samples, shuffle, num_shards, shard_id, num_parallel_workers)
        self._cols = _CLUE_COLUMNS[task][1 if usage == "test" else 0]

    def get_col_names(self) -> list[str]:
        return list(self._cols)

    @staticmethod
    def _value(v) -> np.ndarray:
        if isinstance(v, bool):
            return np.array(str(v).lower())
        if isinstance(v, int):
            return np.array(v, dtype=np.uint32)
        if isinstance(v, list):
            return np.array(v)
        return np.array("" if v is None else str(v))

    def _read_file(self, path):
        import json  # noqa: PLC0415

        rows = []
        with open(path, encoding="utf-8") as f:
            for n, line in enumerate(f, 1):
                if not line.strip():
                    continue
                try:
                    obj = json.loads(line)
                except json.JSONDecodeError as exc:
                    raise RuntimeError(f"CLUEDataset: line {n} of {path!r} is not JSON: {exc}.") from None
                flat = dict(obj)
                flat.update(obj.get("target") or {})
                rows.append(tuple(self._value(flat.get(c, "")) for c in self._cols))
        return rows
