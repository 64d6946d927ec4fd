"""MindSpore's `mindspore.runtime`: synchronize, streams, events and memory statistics (also at the top level).

The definitions live in `kiln.common.runtime`; this module is the path scripts use: `ms.runtime.synchronize()`,
`from mindspore.runtime import memory_allocated`.
"""

from __future__ import annotations

from kiln.common.runtime import *  # noqa: F403
from kiln.common.runtime import __all__  # noqa: F401
