"""Kiln's version (MindSpore's `mindspore.version` module path).

`__version__` is the MindSpore release whose API Kiln follows: MindSpore code reads `mindspore.__version__` to pick
between MindSpore 1.x and 2.x calls (the zoo's SegFormer passes `ops.interpolate` 1.x's `sizes=` below 2.0.0), so it
must name the API Kiln implements. Kiln's own release is `KILN_VERSION`.
"""

__version__ = "2.10.0"
KILN_VERSION = "0.1.0"
