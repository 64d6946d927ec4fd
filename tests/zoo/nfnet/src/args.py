"""Kiln's stand-in for the zoo's src/args.py (an argparse and YAML configuration): the one field the vendored
std_conv.py reads at import. "GPU" selects the zoo's plain ScaledStdConv2dUnit (its "Ascend" branch splits grouped
convolutions into one convolution per group)."""

from types import SimpleNamespace

args = SimpleNamespace(device_target="GPU")
