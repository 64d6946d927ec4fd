"""Kiln's: the zoo's own src/__init__.py imports modules not vendored here (adam.py, the fine-tuning cells)."""
