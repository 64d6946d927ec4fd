"""Tiny dataset files in the layouts MindSpore's sources read, made in a test's temporary folder.

Uses only the standard library, NumPy and Pillow, so that both Kiln's tests and the golden script
(run under MindSpore's environment) can build the same files.
"""

from __future__ import annotations

import io
import json
import os
import struct
import wave

import numpy as np

IMG = np.random.default_rng(7).integers(0, 256, (7, 9, 3), dtype=np.uint8)

# name -> (transform built from (kiln or mindspore) vision module, input)
VISION_CASES = {
    "brightness": (lambda m: m.AdjustBrightness(1.37), IMG),
    "contrast": (lambda m: m.AdjustContrast(0.6), IMG),
    "saturation": (lambda m: m.AdjustSaturation(1.5), IMG),
    "hue": (lambda m: m.AdjustHue(0.2), IMG),
    "gamma": (lambda m: m.AdjustGamma(0.5, 1.1), IMG),
    "sharpness": (lambda m: m.AdjustSharpness(2.0), IMG),
    "autocontrast": (lambda m: m.AutoContrast(), IMG // 2 + 40),
    "autocontrast_cut": (lambda m: m.AutoContrast(cutoff=10.0), IMG),
    "equalize": (lambda m: m.Equalize(), IMG // 3),
    "invert": (lambda m: m.Invert(), IMG),
    "posterize": (lambda m: m.Posterize(3), IMG),
    "solarize": (lambda m: m.Solarize((60, 180)), IMG),
    "rgb2gray": (lambda m: m.ConvertColor(m.ConvertMode.COLOR_RGB2GRAY), IMG),
    "rgb2bgr": (lambda m: m.ConvertColor(m.ConvertMode.COLOR_RGB2BGR), IMG),
    "rgb2rgba": (lambda m: m.ConvertColor(m.ConvertMode.COLOR_RGB2RGBA), IMG),
    "crop": (lambda m: m.Crop((1, 2), (3, 4)), IMG),
    "hflip": (lambda m: m.HorizontalFlip(), IMG),
    "vflip": (lambda m: m.VerticalFlip(), IMG),
    "erase": (lambda m: m.Erase(1, 2, 3, 4, (10, 20, 30)), IMG),
    "blur": (lambda m: m.GaussianBlur(3, 1.2), IMG),
    "blur5": (lambda m: m.GaussianBlur((5, 3), (1.5, 0.8)), IMG),
    "padtosize": (lambda m: m.PadToSize((10, 12), fill_value=5), IMG),
    "padtosize_off": (lambda m: m.PadToSize((10, 12), offset=(1, 2)), IMG),
    "resizedcrop": (lambda m: m.ResizedCrop(1, 2, 5, 6, (4, 5)), IMG),
    "rotate_nearest": (lambda m: m.Rotate(30), IMG),
    "rotate90": (lambda m: m.Rotate(90), IMG[:7, :7]),
    "rotate_expand": (lambda m: m.Rotate(30, expand=True), IMG),
    "rotate_bilinear": (lambda m: m.Rotate(25, m.Inter.BILINEAR), IMG),
    "normalizepad": (lambda m: m.NormalizePad([100.0, 110.0, 120.0], [50.0, 60.0, 70.0]), IMG),
    "rgb2hsv": (lambda m: m.RgbToHsv(), (IMG.transpose(2, 0, 1) / 255.0).astype(np.float32)),
    "hsv2rgb": (lambda m: m.HsvToRgb(is_hwc=True), (IMG / 255.0).astype(np.float32)),
    "totype": (lambda m: m.ToType(np.float32), IMG),
}


def _write(path: str, data: bytes | str) -> str:
    os.makedirs(os.path.dirname(path), exist_ok=True)
    mode = "wb" if isinstance(data, bytes) else "w"
    with open(path, mode, **({} if isinstance(data, bytes) else {"encoding": "utf-8", "newline": ""})) as f:
        f.write(data)
    return path


def png_bytes(seed: int, size=(6, 5)) -> bytes:
    from PIL import Image

    arr = np.random.default_rng(seed).integers(0, 256, size=(*size, 3), dtype=np.uint8)
    buf = io.BytesIO()
    Image.fromarray(arr).save(buf, format="PNG")
    return buf.getvalue()


def wav_bytes(seed: int, n: int = 12, rate: int = 8000) -> bytes:
    samples = np.random.default_rng(seed).integers(-30000, 30000, size=n).astype("<i2")
    buf = io.BytesIO()
    with wave.open(buf, "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(rate)
        w.writeframes(samples.tobytes())
    return buf.getvalue()


def make_all(root: str) -> dict[str, str]:
    """Write every fixture under `root`; returns name -> path."""
    paths = {}
    # text and CSV
    paths["text_a"] = _write(f"{root}/text/a.txt", "hello world\n\nsecond line\nthird\n")
    paths["text_b"] = _write(f"{root}/text/b.txt", "b1\nb2\nb3\n")
    paths["csv"] = _write(f"{root}/csv/c.csv", 'id,name,score\n1,ab,1.5\n2,"c,d",3\n3,e,-2\n')
    for name, cols in [("agnews", 3), ("amazon", 3), ("dbpedia", 3), ("sogou", 3), ("yahoo", 4), ("yelp", 2)]:
        for split, n in (("train", 3), ("test", 2)):
            lines = [",".join(f'"{split}{r}-{c}"' for c in range(cols)) for r in range(n)]
            _write(f"{root}/{name}/{split}.csv", "\n".join(lines) + "\n")
        paths[name] = f"{root}/{name}"
    for split in ("train", "test", "valid"):
        _write(f"{root}/ptb/ptb.{split}.txt", f" {split} one <unk>\n {split} two\n")
        _write(f"{root}/wikitext/wiki.{split}.tokens", f" = {split} =\n\n {split} text .\n")
    paths["ptb"], paths["wikitext"] = f"{root}/ptb", f"{root}/wikitext"
    _write(f"{root}/enwik9/enwik9", "<page>\n  <title>a</title>\n\n</page>\n")
    paths["enwik9"] = f"{root}/enwik9"
    for split in ("train", "test"):
        for lab in ("pos", "neg"):
            for i in range(2):
                _write(f"{root}/imdb/{split}/{lab}/{i}_{i + 7}.txt", f"{split} {lab} review {i}")
    paths["imdb"] = f"{root}/imdb"
    _write(f"{root}/sst2/train.tsv", "sentence\tlabel\ngood movie \t1\nbad one \t0\n")
    _write(f"{root}/sst2/test.tsv", "index\tsentence\n0\tsome text \n1\tmore text \n")
    paths["sst2"] = f"{root}/sst2"
    # images in binary formats
    rng = np.random.default_rng(0)
    cifar = np.concatenate(
        [rng.integers(0, 20, size=(10, 1)), rng.integers(0, 100, size=(10, 1)), rng.integers(0, 256, size=(10, 3072))],
        axis=1,
    ).astype(np.uint8)
    _write(f"{root}/cifar100/train.bin", cifar[:5].tobytes())  # MindSpore rejects these (see test_cifar100_layout)
    _write(f"{root}/cifar100/test.bin", cifar[5:].tobytes())
    paths["cifar100"] = f"{root}/cifar100"
    for name, prefix in (("fashion", ""), ("kmnist", ""), ("emnist", "emnist-digits-")):
        for base, n in (("train", 3), ("t10k" if not prefix else "test", 2)):
            images = rng.integers(0, 256, size=(n, 28, 28), dtype=np.uint8)
            labels = rng.integers(0, 10, size=n, dtype=np.uint8)
            _write(
                f"{root}/{name}/{prefix}{base}-images-idx3-ubyte",
                struct.pack(">IIII", 2051, n, 28, 28) + images.tobytes(),
            )
            _write(f"{root}/{name}/{prefix}{base}-labels-idx1-ubyte", struct.pack(">II", 2049, n) + labels.tobytes())
        paths[name] = f"{root}/{name}"
    lines = []
    for r in range(3):
        bits = rng.integers(0, 2, size=256)
        onehot = np.eye(10, dtype=int)[r * 3]
        lines.append(" ".join(f"{b}.0000" for b in bits) + " " + " ".join(str(v) for v in onehot) + " ")
    _write(f"{root}/semeion/semeion.data", "\n".join(lines) + "\n")
    paths["semeion"] = f"{root}/semeion"
    for split, n in (("usps", 2), ("usps.t", 1)):
        rows = []
        for r in range(n):
            vals = rng.uniform(-1, 1, size=256).round(6)
            rows.append(f"{r + 1} " + " ".join(f"{i + 1}:{v}" for i, v in enumerate(vals)))
        _write(f"{root}/usps/{split}", "\n".join(rows) + "\n")
    paths["usps"] = f"{root}/usps"
    # image folders and manifests
    for c, n in (("001.cat", 2), ("002.dog", 3)):
        for i in range(n):
            _write(f"{root}/caltech256/{c}/{c[4:]}_{i}.jpg", png_bytes(10 * n + i))
    paths["caltech256"] = f"{root}/caltech256"
    manifest = []
    for i, (usage, label) in enumerate([("train", "dog"), ("train", "cat"), ("eval", "dog"), ("TRAIN", "bird")]):
        img = _write(f"{root}/manifest/img{i}.png", png_bytes(100 + i))
        manifest.append(json.dumps({"source": img, "usage": usage, "annotation": [{"name": label}]}))
    paths["manifest"] = _write(f"{root}/manifest/data.manifest", "\n".join(manifest) + "\n")
    return paths
