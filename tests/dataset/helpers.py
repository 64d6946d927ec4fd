"""Writers for small dataset files and independent reference computations."""

from __future__ import annotations

import math
import os
import struct
import wave
from pathlib import Path

import numpy as np
from PIL import Image


def write_idx_images(path: Path, images: np.ndarray, magic: int = 0x00000803) -> None:
    n, h, w = images.shape
    path.write_bytes(struct.pack(">IIII", magic, n, h, w) + images.astype(np.uint8).tobytes())


def write_idx_labels(path: Path, labels: np.ndarray, magic: int = 0x00000801) -> None:
    path.write_bytes(struct.pack(">II", magic, len(labels)) + labels.astype(np.uint8).tobytes())


def make_mnist(root: Path, n_train: int = 100, n_test: int = 30, seed: int = 0):
    """Write MNIST-format files; labels are 0..n-1 so every row can be identified."""
    rng = np.random.default_rng(seed)
    data = {}
    for prefix, n in (("train", n_train), ("t10k", n_test)):
        images = rng.integers(0, 256, size=(n, 28, 28), dtype=np.uint8)
        labels = np.arange(n, dtype=np.uint8)
        write_idx_images(root / f"{prefix}-images-idx3-ubyte", images)
        write_idx_labels(root / f"{prefix}-labels-idx1-ubyte", labels)
        data[prefix] = (images, labels)
    return data


def make_cifar(root: Path, counts=(40, 30), n_test: int = 20, seed: int = 1):
    """Write CIFAR-10 binary batches; returns {file name: (images HWC, labels)}."""
    rng = np.random.default_rng(seed)
    data = {}
    names = [f"data_batch_{i + 1}.bin" for i in range(len(counts))] + ["test_batch.bin"]
    for name, n in zip(names, [*counts, n_test]):
        chw = rng.integers(0, 256, size=(n, 3, 32, 32), dtype=np.uint8)
        labels = rng.integers(0, 10, size=n, dtype=np.uint8)
        records = np.concatenate([labels[:, None], chw.reshape(n, -1)], axis=1)
        (root / name).write_bytes(records.tobytes())
        hwc = np.stack([np.stack([chw[i, c] for c in range(3)], axis=-1) for i in range(n)])
        data[name] = (hwc, labels)
    return data


def ref_bilinear(img: np.ndarray, out_h: int, out_w: int) -> np.ndarray:
    """Scalar OpenCV-style bilinear resize (half-pixel centres, edge clamping), in float64."""
    img = np.asarray(img, dtype=np.float64)
    h, w = img.shape[:2]
    out = np.zeros((out_h, out_w) + img.shape[2:])

    def taps(d, n_in, n_out):
        s = max((d + 0.5) * n_in / n_out - 0.5, 0.0)
        lo = math.floor(s)
        frac = s - lo
        if lo >= n_in - 1:
            return n_in - 1, n_in - 1, 0.0
        return lo, lo + 1, frac

    for y in range(out_h):
        ya, yb, fy = taps(y, h, out_h)
        for x in range(out_w):
            xa, xb, fx = taps(x, w, out_w)
            top = img[ya, xa] * (1 - fx) + img[ya, xb] * fx
            bottom = img[yb, xa] * (1 - fx) + img[yb, xb] * fx
            out[y, x] = top * (1 - fy) + bottom * fy
    return out


def ref_nearest(img: np.ndarray, out_h: int, out_w: int) -> np.ndarray:
    """Scalar OpenCV INTER_NEAREST: src = floor(dst * in / out)."""
    h, w = img.shape[:2]
    out = np.zeros((out_h, out_w) + img.shape[2:], dtype=img.dtype)
    for y in range(out_h):
        for x in range(out_w):
            out[y, x] = img[min(int(y * h / out_h), h - 1), min(int(x * w / out_w), w - 1)]
    return out


def rows(dataset, **kwargs) -> list[list[np.ndarray]]:
    """All rows of one epoch as lists of NumPy arrays."""
    return list(dataset.create_tuple_iterator(output_numpy=True, num_epochs=1, **kwargs))


def column(dataset, index: int = 0) -> list:
    """One column of one epoch, as Python scalars when 0-d."""
    return [r[index].item() if r[index].ndim == 0 else r[index] for r in rows(dataset)]


def write_image(path, value: int = 0) -> None:
    """A 2x3 RGB image of one value, saved in the format its suffix names (folders made as needed)."""
    os.makedirs(os.path.dirname(path), exist_ok=True)
    Image.fromarray(np.full((2, 3, 3), value, np.uint8)).save(path)


def write_wav(path, samples, rate: int = 8000) -> None:
    """A mono 16-bit PCM WAV file of `samples`."""
    with wave.open(str(path), "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(rate)
        w.writeframes(np.asarray(samples, dtype="<i2").tobytes())
