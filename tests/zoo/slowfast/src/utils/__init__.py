"""Kiln's: the zoo's research/cv/slowfast/src/utils has no __init__.py."""
