"""More file-backed datasets: CelebA, USPS, STL10, QMNIST, YesNo, LJSpeech, CoNLL2000, UDPOS, Multi30k.

Column names, dtypes and row orders follow MindSpore 2.10 (read with num_parallel_workers=1 where MindSpore
interleaves files).
"""

from __future__ import annotations

import os
import struct
import wave

import numpy as np

from kiln.dataset.idx import IMAGES_MAGIC, open_idx, require_file
from kiln.dataset.image_sources import _check_dir
from kiln.dataset.sources import SampledSource
from kiln.dataset.text_sources import Shuffle, _check_usage, _require_dir, _RowFilesSource
from kiln.dataset.vision.functional import decode

_IMAGE_EXTS = (".jpg", ".jpeg", ".png", ".bmp", ".tif", ".tiff")


class CelebADataset(SampledSource):
    """CelebA faces: columns "image" (file bytes, or decoded HWC uint8 with decode=True) and "attr" (40 uint32 0/1).

    Args:
        dataset_dir: the folder holding list_attr_celeba.txt, the images and (for `usage`) list_eval_partition.txt.
        num_parallel_workers: threads reading rows.
        shuffle: read in a random order, new every epoch (None: True).
        usage: "train" (partition 0), "valid" (1), "test" (2) or "all".
        sampler: a sampler instead of shuffle/num_shards/shard_id/num_samples.
        decode: decode the images.
        extensions: keep only files with these extensions (default all).
        num_samples, num_shards, shard_id: as for every source.
    """

    _PARTS = {"train": 0, "valid": 1, "test": 2}

    def __init__(
        self,
        dataset_dir,
        num_parallel_workers=None,
        shuffle=None,
        usage="all",
        sampler=None,
        decode=False,
        extensions=None,
        num_samples=None,
        num_shards=None,
        shard_id=None,
        cache=None,
        decrypt=None,
    ) -> None:
        super().__init__(num_samples, shuffle, num_shards, shard_id, num_parallel_workers, sampler)
        root = _check_dir(dataset_dir, "CelebADataset")
        usage = _check_usage(usage, (*self._PARTS, "all"), "CelebADataset")
        attr_path = os.path.join(root, "list_attr_celeba.txt")
        require_file(attr_path, "CelebA attribute file")
        with open(attr_path, encoding="utf-8") as f:
            lines = [ln.split() for ln in f.read().splitlines() if ln.strip()]
        rows = [(ln[0], np.array([1 if int(v) == 1 else 0 for v in ln[1:]], dtype=np.uint32)) for ln in lines[2:]]
        if usage != "all":
            part_path = os.path.join(root, "list_eval_partition.txt")
            require_file(part_path, "CelebA partition file")
            with open(part_path, encoding="utf-8") as f:
                part = dict(ln.split()[:2] for ln in f.read().splitlines() if ln.strip())
            rows = [r for r in rows if part.get(r[0]) == str(self._PARTS[usage])]
        if extensions is not None:
            exts = tuple(e.lower() for e in extensions)
            rows = [r for r in rows if os.path.splitext(r[0])[1].lower() in exts]
        self._root, self._rows_list, self._decode = root, rows, bool(decode)

    def get_col_names(self) -> list[str]:
        return ["image", "attr"]

    def _num_rows(self) -> int:
        return len(self._rows_list)

    def _read(self, index: int) -> tuple:
        name, attr = self._rows_list[index]
        with open(os.path.join(self._root, name), "rb") as f:
            raw = np.frombuffer(f.read(), dtype=np.uint8)
        return (decode(raw) if self._decode else raw), attr


class USPSDataset(_RowFilesSource):
    """USPS digits (files "usps" and "usps.t" in libsvm text form): "image" (16, 16, 1) uint8, "label" uint32.

    Args:
        dataset_dir: the folder holding the files.
        usage: "train", "test" or "all" (None: all).
        num_samples, num_parallel_workers, shuffle, num_shards, shard_id, cache: as for TextFileDataset.
    """

    _FILES = {"train": "usps", "test": "usps.t"}

    def __init__(
        self,
        dataset_dir,
        usage=None,
        num_samples=None,
        num_parallel_workers=None,
        shuffle=Shuffle.GLOBAL,
        num_shards=None,
        shard_id=None,
        cache=None,
    ) -> None:
        root = _require_dir(dataset_dir, "USPSDataset")
        usage = _check_usage(usage, ("train", "test", "all"), "USPSDataset")
        parts = ["train", "test"] if usage == "all" else [usage]
        files = [os.path.join(root, self._FILES[p]) for p in parts]
        for f in files:
            require_file(f, "USPS file")
        super().__init__(files, num_samples, shuffle, num_shards, shard_id, num_parallel_workers)

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


class STL10Dataset(SampledSource):
    """STL-10 binary files: "image" (96, 96, 3) uint8, "label" int32 (-1 for unlabeled images).

    Args:
        dataset_dir: the folder holding {train,test}_X.bin, {train,test}_y.bin and unlabeled_X.bin.
        usage: "train", "test", "unlabeled", "train+unlabeled" or "all" (None: all).
        num_samples, num_parallel_workers, shuffle, sampler, num_shards, shard_id, cache: as for MnistDataset.
    """

    _SIDE = 96 * 96 * 3

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
        super().__init__(num_samples, shuffle, num_shards, shard_id, num_parallel_workers, sampler)
        root = _check_dir(dataset_dir, "STL10Dataset")
        usage = _check_usage(usage, ("train", "test", "unlabeled", "train+unlabeled", "all"), "STL10Dataset")
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

    def __init__(
        self,
        dataset_dir,
        usage=None,
        compat=True,
        num_samples=None,
        num_parallel_workers=None,
        shuffle=None,
        sampler=None,
        num_shards=None,
        shard_id=None,
        cache=None,
    ) -> None:
        super().__init__(num_samples, shuffle, num_shards, shard_id, num_parallel_workers, sampler)
        root = _check_dir(dataset_dir, "QMnistDataset")
        usage = _check_usage(usage, ("train", "test", "test10k", "test50k", "nist", "all"), "QMnistDataset")
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


def read_wav(path: str) -> tuple[np.ndarray, int]:
    """A PCM WAV file as float32 (channels, samples) and its sample rate; samples are divided by the largest
    positive value of their width (32767 for 16 bits), as MindSpore does."""
    with wave.open(path, "rb") as w:
        channels, width, rate, n = w.getnchannels(), w.getsampwidth(), w.getframerate(), w.getnframes()
        raw = w.readframes(n)
    if width == 1:
        data = (np.frombuffer(raw, dtype=np.uint8).astype(np.float32) - 128) / 127
    elif width == 2:
        data = (np.frombuffer(raw, dtype="<i2").astype(np.float64) / 32767).astype(np.float32)
    elif width == 4:
        data = (np.frombuffer(raw, dtype="<i4").astype(np.float64) / 2147483647).astype(np.float32)
    else:
        raise RuntimeError(f"read_wav: {path!r} has {8 * width}-bit samples; 8, 16 and 32-bit PCM are supported.")
    return np.ascontiguousarray(data.reshape(-1, channels).T), rate


class YesNoDataset(SampledSource):
    """YesNo recordings (*.wav named by their 8 labels): "waveform" float32 (1, n), "sample_rate" int32,
    "label" int32 (8,).

    Args:
        dataset_dir: the folder holding the .wav files.
        num_samples, num_parallel_workers, shuffle, sampler, num_shards, shard_id, cache: as for MnistDataset.
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
        root = _check_dir(dataset_dir, "YesNoDataset")
        self._files = sorted(os.path.join(root, f) for f in os.listdir(root) if f.lower().endswith(".wav"))

    def get_col_names(self) -> list[str]:
        return ["waveform", "sample_rate", "label"]

    def _num_rows(self) -> int:
        return len(self._files)

    def _read(self, index: int) -> tuple:
        path = self._files[index]
        data, rate = read_wav(path)
        labels = [int(x) for x in os.path.splitext(os.path.basename(path))[0].split("_")]
        return data, np.array(rate, dtype=np.int32), np.array(labels, dtype=np.int32)


class LJSpeechDataset(SampledSource):
    """LJSpeech: "waveform" float32 (1, n), "sample_rate" int32, "transcription" and "normalized_transcription" str.

    Args:
        dataset_dir: the folder holding metadata.csv and wavs/.
        num_samples, num_parallel_workers, shuffle, sampler, num_shards, shard_id, cache: as for MnistDataset.
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
        root = _check_dir(dataset_dir, "LJSpeechDataset")
        meta = os.path.join(root, "metadata.csv")
        require_file(meta, "LJSpeech metadata")
        with open(meta, encoding="utf-8") as f:
            self._items = [ln.rstrip("\n").split("|") for ln in f if ln.strip()]
        self._root = root

    def get_col_names(self) -> list[str]:
        return ["waveform", "sample_rate", "transcription", "normalized_transcription"]

    def _num_rows(self) -> int:
        return len(self._items)

    def _read(self, index: int) -> tuple:
        name, text, norm = (self._items[index] + ["", ""])[:3]
        data, rate = read_wav(os.path.join(self._root, "wavs", name + ".wav"))
        return data, np.array(rate, dtype=np.int32), np.array(text), np.array(norm)


class _TaggedSentences(_RowFilesSource):
    """Sentences of one token per line (fields separated by `_SEP`), blank lines between sentences."""

    _FILES: dict[str, str] = {}
    _COLUMNS: list[str] = []
    _SEP: str | None = None
    _ALL_ORDER: tuple = ()

    def __init__(
        self,
        dataset_dir,
        usage=None,
        num_samples=None,
        num_parallel_workers=None,
        shuffle=Shuffle.GLOBAL,
        num_shards=None,
        shard_id=None,
        cache=None,
    ) -> None:
        what = type(self).__name__
        root = _require_dir(dataset_dir, what)
        usage = _check_usage(usage, (*self._FILES, "all"), what)
        parts = list(self._ALL_ORDER or self._FILES) if usage == "all" else [usage]
        files = [os.path.join(root, self._FILES[p]) for p in parts]
        for f in files:
            require_file(f, f"{what} file")
        super().__init__(files, num_samples, shuffle, num_shards, shard_id, num_parallel_workers)

    def get_col_names(self) -> list[str]:
        return list(self._COLUMNS)

    def _read_file(self, path):
        rows, sentence = [], []
        ncol = len(self._COLUMNS)

        def flush():
            if sentence:
                cols = list(zip(*[(f + [""] * ncol)[:ncol] for f in sentence]))
                rows.append(tuple(np.array(c) for c in cols))
                sentence.clear()

        with open(path, encoding="utf-8") as f:
            for line in f:
                line = line.rstrip("\r\n")
                if not line.strip():
                    flush()
                    continue
                sentence.append(line.split(self._SEP) if self._SEP else line.split(" "))
        flush()
        return rows


class CoNLL2000Dataset(_TaggedSentences):
    """CoNLL-2000 chunking (train.txt, test.txt): columns "word", "pos_tag", "chunk_tag" (1-D str arrays).

    Args:
        dataset_dir: the folder holding the files.
        usage: "train", "test" or "all" (None: all).
        num_samples, num_parallel_workers, shuffle, num_shards, shard_id, cache: as for TextFileDataset.
    """

    _FILES = {"train": "train.txt", "test": "test.txt"}
    _COLUMNS = ["word", "pos_tag", "chunk_tag"]


class UDPOSDataset(_TaggedSentences):
    """UDPOS (en-ud-tag.v2.{train,dev,test}.txt): columns "word", "universal", "stanford" (1-D str arrays).

    Args:
        dataset_dir: the folder holding the files.
        usage: "train", "valid", "test" or "all" (None: all).
        num_samples, num_parallel_workers, shuffle, num_shards, shard_id, cache: as for TextFileDataset.
    """

    _FILES = {"train": "en-ud-tag.v2.train.txt", "valid": "en-ud-tag.v2.dev.txt", "test": "en-ud-tag.v2.test.txt"}
    _COLUMNS = ["word", "universal", "stanford"]
    _SEP = "\t"


class Multi30kDataset(_RowFilesSource):
    """Multi30k translation pairs: columns "text" and "translation" (str), one row per line pair.

    Args:
        dataset_dir: the folder holding training/, validation/ and mmt16_task1_test/.
        usage: "train", "valid", "test" or "all" (None: all).
        language_pair: ["en", "de"] (default) or ["de", "en"]: source and target language.
        num_samples, num_parallel_workers, shuffle, num_shards, shard_id, cache: as for TextFileDataset.
    """

    _SORT_FILES = False
    _DIRS = {"train": ("training", "train"), "valid": ("validation", "val"), "test": ("mmt16_task1_test", "test")}

    def __init__(
        self,
        dataset_dir,
        usage=None,
        language_pair=None,
        num_samples=None,
        num_parallel_workers=None,
        shuffle=Shuffle.GLOBAL,
        num_shards=None,
        shard_id=None,
        cache=None,
    ) -> None:
        root = _require_dir(dataset_dir, "Multi30kDataset")
        usage = _check_usage(usage, ("train", "valid", "test", "all"), "Multi30kDataset")
        pair = ["en", "de"] if language_pair is None else list(language_pair)
        if sorted(pair) != ["de", "en"]:
            raise ValueError(f"Multi30kDataset: language_pair must be ['en', 'de'] or ['de', 'en'], got {pair}.")
        parts = ["test", "train", "valid"] if usage == "all" else [usage]
        files = []
        for p in parts:
            folder, stem = self._DIRS[p]
            src, dst = (os.path.join(root, folder, f"{stem}.{lang}") for lang in pair)
            require_file(src, "Multi30k file")
            require_file(dst, "Multi30k file")
            files.append(src + "\0" + dst)
        super().__init__(files, num_samples, shuffle, num_shards, shard_id, num_parallel_workers)

    def get_col_names(self) -> list[str]:
        return ["text", "translation"]

    def _read_file(self, path):
        src, dst = path.split("\0")
        with open(src, encoding="utf-8") as f:
            a = [ln.rstrip("\r\n") for ln in f]
        with open(dst, encoding="utf-8") as f:
            b = [ln.rstrip("\r\n") for ln in f]
        return [(np.array(x), np.array(y)) for x, y in zip(a, b) if x or y]
