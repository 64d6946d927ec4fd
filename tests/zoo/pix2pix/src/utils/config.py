"""Stand-in for the zoo's YAML-driven `src.utils.config`: only the fields `src/models/*.py` read, at the zoo's
default_config.yaml values."""

from types import SimpleNamespace

config = SimpleNamespace(
    pad_mode="CONSTANT", LAMBDA_Dis=0.5, LAMBDA_GAN=1, LAMBDA_L1=100, init_type="normal", init_gain=0.02
)
