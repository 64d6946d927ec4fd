"""Image sources of encoded image files, listed by folder or by an annotation file: ImageFolderDataset,
Caltech101/256, ManifestDataset, CelebA, Omniglot, Food101, SUN397, RenderedSST2, Flickr, Flowers102,
Places365 and LFW. "image" is the file's bytes, or the decoded HWC uint8 image with `decode=True`.
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence

import numpy as np

from kiln.dataset.sources.base import MAPPABLE_SHARED, SampledSource, check_dir, check_usage, loadmat, require_file
from kiln.dataset.vision.functional import decode


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
        decrypt: a callable taking an image file's path and returning its decrypted bytes (None: read as is).

    Returns:
        A Dataset.
    """

    _SHARED = (*MAPPABLE_SHARED, "decrypt")
    _AFTER = {"extensions": "sampler", "class_indexing": "extensions", "decode": "class_indexing"}
    _DECRYPTS = True

    def _open(
        self,
        dataset_dir: str,
        extensions: Sequence[str] | None = None,
        class_indexing: dict[str, int] | None = None,
        decode: bool = False,
    ) -> None:
        root = check_dir(dataset_dir, "ImageFolderDataset")
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
        data = self._image_file(self._files[index])
        image = decode(data) if self._decode else data
        return image, np.array(self._label_arr[index])


class Caltech256Dataset(ImageFolderDataset):
    """Caltech-256: one folder per class ("001.ak47", ...); labels follow the sorted folder names.

    Columns "image" (file bytes, or decoded with `decode=True`) and "label".

    Args:
        dataset_dir: the root folder.
        num_samples, num_parallel_workers, shuffle, decode, sampler, num_shards, shard_id: as for
            ImageFolderDataset.
    """

    _SHARED = MAPPABLE_SHARED
    _AFTER = {"decode": "shuffle"}

    def _open(self, dataset_dir, decode=False) -> None:
        super()._open(dataset_dir, None, None, decode)


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

    _AFTER = {"class_indexing": "sampler", "decode": "class_indexing"}

    def _open(self, dataset_file, usage="train", class_indexing=None, decode=False) -> None:
        self._check_choice("usage", usage, ("train", "eval", "inference"))
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
        data = self._image_file(path)
        image = decode(data) if self._decode else data
        label = np.asarray(labels, dtype=np.uint64)
        return image, (label[0] if len(label) == 1 else label)


_IMAGE_EXTS = (".jpg", ".jpeg", ".png", ".bmp", ".tif", ".tiff")


class _ImageList(SampledSource):
    """Images listed as (path, label value) pairs; "image" is the file bytes or the decoded image."""

    _AFTER = {"decode": "shuffle"}  # where MindSpore puts `decode` in these sources' signatures

    def _start(self, own: dict, shared: dict) -> None:
        """`_open` checks the source's own arguments and returns the (path, label) items; then the shared ones."""
        items = self._open(**own)
        self._init_sampling(shared)
        self._items, self._decode = items, bool(own["decode"])

    def _num_rows(self) -> int:
        return len(self._items)

    def _image(self, path: str) -> np.ndarray:
        raw = self._image_file(path)
        return decode(raw) if self._decode else raw

    def _read(self, index: int) -> tuple:
        path, label = self._items[index]
        return self._image(path), label


def _sorted_images(folder: str) -> list[str]:
    return sorted(f for f in os.listdir(folder) if f.lower().endswith(_IMAGE_EXTS))


def _labelled_images(folder: str, label: int) -> list[tuple[str, np.ndarray]]:
    """(path, uint32 `label`) for each image file of `folder` in name order; none when the folder is missing."""
    if not os.path.isdir(folder):
        return []
    return [(os.path.join(folder, n), np.array(label, np.uint32)) for n in _sorted_images(folder)]


class Caltech101Dataset(_ImageList):
    """Caltech 101 (101_ObjectCategories/<class>/*.jpg): "image" (bytes, or decoded) and "category" int64 (the
    class folders in name order, BACKGROUND_Google excluded).

    Args:
        dataset_dir: the folder holding 101_ObjectCategories/.
        target_type: "category" (the annotation outlines are MATLAB files Kiln does not read: "annotation" and
            "all" raise NotImplementedError).
        num_samples, num_parallel_workers, shuffle, decode, sampler, num_shards, shard_id: as for every source.
    """

    _SHARED = MAPPABLE_SHARED[:-1]  # MindSpore's signature has no cache
    _DEFAULTS = {"num_parallel_workers": 1}

    def _open(self, dataset_dir, target_type=None, decode=False) -> list:
        root = check_dir(dataset_dir, "Caltech101Dataset")
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
        check_dir(base, "Caltech101Dataset")
        classes = sorted(
            c for c in os.listdir(base) if os.path.isdir(os.path.join(base, c)) and c != "BACKGROUND_Google"
        )
        items = [(os.path.join(base, c, f), np.array(k, np.int64)) for k, c in enumerate(classes)
                 for f in _sorted_images(os.path.join(base, c))]  # fmt: skip
        self._classes = classes
        return items

    def get_col_names(self) -> list[str]:
        return ["image", "category"]

    def get_class_indexing(self) -> dict:
        """Class folder -> category (for the full dataset, the 101 official names in MindSpore's order)."""
        return {c: k for k, c in enumerate(self._classes)}


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
        decrypt: a callable taking an image file's path and returning its decrypted bytes (None: read as is).
    """

    _PARTS = {"train": 0, "valid": 1, "test": 2}
    _DECRYPTS = True

    # MindSpore's order, which moves shared parameters too (num_samples comes after extensions).
    _ORDER = (
        "dataset_dir",
        "num_parallel_workers",
        "shuffle",
        "usage",
        "sampler",
        "decode",
        "extensions",
        "num_samples",
        "num_shards",
        "shard_id",
        "cache",
        "decrypt",
    )

    def _open(self, dataset_dir, usage="all", decode=False, extensions=None) -> None:
        root = check_dir(dataset_dir, "CelebADataset")
        usage = check_usage(usage, (*self._PARTS, "all"), "CelebADataset")
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
        raw = self._image_file(os.path.join(self._root, name))
        return (decode(raw) if self._decode else raw), attr


class OmniglotDataset(SampledSource):
    """Omniglot: "image" (file bytes, or decoded HWC uint8 with decode=True) and "label" int32, one label per
    character folder (alphabets and characters in name order).

    Args:
        dataset_dir: the folder holding images_background/ and images_evaluation/.
        background: the background set (True, default) or the evaluation set.
        decode: decode the images.
        num_samples, num_parallel_workers, shuffle, sampler, num_shards, shard_id, cache: as for MnistDataset.
    """

    _AFTER = {"decode": "shuffle", "background": "decode"}

    def _open(self, dataset_dir, decode=False, background=None) -> None:
        root = check_dir(dataset_dir, "OmniglotDataset")
        folder = os.path.join(root, "images_background" if background is None or background else "images_evaluation")
        check_dir(folder, "OmniglotDataset")
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
        raw = self._image_file(path)
        return (decode(raw) if self._decode else raw), np.array(label, np.int32)


class Food101Dataset(_ImageList):
    """Food-101 (images/<class>/<id>.jpg listed in meta/{train,test}.txt): "image" and "label" (the class name).

    Args:
        dataset_dir: the folder holding images/ and meta/.
        usage: "train", "test" or "all" (None: all).
        num_samples, num_parallel_workers, shuffle, decode, sampler, num_shards, shard_id: as for every source.
    """

    def _open(self, dataset_dir, usage=None, decode=False) -> list:
        root = check_dir(dataset_dir, "Food101Dataset")
        usage = check_usage(usage, ("train", "test", "all"), "Food101Dataset")
        parts = ["test", "train"] if usage == "all" else [usage]
        items = []
        for p in parts:
            listing = os.path.join(root, "meta", f"{p}.txt")
            require_file(listing, "Food101 list")
            with open(listing, encoding="utf-8") as f:
                names = sorted(ln.strip() for ln in f if ln.strip())
            items += [(os.path.join(root, "images", n + ".jpg"), np.array(n.split("/")[0])) for n in names]
        return items

    def get_col_names(self) -> list[str]:
        return ["image", "label"]


class SUN397Dataset(_ImageList):
    """SUN397 (classes listed in ClassName.txt as /a/abbey ...): "image" and "label" uint32 (the class's line).

    Args:
        dataset_dir: the folder holding ClassName.txt and the class folders.
        num_samples, num_parallel_workers, shuffle, decode, sampler, num_shards, shard_id: as for every source.
    """

    def _open(self, dataset_dir, decode=False) -> list:
        root = check_dir(dataset_dir, "SUN397Dataset")
        listing = os.path.join(root, "ClassName.txt")
        require_file(listing, "SUN397 class list")
        with open(listing, encoding="utf-8") as f:
            classes = [ln.strip().lstrip("/") for ln in f if ln.strip()]
        return [item for k, c in enumerate(classes) for item in _labelled_images(os.path.join(root, *c.split("/")), k)]

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

    def _open(self, dataset_dir, usage=None, decode=False) -> list:
        root = check_dir(dataset_dir, "RenderedSST2Dataset")
        usage = check_usage(usage, ("train", "val", "test", "all"), "RenderedSST2Dataset")
        folders = {"train": "train", "val": "valid", "test": "test"}
        parts = ["test", "train", "val"] if usage == "all" else [usage]
        return [
            item
            for p in parts
            for k, cls in enumerate(("negative", "positive"))
            for item in _labelled_images(os.path.join(root, folders[p], cls), k)
        ]

    def get_col_names(self) -> list[str]:
        return ["image", "label"]


class FlickrDataset(_ImageList):
    """Flickr8k / Flickr30k: "image" and "annotation" (the 1-D str array of the image's captions, in file order).

    Args:
        dataset_dir: the folder holding the images.
        annotation_file: the token file ("<image>#<k>\\t<caption>" lines).
        num_samples, num_parallel_workers, shuffle, decode, sampler, num_shards, shard_id: as for every source.
    """

    def _open(self, dataset_dir, annotation_file, decode=None) -> list:
        root = check_dir(dataset_dir, "FlickrDataset")
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
        return items

    def get_col_names(self) -> list[str]:
        return ["image", "annotation"]


class Flowers102Dataset(_ImageList):
    """Oxford Flowers 102 (jpg/, imagelabels.mat, setid.mat, segmim/): "image", ("segmentation",) "label" uint32
    (class - 1).

    Args:
        dataset_dir: the folder holding the files.
        task: "Classification" or "Segmentation".
        usage: "train", "valid", "test" or "all" (None: all).
        num_samples, num_parallel_workers, shuffle, decode, sampler, num_shards, shard_id: as for every source.
    """

    _SHARED = MAPPABLE_SHARED[:-1]  # MindSpore's signature has no cache
    _DEFAULTS = {"num_parallel_workers": 1}

    def _open(self, dataset_dir, task="Classification", usage="all", decode=False) -> list:
        root = check_dir(dataset_dir, "Flowers102Dataset")
        self._check_choice("task", task, ("Classification", "Segmentation"))
        usage = check_usage(usage, ("train", "valid", "test", "all"), "Flowers102Dataset")
        labels = loadmat(os.path.join(root, "imagelabels.mat"))["labels"].reshape(-1)
        sets = loadmat(os.path.join(root, "setid.mat"))
        keys = {"train": "trnid", "valid": "valid", "test": "tstid"}
        parts = ["train", "test", "valid"] if usage == "all" else [usage]
        ids = [int(i) for p in parts for i in sets[keys[p]].reshape(-1)]
        items = [(i, np.array(int(labels[i - 1]) - 1, np.uint32)) for i in ids]
        self._root, self._task = root, task
        return items

    def get_col_names(self) -> list[str]:
        return ["image", "label"] if self._task == "Classification" else ["image", "segmentation", "label"]

    def _read(self, index: int) -> tuple:
        i, label = self._items[index]
        image = self._image(os.path.join(self._root, "jpg", f"image_{i:05d}.jpg"))
        if self._task == "Classification":
            return image, label
        return image, self._image(os.path.join(self._root, "segmim", f"segmim_{i:05d}.jpg")), label


class Places365Dataset(_ImageList):
    """Places365: "image" and "label" uint32, from the places365_{train_standard,train_challenge,val}.txt lists.

    Args:
        dataset_dir: the folder holding the lists and the image folders.
        usage: "train-standard", "train-challenge" or "val" (None: train-standard).
        small: the 256x256 images (data_256_*, val_256) instead of the large ones (data_large_*, val_large).
        decode: decode the images.
        num_samples, num_parallel_workers, shuffle, sampler, num_shards, shard_id: as for every source.
    """

    _AFTER = {}  # `decode` comes before the shared parameters here

    def _open(self, dataset_dir, usage=None, small=True, decode=False) -> list:
        root = check_dir(dataset_dir, "Places365Dataset")
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
        return items

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

    def _open(self, dataset_dir, task=None, usage=None, image_set=None, decode=False) -> list:
        root = check_dir(dataset_dir, "LFWDataset")
        task, usage, image_set = task or "people", usage or "all", image_set or "original"
        self._check_choice("task", task, ("people", "pairs"))
        self._check_choice("usage", usage, ("train", "test", "10fold", "all"))
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
        return items

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
