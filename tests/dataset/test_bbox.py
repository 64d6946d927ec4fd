"""Image + bounding-box transforms. Expected boxes are MindSpore 2.10's outputs for the same calls."""

import numpy as np
import pytest

import kiln.dataset as ds
import kiln.dataset.vision as v

IMG = (np.arange(10 * 12 * 3) % 255).astype(np.uint8).reshape(10, 12, 3)


def _bb():
    return np.array([[1, 2, 4, 3], [0, 0, 12, 10]], np.float32)


@pytest.mark.parametrize(
    ("op", "boxes", "shape", "want"),
    [
        (v.ResizeWithBBox((20, 7), v.Inter.BILINEAR), _bb(), (20, 7, 3), [[0.5833, 4, 2.3333, 6], [0, 0, 7, 20]]),
        (v.ResizeWithBBox((5, 8)), _bb(), (5, 8, 3), [[0.6667, 1, 2.6667, 1.5], [0, 0, 8, 5]]),
        (v.ResizeWithBBox(5), _bb(), (5, 6, 3), [[0.5, 1, 2, 1.5], [0, 0, 6, 5]]),
        (v.RandomHorizontalFlipWithBBox(1.0), _bb(), (10, 12, 3), [[7, 2, 4, 3], [0, 0, 12, 10]]),
        (v.RandomVerticalFlipWithBBox(1.0), _bb(), (10, 12, 3), [[1, 5, 4, 3], [0, 0, 12, 10]]),
        (v.RandomHorizontalFlipWithBBox(1.0), np.array([[1, 2, 4, 3, 7]], np.float32), (10, 12, 3), [[7, 2, 4, 3, 7]]),
        (v.RandomCropWithBBox((4, 4)), np.array([[0, 0, 12, 10]], np.float32), (4, 4, 3), [[0, 0, 4, 4]]),
        (
            v.RandomResizedCropWithBBox((6, 6), (1.0, 1.0), (1.2, 1.2)),
            _bb(),
            (6, 6, 3),
            [[0.5, 1.2, 2, 1.8], [0, 0, 6, 6]],
        ),
    ],
)
def test_boxes_follow_the_image(op, boxes, shape, want):
    before = boxes.copy()
    img, out = op(IMG, boxes)
    assert img.shape == shape and out.dtype == np.float32
    np.testing.assert_allclose(out, want, atol=1e-4)
    np.testing.assert_array_equal(boxes, before)  # the input is left alone


def test_flip_image_and_invalid_boxes():
    img, _ = v.RandomHorizontalFlipWithBBox(1.0)(IMG, _bb())
    np.testing.assert_array_equal(img, IMG[:, ::-1])
    with pytest.raises(RuntimeError):
        v.ResizeWithBBox((5, 8))(IMG, np.array([[1, 2, 40, 3]], np.float32))  # outside the image
    with pytest.raises(RuntimeError):
        v.ResizeWithBBox((5, 8))(IMG, np.array([[1, 2, 4]], np.float32))


def test_crop_drops_boxes_outside():
    boxes = np.array([[0, 0, 2, 2], [8, 6, 4, 4]], np.float32)
    from kiln.dataset.vision.transforms import _crop_boxes

    np.testing.assert_array_equal(_crop_boxes(boxes, 5, 7, 5, 5), [[1, 1, 4, 4]])


def test_bounding_box_augment_patches_only_boxes():
    img, boxes = v.BoundingBoxAugment(v.Invert(), 1.0)(IMG, np.array([[1, 2, 4, 3]], np.float32))
    changed = np.nonzero((img != IMG).any(axis=2))
    assert (changed[0].min(), changed[0].max(), changed[1].min(), changed[1].max()) == (2, 4, 1, 4)
    np.testing.assert_array_equal(img[2:5, 1:5], 255 - IMG[2:5, 1:5])
    same, _ = v.BoundingBoxAugment(v.Invert(), 0.0)(IMG, np.array([[1, 2, 4, 3]], np.float32))
    np.testing.assert_array_equal(same, IMG)


def test_in_pipeline():
    d = ds.NumpySlicesDataset({"image": IMG[None], "bbox": _bb()[None]}, shuffle=False)
    d = d.map(v.RandomHorizontalFlipWithBBox(1.0), ["image", "bbox"])
    row = next(d.create_dict_iterator(output_numpy=True))
    np.testing.assert_array_equal(row["bbox"], [[7, 2, 4, 3], [0, 0, 12, 10]])
