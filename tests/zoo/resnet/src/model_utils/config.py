"""Stand-in for the zoo's YAML-driven `src.model_utils.config`: only the fields `src/resnet.py` reads."""

from types import SimpleNamespace

config = SimpleNamespace(net_name="resnet50", optimizer="Momentum")
