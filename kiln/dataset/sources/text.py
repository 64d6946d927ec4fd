"""Text sources: TextFileDataset, CSVDataset, CLUE and the corpora stored as text, CSV or JSON files.

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
import json
import os

import numpy as np

from kiln.dataset.sources.base import (
    RowFilesSource,
    SampledSource,
    check_usage,
    file_list,
    require_dir,
    require_file,
)


def _text_lines(path: str, skip_empty: bool = True) -> list[str]:
    with open(path, encoding="utf-8") as f:
        lines = [line.rstrip("\n").rstrip("\r") for line in f]
    return [line for line in lines if line] if skip_empty else lines


class TextFileDataset(RowFilesSource):
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

    def _open(self, dataset_files) -> list:
        return file_list(dataset_files, "TextFileDataset")

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


class CSVDataset(RowFilesSource):
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

    def _open(self, dataset_files, field_delim: str = ",", column_defaults=None, column_names=None) -> list:
        files = file_list(dataset_files, "CSVDataset")
        if not isinstance(field_delim, str) or len(field_delim) != 1 or field_delim in '"\r\n':
            raise ValueError(
                f"CSVDataset: field_delim must be one character (not a quote or newline): {field_delim!r}."
            )
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
        return files

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


class _LineCorpus(RowFilesSource):
    """A corpus of text files with one file per usage; column "text"."""

    _FILES: dict[str, str] = {}
    _SKIP_EMPTY = True

    def _open(self, dataset_dir, usage=None) -> list:
        what = type(self).__name__
        root = require_dir(dataset_dir, what)
        usage = check_usage(usage, (*self._FILES, "all"), what)
        parts = list(self._FILES) if usage == "all" else [usage]
        files = [os.path.join(root, self._FILES[p]) for p in parts]
        if usage == "all":
            files = [f for f in files if os.path.isfile(f)]
        for f in files:
            if not os.path.isfile(f):
                raise ValueError(f"{what}: {f!r} not found.")
        return files

    def get_col_names(self) -> list[str]:
        return ["text"]

    def _read_file(self, path):
        return [(np.array(line),) for line in _text_lines(path, self._SKIP_EMPTY)]


class _CsvCorpus(_LineCorpus):
    """A corpus of train.csv / test.csv files without header, every column a string."""

    _FILES = {"train": "train.csv", "test": "test.csv"}
    _COLUMNS: tuple[str, ...] = ()

    def get_col_names(self) -> list[str]:
        return list(self._COLUMNS)

    def _read_file(self, path):
        with open(path, newline="", encoding="utf-8") as f:
            return [tuple(np.array(v) for v in rec) for rec in csv.reader(f) if rec]


def _corpus(name: str, base: type, summary: str, holding: str, **attrs) -> type:
    """The source class `name`: `base` (a corpus with one file per usage) with the class attributes `attrs`, and a
    docstring of `summary` and the folder holding `holding` (the usages are the keys of its `_FILES`)."""
    usages = ", ".join(f'"{usage}"' for usage in attrs.get("_FILES", base._FILES))
    doc = f"""{summary}

    Args:
        dataset_dir: the folder holding {holding}.
        usage: {usages} or "all" (None: all).
        num_samples, num_parallel_workers, shuffle, num_shards, shard_id, cache: as for TextFileDataset.
    """
    return type(name, (base,), {"__doc__": doc, "__module__": __name__, **attrs})


def _csv_corpus(name: str, corpus: str, columns: tuple[str, ...], **attrs) -> type:
    """The source class `name` of a train.csv / test.csv corpus whose columns are `columns` (all str)."""
    summary = f"{corpus} (train.csv / test.csv); columns {', '.join(columns)} (str)."
    return _corpus(name, _CsvCorpus, summary, "train.csv and test.csv", _COLUMNS=columns, **attrs)


# The corpora with _SORT_FILES=False are read train.csv first, then test.csv, as MindSpore reads them.
AGNewsDataset = _csv_corpus("AGNewsDataset", "AG's News", ("index", "title", "description"))
AmazonReviewDataset = _csv_corpus(
    "AmazonReviewDataset", "Amazon Review (Polarity or Full)", ("label", "title", "content")
)
DBpediaDataset = _csv_corpus("DBpediaDataset", "DBpedia", ("class", "title", "content"))
SogouNewsDataset = _csv_corpus("SogouNewsDataset", "Sogou News", ("index", "title", "content"), _SORT_FILES=False)
YahooAnswersDataset = _csv_corpus("YahooAnswersDataset", "Yahoo! Answers", ("class", "title", "content", "answer"))
YelpReviewDataset = _csv_corpus(
    "YelpReviewDataset", "Yelp Review (Polarity or Full)", ("label", "text"), _SORT_FILES=False
)


def _line_corpus(name: str, file_pattern: str, corpus: str) -> type:
    """The source class `name` of a corpus of train, test and valid text files, each named by `file_pattern` with
    its usage filled in; column "text"."""
    files = {usage: file_pattern.format(usage) for usage in ("train", "test", "valid")}
    summary = f'{corpus} ({", ".join(files.values())}); column "text", one row per line.'
    return _corpus(name, _LineCorpus, summary, "the files", _FILES=files)


PennTreebankDataset = _line_corpus("PennTreebankDataset", "ptb.{}.txt", "Penn Treebank")
WikiTextDataset = _line_corpus("WikiTextDataset", "wiki.{}.tokens", "WikiText-2 / -103")


class EnWik9Dataset(_LineCorpus):
    """EnWik9 (the file "enwik9"); column "text", one row per line.

    Args:
        dataset_dir: the folder holding enwik9.
        num_samples, num_parallel_workers, shuffle, num_shards, shard_id, cache: as for TextFileDataset.
    """

    _FILES = {"all": "enwik9"}
    _SKIP_EMPTY = False  # MindSpore keeps the empty lines of enwik9

    _DEFAULTS = {"shuffle": True}

    def _open(self, dataset_dir) -> list:
        return super()._open(dataset_dir, "all")


class IMDBDataset(SampledSource):
    """IMDB reviews ({train,test}/{pos,neg}/*.txt); columns text (str) and label (uint32: pos 1, neg 0).

    Args:
        dataset_dir: the folder holding train/ and test/.
        usage: "train", "test" or "all" (None: all).
        num_samples, num_parallel_workers, shuffle, sampler, num_shards, shard_id, cache: as for MnistDataset.
    """

    def _open(self, dataset_dir, usage=None) -> None:
        root = require_dir(dataset_dir, "IMDBDataset")
        usage = check_usage(usage, ("train", "test", "all"), "IMDBDataset")
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


class SST2Dataset(RowFilesSource):
    """SST-2 (train.tsv, dev.tsv: sentence and label; test.tsv: sentence), all str.

    Args:
        dataset_dir: the folder holding the .tsv files.
        usage: "train", "test" or "dev" (None: train).
        num_samples, num_parallel_workers, shuffle, num_shards, shard_id, cache: as for TextFileDataset.
    """

    def _open(self, dataset_dir, usage=None) -> list:
        root = require_dir(dataset_dir, "SST2Dataset")
        usage = "train" if usage is None else usage
        self._check_choice("usage", usage, ("train", "test", "dev"))
        path = os.path.join(root, f"{usage}.tsv")
        if not os.path.isfile(path):
            raise ValueError(f"SST2Dataset: {path!r} not found.")
        self._usage = usage
        return [path]

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


class CLUEDataset(RowFilesSource):
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

    def _open(self, dataset_files, task="AFQMC", usage="train") -> list:
        if task not in _CLUE_COLUMNS:
            raise ValueError(f"CLUEDataset: task must be one of {sorted(_CLUE_COLUMNS)}, but got {task!r}.")
        usage = check_usage(usage, ("train", "test", "eval"), "CLUEDataset")
        files = file_list(dataset_files, "CLUEDataset")
        self._cols = _CLUE_COLUMNS[task][1 if usage == "test" else 0]
        return files

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


class _TaggedSentences(RowFilesSource):
    """Sentences of one token per line (fields separated by `_SEP`), blank lines between sentences."""

    _FILES: dict[str, str] = {}
    _COLUMNS: list[str] = []
    _SEP: str | None = None
    _ALL_ORDER: tuple = ()

    def _open(self, dataset_dir, usage=None) -> list:
        what = type(self).__name__
        root = require_dir(dataset_dir, what)
        usage = check_usage(usage, (*self._FILES, "all"), what)
        parts = list(self._ALL_ORDER or self._FILES) if usage == "all" else [usage]
        files = [os.path.join(root, self._FILES[p]) for p in parts]
        for f in files:
            require_file(f, f"{what} file")
        return files

    def get_col_names(self) -> list[str]:
        return list(self._COLUMNS)

    def _read_file(self, path):
        rows, sentence = [], []
        ncol = len(self._COLUMNS)

        def flush():
            if sentence:
                cols = list(zip(*[(f + [""] * ncol)[:ncol] for f in sentence]))
                rows.append(tuple(np.array(c) for c in cols))
                sentence.clear()

        with open(path, encoding="utf-8") as f:
            for line in f:
                line = line.rstrip("\r\n")
                if not line.strip():
                    flush()
                    continue
                sentence.append(line.split(self._SEP) if self._SEP else line.split(" "))
        flush()
        return rows


CoNLL2000Dataset = _corpus("CoNLL2000Dataset", _TaggedSentences,
    'CoNLL-2000 chunking (train.txt, test.txt): columns "word", "pos_tag", "chunk_tag" (1-D str arrays).', "the files",
    _FILES={"train": "train.txt", "test": "test.txt"}, _COLUMNS=["word", "pos_tag", "chunk_tag"])  # fmt: skip
UDPOSDataset = _corpus("UDPOSDataset", _TaggedSentences,
    'UDPOS (en-ud-tag.v2.{train,dev,test}.txt): columns "word", "universal", "stanford" (1-D str arrays).', "the files",
    _FILES={"train": "en-ud-tag.v2.train.txt", "valid": "en-ud-tag.v2.dev.txt", "test": "en-ud-tag.v2.test.txt"},
    _COLUMNS=["word", "universal", "stanford"], _SEP="\t")  # fmt: skip


class Multi30kDataset(RowFilesSource):
    """Multi30k translation pairs: columns "text" and "translation" (str), one row per line pair.

    Args:
        dataset_dir: the folder holding training/, validation/ and mmt16_task1_test/.
        usage: "train", "valid", "test" or "all" (None: all).
        language_pair: ["en", "de"] (default) or ["de", "en"]: source and target language.
        num_samples, num_parallel_workers, shuffle, num_shards, shard_id, cache: as for TextFileDataset.
    """

    _SORT_FILES = False
    _DIRS = {"train": ("training", "train"), "valid": ("validation", "val"), "test": ("mmt16_task1_test", "test")}

    def _open(self, dataset_dir, usage=None, language_pair=None) -> list:
        root = require_dir(dataset_dir, "Multi30kDataset")
        usage = check_usage(usage, ("train", "valid", "test", "all"), "Multi30kDataset")
        pair = ["en", "de"] if language_pair is None else list(language_pair)
        if sorted(pair) != ["de", "en"]:
            raise ValueError(f"Multi30kDataset: language_pair must be ['en', 'de'] or ['de', 'en'], got {pair}.")
        parts = ["test", "train", "valid"] if usage == "all" else [usage]
        files = []
        for p in parts:
            folder, stem = self._DIRS[p]
            src, dst = (os.path.join(root, folder, f"{stem}.{lang}") for lang in pair)
            require_file(src, "Multi30k file")
            require_file(dst, "Multi30k file")
            files.append(src + "\0" + dst)
        return files

    def get_col_names(self) -> list[str]:
        return ["text", "translation"]

    def _read_file(self, path):
        src, dst = path.split("\0")
        with open(src, encoding="utf-8") as f:
            a = [ln.rstrip("\r\n") for ln in f]
        with open(dst, encoding="utf-8") as f:
            b = [ln.rstrip("\r\n") for ln in f]
        return [(np.array(x), np.array(y)) for x, y in zip(a, b) if x or y]


class SQuADDataset(RowFilesSource):
    """SQuAD 1.1 / 2.0 question answering: "context", "question" (str), "text" (1-D str answers) and
    "answer_start" (1-D uint32; an unanswerable question has [""] and [2**32 - 1]).

    Args:
        dataset_dir: the folder holding train-v1.1.json / dev-v1.1.json (or the v2.0 files).
        usage: "train", "dev" or "all" (None: all).
        num_samples, num_parallel_workers, shuffle, num_shards, shard_id, cache: as for TextFileDataset.
    """

    _SORT_FILES = False

    def _open(self, dataset_dir, usage=None) -> list:
        root = require_dir(dataset_dir, "SQuADDataset")
        usage = check_usage(usage, ("train", "dev", "all"), "SQuADDataset")
        parts = ["train", "dev"] if usage == "all" else [usage]  # MindSpore's order
        files = []
        for p in parts:
            found = [os.path.join(root, f"{p}-v{v}.json") for v in ("1.1", "2.0")]
            found = [f for f in found if os.path.isfile(f)]
            if not found:
                raise ValueError(f"SQuADDataset: no {p}-v1.1.json or {p}-v2.0.json in {root!r}.")
            files.append(found[0])
        return files

    def get_col_names(self) -> list[str]:
        return ["context", "question", "text", "answer_start"]

    def _read_file(self, path):
        with open(path, encoding="utf-8") as f:
            data = json.load(f)["data"]
        rows = []
        for article in data:
            for para in article["paragraphs"]:
                for qa in para["qas"]:
                    answers = qa.get("answers") or []
                    texts = [a["text"] for a in answers] or [""]
                    starts = [a["answer_start"] for a in answers] or [2**32 - 1]
                    rows.append((np.array(para["context"]), np.array(qa["question"]), np.array(texts),
                                 np.array(starts, dtype=np.uint32)))  # fmt: skip
        return rows
