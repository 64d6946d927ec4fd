"""Kiln's layers (MindSpore's `mindspore.nn.layer`): convolution, pooling, normalisation, activations, ..."""
