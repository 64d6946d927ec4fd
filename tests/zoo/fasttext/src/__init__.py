"""The zoo FastText network's vendored sources (unchanged, see tests/zoo/README.md)."""
