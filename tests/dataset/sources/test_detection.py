"""Detection, segmentation and super-resolution sources (VOC, COCO, KITTI, DIV2K, WIDERFace, SBD) on small
files written here (layouts checked against MindSpore 2.10 on MindSpore's test data: box format, label order,
dtypes and shapes of every task)."""

import json
import os

import numpy as np
import pytest
import scipy.io
from PIL import Image

import kiln.dataset as ds
from tests.dataset.helpers import write_image


def _rows(d):
    return list(d.create_tuple_iterator(num_epochs=1, output_numpy=True))


def _voc(root):
    for sub in ("Annotations", "ImageSets/Main", "ImageSets/Segmentation", "JPEGImages", "SegmentationClass"):
        os.makedirs(root / sub)
    objs = {"1": [("dog", 10, 20, 50, 60, 0, 1)], "2": [("cat", 1, 2, 3, 4, 1, 0), ("dog", 5, 5, 9, 9, 0, 0)]}
    for name, objects in objs.items():
        body = "".join(
            f"<object><name>{n}</name><truncated>{t}</truncated><difficult>{d}</difficult><bndbox><xmin>{x0}</xmin>"
            f"<ymin>{y0}</ymin><xmax>{x1}</xmax><ymax>{y1}</ymax></bndbox></object>"
            for n, x0, y0, x1, y1, d, t in objects
        )
        (root / "Annotations" / f"{name}.xml").write_text(
            f"<annotation><filename>{name}.jpg</filename>{body}</annotation>"
        )
        Image.fromarray(np.full((8, 6, 3), 100, np.uint8)).save(root / "JPEGImages" / f"{name}.jpg")
        Image.fromarray(np.full((8, 6, 3), 7, np.uint8)).save(root / "SegmentationClass" / f"{name}.png")
    (root / "ImageSets" / "Main" / "train.txt").write_text("1\n2\n")
    (root / "ImageSets" / "Segmentation" / "train.txt").write_text("2\n")


def test_voc_detection_and_segmentation(tmp_path):
    _voc(tmp_path)
    d = ds.VOCDataset(str(tmp_path), task="Detection", usage="train", shuffle=False, decode=True)
    assert d.get_class_indexing() == {"cat": 0, "dog": 1}
    rows = _rows(d)
    assert rows[0][1].tolist() == [[10, 20, 40, 40]] and rows[0][1].dtype == np.float32  # (x, y, w, h)
    assert rows[1][2].tolist() == [[0], [1]] and rows[1][2].dtype == np.uint32
    assert rows[1][3].tolist() == [[1], [0]] and rows[0][4].tolist() == [[1]]
    assert rows[0][0].shape == (8, 6, 3)
    seg = _rows(ds.VOCDataset(str(tmp_path), task="Segmentation", usage="train", shuffle=False, decode=True))
    assert len(seg) == 1 and seg[0][1].shape == (8, 6, 3) and int(seg[0][1][0, 0, 0]) == 7
    custom = ds.VOCDataset(str(tmp_path), task="Detection", class_indexing={"dog": 5, "cat": 9}, shuffle=False)
    assert [r[2].reshape(-1).tolist() for r in _rows(custom)] == [[5], [9, 5]]


def test_coco_tasks(tmp_path):
    os.makedirs(tmp_path / "img")
    for name in ("a.jpg", "b.jpg"):
        Image.fromarray(np.zeros((4, 4, 3), np.uint8)).save(tmp_path / "img" / name)
    images = [{"file_name": "a.jpg", "id": 1}, {"file_name": "b.jpg", "id": 2}]
    cats = [{"id": 3, "name": "cat", "isthing": 1}, {"id": 4, "name": "dog", "isthing": 0}]
    anns = [
        {"image_id": 1, "category_id": 3, "iscrowd": 0, "bbox": [1, 2, 3, 4], "area": 12,
         "segmentation": [[1, 2, 3, 4], [5, 6]], "keypoints": [1] * 51, "num_keypoints": 7, "caption": "hi"},
        {"image_id": 2, "category_id": 4, "iscrowd": 1, "bbox": [0, 0, 1, 1], "area": 1,
         "segmentation": {"counts": [9, 8, 7], "size": [4, 4]}, "keypoints": [2] * 51, "num_keypoints": 3,
         "caption": "ho"},
    ]  # fmt: skip
    path = tmp_path / "ann.json"
    path.write_text(json.dumps({"images": images, "annotations": anns, "categories": cats}))
    det = ds.CocoDataset(str(tmp_path / "img"), str(path), shuffle=False)
    assert det.get_class_indexing() == {"cat": [3], "dog": [4]}
    rows = _rows(det)
    assert rows[0][1].tolist() == [[1, 2, 3, 4]] and rows[1][2].tolist() == [[4]] and rows[1][3].tolist() == [[1]]
    stuff = _rows(ds.CocoDataset(str(tmp_path / "img"), str(path), task="Stuff", shuffle=False))
    assert stuff[0][1].tolist() == [[1, 2, 3, 4], [5, 6, -1, -1]] and stuff[0][2].shape == (1, 1)  # polygon rows
    assert stuff[1][1].tolist() == [[9, 8, 7]]
    kp = _rows(ds.CocoDataset(str(tmp_path / "img"), str(path), task="Keypoint", shuffle=False))
    assert kp[0][1].shape == (1, 51) and kp[1][2].tolist() == [[3]]
    cap = _rows(ds.CocoDataset(str(tmp_path / "img"), str(path), task="Captioning", shuffle=False))
    assert cap[0][1].tolist() == [["hi"]]
    pan_anns = [
        {
            "image_id": 1,
            "file_name": "a",
            "segments_info": [{"category_id": 4, "iscrowd": 0, "bbox": [1, 1, 2, 2], "area": 4}],
        }
    ]
    (tmp_path / "pan.json").write_text(json.dumps({"images": images[:1], "annotations": pan_anns, "categories": cats}))
    pan = ds.CocoDataset(str(tmp_path / "img"), str(tmp_path / "pan.json"), task="Panoptic", shuffle=False)
    assert pan.get_class_indexing() == {"cat": [3, 1], "dog": [4, 0]}
    assert _rows(pan)[0][4].tolist() == [[4]]


def test_kitti(tmp_path):
    for part in ("training", "testing"):
        os.makedirs(tmp_path / "data_object_image_2" / part / "image_2")
        Image.fromarray(np.zeros((4, 4, 3), np.uint8)).save(
            tmp_path / "data_object_image_2" / part / "image_2" / "0.png"
        )
    os.makedirs(tmp_path / "data_object_label_2" / "training" / "label_2")
    (tmp_path / "data_object_label_2" / "training" / "label_2" / "0.txt").write_text(
        "Van 0.5 1 -0.2 1 2 3 4 1.5 1.6 3.5 5 6 7 0.1\nCar -1 -1 -10 5 6 7 8 -1 -1 -1 -1000 -1000 -1000 -10\n"
    )
    rows = _rows(ds.KITTIDataset(str(tmp_path), shuffle=False))
    img, label, trunc, occl, alpha, bbox, dims, loc, rot = rows[0]
    assert label.tolist() == [[1], [0]] and label.dtype == np.uint32  # Car 0, Van 1 (sorted names)
    assert occl.tolist() == [[1], [2**32 - 1]] and trunc.dtype == np.float32
    assert bbox.tolist() == [[1, 2, 3, 4], [5, 6, 7, 8]] and dims.shape == (2, 3) and rot.shape == (2, 1)
    assert len(_rows(ds.KITTIDataset(str(tmp_path), usage="test"))[0]) == 1


def test_div2k(tmp_path):
    for d in ("DIV2K_train_HR", "DIV2K_train_LR_bicubic/X2", "DIV2K_train_LR_mild"):
        os.makedirs(tmp_path / d)
    Image.fromarray(np.zeros((4, 4, 3), np.uint8)).save(tmp_path / "DIV2K_train_HR" / "0001.png")
    Image.fromarray(np.zeros((2, 2, 3), np.uint8)).save(tmp_path / "DIV2K_train_LR_bicubic" / "X2" / "0001x2.png")
    Image.fromarray(np.zeros((1, 1, 3), np.uint8)).save(tmp_path / "DIV2K_train_LR_mild" / "0001x4m.png")
    hr, lr = _rows(ds.DIV2KDataset(str(tmp_path), decode=True))[0]
    assert hr.shape == (4, 4, 3) and lr.shape == (2, 2, 3)
    assert _rows(ds.DIV2KDataset(str(tmp_path), downgrade="mild", scale=4, decode=True))[0][1].shape == (1, 1, 3)
    with pytest.raises(ValueError):
        ds.DIV2KDataset(str(tmp_path), downgrade="mild", scale=2)


def test_wider_face(tmp_path):
    for folder in ("WIDER_train/images/0--A", "WIDER_val/images/0--A", "WIDER_test/images/0--A", "wider_face_split"):
        os.makedirs(tmp_path / folder)
    for folder in ("WIDER_train", "WIDER_val", "WIDER_test"):
        Image.fromarray(np.zeros((4, 4, 3), np.uint8)).save(tmp_path / folder / "images" / "0--A" / "a.jpg")
    split = tmp_path / "wider_face_split"
    (split / "wider_face_train_bbx_gt.txt").write_text("0--A/a.jpg\n2\n1 2 3 4 2 0 1 0 1 2\n5 6 7 8 0 1 0 1 0 0\n")
    (split / "wider_face_val_bbx_gt.txt").write_text("0--A/a.jpg\n0\n0 0 0 0 0 0 0 0 0 0\n")
    (split / "wider_face_test_filelist.txt").write_text("0--A/a.jpg\n")
    rows = _rows(ds.WIDERFaceDataset(str(tmp_path), shuffle=False))
    assert len(rows) == 2 and rows[0][1].tolist() == [[1, 2, 3, 4], [5, 6, 7, 8]] and rows[0][1].dtype == np.int32
    assert [r.tolist() for r in rows[0][2:]] == [[2, 0], [0, 1], [1, 0], [0, 1], [1, 0], [2, 0]]  # file order
    assert rows[1][1].shape == (0, 4)
    assert len(_rows(ds.WIDERFaceDataset(str(tmp_path), usage="test"))[0]) == 1


def test_sbd(tmp_path):
    sbd = tmp_path / "sbd"
    write_image(sbd / "img" / "a.jpg")
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


def test_extra_metadata_warns_that_no_meta_column_is_made(tmp_path):
    _voc(tmp_path)
    with pytest.warns(UserWarning, match="_meta-filename"):
        d = ds.VOCDataset(str(tmp_path), task="Detection", usage="train", shuffle=False, extra_metadata=True)
    assert d.get_col_names() == ["image", "bbox", "label", "difficult", "truncate"]
