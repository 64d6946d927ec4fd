"""`mindspore.nn.grad`: the Jvp and Vjp Cells (defined with the other layers in kiln/nn/layer/extra2.py)."""

from kiln.nn.layer.extra2 import Jvp, Vjp

__all__ = ["Jvp", "Vjp"]
