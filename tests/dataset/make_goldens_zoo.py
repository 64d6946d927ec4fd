"""MindSpore 2.10 goldens of tests/dataset/zoo_cases.py, for tests/dataset/test_zoo_goldens.py.

Run with MindSpore's environment from the repository root:
    /work/msvenv/bin/python tests/dataset/make_goldens_zoo.py
It writes tests/dataset/goldens/zoo.json and tests/dataset/goldens/zoo_resize.npz.
"""

import json
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import mindspore.dataset as ds  # noqa: E402
import mindspore.dataset.vision as vision  # noqa: E402
import numpy as np  # noqa: E402
import zoo_cases  # noqa: E402
from mindspore.mindrecord import FileWriter  # noqa: E402
from PIL import Image  # noqa: E402

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "goldens")


def main() -> None:
    out = {"concat": zoo_cases.concat_goldens(ds)}
    with tempfile.TemporaryDirectory() as tmp:
        out["concat_mindrecord"] = zoo_cases.concat_mindrecord_goldens(ds, FileWriter, tmp)
    out["per_batch_map"] = zoo_cases.per_batch_map_goldens(ds)
    pil_arrays, out["pil_types"] = zoo_cases.pil_goldens(vision, Image)
    with open(os.path.join(HERE, "zoo.json"), "w") as f:
        json.dump(out, f, indent=0, sort_keys=True)
    np.savez_compressed(os.path.join(HERE, "zoo_resize.npz"), **zoo_cases.resize_goldens(vision), **pil_arrays)


if __name__ == "__main__":
    main()
