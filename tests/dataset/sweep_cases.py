"""Cases of the dataset sweep against MindSpore 2.10, shared by tests/dataset/test_sweep_goldens.py and the golden
script tests/dataset/make_sweep_goldens_mindspore.py.

Each case is `name -> fn(m)`, where `m` holds `ds` (mindspore.dataset or kiln.dataset), `v` (its vision), `T` (its
transforms) and `ms` (the root package). `fn` returns nested lists / tuples / dicts of arrays, PIL images, numbers
and strings; `encode` turns that into JSON (an exception becomes its type name).
"""

from __future__ import annotations

import io

import numpy as np
from PIL import Image

_rng = np.random.default_rng(3)
IMG = _rng.integers(0, 256, (17, 23, 3), dtype=np.uint8)
FIMG = _rng.uniform(0, 1, (17, 23, 3)).astype(np.float32)
# pixel (x + 1, y + 1, 1): a warp's output shows where each pixel came from
_yy, _xx = np.mgrid[0:20, 0:30]
COORDS = np.stack([_xx + 1, _yy + 1, np.ones_like(_xx)], -1).astype(np.uint8)


def _png(arr: np.ndarray) -> np.ndarray:
    buf = io.BytesIO()
    Image.fromarray(arr).save(buf, format="PNG")
    return np.frombuffer(buf.getvalue(), np.uint8)


GRAY = IMG[..., 0].copy()
PNG = _png(IMG)
PNG_GRAY = _png(GRAY)


def _rows(d) -> list:
    return [list(r) for r in d.create_tuple_iterator(output_numpy=True, num_epochs=1)]


def _full(d) -> dict:
    return {"cols": d.get_col_names(), "size": d.get_dataset_size(), "rows": _rows(d)}


def _numbers(m, n: int = 6):
    return m.ds.NumpySlicesDataset(
        {"x": np.arange(n, dtype=np.int32), "y": np.arange(n, dtype=np.float64) * 0.5}, shuffle=False
    )


class _Ragged:
    """Rows (arange(i + 1), [1.5 i, 1.5 i]): a ragged column and a regular one."""

    def __getitem__(self, i):
        return np.arange(i + 1, dtype=np.int64), np.array([i, i]) * 1.5

    def __len__(self):
        return 7


def _slices(m, n: int, sampler):
    return m.ds.NumpySlicesDataset(np.arange(n), sampler=sampler)


def _ragged(m):
    return m.ds.GeneratorDataset(_Ragged(), ["p", "q"], shuffle=False)


_PERSPECTIVE_FROM = [[0, 0], [22, 0], [22, 16], [0, 16]]
_PERSPECTIVE_TO = [[2, 1], [20, 0], [22, 15], [1, 16]]


def _kind(value) -> str:
    return f"{type(value).__name__} {getattr(value, 'mode', '')}"


def _raises(fn) -> str:
    """Whether `fn` raised (MindSpore wraps an error in a pipeline's Python function in a RuntimeError)."""
    try:
        fn()
    except Exception:  # noqa: BLE001
        return "raised"
    return "ran"


def _pipe(m, ops, data, column: str = "image"):
    """`ops` mapped over a two-row dataset of `data`."""
    d = m.ds.GeneratorDataset(lambda: iter([(data,), (data,)]), [column], shuffle=False)
    return _rows(d.map(operations=ops, input_columns=[column]))


# -- map: no input_columns means the first column only
MAP = {
    # (np.int32 constants: NumPy 1.x, MindSpore's, promotes a 0-d int32 times a Python int to int64)
    "map_first_column": lambda m: _full(_numbers(m).map(lambda x: x * np.int32(10))),
    "map_first_column_out": lambda m: _full(_numbers(m).map(lambda x: (x, x + np.int32(1)), output_columns=["a", "b"])),
    "map_two_args_no_input_columns": lambda m: _raises(lambda: _rows(_numbers(m).map(lambda x, y: x + y))),
}

# -- Decode(to_pil=True), and PIL images kept by RandomGrayscale, FiveCrop, TenCrop
PIL_OPS = {
    "decode_to_pil": lambda m: m.v.Decode(to_pil=True)(PNG),
    "decode_to_pil_gray": lambda m: m.v.Decode(to_pil=True)(PNG_GRAY),
    "decode_to_pil_pipeline": lambda m: _pipe(m, [m.v.Decode(to_pil=True), m.v.Resize((8, 9)), m.v.ToTensor()], PNG),
    "decode_to_pil_not_bool": lambda m: m.v.Decode(1),
    "random_grayscale_pil_1": lambda m: m.v.RandomGrayscale(1.0)(Image.fromarray(IMG)),
    "random_grayscale_pil_0": lambda m: m.v.RandomGrayscale(0.0)(Image.fromarray(IMG)),
    "five_crop_pil": lambda m: m.v.FiveCrop((8, 9))(Image.fromarray(IMG)),
    "ten_crop_pil": lambda m: m.v.TenCrop(8)(Image.fromarray(IMG)),
    "ten_crop_pil_vertical": lambda m: m.v.TenCrop((6, 7), use_vertical_flip=True)(Image.fromarray(IMG)),
    "five_crop_pil_odd": lambda m: m.v.FiveCrop((6, 8))(Image.fromarray(IMG)),
    # the transforms MindSpore runs with Pillow on a PIL image, returning a PIL image
    "adjust_brightness_pil": lambda m: m.v.AdjustBrightness(1.5)(Image.fromarray(IMG)),
    "adjust_contrast_pil": lambda m: m.v.AdjustContrast(0.7)(Image.fromarray(IMG)),
    "adjust_saturation_pil": lambda m: m.v.AdjustSaturation(1.5)(Image.fromarray(IMG)),
    "adjust_gamma_pil": lambda m: m.v.AdjustGamma(0.5, 1.1)(Image.fromarray(IMG)),
    "adjust_gamma_pil_gray": lambda m: m.v.AdjustGamma(2.0)(Image.fromarray(GRAY)),
    "adjust_hue_pil": lambda m: m.v.AdjustHue(0.2)(Image.fromarray(IMG)),
    "adjust_hue_pil_gray": lambda m: m.v.AdjustHue(-0.4)(Image.fromarray(GRAY)),
    "auto_contrast_pil": lambda m: m.v.AutoContrast(5.0)(Image.fromarray(IMG)),
    "auto_contrast_pil_ignore": lambda m: m.v.AutoContrast(1.0, [0, 255])(Image.fromarray(IMG)),
    "equalize_pil": lambda m: m.v.Equalize()(Image.fromarray(IMG)),
    "invert_pil": lambda m: m.v.Invert()(Image.fromarray(IMG)),
    "random_sharpness_pil": lambda m: m.v.RandomSharpness((2.0, 2.0))(Image.fromarray(IMG)),
    "random_color_pil": lambda m: m.v.RandomColor((1.5, 1.5))(Image.fromarray(IMG)),
    "perspective_pil": lambda m: m.v.Perspective(_PERSPECTIVE_FROM, _PERSPECTIVE_TO, m.v.Inter.NEAREST)(
        Image.fromarray(IMG)
    ),
    "perspective_pil_bilinear": lambda m: m.v.Perspective(_PERSPECTIVE_FROM, _PERSPECTIVE_TO)(Image.fromarray(GRAY)),
    "random_perspective_pil_0": lambda m: m.v.RandomPerspective(prob=0.0)(Image.fromarray(IMG)),
    "random_affine_pil_kind": lambda m: _kind(m.v.RandomAffine((90, 90))(Image.fromarray(IMG))),
    "grayscale_pil_of_gray": lambda m: m.v.Grayscale(3)(Image.fromarray(GRAY)),
    "to_pil_one_channel": lambda m: m.v.ToPIL()(IMG[..., :1].copy()),
    "pil_pipeline": lambda m: _pipe(
        m,
        [m.v.Decode(to_pil=True), m.v.AdjustBrightness(1.3), m.v.Equalize(), m.v.AdjustGamma(0.8), m.v.ToTensor()],
        PNG,
    ),
    "center_crop_pil_odd": lambda m: m.v.CenterCrop((6, 8))(Image.fromarray(IMG)),
    "center_crop_odd": lambda m: m.v.CenterCrop((6, 8))(IMG),
}

# -- Solarize / RandomSolarize with min == max, OneHot with smoothing
VALUES = {
    "solarize_equal_pair": lambda m: m.v.Solarize((100, 100))(IMG),
    "solarize_zero_pair": lambda m: m.v.Solarize((0, 0))(IMG),
    "solarize_equal_pair_float": lambda m: m.v.Solarize((0.5, 0.5))(FIMG),
    "random_solarize_fixed": lambda m: m.v.RandomSolarize((100, 100))(IMG),
    # integer images of other dtypes: Invert keeps the dtype, saturating; gray levels rounded; brightness in float32
    "invert_int16": lambda m: m.v.Invert()(IMG.astype(np.int16) * 3),
    "invert_uint16": lambda m: m.v.Invert()(IMG.astype(np.uint16) * 3),
    "invert_int8": lambda m: m.v.Invert()((IMG.astype(np.int16) - 128).astype(np.int8)),
    "rgb_to_gray_uint16": lambda m: m.v.ConvertColor(m.v.ConvertMode.COLOR_RGB2GRAY)(IMG.astype(np.uint16) * 3),
    "adjust_brightness_uint16": lambda m: m.v.AdjustBrightness(1.3)(IMG.astype(np.uint16) * 3),
    # OpenCV scales in float32: 95 * 1.3 is 123.49999 there (123), 123.5000001 in float64 (124)
    "adjust_brightness_1.3": lambda m: m.v.AdjustBrightness(1.3)(IMG),
    "adjust_brightness_0.7": lambda m: m.v.AdjustBrightness(0.7)(IMG),
    "adjust_contrast_0.7": lambda m: m.v.AdjustContrast(0.7)(IMG),
    "adjust_contrast_1.3": lambda m: m.v.AdjustContrast(1.3)(IMG),
    "random_color_adjust_brightness_1.3": lambda m: m.v.RandomColorAdjust((1.3, 1.3), (1, 1), (1, 1), (0, 0))(IMG),
    "random_solarize_fixed_pipeline": lambda m: _pipe(m, [m.v.RandomSolarize((80, 80))], IMG),
    # scalar labels: MindSpore 2.10 smooths a vector of labels wrongly (most rows lose their hot entry)
    "onehot_smoothing_int32": lambda m: m.T.OneHot(5, 0.1)(np.array(4, np.int32)),
    "onehot_smoothing_uint8": lambda m: m.T.OneHot(4, 0.2)(np.array(3, np.uint8)),
    "onehot_smoothing_pipeline": lambda m: _pipe(m, [m.T.OneHot(5, 0.1)], np.array(2, np.int64), "label"),
    "onehot_2d": lambda m: m.T.OneHot(5)(np.array([[1, 2], [3, 4]], np.int32)),
}

# -- Affine: translate in fractions of the size, centre ((w - 1) / 2, (h - 1) / 2); RandomAffine's ranges
_AFFINE = {
    "rot30": (30, (0, 0), 1.0, 0.0),
    "rot90": (90, (0, 0), 1.0, 0.0),
    "scale": (0, (0, 0), 1.5, 0.0),
    "shear_x": (0, (0, 0), 1.0, 20.0),
    "shear_y": (0, (0, 0), 1.0, (0.0, 20.0)),
    "tx": (0, (0.5, 0), 1.0, 0.0),
    "ty": (0, (0, 0.3), 1.0, 0.0),
    "txy_neg": (0, (-0.25, 0.1), 1.0, 0.0),
    "all": (30, (0.2, -0.4), 1.1, (5.0, 3.0)),
}
AFFINE = {f"affine_{k}": (lambda m, a=a: m.v.Affine(*a)(IMG)) for k, a in _AFFINE.items()}
AFFINE.update({f"affine_{k}_coords": (lambda m, a=a: m.v.Affine(*a)(COORDS)) for k, a in _AFFINE.items()})
AFFINE.update(
    {
        f"affine_{k}_bilinear": (lambda m, a=a: m.v.Affine(*a, resample=m.v.Inter.BILINEAR)(IMG))
        for k, a in _AFFINE.items()
    }
)
AFFINE.update(
    {
        "affine_translate_out_of_range": lambda m: m.v.Affine(0, (2, 0), 1.0, 0.0),
        "affine_pipeline": lambda m: _pipe(m, [m.v.Affine(0, (0.25, -0.1), 1.0, 0.0)], IMG),
        "random_affine_rotation": lambda m: m.v.RandomAffine((30, 30))(IMG),
        "random_affine_shear4": lambda m: m.v.RandomAffine(0, shear=(10, 10, 5, 5))(IMG),
        "random_affine_translate2": lambda m: m.v.RandomAffine(0, translate=(0.25, 0.25))(COORDS),
        "random_affine_translate4": lambda m: m.v.RandomAffine(0, translate=(0.25, 0.25, 0.1, 0.1))(COORDS),
        "random_affine_translate4_neg": lambda m: m.v.RandomAffine(0, translate=(-0.2, -0.2, 0.3, 0.3))(COORDS),
        "random_affine_translate_half_pixels": lambda m: [
            m.v.RandomAffine(0, translate=t)(COORDS)
            for t in ((-0.25, -0.25), (0.23, 0.23), (-0.23, -0.23), (0.05, 0.05, 0.275, 0.275), (0, 0, -0.275, -0.275))
        ],
    }
)

# -- Resize of a <..., H, W, C> stack
_STACK = np.random.default_rng(1).integers(0, 256, (2, 3, 9, 11, 3), dtype=np.uint8)
RESIZE = {
    f"resize_stack_{mode}": (lambda m, mode=mode: m.v.Resize((5, 7), getattr(m.v.Inter, mode))(_STACK))
    for mode in ("NEAREST", "LINEAR", "CUBIC")
}
RESIZE.update(
    {
        "resize_stack_up": lambda m: m.v.Resize((13, 14))(_STACK[0]),
        "resize_stack_int_float": lambda m: m.v.Resize(6, m.v.Inter.CUBIC)(_STACK[0].astype(np.float32)),
        "resize_stack_5_channels": lambda m: m.v.Resize((3, 4))(np.concatenate([_STACK[0], _STACK[0, ..., :2]], -1)),
    }
)

# -- Resize with Inter.AREA (OpenCV's pixel-area mean; linear-style when enlarging) and Inter.PILCUBIC (Pillow's
# bicubic, width then height)
_BIG = np.random.default_rng(9).integers(0, 256, (24, 36, 3), dtype=np.uint8)
_AREA_SOURCES = {"img": IMG, "big": _BIG, "float": FIMG, "gray": GRAY}
for _src in _AREA_SOURCES:
    for _size in ((8, 11), (12, 18), (6, 9), (30, 40), (10, 40), (17, 23), 9):
        RESIZE[f"resize_area_{_src}_{_size}"] = lambda m, src=_src, size=_size: m.v.Resize(size, m.v.Inter.AREA)(
            _AREA_SOURCES[src]
        )
for _src in ("img", "big"):
    for _size in ((8, 11), (30, 40), (10, 40), (30, 11), 9):
        RESIZE[f"resize_pilcubic_{_src}_{_size}"] = lambda m, src=_src, size=_size: m.v.Resize(
            size, m.v.Inter.PILCUBIC
        )(_AREA_SOURCES[src])
RESIZE.update(
    {
        "resize_area_stack": lambda m: m.v.Resize((8, 30), m.v.Inter.AREA)(np.stack([IMG, IMG[::-1]])),
        "resize_area_stack_halved": lambda m: m.v.Resize((12, 18), m.v.Inter.AREA)(np.stack([_BIG, _BIG[::-1]])),
        "resize_area_int16": lambda m: m.v.Resize((8, 11), m.v.Inter.AREA)(IMG.astype(np.int16) * 100 - 3000),
        "resize_area_float64": lambda m: m.v.Resize((8, 30), m.v.Inter.AREA)(FIMG.astype(np.float64)),
        "resize_area_pipeline": lambda m: _pipe(m, [m.v.Resize((7, 9), m.v.Inter.AREA)], IMG),
        "resize_pilcubic_stack": lambda m: m.v.Resize((8, 30), m.v.Inter.PILCUBIC)(np.stack([IMG, IMG[::-1]])),
        "resize_pilcubic_gray": lambda m: m.v.Resize((8, 30), m.v.Inter.PILCUBIC)(GRAY),
        "resize_pilcubic_pipeline": lambda m: _pipe(m, [m.v.Resize((30, 11), m.v.Inter.PILCUBIC)], IMG),
        # a PIL image meets a filter Pillow lacks: MindSpore's pipeline resizes the array
        "resize_area_after_pil_decode": lambda m: _pipe(m, [m.v.Decode(True), m.v.Resize((8, 9), m.v.Inter.AREA)], PNG),
        "resize_pilcubic_after_pil_decode": lambda m: _pipe(
            m, [m.v.Decode(True), m.v.Resize((20, 9), m.v.Inter.PILCUBIC)], PNG
        ),
    }
)

# -- pipelines: bucket_batch_by_length without pad_info, per_batch_map's rows, endless repeat's size, string types
PIPELINES = {
    "bucket_no_pad_info": lambda m: _full(_ragged(m).bucket_batch_by_length(["p"], [3], [2, 3])),
    "bucket_empty_pad_info": lambda m: _full(_ragged(m).bucket_batch_by_length(["p"], [3, 5], [2, 2, 3], pad_info={})),
    "bucket_no_pad_info_strings": lambda m: _rows(
        m.ds.GeneratorDataset(
            lambda: iter([(np.array(["a"]),), (np.array(["b", "c"]),)]), ["s"], shuffle=False
        ).bucket_batch_by_length(["s"], [5], [2, 2], element_length_function=lambda s: 1)
    ),
    "per_batch_map_fewer_rows": lambda m: _rows(
        _numbers(m).batch(2, per_batch_map=lambda x, info: ([x[0]],), input_columns=["x"])
    ),
    "per_batch_map_more_rows": lambda m: _rows(
        _numbers(m).batch(2, per_batch_map=lambda x, info: (x + x,), input_columns=["x"])
    ),
    "per_batch_map_array_any_length": lambda m: _rows(
        _numbers(m).batch(2, per_batch_map=lambda x, info: (np.array([1, 2, 3]),), input_columns=["x"])
    ),
    "per_batch_map_tuple": lambda m: _rows(
        _numbers(m).batch(2, per_batch_map=lambda x, info: (tuple(x),), input_columns=["x"])
    ),
    "endless_repeat_sizes": lambda m: [
        _numbers(m, 3).repeat().get_dataset_size(),
        _numbers(m, 3).repeat().take(5).get_dataset_size(),
        _numbers(m, 3).repeat().take(2).get_dataset_size(),
        _numbers(m, 3).repeat().skip(1).get_dataset_size(),
        _numbers(m, 3).repeat().repeat(2).get_dataset_size(),
        _numbers(m, 5).repeat().batch(2, True).get_dataset_size(),
        _numbers(m, 3).repeat().batch(2).get_dataset_size(),
    ],
    "endless_repeat_rows": lambda m: [
        int(r[0]) for _, r in zip(range(8), _numbers(m, 3).repeat().create_tuple_iterator(output_numpy=True))
    ],
    # samplers: an offset leaves the shards unpadded; WeightedRandomSampler draws at most one sample per row
    "distributed_offsets": lambda m: [
        [
            [_rows(_slices(m, n, m.ds.DistributedSampler(3, k, shuffle=False, offset=off))) for k in range(3)]
            for off in (-1, 0, 1, 2, 3)
        ]
        for n in (5, 7, 8)
    ],
    "distributed_offsets_sizes": lambda m: [
        _slices(m, 7, m.ds.DistributedSampler(3, k, shuffle=False, offset=off)).get_dataset_size()
        for off in (-1, 0, 1, 2)
        for k in range(3)
    ],
    "distributed_offset_too_big": lambda m: _raises(
        lambda: _rows(_slices(m, 5, m.ds.DistributedSampler(2, 0, shuffle=False, offset=3)))
    ),
    "weighted_sampler_sizes": lambda m: [
        len(_rows(_slices(m, n, m.ds.WeightedRandomSampler([1.0] * w, ns))))
        for n, w, ns in ((4, 4, 6), (10, 4, 6), (10, 4, None), (3, 2, None))
    ],
    "weighted_sampler_dataset_size": lambda m: _slices(
        m, 4, m.ds.WeightedRandomSampler([1.0] * 4, 6)
    ).get_dataset_size(),
    "output_types_bytes": lambda m: [
        str(t) for t in m.ds.GeneratorDataset(lambda: iter([(b"y", 1)] * 2), ["b", "i"], shuffle=False).output_types()
    ],
    "output_types_strings": lambda m: [
        str(t)
        for t in m.ds.GeneratorDataset(
            lambda: iter([(np.array("ab"), np.array(["x", "yz"])), (np.array("c"), np.array(["w", "v"]))]),
            ["s", "t"],
            shuffle=False,
        ).output_types()
    ],
}

ALL = {**MAP, **PIL_OPS, **VALUES, **AFFINE, **RESIZE, **PIPELINES}

# Measured differences (max abs difference, fraction of values allowed to differ): OpenCV's warps in fixed point.
TOLERANCE = {
    "affine_all": (155, 0.005),  # one pixel on a nearest-neighbour tie takes the other neighbour
    "affine_all_coords": (20, 0.005),
    "affine_scale_coords": (1, 0.06),  # measured: 5.6% of the source coordinates are the neighbour's (ties)
    **{f"affine_{k}_bilinear": (4, 0.65) for k in _AFFINE},
    "random_affine_rotation": (0, 0.0),
    "rgb_to_gray_uint16": (1, 0.005),  # measured: 1 value of 391 off by 1
    "adjust_contrast_1.3": (1, 0.02),  # measured: 1.8% of the values off by 1 (OpenCV's addWeighted rounding)
    # measured: 0.17% of the values off by 1 (float32 sums of the area weights in another order)
    "resize_area_big_(17, 23)": (1, 0.002),
    # measured: float32 rounding of the area weights
    **{f"resize_area_float_{s}": (2e-7, 1.0) for s in ((8, 11), (12, 18), (6, 9), (30, 40), (10, 40), (17, 23), 9)},
    # measured: one pixel of 391 (its source lies on a rounding edge of the coefficients)
    "perspective_pil": (144, 0.003),
    "perspective_pil_bilinear": (13, 0.003),
}


def encode(value):
    """`value` as JSON: arrays and PIL images with their dtype / mode and shape."""
    if isinstance(value, Image.Image):
        return {"pil": value.mode, "size": list(value.size), "array": encode(np.asarray(value))}
    if type(value).__name__ == "Tensor":
        value = value.asnumpy()
    if isinstance(value, np.ndarray | np.generic):
        arr = np.asarray(value)
        # float32 / float16 values by their shortest repr (they read back exactly; the JSON is half as long)
        data = arr.astype(str).astype(np.float64).tolist() if arr.dtype in (np.float32, np.float16) else arr.tolist()
        return {"dtype": str(arr.dtype), "shape": list(arr.shape), "data": data}
    if isinstance(value, tuple | list):
        return {"seq": type(value).__name__, "items": [encode(x) for x in value]}
    if isinstance(value, dict):
        return {"dict": {k: encode(x) for k, x in value.items()}}
    if isinstance(value, bool | int | float | str) or value is None:
        return {"value": value}
    return {"object": type(value).__name__}


def run(fn, m):
    """The encoded result of a case, or {"error": exception type name}."""
    try:
        return encode(fn(m))
    except Exception as exc:  # noqa: BLE001  (the golden records the exception type)
        return {"error": type(exc).__name__}
