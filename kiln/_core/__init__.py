"""Kiln's core objects: dtypes, the primitive registry, Tensor and Parameter."""
