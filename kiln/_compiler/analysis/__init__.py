"""Analysis: abstract interpretation of the IR (constants folded, tensors symbolic)."""
