"""`mindspore.ops.composite` compatibility: the same names as `kiln.ops`."""

import kiln.ops as _ops

globals().update({name: value for name, value in vars(_ops).items() if not name.startswith("_")})
