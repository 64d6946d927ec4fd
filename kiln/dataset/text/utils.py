"""Text helpers (`mindspore.dataset.text.utils`): Vocab, Vectors, enums, to_str/to_bytes."""

from __future__ import annotations

import enum
import os
from collections import Counter

import numpy as np

__all__ = [
    "CharNGram",
    "FastText",
    "GloVe",
    "JiebaMode",
    "NormalizeForm",
    "SentencePieceModel",
    "SPieceTokenizerLoadType",
    "SPieceTokenizerOutType",
    "Vectors",
    "Vocab",
    "to_bytes",
    "to_str",
]


class NormalizeForm(enum.IntEnum):
    """Unicode normalization forms for NormalizeUTF8 and the BERT tokenizers."""

    NONE = 0
    NFC = 1
    NFKC = 2
    NFD = 3
    NFKD = 4


class JiebaMode(enum.IntEnum):
    """Segmentation algorithms of JiebaTokenizer."""

    MIX = 0
    MP = 1
    HMM = 2


class SPieceTokenizerOutType(enum.IntEnum):
    """Output of SentencePieceTokenizer: pieces (STRING) or ids (INT)."""

    STRING = 0
    INT = 1


class SPieceTokenizerLoadType(enum.IntEnum):
    """Where SentencePieceTokenizer's model comes from."""

    FILE = 0
    MODEL = 1


class SentencePieceModel(enum.IntEnum):
    """SentencePiece training algorithms."""

    UNIGRAM = 0
    BPE = 1
    CHAR = 2
    WORD = 3


def _char_codec(name: str, convert, summary: str, dtype_doc: str):
    """The public function `name(array, encoding)`: `convert` (np.char.decode or encode) of a NumPy array."""

    def codec(array, encoding: str = "utf8") -> np.ndarray:
        if not isinstance(array, np.ndarray):
            raise TypeError(f"{name}: array must be a numpy.ndarray, but got {type(array).__name__}.")
        return convert(array, encoding)

    codec.__name__ = codec.__qualname__ = name
    codec.__doc__ = f"{summary}\n\nArgs:\n    array: a NumPy array of dtype {dtype_doc}.\n    encoding: the codec.\n"
    return codec


to_str = _char_codec("to_str", np.char.decode, "Decode a NumPy bytes array into a str array.", 'bytes ("S")')
to_bytes = _char_codec("to_bytes", np.char.encode, "Encode a NumPy str array into a bytes array.", 'str ("U")')


def _check_specials(special_tokens, special_first) -> list[str]:
    special_tokens = [] if special_tokens is None else list(special_tokens)
    if not all(isinstance(t, str) for t in special_tokens):
        raise TypeError(f"Vocab: special_tokens must be a list of str, but got {special_tokens!r}.")
    if len(set(special_tokens)) != len(special_tokens):
        raise ValueError(f"Vocab: special_tokens has duplicates: {special_tokens}.")
    if not isinstance(special_first, bool):
        raise TypeError(f"Vocab: special_first must be a bool, but got {type(special_first).__name__}.")
    return special_tokens


class Vocab:
    """A token <-> id table; build it with `from_list`, `from_dict`, `from_file` or `from_dataset`."""

    def __init__(self) -> None:
        self._ids: dict[str, int] = {}
        self._tokens: dict[int, str] = {}

    @classmethod
    def _from_words(cls, words: list[str], special_tokens, special_first: bool) -> Vocab:
        specials = _check_specials(special_tokens, special_first)
        clash = [w for w in words if w in specials]
        if clash:
            raise ValueError(f"Vocab: special tokens {clash} are also in the word list.")
        if len(set(words)) != len(words):
            dup = [w for w, c in Counter(words).items() if c > 1]
            raise ValueError(f"Vocab: the word list has duplicates: {dup[:5]}.")
        ordered = specials + words if special_first else words + specials
        return cls._from_mapping({w: i for i, w in enumerate(ordered)})

    @classmethod
    def _from_mapping(cls, mapping: dict) -> Vocab:
        v = cls()
        v._ids = dict(mapping)
        v._tokens = {i: w for w, i in mapping.items()}
        return v

    @classmethod
    def from_list(cls, word_list, special_tokens=None, special_first: bool = True) -> Vocab:
        """Ids in list order (after or before the special tokens)."""
        if not isinstance(word_list, list) or not all(isinstance(w, str) for w in word_list):
            raise TypeError("Vocab.from_list: word_list must be a list of str.")
        return cls._from_words(list(word_list), special_tokens, special_first)

    @classmethod
    def from_dict(cls, word_dict) -> Vocab:
        """The given token -> id dict (ids must be non-negative ints)."""
        if not isinstance(word_dict, dict):
            raise TypeError(f"Vocab.from_dict: word_dict must be a dict, but got {type(word_dict).__name__}.")
        for w, i in word_dict.items():
            if not isinstance(w, str) or isinstance(i, bool) or not isinstance(i, int) or i < 0:
                raise ValueError(f"Vocab.from_dict: entries must be str -> non-negative int, but got {w!r}: {i!r}.")
        return cls._from_mapping(word_dict)

    @classmethod
    def from_file(
        cls, file_path, delimiter: str = "", vocab_size=None, special_tokens=None, special_first: bool = True
    ) -> Vocab:
        """One token per line (the text before `delimiter` when it is given), at most `vocab_size` tokens."""
        if not os.path.isfile(file_path):
            raise ValueError(f"Vocab.from_file: {file_path!r} does not exist or is not a file.")
        if vocab_size is not None and (
            isinstance(vocab_size, bool) or not isinstance(vocab_size, int) or vocab_size < 1
        ):
            raise ValueError(f"Vocab.from_file: vocab_size must be a positive int or None, but got {vocab_size!r}.")
        words = []
        with open(file_path, encoding="utf-8") as f:
            for line in f:
                line = line.rstrip("\r\n")
                word = line.split(delimiter)[0] if delimiter else line
                if word in words:
                    raise RuntimeError(f"Vocab.from_file: duplicate word {word!r} in {file_path!r}.")
                words.append(word)
                if vocab_size is not None and len(words) == vocab_size:
                    break
        return cls._from_words(words, special_tokens, special_first)

    @classmethod
    def from_dataset(
        cls, dataset, columns=None, freq_range=None, top_k=None, special_tokens=None, special_first: bool = True
    ) -> Vocab:
        """Count the tokens of `columns` of `dataset`; most frequent first (ties in token order).

        Args:
            dataset: a dataset whose columns hold str tokens.
            columns: the columns to count (default all).
            freq_range: (min, max) counts kept (None for no bound).
            top_k: keep the `top_k` most frequent tokens.
            special_tokens, special_first: tokens added before (or after) the counted ones.
        """
        specials = _check_specials(special_tokens, special_first)
        names = dataset.get_col_names()
        cols = names if columns is None else ([columns] if isinstance(columns, str) else list(columns))
        idx = [names.index(c) for c in cols]
        counts: Counter = Counter()
        for row in dataset.create_tuple_iterator(num_epochs=1, output_numpy=True):
            for i in idx:
                arr = np.asarray(row[i])
                if arr.dtype.kind not in "US":
                    raise TypeError(f"Vocab.from_dataset: column {names[i]!r} must hold strings, not {arr.dtype}.")
                counts.update(str(w if arr.dtype.kind == "U" else w.decode()) for w in arr.reshape(-1))
        low, high = (None, None) if freq_range is None else freq_range
        low = 0 if low is None else low
        high = float("inf") if high is None else high
        words = [w for w, c in sorted(counts.items(), key=lambda wc: (-wc[1], wc[0])) if low <= c <= high]
        words = [w for w in words if w not in specials]
        if top_k is not None:
            words = words[:top_k]
        return cls._from_words(words, specials, special_first)

    def vocab(self) -> dict:
        """The token -> id dict."""
        return dict(self._ids)

    def tokens_to_ids(self, tokens):
        """The id of a token (or a list of ids); -1 for a token not in the vocab."""
        if isinstance(tokens, np.ndarray):
            tokens = tokens.tolist()
        if isinstance(tokens, str):
            return self._ids.get(tokens, -1)
        return [self._ids.get(t, -1) for t in tokens]

    def ids_to_tokens(self, ids):
        """The token of an id (or a list of tokens); "" for an id not in the vocab."""
        if isinstance(ids, np.ndarray):
            ids = ids.tolist()
        if isinstance(ids, int):
            return self._tokens.get(ids, "")
        return [self._tokens.get(i, "") for i in ids]


class Vectors:
    """Token vectors read from a text file: one token and its numbers per line (a first "count dim" line is
    skipped), as word2vec/GloVe/fastText text files."""

    def __init__(self) -> None:
        self.vectors: dict[str, np.ndarray] = {}
        self.dim = 0

    @classmethod
    def from_file(cls, file_path, max_vectors=None):
        """Read at most `max_vectors` vectors of `file_path`."""
        if not os.path.isfile(file_path):
            raise RuntimeError(f"{cls.__name__}.from_file: {file_path!r} does not exist or is not a file.")
        if max_vectors is not None and (
            isinstance(max_vectors, bool) or not isinstance(max_vectors, int) or max_vectors < 0
        ):
            raise ValueError(f"{cls.__name__}.from_file: max_vectors must be a non-negative int or None.")
        v = cls()
        with open(file_path, encoding="utf-8") as f:
            for k, line in enumerate(f):
                parts = line.rstrip().split(" ")
                if k == 0 and len(parts) == 2 and all(p.isdigit() for p in parts):
                    continue  # word2vec/fastText header: count and dimension
                if len(parts) < 2:
                    continue
                vec = np.asarray([float(x) for x in parts[1:]], dtype=np.float32)
                if v.dim and vec.size != v.dim:
                    raise RuntimeError(
                        f"{cls.__name__}.from_file: line {k + 1} of {file_path!r} has {vec.size} numbers, the first "
                        f"vector has {v.dim}."
                    )
                v.dim = vec.size
                if parts[0] not in v.vectors:
                    v.vectors[parts[0]] = vec
                if max_vectors is not None and len(v.vectors) >= max_vectors:
                    break
        return v

    def lookup(self, token: str, unk_init, lower_case_backup: bool) -> np.ndarray:
        vec = self.vectors.get(token)
        if vec is None and lower_case_backup:
            vec = self.vectors.get(token.lower())
        if vec is None:
            return unk_init
        return vec


class GloVe(Vectors):
    """GloVe vectors (text format); see `Vectors.from_file`."""


class FastText(Vectors):
    """fastText vectors (.vec text format); see `Vectors.from_file`."""

    @classmethod
    def from_file(cls, file_path, max_vectors=None):
        if not str(file_path).endswith(".vec"):
            raise RuntimeError(f"FastText.from_file: the file must be a .vec file, but got {file_path!r}.")
        return super().from_file(file_path, max_vectors)


class CharNGram(Vectors):
    """Character n-gram vectors (text format); see `Vectors.from_file`."""


class SentencePieceVocab:
    """MindSpore's SentencePiece model trainer/holder; Kiln does not bundle the SentencePiece library.

    Every constructor raises NotImplementedError: train and load models with the `sentencepiece` package and
    tokenize with `text.PythonTokenizer`.
    """

    def __init__(self, *args, **kwargs) -> None:
        raise NotImplementedError(self._message())

    @staticmethod
    def _message() -> str:
        return (
            "SentencePieceVocab: Kiln does not bundle SentencePiece; use the `sentencepiece` package "
            "(SentencePieceTrainer / SentencePieceProcessor) with text.PythonTokenizer."
        )

    @classmethod
    def from_dataset(cls, *args, **kwargs):
        raise NotImplementedError(cls._message())

    @classmethod
    def from_file(cls, *args, **kwargs):
        raise NotImplementedError(cls._message())

    @classmethod
    def save_model(cls, *args, **kwargs):
        raise NotImplementedError(cls._message())


__all__ += ["SentencePieceVocab"]  # noqa: PLE0605
