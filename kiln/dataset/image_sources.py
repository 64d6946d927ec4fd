"""File-backed image datasets: MnistDataset, Cifar10Dataset and ImageFolderDataset.

Files are memory-mapped (MNIST, CIFAR) or read per row (image folders), so an
epoch streams through the data without loading it.
"""

from __future__ import annotations

import bisect
import json
import os
from collections.abc import Sequence

import numpy as np

from kiln.dataset.idx import IMAGES_MAGIC, LABELS_MAGIC, open_idx, require_file
from kiln.dataset.sources import SampledSource
from kiln.dataset.vision.functional import decode

_USAGES = ("train", "test", "all")


def _check_usage(usage: str | None, cls: str) -> str:
    usage = "all" if usage is None else usage
    if usage not in _USAGES:
        raise ValueError(f"{cls}: usage must be one of {_USAGES} or None, but got {usage!r}.")
    return usage


def _check_dir(dataset_dir, cls: str) -> str:
    if not isinstance(dataset_dir, str | os.PathLike):
        raise TypeError(f"{cls}: dataset_dir must be a path, but got {type(dataset_dir).__name__}.")
    path = os.fspath(dataset_dir)
    if not os.path.isdir(path):
        raise FileNotFoundError(f"{cls}: dataset_dir {path!r} does not exist or is not a directory.")
    return path


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

    Returns:
        A Dataset.
    """

    _SPLITS = {"train": "train", "test": "t10k"}
    _ALL_ORDER = ("train", "test")

    def __init__(
        self,
        dataset_dir: str,
        usage: str | None = None,
        num_samples: int | None = None,
        num_parallel_workers: int | None = None,
        shuffle: bool | None = None,
        sampler=None,
        num_shards: int | None = None,
        shard_id: int | None = None,
        cache=None,
        decrypt=None,
    ) -> None:
        super().__init__(num_samples, shuffle, num_shards, shard_id, num_parallel_workers, sampler)
        root = _check_dir(dataset_dir, "MnistDataset")
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


class Cifar10Dataset(_PartedSource):
    """The CIFAR-10 dataset in its binary format.

    Each record is 1 label byte followed by 3072 bytes of a 32x32 image in CHW
    order. Columns: "image" uint8 (32, 32, 3) HWC and "label" uint32 scalar.

    Args:
        dataset_dir: folder holding data_batch_1.bin ... data_batch_5.bin and test_batch.bin.
        usage: "train", "test" or "all" (None: "all", train first).
        num_samples, shuffle, sampler, num_shards, shard_id, num_parallel_workers: as for MnistDataset.

    Returns:
        A Dataset.
    """

    _RECORD = 1 + 3 * 32 * 32

    def __init__(
        self,
        dataset_dir: str,
        usage: str | None = None,
        num_samples: int | None = None,
        num_parallel_workers: int | None = None,
        shuffle: bool | None = None,
        sampler=None,
        num_shards: int | None = None,
        shard_id: int | None = None,
        cache=None,
        decrypt=None,
    ) -> None:
        super().__init__(num_samples, shuffle, num_shards, shard_id, num_parallel_workers, sampler)
        root = _check_dir(dataset_dir, "Cifar10Dataset")
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
        self._init_parts([self._open(os.path.join(root, n)) for n in names])

    def _open(self, path: str) -> np.ndarray:
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


class ImageFolderDataset(SampledSource):
    """Images stored as one sub-folder per class.

    Classes are the sub-folders in sorted order (or `class_indexing`), files
    are read in sorted order. Columns: "image" (the file's bytes as a 1-D uint8
    array, or an HWC uint8 RGB image with `decode=True`) and "label" int32.

    Args:
        dataset_dir: the root folder.
        num_samples, shuffle, sampler, num_shards, shard_id, num_parallel_workers: as for MnistDataset.
        extensions: file extensions to keep, e.g. [".jpg", ".png"] (case-insensitive); all files when None.
        class_indexing: folder name -> label; only these folders are read.
        decode: decode images with Pillow.

    Returns:
        A Dataset.
    """

    def __init__(
        self,
        dataset_dir: str,
        num_samples: int | None = None,
        num_parallel_workers: int | None = None,
        shuffle: bool | None = None,
        sampler=None,
        extensions: Sequence[str] | None = None,
        class_indexing: dict[str, int] | None = None,
        decode: bool = False,
        num_shards: int | None = None,
        shard_id: int | None = None,
        cache=None,
        decrypt=None,
    ) -> None:
        super().__init__(num_samples, shuffle, num_shards, shard_id, num_parallel_workers, sampler)
        root = _check_dir(dataset_dir, "ImageFolderDataset")
        folders = sorted(e.name for e in os.scandir(root) if e.is_dir())
        if class_indexing is None:
            class_indexing = {name: i for i, name in enumerate(folders)}
        else:
            if not isinstance(class_indexing, dict):
                raise TypeError(f"class_indexing must be a dict, but got {type(class_indexing).__name__}.")
            missing = [name for name in class_indexing if name not in folders]
            if missing:
                raise FileNotFoundError(f"ImageFolderDataset: class folders {missing} not found in {root!r}.")
            folders = [f for f in folders if f in class_indexing]
        exts = None if extensions is None else {e.lower() for e in extensions}
        files, labels = [], []
        for folder in folders:
            base = os.path.join(root, folder)
            for name in sorted(os.listdir(base)):
                path = os.path.join(base, name)
                if not os.path.isfile(path):
                    continue
                if exts is not None and os.path.splitext(name)[1].lower() not in exts:
                    continue
                files.append(path)
                labels.append(class_indexing[folder])
        if not files:
            raise ValueError(f"ImageFolderDataset: no image files found under {root!r} (extensions={extensions}).")
        self._files = files
        self._label_arr = np.asarray(labels, dtype=np.int32)
        self._class_indexing = dict(class_indexing)
        self._decode = bool(decode)

    def get_col_names(self) -> list[str]:
        return ["image", "label"]

    def get_class_indexing(self) -> dict[str, int]:
        """Folder name -> label."""
        return dict(self._class_indexing)

    def _labels(self):
        return self._label_arr

    def _num_rows(self) -> int:
        return len(self._files)

    def _read(self, index: int) -> tuple:
        with open(self._files[index], "rb") as f:
            data = np.frombuffer(bytearray(f.read()), dtype=np.uint8)  # writable, no extra copy
        image = decode(data) if self._decode else data
        return image, np.array(self._label_arr[index])


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

    def __init__(
        self,
        dataset_dir,
        name,
        usage=None,
        num_samples=None,
        num_parallel_workers=None,
        shuffle=None,
        sampler=None,
        num_shards=None,
        shard_id=None,
        cache=None,
    ) -> None:
        if name not in self._NAMES:
            raise ValueError(f"EMnistDataset: name must be one of {self._NAMES}, but got {name!r}.")
        self._SPLITS = {"train": f"emnist-{name}-train", "test": f"emnist-{name}-test"}
        super().__init__(dataset_dir, usage, num_samples, num_parallel_workers, shuffle, sampler, num_shards, shard_id)


class Cifar100Dataset(Cifar10Dataset):
    """CIFAR-100 in its binary format (train.bin, test.bin).

    Each record is a coarse label byte, a fine label byte and a 32x32 CHW image. Columns: "image" uint8
    (32, 32, 3) HWC, "coarse_label" and "fine_label" uint32 scalars.

    Args: as for Cifar10Dataset.
    """

    _RECORD = 2 + 3 * 32 * 32

    def __init__(
        self,
        dataset_dir,
        usage=None,
        num_samples=None,
        num_parallel_workers=None,
        shuffle=None,
        sampler=None,
        num_shards=None,
        shard_id=None,
        cache=None,
    ) -> None:
        SampledSource.__init__(self, num_samples, shuffle, num_shards, shard_id, num_parallel_workers, sampler)
        root = _check_dir(dataset_dir, "Cifar100Dataset")
        usage = _check_usage(usage, "Cifar100Dataset")
        names = {"train": ["train.bin"], "test": ["test.bin"], "all": ["train.bin", "test.bin"]}[usage]
        names = [n for n in names if os.path.isfile(os.path.join(root, n))]
        if not names:
            raise FileNotFoundError(f"Cifar100Dataset: no train.bin / test.bin for usage={usage!r} in {root!r}.")
        self._init_parts([self._open(os.path.join(root, n)) for n in names])

    def get_col_names(self) -> list[str]:
        return ["image", "coarse_label", "fine_label"]

    def _labels(self):
        return np.concatenate([p[:, 1] for p in self._parts])

    def _read_part(self, part, index: int) -> tuple:
        record = part[index]
        image = np.ascontiguousarray(record[2:].reshape(3, 32, 32).transpose(1, 2, 0))
        return image, np.array(record[0], dtype=np.uint32), np.array(record[1], dtype=np.uint32)


class Caltech256Dataset(ImageFolderDataset):
    """Caltech-256: one folder per class ("001.ak47", ...); labels follow the sorted folder names.

    Columns "image" (file bytes, or decoded with `decode=True`) and "label".

    Args:
        dataset_dir: the root folder.
        num_samples, num_parallel_workers, shuffle, decode, sampler, num_shards, shard_id: as for
            ImageFolderDataset.
    """

    def __init__(
        self,
        dataset_dir,
        num_samples=None,
        num_parallel_workers=None,
        shuffle=None,
        decode=False,
        sampler=None,
        num_shards=None,
        shard_id=None,
        cache=None,
    ) -> None:
        super().__init__(
            dataset_dir, num_samples, num_parallel_workers, shuffle, sampler, None, None, decode, num_shards, shard_id
        )


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

    def __init__(
        self,
        num_images=1000,
        image_size=(224, 224, 3),
        num_classes=10,
        base_seed=0,
        num_samples=None,
        num_parallel_workers=None,
        shuffle=None,
        sampler=None,
        num_shards=None,
        shard_id=None,
        cache=None,
    ) -> None:
        super().__init__(num_samples, shuffle, num_shards, shard_id, num_parallel_workers, sampler)
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


class SemeionDataset(SampledSource):
    """Semeion handwritten digits (semeion.data): 16x16 binary images and one-hot labels.

    Columns "image" uint8 (16, 16) with values 0 and 1 (as MindSpore), "label" uint32.

    Args:
        dataset_dir: the folder holding semeion.data.
        num_samples, num_parallel_workers, shuffle, sampler, num_shards, shard_id: as for MnistDataset.
    """

    def __init__(
        self,
        dataset_dir,
        num_samples=None,
        num_parallel_workers=None,
        shuffle=None,
        sampler=None,
        num_shards=None,
        shard_id=None,
        cache=None,
    ) -> None:
        super().__init__(num_samples, shuffle, num_shards, shard_id, num_parallel_workers, sampler)
        path = os.path.join(_check_dir(dataset_dir, "SemeionDataset"), "semeion.data")
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


class ManifestDataset(SampledSource):
    """Images listed in a manifest file: one JSON object per line with "source", "usage" and "annotation".

    Classes are the annotation names in sorted order (or `class_indexing`). Columns "image" (file bytes,
    or decoded with `decode=True`) and "label" uint64.

    Args:
        dataset_file: the manifest file.
        usage: "train", "eval" or "inference" (rows whose "usage" matches, case-insensitively).
        num_samples, num_parallel_workers, shuffle, sampler, num_shards, shard_id: as for MnistDataset.
        class_indexing: annotation name -> label.
        decode: decode the images.
    """

    def __init__(
        self,
        dataset_file,
        usage="train",
        num_samples=None,
        num_parallel_workers=None,
        shuffle=None,
        sampler=None,
        class_indexing=None,
        decode=False,
        num_shards=None,
        shard_id=None,
        cache=None,
    ) -> None:
        super().__init__(num_samples, shuffle, num_shards, shard_id, num_parallel_workers, sampler)
        if usage not in ("train", "eval", "inference"):
            raise ValueError(f"ManifestDataset: usage must be 'train', 'eval' or 'inference', but got {usage!r}.")
        require_file(os.fspath(dataset_file), "Manifest file")
        items = []
        with open(dataset_file, encoding="utf-8") as f:
            for line in f:
                if not line.strip():
                    continue
                entry = json.loads(line)
                if str(entry.get("usage", "")).lower() != usage:
                    continue
                annotations = entry.get("annotation") or []
                names = [a["name"] for a in annotations if "name" in a]
                items.append((entry["source"], names))
        classes = sorted({n for _, ns in items for n in ns})
        if class_indexing is None:
            class_indexing = {n: i for i, n in enumerate(classes)}
        self._items = [(src, [class_indexing[n] for n in ns if n in class_indexing]) for src, ns in items]
        self._class_indexing = dict(class_indexing)
        self._decode = bool(decode)

    def get_col_names(self) -> list[str]:
        return ["image", "label"]

    def get_class_indexing(self) -> dict:
        return dict(self._class_indexing)

    def _num_rows(self) -> int:
        return len(self._items)

    def _labels(self):
        return np.asarray([ls[0] if ls else -1 for _, ls in self._items])

    def _read(self, index):
        path, labels = self._items[index]
        with open(path, "rb") as f:
            data = np.frombuffer(bytearray(f.read()), dtype=np.uint8)
        image = decode(data) if self._decode else data
        label = np.asarray(labels, dtype=np.uint64)
        return image, (label[0] if len(label) == 1 else label)
