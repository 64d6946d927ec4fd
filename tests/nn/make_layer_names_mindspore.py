"""Write layer_names_mindspore.json: MindSpore 2.10's `mindspore.nn.layer.__all__`.
Run: /work/msvenv/bin/python tests/nn/make_layer_names_mindspore.py"""

import json
import os

import mindspore as ms
import mindspore.nn.layer as layer

HERE = os.path.dirname(os.path.abspath(__file__))

if __name__ == "__main__":
    with open(os.path.join(HERE, "layer_names_mindspore.json"), "w") as f:
        json.dump({"mindspore": ms.__version__, "names": sorted(layer.__all__)}, f, indent=1)
