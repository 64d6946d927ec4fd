"""Text transforms (`mindspore.dataset.text.transforms`), in Python.

Tokenizers take a str (0-D array) and return a 1-D str array; with `with_offsets=True` they return the tokens and
the start and end byte offsets (uint32, UTF-8) of each token. Errors found in the data are RuntimeErrors.
"""

from __future__ import annotations

import re
import unicodedata

import numpy as np

from kiln._core import dtype as mstype
from kiln.dataset.text.utils import JiebaMode, NormalizeForm, Vectors, Vocab

__all__ = [
    "AddToken",
    "BasicTokenizer",
    "BertTokenizer",
    "CaseFold",
    "FilterWikipediaXML",
    "JiebaTokenizer",
    "Lookup",
    "Ngram",
    "NormalizeUTF8",
    "PythonTokenizer",
    "RegexReplace",
    "RegexTokenizer",
    "SentencePieceTokenizer",
    "SlidingWindow",
    "ToNumber",
    "ToVectors",
    "Truncate",
    "TruncateSequencePair",
    "UnicodeCharTokenizer",
    "UnicodeScriptTokenizer",
    "WhitespaceTokenizer",
    "WordpieceTokenizer",
]


def _as_str(value, op: str) -> str:
    arr = np.asarray(value)
    if arr.ndim != 0:
        raise RuntimeError(f"{op}: the input must be one string (a scalar), but got shape {arr.shape}.")
    if arr.dtype.kind == "S":
        return arr.item().decode("utf-8")
    if arr.dtype.kind != "U":
        raise RuntimeError(f"{op}: the input must be a string, but got {arr.dtype}.")
    return str(arr.item())


def _str_map(value, fn, op: str) -> np.ndarray:
    """`fn` applied to every string of a str/bytes array (any shape)."""
    arr = np.asarray(value)
    if arr.dtype.kind not in "US":
        raise RuntimeError(f"{op}: the input must hold strings, but got {arr.dtype}.")
    flat = [fn(x.decode("utf-8") if isinstance(x, bytes) else str(x)) for x in arr.reshape(-1)]
    return np.array(flat if arr.ndim else flat[0]).reshape(arr.shape)


def _tokens_out(tokens: list[str], starts: list[int], ends: list[int], with_offsets: bool):
    toks = np.array(tokens if tokens else [""])
    if not with_offsets:
        return toks
    if not tokens:
        starts, ends = [0], [0]
    return toks, np.array(starts, dtype=np.uint32), np.array(ends, dtype=np.uint32)


def _byte_offsets(text: str, spans: list[tuple[int, int]]) -> tuple[list[int], list[int]]:
    """Character spans -> UTF-8 byte offsets."""
    pos = [0]
    for ch in text:
        pos.append(pos[-1] + len(ch.encode("utf-8")))
    return [pos[a] for a, _ in spans], [pos[b] for _, b in spans]


def _check_bool(value, name: str, op: str) -> bool:
    if not isinstance(value, bool):
        raise TypeError(f"{op}: {name} must be a bool, but got {type(value).__name__}.")
    return value


class _Tokenizer:
    def __init__(self, with_offsets: bool = False) -> None:
        self.with_offsets = _check_bool(with_offsets, "with_offsets", type(self).__name__)

    def _spans(self, text: str) -> list[tuple[int, int]]:
        raise NotImplementedError

    def __call__(self, text):
        s = _as_str(text, type(self).__name__)
        spans = self._spans(s)
        starts, ends = _byte_offsets(s, spans)
        return _tokens_out([s[a:b] for a, b in spans], starts, ends, self.with_offsets)


class WhitespaceTokenizer(_Tokenizer):
    """Split a string at runs of whitespace."""

    def _spans(self, text):
        return [m.span() for m in re.finditer(r"\S+", text)]


class UnicodeCharTokenizer(_Tokenizer):
    """Split a string into its characters (code points)."""

    def _spans(self, text):
        return [(i, i + 1) for i in range(len(text))]


class UnicodeScriptTokenizer(_Tokenizer):
    """Split a string where the kind of character changes (letters and digits, whitespace, other symbols).

    Python has no Unicode script property: runs of word characters (letters, digits, marks) are split where the
    script family changes between Han/Hiragana/Katakana/Hangul and the others; whitespace runs are kept as tokens
    when `keep_whitespace` is True; every other character run is a token.
    """

    def __init__(self, keep_whitespace: bool = False, with_offsets: bool = False) -> None:
        super().__init__(with_offsets)
        self.keep_whitespace = _check_bool(keep_whitespace, "keep_whitespace", "UnicodeScriptTokenizer")

    @staticmethod
    def _family(ch: str) -> str:
        if ch.isspace():
            return "space"
        if not (ch.isalnum() or unicodedata.category(ch).startswith("M")):
            return "other:" + ch if unicodedata.category(ch).startswith("P") else "other"
        name = unicodedata.name(ch, "")
        for fam in ("CJK", "HIRAGANA", "KATAKANA", "HANGUL"):
            if name.startswith(fam):
                return fam
        return "word"

    def _spans(self, text):
        spans, start = [], 0
        for i in range(1, len(text) + 1):
            if i == len(text) or self._family(text[i]) != self._family(text[start]):
                if self.keep_whitespace or not text[start].isspace():
                    spans.append((start, i))
                start = i
        return spans


class RegexTokenizer(_Tokenizer):
    """Split a string at matches of `delim_pattern`; delimiters that match `keep_delim_pattern` become tokens.

    Patterns are Python `re` patterns (MindSpore uses ICU regular expressions; the common syntax is the same).
    """

    def __init__(self, delim_pattern: str, keep_delim_pattern: str = "", with_offsets: bool = False) -> None:
        super().__init__(with_offsets)
        if not isinstance(delim_pattern, str) or not isinstance(keep_delim_pattern, str):
            raise TypeError("RegexTokenizer: delim_pattern and keep_delim_pattern must be str.")
        self.delim_pattern = delim_pattern
        self.keep_delim_pattern = keep_delim_pattern
        self._delim = re.compile(delim_pattern)
        self._keep = re.compile(keep_delim_pattern) if keep_delim_pattern else None

    def _spans(self, text):
        spans, pos = [], 0
        for m in self._delim.finditer(text):
            if m.start() == m.end():
                continue
            if m.start() > pos:
                spans.append((pos, m.start()))
            if self._keep is not None and self._keep.fullmatch(m.group()):
                spans.append(m.span())
            pos = m.end()
        if pos < len(text):
            spans.append((pos, len(text)))
        return spans


def _is_punct(ch: str) -> bool:
    cp = ord(ch)
    if 33 <= cp <= 47 or 58 <= cp <= 64 or 91 <= cp <= 96 or 123 <= cp <= 126:
        return True
    return unicodedata.category(ch).startswith("P")


def _is_cjk(ch: str) -> bool:
    cp = ord(ch)
    return (
        0x4E00 <= cp <= 0x9FFF
        or 0x3400 <= cp <= 0x4DBF
        or 0x20000 <= cp <= 0x2A6DF
        or 0x2A700 <= cp <= 0x2B73F
        or 0x2B740 <= cp <= 0x2B81F
        or 0x2B820 <= cp <= 0x2CEAF
        or 0xF900 <= cp <= 0xFAFF
        or 0x2F800 <= cp <= 0x2FA1F
    )


_UNUSED = re.compile(r"\[unused\d+\]|\[UNK\]|\[CLS\]|\[SEP\]|\[PAD\]|\[MASK\]")


def _normalize(text: str, form: NormalizeForm) -> str:
    if form == NormalizeForm.NONE:
        return text
    return unicodedata.normalize(form.name, text)


class BasicTokenizer(_Tokenizer):
    """BERT's basic tokenizer: whitespace split, punctuation and CJK characters as tokens of their own.

    Args:
        lower_case: case-fold and strip accents (NFD, marks removed) first.
        keep_whitespace: keep whitespace runs as tokens.
        normalization_form: a NormalizeForm applied first (when lower_case is False).
        preserve_unused_token: keep "[CLS]", "[SEP]", "[UNK]", "[PAD]", "[MASK]", "[unusedN]" whole.
        with_offsets: also return byte offsets.
    """

    def __init__(
        self,
        lower_case: bool = False,
        keep_whitespace: bool = False,
        normalization_form=NormalizeForm.NONE,
        preserve_unused_token: bool = True,
        with_offsets: bool = False,
    ) -> None:
        super().__init__(with_offsets)
        self.lower_case = _check_bool(lower_case, "lower_case", "BasicTokenizer")
        self.keep_whitespace = _check_bool(keep_whitespace, "keep_whitespace", "BasicTokenizer")
        if not isinstance(normalization_form, NormalizeForm):
            raise TypeError("BasicTokenizer: normalization_form must be a NormalizeForm.")
        self.normalization_form = normalization_form
        self.preserve_unused_token = _check_bool(preserve_unused_token, "preserve_unused_token", "BasicTokenizer")

    def _prepare(self, text: str) -> str:
        if self.lower_case:
            text = unicodedata.normalize("NFD", text.casefold())
            text = "".join(ch for ch in text if unicodedata.category(ch) != "Mn")
        else:
            text = _normalize(text, self.normalization_form)
        out = []
        for ch in text:
            cat = unicodedata.category(ch)
            if ch == "\x00" or ch == "\ufffd" or (cat in ("Cc", "Cf") and ch not in "\t\n\r"):
                continue
            out.append(" " if ch in "\t\n\r" else ch)
        return "".join(out)

    def _spans(self, text):
        spans, i, n = [], 0, len(text)
        keep = []
        if self.preserve_unused_token:
            keep = [m.span() for m in _UNUSED.finditer(text)]
        k = 0
        while i < n:
            if k < len(keep) and keep[k][0] == i:
                spans.append(keep[k])
                i = keep[k][1]
                k += 1
                continue
            ch = text[i]
            if ch.isspace():
                j = i
                while j < n and text[j].isspace():
                    j += 1
                if self.keep_whitespace:
                    spans.append((i, j))
                i = j
            elif _is_punct(ch) or _is_cjk(ch):
                spans.append((i, i + 1))
                i += 1
            else:
                j = i
                stop = keep[k][0] if k < len(keep) else n
                while j < min(n, stop) and not (text[j].isspace() or _is_punct(text[j]) or _is_cjk(text[j])):
                    j += 1
                spans.append((i, j))
                i = j
        return spans

    def __call__(self, text):
        s = self._prepare(_as_str(text, type(self).__name__))
        spans = self._spans(s)
        starts, ends = _byte_offsets(s, spans)
        return _tokens_out([s[a:b] for a, b in spans], starts, ends, self.with_offsets)


def _wordpiece(word: str, vocab: Vocab, suffix: str, max_bytes: int, unknown: str) -> list[tuple[str, int, int]]:
    """(piece, byte start, byte end) of one word, greedy longest match first."""
    ids = vocab._ids
    raw = word.encode("utf-8")
    if len(raw) > max_bytes:
        return [(unknown or word, 0, len(raw))]
    pieces, start = [], 0
    while start < len(word):
        end, found = len(word), None
        while start < end:
            piece = word[start:end] if start == 0 else suffix + word[start:end]
            if piece in ids:
                found = piece
                break
            end -= 1
        if found is None:
            return [(unknown or word, 0, len(raw))]
        b0 = len(word[:start].encode("utf-8"))
        pieces.append((found, b0, b0 + len(word[start:end].encode("utf-8"))))
        start = end
    return pieces


class WordpieceTokenizer:
    """Split every token of a 1-D str array into the longest vocabulary pieces (continuations get the suffix).

    Args:
        vocab: a Vocab.
        suffix_indicator: prefix of pieces that continue a word.
        max_bytes_per_token: longer tokens become `unknown_token`.
        unknown_token: what a token that cannot be split becomes ("" keeps the token itself).
        with_offsets: also return the byte offsets of the pieces in their token.
    """

    def __init__(
        self,
        vocab,
        suffix_indicator: str = "##",
        max_bytes_per_token: int = 100,
        unknown_token: str = "[UNK]",
        with_offsets: bool = False,
    ) -> None:
        if not isinstance(vocab, Vocab):
            raise TypeError(f"WordpieceTokenizer: vocab must be a text.Vocab, but got {type(vocab).__name__}.")
        self.vocab = vocab
        self.suffix_indicator = suffix_indicator
        self.max_bytes_per_token = max_bytes_per_token
        self.unknown_token = unknown_token
        self.with_offsets = _check_bool(with_offsets, "with_offsets", "WordpieceTokenizer")

    def _pieces(self, words: list[str]):
        out = []
        for w in words:
            out += _wordpiece(w, self.vocab, self.suffix_indicator, self.max_bytes_per_token, self.unknown_token)
        return out

    def __call__(self, tokens):
        arr = np.asarray(tokens)
        if arr.dtype.kind not in "US":
            raise RuntimeError(f"WordpieceTokenizer: the input must hold strings, but got {arr.dtype}.")
        words = [x.decode() if isinstance(x, bytes) else str(x) for x in arr.reshape(-1)]
        pieces = self._pieces(words)
        return _tokens_out(
            [p for p, _, _ in pieces], [a for _, a, _ in pieces], [b for _, _, b in pieces], self.with_offsets
        )


class BertTokenizer(BasicTokenizer):
    """BasicTokenizer followed by WordpieceTokenizer (offsets refer to the normalized string)."""

    def __init__(
        self,
        vocab,
        suffix_indicator: str = "##",
        max_bytes_per_token: int = 100,
        unknown_token: str = "[UNK]",
        lower_case: bool = False,
        keep_whitespace: bool = False,
        normalization_form=NormalizeForm.NONE,
        preserve_unused_token: bool = True,
        with_offsets: bool = False,
    ) -> None:
        super().__init__(lower_case, keep_whitespace, normalization_form, preserve_unused_token, with_offsets)
        self._wp = WordpieceTokenizer(vocab, suffix_indicator, max_bytes_per_token, unknown_token)

    def __call__(self, text):
        s = self._prepare(_as_str(text, "BertTokenizer"))
        spans = self._spans(s)
        starts, _ = _byte_offsets(s, spans)
        toks, st, en = [], [], []
        for (a, b), base in zip(spans, starts):
            for p, x, y in self._wp._pieces([s[a:b]]):  # preserved tokens too: MindSpore looks them up
                toks.append(p)
                st.append(base + x)
                en.append(base + y)
        return _tokens_out(toks, st, en, self.with_offsets)


class PythonTokenizer:
    """Tokenize with a Python function `tokenizer(str) -> list of str`."""

    def __init__(self, tokenizer) -> None:
        if not callable(tokenizer):
            raise TypeError(f"PythonTokenizer: tokenizer must be callable, but got {type(tokenizer).__name__}.")
        self.tokenizer = tokenizer

    def __call__(self, text):
        if not isinstance(text, np.ndarray):
            raise TypeError(f"PythonTokenizer: the input must be a NumPy array, but got {type(text).__name__}.")
        return np.array(self.tokenizer(_as_str(text, "PythonTokenizer")), dtype=str)


class JiebaTokenizer:
    """MindSpore's cppjieba tokenizer (HMM and MP dictionaries).

    Kiln does not ship the cppjieba segmenter: building one raises NotImplementedError. Use PythonTokenizer with
    the `jieba` package (`PythonTokenizer(jieba.lcut)`) instead.
    """

    def __init__(self, hmm_path: str, mp_path: str, mode=JiebaMode.MIX, with_offsets: bool = False) -> None:
        raise NotImplementedError(
            "JiebaTokenizer: Kiln has no cppjieba segmenter. Use text.PythonTokenizer(jieba.lcut) with the `jieba` "
            "package instead."
        )


class SentencePieceTokenizer:
    """MindSpore's SentencePiece tokenizer.

    Kiln does not bundle the SentencePiece library: building one raises NotImplementedError. Use
    PythonTokenizer with the `sentencepiece` package's `SentencePieceProcessor.encode_as_pieces` instead.
    """

    def __init__(self, mode, out_type) -> None:
        raise NotImplementedError(
            "SentencePieceTokenizer: Kiln does not bundle SentencePiece. Use text.PythonTokenizer with the "
            "`sentencepiece` package instead."
        )


class FilterWikipediaXML:
    """MindSpore's Wikipedia-dump cleaner (ICU regular expressions); not available in Kiln."""

    def __init__(self) -> None:
        raise NotImplementedError("FilterWikipediaXML: Kiln has no port of this ICU-based filter yet.")


class CaseFold:
    """Case-fold every string (Unicode full case folding, e.g. "ß" -> "ss")."""

    def __call__(self, text):
        return _str_map(text, str.casefold, "CaseFold")


class NormalizeUTF8:
    """Unicode-normalize every string (NormalizeForm.NONE leaves them as they are)."""

    def __init__(self, normalize_form=NormalizeForm.NFKC) -> None:
        if not isinstance(normalize_form, NormalizeForm):
            raise TypeError("NormalizeUTF8: normalize_form must be a NormalizeForm.")
        self.normalize_form = normalize_form

    def __call__(self, text):
        return _str_map(text, lambda s: _normalize(s, self.normalize_form), "NormalizeUTF8")


class RegexReplace:
    """Replace matches of `pattern` by `replace` in every string (all matches, or the first only).

    Patterns are Python `re` patterns; "$1"-style group references in `replace` are accepted too.
    """

    def __init__(self, pattern: str, replace: str, replace_all: bool = True) -> None:
        if not isinstance(pattern, str) or not isinstance(replace, str):
            raise TypeError("RegexReplace: pattern and replace must be str.")
        self.pattern, self.replace = pattern, replace
        self.replace_all = _check_bool(replace_all, "replace_all", "RegexReplace")
        self._re = re.compile(pattern)
        self._repl = re.sub(r"\$(\d+)", r"\\\1", replace)

    def __call__(self, text):
        count = 0 if self.replace_all else 1
        return _str_map(text, lambda s: self._re.sub(self._repl, s, count=count), "RegexReplace")


class Lookup:
    """Map tokens to their vocabulary ids.

    Args:
        vocab: a Vocab.
        unknown_token: the token whose id replaces tokens not in the vocab (None: such tokens are an error).
        data_type: the dtype of the ids (an integer dtype).
    """

    def __init__(self, vocab, unknown_token=None, data_type=mstype.int32) -> None:
        if not isinstance(vocab, Vocab):
            raise TypeError(f"Lookup: vocab must be a text.Vocab, but got {type(vocab).__name__}.")
        self.vocab, self.unknown_token, self.data_type = vocab, unknown_token, data_type
        self._np = mstype.to_dtype(data_type).np
        if unknown_token is not None and unknown_token not in vocab._ids:
            raise ValueError(f"Lookup: unknown_token {unknown_token!r} is not in the vocab.")

    def __call__(self, tokens):
        ids = self.vocab._ids
        unk = None if self.unknown_token is None else ids[self.unknown_token]

        def one(t):
            i = ids.get(t, unk)
            if i is None:
                raise RuntimeError(f"Lookup: token {t!r} is not in the vocab and no unknown_token was given.")
            return i

        arr = np.asarray(tokens)
        if arr.dtype.kind not in "US":
            raise RuntimeError(f"Lookup: the input must hold strings, but got {arr.dtype}.")
        flat = [one(x.decode() if isinstance(x, bytes) else str(x)) for x in arr.reshape(-1)]
        return np.array(flat, dtype=self._np).reshape(arr.shape)


class Ngram:
    """The n-grams of a 1-D str array for every n of `n`, joined by `separator`, after padding both ends.

    Args:
        n: an int or a list of ints (> 0).
        left_pad: (pad token, how many) added on the left; at most n - 1 pads are used.
        right_pad: (pad token, how many) added on the right.
        separator: joins the tokens of an n-gram.
    """

    def __init__(self, n, left_pad=("", 0), right_pad=("", 0), separator: str = " ") -> None:
        ns = [n] if isinstance(n, int) and not isinstance(n, bool) else n
        if not isinstance(ns, list) or not ns or not all(isinstance(k, int) and k > 0 for k in ns):
            raise ValueError(f"Ngram: n must be a positive int or a list of them, but got {n!r}.")
        for name, pad in (("left_pad", left_pad), ("right_pad", right_pad)):
            if not (isinstance(pad, tuple) and len(pad) == 2 and isinstance(pad[0], str) and isinstance(pad[1], int)):
                raise TypeError(f"Ngram: {name} must be a (str, int) tuple, but got {pad!r}.")
            if pad[1] < 0:
                raise ValueError(f"Ngram: the width of {name} must be >= 0, but got {pad[1]}.")
        self.n, self.left_pad, self.right_pad, self.separator = ns, left_pad, right_pad, separator

    def __call__(self, tokens):
        arr = np.asarray(tokens)
        if arr.ndim != 1 or arr.dtype.kind not in "US":
            raise RuntimeError(f"Ngram: the input must be a 1-D string array, but got {arr.dtype} {arr.shape}.")
        words = [x.decode() if isinstance(x, bytes) else str(x) for x in arr]
        out = []
        for k in self.n:
            left = [self.left_pad[0]] * min(self.left_pad[1], k - 1)
            right = [self.right_pad[0]] * min(self.right_pad[1], k - 1)
            seq = left + words + right
            out += [self.separator.join(seq[i : i + k]) for i in range(len(seq) - k + 1)]
        return np.array(out if out else [""])


class SlidingWindow:
    """Windows of `width` consecutive elements along `axis` (only axis 0 / -1 of a 1-D tensor in MindSpore)."""

    def __init__(self, width: int, axis: int = 0) -> None:
        if isinstance(width, bool) or not isinstance(width, int) or width < 1:
            raise ValueError(f"SlidingWindow: width must be a positive int, but got {width!r}.")
        if isinstance(axis, bool) or not isinstance(axis, int):
            raise TypeError(f"SlidingWindow: axis must be an int, but got {type(axis).__name__}.")
        self.width, self.axis = width, axis

    def __call__(self, data):
        arr = np.asarray(data)
        if arr.ndim != 1 or self.axis not in (0, -1):
            raise RuntimeError(
                f"SlidingWindow: only a 1-D input and axis 0 are supported, got {arr.shape}, axis {self.axis}."
            )
        if arr.size < self.width:
            return np.empty((0,), dtype=arr.dtype)
        return np.lib.stride_tricks.sliding_window_view(arr, self.width).copy()


class ToNumber:
    """Parse every string as a number of `data_type`; an unparsable or out-of-range string is an error."""

    def __init__(self, data_type) -> None:
        self.data_type = data_type
        self._np = np.dtype(mstype.to_dtype(data_type).np)
        if self._np.kind not in "iuf":
            raise TypeError(f"ToNumber: data_type must be a numeric dtype, but got {data_type!r}.")

    def _one(self, s: str):
        try:
            value = int(s) if self._np.kind in "iu" else float(s)
        except ValueError:
            raise RuntimeError(f"ToNumber: {s!r} is not a valid {self._np.name} number.") from None
        if self._np.kind in "iu":
            info = np.iinfo(self._np)
            if not info.min <= value <= info.max:
                raise RuntimeError(f"ToNumber: {s!r} is out of the range of {self._np.name}.")
        elif np.isfinite(value) and abs(value) > np.finfo(self._np).max:
            raise RuntimeError(f"ToNumber: {s!r} is out of the range of {self._np.name}.")
        return value

    def __call__(self, data):
        arr = np.asarray(data)
        if arr.dtype.kind not in "US":
            raise RuntimeError(f"ToNumber: the input must hold strings, but got {arr.dtype}.")
        flat = [self._one(x.decode() if isinstance(x, bytes) else str(x)) for x in arr.reshape(-1)]
        return np.array(flat, dtype=self._np).reshape(arr.shape)


class Truncate:
    """Keep the first `max_seq_len` elements along the last axis of a 1-D or 2-D input."""

    def __init__(self, max_seq_len: int) -> None:
        if isinstance(max_seq_len, bool) or not isinstance(max_seq_len, int) or max_seq_len < 1:
            raise ValueError(f"Truncate: max_seq_len must be a positive int, but got {max_seq_len!r}.")
        self.max_seq_len = max_seq_len

    def __call__(self, data):
        arr = np.asarray(data)
        if arr.ndim not in (1, 2):
            raise RuntimeError(f"Truncate: the input must be 1-D or 2-D, but got shape {arr.shape}.")
        return arr[..., : self.max_seq_len].copy()


class TruncateSequencePair:
    """Cut two 1-D inputs so that their total length is at most `max_length`, always from the longer one."""

    def __init__(self, max_length: int) -> None:
        if isinstance(max_length, bool) or not isinstance(max_length, int) or max_length < 0:
            raise ValueError(f"TruncateSequencePair: max_length must be a non-negative int, but got {max_length!r}.")
        self.max_length = max_length

    def __call__(self, first, second):
        a, b = np.asarray(first), np.asarray(second)
        if a.ndim != 1 or b.ndim != 1:
            raise RuntimeError(f"TruncateSequencePair: both inputs must be 1-D, got {a.shape} and {b.shape}.")
        la, lb = len(a), len(b)
        while la + lb > self.max_length:
            if la > lb:
                la -= 1
            else:
                lb -= 1
        return a[:la].copy(), b[:lb].copy()


class AddToken:
    """Add `token` at the beginning (or the end) of a 1-D str array (of each row of a 2-D one)."""

    def __init__(self, token: str, begin: bool = True) -> None:
        if not isinstance(token, str):
            raise TypeError(f"AddToken: token must be a str, but got {type(token).__name__}.")
        self.token, self.begin = token, _check_bool(begin, "begin", "AddToken")

    def __call__(self, data):
        arr = np.asarray(data)
        if arr.ndim not in (1, 2) or arr.dtype.kind not in "US":
            raise RuntimeError(f"AddToken: the input must be a 1-D or 2-D string array, got {arr.dtype} {arr.shape}.")
        tok = np.full(arr.shape[:-1] + (1,), self.token)
        parts = [tok, arr.astype(str)] if self.begin else [arr.astype(str), tok]
        return np.concatenate(parts, axis=-1)


class ToVectors:
    """Look every token up in `vectors` (Vectors, GloVe, FastText, CharNGram): shape (..., dim) float32.

    Args:
        vectors: the vectors.
        unk_init: the vector of unknown tokens (default zeros).
        lower_case_backup: look an unknown token up again in lower case.
    """

    def __init__(self, vectors, unk_init=None, lower_case_backup: bool = False) -> None:
        if not isinstance(vectors, Vectors):
            raise TypeError(f"ToVectors: vectors must be a text.Vectors, but got {type(vectors).__name__}.")
        self.vectors = vectors
        self.lower_case_backup = _check_bool(lower_case_backup, "lower_case_backup", "ToVectors")
        unk = np.zeros(vectors.dim, np.float32) if unk_init is None else np.asarray(unk_init, np.float32)
        if unk.shape != (vectors.dim,):
            raise ValueError(f"ToVectors: unk_init must have {vectors.dim} numbers, but got {unk.shape}.")
        self._unk = unk

    def __call__(self, tokens):
        arr = np.asarray(tokens)
        if arr.dtype.kind not in "US":
            raise RuntimeError(f"ToVectors: the input must hold strings, but got {arr.dtype}.")
        flat = [
            self.vectors.lookup(x.decode() if isinstance(x, bytes) else str(x), self._unk, self.lower_case_backup)
            for x in arr.reshape(-1)
        ]
        return np.stack(flat).reshape(arr.shape + (self.vectors.dim,)).astype(np.float32)
