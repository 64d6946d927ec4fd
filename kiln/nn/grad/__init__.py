"""`mindspore.nn.grad`: the Jvp and Vjp Cells."""

from kiln.nn.grad.cell_grad import Jvp, Vjp

__all__ = ["Jvp", "Vjp"]
