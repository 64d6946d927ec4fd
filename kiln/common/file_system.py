"""`mindspore.common.file_system`: how checkpoint files are created and opened.

Kiln writes and reads checkpoints on the local file system only (atomically: a temporary file renamed into
place), so `FileSystem` describes that one backend: Python's `open` for both, appending bytes to create and
reading bytes to open.
"""

from __future__ import annotations

__all__ = ["FileSystem"]


class FileSystem:
    """The file operations checkpoints use: `create(path, *create_args)` and `open(path, *open_args)`."""

    def __init__(self) -> None:
        self.create = open
        self.create_args = ("ab",)
        self.open = open
        self.open_args = ("rb",)
        self.backend = "basic"
