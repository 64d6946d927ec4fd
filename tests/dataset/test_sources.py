"""Sources: values read back equal what was written, and bad input gives clear errors."""

from __future__ import annotations

import importlib
import io

import numpy as np
import pytest

import kiln.dataset as ds
from kiln.dataset.vision import utils as vision_utils

from .helpers import column, make_cifar, make_mnist, rows, write_idx_images, write_idx_labels


# -- MNIST ----------------------------------------------------------------------
def test_mnist_reads_back_what_was_written(tmp_path):
    data = make_mnist(tmp_path)
    d = ds.MnistDataset(str(tmp_path), usage="train", shuffle=False)
    assert d.get_col_names() == ["image", "label"]
    assert d.get_dataset_size() == 100
    got = rows(d)
    assert len(got) == 100
    images, labels = data["train"]
    for i, (image, label) in enumerate(got):
        assert image.dtype == np.uint8 and image.shape == (28, 28, 1)
        assert label.dtype == np.uint32 and label.shape == ()
        np.testing.assert_array_equal(image[:, :, 0], images[i])
        assert label == labels[i]


def test_mnist_usage_test_and_all(tmp_path):
    data = make_mnist(tmp_path)
    test = rows(ds.MnistDataset(tmp_path, usage="test", shuffle=False))
    assert len(test) == 30
    np.testing.assert_array_equal(test[7][0][:, :, 0], data["t10k"][0][7])
    everything = ds.MnistDataset(tmp_path, shuffle=False)  # usage None means "all": train, then test
    assert everything.get_dataset_size() == 130
    got = rows(everything)
    np.testing.assert_array_equal(got[99][0][:, :, 0], data["train"][0][99])
    np.testing.assert_array_equal(got[100][0][:, :, 0], data["t10k"][0][0])


def test_mnist_is_memory_mapped(tmp_path):
    make_mnist(tmp_path)
    d = ds.MnistDataset(tmp_path, usage="train")
    for array in d._parts[0]:  # images, labels: views of file mappings, not loaded copies
        assert isinstance(array.base, np.memmap) and not array.flags.owndata


def test_mnist_num_samples_and_default_shuffle(tmp_path):
    make_mnist(tmp_path)
    ds.config.set_seed(1)
    d = ds.MnistDataset(tmp_path, usage="train", num_samples=10)
    labels = column(d, 1)
    assert d.get_dataset_size() == 10 and len(labels) == 10
    assert len(set(labels)) == 10 and labels != sorted(labels)  # shuffled by default


def test_mnist_missing_folder_and_file(tmp_path):
    with pytest.raises(FileNotFoundError, match="nowhere"):
        ds.MnistDataset(str(tmp_path / "nowhere"))
    make_mnist(tmp_path)
    (tmp_path / "t10k-labels-idx1-ubyte").unlink()
    with pytest.raises(FileNotFoundError, match="t10k-labels-idx1-ubyte"):
        ds.MnistDataset(tmp_path, usage="test")
    with pytest.raises(ValueError, match="usage"):
        ds.MnistDataset(tmp_path, usage="validation")


def test_mnist_wrong_magic_names_expected_found_and_file(tmp_path):
    make_mnist(tmp_path)
    images = np.zeros((100, 28, 28), np.uint8)
    write_idx_images(tmp_path / "train-images-idx3-ubyte", images, magic=0x00000801)
    with pytest.raises(ValueError) as info:
        ds.MnistDataset(tmp_path, usage="train")
    msg = str(info.value)
    assert "train-images-idx3-ubyte" in msg and "2051" in msg and "2049" in msg


def test_mnist_mismatched_counts_and_truncation(tmp_path):
    make_mnist(tmp_path)
    write_idx_labels(tmp_path / "train-labels-idx1-ubyte", np.zeros(99, np.uint8))
    with pytest.raises(ValueError, match=r"100 images.*99 labels"):
        ds.MnistDataset(tmp_path, usage="train")
    path = tmp_path / "t10k-images-idx3-ubyte"
    path.write_bytes(path.read_bytes()[:-10])
    with pytest.raises(ValueError, match="truncated"):
        ds.MnistDataset(tmp_path, usage="test")


# -- CIFAR-10 -------------------------------------------------------------------
def test_cifar10_reads_back_hwc_images(tmp_path):
    data = make_cifar(tmp_path)
    train = ds.Cifar10Dataset(str(tmp_path), usage="train", shuffle=False)
    assert train.get_dataset_size() == 70
    got = rows(train)
    expected = [(img, lab) for name in ("data_batch_1.bin", "data_batch_2.bin") for img, lab in zip(*data[name])]
    for (image, label), (want_image, want_label) in zip(got, expected):
        assert image.dtype == np.uint8 and image.shape == (32, 32, 3)
        assert label.dtype == np.uint32
        np.testing.assert_array_equal(image, want_image)
        assert label == want_label
    test = rows(ds.Cifar10Dataset(tmp_path, usage="test", shuffle=False))
    np.testing.assert_array_equal(test[3][0], data["test_batch.bin"][0][3])
    assert ds.Cifar10Dataset(tmp_path).get_dataset_size() == 90


def test_cifar10_errors(tmp_path):
    with pytest.raises(FileNotFoundError, match="missing"):
        ds.Cifar10Dataset(tmp_path / "missing")
    with pytest.raises(FileNotFoundError, match="test_batch.bin"):
        ds.Cifar10Dataset(tmp_path, usage="test")
    (tmp_path / "data_batch_1.bin").write_bytes(b"\0" * 3073 * 2 + b"\1")
    with pytest.raises(ValueError, match="data_batch_1.bin"):
        ds.Cifar10Dataset(tmp_path, usage="train")


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


# -- GeneratorDataset -----------------------------------------------------------
def test_generator_from_generator_function():
    def gen():
        for i in range(7):
            yield np.array([i, i * i]), np.int32(i)

    d = ds.GeneratorDataset(gen, column_names=["data", "label"])
    got = rows(d)
    assert len(got) == 7 and d.get_dataset_size() == 7  # size counted by reading
    for i, (data, label) in enumerate(got):
        np.testing.assert_array_equal(data, [i, i * i])
        assert label == i and label.dtype == np.int32
    # A callable source is called again every epoch.
    assert len(rows(d)) == 7


def test_generator_from_iterable_without_getitem():
    class Stream:
        def __iter__(self):
            return iter([(np.float32(v),) for v in (0.5, 1.5, 2.5)])

    d = ds.GeneratorDataset(Stream(), column_names="x", num_samples=2)
    assert column(d) == [0.5, 1.5]
    with pytest.raises(ValueError, match="random-accessible"):
        ds.GeneratorDataset(Stream(), column_names="x", shuffle=True)


def test_generator_from_random_access_source():
    class Squares:
        def __getitem__(self, i):
            return np.array(i * i), np.array(i)

        def __len__(self):
            return 12

    ordered = ds.GeneratorDataset(Squares(), ["sq", "i"], shuffle=False)
    assert column(ordered) == [i * i for i in range(12)]
    ds.config.set_seed(4)
    shuffled = column(ds.GeneratorDataset(Squares(), ["sq", "i"]))  # random access shuffles by default
    assert sorted(shuffled) == [i * i for i in range(12)] and shuffled != sorted(shuffled)
    threaded = ds.GeneratorDataset(Squares(), ["sq", "i"], shuffle=False, num_parallel_workers=3)
    assert column(threaded) == [i * i for i in range(12)]
    # A plain list is random-accessible too; column_types casts.
    typed = ds.GeneratorDataset([(1,), (2,)], ["v"], column_types=[np.float32], shuffle=False)
    assert [r[0].dtype for r in rows(typed)] == [np.float32, np.float32]


def test_generator_errors():
    with pytest.raises(ValueError, match="column_names"):
        ds.GeneratorDataset([(1,)])
    with pytest.raises(TypeError, match="source"):
        ds.GeneratorDataset(42, ["x"])

    def two_columns():
        yield 1, 2

    d = ds.GeneratorDataset(two_columns, ["only"])
    with pytest.raises(RuntimeError, match=r"2 column\(s\).*names 1"):
        rows(d)


# -- NumpySlicesDataset ---------------------------------------------------------
def test_numpy_slices_inputs():
    data = {"x": np.arange(12).reshape(6, 2), "y": np.arange(6) * 0.5}
    d = ds.NumpySlicesDataset(data, shuffle=False)
    assert d.get_col_names() == ["x", "y"]
    got = rows(d)
    for i, (x, y) in enumerate(got):
        np.testing.assert_array_equal(x, data["x"][i])
        assert y == data["y"][i]
    assert ds.NumpySlicesDataset([1, 2, 3], shuffle=False).get_col_names() == ["column_0"]
    assert column(ds.NumpySlicesDataset([1, 2, 3], shuffle=False)) == [1, 2, 3]
    t = ds.NumpySlicesDataset(([1, 2], [3, 4]), column_names=["a", "b"], shuffle=False)
    assert [(int(a), int(b)) for a, b in rows(t)] == [(1, 3), (2, 4)]
    arr = ds.NumpySlicesDataset(np.ones((4, 3)), column_names=["m"], shuffle=False)
    assert [r[0].shape for r in rows(arr)] == [(3,)] * 4


def test_numpy_slices_errors():
    with pytest.raises(ValueError, match="different numbers of rows"):
        ds.NumpySlicesDataset({"a": [1, 2, 3], "b": [1, 2]})
    with pytest.raises(ValueError, match="column_names"):
        ds.NumpySlicesDataset(([1], [2]), column_names=["only"])
    with pytest.raises(ValueError, match="num_shards and shard_id"):
        ds.NumpySlicesDataset([1, 2], num_shards=2)
    with pytest.raises(ValueError, match="shard_id"):
        ds.NumpySlicesDataset([1, 2], num_shards=2, shard_id=2)
