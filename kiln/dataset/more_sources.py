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


class _WavFiles(SampledSource):
    """A mappable source over a list of items, each read from one WAV file."""

    def __init__(self, num_samples, num_parallel_workers, shuffle, sampler, num_shards, shard_id) -> None:
        super().__init__(num_samples, shuffle, num_shards, shard_id, num_parallel_workers, sampler)
        self._items: list = []

    def _num_rows(self) -> int:
        return len(self._items)


class SpeechCommandsDataset(_WavFiles):
    """Speech Commands: "waveform" float32 (1, n), "sample_rate" int32, "label" str, "speaker_id" str,
    "utterance_number" int32; files label/speaker_nohash_N.wav (_background_noise_ excluded).

    Args:
        dataset_dir: the folder holding the label folders, testing_list.txt and validation_list.txt.
        usage: "train", "valid", "test" or "all" (None: all).
        num_samples, num_parallel_workers, shuffle, sampler, num_shards, shard_id, cache: as for MnistDataset.
    """

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
        super().__init__(num_samples, num_parallel_workers, shuffle, sampler, num_shards, shard_id)
        root = _check_dir(dataset_dir, "SpeechCommandsDataset")
        usage = _check_usage(usage, ("train", "valid", "test", "all"), "SpeechCommandsDataset")
        files = []
        for label in sorted(os.listdir(root)):
            folder = os.path.join(root, label)
            if label == "_background_noise_" or not os.path.isdir(folder):
                continue
            files += [f"{label}/{f}" for f in sorted(os.listdir(folder)) if f.lower().endswith(".wav")]

        def listed(name: str) -> set:
            path = os.path.join(root, name)
            if not os.path.isfile(path):
                return set()
            with open(path, encoding="utf-8") as f:
                return {ln.strip() for ln in f if ln.strip()}

        test, valid = listed("testing_list.txt"), listed("validation_list.txt")
        if usage == "test":
            files = [f for f in files if f in test]
        elif usage == "valid":
            files = [f for f in files if f in valid]
        elif usage == "train":
            files = [f for f in files if f not in test and f not in valid]
        self._root, self._items = root, files

    def get_col_names(self) -> list[str]:
        return ["waveform", "sample_rate", "label", "speaker_id", "utterance_number"]

    def _read(self, index: int) -> tuple:
        rel = self._items[index]
        label, name = rel.split("/")
        speaker, _, number = os.path.splitext(name)[0].split("_")
        data, rate = read_wav(os.path.join(self._root, rel))
        return data, np.array(rate, np.int32), np.array(label), np.array(speaker), np.array(int(number), np.int32)


class CMUArcticDataset(_WavFiles):
    """CMU Arctic: "waveform" float32 (1, n), "sample_rate" uint32, "transcript" str, "utterance_id" str.

    Args:
        dataset_dir: the folder holding cmu_us_<name>_arctic/.
        name: the speaker ("aew", "ahw", "aup", "awb", "axb", "bdl", "clb", "eey", "fem", "gka", "jmk", "ksp",
            "ljm", "lnh", "rms", "rxr", "slp" or "slt"; None: "aew").
        num_samples, num_parallel_workers, shuffle, sampler, num_shards, shard_id, cache: as for MnistDataset.
    """

    _NAMES = ("aew", "ahw", "aup", "awb", "axb", "bdl", "clb", "eey", "fem", "gka", "jmk", "ksp", "ljm", "lnh",
              "rms", "rxr", "slp", "slt")  # fmt: skip

    def __init__(
        self,
        dataset_dir,
        name=None,
        num_samples=None,
        num_parallel_workers=None,
        shuffle=None,
        sampler=None,
        num_shards=None,
        shard_id=None,
        cache=None,
    ) -> None:
        super().__init__(num_samples, num_parallel_workers, shuffle, sampler, num_shards, shard_id)
        root = _check_dir(dataset_dir, "CMUArcticDataset")
        name = _check_usage(name or "aew", self._NAMES, "CMUArcticDataset")
        self._base = os.path.join(root, f"cmu_us_{name}_arctic")
        meta = os.path.join(self._base, "etc", "txt.done.data")
        require_file(meta, "CMU Arctic transcript file")
        items = []
        with open(meta, encoding="utf-8") as f:
            for line in f:
                line = line.strip()
                if not line.startswith("("):
                    continue
                body = line.strip("() ")
                utt, _, text = body.partition(" ")
                items.append((utt, text.strip().strip('"')))
        self._items = items

    def get_col_names(self) -> list[str]:
        return ["waveform", "sample_rate", "transcript", "utterance_id"]

    def _read(self, index: int) -> tuple:
        utt, text = self._items[index]
        data, rate = read_wav(os.path.join(self._base, "wav", f"{utt}.wav"))
        return data, np.array(rate, np.uint32), np.array(text), np.array(utt.split("_", 1)[1])


class LibriTTSDataset(_WavFiles):
    """LibriTTS: "waveform" float32 (1, n), "sample_rate" uint32, "original_text", "normalized_text" str,
    "speaker_id", "chapter_id" uint32, "utterance_id" str.

    Args:
        dataset_dir: the folder holding the usage folders (train-clean-100/<speaker>/<chapter>/...).
        usage: "dev-clean", "dev-other", "test-clean", "test-other", "train-clean-100", "train-clean-360",
            "train-other-500" or "all" (None: all).
        num_samples, num_parallel_workers, shuffle, sampler, num_shards, shard_id, cache: as for MnistDataset.
    """

    _USAGES = ("dev-clean", "dev-other", "test-clean", "test-other", "train-clean-100", "train-clean-360",
               "train-other-500")  # fmt: skip

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
        super().__init__(num_samples, num_parallel_workers, shuffle, sampler, num_shards, shard_id)
        root = _check_dir(dataset_dir, "LibriTTSDataset")
        usage = _check_usage(usage, (*self._USAGES, "all"), "LibriTTSDataset")
        parts = [u for u in self._USAGES if os.path.isdir(os.path.join(root, u))] if usage == "all" else [usage]
        items = []
        for part in parts:
            base = os.path.join(root, part)
            for speaker in sorted(os.listdir(base)):
                for chapter in sorted(os.listdir(os.path.join(base, speaker))):
                    folder = os.path.join(base, speaker, chapter)
                    tsv = os.path.join(folder, f"{speaker}_{chapter}.trans.tsv")
                    if not os.path.isfile(tsv):
                        continue
                    with open(tsv, encoding="utf-8") as f:
                        for line in f:
                            fields = line.rstrip("\r\n").split("\t")
                            if len(fields) >= 3:
                                items.append((folder, fields[0], fields[1], fields[2], int(speaker), int(chapter)))
        self._items = items

    def get_col_names(self) -> list[str]:
        return ["waveform", "sample_rate", "original_text", "normalized_text", "speaker_id", "chapter_id",
                "utterance_id"]  # fmt: skip

    def _read(self, index: int) -> tuple:
        folder, utt, original, normalized, speaker, chapter = self._items[index]
        data, rate = read_wav(os.path.join(folder, f"{utt}.wav"))
        return (data, np.array(rate, np.uint32), np.array(original), np.array(normalized),
                np.array(speaker, np.uint32), np.array(chapter, np.uint32), np.array(utt))  # fmt: skip


class OmniglotDataset(SampledSource):
    """Omniglot: "image" (file bytes, or decoded HWC uint8 with decode=True) and "label" int32, one label per
    character folder (alphabets and characters in name order).

    Args:
        dataset_dir: the folder holding images_background/ and images_evaluation/.
        background: the background set (True, default) or the evaluation set.
        decode: decode the images.
        num_samples, num_parallel_workers, shuffle, sampler, num_shards, shard_id, cache: as for MnistDataset.
    """

    def __init__(
        self,
        dataset_dir,
        num_samples=None,
        num_parallel_workers=None,
        shuffle=None,
        decode=False,
        background=None,
        sampler=None,
        num_shards=None,
        shard_id=None,
        cache=None,
    ) -> None:
        super().__init__(num_samples, shuffle, num_shards, shard_id, num_parallel_workers, sampler)
        root = _check_dir(dataset_dir, "OmniglotDataset")
        folder = os.path.join(root, "images_background" if background is None or background else "images_evaluation")
        _check_dir(folder, "OmniglotDataset")
        items, label = [], 0
        for alphabet in sorted(os.listdir(folder)):
            apath = os.path.join(folder, alphabet)
            if not os.path.isdir(apath):
                continue
            for character in sorted(os.listdir(apath)):
                cpath = os.path.join(apath, character)
                if not os.path.isdir(cpath):
                    continue
                files = sorted(f for f in os.listdir(cpath) if f.lower().endswith(_IMAGE_EXTS))
                items += [(os.path.join(cpath, f), label) for f in files]
                label += 1
        self._items, self._decode = items, bool(decode)

    def get_col_names(self) -> list[str]:
        return ["image", "label"]

    def _num_rows(self) -> int:
        return len(self._items)

    def _labels(self) -> np.ndarray:
        return np.array([lab for _, lab in self._items], dtype=np.int32)

    def _read(self, index: int) -> tuple:
        path, label = self._items[index]
        with open(path, "rb") as f:
            raw = np.frombuffer(f.read(), dtype=np.uint8)
        return (decode(raw) if self._decode else raw), np.array(label, np.int32)


class SQuADDataset(_RowFilesSource):
    """SQuAD 1.1 / 2.0 question answering: "context", "question" (str), "text" (1-D str answers) and
    "answer_start" (1-D uint32; an unanswerable question has [""] and [2**32 - 1]).

    Args:
        dataset_dir: the folder holding train-v1.1.json / dev-v1.1.json (or the v2.0 files).
        usage: "train", "dev" or "all" (None: all).
        num_samples, num_parallel_workers, shuffle, num_shards, shard_id, cache: as for TextFileDataset.
    """

    _SORT_FILES = False

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
        root = _require_dir(dataset_dir, "SQuADDataset")
        usage = _check_usage(usage, ("train", "dev", "all"), "SQuADDataset")
        parts = ["train", "dev"] if usage == "all" else [usage]  # MindSpore's order
        files = []
        for p in parts:
            found = [os.path.join(root, f"{p}-v{v}.json") for v in ("1.1", "2.0")]
            found = [f for f in found if os.path.isfile(f)]
            if not found:
                raise ValueError(f"SQuADDataset: no {p}-v1.1.json or {p}-v2.0.json in {root!r}.")
            files.append(found[0])
        super().__init__(files, num_samples, shuffle, num_shards, shard_id, num_parallel_workers)

    def get_col_names(self) -> list[str]:
        return ["context", "question", "text", "answer_start"]

    def _read_file(self, path):
        import json  # noqa: PLC0415

        with open(path, encoding="utf-8") as f:
            data = json.load(f)["data"]
        rows = []
        for article in data:
            for para in article["paragraphs"]:
                for qa in para["qas"]:
                    answers = qa.get("answers") or []
                    texts = [a["text"] for a in answers] or [""]
                    starts = [a["answer_start"] for a in answers] or [2**32 - 1]
                    rows.append((np.array(para["context"]), np.array(qa["question"]), np.array(texts),
                                 np.array(starts, dtype=np.uint32)))  # fmt: skip
        return rows


class _ImageList(SampledSource):
    """Images listed as (path, label value) pairs; "image" is the file bytes or the decoded image."""

    def __init__(self, items, decode_, num_samples, num_parallel_workers, shuffle, sampler, num_shards, shard_id):
        super().__init__(num_samples, shuffle, num_shards, shard_id, num_parallel_workers, sampler)
        self._items, self._decode = items, bool(decode_)

    def _num_rows(self) -> int:
        return len(self._items)

    def _image(self, path: str) -> np.ndarray:
        with open(path, "rb") as f:
            raw = np.frombuffer(f.read(), dtype=np.uint8)
        return decode(raw) if self._decode else raw

    def _read(self, index: int) -> tuple:
        path, label = self._items[index]
        return self._image(path), label


def _sorted_images(folder: str) -> list[str]:
    return sorted(f for f in os.listdir(folder) if f.lower().endswith(_IMAGE_EXTS))


class Caltech101Dataset(_ImageList):
    """Caltech 101 (101_ObjectCategories/<class>/*.jpg): "image" (bytes, or decoded) and "category" int64 (the
    class folders in name order, BACKGROUND_Google excluded).

    Args:
        dataset_dir: the folder holding 101_ObjectCategories/.
        target_type: "category" (the annotation outlines are MATLAB files Kiln does not read: "annotation" and
            "all" raise NotImplementedError).
        num_samples, num_parallel_workers, shuffle, decode, sampler, num_shards, shard_id: as for every source.
    """

    def __init__(self, dataset_dir, target_type=None, num_samples=None, num_parallel_workers=1, shuffle=None,
                 decode=False, sampler=None, num_shards=None, shard_id=None) -> None:  # fmt: skip
        root = _check_dir(dataset_dir, "Caltech101Dataset")
        target_type = target_type or "category"
        if target_type in ("annotation", "all"):
            raise NotImplementedError(
                "Caltech101Dataset: target_type 'annotation'/'all' needs the MATLAB annotation files, which Kiln "
                "does not read; use target_type='category'."
            )
        if target_type != "category":
            raise ValueError(
                f"Caltech101Dataset: target_type must be 'category', 'annotation' or 'all', got {target_type!r}."
            )
        base = os.path.join(root, "101_ObjectCategories")
        _check_dir(base, "Caltech101Dataset")
        classes = sorted(
            c for c in os.listdir(base) if os.path.isdir(os.path.join(base, c)) and c != "BACKGROUND_Google"
        )
        items = [(os.path.join(base, c, f), np.array(k, np.int64)) for k, c in enumerate(classes)
                 for f in _sorted_images(os.path.join(base, c))]  # fmt: skip
        super().__init__(items, decode, num_samples, num_parallel_workers, shuffle, sampler, num_shards, shard_id)
        self._classes = classes

    def get_col_names(self) -> list[str]:
        return ["image", "category"]

    def get_class_indexing(self) -> dict:
        """Class folder -> category (for the full dataset, the 101 official names in MindSpore's order)."""
        return {c: k for k, c in enumerate(self._classes)}


class Food101Dataset(_ImageList):
    """Food-101 (images/<class>/<id>.jpg listed in meta/{train,test}.txt): "image" and "label" (the class name).

    Args:
        dataset_dir: the folder holding images/ and meta/.
        usage: "train", "test" or "all" (None: all).
        num_samples, num_parallel_workers, shuffle, decode, sampler, num_shards, shard_id: as for every source.
    """

    def __init__(self, dataset_dir, usage=None, num_samples=None, num_parallel_workers=None, shuffle=None,
                 decode=False, sampler=None, num_shards=None, shard_id=None, cache=None) -> None:  # fmt: skip
        root = _check_dir(dataset_dir, "Food101Dataset")
        usage = _check_usage(usage, ("train", "test", "all"), "Food101Dataset")
        parts = ["test", "train"] if usage == "all" else [usage]
        items = []
        for p in parts:
            listing = os.path.join(root, "meta", f"{p}.txt")
            require_file(listing, "Food101 list")
            with open(listing, encoding="utf-8") as f:
                names = sorted(ln.strip() for ln in f if ln.strip())
            items += [(os.path.join(root, "images", n + ".jpg"), np.array(n.split("/")[0])) for n in names]
        super().__init__(items, decode, num_samples, num_parallel_workers, shuffle, sampler, num_shards, shard_id)

    def get_col_names(self) -> list[str]:
        return ["image", "label"]


class SUN397Dataset(_ImageList):
    """SUN397 (classes listed in ClassName.txt as /a/abbey ...): "image" and "label" uint32 (the class's line).

    Args:
        dataset_dir: the folder holding ClassName.txt and the class folders.
        num_samples, num_parallel_workers, shuffle, decode, sampler, num_shards, shard_id: as for every source.
    """

    def __init__(self, dataset_dir, num_samples=None, num_parallel_workers=None, shuffle=None, decode=False,
                 sampler=None, num_shards=None, shard_id=None, cache=None) -> None:  # fmt: skip
        root = _check_dir(dataset_dir, "SUN397Dataset")
        listing = os.path.join(root, "ClassName.txt")
        require_file(listing, "SUN397 class list")
        with open(listing, encoding="utf-8") as f:
            classes = [ln.strip().lstrip("/") for ln in f if ln.strip()]
        items = []
        for k, c in enumerate(classes):
            folder = os.path.join(root, *c.split("/"))
            if os.path.isdir(folder):
                items += [(os.path.join(folder, n), np.array(k, np.uint32)) for n in _sorted_images(folder)]
        super().__init__(items, decode, num_samples, num_parallel_workers, shuffle, sampler, num_shards, shard_id)

    def get_col_names(self) -> list[str]:
        return ["image", "label"]


class RenderedSST2Dataset(_ImageList):
    """Rendered SST2 ({train,valid,test}/{negative,positive}/*.png): "image" and "label" uint32 (negative 0,
    positive 1).

    Args:
        dataset_dir: the folder holding train/, valid/ and test/.
        usage: "train", "val", "test" or "all" (None: all).
        num_samples, num_parallel_workers, shuffle, decode, sampler, num_shards, shard_id: as for every source.
    """

    def __init__(self, dataset_dir, usage=None, num_samples=None, num_parallel_workers=None, shuffle=None,
                 decode=False, sampler=None, num_shards=None, shard_id=None, cache=None) -> None:  # fmt: skip
        root = _check_dir(dataset_dir, "RenderedSST2Dataset")
        usage = _check_usage(usage, ("train", "val", "test", "all"), "RenderedSST2Dataset")
        folders = {"train": "train", "val": "valid", "test": "test"}
        parts = ["test", "train", "val"] if usage == "all" else [usage]
        items = []
        for p in parts:
            for k, cls in enumerate(("negative", "positive")):
                folder = os.path.join(root, folders[p], cls)
                if os.path.isdir(folder):
                    items += [(os.path.join(folder, n), np.array(k, np.uint32)) for n in _sorted_images(folder)]
        super().__init__(items, decode, num_samples, num_parallel_workers, shuffle, sampler, num_shards, shard_id)

    def get_col_names(self) -> list[str]:
        return ["image", "label"]


class FlickrDataset(_ImageList):
    """Flickr8k / Flickr30k: "image" and "annotation" (the 1-D str array of the image's captions, in file order).

    Args:
        dataset_dir: the folder holding the images.
        annotation_file: the token file ("<image>#<k>\\t<caption>" lines).
        num_samples, num_parallel_workers, shuffle, decode, sampler, num_shards, shard_id: as for every source.
    """

    def __init__(self, dataset_dir, annotation_file, num_samples=None, num_parallel_workers=None, shuffle=None,
                 decode=None, sampler=None, num_shards=None, shard_id=None, cache=None) -> None:  # fmt: skip
        root = _check_dir(dataset_dir, "FlickrDataset")
        require_file(annotation_file, "Flickr annotation file")
        captions: dict[str, list[str]] = {}
        with open(annotation_file, encoding="utf-8") as f:
            for line in f:
                line = line.rstrip("\r\n")
                if not line.strip():
                    continue
                key, _, text = line.partition("\t")
                captions.setdefault(key.split("#")[0], []).append(text)
        items = []
        for name, texts in captions.items():
            path = os.path.join(root, name)
            if not os.path.isfile(path):
                raise RuntimeError(f"FlickrDataset: image {path!r} of the annotation file does not exist.")
            items.append((path, np.array(texts)))
        super().__init__(items, bool(decode), num_samples, num_parallel_workers, shuffle, sampler, num_shards,
                         shard_id)  # fmt: skip

    def get_col_names(self) -> list[str]:
        return ["image", "annotation"]


def _loadmat(path: str) -> dict:
    require_file(path, "MATLAB file")
    import scipy.io  # noqa: PLC0415  (SciPy comes with JAX; only these sources need it)

    return scipy.io.loadmat(path)


class SVHNDataset(SampledSource):
    """SVHN ({train,test,extra}_32x32.mat): "image" (32, 32, 3) uint8 and "label" uint32 (as stored: 10 is "0").

    Args:
        dataset_dir: the folder holding the .mat files.
        usage: "train", "test", "extra" or "all" (None: all).
        num_samples, num_parallel_workers, shuffle, sampler, num_shards, shard_id: as for MnistDataset.
    """

    def __init__(self, dataset_dir, usage=None, num_samples=None, num_parallel_workers=1, shuffle=None,
                 sampler=None, num_shards=None, shard_id=None) -> None:  # fmt: skip
        super().__init__(num_samples, shuffle, num_shards, shard_id, num_parallel_workers, sampler)
        root = _check_dir(dataset_dir, "SVHNDataset")
        usage = _check_usage(usage, ("train", "test", "extra", "all"), "SVHNDataset")
        parts = ["train", "test", "extra"] if usage == "all" else [usage]
        images, labels = [], []
        for p in parts:
            m = _loadmat(os.path.join(root, f"{p}_32x32.mat"))
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


class Flowers102Dataset(_ImageList):
    """Oxford Flowers 102 (jpg/, imagelabels.mat, setid.mat, segmim/): "image", ("segmentation",) "label" uint32
    (class - 1).

    Args:
        dataset_dir: the folder holding the files.
        task: "Classification" or "Segmentation".
        usage: "train", "valid", "test" or "all" (None: all).
        num_samples, num_parallel_workers, shuffle, decode, sampler, num_shards, shard_id: as for every source.
    """

    def __init__(self, dataset_dir, task="Classification", usage="all", num_samples=None, num_parallel_workers=1,
                 shuffle=None, decode=False, sampler=None, num_shards=None, shard_id=None) -> None:  # fmt: skip
        root = _check_dir(dataset_dir, "Flowers102Dataset")
        if task not in ("Classification", "Segmentation"):
            raise ValueError(f"Flowers102Dataset: task must be 'Classification' or 'Segmentation', got {task!r}.")
        usage = _check_usage(usage, ("train", "valid", "test", "all"), "Flowers102Dataset")
        labels = _loadmat(os.path.join(root, "imagelabels.mat"))["labels"].reshape(-1)
        sets = _loadmat(os.path.join(root, "setid.mat"))
        keys = {"train": "trnid", "valid": "valid", "test": "tstid"}
        parts = ["train", "test", "valid"] if usage == "all" else [usage]
        ids = [int(i) for p in parts for i in sets[keys[p]].reshape(-1)]
        items = [(i, np.array(int(labels[i - 1]) - 1, np.uint32)) for i in ids]
        super().__init__(items, decode, num_samples, num_parallel_workers, shuffle, sampler, num_shards, shard_id)
        self._root, self._task = root, task

    def get_col_names(self) -> list[str]:
        return ["image", "label"] if self._task == "Classification" else ["image", "segmentation", "label"]

    def _read(self, index: int) -> tuple:
        i, label = self._items[index]
        image = self._image(os.path.join(self._root, "jpg", f"image_{i:05d}.jpg"))
        if self._task == "Classification":
            return image, label
        return image, self._image(os.path.join(self._root, "segmim", f"segmim_{i:05d}.jpg")), label


class SBDataset(SampledSource):
    """Semantic Boundaries Dataset (img/*.jpg, cls/*.mat): "image" and "task": Boundaries uint8 (20, H, W) (one
    dense map per class) or Segmentation uint8 (H, W).

    Args:
        dataset_dir: the folder holding img/, cls/ and the usage lists.
        task: "Boundaries" or "Segmentation".
        usage: "train", "val", "train_noval" or "all".
        num_samples, num_parallel_workers, shuffle, decode, sampler, num_shards, shard_id: as for every source.
    """

    def __init__(self, dataset_dir, task="Boundaries", usage="all", num_samples=None, num_parallel_workers=1,
                 shuffle=None, decode=None, sampler=None, num_shards=None, shard_id=None) -> None:  # fmt: skip
        super().__init__(num_samples, shuffle, num_shards, shard_id, num_parallel_workers, sampler)
        root = _check_dir(dataset_dir, "SBDataset")
        if task not in ("Boundaries", "Segmentation"):
            raise ValueError(f"SBDataset: task must be 'Boundaries' or 'Segmentation', but got {task!r}.")
        usage = _check_usage(usage, ("train", "val", "train_noval", "all"), "SBDataset")
        parts = ["train", "val"] if usage == "all" else [usage]
        ids = []
        for p in parts:
            listing = os.path.join(root, f"{p}.txt")
            require_file(listing, "SBD list")
            with open(listing, encoding="utf-8") as f:
                ids += [ln.strip() for ln in f if ln.strip()]
        self._root, self._task, self._ids, self._decode = root, task, ids, bool(decode)

    def get_col_names(self) -> list[str]:
        return ["image", "task"]

    def _num_rows(self) -> int:
        return len(self._ids)

    def _read(self, index: int) -> tuple:
        name = self._ids[index]
        with open(os.path.join(self._root, "img", f"{name}.jpg"), "rb") as f:
            raw = np.frombuffer(f.read(), dtype=np.uint8)
        image = decode(raw) if self._decode else raw
        gt = _loadmat(os.path.join(self._root, "cls", f"{name}.mat"))["GTcls"][0, 0]
        if self._task == "Segmentation":
            return image, np.asarray(gt["Segmentation"], dtype=np.uint8)
        maps = [np.asarray(b.toarray() if hasattr(b, "toarray") else b, dtype=np.uint8) for b in gt["Boundaries"][:, 0]]
        return image, np.stack(maps)


class Places365Dataset(_ImageList):
    """Places365: "image" and "label" uint32, from the places365_{train_standard,train_challenge,val}.txt lists.

    Args:
        dataset_dir: the folder holding the lists and the image folders.
        usage: "train-standard", "train-challenge" or "val" (None: train-standard).
        small: the 256x256 images (data_256_*, val_256) instead of the large ones (data_large_*, val_large).
        decode: decode the images.
        num_samples, num_parallel_workers, shuffle, sampler, num_shards, shard_id: as for every source.
    """

    def __init__(self, dataset_dir, usage=None, small=True, decode=False, num_samples=None,
                 num_parallel_workers=None, shuffle=None, sampler=None, num_shards=None, shard_id=None,
                 cache=None) -> None:  # fmt: skip
        root = _check_dir(dataset_dir, "Places365Dataset")
        usage = usage or "train-standard"
        lists = {"train-standard": "places365_train_standard.txt", "train-challenge": "places365_train_challenge.txt",
                 "val": "places365_val.txt"}  # fmt: skip
        if usage not in lists:
            raise ValueError(f"Places365Dataset: usage must be one of {sorted(lists)}, but got {usage!r}.")
        size = "256" if small else "large"
        folder = f"val_{size}" if usage == "val" else f"data_{size}_{usage.split('-')[1]}"
        listing = os.path.join(root, lists[usage])
        require_file(listing, "Places365 list")
        items = []
        with open(listing, encoding="utf-8") as f:
            for line in f:
                parts = line.split()
                if len(parts) >= 2:
                    items.append((os.path.join(root, folder, parts[0].lstrip("/")), np.array(int(parts[1]), np.uint32)))
        super().__init__(items, decode, num_samples, num_parallel_workers, shuffle, sampler, num_shards, shard_id)

    def get_col_names(self) -> list[str]:
        return ["image", "label"]


class LFWDataset(_ImageList):
    """Labeled Faces in the Wild.

    task="people": "image" and "label" uint32 (the person's line in lfw-names.txt); task="pairs": "image1",
    "image2" and "label" uint32 (1 same person, 0 different), from the LFW list files.

    Args:
        dataset_dir: the folder holding the image folders and the list files.
        task: "people" or "pairs".
        usage: "train" (peopleDevTrain/pairsDevTrain), "test" (...DevTest), "10fold" (people.txt/pairs.txt) or
            "all" (train and test).
        image_set: "original" (lfw/), "funneled" (lfw_funneled/) or "deepfunneled" (lfw-deepfunneled/).
        num_samples, num_parallel_workers, shuffle, decode, sampler, num_shards, shard_id: as for every source.
    """

    _SETS = {"original": "lfw", "funneled": "lfw_funneled", "deepfunneled": "lfw-deepfunneled"}

    def __init__(self, dataset_dir, task=None, usage=None, image_set=None, num_samples=None,
                 num_parallel_workers=None, shuffle=None, decode=False, sampler=None, num_shards=None,
                 shard_id=None, cache=None) -> None:  # fmt: skip
        root = _check_dir(dataset_dir, "LFWDataset")
        task, usage, image_set = task or "people", usage or "all", image_set or "original"
        if task not in ("people", "pairs"):
            raise ValueError(f"LFWDataset: task must be 'people' or 'pairs', but got {task!r}.")
        if usage not in ("train", "test", "10fold", "all"):
            raise ValueError(f"LFWDataset: usage must be 'train', 'test', '10fold' or 'all', but got {usage!r}.")
        if image_set not in self._SETS:
            raise ValueError(f"LFWDataset: image_set must be one of {sorted(self._SETS)}, but got {image_set!r}.")
        self._folder = os.path.join(root, self._SETS[image_set])
        names_path = os.path.join(root, "lfw-names.txt")
        require_file(names_path, "LFW names file")
        with open(names_path, encoding="utf-8") as f:
            self._label = {ln.split()[0]: k for k, ln in enumerate(x for x in f if x.strip())}
        stem = "people" if task == "people" else "pairs"
        files = {"train": [f"{stem}DevTrain.txt"], "test": [f"{stem}DevTest.txt"], "10fold": [f"{stem}.txt"],
                 "all": [f"{stem}DevTrain.txt", f"{stem}DevTest.txt"]}[usage]  # fmt: skip
        items = []
        for name in files:
            path = os.path.join(root, name)
            require_file(path, "LFW list file")
            with open(path, encoding="utf-8") as f:
                lines = [ln.split() for ln in f if ln.strip()]
            items += self._people(lines, usage == "10fold") if task == "people" else self._pairs(lines)
        self._task = task
        super().__init__(items, decode, num_samples, num_parallel_workers, shuffle, sampler, num_shards, shard_id)

    def _path(self, name: str, k) -> str:
        return os.path.join(self._folder, name, f"{name}_{int(k):04d}.jpg")

    def _people(self, lines, folds: bool) -> list:
        entries, k = [], 1
        groups = int(lines[0][0]) if folds else 1
        for _ in range(groups):
            count = int(lines[k][0]) if folds else int(lines[0][0])
            k += 1 if folds else 0
            for name, n in (ln[:2] for ln in lines[k : k + count]):
                entries += [(self._path(name, i), np.array(self._label[name], np.uint32)) for i in range(1, int(n) + 1)]
            k += count
        return entries

    def _pairs(self, lines) -> list:
        head = lines[0]
        folds, n = (int(head[0]), int(head[1])) if len(head) > 1 else (1, int(head[0]))
        entries, k = [], 1
        for _ in range(folds):
            for ln in lines[k : k + n]:
                entries.append(((self._path(ln[0], ln[1]), self._path(ln[0], ln[2])), np.array(1, np.uint32)))
            k += n
            for ln in lines[k : k + n]:
                entries.append(((self._path(ln[0], ln[1]), self._path(ln[2], ln[3])), np.array(0, np.uint32)))
            k += n
        return entries

    def get_col_names(self) -> list[str]:
        return ["image", "label"] if self._task == "people" else ["image1", "image2", "label"]

    def _read(self, index: int) -> tuple:
        path, label = self._items[index]
        if self._task == "people":
            return self._image(path), label
        return self._image(path[0]), self._image(path[1]), label


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

    def __init__(self, dataset_dir, name, usage=None, num_samples=None, num_parallel_workers=None, shuffle=None,
                 sampler=None, num_shards=None, shard_id=None, cache=None) -> None:  # fmt: skip
        super().__init__(num_samples, shuffle, num_shards, shard_id, num_parallel_workers, sampler)
        root = _check_dir(dataset_dir, "PhotoTourDataset")
        if name not in self._NAMES:
            raise ValueError(f"PhotoTourDataset: name must be one of {self._NAMES}, but got {name!r}.")
        usage = usage or "train"
        if usage not in ("train", "test"):
            raise ValueError(f"PhotoTourDataset: usage must be 'train' or 'test', but got {usage!r}.")
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
            from PIL import Image  # noqa: PLC0415

            with Image.open(os.path.join(self._dir, self._sheets[sheet])) as im:
                self._cache_sheets[sheet] = np.asarray(im.convert("L"))
        r, c = divmod(k, 16)
        return self._cache_sheets[sheet][r * 64 : (r + 1) * 64, c * 64 : (c + 1) * 64, None].copy()

    def _read(self, index: int) -> tuple:
        row = self._entries[index]
        if self._usage == "train":
            return (self._patch(row[0]),)
        return self._patch(row[0]), self._patch(row[1]), np.array(row[2], np.uint32)
