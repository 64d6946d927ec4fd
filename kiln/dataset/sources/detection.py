"""Images with annotations: VOC and COCO (boxes, segmentation), KITTI and WIDERFace (boxes), SBD (boundaries
and segmentation) and DIV2K (super-resolution pairs), with the columns and dtypes of MindSpore 2.10."""

from __future__ import annotations

import json
import os
import warnings
import xml.etree.ElementTree as ET

import numpy as np

from kiln.dataset.sources.base import MAPPABLE_SHARED, SampledSource, check_dir, check_usage, loadmat, require_file
from kiln.dataset.vision.functional import decode


def _warn_extra_metadata(extra_metadata, what: str) -> None:
    # MindSpore adds a "_meta-filename" column that its iterators hide unless a rename exposes it: the rows
    # read are the same, a rename of that column is not, so the difference is said once.
    if extra_metadata:
        warnings.warn(
            f"{what}: extra_metadata=True has no effect in Kiln: there is no '_meta-filename' column to rename; "
            "the image file names are in the dataset's annotation lists.",
            UserWarning,
            stacklevel=5,  # the caller of the source's constructor
        )


class VOCDataset(SampledSource):
    """PASCAL VOC.

    task="Detection": columns "image", "bbox" float32 (N, 4) as (xmin, ymin, width, height), "label",
    "difficult", "truncate" uint32 (N, 1). task="Segmentation": "image" and "target" (the SegmentationClass PNG).

    Args:
        dataset_dir: the VOC folder (Annotations/, ImageSets/, JPEGImages/, SegmentationClass/).
        task: "Detection" or "Segmentation".
        usage: the ImageSets list to read ("train", "val", "trainval", ...).
        class_indexing: class name -> label for Detection (default: the sorted class names of the annotations).
        num_samples, num_parallel_workers, shuffle, sampler, num_shards, shard_id: as for every source.
        decode: decode the images.
        extra_metadata: True warns: MindSpore's hidden "_meta-filename" column is not produced (rows without
            a rename that exposes it are the same).
        decrypt: a callable taking an image file's path and returning its decrypted bytes (None: read as is).
    """

    _SHARED = (*MAPPABLE_SHARED, "decrypt")
    _AFTER = {"decode": "shuffle", "extra_metadata": "cache"}
    _DECRYPTS = True

    def _open(
        self, dataset_dir, task="Segmentation", usage="train", class_indexing=None, decode=False, extra_metadata=False
    ) -> None:
        root = check_dir(dataset_dir, "VOCDataset")
        _warn_extra_metadata(extra_metadata, "VOCDataset")
        self._check_choice("task", task, ("Detection", "Segmentation"))
        if task == "Segmentation" and class_indexing:
            raise ValueError("VOCDataset: class_indexing is only for task='Detection'.")
        if class_indexing is not None and not isinstance(class_indexing, dict):
            raise TypeError(f"VOCDataset: class_indexing must be a dict, but got {type(class_indexing).__name__}.")
        sub = "Main" if task == "Detection" else "Segmentation"
        listing = os.path.join(root, "ImageSets", sub, f"{usage}.txt")
        require_file(listing, "VOC image list")
        with open(listing, encoding="utf-8") as f:
            ids = [ln.strip() for ln in f if ln.strip()]
        self._root, self._task, self._decode = root, task, bool(decode)
        if task == "Segmentation":
            self._items = ids
            self._indexing = {}
            return
        items, names = [], set()
        for i in ids:
            objects = self._parse(os.path.join(root, "Annotations", f"{i}.xml"))
            names.update(o[0] for o in objects)
            items.append((i, objects))
        self._indexing = dict(class_indexing) if class_indexing else {n: k for k, n in enumerate(sorted(names))}
        for i, objects in items:
            unknown = [o[0] for o in objects if o[0] not in self._indexing]
            if unknown:
                raise RuntimeError(f"VOCDataset: annotation {i}.xml has classes {unknown} missing from class_indexing.")
        self._items = items

    @staticmethod
    def _parse(path: str) -> list[tuple]:
        require_file(path, "VOC annotation")
        try:
            root = ET.parse(path).getroot()
        except ET.ParseError as exc:
            raise RuntimeError(f"VOCDataset: {path!r} is not valid XML: {exc}.") from None
        objects = []
        for obj in root.iter("object"):
            box = obj.find("bndbox")
            if box is None:
                continue
            xmin, ymin, xmax, ymax = (float(box.findtext(k, "0")) for k in ("xmin", "ymin", "xmax", "ymax"))
            if xmax <= xmin or ymax <= ymin:
                raise RuntimeError(f"VOCDataset: {path!r} has an invalid box ({xmin}, {ymin}, {xmax}, {ymax}).")
            objects.append(
                (
                    obj.findtext("name", "").strip(),
                    [xmin, ymin, xmax - xmin, ymax - ymin],
                    int(float(obj.findtext("difficult", "0") or 0)),
                    int(float(obj.findtext("truncated", "0") or 0)),
                )
            )
        if not objects:
            raise RuntimeError(f"VOCDataset: {path!r} has no object with a bounding box.")
        return objects

    def get_col_names(self) -> list[str]:
        if self._task == "Segmentation":
            return ["image", "target"]
        return ["image", "bbox", "label", "difficult", "truncate"]

    def get_class_indexing(self) -> dict:
        if self._task != "Detection":
            raise RuntimeError("VOCDataset: get_class_indexing is only for task='Detection'.")
        return dict(self._indexing)

    def _num_rows(self) -> int:
        return len(self._items)

    def _image(self, name: str) -> np.ndarray:
        raw = self._image_file(os.path.join(self._root, "JPEGImages", f"{name}.jpg"))
        return decode(raw) if self._decode else raw

    def _read(self, index: int) -> tuple:
        if self._task == "Segmentation":
            name = self._items[index]
            target = self._image_file(os.path.join(self._root, "SegmentationClass", f"{name}.png"))
            return self._image(name), (decode(target) if self._decode else target)
        name, objects = self._items[index]
        col = lambda values: np.array(values, dtype=np.uint32).reshape(-1, 1)  # noqa: E731
        return (
            self._image(name),
            np.array([o[1] for o in objects], dtype=np.float32).reshape(-1, 4),
            col([self._indexing[o[0]] for o in objects]),
            col([o[2] for o in objects]),
            col([o[3] for o in objects]),
        )


class CocoDataset(SampledSource):
    """COCO, one row per image of the annotation file.

    Columns by task: Detection "image", "bbox" float32 (N, 4), "category_id", "iscrowd" uint32 (N, 1);
    Stuff "image", "segmentation" float32 (polygons, max points, -1 padded), "iscrowd" (N, 1);
    Keypoint "image", "keypoints" float32 (N, 51), "num_keypoints" uint32 (N, 1);
    Panoptic "image", "bbox", "category_id", "iscrowd", "area";
    Captioning "image", "captions" str (N, 1).

    Args:
        dataset_dir: the folder holding the images.
        annotation_file: the COCO JSON file.
        task: "Detection", "Stuff", "Keypoint", "Panoptic" or "Captioning".
        num_samples, num_parallel_workers, shuffle, sampler, num_shards, shard_id: as for every source.
        decode: decode the images.
        extra_metadata: True warns: MindSpore's hidden "_meta-filename" column is not produced (rows without
            a rename that exposes it are the same).
        decrypt: a callable taking an image file's path and returning its decrypted bytes (None: read as is).
    """

    _TASKS = ("Detection", "Stuff", "Keypoint", "Panoptic", "Captioning")

    _SHARED = (*MAPPABLE_SHARED, "decrypt")
    _AFTER = {"decode": "shuffle", "extra_metadata": "cache"}
    _DECRYPTS = True

    def _open(self, dataset_dir, annotation_file, task="Detection", decode=False, extra_metadata=False) -> None:
        root = check_dir(dataset_dir, "CocoDataset")
        _warn_extra_metadata(extra_metadata, "CocoDataset")
        if task not in self._TASKS:
            raise ValueError(f"CocoDataset: task must be one of {self._TASKS}, but got {task!r}.")
        require_file(annotation_file, "COCO annotation file")
        with open(annotation_file, encoding="utf-8") as f:
            try:
                data = json.load(f)
            except json.JSONDecodeError as exc:
                raise RuntimeError(f"CocoDataset: {annotation_file!r} is not valid JSON: {exc}.") from None
        self._root, self._task, self._decode = root, task, bool(decode)
        images = data.get("images", [])
        by_image: dict = {img["id"]: [] for img in images}
        for ann in data.get("annotations", []):
            if ann["image_id"] not in by_image:
                raise RuntimeError(f"CocoDataset: an annotation refers to image id {ann['image_id']}, not in images.")
            by_image[ann["image_id"]].append(ann)
        self._items = [(img["file_name"], by_image[img["id"]]) for img in images]
        cats = data.get("categories", [])
        ids = {c["id"] for c in cats}
        if task in ("Detection", "Panoptic"):
            for _, anns in self._items:
                for ann in anns if task == "Detection" else [s for a in anns for s in a.get("segments_info", [])]:
                    if ann["category_id"] not in ids:
                        raise RuntimeError(f"CocoDataset: category_id {ann['category_id']} is not in categories.")
        if task == "Detection":
            self._indexing = {c["name"]: [c["id"]] for c in cats}
        elif task == "Panoptic":
            self._indexing = {c["name"]: [c["id"], c.get("isthing", 0)] for c in cats}
        else:
            self._indexing = None

    def get_col_names(self) -> list[str]:
        return {
            "Detection": ["image", "bbox", "category_id", "iscrowd"],
            "Stuff": ["image", "segmentation", "iscrowd"],
            "Keypoint": ["image", "keypoints", "num_keypoints"],
            "Panoptic": ["image", "bbox", "category_id", "iscrowd", "area"],
            "Captioning": ["image", "captions"],
        }[self._task]

    def get_class_indexing(self) -> dict:
        if self._indexing is None:
            raise RuntimeError("CocoDataset: get_class_indexing is only for task='Detection' or 'Panoptic'.")
        return {k: list(v) for k, v in self._indexing.items()}

    def _num_rows(self) -> int:
        return len(self._items)

    def _read(self, index: int) -> tuple:
        file_name, anns = self._items[index]
        raw = self._image_file(os.path.join(self._root, file_name))
        image = decode(raw) if self._decode else raw
        col = lambda values: np.array(values, dtype=np.uint32).reshape(-1, 1)  # noqa: E731
        if self._task == "Detection":
            bbox = np.array([a["bbox"] for a in anns], dtype=np.float32).reshape(-1, 4)
            return image, bbox, col([a["category_id"] for a in anns]), col([a.get("iscrowd", 0) for a in anns])
        if self._task == "Stuff":
            polys = []
            for a in anns:
                seg = a.get("segmentation", [])
                if isinstance(seg, dict):
                    polys.append([float(v) for v in seg.get("counts", [])])
                else:
                    polys += [[float(v) for v in p] for p in seg]  # one row per polygon, as MindSpore
            width = max((len(p) for p in polys), default=0)
            seg = np.full((len(polys), width), -1.0, dtype=np.float32)
            for k, p in enumerate(polys):
                seg[k, : len(p)] = p
            return image, seg, col([a.get("iscrowd", 0) for a in anns])
        if self._task == "Keypoint":
            kp = np.array([a["keypoints"] for a in anns], dtype=np.float32).reshape(len(anns), -1)
            return image, kp, col([a["num_keypoints"] for a in anns])
        if self._task == "Panoptic":
            segs = [s for a in anns for s in a.get("segments_info", [])]
            bbox = np.array([s["bbox"] for s in segs], dtype=np.float32).reshape(-1, 4)
            return (image, bbox, col([s["category_id"] for s in segs]), col([s.get("iscrowd", 0) for s in segs]),
                    col([s["area"] for s in segs]))  # fmt: skip
        return image, np.array([a["caption"] for a in anns]).reshape(-1, 1)


class KITTIDataset(SampledSource):
    """KITTI object detection (data_object_image_2/{training,testing}/image_2, data_object_label_2/.../label_2).

    train columns: "image", "label" uint32 (N, 1) (class index: the class names of all label files in name
    order), "truncated" float32, "occluded" uint32 (-1 wraps as MindSpore's), "alpha" float32 (N, 1), "bbox"
    float32 (N, 4), "dimensions", "location" float32 (N, 3), "rotation_y" float32 (N, 1). test: "image" only.

    Args:
        dataset_dir: the KITTI folder.
        usage: "train" or "test".
        num_samples, num_parallel_workers, shuffle, decode, sampler, num_shards, shard_id: as for every source.
    """

    _AFTER = {"decode": "shuffle"}

    def _open(self, dataset_dir, usage="train", decode=False) -> None:
        root = check_dir(dataset_dir, "KITTIDataset")
        self._check_choice("usage", usage, ("train", "test"))
        part = "training" if usage == "train" else "testing"
        img_dir = os.path.join(root, "data_object_image_2", part, "image_2")
        check_dir(img_dir, "KITTIDataset")
        names = sorted(os.path.splitext(f)[0] for f in os.listdir(img_dir) if f.lower().endswith(".png"))
        self._img_dir, self._usage, self._decode = img_dir, usage, bool(decode)
        self._items = [(n, None) for n in names]
        if usage == "train":
            label_dir = os.path.join(root, "data_object_label_2", part, "label_2")
            items, classes = [], set()
            for n in names:
                path = os.path.join(label_dir, f"{n}.txt")
                require_file(path, "KITTI label file")
                with open(path, encoding="utf-8") as f:
                    objs = [ln.split() for ln in f if ln.strip()]
                classes.update(o[0] for o in objs)
                items.append((n, objs))
            self._classes = {c: k for k, c in enumerate(sorted(classes))}
            self._items = items

    def get_col_names(self) -> list[str]:
        if self._usage == "test":
            return ["image"]
        return ["image", "label", "truncated", "occluded", "alpha", "bbox", "dimensions", "location", "rotation_y"]

    def _num_rows(self) -> int:
        return len(self._items)

    def _read(self, index: int) -> tuple:
        name, objs = self._items[index]
        raw = self._image_file(os.path.join(self._img_dir, f"{name}.png"))
        image = decode(raw) if self._decode else raw
        if objs is None:
            return (image,)
        num = np.array([[float(v) for v in o[1:15]] for o in objs], dtype=np.float64).reshape(-1, 14)
        f32 = lambda a: a.astype(np.float32)  # noqa: E731
        return (
            image,
            np.array([self._classes[o[0]] for o in objs], dtype=np.uint32).reshape(-1, 1),
            f32(num[:, 0:1]),
            num[:, 1:2].astype(np.int64).astype(np.uint32),
            f32(num[:, 2:3]),
            f32(num[:, 3:7]),
            f32(num[:, 7:10]),
            f32(num[:, 10:13]),
            f32(num[:, 13:14]),
        )


class WIDERFaceDataset(SampledSource):
    """WIDER FACE: "image" and, for train/valid, "bbox" int32 (N, 4) and the per-face attributes "blur",
    "expression", "illumination", "occlusion", "pose", "invalid" int32 (N,); test has "image" only.

    Args:
        dataset_dir: the folder holding WIDER_{train,val,test}/images and wider_face_split/.
        usage: "train", "test", "valid" or "all" (None: all = train and valid).
        num_samples, num_parallel_workers, shuffle, decode, sampler, num_shards, shard_id: as for every source.
    """

    _ATTRS = ("blur", "expression", "illumination", "occlusion", "pose", "invalid")  # columns 5-10 of a face line

    _AFTER = {"decode": "shuffle"}

    def _open(self, dataset_dir, usage=None, decode=False) -> None:
        root = check_dir(dataset_dir, "WIDERFaceDataset")
        usage = "all" if usage is None else usage
        self._check_choice("usage", usage, ("train", "test", "valid", "all"))
        split = os.path.join(root, "wider_face_split")
        self._usage, self._decode, items = usage, bool(decode), []
        if usage == "test":
            listing = os.path.join(split, "wider_face_test_filelist.txt")
            require_file(listing, "WIDER FACE test list")
            with open(listing, encoding="utf-8") as f:
                items = [(os.path.join(root, "WIDER_test", "images", ln.strip()), None) for ln in f if ln.strip()]
        else:
            for part, folder in (("train", "WIDER_train"), ("val", "WIDER_val")):
                if usage not in ("all", "valid" if part == "val" else part):
                    continue
                gt = os.path.join(split, f"wider_face_{part}_bbx_gt.txt")
                require_file(gt, "WIDER FACE annotation file")
                with open(gt, encoding="utf-8") as f:
                    lines = [ln.strip() for ln in f]
                k = 0
                while k < len(lines):
                    if not lines[k]:
                        k += 1
                        continue
                    name, count = lines[k], int(lines[k + 1])
                    faces = [[int(v) for v in lines[k + 2 + j].split()[:10]] for j in range(count)]
                    k += 2 + max(count, 1)  # an image without faces still has one line of zeros
                    items.append((os.path.join(root, folder, "images", name), faces))
        self._items = items

    def get_col_names(self) -> list[str]:
        if self._usage == "test":
            return ["image"]
        return ["image", "bbox", "blur", "expression", "illumination", "occlusion", "pose", "invalid"]

    def _num_rows(self) -> int:
        return len(self._items)

    def _read(self, index: int) -> tuple:
        path, faces = self._items[index]
        raw = self._image_file(path)
        image = decode(raw) if self._decode else raw
        if faces is None:
            return (image,)
        arr = np.array(faces, dtype=np.int32).reshape(-1, 10)
        return (image, arr[:, :4].copy(), *(arr[:, 4 + k].copy() for k in range(6)))


class DIV2KDataset(SampledSource):
    """DIV2K super-resolution pairs: "hr_image" and "lr_image" (file bytes, or decoded with decode=True).

    Args:
        dataset_dir: the folder holding DIV2K_{train,valid}_HR/ and the LR folders.
        usage: "train", "valid" or "all".
        downgrade: "bicubic", "unknown", "mild", "difficult" or "wild".
        scale: 2, 3, 4 or 8 (8 with bicubic only; mild/difficult/wild are 4 only).
        num_samples, num_parallel_workers, shuffle, decode, sampler, num_shards, shard_id: as for every source.
    """

    _AFTER = {"decode": "shuffle"}

    def _open(self, dataset_dir, usage="train", downgrade="bicubic", scale=2, decode=None) -> None:
        root = check_dir(dataset_dir, "DIV2KDataset")
        self._check_choice("usage", usage, ("train", "valid", "all"))
        if downgrade not in ("bicubic", "unknown", "mild", "difficult", "wild"):
            raise ValueError(f"DIV2KDataset: unknown downgrade {downgrade!r}.")
        self._check_choice("scale", scale, (2, 3, 4, 8))
        if scale == 8 and downgrade != "bicubic":
            raise ValueError("DIV2KDataset: scale 8 exists for downgrade 'bicubic' only.")
        if downgrade in ("mild", "difficult", "wild") and scale != 4:
            raise ValueError(f"DIV2KDataset: downgrade {downgrade!r} exists for scale 4 only.")
        items = []
        for part in ("train", "valid") if usage == "all" else (usage,):
            hr_dir = os.path.join(root, f"DIV2K_{part}_HR")
            check_dir(hr_dir, "DIV2KDataset")
            for f in sorted(os.listdir(hr_dir)):
                stem = os.path.splitext(f)[0]
                if scale == 8:
                    lr = os.path.join(root, f"DIV2K_{part}_LR_x8", f"{stem}x8.png")
                elif downgrade in ("mild", "difficult", "wild"):
                    lr = os.path.join(root, f"DIV2K_{part}_LR_{downgrade}", f"{stem}x4{downgrade[0]}.png")
                else:
                    lr = os.path.join(root, f"DIV2K_{part}_LR_{downgrade}", f"X{scale}", f"{stem}x{scale}.png")
                if not os.path.isfile(lr):
                    raise RuntimeError(f"DIV2KDataset: the low-resolution image {lr!r} of {f!r} does not exist.")
                items.append((os.path.join(hr_dir, f), lr))
        self._items, self._decode = items, bool(decode)

    def get_col_names(self) -> list[str]:
        return ["hr_image", "lr_image"]

    def _num_rows(self) -> int:
        return len(self._items)

    def _read(self, index: int) -> tuple:
        out = []
        for path in self._items[index]:
            raw = self._image_file(path)
            out.append(decode(raw) if self._decode else raw)
        return tuple(out)


class SBDataset(SampledSource):
    """Semantic Boundaries Dataset (img/*.jpg, cls/*.mat): "image" and "task": Boundaries uint8 (20, H, W) (one
    dense map per class) or Segmentation uint8 (H, W).

    Args:
        dataset_dir: the folder holding img/, cls/ and the usage lists.
        task: "Boundaries" or "Segmentation".
        usage: "train", "val", "train_noval" or "all".
        num_samples, num_parallel_workers, shuffle, decode, sampler, num_shards, shard_id: as for every source.
    """

    _SHARED = MAPPABLE_SHARED[:-1]  # MindSpore's signature has no cache
    _AFTER = {"decode": "shuffle"}
    _DEFAULTS = {"num_parallel_workers": 1}

    def _open(self, dataset_dir, task="Boundaries", usage="all", decode=None) -> None:
        root = check_dir(dataset_dir, "SBDataset")
        self._check_choice("task", task, ("Boundaries", "Segmentation"))
        usage = check_usage(usage, ("train", "val", "train_noval", "all"), "SBDataset")
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
        raw = self._image_file(os.path.join(self._root, "img", f"{name}.jpg"))
        image = decode(raw) if self._decode else raw
        gt = loadmat(os.path.join(self._root, "cls", f"{name}.mat"))["GTcls"][0, 0]
        if self._task == "Segmentation":
            return image, np.asarray(gt["Segmentation"], dtype=np.uint8)
        maps = [np.asarray(b.toarray() if hasattr(b, "toarray") else b, dtype=np.uint8) for b in gt["Boundaries"][:, 0]]
        return image, np.stack(maps)
