"""The zoo HAKE network's vendored sources (unchanged, see tests/zoo/README.md)."""
