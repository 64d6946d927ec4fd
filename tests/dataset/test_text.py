"""text.Vocab and Vectors: the values MindSpore 2.10 gives for the same calls (measured, written out here)."""

import numpy as np
import pytest

import kiln.dataset as ds
import kiln.dataset.text as text


def test_vocab_from_list_and_lookups():
    v = text.Vocab.from_list(["a", "b", "c"], ["<pad>", "<unk>"], True)
    assert v.vocab() == {"<pad>": 0, "<unk>": 1, "a": 2, "b": 3, "c": 4}
    assert v.tokens_to_ids(["a", "z"]) == [2, -1]
    assert v.ids_to_tokens([0, 9]) == ["<pad>", ""]
    assert v.tokens_to_ids("b") == 3
    with pytest.raises(ValueError):
        text.Vocab.from_list(["a", "a"])


def test_vocab_from_dataset():
    d = ds.NumpySlicesDataset(["a b b", "c b a a"], column_names=["text"], shuffle=False)
    d = d.map(text.WhitespaceTokenizer())
    assert text.Vocab.from_dataset(d, ["text"], special_tokens=["<s>"], special_first=False).vocab() == {
        "a": 0,
        "b": 1,
        "c": 2,
        "<s>": 3,
    }
    assert text.Vocab.from_dataset(d, None, freq_range=(2, None)).vocab() == {"a": 0, "b": 1}
    assert text.Vocab.from_dataset(d, None, top_k=1).vocab() == {"a": 0}


def test_vocab_and_vectors_from_file(tmp_path):
    (tmp_path / "vocab.txt").write_text("hello,1\nworld,2\n")
    v = text.Vocab.from_file(str(tmp_path / "vocab.txt"), ",", special_tokens=["<unk>"])
    assert v.vocab() == {"<unk>": 0, "hello": 1, "world": 2}
    (tmp_path / "vec.txt").write_text("2 3\nok 1 2 3\nHi 4 5 6\n")
    vec = text.Vectors.from_file(str(tmp_path / "vec.txt"))
    out = text.ToVectors(vec, lower_case_backup=True)(np.array(["ok", "xx"]))
    np.testing.assert_array_equal(out, [[1, 2, 3], [0, 0, 0]])
    assert out.dtype == np.float32


def test_text_ops_in_pipeline():
    d = ds.NumpySlicesDataset({"s1": [[1, 2, 3, 4]], "s2": [[5, 6, 7, 8]]}, shuffle=False)
    d = d.map(text.TruncateSequencePair(3), ["s1", "s2"])
    row = next(d.create_dict_iterator(output_numpy=True))
    assert row["s1"].tolist() == [1, 2] and row["s2"].tolist() == [5]


def test_unsupported_tokenizers_say_so():
    with pytest.raises(NotImplementedError, match="jieba"):
        text.JiebaTokenizer("hmm", "mp")
    with pytest.raises(NotImplementedError, match="SentencePiece"):
        text.SentencePieceTokenizer("m", text.SPieceTokenizerOutType.STRING)
