"""Image sources of encoded image files (ImageFolder, CelebA, Omniglot, Caltech101, Food101, SUN397,
RenderedSST2, Flickr, Flowers102, Places365, LFW) on small folders written here (layouts checked against MindSpore
2.10 on its own test data)."""

import importlib
import io
import os

import numpy as np
import pytest
import scipy.io
from PIL import Image

import kiln.dataset as ds
from kiln.dataset.vision import utils as vision_utils
from tests.dataset.helpers import column, rows, write_image


# -- ImageFolder ----------------------------------------------------------------
def _make_folder(root):
    contents = {}
    for cls, names in {"cat": ["b.png", "a.png"], "dog": ["c.png", "notes.txt"], "ant": ["z.png"]}.items():
        (root / cls).mkdir()
        for name in names:
            payload = f"{cls}/{name}".encode() * 3
            (root / cls / name).write_bytes(payload)
            contents[(cls, name)] = payload
    return contents


def test_image_folder_bytes_labels_and_order(tmp_path):
    contents = _make_folder(tmp_path)
    d = ds.ImageFolderDataset(str(tmp_path), extensions=[".PNG"], shuffle=False)
    assert d.get_class_indexing() == {"ant": 0, "cat": 1, "dog": 2}
    got = rows(d)
    expected = [("ant", "z.png"), ("cat", "a.png"), ("cat", "b.png"), ("dog", "c.png")]
    assert len(got) == len(expected) == d.get_dataset_size()
    for (image, label), (cls, name) in zip(got, expected):
        assert image.dtype == np.uint8 and image.ndim == 1
        assert image.tobytes() == contents[(cls, name)]
        assert label.dtype == np.int32 and label == d.get_class_indexing()[cls]
    # Without extensions every file is read; class_indexing picks and numbers folders.
    assert ds.ImageFolderDataset(tmp_path).get_dataset_size() == 5
    picked = ds.ImageFolderDataset(tmp_path, class_indexing={"dog": 7, "cat": 3}, shuffle=False)
    assert column(picked, 1) == [3, 3, 7, 7]


def test_image_folder_decode(tmp_path):
    pil = importlib.import_module("PIL.Image")  # Pillow comes with the demo extras (matplotlib)
    (tmp_path / "red").mkdir()
    pixels = np.random.default_rng(0).integers(0, 256, size=(5, 7, 3), dtype=np.uint8)
    buf = io.BytesIO()
    pil.fromarray(pixels).save(buf, format="PNG")
    (tmp_path / "red" / "x.png").write_bytes(buf.getvalue())
    ((image, label),) = rows(ds.ImageFolderDataset(tmp_path, decode=True))
    np.testing.assert_array_equal(image, pixels)
    assert label == 0
    undecoded = rows(ds.ImageFolderDataset(tmp_path).map(ds.vision.Decode(), "image"))
    np.testing.assert_array_equal(undecoded[0][0], pixels)


def test_decode_without_pillow_says_how_to_install(monkeypatch):
    def no_pillow(name):
        raise ImportError(f"No module named {name!r}")

    monkeypatch.setattr(vision_utils.importlib, "import_module", no_pillow)
    with pytest.raises(ImportError, match="pip install pillow"):
        ds.vision.Decode()(np.frombuffer(b"\x89PNG....", np.uint8))


def test_image_folder_errors(tmp_path):
    with pytest.raises(FileNotFoundError, match="absent"):
        ds.ImageFolderDataset(tmp_path / "absent")
    with pytest.raises(ValueError, match="no image files"):
        ds.ImageFolderDataset(tmp_path)
    _make_folder(tmp_path)
    with pytest.raises(FileNotFoundError, match="horse"):
        ds.ImageFolderDataset(tmp_path, class_indexing={"horse": 0})


def _rows(d):
    return list(d.create_tuple_iterator(num_epochs=1, output_numpy=True))


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


def test_image_folder_corpora(tmp_path):
    for c in ("b_cls", "a_cls", "BACKGROUND_Google"):
        write_image(tmp_path / "cal" / "101_ObjectCategories" / c / "image_0001.jpg")
    cal = ds.Caltech101Dataset(str(tmp_path / "cal"), shuffle=False)
    assert [int(r[1]) for r in _rows(cal)] == [0, 1] and cal.get_class_indexing() == {"a_cls": 0, "b_cls": 1}
    for n in ("c1/0", "c1/1", "c2/0"):
        write_image(tmp_path / "food" / "images" / f"{n}.jpg")
    os.makedirs(tmp_path / "food" / "meta")
    (tmp_path / "food" / "meta" / "train.txt").write_text("c2/0\nc1/0\n")
    (tmp_path / "food" / "meta" / "test.txt").write_text("c1/1\n")
    assert [str(r[1]) for r in _rows(ds.Food101Dataset(str(tmp_path / "food"), shuffle=False))] == ["c1", "c1", "c2"]
    write_image(tmp_path / "sun" / "b" / "bad" / "1.jpg")
    write_image(tmp_path / "sun" / "a" / "abbey" / "2.jpg")
    (tmp_path / "sun" / "ClassName.txt").write_text("/a/abbey\n/b/bad\n")
    sun = _rows(ds.SUN397Dataset(str(tmp_path / "sun"), shuffle=False, decode=True))
    assert [int(r[1]) for r in sun] == [0, 1] and sun[0][1].dtype == np.uint32 and sun[0][0].shape == (2, 3, 3)
    for part in ("train", "valid", "test"):
        write_image(tmp_path / "sst" / part / "negative" / "1.png")
        write_image(tmp_path / "sst" / part / "positive" / "2.png")
    assert [int(r[1]) for r in _rows(ds.RenderedSST2Dataset(str(tmp_path / "sst"), "val", shuffle=False))] == [0, 1]
    assert ds.RenderedSST2Dataset(str(tmp_path / "sst")).get_dataset_size() == 6
    write_image(tmp_path / "fl" / "x.jpg")
    (tmp_path / "fl.token").write_text("x.jpg#0\tA dog.\nx.jpg#1\tA cat.\n")
    rows = _rows(ds.FlickrDataset(str(tmp_path / "fl"), str(tmp_path / "fl.token"), shuffle=False))
    assert rows[0][1].tolist() == ["A dog.", "A cat."]


def test_flowers102(tmp_path):
    fl = tmp_path / "fl"
    for i in range(1, 5):
        write_image(fl / "jpg" / f"image_{i:05d}.jpg", i)
        write_image(fl / "segmim" / f"segmim_{i:05d}.jpg", i)
    scipy.io.savemat(fl / "imagelabels.mat", {"labels": np.array([[3, 1, 2, 2]], np.uint8)})
    scipy.io.savemat(fl / "setid.mat", {"trnid": [[2]], "tstid": [[4, 1]], "valid": [[3]]})
    rows = _rows(ds.Flowers102Dataset(str(fl), shuffle=False))
    assert [int(r[1]) for r in rows] == [0, 1, 2, 1]  # train, test, valid; label - 1
    seg = _rows(ds.Flowers102Dataset(str(fl), task="Segmentation", usage="valid", decode=True, shuffle=False))
    assert len(seg[0]) == 3 and seg[0][1].shape == (2, 3, 3)


def test_places365(tmp_path):
    for folder in ("data_256_standard", "val_large"):
        write_image(tmp_path / folder / "a" / "abbey" / "1.jpg", 9)
    (tmp_path / "places365_train_standard.txt").write_text("/a/abbey/1.jpg 7\n")
    (tmp_path / "places365_val.txt").write_text("/a/abbey/1.jpg 3\n")
    assert int(_rows(ds.Places365Dataset(str(tmp_path), shuffle=False))[0][1]) == 7
    row = _rows(ds.Places365Dataset(str(tmp_path), usage="val", small=False, decode=True, shuffle=False))[0]
    assert row[0].shape == (2, 3, 3) and row[1].dtype == np.uint32 and int(row[1]) == 3


def test_lfw(tmp_path):
    for name, n in (("Ann", 2), ("Bob", 1)):
        for i in range(1, n + 1):
            write_image(tmp_path / "lfw" / name / f"{name}_{i:04d}.jpg", 10 * i)
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


def test_image_folder_decrypt_reads_through_the_callable(tmp_path):
    contents = _make_folder(tmp_path)
    seen = []

    def decrypt(path):
        seen.append(os.path.basename(path))
        with open(path, "rb") as f:
            return bytes(b ^ 0x5A for b in f.read())  # a stand-in cipher: every byte flipped

    got = rows(ds.ImageFolderDataset(tmp_path, shuffle=False, extensions=[".png"], decrypt=decrypt))
    expected = [contents[("ant", "z.png")], contents[("cat", "a.png")], contents[("cat", "b.png")]]
    assert [bytes(r[0]) for r in got[:3]] == [bytes(b ^ 0x5A for b in e) for e in expected]
    assert seen[:3] == ["z.png", "a.png", "b.png"]
    with pytest.raises(TypeError, match="decrypt must be a callable"):
        ds.ImageFolderDataset(tmp_path, decrypt="key")
    bad = ds.ImageFolderDataset(tmp_path, shuffle=False, decrypt=lambda path: "text")
    with pytest.raises(TypeError, match="must return bytes"):
        rows(bad)
