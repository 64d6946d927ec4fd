"""The zoo SSD network's vendored sources (unchanged, see tests/zoo/README.md)."""
