"""PyNative execution: eager dispatch of primitives and the autograd tape."""
