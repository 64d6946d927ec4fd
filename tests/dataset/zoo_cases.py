"""Cases behind tests/dataset/test_zoo_goldens.py, built from the dataset module they are given (MindSpore's or
Kiln's): each reproduces what a model-zoo `create_dataset` does, on small inputs.

- concat sharding: BERT's create_eval_dataset pads its MindRecord rows with a PaddedDataset, concatenates and calls
  `use_sampler(DistributedSampler(...))` on the concat.
"""

import os

import numpy as np

CONCAT_SIZES = [(5, 3), (2, 7), (1, 1, 4), (3, 3)]
CONCAT_SHARDS = (1, 2, 3, 4)


def rows(dataset) -> list:
    """The first column of every row, as ints."""
    return [int(r[0]) for r in dataset.create_tuple_iterator(output_numpy=True, num_epochs=1)]


def concat_sharded(ds, sizes, num_shards: int, shard_id: int, shuffle_first: bool = False):
    """Children of `sizes` rows (child i holds 10*i, 10*i+1, ...) concatenated and sharded with use_sampler."""
    parts = [
        ds.NumpySlicesDataset({"a": np.arange(s) + 10 * i}, shuffle=shuffle_first and i == 0)
        for i, s in enumerate(sizes)
    ]
    joined = parts[0]
    for p in parts[1:]:
        joined = joined + p
    joined.use_sampler(ds.DistributedSampler(num_shards=num_shards, shard_id=shard_id, shuffle=False))
    return joined


def concat_goldens(ds) -> dict:
    """Rows and dataset sizes of every sharded concat case."""
    out = {}
    for sizes in CONCAT_SIZES:
        for n in CONCAT_SHARDS:
            for k in range(n):
                d = concat_sharded(ds, sizes, n, k)
                out[f"{sizes}/{n}/{k}"] = {"rows": rows(d), "size": d.get_dataset_size()}
    # A shuffled source child: the sampler replaces its own (its rows come in order).
    d = concat_sharded(ds, (6, 2), 2, 1, shuffle_first=True)
    out["shuffled_child"] = {"rows": rows(d), "size": d.get_dataset_size()}
    padded = ds.NumpySlicesDataset({"a": np.arange(5)}, shuffle=False) + ds.PaddedDataset([{"a": np.array(-1)}] * 3)
    padded.use_sampler(ds.DistributedSampler(num_shards=2, shard_id=1, shuffle=False))
    out["padded"] = {"rows": rows(padded), "size": padded.get_dataset_size()}
    return out


def concat_mindrecord_goldens(ds, file_writer, folder: str) -> dict:
    """A MindDataset child of a sharded concat (first, padded as BERT does, and second): MindSpore splits it
    into contiguous blocks, not every n-th row. `file_writer`: the framework's mindrecord.FileWriter."""
    out = {}
    for n_rows in (9, 10):
        path = os.path.join(folder, f"rows{n_rows}.mindrecord")
        writer = file_writer(path, 1)
        writer.add_schema({"a": {"type": "int64"}}, "rows")
        writer.write_raw_data([{"a": i} for i in range(n_rows)])
        writer.commit()
        for n in (2, 3, 4):
            for k in range(n):
                first = ds.MindDataset(path, columns_list=["a"]) + ds.PaddedDataset([{"a": np.array(-1)}] * 3)
                first.use_sampler(ds.DistributedSampler(n, k, shuffle=False))
                second = ds.NumpySlicesDataset({"a": np.arange(4) + 100}, shuffle=False) + ds.MindDataset(path)
                second.use_sampler(ds.DistributedSampler(n, k, shuffle=False))
                out[f"{n_rows}/{n}/{k}"] = {"first": rows(first), "second": rows(second)}
    return out


def resize_inputs() -> dict:
    """Images of the shapes and dtypes the zoo resizes (decoded uint8 photos, float after Normalize), seeded."""
    rng = np.random.default_rng(21)
    out = {}
    shapes = [(40, 56, 3), (33, 71, 3), (31, 33, 1), (20, 30), (8, 9, 4), (32, 30, 3)]
    for i, shape in enumerate(shapes):
        out[f"u8_{i}"] = rng.integers(0, 256, shape).astype(np.uint8)
    for i, shape in enumerate([(9, 13, 3), (12, 7)]):
        out[f"f32_{i}"] = (rng.random(shape) * 255).astype(np.float32)
        out[f"u16_{i}"] = rng.integers(0, 60000, shape).astype(np.uint16)
    return out


# (name, Resize arguments): an int resizes the shorter side (the zoo's Resize(256)), fixed sizes up and down,
# an exact 2x reduction (OpenCV's area path) and NEAREST.
RESIZE_CASES = [
    ("short29", lambda v: v.Resize(29)),
    ("short13", lambda v: v.Resize(13)),
    ("fixed_down", lambda v: v.Resize((17, 23))),
    ("fixed_up", lambda v: v.Resize((45, 37))),
    ("half", lambda v: v.Resize((16, 15))),
    ("nearest", lambda v: v.Resize((17, 23), v.Inter.NEAREST)),
    ("nearest_up", lambda v: v.Resize((41, 35), v.Inter.NEAREST)),
    # EfficientNet's and ViT's eval pipelines resize with BICUBIC (uint8 and float32 are bit-exact; OpenCV's
    # uint16 and float64 kernels round differently: within 1 and 1e-12, not kept here).
    ("cubic_down", lambda v: v.Resize((17, 23), v.Inter.BICUBIC)),
    ("cubic_up", lambda v: v.Resize((45, 37), v.Inter.BICUBIC)),
    ("cubic_short", lambda v: v.Resize(13, v.Inter.CUBIC)),
]


def resize_goldens(vision) -> dict:
    """Every resize case on every input: name/input -> array."""
    out = {}
    for key, img in resize_inputs().items():
        for name, make in RESIZE_CASES:
            if name.startswith("cubic") and key.startswith("u16"):
                continue
            out[f"{name}/{key}"] = np.asarray(make(vision)(img))
    return out


# Transforms given a PIL image (after the zoo's vision.ToPIL()): MindSpore runs them with Pillow and returns a
# PIL image; ANTIALIAS is Pillow's LANCZOS, and CenterCrop rounds its offsets.
PIL_CASES = [
    ("resize_short", lambda v: v.Resize(29, v.Inter.BILINEAR)),
    ("resize_bicubic", lambda v: v.Resize((20, 30), v.Inter.BICUBIC)),
    ("resize_nearest", lambda v: v.Resize(29, v.Inter.NEAREST)),
    ("resize_antialias", lambda v: v.Resize((17, 23), v.Inter.ANTIALIAS)),
    ("center_crop", lambda v: v.CenterCrop(16)),
    ("center_crop_pair", lambda v: v.CenterCrop((15, 20))),
    ("hflip", lambda v: v.RandomHorizontalFlip(1.0)),
    ("vflip", lambda v: v.RandomVerticalFlip(1.0)),
    ("no_flip", lambda v: v.RandomHorizontalFlip(0.0)),
    ("pad", lambda v: v.Pad([1, 2, 3, 4], fill_value=(9, 8, 7))),
    ("pad_reflect", lambda v: v.Pad(2, padding_mode=v.Border.REFLECT)),
    ("grayscale", lambda v: v.Grayscale()),
    ("grayscale3", lambda v: v.Grayscale(3)),
]


def pil_goldens(vision, image_module) -> tuple[dict, dict]:
    """Every PIL case on three images: (name/image -> array, name/image -> type name of the result)."""
    rng = np.random.default_rng(3)
    arrays, types = {}, {}
    for i, shape in enumerate([(39, 43, 3), (21, 45, 3), (24, 24, 3)]):
        img = image_module.fromarray(rng.integers(0, 256, shape).astype(np.uint8))
        for name, make in PIL_CASES:
            out = make(vision)(img)
            arrays[f"pil/{name}/{i}"] = np.asarray(out)
            types[f"{name}/{i}"] = type(out).__name__ if not isinstance(out, np.ndarray) else "ndarray"
    return arrays, types


def _ragged_rows():
    for i in range(7):
        yield (np.full((2 + i % 3, 3), i, np.uint8), np.array([i, i + 1], np.int64), np.array(i * 0.5, np.float32))


def _multi_scale(img, ann, info):
    """YOLO's multi-scale per_batch_map: images of several sizes in, one size per batch out, a new column."""
    size = 4 + info.get_batch_num()
    images = [np.resize(x, (size, 3)).astype(np.float32) / 255 for x in img]
    return np.stack(images), np.stack(ann), np.array([size] * len(img), np.int32)


def per_batch_map_goldens(ds) -> dict:
    """Batches (values and dtypes) of per_batch_map pipelines whose input column is ragged."""
    out = {}
    source = lambda: ds.GeneratorDataset(_ragged_rows, ["img", "ann", "s"], shuffle=False)  # noqa: E731
    pipelines = {
        "multi_scale": source().batch(
            3, per_batch_map=_multi_scale, input_columns=["img", "ann"], output_columns=["image", "ann", "size"]
        ),
        "same_count": source().batch(
            2, per_batch_map=lambda img, info: ([x[:2].astype(np.int32) for x in img],), input_columns=["img"]
        ),
    }
    for name, d in pipelines.items():
        rows_out = [
            [[np.asarray(v).tolist(), str(np.asarray(v).dtype)] for v in r]
            for r in d.create_tuple_iterator(output_numpy=True, num_epochs=1)
        ]
        out[name] = {"columns": d.get_col_names(), "rows": rows_out}
    return out
