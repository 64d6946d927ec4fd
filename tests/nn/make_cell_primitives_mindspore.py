"""Write cell_primitives_mindspore.json: for each `mindspore.nn` layer and loss class that builds with one of a few
small argument lists, the arguments used and its attributes that hold a Primitive (name -> Primitive class name).
Zoo code reaches into these (`self.dense.matmul.shard(...)`), so Kiln's cells keep them under the same names.
Run: /work/msvenv/bin/python tests/nn/make_cell_primitives_mindspore.py"""

import json
import os

import mindspore as ms
import mindspore.nn as nn
from mindspore.ops import Primitive

HERE = os.path.dirname(os.path.abspath(__file__))

# Tried in order; the first that builds is recorded (Kiln's test builds its cell with the same arguments).
ARGUMENTS = ((), (4,), (4, 4), (4, 4, 3), ((4,),))


def primitive_attributes(cell) -> dict:
    """Attribute name -> Primitive class name, for the attributes of `cell` that hold a Primitive."""
    found = {k: type(v).__name__ for k, v in vars(cell).items() if isinstance(v, Primitive)}
    found.update({k: type(v).__name__ for k, v in cell.__dict__.get("_primitives", {}).items() if v is not None})
    return dict(sorted(found.items()))


def main() -> None:
    cells = {}
    for module in (nn.layer, nn.loss):
        for name in sorted(module.__all__):
            cls = getattr(nn, name, None)
            if not isinstance(cls, type) or not issubclass(cls, nn.Cell):
                continue
            for args in ARGUMENTS:
                try:
                    cell = cls(*args)
                except Exception:  # noqa: BLE001 (the next argument list is tried)
                    continue
                cells[name] = {"args": list(args), "primitives": primitive_attributes(cell)}
                break
    with open(os.path.join(HERE, "cell_primitives_mindspore.json"), "w") as f:
        json.dump({"mindspore": ms.__version__, "cells": cells}, f, indent=1, sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    main()
