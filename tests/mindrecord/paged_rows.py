"""The records of the MindSpore-written MindRecord goldens: made by the same code under MindSpore and under the test."""

import numpy as np

INTS = [0, 1, -1, 127, 128, -128, -129, 255, 256, 32767, 32768, -32768, -32769, 65535, 65536, 2**31 - 1, -(2**31)]
LONGS = [*INTS, 2**31, 2**40, -(2**40), 2**63 - 1, -(2**63)]

MIXED_SCHEMA = {
    "label": {"type": "int32"},
    "id": {"type": "int64"},
    "score": {"type": "float32"},
    "weight": {"type": "float64"},
    "name": {"type": "string"},
    "data": {"type": "bytes"},
    "vec": {"type": "float32", "shape": [-1]},
    "mat": {"type": "int64", "shape": [2, 3]},
    "codes": {"type": "int32", "shape": [-1]},
    "longs": {"type": "int64", "shape": [-1]},
    "grid": {"type": "float64", "shape": [-1, 2]},
}
IMAGES_SCHEMA = {"id": {"type": "int32"}, "img": {"type": "bytes"}}


def _bytes(seed: int, n: int) -> bytes:
    return bytes((seed * 7 + j * 13) % 256 for j in range(n))


def mixed_rows() -> list[dict]:
    """Every field type, scalar and array, with ints of every compressed width and floats that need float64."""
    rows = []
    for i in range(6):
        rows.append({
            "label": i - 2,
            "id": 10**10 + i,
            "score": 0.5 * i - 0.75,
            "weight": 0.1 * i,
            "name": f"name-{i}-é",
            "data": _bytes(i, 3 * i),
            "vec": np.arange(i + 1, dtype=np.float32) / 3,
            "mat": np.arange(6, dtype=np.int64).reshape(2, 3) * (1000**i) - i,
            "codes": np.array(INTS[i:] + INTS[:i], np.int32),
            "longs": np.array(LONGS[::-1] if i % 2 else LONGS, np.int64),
            "grid": np.linspace(-1, 1, 2 * (i + 1)).reshape(-1, 2),
        })  # fmt: skip
    return rows


def image_rows(start: int, count: int) -> list[dict]:
    """Records whose blob alone fills a page every ten records or so."""
    return [{"id": i, "img": _bytes(i, 3000 + 17 * i)} for i in range(start, start + count)]
