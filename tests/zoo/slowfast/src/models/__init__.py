"""Kiln's: the zoo's research/cv/slowfast/src/models has no __init__.py."""
