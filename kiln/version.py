"""Kiln's version (MindSpore's `mindspore.version` module path)."""

__version__ = "0.1.0"
