"""`mindspore.train.amp`: the same API as `mindspore.amp` (kiln/amp.py)."""

from kiln.amp import *  # noqa: F403
from kiln.amp import __all__  # noqa: F401
