"""Kiln's: the zoo's textrcnn/src has no __init__.py."""
