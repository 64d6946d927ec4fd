"""More of MindSpore's layers: image quality (SSIM, MSSSIM, PSNR, CentralCrop), the math Cells (DiGamma, IGamma,
LGamma, LBeta, MatDet, MatInverse, MatrixDiag, MatrixDiagPart), LRN and RReLU, the combined Conv2dBnAct and
DenseBnAct, and ParameterUpdate. Each is the Cell face of Kiln's functional ops."""

from __future__ import annotations

import numpy as np

from kiln import ops
from kiln._core import dtype as mstype
from kiln._core.tensor import Parameter, Tensor
from kiln.nn.cell import Cell, CellList
from kiln.nn.layer.activation import LeakyReLU, get_activation
from kiln.nn.layer.conv import Conv2d
from kiln.nn.layer.dense import Dense
from kiln.nn.layer.normalization import BatchNorm1d, BatchNorm2d

__all__ = [
    "CentralCrop", "Conv2dBnAct", "DenseBnAct", "DiGamma", "FractionalMaxPool2d", "FractionalMaxPool3d", "IGamma",
    "LBeta", "LGamma", "LRN", "MSSSIM", "MatDet", "MatInverse", "MatrixDiag", "MatrixDiagPart", "PSNR",
    "ParameterUpdate", "RReLU", "SSIM", "ClipByNorm", "ImageGradients", "Jvp", "MatrixSetDiag", "SyncBatchNorm",
    "TimeDistributed", "Vjp", "SparseTensorDenseMatmul", "SparseToDense", "MultiFieldEmbeddingLookup",
]  # fmt: skip


def _check_4d(x, name: str, cls: str) -> None:
    if x.ndim != 4:
        raise ValueError(f"For '{cls}', the dimension of '{name}' must be 4d, but got {x.ndim}.")


def _positive_number(cls: str, name: str, value) -> None:
    if not isinstance(value, (int, float)) or isinstance(value, bool):
        raise TypeError(f"For '{cls}', '{name}' must be an int or a float, but got {type(value).__name__}.")
    if value <= 0:
        raise ValueError(f"For '{cls}', '{name}' must be > 0, but got {value}.")


def _float(cls: str, name: str, value) -> float:
    if not isinstance(value, float):
        raise TypeError(f"For '{cls}', '{name}' must be a float, but got {type(value).__name__}.")
    return value


# ---- image quality ------------------------------------------------------------------------------------------------


def _gaussian_window(size: int, sigma: float) -> np.ndarray:
    """The normalised (1, 1, size, size) Gaussian window (taps -size//2+1 .. size//2, MindSpore's grid)."""
    r = np.arange(-size // 2 + 1, size // 2 + 1, dtype=np.float32)
    g = np.exp(-(r[:, None] ** 2 + r[None, :] ** 2) / (2 * sigma**2))
    return (g / g.sum())[None, None].astype(np.float32)


def _window_conv(size: int, sigma: float) -> Conv2d:
    conv = Conv2d(1, 1, size, pad_mode="valid", weight_init=Tensor(_gaussian_window(size, sigma)))
    conv.weight.requires_grad = False
    return conv


def _dtype_max(dtype) -> float:
    return float(np.iinfo(dtype.np).max) if dtype.kind in "iu" else 1.0


def _to_unit(x, dtype_max: float):
    x = ops.cast(x, mstype.float32)
    return x / dtype_max if dtype_max > 1.0 else x


def _unit_max(max_val: float, dtype_max: float) -> float:
    return max_val / dtype_max if dtype_max > 1.0 else float(max_val)


def _ssim_maps(c1, c2, img1, img2, conv):
    """Per channel (N, C) means of the SSIM map and of its contrast-structure part."""
    n, c, h, w = img1.shape
    a = ops.reshape(img1, (n * c, 1, h, w))
    b = ops.reshape(img2, (n * c, 1, h, w))
    mu1, mu2 = conv(a), conv(b)
    s11 = conv(a * a) - mu1 * mu1
    s22 = conv(b * b) - mu2 * mu2
    s12 = conv(a * b) - mu1 * mu2
    v1, v2 = 2 * s12 + c2, s11 + s22 + c2
    ssim = (2 * mu1 * mu2 + c1) * v1 / ((mu1 * mu1 + mu2 * mu2 + c1) * v2)
    cs = v1 / v2
    return ops.reshape(ops.mean(ssim, (1, 2, 3)), (n, c)), ops.reshape(ops.mean(cs, (1, 2, 3)), (n, c))


def _check_same(img1, img2, cls: str) -> None:
    if img1.shape != img2.shape or img1.dtype != img2.dtype:
        raise TypeError(f"For '{cls}', 'img1' and 'img2' must have the same shape and dtype, but got "
                        f"{img1.shape} {img1.dtype} and {img2.shape} {img2.dtype}.")  # fmt: skip


class SSIM(Cell):
    """Structural similarity of two (N, C, H, W) image batches with a Gaussian window (Wang et al. 2004), averaged
    over the channels: shape (N,). Integer images are scaled to [0, 1] by their dtype's maximum."""

    def __init__(self, max_val=1.0, filter_size=11, filter_sigma=1.5, k1=0.01, k2=0.03):
        super().__init__()
        _positive_number("SSIM", "max_val", max_val)
        if not isinstance(filter_size, int) or isinstance(filter_size, bool) or filter_size < 1:
            raise ValueError(f"For 'SSIM', 'filter_size' must be an int >= 1, but got {filter_size!r}.")
        self.max_val, self.filter_size = max_val, filter_size
        self.filter_sigma = _float("SSIM", "filter_sigma", filter_sigma)
        if filter_sigma <= 0:
            raise ValueError(f"For 'SSIM', 'filter_sigma' must be > 0, but got {filter_sigma}.")
        self.k1, self.k2 = _float("SSIM", "k1", k1), _float("SSIM", "k2", k2)
        self.conv = _window_conv(filter_size, filter_sigma)

    def construct(self, img1, img2):
        if img1.dtype not in (mstype.float32, mstype.float16):
            raise TypeError(f"For 'SSIM', 'img1' must be float16 or float32, but got {img1.dtype}.")
        _check_4d(img1, "img1", "SSIM")
        if img1.shape[2] < self.filter_size or img1.shape[3] < self.filter_size:
            raise ValueError(f"For 'SSIM', the image height and width must be >= filter_size {self.filter_size}, "
                             f"but got {img1.shape}.")  # fmt: skip
        _check_same(img1, img2, "SSIM")
        dmax = _dtype_max(img1.dtype)
        max_val = _unit_max(self.max_val, dmax)
        c1, c2 = (self.k1 * max_val) ** 2, (self.k2 * max_val) ** 2
        ssim, _ = _ssim_maps(c1, c2, _to_unit(img1, dmax), _to_unit(img2, dmax), self.conv)
        return ops.mean(ssim, -1)


class MSSSIM(Cell):
    """Multi-scale SSIM (Wang et al. 2003): the contrast-structure terms of the first len(power_factors) - 1 scales
    and the SSIM of the last, each clamped at 0 and raised to its power factor, multiplied; images are halved
    (2x2 average pooling) between scales. Returns (N,), averaged over the channels."""

    def __init__(self, max_val=1.0, power_factors=(0.0448, 0.2856, 0.3001, 0.2363, 0.1333), filter_size=11,
                 filter_sigma=1.5, k1=0.01, k2=0.03):  # fmt: skip
        super().__init__()
        _positive_number("MSSSIM", "max_val", max_val)
        if not isinstance(power_factors, (tuple, list)):
            raise TypeError(f"For 'MSSSIM', 'power_factors' must be a tuple or list, but got {type(power_factors)}.")
        if not isinstance(filter_size, int) or isinstance(filter_size, bool) or filter_size < 1:
            raise ValueError(f"For 'MSSSIM', 'filter_size' must be an int >= 1, but got {filter_size!r}.")
        if not isinstance(filter_sigma, float) or filter_sigma <= 0:
            raise ValueError(f"For 'MSSSIM', 'filter_sigma' must be a positive float, but got {filter_sigma!r}.")
        self.max_val, self.filter_size, self.filter_sigma = max_val, filter_size, filter_sigma
        self.k1, self.k2 = _float("MSSSIM", "k1", k1), _float("MSSSIM", "k2", k2)
        self.level = len(power_factors)
        self.multi_convs_list = CellList([_window_conv(filter_size, filter_sigma) for _ in range(self.level)])
        self.weight_tensor = Tensor(np.array(power_factors, np.float32))

    def construct(self, img1, img2):
        _check_4d(img1, "img1", "MSSSIM")
        _check_4d(img2, "img2", "MSSSIM")
        if img1.dtype not in (mstype.float64, mstype.float32, mstype.float16, mstype.uint8):
            raise TypeError(f"For 'MSSSIM', 'img1' must be float64, float32, float16 or uint8, but got {img1.dtype}.")
        _check_same(img1, img2, "MSSSIM")
        dmax = _dtype_max(img1.dtype)
        max_val = _unit_max(self.max_val, dmax)
        c1, c2 = (self.k1 * max_val) ** 2, (self.k2 * max_val) ** 2
        a, b = _to_unit(img1, dmax), _to_unit(img2, dmax)
        terms = []
        for i in range(self.level):
            ssim, cs = _ssim_maps(c1, c2, a, b, self.multi_convs_list[i])
            if i < self.level - 1:
                terms.append(ops.relu(cs))
                a, b = ops.avg_pool2d(a, 2, 2), ops.avg_pool2d(b, 2, 2)
        terms.append(ops.relu(ssim))
        return ops.mean(ops.prod(ops.pow(ops.stack(terms, -1), self.weight_tensor), -1), -1)


class PSNR(Cell):
    """Peak signal-to-noise ratio 10 log10(max_val^2 / MSE) of two (N, C, H, W) batches: shape (N,)."""

    def __init__(self, max_val=1.0):
        super().__init__()
        _positive_number("PSNR", "max_val", max_val)
        self.max_val = max_val

    def construct(self, img1, img2):
        _check_4d(img1, "img1", "PSNR")
        _check_4d(img2, "img2", "PSNR")
        _check_same(img1, img2, "PSNR")
        dmax = _dtype_max(img1.dtype)
        max_val = _unit_max(self.max_val, dmax)
        mse = ops.mean(ops.square(_to_unit(img1, dmax) - _to_unit(img2, dmax)), (-3, -2, -1))
        return 10 * ops.log(max_val**2 / mse) / float(np.log(10.0))


class CentralCrop(Cell):
    """Crop the central `central_fraction` (0, 1] of the height and width of a (C, H, W) or (N, C, H, W) image."""

    def __init__(self, central_fraction):
        super().__init__()
        if not isinstance(central_fraction, float):
            raise TypeError(f"For 'CentralCrop', 'central_fraction' must be a float, but got "
                            f"{type(central_fraction).__name__}.")  # fmt: skip
        if not 0.0 < central_fraction <= 1.0:
            raise ValueError(f"For 'CentralCrop', 'central_fraction' must be in (0.0, 1.0], but got "
                             f"{central_fraction}.")  # fmt: skip
        self.central_fraction = central_fraction

    def construct(self, image):
        if image.ndim not in (3, 4):
            raise ValueError(f"For 'CentralCrop', the rank of 'image' must be 3 or 4, but got {image.ndim}.")
        if self.central_fraction == 1.0:
            return image
        h, w = image.shape[-2:]
        top = int((float(h) - float(h * self.central_fraction)) / 2)
        left = int((float(w) - float(w * self.central_fraction)) / 2)
        return image[..., top : h - top, left : w - left]


# ---- math ---------------------------------------------------------------------------------------------------------


def _float_input(x, name: str, cls: str) -> None:
    if x.dtype not in (mstype.float16, mstype.float32):
        raise TypeError(f"For '{cls}', the dtype of '{name}' must be float16 or float32, but got {x.dtype}.")


class LGamma(Cell):
    """log|Gamma(x)| elementwise."""

    def construct(self, x):
        return ops.lgamma(x)


class DiGamma(Cell):
    """The digamma function d/dx log Gamma(x), elementwise."""

    def construct(self, x):
        return ops.digamma(x)


class IGamma(Cell):
    """The regularized lower incomplete gamma function P(a, x), elementwise (broadcast)."""

    def construct(self, a, x):
        return ops.igamma(a, x)


class LBeta(Cell):
    """log |B(x, y)| = lgamma(x) + lgamma(y) - lgamma(x + y), elementwise (broadcast); float16 or float32."""

    def construct(self, x, y):
        _float_input(x, "x", "LBeta")
        if y.dtype != x.dtype:
            raise TypeError(f"For 'LBeta', 'y' must have the dtype of 'x' ({x.dtype}), but got {y.dtype}.")
        return ops.lgamma(x) + ops.lgamma(y) - ops.lgamma(x + y)


class MatDet(Cell):
    """Determinants of a batch of square matrices (..., M, M) -> (...)."""

    def construct(self, a):
        _float_input(a, "a", "MatDet")
        return ops.det(a)


class MatInverse(Cell):
    """Inverses of a batch of square matrices (..., M, M)."""

    def construct(self, a):
        _float_input(a, "a", "MatInverse")
        return ops.inverse(a)


class MatrixDiag(Cell):
    """(..., N) -> (..., N, N): the batched diagonal matrices with the given diagonals."""

    def construct(self, input_x):
        return ops.diag_embed(input_x)


class MatrixDiagPart(Cell):
    """(..., M, N) -> (..., min(M, N)): the batched main diagonals."""

    def construct(self, input_x):
        return ops.diagonal(input_x, 0, -2, -1)


# ---- activations --------------------------------------------------------------------------------------------------


class RReLU(Cell):
    """Randomized leaky ReLU: x where x >= 0, else x times a slope drawn uniformly from [lower, upper] per element."""

    def __init__(self, lower=1 / 8, upper=1 / 3):
        super().__init__()
        for name, v in (("upper", upper), ("lower", lower)):
            if not isinstance(v, (int, float)) or isinstance(v, bool):
                raise TypeError(f"For 'RReLU', '{name}' must be an int or a float, but got {type(v).__name__}.")
        if lower > upper:
            raise ValueError(f"For RReLU, the value of 'upper' must be greater than or equal to 'lower', but got "
                             f"upper: {upper}, lower: {lower}. ")  # fmt: skip
        self.lower, self.upper = float(lower), float(upper)

    def construct(self, x):
        if not isinstance(x, Tensor):
            raise TypeError(f"For 'rrelu', the input must be a Tensor, but got {type(x)}.")
        return ops.rrelu(x, self.lower, self.upper)


class LRN(Cell):
    """Local response normalization across channels: x / (bias + alpha * sum of squares over depth_radius)^beta."""

    def __init__(self, depth_radius=5, bias=1.0, alpha=1.0, beta=0.5, norm_region="ACROSS_CHANNELS"):
        super().__init__()
        if not isinstance(depth_radius, int) or isinstance(depth_radius, bool):
            raise TypeError(f"For 'LRN', 'depth_radius' must be an int, but got {type(depth_radius).__name__}.")
        for name, v in (("bias", bias), ("alpha", alpha), ("beta", beta)):
            _float("LRN", name, v)
        if norm_region != "ACROSS_CHANNELS":
            raise ValueError(f"For 'LRN', 'norm_region' must be 'ACROSS_CHANNELS', but got {norm_region!r}.")
        self.depth_radius, self.bias, self.alpha, self.beta = depth_radius, bias, alpha, beta
        self.norm_region = norm_region

    def construct(self, input_x):
        return ops.lrn(input_x, self.depth_radius, self.bias, self.alpha, self.beta, self.norm_region)


# ---- combined -----------------------------------------------------------------------------------------------------


def _activation(cls: str, activation, alpha):
    if activation == "leakyrelu":
        return LeakyReLU(alpha)
    act = get_activation(activation) if isinstance(activation, str) else activation
    if activation is not None and not (isinstance(act, Cell) or callable(act)):
        raise TypeError(f"For '{cls}', the 'activation' must be str or Cell or Primitive, but got "
                        f"{type(activation).__name__}.")  # fmt: skip
    return act


def _bool(cls: str, name: str, v) -> bool:
    if not isinstance(v, bool):
        raise TypeError(f"For '{cls}', '{name}' must be a bool, but got {type(v).__name__}.")
    return v


class Conv2dBnAct(Cell):
    """Conv2d, then (has_bn) BatchNorm2d(out_channels, eps, momentum), then the activation (a name, a Cell, or
    'leakyrelu' with slope `alpha`); sub-cells `conv`, `batchnorm`, `activation` as MindSpore names them."""

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, pad_mode="same", padding=0, dilation=1,
                 group=1, has_bias=False, weight_init="normal", bias_init="zeros", has_bn=False, momentum=0.997,
                 eps=1e-5, activation=None, alpha=0.2, after_fake=True):  # fmt: skip
        super().__init__()
        self.conv = Conv2d(in_channels, out_channels, kernel_size=kernel_size, stride=stride, pad_mode=pad_mode,
                           padding=padding, dilation=dilation, group=group, has_bias=has_bias,
                           weight_init=weight_init, bias_init=bias_init)  # fmt: skip
        self.has_bn = _bool("Conv2dBnAct", "has_bn", has_bn)
        self.has_act = activation is not None
        self.after_fake = _bool("Conv2dBnAct", "after_fake", after_fake)
        if has_bn:
            self.batchnorm = BatchNorm2d(out_channels, eps, momentum)
        self.activation = _activation("Conv2dBnAct", activation, alpha)

    def construct(self, x):
        x = self.conv(x)
        if self.has_bn:
            x = self.batchnorm(x)
        if self.has_act:
            x = self.activation(x)
        return x


class DenseBnAct(Cell):
    """Dense, then (has_bn) BatchNorm1d(out_channels, eps, momentum), then the activation; sub-cells `dense`,
    `batchnorm`, `activation`."""

    def __init__(self, in_channels, out_channels, weight_init="normal", bias_init="zeros", has_bias=True,
                 has_bn=False, momentum=0.9, eps=1e-5, activation=None, alpha=0.2, after_fake=True):  # fmt: skip
        super().__init__()
        self.dense = Dense(in_channels, out_channels, weight_init, bias_init, has_bias)
        self.has_bn = _bool("DenseBnAct", "has_bn", has_bn)
        self.has_act = activation is not None
        self.after_fake = _bool("DenseBnAct", "after_fake", after_fake)
        if has_bn:
            self.batchnorm = BatchNorm1d(out_channels, eps, momentum)
        self.activation = _activation("DenseBnAct", activation, alpha)

    def construct(self, x):
        x = self.dense(x)
        if self.has_bn:
            x = self.batchnorm(x)
        if self.has_act:
            x = self.activation(x)
        return x


class ParameterUpdate(Cell):
    """Assign a new value to a Parameter: `ParameterUpdate(param)(value)` writes `value` into `param` (same shape
    and dtype) and returns it."""

    def __init__(self, param):
        super().__init__(auto_prefix=False)
        if not isinstance(param, Parameter):
            raise TypeError(f"For 'ParameterUpdate', 'param' must be 'Parameter', but got {type(param).__name__}.")
        self._param = param

    def construct(self, x):
        ops.assign(self._param, x)
        return x


# ---- fractional max pooling ---------------------------------------------------------------------------------------


def _fractional_starts(u, in_size: int, k: int, out: int):
    """Window starts (..., out) of fractional max pooling (Graham 2014) for uniform samples u (...): consecutive
    starts differ by floor or ceil of alpha = (in - k) / (out - 1); the last window ends at the input's end."""
    if out == 1:
        return ops.fill(mstype.int32, u.shape + (1,), in_size - k)
    alpha = (in_size - k) / (out - 1)
    i = ops.arange(0, out - 1, dtype=mstype.float32)
    u = ops.expand_dims(ops.cast(u, mstype.float32), -1)
    starts = ops.floor((i + u) * alpha) - ops.floor(u * alpha)
    last = ops.fill(mstype.float32, u.shape[:-1] + (1,), float(in_size - k))
    return ops.cast(ops.concat((starts, last), -1), mstype.int32)


def _tuple(value, n: int, name: str, cls: str) -> tuple:
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return (value,) * n
    if isinstance(value, (tuple, list)) and len(value) == n:
        return tuple(value)
    raise TypeError(f"For '{cls}', '{name}' must be a number or a tuple of {n}, but got {value!r}.")


class _FractionalMaxPool(Cell):
    _dims = 2
    _sample_of_axis = (1, 0)  # which random sample drives each spatial axis (MindSpore's kernels: 2-D W, H)

    def __init__(self, kernel_size, output_size=None, output_ratio=None, return_indices=False,
                 _random_samples=None):  # fmt: skip
        super().__init__()
        cls, n = type(self).__name__, self._dims
        self.kernel_size = _tuple(kernel_size, n, "kernel_size", cls)
        if any(not isinstance(k, int) or k <= 0 for k in self.kernel_size):
            raise ValueError(f"For '{cls}', 'kernel_size' must hold positive ints, but got {kernel_size!r}.")
        if output_size is None and output_ratio is None:
            raise ValueError(f"For '{cls}', 'output_size' and 'output_ratio' can not be None at the same time.")
        self.output_size = None if output_size is None else _tuple(output_size, n, "output_size", cls)
        self.output_ratio = None if output_ratio is None else _tuple(output_ratio, n, "output_ratio", cls)
        if self.output_ratio is not None and any(not 0 < r < 1 for r in self.output_ratio):
            raise ValueError(f"For '{cls}', 'output_ratio' must be in (0, 1), but got {output_ratio!r}.")
        self.return_indices = return_indices
        self._random_samples = _random_samples

    def construct(self, x):
        cls, n = type(self).__name__, self._dims
        batched = x.ndim == n + 2
        if x.ndim not in (n + 1, n + 2):
            raise ValueError(f"For '{cls}', the input must be {n + 1}-D or {n + 2}-D, but got {x.ndim}-D.")
        if not batched:
            x = ops.expand_dims(x, 0)
        lead, spatial = x.shape[:2], x.shape[2:]
        if self.output_size is not None:
            out = self.output_size
        else:
            out = tuple(int(s * r) for s, r in zip(spatial, self.output_ratio))
        for s, k, o in zip(spatial, self.kernel_size, out):
            if o + k - 1 > s:
                raise ValueError(f"For '{cls}', output_size + kernel_size - 1 must be <= the input size, but got "
                                 f"output {out}, kernel {self.kernel_size}, input {spatial}.")  # fmt: skip
        samples = self._random_samples
        if samples is None:
            samples = ops.uniform(lead + (n,), Tensor(0.0, mstype.float32), Tensor(1.0, mstype.float32))
        index = None
        for d in range(n):
            starts = _fractional_starts(samples[..., self._sample_of_axis[d]], spatial[d], self.kernel_size[d], out[d])
            pos = ops.expand_dims(starts, -1) + ops.arange(0, self.kernel_size[d], dtype=mstype.int32)  # (N, C, o, k)
            stride = int(np.prod(spatial[d + 1 :], dtype=np.int64))
            pos = pos * stride
            if index is None:
                index = pos
            else:  # (N, C, o_0, k_0, ..., o_d-1, k_d-1) + (o_d, k_d)
                index = ops.expand_dims(ops.expand_dims(index, -1), -1) + ops.reshape(
                    pos, lead + (1,) * (2 * d) + (out[d], self.kernel_size[d]))  # fmt: skip
        perm = (0, 1) + tuple(2 + 2 * d for d in range(n)) + tuple(3 + 2 * d for d in range(n))
        index = ops.reshape(ops.transpose(index, perm), lead + out + (-1,))  # (N, C, *out, prod(k))
        flat = ops.reshape(x, lead + (-1,))
        windows = ops.gather_elements(flat, 2, ops.reshape(index, lead + (-1,)))
        windows = ops.reshape(windows, index.shape)
        y = ops.amax(windows, -1)
        if not batched:
            y = ops.squeeze(y, 0)
        if not self.return_indices:
            return y
        arg = ops.argmax(windows, -1, keepdim=True)
        idx = ops.cast(ops.squeeze(ops.gather_elements(index, index.ndim - 1, ops.cast(arg, mstype.int32)), -1),
                       mstype.int64)  # fmt: skip
        return y, (idx if batched else ops.squeeze(idx, 0))


class FractionalMaxPool2d(_FractionalMaxPool):
    """Fractional max pooling over (N, C, H, W) or (C, H, W) (Graham 2014): kernel_size windows at pseudo-random
    strides chosen from `_random_samples` (N, C, 2) in [0, 1) (drawn when None) so that the output is
    `output_size` or input * `output_ratio`; `return_indices` adds the flat H*W index of each maximum."""

    _dims = 2


class FractionalMaxPool3d(_FractionalMaxPool):
    """Fractional max pooling over (N, C, D, H, W) or (C, D, H, W); `_random_samples` is (N, C, 3)."""

    _dims = 3
    _sample_of_axis = (0, 1, 2)  # D, H, W


# ---- more MindSpore nn Cells --------------------------------------------------------------------------------------


class ClipByNorm(Cell):
    """Scale `x` so that its L2 norm over `axis` (all axes when None) is at most `clip_norm`."""

    def __init__(self, axis=None):
        super().__init__()
        self.axis = () if axis is None else axis

    def construct(self, x, clip_norm):
        x32 = ops.cast(x, mstype.float32)
        axis = tuple(range(x.ndim)) if self.axis in ((), None) else self.axis
        l2 = ops.sqrt(ops.sum(x32 * x32, axis, keepdim=True))
        clip = ops.cast(clip_norm, mstype.float32)
        return ops.cast(x32 * clip / ops.maximum(l2, clip), x.dtype)


class ImageGradients(Cell):
    """(dy, dx) of an (N, C, H, W) image: forward differences along H and W, zero in the last row / column."""

    def construct(self, images):
        _check_4d(images, "images", "ImageGradients")
        n, c, h, w = images.shape
        zeros_row = ops.zeros((n, c, 1, w), images.dtype)
        zeros_col = ops.zeros((n, c, h, 1), images.dtype)
        dy = zeros_row if h == 1 else ops.concat((images[:, :, 1:, :] - images[:, :, : h - 1, :], zeros_row), 2)
        dx = zeros_col if w == 1 else ops.concat((images[:, :, :, 1:] - images[:, :, :, : w - 1], zeros_col), 3)
        return dy, dx


class SyncBatchNorm(BatchNorm2d):
    """Batch normalization whose statistics MindSpore synchronises across the devices of `process_groups`; in one
    process it is BatchNorm2d over (N, C, H, W) (MindSpore's defaults: momentum 0.9)."""

    def __init__(self, num_features, eps=1e-5, momentum=0.9, affine=True, gamma_init="ones", beta_init="zeros",
                 moving_mean_init="zeros", moving_var_init="ones", use_batch_statistics=None, process_groups=None,
                 dtype=mstype.float32):  # fmt: skip
        super().__init__(num_features, eps, momentum, affine, gamma_init, beta_init, moving_mean_init,
                         moving_var_init, use_batch_statistics, dtype=dtype)  # fmt: skip
        self.process_groups = process_groups


class MatrixSetDiag(Cell):
    """Replace the main diagonal of each (..., M, N) matrix of `input_x` by `diagonal` (..., min(M, N))."""

    def construct(self, input_x, diagonal):
        m, n = input_x.shape[-2:]
        k = min(m, n)
        eye = ops.eye(m, n, input_x.dtype)
        diag = ops.pad(diagonal, (0, n - k)) if n > k else diagonal
        return input_x * (1 - eye) + eye * ops.expand_dims(ops.cast(diag, input_x.dtype), -2)


class TimeDistributed(Cell):
    """Apply `layer` to every slice of the input along `time_axis` (outputs stacked on that axis); with
    `reshape_with_axis`, the time axis is merged into that axis for one call of `layer` and split again."""

    def __init__(self, layer, time_axis, reshape_with_axis=None):
        if not isinstance(layer, Cell) and not callable(layer):
            raise TypeError(f"For 'TimeDistributed', the 'layer' must be Cell or Primitive instance, but got type: "
                            f"{type(layer).__name__}.")  # fmt: skip
        super().__init__()
        for name, v in (("time_axis", time_axis), ("reshape_with_axis", reshape_with_axis)):
            if v is not None and (isinstance(v, bool) or not isinstance(v, int)):
                raise TypeError(f"For 'TimeDistributed', '{name}' must be an int, but got {type(v).__name__}.")
        self.layer, self.time_axis, self.reshape_with_axis = layer, time_axis, reshape_with_axis

    def construct(self, inputs):
        if not isinstance(inputs, Tensor):
            raise TypeError("For 'TimeDistributed', the inputs and outputs must be a Tensor.")
        if inputs.ndim < 3:
            raise ValueError(f"For 'TimeDistributed', inputs shape must be at least 3D, but got {inputs.ndim}.")
        rank = inputs.ndim
        t = self.time_axis % rank
        if self.reshape_with_axis is None:
            outs = [self.layer(x) for x in ops.unstack(inputs, t)]
            return ops.stack(outs, t)
        r = self.reshape_with_axis % rank
        # bring the time axis next to the merged axis, then merge the pair into one
        t_new = rank - 2 if r == rank - 1 else (r + 1 if t > r else r - 1)
        pos = min(t_new, r)
        lo, hi = min(t_new, t), max(t_new, t)
        perm = tuple(range(lo)) + (hi,) + tuple(range(lo, hi)) + tuple(range(hi + 1, rank))
        moved = ops.transpose(inputs, perm)
        shape = moved.shape
        outputs = self.layer(ops.reshape(moved, shape[:pos] + (-1,) + shape[pos + 2 :]))
        if pos >= outputs.ndim:
            raise ValueError("For 'TimeDistributed', 'reshape_with_axis' is invalid for this layer's output.")
        new_shape = outputs.shape[:pos] + shape[pos : pos + 2] + outputs.shape[pos + 1 :]
        return ops.reshape(outputs, (-1,) + new_shape[1:])


class _Transform(Cell):
    def __init__(self, fn) -> None:
        super().__init__()
        if not callable(fn):
            raise TypeError(f"For '{type(self).__name__}', 'fn' must be a Cell or function, but got {type(fn)}.")
        self.fn = fn

    def _split(self, args):
        name = type(self).__name__
        if len(args) < 2:
            raise TypeError(f"For '{name}', the inputs must be the network's inputs followed by 'v'.")
        *inputs, v = args
        for x in inputs:
            if not isinstance(x, Tensor):
                raise TypeError(f"For '{name}', every input must be a Tensor, but got {type(x).__name__}.")
        return tuple(inputs), v

    @staticmethod
    def _match(name: str, what: str, v, n: int):
        """`v` must be a Tensor for one item, a tuple of n Tensors for n > 1."""
        if n == 1:
            if not isinstance(v, Tensor):
                raise TypeError(f"For '{name}', 'v' must be a Tensor for one {what}, but got {type(v).__name__}.")
            return v
        if not isinstance(v, (tuple, list)) or len(v) != n or not all(isinstance(t, Tensor) for t in v):
            raise TypeError(f"For '{name}', 'v' must be a tuple of {n} Tensors, one per {what}, but got {v!r}.")
        return tuple(v)


class Jvp(_Transform):
    """`Jvp(fn)(*inputs, v)` -> (fn(*inputs), J v): the Jacobian-vector product of `fn` (forward mode); `v` is a
    Tensor for one input, a tuple with one tangent per input otherwise."""

    def construct(self, *args):
        inputs, v = self._split(args)
        v = self._match("Jvp", "input", v, len(inputs))
        return ops.jvp(self.fn, inputs if len(inputs) > 1 else inputs[0], v)


class Vjp(_Transform):
    """`Vjp(fn)(*inputs, v)` -> (fn(*inputs), v^T J): the vector-Jacobian product of `fn` (reverse mode); `v` is a
    Tensor for one output, a tuple with one cotangent per output otherwise; the gradients are one Tensor for one
    input, a tuple otherwise."""

    def construct(self, *args):
        inputs, v = self._split(args)
        out, vjp_fn = ops.vjp(self.fn, *inputs)
        n_out = len(out) if isinstance(out, (tuple, list)) else 1
        v = self._match("Vjp", "output", v, n_out)
        grads = vjp_fn(v)
        return out, grads[0] if isinstance(grads, tuple) and len(inputs) == 1 else grads


# ---- sparse -------------------------------------------------------------------------------------------------------


class SparseToDense(Cell):
    """The dense Tensor of a COOTensor / SparseTensor (its `indices`, `values` and `shape`)."""

    def construct(self, sparse_tensor):
        from kiln.ops.operations import SparseToDense as _SparseToDense  # noqa: PLC0415

        return _SparseToDense()(sparse_tensor.indices, sparse_tensor.values, tuple(sparse_tensor.shape))


class SparseTensorDenseMatmul(Cell):
    """(sparse (indices, values, sparse_shape)) @ dense, with `adjoint_st` / `adjoint_dt` transposing either side."""

    def __init__(self, adjoint_st=False, adjoint_dt=False):
        super().__init__()
        for name, v in (("adjoint_st", adjoint_st), ("adjoint_dt", adjoint_dt)):
            if not isinstance(v, bool):
                raise TypeError(f"For 'SparseTensorDenseMatmul', '{name}' must be a bool, but got {type(v)}.")
        self.adjoint_st, self.adjoint_dt = adjoint_st, adjoint_dt

    def construct(self, indices, values, sparse_shape, dense):
        from kiln.ops.operations import SparseToDense as _SparseToDense  # noqa: PLC0415

        a = _SparseToDense()(indices, values, tuple(sparse_shape))
        if self.adjoint_st:
            a = ops.transpose(a, (1, 0))
        if self.adjoint_dt:
            dense = ops.transpose(dense, (1, 0))
        return ops.matmul(a, ops.cast(dense, a.dtype))


# ---- multi-field embedding ----------------------------------------------------------------------------------------


def _multi_field_base():
    from kiln.nn.layer.extra import EmbeddingLookup  # noqa: PLC0415

    return EmbeddingLookup


class MultiFieldEmbeddingLookup(_multi_field_base()):
    """Look up (batch, seq) `input_indices` in `embedding_table`, weight each row by `input_values`, and merge the
    rows of each sample by their `field_ids` into (batch, field_size, embedding_size) with 'SUM', 'MAX' (rows with
    weight 0 are left out; an empty field is 0) or 'MEAN' (sum / sum of |weights|, 0 for an empty field)."""

    def __init__(self, vocab_size, embedding_size, field_size, param_init="normal", target="CPU",
                 slice_mode="batch_slice", feature_num_list=None, max_norm=None, sparse=True, operator="SUM",
                 dtype=mstype.float32):  # fmt: skip
        super().__init__(vocab_size, embedding_size, param_init, target, slice_mode, feature_num_list, max_norm,
                         sparse, dtype=dtype)  # fmt: skip
        if not isinstance(field_size, int) or isinstance(field_size, bool) or field_size <= 0:
            raise ValueError(f"For 'MultiFieldEmbeddingLookup', 'field_size' must be a positive int, but got "
                             f"{field_size!r}.")  # fmt: skip
        if operator not in ("SUM", "MAX", "MEAN"):
            raise ValueError(f"For 'MultiFieldEmbeddingLookup', 'operator' must be one of ['SUM', 'MAX', 'MEAN'], "
                             f"but got {operator!r}.")  # fmt: skip
        self.field_size, self.operator = field_size, operator

    def construct(self, input_indices, input_values, field_ids):
        for name, t in (("input_indices", input_indices), ("input_values", input_values), ("field_ids", field_ids)):
            if t.ndim != 2:
                raise ValueError(f"For 'MultiFieldEmbeddingLookup', '{name}' must be 2-D, but got {t.ndim}-D.")
        out = super().construct(input_indices)  # (B, S, E)
        weights = ops.expand_dims(ops.cast(input_values, out.dtype), -1)
        emb = out * weights
        onehot = ops.one_hot(ops.cast(field_ids, mstype.int32), self.field_size, Tensor(1.0, out.dtype),
                             Tensor(0.0, out.dtype))  # (B, S, F)  # fmt: skip
        count = ops.sum(ops.abs(ops.expand_dims(ops.cast(input_values, out.dtype), -1)) * onehot, 1)  # (B, F)
        if self.operator == "MAX":
            lowest = Tensor(np.float32(-3.402823466e38), out.dtype)
            emb = ops.select(ops.broadcast_to(weights == 0, emb.shape), ops.broadcast_to(lowest, emb.shape), emb)
            member = ops.expand_dims(onehot, -1) > 0  # (B, S, F, 1)
            cand = ops.select(ops.broadcast_to(member, member.shape[:3] + (emb.shape[-1],)),
                              ops.broadcast_to(ops.expand_dims(emb, 2), member.shape[:3] + (emb.shape[-1],)),
                              ops.broadcast_to(lowest, member.shape[:3] + (emb.shape[-1],)))  # fmt: skip
            merged = ops.amax(cand, 1)
            return merged * ops.expand_dims(ops.cast(count != 0, out.dtype), -1)
        merged = ops.matmul(ops.transpose(onehot, (0, 2, 1)), emb)  # (B, F, E)
        if self.operator == "MEAN":
            c = ops.expand_dims(count, -1)
            merged = ops.select(ops.broadcast_to(c == 0, merged.shape), ops.zeros_like(merged),
                                merged / ops.select(c == 0, ops.ones_like(c), c))  # fmt: skip
        return merged
