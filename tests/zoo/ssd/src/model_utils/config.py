"""Stand-in for the zoo's YAML-driven `src.model_utils.config`: only the fields `src/vgg16.py` reads at import."""

from types import SimpleNamespace

config = SimpleNamespace(pretrain_vgg_bn=False, ssd_vgg_bn=False)
