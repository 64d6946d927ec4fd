"""Kiln's stand-in for the zoo's src/args.py, which parses the command line and a YAML config at import: the fields
the network (`nonlinearity`) and src/tools/cell.py's cast_amp (`amp_level`, `arch`) read. The driver sets amp_level."""

import argparse

args = argparse.Namespace(nonlinearity="GELU", arch="swin_tiny_patch4_window7_224", amp_level="O1")
