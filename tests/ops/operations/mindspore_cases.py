"""Cases of Primitive classes of `kiln.ops.operations` run on both sides (Kiln and MindSpore 2.10).

`CASES[name] = build(m)`: `m` has `.ops` (kiln.ops or mindspore.ops), `.Tensor` and the dtypes; `build(m)`
returns the op's outputs (a Tensor or a tuple of them). make_goldens.py stores MindSpore's outputs;
test_against_mindspore.py compares Kiln's with them.
"""

from __future__ import annotations

import numpy as np

_RNG = np.random.default_rng(20)
BOXES = np.array([[0, 0, 2, 2, 0.3], [0.5, 0.5, 2.5, 2.5, 0.8], [3, 3, 4, 4, 0.95], [0, 0, 2, 2.1, 0.9],
                  [2.9, 3.1, 4.2, 4.0, 0.5]], np.float32)  # fmt: skip
LOGITS = np.array([[[0.6, 0.4, 0.2], [0.8, 0.6, 0.3]], [[0.0, 0.6, 0.0], [0.5, 0.4, 0.5]],
                   [[0.1, 0.2, 0.9], [0.3, 0.6, 0.1]]], np.float32)  # fmt: skip
CTC_IN = _RNG.normal(size=(6, 2, 5)).astype(np.float32)
IMAGE = _RNG.uniform(0, 1, size=(2, 3, 3)).astype(np.float32)
FEATURES = _RNG.normal(size=(2, 3, 6, 7)).astype(np.float32)
ROIS = np.array([[0, 0.2, 0.3, 4.5, 5.1], [1, 1, 1, 6, 7], [0, 3.5, 2.0, 13.0, 11.0], [1, -2.0, -1.0, 3.0, 2.5]],
                np.float32)  # fmt: skip
VOLUME = _RNG.normal(size=(2, 2, 3, 4, 5)).astype(np.float32)
GRID3 = _RNG.uniform(-1.2, 1.2, size=(2, 2, 3, 2, 3)).astype(np.float32)
NMS_BOXES = _RNG.uniform(0, 1, size=(2, 6, 1, 4)).astype(np.float32)
NMS_BOXES[..., 2:] = NMS_BOXES[..., :2] + _RNG.uniform(0.1, 0.5, size=(2, 6, 1, 2)).astype(np.float32)
NMS_SCORES = _RNG.uniform(0, 1, size=(2, 6, 3)).astype(np.float32)
LOG_PROBS = np.log(_RNG.dirichlet(np.ones(5), size=(6, 2))).astype(np.float32)
OVERLAPS = _RNG.uniform(0, 1, size=(5, 5)).astype(np.float32)
SPECTRUM = (_RNG.normal(size=(2, 3, 4)) + 1j * _RNG.normal(size=(2, 3, 4))).astype(np.complex64)
SIGNAL = _RNG.normal(size=(2, 3, 6)).astype(np.float32)
POOL2 = _RNG.normal(size=(2, 3, 7, 8)).astype(np.float32)
SAMPLES2 = _RNG.uniform(0, 1, size=(2, 3, 2)).astype(np.float32)
POOL3 = _RNG.normal(size=(1, 2, 5, 6, 7)).astype(np.float32)
SAMPLES3 = _RNG.uniform(0, 1, size=(1, 2, 3)).astype(np.float32)
DCN_X = _RNG.normal(size=(1, 2, 5, 6)).astype(np.float32)
DCN_OFF = np.concatenate([_RNG.normal(size=(1, 18, 3, 4)) * 0.7, _RNG.uniform(0, 1, size=(1, 9, 3, 4))], 1).astype(
    np.float32
)
DCN_W = _RNG.normal(size=(3, 2, 3, 3)).astype(np.float32)
DCN_B = _RNG.normal(size=(3,)).astype(np.float32)
CROP_IMAGE = np.random.default_rng(21).normal(size=(2, 7, 9, 3)).astype(np.float32)
CROP_BOXES = np.array([[0, 0, 1, 1], [0.1, 0.2, 0.8, 0.9], [0.5, -0.2, 1.3, 0.7]], np.float32)
DCN_X4 = _RNG.normal(size=(2, 4, 6, 7)).astype(np.float32)
DCN_OFF2 = np.concatenate([_RNG.normal(size=(2, 24, 3, 7)) * 1.5, _RNG.uniform(0, 1, size=(2, 12, 3, 7))], 1).astype(
    np.float32
)
RMS_VAR = _RNG.uniform(0.1, 4, size=(4, 2, 2))
RMS_MS = _RNG.uniform(0.1, 5, size=(4, 2, 2))
RMS_MOM = _RNG.uniform(0.1, 5, size=(4, 2, 2))
RMS_GRAD = _RNG.uniform(-5, 5, size=(4, 2, 2))  # MindSpore asks for the shape of var
RMS_GRAD[0, 1] = 0.0  # MindSpore keeps the mean square where the gradient is 0
LP_X = np.array([[0.33854103], [-0.13209231]], np.float32)
LP_X2 = np.array([[0.3, 0.1, -0.45], [-0.2, 0.5, 0.05]], np.float32)
LP_TINY = np.array([[1e-13, 0.0], [0.0, 0.0]], np.float32)
STFT_X = np.random.default_rng(22).normal(size=(2, 9)).astype(np.float32)
BESSEL_X = np.array([-1.0, 0.0, 1e-3, 0.5, 1.0, 2.5, 7.0, 30.0], np.float32)


def _t(m, x, dtype=None):
    return m.Tensor(x) if dtype is None else m.Tensor(x, dtype)


def _bessel_case(name):
    return lambda m: getattr(m.ops.operations, f"Bessel{name}")()(_t(m, BESSEL_X))


CASES = {
    "nms_with_mask": lambda m: m.ops.operations.NMSWithMask(0.2)(_t(m, BOXES)),
    "ctc_greedy_decoder": lambda m: m.ops.operations.CTCGreedyDecoder()(
        _t(m, LOGITS), _t(m, np.array([3, 2], np.int32))
    ),
    "ctc_greedy_decoder_nomerge": lambda m: m.ops.operations.CTCGreedyDecoder(False)(
        _t(m, LOGITS), _t(m, np.array([3, 3], np.int32))
    ),
    "ragged_range": lambda m: m.ops.operations.RaggedRange(m.int64)(
        _t(m, np.array([2, 5, 8, 0], np.int32)), _t(m, np.array([3, 5, 12, -5], np.int32)),
        _t(m, np.array([1, 1, 2, -2], np.int32)),
    ),
    "adjust_hue": lambda m: m.ops.operations.AdjustHue()(_t(m, IMAGE), _t(m, np.float32(0.3))),
    "adjust_hue_negative": lambda m: m.ops.operations.AdjustHue()(_t(m, IMAGE), _t(m, np.float32(-0.45))),
    "adjust_saturation": lambda m: m.ops.operations.AdjustSaturation()(_t(m, IMAGE), _t(m, np.float32(0.4))),
    "adjust_saturation_up": lambda m: m.ops.operations.AdjustSaturation()(_t(m, IMAGE), _t(m, np.float32(3.0))),
    "ctc_loss": lambda m: m.ops.operations.CTCLoss()(
        _t(m, CTC_IN), _t(m, np.array([[0, 0], [0, 1], [0, 2], [1, 0]], np.int64)),
        _t(m, np.array([1, 3, 3, 2], np.int32)), _t(m, np.array([6, 4], np.int32)),
    ),
    "ctc_loss_collapse": lambda m: m.ops.operations.CTCLoss(preprocess_collapse_repeated=True)(
        _t(m, CTC_IN), _t(m, np.array([[0, 0], [0, 1], [0, 2], [1, 0]], np.int64)),
        _t(m, np.array([1, 3, 3, 2], np.int32)), _t(m, np.array([6, 4], np.int32)),
    ),
    **{f"bessel_{n.lower()}": _bessel_case(n) for n in ("K0", "K0e", "K1", "K1e", "Y0", "Y1")},
    # the Primitive class, beside ops.crop_and_resize: was an AttributeError (its argument hid the image module)
    "crop_and_resize": lambda m: m.ops.operations.CropAndResize(method="bilinear", extrapolation_value=0.5)(
        _t(m, CROP_IMAGE), _t(m, CROP_BOXES), _t(m, np.array([0, 1, 1], np.int32)), (5, 4)
    ),
    "crop_and_resize_nearest": lambda m: m.ops.operations.CropAndResize(method="nearest")(
        _t(m, CROP_IMAGE), _t(m, CROP_BOXES), _t(m, np.array([1, 0, 1], np.int32)), (3, 6)
    ),
    "resize_bicubic": lambda m: m.ops.operations.ResizeBicubic()(_t(m, FEATURES), _t(m, np.array([9, 5], np.int32))),
    "resize_bicubic_align": lambda m: m.ops.operations.ResizeBicubic(align_corners=True)(
        _t(m, FEATURES), _t(m, np.array([4, 10], np.int32))
    ),
    "resize_bicubic_half": lambda m: m.ops.operations.ResizeBicubic(half_pixel_centers=True)(
        _t(m, FEATURES), _t(m, np.array([8, 11], np.int32))
    ),
    "roi_align": lambda m: m.ops.operations.ROIAlign(2, 3, 0.5, 2)(_t(m, FEATURES), _t(m, ROIS)),
    "roi_align_legacy": lambda m: m.ops.operations.ROIAlign(3, 2, 0.25, 3, 0)(_t(m, FEATURES), _t(m, ROIS)),
    "roi_align_adaptive": lambda m: m.ops.operations.ROIAlign(2, 2, 1.0, 0)(_t(m, FEATURES), _t(m, ROIS)),
    "grid_sampler_3d": lambda m: m.ops.operations.GridSampler3D()(_t(m, VOLUME), _t(m, GRID3)),
    "grid_sampler_3d_nearest_border": lambda m: m.ops.operations.GridSampler3D("nearest", "border", True)(
        _t(m, VOLUME), _t(m, GRID3)
    ),
    "max_pool3d_with_argmax": lambda m: m.ops.operations.MaxPool3DWithArgmax((2, 2, 3), (1, 2, 1), (0, 1, 1))(
        _t(m, VOLUME)
    ),
    "combined_nms": lambda m: m.ops.operations.CombinedNonMaxSuppression()(
        _t(m, NMS_BOXES), _t(m, NMS_SCORES), _t(m, np.int32(3)), _t(m, np.int32(5)), _t(m, np.float32(0.3)),
        _t(m, np.float32(0.2)),
    ),
    "combined_nms_pad": lambda m: m.ops.operations.CombinedNonMaxSuppression(True, False)(
        _t(m, NMS_BOXES), _t(m, NMS_SCORES), _t(m, np.int32(2)), _t(m, np.int32(10)), _t(m, np.float32(0.5)),
        _t(m, np.float32(0.4)),
    ),
    "ctc_loss_v2": lambda m: m.ops.operations.CTCLossV2(blank=0, reduction="none")(
        _t(m, LOG_PROBS), _t(m, np.array([[1, 2, 2], [3, 3, 1]], np.int32)), _t(m, np.array([6, 5], np.int32)),
        _t(m, np.array([3, 1], np.int32)),
    ),
    "nms_with_overlaps": lambda m: m.ops.operations.NonMaxSuppressionWithOverlaps()(
        _t(m, OVERLAPS), _t(m, np.array([0.9, 0.8, 0.7, 0.95, 0.1], np.float32)), _t(m, np.int32(3)),
        _t(m, np.float32(0.5)), _t(m, np.float32(0.2)),
    ),
    "fft_c2c": lambda m: m.ops.operations.FFTWithSize(2, False, False)(_t(m, SPECTRUM)),
    "fft_c2c_inverse_ortho": lambda m: m.ops.operations.FFTWithSize(1, True, False, norm="ortho")(_t(m, SPECTRUM)),
    "fft_r2c": lambda m: m.ops.operations.FFTWithSize(2, False, True)(_t(m, SIGNAL)),
    "fft_r2c_full": lambda m: m.ops.operations.FFTWithSize(1, False, True, onesided=False)(_t(m, SIGNAL)),
    "fft_c2r": lambda m: m.ops.operations.FFTWithSize(1, True, True, signal_sizes=(6,))(_t(m, SPECTRUM)),
    "fractional_max_pool2d": lambda m: m.ops.operations.FractionalMaxPoolWithFixedKsize((2, 3), (4, 3))(
        _t(m, POOL2), _t(m, SAMPLES2)
    ),
    "fractional_max_pool2d_func": lambda m: m.ops.fractional_max_pool2d(
        _t(m, POOL2), 3, output_size=(5, 2), return_indices=True, _random_samples=_t(m, SAMPLES2)
    ),
    "fractional_max_pool3d": lambda m: m.ops.operations.FractionalMaxPool3DWithFixedKsize((2, 2, 3), (3, 2, 4))(
        _t(m, POOL3), _t(m, SAMPLES3)
    ),
    "deformable_offsets": lambda m: m.ops.operations.DeformableOffsets((1, 1, 1, 1), (0, 0, 0, 0), (3, 3))(
        _t(m, DCN_X), _t(m, DCN_OFF)
    ),
    "deformable_offsets_stride_pad": lambda m: m.ops.operations.DeformableOffsets(
        (1, 1, 2, 1), (1, 0, 1, 1), (3, 2), (1, 1, 1, 2), "NCHW", 2
    )(_t(m, DCN_X4), _t(m, DCN_OFF2)),
    "deformable_conv2d": lambda m: m.ops.deformable_conv2d(
        _t(m, DCN_X), _t(m, DCN_W), _t(m, DCN_OFF), (3, 3), (1, 1, 1, 1), (0, 0, 0, 0), bias=_t(m, DCN_B)
    ),
    "coalesce": lambda m: m.ops.operations.Coalesce()(
        _t(m, np.array([[0, 2, 0, 1], [1, 0, 1, 2]], np.int64)), _t(m, np.array([1.0, 2.0, 3.0, 4.0], np.float32)),
        _t(m, np.array([3, 3], np.int64)),
    ),
    # a large p: |x|^p underflows unless scaled; a norm below epsilon gives epsilon
    "lp_norm_high_pow": lambda m: m.ops.operations.LpNorm(0, 90, False)(_t(m, LP_X)),
    "lp_norm_high_pow_axes": lambda m: m.ops.operations.LpNorm((0, 1), 60, True)(_t(m, LP_X2)),
    "lp_norm_epsilon": lambda m: m.ops.operations.LpNorm(0, 1, False, 1e-4)(_t(m, LP_TINY)),
    "norm_high_pow": lambda m: m.ops.norm(_t(m, LP_X), 90, dim=0),
    # return_complex left None: a real signal and window give the (..., 2) real view, a complex window complex
    "stft_real_default": lambda m: m.ops.stft(_t(m, STFT_X), 4, center=False, onesided=True),
    "stft_complex_window": lambda m: m.ops.stft(
        _t(m, STFT_X), 4, 2, window=_t(m, np.array([1, 1j, -1, 0.5], np.complex64)), center=False, onesided=False
    ),
    "sparse_apply_rms_prop_fp32": lambda m: _sparse_rms_prop(m, np.float32),
    "sparse_apply_rms_prop_fp16": lambda m: _sparse_rms_prop(m, np.float16),
    # The classes' indices are int32 unless output_type says int64 (Kiln's Argmax gave int64, its Argmin ignored
    # output_type); ops.argmax gives int64, ops.argmin int32.
    "argmax_class": lambda m: (m.ops.operations.Argmax()(_t(m, POOL2)), m.ops.operations.Argmax(1)(_t(m, POOL2)),
                               m.ops.operations.Argmax(output_type=m.int64)(_t(m, POOL2))),
    "argmin_class": lambda m: (m.ops.operations.Argmin()(_t(m, POOL2)), m.ops.operations.Argmin(axis=2)(_t(m, POOL2)),
                               m.ops.operations.Argmin(0, m.int64)(_t(m, POOL2))),
    "argmax_argmin_functions": lambda m: (m.ops.argmax(_t(m, POOL2), 1), m.ops.argmin(_t(m, POOL2), 1)),
    # The GeLU primitive (and its old name Gelu) is the tanh form in MindSpore (it was erf in Kiln, 4.7e-4 off at
    # |x| ~ 2); ops.gelu is erf unless approximate='tanh'
    "gelu_classes_and_function": lambda m: (
        m.ops.operations.GeLU()(_t(m, SIGNAL)), m.ops.operations.Gelu()(_t(m, SIGNAL)), m.ops.gelu(_t(m, SIGNAL)),
        m.ops.gelu(_t(m, SIGNAL), "tanh"), m.ops.grad(lambda x: m.ops.operations.GeLU()(x).sum())(_t(m, SIGNAL))),
    "unique_with_pad": lambda m: (*m.ops.operations.UniqueWithPad()(_t(m, UNIQUE_X), _t(m, np.int32(-1))),
                                  *m.ops.unique_with_pad(_t(m, UNIQUE_X), -1)),
    "conjugate_transpose": lambda m: m.ops.operations.ConjugateTranspose()(_t(m, SPECTRUM), (2, 0, 1)),
    "data_format_dim_map": lambda m: (
        m.ops.operations.DataFormatDimMap()(_t(m, np.arange(-4, 4, dtype=np.int32))),
        m.ops.operations.DataFormatDimMap("NCHW", "NHWC")(_t(m, np.arange(4, dtype=np.int32)))),
    "data_format_vec_permute": lambda m: (
        m.ops.operations.DataFormatVecPermute()(_t(m, np.arange(1, 5, dtype=np.int32))),
        m.ops.operations.DataFormatVecPermute("NCHW", "NHWC")(_t(m, np.arange(8, dtype=np.int32).reshape(4, 2)))),
    "eps_class": lambda m: (
        m.ops.operations.Eps()(_t(m, SIGNAL)), m.ops.operations.Eps()(_t(m, SIGNAL.astype(np.float16))),
        m.ops.eps(_t(m, SIGNAL.astype(np.float64)))),
    "scatter_add_with_axis": lambda m: _scatter_add_with_axis(m),
    "parallel_concat": lambda m: m.ops.operations.ParallelConcat()((_t(m, SIGNAL[:1]), _t(m, SIGNAL[1:]))),
    "hsv_rgb": lambda m: (m.ops.operations.HSVToRGB()(_t(m, PIXELS)), m.ops.operations.RGBToHSV()(_t(m, PIXELS))),
    "apply_add_sign": lambda m: _sign_update(m, "ApplyAddSign", 1.0),
    "apply_power_sign": lambda m: _sign_update(m, "ApplyPowerSign", 2.718),
    "apply_proximal_gradient_descent": lambda m: _proximal_gradient_descent(m),
    # z > 0 in every element: MindSpore 2.10's dense ApplyFtrl kernel follows FTRL's published rule only there (for
    # z < 0 it moves var away from 0 by l1 / quad; Kiln keeps the published rule, as its SparseApplyFtrl does)
    "apply_ftrl": lambda m: _apply_ftrl(m),
}  # fmt: skip

UNIQUE_X = np.array([4, 1, 1, 7, 4, 2, 7, 7], np.int32)
PIXELS = _RNG.uniform(0, 1, size=(2, 3, 4, 3)).astype(np.float32)
OPT_VAR, OPT_M = _RNG.normal(size=(3, 4)).astype(np.float32), _RNG.normal(size=(3, 4)).astype(np.float32)
OPT_GRAD = _RNG.normal(size=(3, 4)).astype(np.float32)


def _scalar(m, value):
    return _t(m, np.float32(value))


def _scatter_add_with_axis(m):
    p = m.Parameter(_t(m, OPT_VAR), name="x")
    out = m.ops.operations.ScatterAddWithAxis(1)(
        p, _t(m, np.array([[0, 0], [3, 1], [2, 2]], np.int32)), _t(m, OPT_M[:, :2])
    )
    return out, p


def _sign_update(m, op, base):
    var, mom = m.Parameter(_t(m, OPT_VAR), name="var"), m.Parameter(_t(m, OPT_M), name="m")
    out = getattr(m.ops.operations, op)()(
        var, mom, _scalar(m, 0.1), _scalar(m, base), _scalar(m, 0.5), _scalar(m, 0.9), _t(m, OPT_GRAD)
    )
    return (*out, var, mom)


def _proximal_gradient_descent(m):
    var = m.Parameter(_t(m, OPT_VAR), name="var")
    out = m.ops.operations.ApplyProximalGradientDescent()(
        var, _scalar(m, 0.1), _scalar(m, 0.05), _scalar(m, 0.02), _t(m, OPT_GRAD)
    )
    return out, var


def _apply_ftrl(m):
    var = m.Parameter(_t(m, np.full((3, 4), -2.0, np.float32)), name="var")
    accum = m.Parameter(_t(m, np.full((3, 4), 0.5, np.float32)), name="accum")
    linear = m.Parameter(_t(m, np.full((3, 4), 0.3, np.float32)), name="linear")
    grad = np.abs(OPT_GRAD) + 0.1  # with var < 0, z = linear + g - sigma var > 0
    out = m.ops.operations.ApplyFtrl()(
        var, accum, linear, _t(m, grad), _scalar(m, 0.1), _scalar(m, 0.01), _scalar(m, 0.02), _scalar(m, -0.5)
    )
    return out, var, accum, linear


def _sparse_rms_prop(m, dtype):
    """SparseApplyRMSProp on the rows, permuted, of Parameters of `dtype`; the outputs and the Parameters after."""
    v, ms_, mom = (m.Parameter(_t(m, a.astype(dtype)), name=n) for a, n in ((RMS_VAR, "v"), (RMS_MS, "ms"),
                                                                           (RMS_MOM, "mom")))  # fmt: skip
    lr = _t(m, np.array(0.01, dtype))
    out = m.ops.operations.SparseApplyRMSProp(0.2, 0.01, 1e-6)(v, ms_, mom, lr, _t(m, RMS_GRAD.astype(dtype)),
                                                               _t(m, np.array([3, 0, 2, 1], np.int32)))  # fmt: skip
    return (*out, v, ms_, mom)


def outputs(value) -> list[np.ndarray]:
    """The outputs of a case as a list of NumPy arrays."""
    items = value if isinstance(value, (tuple, list)) else (value,)
    return [np.asarray(v.asnumpy()) for v in items]
