"""Kiln's: the zoo's research/cv/r2plus1d/src has no __init__.py."""
