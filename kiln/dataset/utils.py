"""Dataset helpers: LineReader (random access to the lines of a text file)."""

from __future__ import annotations

import os

__all__ = ["LineReader"]


class LineReader:
    """Random access to the lines of a text file: the offset of every line is recorded when it is opened.

    Args:
        filename: the file.
    """

    def __init__(self, filename: str) -> None:
        if not isinstance(filename, str):
            raise TypeError(f"LineReader: filename must be a str, but got {type(filename).__name__}.")
        if not os.path.isfile(filename):
            raise RuntimeError(f"LineReader: {filename!r} does not exist or is not a regular file.")
        self.filename = filename
        self.offsets: list[int] = []
        with open(filename, "rb") as f:
            pos = 0
            for line in f:
                self.offsets.append(pos)
                pos += len(line)
        self._handle = None

    def len(self) -> int:
        """The number of lines."""
        return len(self.offsets)

    def readline(self, line: int) -> str:
        """Line `line` (counted from 1) without its line break.

        Raises:
            TypeError: `line` is not an int.
            ValueError: `line` is not in [1, len()].
        """
        if isinstance(line, bool) or not isinstance(line, int):
            raise TypeError(f"LineReader.readline: line must be an int, but got {type(line).__name__}.")
        if not 1 <= line <= len(self.offsets):
            raise ValueError(f"LineReader.readline: line must be in [1, {len(self.offsets)}], but got {line}.")
        if self._handle is None:
            self._handle = open(self.filename, "rb")  # noqa: SIM115  (kept open for the next reads; see close)
        self._handle.seek(self.offsets[line - 1])
        return self._handle.readline().decode("utf-8").rstrip("\r\n")

    def close(self) -> None:
        """Close the file."""
        if self._handle is not None:
            self._handle.close()
            self._handle = None

    def __del__(self) -> None:
        self.close()
