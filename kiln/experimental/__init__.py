"""MindSpore's `mindspore.experimental`: the PyTorch-style optimizers and learning-rate schedulers."""

from kiln.experimental import optim

__all__ = ["optim"]
