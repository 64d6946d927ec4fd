"""Image sources stored as packed arrays (MNIST, CIFAR, USPS, STL10, QMNIST, SVHN, PhotoTour) on
small files written here: values read back equal what was written, bad input gives clear errors. Layouts of the
MindSpore-only formats were checked against MindSpore 2.10 on its own test data."""

import os
import struct

import numpy as np
import pytest
import scipy.io
from PIL import Image

import kiln.dataset as ds
from tests.dataset.helpers import column, make_cifar, make_mnist, rows, write_idx_images, write_idx_labels


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


def _rows(d):
    return list(d.create_tuple_iterator(num_epochs=1, output_numpy=True))


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


def test_svhn(tmp_path):
    x = np.arange(32 * 32 * 3 * 2, dtype=np.int64).astype(np.uint8).reshape(32, 32, 3, 2)
    for part, labels in (("train", [[6], [10]]), ("test", [[1], [2]]), ("extra", [[3], [4]])):
        scipy.io.savemat(tmp_path / f"{part}_32x32.mat", {"X": x, "y": np.array(labels, np.uint8)})
    rows = _rows(ds.SVHNDataset(str(tmp_path), shuffle=False))
    assert [int(r[1]) for r in rows] == [6, 10, 1, 2, 3, 4]  # train, test, extra; 10 kept as stored
    np.testing.assert_array_equal(rows[1][0], x[..., 1])


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


def test_archive_sources_refuse_decrypt(tmp_path):
    make_mnist(tmp_path, n_train=4, n_test=2)
    with pytest.raises(NotImplementedError, match="decrypt the files before"):
        ds.MnistDataset(str(tmp_path), decrypt=lambda path: b"")
    assert len(rows(ds.MnistDataset(str(tmp_path), decrypt=None))) == 6
