"""Tests of kiln.ops.operations: the Primitive classes by family."""
