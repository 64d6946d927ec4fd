"""The zoo HyperText network's vendored sources (unchanged, see tests/zoo/README.md); this file is Kiln's."""
