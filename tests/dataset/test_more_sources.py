"""CelebA, USPS, STL10, QMNIST, YesNo, LJSpeech, CoNLL2000, UDPOS and Multi30k on small files written here.

Column names, dtypes, value conventions and the order of usage="all" were checked against MindSpore 2.10 on the
files of MindSpore's own test data (same formats); the expected values below follow the file formats.
"""

import os
import struct
import wave

import numpy as np
from PIL import Image

import kiln.dataset as ds


def _rows(d):
    return list(d.create_tuple_iterator(num_epochs=1, output_numpy=True))


def _wav(path, samples, rate=8000):
    with wave.open(str(path), "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(rate)
        w.writeframes(np.asarray(samples, dtype="<i2").tobytes())


def test_celeba(tmp_path):
    for name, color in (("a.png", 10), ("b.png", 200)):
        Image.fromarray(np.full((4, 5, 3), color, np.uint8)).save(tmp_path / name)
    attrs = " ".join(f"A{i}" for i in range(40))
    (tmp_path / "list_attr_celeba.txt").write_text(
        f"2\n{attrs}\na.png {' '.join(['1', '-1'] * 20)}\nb.png {' '.join(['-1'] * 40)}\n"
    )
    (tmp_path / "list_eval_partition.txt").write_text("a.png 0\nb.png 2\n")
    rows = _rows(ds.CelebADataset(str(tmp_path), shuffle=False, decode=True))
    assert rows[0][0].shape == (4, 5, 3) and rows[0][1].dtype == np.uint32
    assert rows[0][1].tolist() == [1, 0] * 20 and rows[1][1].sum() == 0
    test = _rows(ds.CelebADataset(str(tmp_path), usage="test", shuffle=False))
    assert len(test) == 1 and test[0][0].dtype == np.uint8 and test[0][0].ndim == 1  # undecoded bytes


def test_usps(tmp_path):
    (tmp_path / "usps").write_text("3 1:0.6 2:-0.6 256:1\n")
    (tmp_path / "usps.t").write_text("1 1:-1\n")
    rows = _rows(ds.USPSDataset(str(tmp_path), shuffle=False))
    img, label = rows[0]
    assert img.shape == (16, 16, 1) and img.dtype == np.uint8 and label.dtype == np.uint32 and label == 2
    # float32 parsing then truncation: 0.6 -> 204, -0.6 -> 50, 0 -> 127, 1 -> 255
    assert img.reshape(-1)[[0, 1, 2, 255]].tolist() == [204, 50, 127, 255]
    assert [int(r[1]) for r in rows] == [2, 0]


def test_stl10(tmp_path):
    raw = np.arange(96 * 96 * 3, dtype=np.uint32).astype(np.uint8)
    for part, label in (("train", 6), ("test", 9)):
        raw.tofile(tmp_path / f"{part}_X.bin")
        np.array([label], np.uint8).tofile(tmp_path / f"{part}_y.bin")
    raw.tofile(tmp_path / "unlabeled_X.bin")
    rows = _rows(ds.STL10Dataset(str(tmp_path), shuffle=False))
    assert [int(r[1]) for r in rows] == [8, 5, -1]  # "all" reads test, train, unlabeled
    np.testing.assert_array_equal(rows[0][0], raw.reshape(3, 96, 96).transpose(2, 1, 0))


def _idx(path, magic, arr, fmt):
    with open(path, "wb") as f:
        f.write(struct.pack(">I", magic) + struct.pack(f">{arr.ndim}I", *arr.shape))
        f.write(arr.astype(fmt).tobytes())


def test_qmnist(tmp_path):
    for prefix, base in (("qmnist-train", 0), ("qmnist-test", 10), ("xnist", 20)):
        images = np.full((2, 28, 28), base, np.uint8)
        labels = np.arange(16).reshape(2, 8) + base
        _idx(tmp_path / f"{prefix}-images-idx3-ubyte", 0x803, images, ">u1")
        _idx(tmp_path / f"{prefix}-labels-idx2-int", 0xC02, labels, ">i4")
    rows = _rows(ds.QMnistDataset(str(tmp_path), shuffle=False))
    assert [int(r[1]) for r in rows] == [0, 8, 10, 18, 20, 28]
    assert rows[0][0].shape == (28, 28, 1) and rows[0][1].dtype == np.uint32
    full = _rows(ds.QMnistDataset(str(tmp_path), usage="test", compat=False, shuffle=False))
    assert full[1][1].tolist() == list(range(18, 26))


def test_yesno_and_ljspeech(tmp_path):
    _wav(tmp_path / "0_1_1_0_0_1_1_0.wav", [0, 32767, -32767, 16384])
    rows = _rows(ds.YesNoDataset(str(tmp_path), shuffle=False))
    wave_, rate, label = rows[0]
    assert wave_.shape == (1, 4) and wave_.dtype == np.float32 and rate == 8000
    np.testing.assert_allclose(wave_[0], [0, 1, -1, 16384 / 32767], rtol=1e-6)  # divided by 32767
    assert label.tolist() == [0, 1, 1, 0, 0, 1, 1, 0]
    lj = tmp_path / "lj"
    os.makedirs(lj / "wavs")
    _wav(lj / "wavs" / "x1.wav", [1, 2, 3], 22050)
    (lj / "metadata.csv").write_text("x1|Hello 1|Hello one\n")
    row = _rows(ds.LJSpeechDataset(str(lj)))[0]
    assert int(row[1]) == 22050 and str(row[2]) == "Hello 1" and str(row[3]) == "Hello one"


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


def test_speech_commands(tmp_path):
    for rel in ("bob/ab12_nohash_0.wav", "bob/cd34_nohash_2.wav", "yes/ef56_nohash_1.wav"):
        os.makedirs(tmp_path / os.path.dirname(rel), exist_ok=True)
        _wav(tmp_path / rel, [1, 2, 3], 16000)
    os.makedirs(tmp_path / "_background_noise_")
    _wav(tmp_path / "_background_noise_" / "noise.wav", [0])
    (tmp_path / "testing_list.txt").write_text("bob/cd34_nohash_2.wav\n")
    (tmp_path / "validation_list.txt").write_text("yes/ef56_nohash_1.wav\n")
    rows = _rows(ds.SpeechCommandsDataset(str(tmp_path), shuffle=False))
    assert [(str(r[2]), str(r[3]), int(r[4])) for r in rows] == [
        ("bob", "ab12", 0),
        ("bob", "cd34", 2),
        ("yes", "ef56", 1),
    ]
    assert rows[0][1].dtype == np.int32 and rows[0][4].dtype == np.int32
    assert [str(r[3]) for r in _rows(ds.SpeechCommandsDataset(str(tmp_path), "train", shuffle=False))] == ["ab12"]
    assert [str(r[3]) for r in _rows(ds.SpeechCommandsDataset(str(tmp_path), "test", shuffle=False))] == ["cd34"]


def test_cmu_arctic_and_libritts(tmp_path):
    base = tmp_path / "cmu_us_aew_arctic"
    os.makedirs(base / "etc")
    os.makedirs(base / "wav")
    (base / "etc" / "txt.done.data").write_text('( arctic_a0001 "Dog." )\n( arctic_b0002 "A cat, here." )\n')
    _wav(base / "wav" / "arctic_a0001.wav", [5])
    _wav(base / "wav" / "arctic_b0002.wav", [6, 7])
    rows = _rows(ds.CMUArcticDataset(str(tmp_path), shuffle=False))
    assert [(str(r[2]), str(r[3])) for r in rows] == [("Dog.", "a0001"), ("A cat, here.", "b0002")]
    assert rows[0][1].dtype == np.uint32
    chapter = tmp_path / "libri" / "train-clean-100" / "19" / "198"
    os.makedirs(chapter)
    (chapter / "19_198.trans.tsv").write_text("19_198_000001_000000\thi there\tHi there.\n")
    _wav(chapter / "19_198_000001_000000.wav", [1, 2], 24000)
    row = _rows(ds.LibriTTSDataset(str(tmp_path / "libri")))[0]
    assert (str(row[2]), str(row[3]), int(row[4]), int(row[5]), str(row[6])) == (
        "hi there",
        "Hi there.",
        19,
        198,
        "19_198_000001_000000",
    )
    assert row[4].dtype == np.uint32


def test_omniglot(tmp_path):
    for folder, chars in (("images_background", ("c01", "c02")), ("images_evaluation", ("c01",))):
        for c in chars:
            os.makedirs(tmp_path / folder / "Alpha" / c)
            for k in (1, 2):
                Image.fromarray(np.full((3, 3, 3), k * 40, np.uint8)).save(tmp_path / folder / "Alpha" / c / f"{k}.png")
    rows = _rows(ds.OmniglotDataset(str(tmp_path), shuffle=False, decode=True))
    assert [int(r[1]) for r in rows] == [0, 0, 1, 1] and rows[0][0].shape == (3, 3, 3)
    assert rows[0][1].dtype == np.int32
    assert ds.OmniglotDataset(str(tmp_path), background=False).get_dataset_size() == 2


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


def _img(path, value=0):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    Image.fromarray(np.full((2, 3, 3), value, np.uint8)).save(path)


def test_image_folder_corpora(tmp_path):
    for c in ("b_cls", "a_cls", "BACKGROUND_Google"):
        _img(tmp_path / "cal" / "101_ObjectCategories" / c / "image_0001.jpg")
    cal = ds.Caltech101Dataset(str(tmp_path / "cal"), shuffle=False)
    assert [int(r[1]) for r in _rows(cal)] == [0, 1] and cal.get_class_indexing() == {"a_cls": 0, "b_cls": 1}
    for n in ("c1/0", "c1/1", "c2/0"):
        _img(tmp_path / "food" / "images" / f"{n}.jpg")
    os.makedirs(tmp_path / "food" / "meta")
    (tmp_path / "food" / "meta" / "train.txt").write_text("c2/0\nc1/0\n")
    (tmp_path / "food" / "meta" / "test.txt").write_text("c1/1\n")
    assert [str(r[1]) for r in _rows(ds.Food101Dataset(str(tmp_path / "food"), shuffle=False))] == ["c1", "c1", "c2"]
    _img(tmp_path / "sun" / "b" / "bad" / "1.jpg")
    _img(tmp_path / "sun" / "a" / "abbey" / "2.jpg")
    (tmp_path / "sun" / "ClassName.txt").write_text("/a/abbey\n/b/bad\n")
    sun = _rows(ds.SUN397Dataset(str(tmp_path / "sun"), shuffle=False, decode=True))
    assert [int(r[1]) for r in sun] == [0, 1] and sun[0][1].dtype == np.uint32 and sun[0][0].shape == (2, 3, 3)
    for part in ("train", "valid", "test"):
        _img(tmp_path / "sst" / part / "negative" / "1.png")
        _img(tmp_path / "sst" / part / "positive" / "2.png")
    assert [int(r[1]) for r in _rows(ds.RenderedSST2Dataset(str(tmp_path / "sst"), "val", shuffle=False))] == [0, 1]
    assert ds.RenderedSST2Dataset(str(tmp_path / "sst")).get_dataset_size() == 6
    _img(tmp_path / "fl" / "x.jpg")
    (tmp_path / "fl.token").write_text("x.jpg#0\tA dog.\nx.jpg#1\tA cat.\n")
    rows = _rows(ds.FlickrDataset(str(tmp_path / "fl"), str(tmp_path / "fl.token"), shuffle=False))
    assert rows[0][1].tolist() == ["A dog.", "A cat."]


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


def test_mat_file_sources(tmp_path):
    import scipy.io

    x = np.arange(32 * 32 * 3 * 2, dtype=np.int64).astype(np.uint8).reshape(32, 32, 3, 2)
    for part, labels in (("train", [[6], [10]]), ("test", [[1], [2]]), ("extra", [[3], [4]])):
        scipy.io.savemat(tmp_path / f"{part}_32x32.mat", {"X": x, "y": np.array(labels, np.uint8)})
    rows = _rows(ds.SVHNDataset(str(tmp_path), shuffle=False))
    assert [int(r[1]) for r in rows] == [6, 10, 1, 2, 3, 4]  # train, test, extra; 10 kept as stored
    np.testing.assert_array_equal(rows[1][0], x[..., 1])
    fl = tmp_path / "fl"
    for i in range(1, 5):
        _img(fl / "jpg" / f"image_{i:05d}.jpg", i)
        _img(fl / "segmim" / f"segmim_{i:05d}.jpg", i)
    scipy.io.savemat(fl / "imagelabels.mat", {"labels": np.array([[3, 1, 2, 2]], np.uint8)})
    scipy.io.savemat(fl / "setid.mat", {"trnid": [[2]], "tstid": [[4, 1]], "valid": [[3]]})
    rows = _rows(ds.Flowers102Dataset(str(fl), shuffle=False))
    assert [int(r[1]) for r in rows] == [0, 1, 2, 1]  # train, test, valid; label - 1
    seg = _rows(ds.Flowers102Dataset(str(fl), task="Segmentation", usage="valid", decode=True, shuffle=False))
    assert len(seg[0]) == 3 and seg[0][1].shape == (2, 3, 3)
    sbd = tmp_path / "sbd"
    _img(sbd / "img" / "a.jpg")
    os.makedirs(sbd / "cls")
    bounds = np.empty((20, 1), dtype=object)
    for k in range(20):
        bounds[k, 0] = np.full((2, 3), k % 2, np.uint8)
    gt = {"Boundaries": bounds, "Segmentation": np.full((2, 3), 7, np.uint8), "CategoriesPresent": [[1]]}
    scipy.io.savemat(sbd / "cls" / "a.mat", {"GTcls": gt})
    (sbd / "train.txt").write_text("a\n")
    (sbd / "val.txt").write_text("")
    b = _rows(ds.SBDataset(str(sbd), task="Boundaries", usage="train", shuffle=False))[0][1]
    assert b.shape == (20, 2, 3) and b.dtype == np.uint8 and int(b[1].sum()) == 6
    s = _rows(ds.SBDataset(str(sbd), task="Segmentation", shuffle=False))[0][1]
    assert s.shape == (2, 3) and int(s[0, 0]) == 7


def test_places365(tmp_path):
    for folder in ("data_256_standard", "val_large"):
        _img(tmp_path / folder / "a" / "abbey" / "1.jpg", 9)
    (tmp_path / "places365_train_standard.txt").write_text("/a/abbey/1.jpg 7\n")
    (tmp_path / "places365_val.txt").write_text("/a/abbey/1.jpg 3\n")
    assert int(_rows(ds.Places365Dataset(str(tmp_path), shuffle=False))[0][1]) == 7
    row = _rows(ds.Places365Dataset(str(tmp_path), usage="val", small=False, decode=True, shuffle=False))[0]
    assert row[0].shape == (2, 3, 3) and row[1].dtype == np.uint32 and int(row[1]) == 3


def test_lfw(tmp_path):
    for name, n in (("Ann", 2), ("Bob", 1)):
        for i in range(1, n + 1):
            _img(tmp_path / "lfw" / name / f"{name}_{i:04d}.jpg", 10 * i)
    (tmp_path / "lfw-names.txt").write_text("Ann 2\nBob 1\n")
    (tmp_path / "peopleDevTrain.txt").write_text("1\nBob 1\n")
    (tmp_path / "peopleDevTest.txt").write_text("1\nAnn 2\n")
    (tmp_path / "people.txt").write_text("2\n1\nAnn 2\n1\nBob 1\n")
    (tmp_path / "pairsDevTrain.txt").write_text("1\nAnn 1 2\nBob 1 Ann 2\n")
    (tmp_path / "pairsDevTest.txt").write_text("1\nAnn 2 1\nAnn 1 Bob 1\n")
    rows = _rows(ds.LFWDataset(str(tmp_path), shuffle=False))
    assert [int(r[1]) for r in rows] == [1, 0, 0] and rows[0][1].dtype == np.uint32  # train then test
    assert ds.LFWDataset(str(tmp_path), usage="10fold").get_dataset_size() == 3
    pairs = _rows(ds.LFWDataset(str(tmp_path), task="pairs", usage="all", decode=True, shuffle=False))
    assert [int(r[2]) for r in pairs] == [1, 0, 1, 0] and pairs[0][0].shape == (2, 3, 3)


def test_phototour(tmp_path):
    sheet = (np.arange(1024 * 1024) % 251).astype(np.uint8).reshape(1024, 1024)
    os.makedirs(tmp_path / "liberty")
    Image.fromarray(sheet).save(tmp_path / "liberty" / "patches0000.bmp")
    (tmp_path / "liberty" / "info.txt").write_text("0 0\n1 0\n17 0\n")
    (tmp_path / "liberty" / "m50_100000_100000_0.txt").write_text("0 5 0 1 5 0 0\n0 5 0 17 6 0 0\n")
    rows = _rows(ds.PhotoTourDataset(str(tmp_path), "liberty", shuffle=False))
    assert len(rows) == 3 and rows[0][0].shape == (64, 64, 1)
    np.testing.assert_array_equal(rows[2][0][..., 0], sheet[0:64, 128:192])  # patch 2 (the line number)
    test = _rows(ds.PhotoTourDataset(str(tmp_path), "liberty", "test", shuffle=False))
    assert [int(r[2]) for r in test] == [1, 0] and test[0][2].dtype == np.uint32
    np.testing.assert_array_equal(test[1][1][..., 0], sheet[64:128, 64:128])  # patch 17: row 1, column 1
