"""Kiln's stand-in for the zoo's config module (which reads its YAML and the command line at import): the one field
src/model/layer.py reads when it is imported. 'GPU' selects src/model/attn.py and positionwiseFF.py, the non-Ascend
attention train.py pairs with MemTransformerLM."""

from types import SimpleNamespace

config = SimpleNamespace(device_target="GPU")
