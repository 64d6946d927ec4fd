"""Text corpora (CoNLL2000, UDPOS, Multi30k, SQuAD, CLUE) on small files written here (column names, dtypes
and the order of usage="all" checked against MindSpore 2.10 on its own test data)."""

import os

import numpy as np

import kiln.dataset as ds


def _rows(d):
    return list(d.create_tuple_iterator(num_epochs=1, output_numpy=True))


def test_tagged_sentences_and_multi30k(tmp_path):
    (tmp_path / "train.txt").write_text("He PRP B-NP\nran VBD B-VP\n\nOk UH O\n")
    (tmp_path / "test.txt").write_text("Go VB B-VP\n")
    rows = _rows(ds.CoNLL2000Dataset(str(tmp_path), shuffle=False))
    assert [r[0].tolist() for r in rows] == [["Go"], ["He", "ran"], ["Ok"]]  # files in name order
    assert rows[1][2].tolist() == ["B-NP", "B-VP"]
    ud = tmp_path / "ud"
    os.makedirs(ud)
    for part in ("train", "dev", "test"):
        (ud / f"en-ud-tag.v2.{part}.txt").write_text(f"{part}\tNOUN\tNN\nx\tX\tXX\n")
    rows = _rows(ds.UDPOSDataset(str(ud), shuffle=False))
    assert [r[0][0] for r in rows] == ["dev", "test", "train"]
    assert rows[0][2].tolist() == ["NN", "XX"]
    mk = tmp_path / "m30k"
    for folder, stem in (("training", "train"), ("validation", "val"), ("mmt16_task1_test", "test")):
        os.makedirs(mk / folder)
        (mk / folder / f"{stem}.en").write_text(f"{stem} en 1\n{stem} en 2\n")
        (mk / folder / f"{stem}.de").write_text(f"{stem} de 1\n{stem} de 2\n")
    rows = _rows(ds.Multi30kDataset(str(mk), usage="train", language_pair=["de", "en"], shuffle=False))
    assert [(str(a), str(b)) for a, b in rows] == [("train de 1", "train en 1"), ("train de 2", "train en 2")]
    assert ds.Multi30kDataset(str(mk)).get_dataset_size() == 6


def test_squad(tmp_path):
    import json

    def doc(q, answers):
        return {
            "data": [{"title": "t", "paragraphs": [{"context": "ctx", "qas": [{"question": q, "answers": answers}]}]}]
        }

    (tmp_path / "train-v2.0.json").write_text(json.dumps(doc("q1", [{"text": "a", "answer_start": 3}])))
    (tmp_path / "dev-v2.0.json").write_text(json.dumps(doc("q2", [])))
    rows = _rows(ds.SQuADDataset(str(tmp_path), shuffle=False))
    assert [str(r[1]) for r in rows] == ["q1", "q2"]  # train before dev, as MindSpore
    assert rows[0][2].tolist() == ["a"] and rows[0][3].tolist() == [3] and rows[0][3].dtype == np.uint32
    assert rows[1][2].tolist() == [""] and rows[1][3].tolist() == [2**32 - 1]  # unanswerable


def test_clue(tmp_path):
    import json

    rows = [{"target": {"span1_index": 0, "span1_text": "A", "span2_index": 4, "span2_text": "B"}, "idx": 3,
             "text": "A, B?", "label": "true"}]  # fmt: skip
    (tmp_path / "wsc.json").write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    d = ds.CLUEDataset(str(tmp_path / "wsc.json"), task="WSC", usage="train", shuffle=False)
    assert d.get_col_names() == ["idx", "label", "span1_index", "span1_text", "span2_index", "span2_text", "text"]
    row = _rows(d)[0]
    assert row[0].dtype == np.uint32 and int(row[0]) == 3 and str(row[1]) == "true" and int(row[4]) == 4
    (tmp_path / "csl.json").write_text(json.dumps({"id": 7, "abst": "x", "keyword": ["k1", "k2"]}) + "\n")
    row = _rows(ds.CLUEDataset(str(tmp_path / "csl.json"), task="CSL", usage="test", shuffle=False))[0]
    assert int(row[1]) == 7 and row[2].tolist() == ["k1", "k2"]
