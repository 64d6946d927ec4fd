"""Image sources stored as packed arrays: the MNIST family (IDX files), USPS, Semeion, CIFAR-10/100 and STL-10
(raw binaries), SVHN (.mat), PhotoTour (patch sheets) and FakeImageDataset.

Files are memory-mapped (MNIST, CIFAR) or read once per source, so an epoch streams through the data without
loading it. Column names, dtypes and row orders follow MindSpore 2.10.
"""

from __future__ import annotations

import bisect
import os
import struct

import numpy as np

from kiln.dataset.sources.base import (
    MAPPABLE_SHARED,
    RowFilesSource,
    SampledSource,
    check_dir,
    check_usage,
    loadmat,
    require_dir,
    require_file,
)
from kiln.dataset.sources.idx import IMAGES_MAGIC, LABELS_MAGIC, open_idx
from kiln.dataset.vision.utils import pil_image

_USAGES = ("train", "test", "all")


def _check_usage(usage: str | None, cls: str) -> str:
    usage = "all" if usage is None else usage
    if usage not in _USAGES:
        raise ValueError(f"{cls}: usage must be one of {_USAGES} or None, but got {usage!r}.")
    return usage


class _PartedSource(SampledSource):
    """Rows spread over several files (splits or batches) read as one sequence."""

    def _init_parts(self, parts: list) -> None:
        self._parts = parts
        self._starts = list(np.cumsum([0] + [self._part_len(p) for p in parts[:-1]]))
        self._total = sum(self._part_len(p) for p in parts)

    def _part_len(self, part) -> int:
        raise NotImplementedError

    def _read_part(self, part, index: int) -> tuple:
        raise NotImplementedError

    def _num_rows(self) -> int:
        return self._total

    def _read(self, index: int) -> tuple:
        k = bisect.bisect_right(self._starts, index) - 1
        return self._read_part(self._parts[k], index - int(self._starts[k]))


class MnistDataset(_PartedSource):
    """The MNIST dataset read from its four IDX files.

    Columns: "image" uint8 (28, 28, 1) and "label" uint32 scalar.

    Args:
        dataset_dir: folder holding train-images-idx3-ubyte, train-labels-idx1-ubyte,
            t10k-images-idx3-ubyte and t10k-labels-idx1-ubyte.
        usage: "train", "test" or "all" (None: "all", train first).
        num_samples: rows per epoch at most; all when None.
        shuffle: read in a random order, new every epoch (None: True).
        sampler: a `DistributedSampler`, instead of shuffle/num_shards/shard_id/num_samples.
        num_shards, shard_id: read shard `shard_id` of `num_shards`.
        num_parallel_workers: threads reading rows.
        decrypt: refused (NotImplementedError) unless None: the images are inside IDX archives, not image files.

    Returns:
        A Dataset.
    """

    _SPLITS = {"train": "train", "test": "t10k"}
    _ALL_ORDER = ("train", "test")

    _SHARED = (*MAPPABLE_SHARED, "decrypt")

    def _open(self, dataset_dir: str, usage: str | None = None) -> None:
        root = check_dir(dataset_dir, "MnistDataset")
        usage = _check_usage(usage, "MnistDataset")
        splits = list(self._ALL_ORDER) if usage == "all" else [usage]
        if usage == "all":
            # Like MindSpore, "all" reads whichever splits are present.
            present = [s for s in splits if os.path.isfile(os.path.join(root, f"{self._SPLITS[s]}-images-idx3-ubyte"))]
            splits = present or splits[:1]
        parts = []
        for split in splits:
            prefix = os.path.join(root, self._SPLITS[split])
            images_path, labels_path = f"{prefix}-images-idx3-ubyte", f"{prefix}-labels-idx1-ubyte"
            require_file(images_path, f"MNIST {split} images file")
            require_file(labels_path, f"MNIST {split} labels file")
            images = open_idx(images_path, IMAGES_MAGIC)
            labels = open_idx(labels_path, LABELS_MAGIC)
            if len(images) != len(labels):
                raise ValueError(
                    f"MnistDataset: {images_path!r} holds {len(images)} images but {labels_path!r} holds "
                    f"{len(labels)} labels; the counts must match."
                )
            parts.append((images, labels))
        self._init_parts(parts)

    def get_col_names(self) -> list[str]:
        return ["image", "label"]

    def _part_len(self, part) -> int:
        return len(part[0])

    def _labels(self):
        return np.concatenate([np.asarray(p[1]) for p in self._parts])

    def _read_part(self, part, index: int) -> tuple:
        images, labels = part
        image = np.array(images[index], dtype=np.uint8)[:, :, None]  # copy out of the memory map
        return image, np.array(labels[index], dtype=np.uint32)


class FashionMnistDataset(MnistDataset):
    """Fashion-MNIST, stored in MNIST's four IDX files; columns "image" uint8 (28, 28, 1), "label" uint32.

    usage "all" reads the t10k files first (MindSpore reads them in name order).

    Args: as for MnistDataset.
    """

    _ALL_ORDER = ("test", "train")


class KMnistDataset(MnistDataset):
    """Kuzushiji-MNIST, stored in MNIST's four IDX files; columns "image" uint8 (28, 28, 1), "label" uint32.

    usage "all" reads the t10k files first (MindSpore reads them in name order).

    Args: as for MnistDataset.
    """

    _ALL_ORDER = ("test", "train")


class EMnistDataset(MnistDataset):
    """EMNIST: IDX files named emnist-<name>-{train,test}-{images-idx3,labels-idx1}-ubyte.

    Args:
        dataset_dir: the folder holding the files.
        name: the split family: "byclass", "bymerge", "balanced", "letters", "digits" or "mnist".
        usage, num_samples, num_parallel_workers, shuffle, sampler, num_shards, shard_id: as for MnistDataset.
    """

    _NAMES = ("byclass", "bymerge", "balanced", "letters", "digits", "mnist")
    _ALL_ORDER = ("test", "train")  # MindSpore reads EMNIST's files in name order

    _SHARED = MAPPABLE_SHARED  # no decrypt

    def _open(self, dataset_dir, name, usage=None) -> None:
        if name not in self._NAMES:
            raise ValueError(f"EMnistDataset: name must be one of {self._NAMES}, but got {name!r}.")
        self._SPLITS = {"train": f"emnist-{name}-train", "test": f"emnist-{name}-test"}
        super()._open(dataset_dir, usage)


_QMNIST_LABELS_MAGIC = 0x00000C02  # int32, 2 dimensions


def _open_qmnist_labels(path: str) -> np.ndarray:
    require_file(path, "QMNIST label file")
    with open(path, "rb") as f:
        magic, n, cols = struct.unpack(">III", f.read(12))
        if magic != _QMNIST_LABELS_MAGIC:
            raise ValueError(f"QMnistDataset: {path!r} is not a QMNIST label file (magic 0x{magic:08X}).")
        data = np.frombuffer(f.read(4 * n * cols), dtype=">i4").reshape(n, cols)
    return data.astype(np.uint32)


class QMnistDataset(SampledSource):
    """QMNIST: "image" (28, 28, 1) uint8 and "label" (uint32 class, or the 8 label fields with compat=False).

    Args:
        dataset_dir: the folder holding qmnist-{train,test}-* and xnist-* files.
        usage: "train", "test", "test10k", "test50k", "nist" or "all" (None: all).
        compat: the class only (True) or all 8 label fields.
        num_samples, num_parallel_workers, shuffle, sampler, num_shards, shard_id, cache: as for MnistDataset.
    """

    _FILES = {"train": "qmnist-train", "test": "qmnist-test", "nist": "xnist"}

    def _open(self, dataset_dir, usage=None, compat=True) -> None:
        root = check_dir(dataset_dir, "QMnistDataset")
        usage = check_usage(usage, ("train", "test", "test10k", "test50k", "nist", "all"), "QMnistDataset")
        if not isinstance(compat, bool):
            raise TypeError(f"QMnistDataset: compat must be a bool, but got {type(compat).__name__}.")
        parts = ["train", "test", "nist"] if usage == "all" else ["test" if usage.startswith("test") else usage]
        images, labels = [], []
        for p in parts:
            prefix = os.path.join(root, self._FILES[p])
            img = open_idx(f"{prefix}-images-idx3-ubyte", IMAGES_MAGIC)
            lab = _open_qmnist_labels(f"{prefix}-labels-idx2-int")
            if usage == "test10k":
                img, lab = img[:10000], lab[:10000]
            elif usage == "test50k":
                img, lab = img[10000:], lab[10000:]
            images.append(img)
            labels.append(lab)
        self._img, self._lab = images, labels
        self._starts = np.cumsum([0] + [len(x) for x in labels]).tolist()
        self.compat = compat

    def get_col_names(self) -> list[str]:
        return ["image", "label"]

    def _num_rows(self) -> int:
        return self._starts[-1]

    def _read(self, index: int) -> tuple:
        k = int(np.searchsorted(self._starts, index, side="right")) - 1
        local = index - self._starts[k]
        label = self._lab[k][local]
        return np.asarray(self._img[k][local])[..., None].copy(), (label[0] if self.compat else label.copy())


class USPSDataset(RowFilesSource):
    """USPS digits (files "usps" and "usps.t" in libsvm text form): "image" (16, 16, 1) uint8, "label" uint32.

    Args:
        dataset_dir: the folder holding the files.
        usage: "train", "test" or "all" (None: all).
        num_samples, num_parallel_workers, shuffle, num_shards, shard_id, cache: as for TextFileDataset.
    """

    _FILES = {"train": "usps", "test": "usps.t"}

    def _open(self, dataset_dir, usage=None) -> list:
        root = require_dir(dataset_dir, "USPSDataset")
        usage = check_usage(usage, ("train", "test", "all"), "USPSDataset")
        parts = ["train", "test"] if usage == "all" else [usage]
        files = [os.path.join(root, self._FILES[p]) for p in parts]
        for f in files:
            require_file(f, "USPS file")
        return files

    def get_col_names(self) -> list[str]:
        return ["image", "label"]

    def _read_file(self, path):
        rows = []
        with open(path, encoding="utf-8") as f:
            for line in f:
                parts = line.split()
                if not parts:
                    continue
                pixels = np.zeros(256, dtype=np.float32)
                for item in parts[1:]:
                    k, v = item.split(":")
                    pixels[int(k) - 1] = float(v)
                # Values are parsed as float32 and scaled in float64, then truncated: MindSpore's rounding.
                image = np.clip((pixels.astype(np.float64) + 1) / 2 * 255, 0, 255).astype(np.uint8).reshape(16, 16, 1)
                rows.append((image, np.array(int(float(parts[0])) - 1, dtype=np.uint32)))
        return rows


class SemeionDataset(SampledSource):
    """Semeion handwritten digits (semeion.data): 16x16 binary images and one-hot labels.

    Columns "image" uint8 (16, 16) with values 0 and 1 (as MindSpore), "label" uint32.

    Args:
        dataset_dir: the folder holding semeion.data.
        num_samples, num_parallel_workers, shuffle, sampler, num_shards, shard_id: as for MnistDataset.
    """

    def _open(self, dataset_dir) -> None:
        path = os.path.join(check_dir(dataset_dir, "SemeionDataset"), "semeion.data")
        require_file(path, "Semeion data file")
        images, labels = [], []
        with open(path) as f:
            for line in f:
                values = line.split()
                if not values:
                    continue
                if len(values) != 266:
                    raise RuntimeError(f"SemeionDataset: a line of {path!r} has {len(values)} values, expected 266.")
                pixels = np.asarray([float(v) for v in values[:256]])
                images.append(pixels.reshape(16, 16).astype(np.uint8))  # 0 and 1, as MindSpore
                labels.append(int(np.argmax([float(v) for v in values[256:]])))
        self._images, self._label_arr = images, np.asarray(labels, np.uint32)

    def get_col_names(self) -> list[str]:
        return ["image", "label"]

    def _num_rows(self) -> int:
        return len(self._images)

    def _labels(self):
        return self._label_arr

    def _read(self, index):
        return self._images[index].copy(), np.array(self._label_arr[index])


class Cifar10Dataset(_PartedSource):
    """The CIFAR-10 dataset in its binary format.

    Each record is 1 label byte followed by 3072 bytes of a 32x32 image in CHW
    order. Columns: "image" uint8 (32, 32, 3) HWC and "label" uint32 scalar.

    Args:
        dataset_dir: folder holding data_batch_1.bin ... data_batch_5.bin and test_batch.bin.
        usage: "train", "test" or "all" (None: "all", train first).
        num_samples, shuffle, sampler, num_shards, shard_id, num_parallel_workers, decrypt: as for MnistDataset.

    Returns:
        A Dataset.
    """

    _RECORD = 1 + 3 * 32 * 32

    _SHARED = (*MAPPABLE_SHARED, "decrypt")

    def _open(self, dataset_dir: str, usage: str | None = None) -> None:
        root = check_dir(dataset_dir, "Cifar10Dataset")
        usage = _check_usage(usage, "Cifar10Dataset")
        train = [
            f"data_batch_{i}.bin" for i in range(1, 6) if os.path.isfile(os.path.join(root, f"data_batch_{i}.bin"))
        ]
        test = ["test_batch.bin"] if os.path.isfile(os.path.join(root, "test_batch.bin")) else []
        names = {"train": train, "test": test, "all": train + test}[usage]
        if not names:
            expected = {
                "train": "data_batch_1.bin ... data_batch_5.bin",
                "test": "test_batch.bin",
                "all": "data_batch_*.bin or test_batch.bin",
            }
            raise FileNotFoundError(
                f"Cifar10Dataset: no CIFAR-10 binary files for usage={usage!r} in {root!r}; expected {expected[usage]}."
            )
        self._init_parts([self._map_batch_file(os.path.join(root, n)) for n in names])

    def _map_batch_file(self, path: str) -> np.ndarray:
        size = os.path.getsize(path)
        if size % self._RECORD:
            raise ValueError(
                f"Cifar10Dataset: {path!r} has {size} bytes, not a whole number of {self._RECORD}-byte records "
                "(1 label byte + 3072 image bytes)."
            )
        if size == 0:
            return np.zeros((0, self._RECORD), np.uint8)
        records = np.memmap(path, dtype=np.uint8, mode="r", shape=(size // self._RECORD, self._RECORD))
        return records.view(np.ndarray)  # same lazy pages, without np.memmap's per-index Python hooks

    def get_col_names(self) -> list[str]:
        return ["image", "label"]

    def _labels(self):
        return np.concatenate([p[:, 0] for p in self._parts])

    def _part_len(self, part) -> int:
        return len(part)

    def _read_part(self, part, index: int) -> tuple:
        record = part[index]
        image = np.ascontiguousarray(record[1:].reshape(3, 32, 32).transpose(1, 2, 0))
        return image, np.array(record[0], dtype=np.uint32)


class Cifar100Dataset(Cifar10Dataset):
    """CIFAR-100 in its binary format (train.bin, test.bin).

    Each record is a coarse label byte, a fine label byte and a 32x32 CHW image. Columns: "image" uint8
    (32, 32, 3) HWC, "coarse_label" and "fine_label" uint32 scalars.

    Args: as for Cifar10Dataset.
    """

    _RECORD = 2 + 3 * 32 * 32

    _SHARED = MAPPABLE_SHARED  # no decrypt

    def _open(self, dataset_dir, usage=None) -> None:
        root = check_dir(dataset_dir, "Cifar100Dataset")
        usage = _check_usage(usage, "Cifar100Dataset")
        names = {"train": ["train.bin"], "test": ["test.bin"], "all": ["train.bin", "test.bin"]}[usage]
        names = [n for n in names if os.path.isfile(os.path.join(root, n))]
        if not names:
            raise FileNotFoundError(f"Cifar100Dataset: no train.bin / test.bin for usage={usage!r} in {root!r}.")
        self._init_parts([self._map_batch_file(os.path.join(root, n)) for n in names])

    def get_col_names(self) -> list[str]:
        return ["image", "coarse_label", "fine_label"]

    def _labels(self):
        return np.concatenate([p[:, 1] for p in self._parts])

    def _read_part(self, part, index: int) -> tuple:
        record = part[index]
        image = np.ascontiguousarray(record[2:].reshape(3, 32, 32).transpose(1, 2, 0))
        return image, np.array(record[0], dtype=np.uint32), np.array(record[1], dtype=np.uint32)


class STL10Dataset(SampledSource):
    """STL-10 binary files: "image" (96, 96, 3) uint8, "label" int32 (-1 for unlabeled images).

    Args:
        dataset_dir: the folder holding {train,test}_X.bin, {train,test}_y.bin and unlabeled_X.bin.
        usage: "train", "test", "unlabeled", "train+unlabeled" or "all" (None: all).
        num_samples, num_parallel_workers, shuffle, sampler, num_shards, shard_id, cache: as for MnistDataset.
    """

    _SIDE = 96 * 96 * 3

    def _open(self, dataset_dir, usage=None) -> None:
        root = check_dir(dataset_dir, "STL10Dataset")
        usage = check_usage(usage, ("train", "test", "unlabeled", "train+unlabeled", "all"), "STL10Dataset")
        parts = {
            "train": ["train"],
            "test": ["test"],
            "unlabeled": ["unlabeled"],
            "train+unlabeled": ["train", "unlabeled"],
            "all": ["test", "train", "unlabeled"],  # MindSpore's order
        }[usage]
        self._images, self._labs = [], []
        for p in parts:
            xpath = os.path.join(root, f"{p}_X.bin")
            require_file(xpath, "STL10 image file")
            size = os.path.getsize(xpath)
            if size % self._SIDE:
                raise ValueError(f"STL10Dataset: {xpath!r} has {size} bytes, not a multiple of {self._SIDE}.")
            n = size // self._SIDE
            images = (
                np.memmap(xpath, dtype=np.uint8, mode="r", shape=(n, 3, 96, 96))
                if n
                else np.zeros((0, 3, 96, 96), np.uint8)
            )
            if p == "unlabeled":
                labels = np.full(n, -1, dtype=np.int32)
            else:
                ypath = os.path.join(root, f"{p}_y.bin")
                require_file(ypath, "STL10 label file")
                labels = np.fromfile(ypath, dtype=np.uint8).astype(np.int32) - 1
                if len(labels) != n:
                    raise ValueError(f"STL10Dataset: {n} images in {xpath!r} but {len(labels)} labels in {ypath!r}.")
            self._images.append(images)
            self._labs.append(labels)
        self._starts = np.cumsum([0] + [len(x) for x in self._labs]).tolist()

    def get_col_names(self) -> list[str]:
        return ["image", "label"]

    def _num_rows(self) -> int:
        return self._starts[-1]

    def _labels(self) -> np.ndarray:
        return np.concatenate(self._labs)

    def _read(self, index: int) -> tuple:
        k = int(np.searchsorted(self._starts, index, side="right")) - 1
        local = index - self._starts[k]
        image = np.ascontiguousarray(np.asarray(self._images[k][local]).transpose(2, 1, 0))
        return image, np.array(self._labs[k][local], dtype=np.int32)


class SVHNDataset(SampledSource):
    """SVHN ({train,test,extra}_32x32.mat): "image" (32, 32, 3) uint8 and "label" uint32 (as stored: 10 is "0").

    Args:
        dataset_dir: the folder holding the .mat files.
        usage: "train", "test", "extra" or "all" (None: all).
        num_samples, num_parallel_workers, shuffle, sampler, num_shards, shard_id: as for MnistDataset.
    """

    _SHARED = MAPPABLE_SHARED[:-1]  # MindSpore's signature has no cache
    _DEFAULTS = {"num_parallel_workers": 1}

    def _open(self, dataset_dir, usage=None) -> None:
        root = check_dir(dataset_dir, "SVHNDataset")
        usage = check_usage(usage, ("train", "test", "extra", "all"), "SVHNDataset")
        parts = ["train", "test", "extra"] if usage == "all" else [usage]
        images, labels = [], []
        for p in parts:
            m = loadmat(os.path.join(root, f"{p}_32x32.mat"))
            images.append(np.ascontiguousarray(np.moveaxis(m["X"], -1, 0)))
            labels.append(m["y"].reshape(-1).astype(np.uint32))
        self._images = np.concatenate(images)
        self._labs = np.concatenate(labels)

    def get_col_names(self) -> list[str]:
        return ["image", "label"]

    def _num_rows(self) -> int:
        return len(self._labs)

    def _labels(self) -> np.ndarray:
        return self._labs

    def _read(self, index: int) -> tuple:
        return self._images[index].copy(), np.array(self._labs[index], np.uint32)


class PhotoTourDataset(SampledSource):
    """Photo Tourism patches (Brown et al.): 64x64 grayscale patches cut row-major from the 1024x1024
    patchesNNNN.bmp sheets.

    usage="train": column "image" (64, 64, 1) uint8, one row per line of info.txt. usage="test": "image1",
    "image2" and "matches" uint32 (1 when both patches show the same 3-D point), one row per line of
    m50_100000_100000_0.txt.

    Args:
        dataset_dir: the folder holding <name>/.
        name: "notredame", "yosemite", "liberty" or their "_harris" variants.
        usage: "train" or "test" (None: train).
        num_samples, num_parallel_workers, shuffle, sampler, num_shards, shard_id: as for every source.
    """

    _NAMES = ("notredame", "yosemite", "liberty", "notredame_harris", "yosemite_harris", "liberty_harris")

    def _open(self, dataset_dir, name, usage=None) -> None:
        root = check_dir(dataset_dir, "PhotoTourDataset")
        if name not in self._NAMES:
            raise ValueError(f"PhotoTourDataset: name must be one of {self._NAMES}, but got {name!r}.")
        usage = usage or "train"
        self._check_choice("usage", usage, ("train", "test"))
        self._dir, self._usage = os.path.join(root, name), usage
        self._sheets = sorted(f for f in os.listdir(self._dir) if f.startswith("patches") and f.endswith(".bmp"))
        self._cache_sheets: dict = {}
        if usage == "train":
            info = os.path.join(self._dir, "info.txt")
            require_file(info, "PhotoTour info file")
            with open(info, encoding="utf-8") as f:
                self._entries = [(i,) for i, ln in enumerate(x for x in f if x.strip())]
        else:
            matches = os.path.join(self._dir, "m50_100000_100000_0.txt")
            require_file(matches, "PhotoTour match file")
            with open(matches, encoding="utf-8") as f:
                rows = [ln.split() for ln in f if ln.strip()]
            self._entries = [(int(r[0]), int(r[3]), int(r[1] == r[4])) for r in rows]

    def get_col_names(self) -> list[str]:
        return ["image"] if self._usage == "train" else ["image1", "image2", "matches"]

    def _num_rows(self) -> int:
        return len(self._entries)

    def _patch(self, index: int) -> np.ndarray:
        sheet, k = divmod(index, 256)
        if sheet >= len(self._sheets):
            raise RuntimeError(f"PhotoTourDataset: patch {index} is beyond the {len(self._sheets)} patch sheet(s).")
        if sheet not in self._cache_sheets:
            with pil_image().open(os.path.join(self._dir, self._sheets[sheet])) as im:
                self._cache_sheets[sheet] = np.asarray(im.convert("L"))
        r, c = divmod(k, 16)
        return self._cache_sheets[sheet][r * 64 : (r + 1) * 64, c * 64 : (c + 1) * 64, None].copy()

    def _read(self, index: int) -> tuple:
        row = self._entries[index]
        if self._usage == "train":
            return (self._patch(row[0]),)
        return self._patch(row[0]), self._patch(row[1]), np.array(row[2], np.uint32)


class FakeImageDataset(SampledSource):
    """Random images and labels, for trying a pipeline without data.

    Row i is generated from (base_seed, i), so a row's content does not depend on the order it is read in.
    Columns "image" uint8 HWC of `image_size` and "label" uint32 in [0, num_classes).

    Args:
        num_images: number of rows.
        image_size: (height, width, channels).
        num_classes: number of labels.
        base_seed: the seed of the generated data.
        num_samples, num_parallel_workers, shuffle, sampler, num_shards, shard_id: as for MnistDataset.
    """

    def _open(self, num_images=1000, image_size=(224, 224, 3), num_classes=10, base_seed=0) -> None:
        if isinstance(num_images, bool) or not isinstance(num_images, int) or num_images < 1:
            raise ValueError(f"FakeImageDataset: num_images must be a positive int, but got {num_images!r}.")
        size = tuple(int(s) for s in image_size)
        if len(size) != 3 or min(size) < 1:
            raise ValueError(f"FakeImageDataset: image_size must be (height, width, channels), got {image_size!r}.")
        if isinstance(num_classes, bool) or not isinstance(num_classes, int) or num_classes < 1:
            raise ValueError(f"FakeImageDataset: num_classes must be a positive int, but got {num_classes!r}.")
        self._n, self._size, self._classes, self._seed = num_images, size, num_classes, int(base_seed)

    def get_col_names(self) -> list[str]:
        return ["image", "label"]

    def _num_rows(self) -> int:
        return self._n

    def _read(self, index):
        rng = np.random.default_rng([self._seed, index])
        image = rng.integers(0, 256, size=self._size, dtype=np.uint8)
        return image, np.array(rng.integers(0, self._classes), dtype=np.uint32)
