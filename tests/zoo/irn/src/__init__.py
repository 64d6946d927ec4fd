"""The zoo IRN network's vendored sources (unchanged, see tests/zoo/README.md)."""
