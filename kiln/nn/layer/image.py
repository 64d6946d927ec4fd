"""Image layers: pixel and channel shuffles, image quality (SSIM, MSSSIM, PSNR), CentralCrop, ImageGradients and
the patch extractor Unfold."""

from __future__ import annotations

import numpy as np

from kiln import ops
from kiln._core import dtype as mstype
from kiln._core.tensor import Tensor
from kiln.nn._checks import float_arg
from kiln.nn.cell import Cell, CellList
from kiln.nn.layer.conv import Conv2d

__all__ = [
    "PixelShuffle", "PixelUnshuffle", "ChannelShuffle", "SSIM", "MSSSIM", "PSNR", "CentralCrop", "ImageGradients",
    "Unfold",
]  # fmt: skip


class PixelShuffle(Cell):
    """(*, C r^2, H, W) -> (*, C, H r, W r)."""

    def __init__(self, upscale_factor) -> None:
        super().__init__()
        self.upscale_factor = upscale_factor

    def construct(self, input):
        return ops.pixel_shuffle(input, self.upscale_factor)


class PixelUnshuffle(Cell):
    """(*, C, H r, W r) -> (*, C r^2, H, W)."""

    def __init__(self, downscale_factor) -> None:
        super().__init__()
        self.downscale_factor = downscale_factor

    def construct(self, input):
        return ops.pixel_unshuffle(input, self.downscale_factor)


class ChannelShuffle(Cell):
    """Interleave the channels of `groups` groups."""

    def __init__(self, groups) -> None:
        super().__init__()
        if not isinstance(groups, int) or isinstance(groups, bool) or groups < 1:
            raise ValueError(f"For 'ChannelShuffle', 'groups' must be a positive int, but got {groups!r}.")
        self.groups = groups

    def construct(self, x):
        return ops.channel_shuffle(x, self.groups)


def _check_4d(x, name: str, cls: str) -> None:
    if x.ndim != 4:
        raise ValueError(f"For '{cls}', the dimension of '{name}' must be 4d, but got {x.ndim}.")


def _positive_number(cls: str, name: str, value) -> None:
    if not isinstance(value, (int, float)) or isinstance(value, bool):
        raise TypeError(f"For '{cls}', '{name}' must be an int or a float, but got {type(value).__name__}.")
    if value <= 0:
        raise ValueError(f"For '{cls}', '{name}' must be > 0, but got {value}.")


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
        self.filter_sigma = float_arg("SSIM", "filter_sigma", filter_sigma)
        if filter_sigma <= 0:
            raise ValueError(f"For 'SSIM', 'filter_sigma' must be > 0, but got {filter_sigma}.")
        self.k1, self.k2 = float_arg("SSIM", "k1", k1), float_arg("SSIM", "k2", k2)
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
        self.k1, self.k2 = float_arg("MSSSIM", "k1", k1), float_arg("MSSSIM", "k2", k2)
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


def _nhwc_window(name: str, value) -> tuple[int, int, int, int]:
    """An Unfold window argument `[1, rows, cols, 1]` as the (1, 1, rows, cols) ExtractImagePatches takes."""
    if not isinstance(value, (tuple, list)):
        raise TypeError(f"For 'Unfold', '{name}' must be a tuple or list [1, rows, cols, 1], but got {value!r}.")
    if len(value) != 4 or value[0] != 1 or value[3] != 1:
        raise ValueError(f"For 'Unfold', '{name}' must have the form [1, rows, cols, 1], but got {list(value)}.")
    rows, cols = value[1], value[2]
    if not all(isinstance(v, int) and not isinstance(v, bool) and v >= 1 for v in (rows, cols)):
        raise ValueError(f"For 'Unfold', the rows and cols of '{name}' must be positive ints, but got {list(value)}.")
    return 1, 1, rows, cols


class Unfold(Cell):
    """Extract image patches (MindSpore's deprecated `nn.Unfold`; `ops.unfold` is the current form).

    Args:
        ksizes: the window, `[1, rows, cols, 1]`.
        strides: the step between windows, `[1, rows, cols, 1]`.
        rates: the step between a window's taps (dilation), `[1, rows, cols, 1]`.
        padding: "valid" (windows inside the image) or "same" (zero-padded, ceil(size / stride) windows a side);
            case-insensitive.

    Inputs:
        x: (N, C, H, W).

    Returns:
        (N, rows * cols * C, out_rows, out_cols): each output position's patch, ordered (row, col, channel).
    """

    def __init__(self, ksizes, strides, rates, padding: str = "valid") -> None:
        super().__init__()
        if not isinstance(padding, str) or padding.upper() not in ("VALID", "SAME"):
            raise ValueError(f"For 'Unfold', 'padding' must be 'valid' or 'same', but got {padding!r}.")
        windows = (_nhwc_window(n, v) for n, v in (("ksizes", ksizes), ("strides", strides), ("rates", rates)))
        self.extract_image_patches = ops.ExtractImagePatches(*windows, padding.upper())

    def construct(self, input_x):
        return self.extract_image_patches(input_x)
